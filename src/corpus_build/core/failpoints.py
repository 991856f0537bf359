"""Named places where a test can kill the process, to prove a kill there loses nothing.

`CORPUS_BUILD_FAILPOINT=swap:between corpus-build build` dies with SIGKILL when the build
reaches `hit("swap:between")`: the kill tests (tests/test_kill.py) use it to stop at the
exact moment a random-time kill would rarely hit. Unset (always, outside tests), `hit` is
one dictionary lookup.
"""

from __future__ import annotations

import os
import signal

VARIABLE = "CORPUS_BUILD_FAILPOINT"


def hit(name: str) -> None:
    if os.environ.get(VARIABLE) == name:
        os.kill(os.getpid(), signal.SIGKILL)
