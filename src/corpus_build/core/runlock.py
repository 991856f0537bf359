"""corpus/.fetch.lock: one writer of the mirror folders at a time.

`fetch` and `attach` hold it for their whole run. `watch`, which refreshes the thread state in
cited PRs' provenance records, holds it only while it writes one, and leaves the records alone
while a fetch holds it (the fetch may be swapping those very folders: watch/run.py).
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .errors import UsageError
from .provenance import utc_stamp

RUN_LOCK = ".fetch.lock"


@contextmanager
def run_lock(root: Path) -> Iterator[None]:
    """Hold an exclusive lock on corpus/.fetch.lock; the kernel drops it if the process dies."""
    path = Path(root) / RUN_LOCK
    try:  # O_NOFOLLOW: a committed .fetch.lock symlink must not make us truncate its target
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        hint = "it is a symlink; delete it" if path.is_symlink() else "check that the corpus folder is writable"
        raise UsageError(f"{path}: cannot open the run lock ({exc.strerror or exc}); {hint}") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 200, 0).decode("utf-8", "replace").strip() or "another process"
            raise UsageError(
                f"another `corpus-build fetch` is already running on {root} ({holder}); wait for it to finish, then run again"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()}, started {utc_stamp()}".encode(), 0)
        yield
    finally:
        os.close(fd)
