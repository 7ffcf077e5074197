"""A kill switch for crash tests: the process kills itself, hard, at a named point of a run.

``COLOSSEUM_KILL_AT`` lists points (comma-separated); when a run reaches one it sends itself
SIGKILL, with no clean-up, exactly as a power cut or the OOM killer would. The crash tests use it to
stop a real run at every step boundary and then finish the card from the CLI; nothing else sets it.
Points: ``wrote:<table>`` after a table's file and ledger entry are written, ``sealed`` after a
seal is written and before the tables it names (``record.sealed_step``), ``journal:<seq>`` after the
answers journal's entry ``seq`` is on disk, ``journal:collected`` after a topic rotation's sources are
journalled, ``game:<game id>`` after a debate game is in its epoch's journal,
``chess-ask:<game>:<ply>:<attempt>`` and ``chess-reply:…`` after a chess move's request or reply is
in its event's journal.
"""

from __future__ import annotations

import os
import signal

KILL_AT_ENV = "COLOSSEUM_KILL_AT"


def crash_point(point: str) -> None:
    """Die here if ``COLOSSEUM_KILL_AT`` names ``point``."""
    wanted = os.environ.get(KILL_AT_ENV)
    if wanted and point in {p.strip() for p in wanted.split(",")}:
        os.kill(os.getpid(), signal.SIGKILL)
