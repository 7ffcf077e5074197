"""Inside the sandbox: set the limits, then run the program as ``__main__`` in this interpreter.

Run by Debian's ``python3 -I -S`` as ``launch.py CPU MEMORY PROCESSES FILE_BYTES OPEN_FILES PROGRAM``.
The limits are set here, after bubblewrap made the user namespace, so that the process limit
counts this sandbox's processes only. Standard library only: nothing of the project is in reach.
"""

import resource
import sys


def _limit(kind: int, soft: int, hard: int | None = None) -> None:
    resource.setrlimit(kind, (soft, soft if hard is None else hard))


def main() -> None:
    cpu, memory, processes, file_bytes, open_files = (int(value) for value in sys.argv[1:6])
    program = sys.argv[6]
    # SIGXCPU at the soft limit; the kernel's SIGKILL a second later if the program ignores it.
    _limit(resource.RLIMIT_CPU, cpu, cpu + 1)
    _limit(resource.RLIMIT_AS, memory)
    _limit(resource.RLIMIT_NPROC, processes)
    _limit(resource.RLIMIT_FSIZE, file_bytes)
    _limit(resource.RLIMIT_NOFILE, open_files)
    _limit(resource.RLIMIT_CORE, 0)
    with open(program, encoding="utf-8") as handle:
        source = handle.read()
    sys.argv = [program]
    code = compile(source, program, "exec")
    exec(code, {"__name__": "__main__", "__file__": program, "__builtins__": __builtins__})


main()
