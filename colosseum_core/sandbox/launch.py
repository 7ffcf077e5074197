"""Inside the sandbox (COLOSSEUM-SANDBOX-2): set the limits, give the program one repeatable world, then
run it as ``__main__`` in this interpreter.

Run by Debian's ``python3 -I -S`` as ``launch.py CPU MEMORY PROCESSES FILE_BYTES OPEN_FILES CLOCK_START
CLOCK_TICK_NS ENTROPY_SEED PROGRAM``. Standard library only: nothing of the project is in reach.

1. **Limits**, set here after bubblewrap made the user namespace, so that the process limit counts
   this sandbox's processes only.
2. **The clock.** Every clock of ``time`` (``time``, ``time_ns``, ``monotonic``, ``perf_counter``,
   ``process_time``, ``thread_time``, ``clock_gettime``, and ``localtime``, ``gmtime``, ``ctime``,
   ``asctime`` and ``strftime`` of now), ``os.times`` and ``resource.getrusage`` read one virtual
   clock that starts at CLOCK_START and advances CLOCK_TICK_NS at each reading; ``time.sleep``
   sleeps and advances it by as much. ``datetime`` is its pure-Python implementation (the C one
   reads the system clock itself), which reads ``time.time``. A file's times (``os.stat``,
   ``os.lstat``, ``os.fstat``, ``os.scandir``'s entries) are CLOCK_START.
3. **Entropy.** ``os.urandom``, ``os.getrandom`` and the seeding of every ``random.Random`` given no
   seed (``random``'s own, ``tempfile``'s; ``SystemRandom`` and ``secrets`` read ``os.urandom``)
   draw from one stream seeded with ENTROPY_SEED; ``uuid`` runs without its C helper, on those;
   ``/dev/urandom`` is a file of seeded bytes (bubblewrap binds it).
4. **Refused**, with ``PermissionError`` or ``ImportError``: ``ctypes`` (it reaches every system
   call), running another program (``os.exec*``, ``os.posix_spawn``, ``os.system``,
   ``subprocess``), ``os.memfd_create`` (an in-memory file no limit sizes), ``ssl`` (its own
   entropy) and the garbage collector's walks over every object.

Each process has its own copy of the clock and the stream, so a fork sees what its parent would
have seen next. This covers every ordinary way a program reads the time or draws entropy; it is not
a wall against one that digs for the real clock on purpose (threads racing, interval timers, the
originals kept in a closure): admission runs every step again and ``verify`` names the author of a
program whose replay differs.
"""

import resource
import sys

# What the sandbox refuses, by the audit event Python raises for it.
_REFUSED = frozenset(
    {
        "os.exec",
        "os.posix_spawn",
        "os.spawn",
        "os.system",
        "subprocess.Popen",
        "ctypes.dlopen",
        "ctypes.dlsym",
        "ctypes.cdata",
        "gc.get_objects",
        "gc.get_referrers",
        "gc.get_referents",
    }
)
# Modules that read the real clock or entropy, or reach past Python, in C: never imported here.
# ``datetime`` falls back to its pure-Python implementation and ``uuid`` to its Python code.
_ABSENT = ("_datetime", "_uuid", "_ctypes", "_ssl")


def _limit(kind, soft, hard=None):
    resource.setrlimit(kind, (soft, soft if hard is None else hard))


def _set_limits(cpu, memory, processes, file_bytes, open_files):
    # SIGXCPU at the soft limit; the kernel's SIGKILL a second later if the program ignores it.
    _limit(resource.RLIMIT_CPU, cpu, cpu + 1)
    _limit(resource.RLIMIT_AS, memory)
    _limit(resource.RLIMIT_NPROC, processes)
    _limit(resource.RLIMIT_FSIZE, file_bytes)
    _limit(resource.RLIMIT_NOFILE, open_files)
    _limit(resource.RLIMIT_CORE, 0)


def _refuse(event, args):
    if event in _REFUSED:
        raise PermissionError(f"the sandbox refuses {event} (COLOSSEUM-SANDBOX-2)")


def _no_program(*args, **kwargs):
    raise PermissionError("the sandbox runs no other program (COLOSSEUM-SANDBOX-2)")


class _AfterImport:
    """A finder that finds nothing itself: it wraps the loader of each module it pins, so that the pin
    runs as soon as the module has, before anything can use it."""

    def __init__(self, pins):
        self.pins = pins

    def find_spec(self, name, path=None, target=None):
        pin = self.pins.get(name)
        if pin is None:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                spec.loader = _PinningLoader(spec.loader, pin)
                return spec
        return None


class _PinningLoader:
    def __init__(self, loader, pin):
        self.loader, self.pin = loader, pin

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        self.loader.exec_module(module)
        self.pin(module)

    def __getattr__(self, name):
        return getattr(self.loader, name)


def _repeatable(clock_start, tick_ns, seed):
    # Each stand-in is a staticmethod: callable as the built-in was, and like a built-in it takes no
    # ``self`` when a class keeps it (``logging.Formatter.converter = time.localtime``).
    import _random
    import posix
    import time

    origin = clock_start * 1_000_000_000
    now = [origin]

    def time_ns():
        now[0] += tick_ns
        return now[0]

    def elapsed_ns():
        return time_ns() - origin

    def seconds():
        return time_ns() / 1e9

    def elapsed():
        return elapsed_ns() / 1e9

    real_sleep, real_localtime, real_gmtime = time.sleep, time.localtime, time.gmtime
    real_ctime, real_asctime, real_strftime = time.ctime, time.asctime, time.strftime
    realtime = {getattr(time, n) for n in ("CLOCK_REALTIME", "CLOCK_TAI") if hasattr(time, n)}

    def sleep(secs):
        real_sleep(secs)
        now[0] += int(secs * 1e9)

    def clock_gettime(clock):
        return seconds() if clock in realtime else elapsed()

    def clock_gettime_ns(clock):
        return time_ns() if clock in realtime else elapsed_ns()

    pinned = {
        "time": seconds,
        "time_ns": time_ns,
        "monotonic": elapsed,
        "monotonic_ns": elapsed_ns,
        "perf_counter": elapsed,
        "perf_counter_ns": elapsed_ns,
        "process_time": elapsed,
        "process_time_ns": elapsed_ns,
        "thread_time": elapsed,
        "thread_time_ns": elapsed_ns,
        "clock_gettime": clock_gettime,
        "clock_gettime_ns": clock_gettime_ns,
        "sleep": sleep,
        "localtime": lambda secs=None: real_localtime(seconds() if secs is None else secs),
        "gmtime": lambda secs=None: real_gmtime(seconds() if secs is None else secs),
        "ctime": lambda secs=None: real_ctime(seconds() if secs is None else secs),
        "asctime": lambda t=None: real_asctime(real_localtime(seconds()) if t is None else t),
        "strftime": lambda fmt, t=None: real_strftime(fmt, real_localtime(seconds()) if t is None else t),
    }
    for name, function in pinned.items():
        if hasattr(time, name):
            setattr(time, name, staticmethod(function))

    def rusage(who):
        return resource.struct_rusage((elapsed(), 0.0) + (0,) * 14)

    resource.getrusage = staticmethod(rusage)

    stream = _random.Random(seed)

    def urandom(size):
        size = size.__index__()
        if size < 0:
            raise ValueError("negative argument not allowed")
        return stream.getrandbits(size * 8).to_bytes(size, "little") if size else b""

    def getrandom(size, flags=0):
        return urandom(size)

    # importlib keeps the real functions: it checks compiled files against their sources' times.
    real = type(sys)("posix")
    real.__dict__.update(posix.__dict__)
    sys.modules["_frozen_importlib_external"]._os = real
    stat_result = posix.stat_result
    instant, instant_ns = float(clock_start), origin

    def fixed(result):
        values = list(result[:10])
        values[7] = values[8] = values[9] = clock_start  # st_atime, st_mtime, st_ctime, whole seconds
        extra = {
            name: getattr(result, name)
            for name in ("st_blksize", "st_blocks", "st_rdev", "st_flags", "st_gen", "st_birthtime")
            if hasattr(result, name)
        }
        for name in ("st_atime", "st_mtime", "st_ctime"):
            extra[name], extra[name + "_ns"] = instant, instant_ns
        return stat_result(values, extra)

    def stat(*args, **kwargs):
        return fixed(real.stat(*args, **kwargs))

    def lstat(*args, **kwargs):
        return fixed(real.lstat(*args, **kwargs))

    def fstat(fd):
        return fixed(real.fstat(fd))

    class DirEntry:
        __slots__ = ("_entry",)

        def __init__(self, entry):
            self._entry = entry

        name = property(lambda self: self._entry.name)
        path = property(lambda self: self._entry.path)

        def inode(self):
            return self._entry.inode()

        def is_dir(self, *, follow_symlinks=True):
            return self._entry.is_dir(follow_symlinks=follow_symlinks)

        def is_file(self, *, follow_symlinks=True):
            return self._entry.is_file(follow_symlinks=follow_symlinks)

        def is_symlink(self):
            return self._entry.is_symlink()

        def is_junction(self):
            return False

        def stat(self, *, follow_symlinks=True):
            return fixed(self._entry.stat(follow_symlinks=follow_symlinks))

        def __fspath__(self):
            return self._entry.__fspath__()

        def __repr__(self):
            return f"<DirEntry {self.name!r}>"

    class Scandir:
        def __init__(self, entries):
            self._entries = entries

        def __iter__(self):
            return self

        def __next__(self):
            return DirEntry(next(self._entries))

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self._entries.close()

        def close(self):
            self._entries.close()

    def scandir(path="."):
        return Scandir(real.scandir(path))

    def times():
        return posix.times_result((elapsed(), 0.0, 0.0, 0.0, elapsed()))

    # ``os`` is not imported yet (``-I -S``): it takes these from ``posix`` when it is.
    for name, function in {
        "urandom": urandom,
        "getrandom": getrandom,
        "stat": stat,
        "lstat": lstat,
        "fstat": fstat,
        "scandir": scandir,
        "times": times,
    }.items():
        if hasattr(posix, name):
            setattr(posix, name, staticmethod(function))
    if hasattr(posix, "memfd_create"):
        del posix.memfd_create

    def pin_random(module):
        original = module.Random.seed

        def seed(self, a=None, version=2):
            original(self, int.from_bytes(urandom(32), "big") if a is None else a, version)

        module.Random.seed = seed
        module._urandom = staticmethod(urandom)
        module._inst.seed()  # seeded by the kernel as the module ran
        module.seed = module._inst.seed

    stub = type(sys)("_posixsubprocess")
    stub.fork_exec = _no_program
    sys.modules["_posixsubprocess"] = stub
    for name in _ABSENT:
        sys.modules[name] = None
    sys.meta_path.insert(0, _AfterImport({"random": pin_random}))
    sys.addaudithook(_refuse)


def main():
    numbers = [int(value) for value in sys.argv[1:9]]
    program = sys.argv[9]
    _set_limits(*numbers[:5])
    _repeatable(*numbers[5:])
    with open(program, encoding="utf-8") as handle:
        source = handle.read()
    sys.argv = [program]
    code = compile(source, program, "exec")
    exec(code, {"__name__": "__main__", "__file__": program, "__builtins__": __builtins__})


main()
