"""corpus/.fetch.lock: one writer of the mirror folders at a time; corpus/.registry.lock: one of the registry's YAML.

`fetch` and `attach` hold it for their whole run. `watch`, which refreshes the thread state in
cited PRs' provenance records, holds it only while it writes one, and leaves the records alone
while a fetch holds it (the fetch may be swapping those very folders: watch/run.py).

The holder writes what it is into the file ("watch, pid 12, started …"), so that a command
that finds the lock taken can say who holds it, and a fetch that meets a watch waits the
moment that watch needs instead of refusing to start.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from .errors import RefusedError
from .provenance import clean_temps, utc_stamp

RUN_LOCK = ".fetch.lock"
# Any command that loads the registry puts back the mirror a killed fallback swap left aside
# (core/swapdir.put_back); it holds the lock as RESTORER for those renames only.
RESTORER = "restore"
COMMANDS = ("fetch", "attach", "watch", "add", "import", "adopt", "links", RESTORER)
BRIEF_HOLDERS = ("watch", RESTORER)  # commands that hold the lock for one record's write (or one rename) at a time
BRIEF_WAIT = 5.0  # seconds a fetch waits for a brief holder (a watch writes a record in milliseconds)
POLL = 0.05


@contextmanager
def run_lock(root: Path, command: str = "fetch", *, wait: float = 0.0) -> Iterator[None]:
    """Hold an exclusive lock on corpus/.fetch.lock as `command`; the kernel drops it if the process dies.

    Taken by a command in BRIEF_HOLDERS, the lock is tried again for up to `wait` seconds;
    taken by any other (or still taken then), RefusedError naming the holder."""
    with _hold(Path(root) / RUN_LOCK, command, wait, lambda name: name in BRIEF_HOLDERS or not name,
               lambda name, holder: _held(root, name, holder, wait)):
        yield


REGISTRY_LOCK = ".registry.lock"
REGISTRY_WAIT = 60.0  # seconds: another writer holds it for one append and one registry check


@contextmanager
def registry_lock(root: Path, command: str) -> Iterator[None]:
    """Hold corpus/.registry.lock as `command` while reading, writing and checking the registry's
    YAML: two `add`s at once (a script, two terminals) each appended to the file as they had
    read it, and one entry was lost though both said "added". Every holder is brief, so a
    second writer waits for the first (up to REGISTRY_WAIT seconds)."""

    def still_held(name: str, holder: str) -> str:
        who = f"`corpus-build {name}`" if name else "another corpus-build command"
        details = holder.split(",", 1)[1].strip() if name else holder or "another process"
        return f"{who} ({details}) has been writing the registry of {root} for over {REGISTRY_WAIT:g} s; run again once it is done"

    with _hold(Path(root) / REGISTRY_LOCK, command, REGISTRY_WAIT, lambda name: True, still_held):
        # A killed writer's .sources.yaml.<pid>.<thread>.tmp (provenance.write_atomic) beside the file.
        for folder in _folders(Path(root)):
            clean_temps(folder, REGISTRY_FILES)
        yield


REGISTRY_FILES = ("sources.yaml", "section.yaml", "corpus.yaml")  # what registry writers replace


def _folders(root: Path) -> list[Path]:
    """corpus/ and its real sub-folders (the sections; never through a link)."""
    try:
        with os.scandir(root) as entries:
            return [root, *(Path(e.path) for e in entries if not e.name.startswith(".") and e.is_dir(follow_symlinks=False))]
    except OSError:
        return [root]


@contextmanager
def registry_read(root: Path) -> Iterator[None]:
    """A shared hold on corpus/.registry.lock while a build reads the registry: a writer
    (`add`, `import` …) appends its entry, checks the registry and puts the file back if the check
    fails; a build reading in between would fail on an entry that is gone a moment later. Waits
    up to REGISTRY_WAIT seconds, then reads all the same (the registry's own check speaks).
    No lock file (no writer ever ran) or one that cannot be opened: read without."""
    try:
        fd = os.open(Path(root) / REGISTRY_LOCK, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        yield
        return
    try:
        deadline = time.monotonic() + REGISTRY_WAIT
        with suppress(OSError):  # a file system without locks: read without
            _flock(fd, fcntl.LOCK_SH, lambda: time.monotonic() < deadline)
        yield
    finally:
        os.close(fd)


def _flock(fd: int, mode: int, may_wait: Callable[[], bool]) -> bool:
    """flock(fd, mode), tried again every POLL seconds for as long as may_wait() says; False when given up."""
    while True:
        try:
            fcntl.flock(fd, mode | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if not may_wait():
                return False
            time.sleep(POLL)


def _holder(fd: int) -> tuple[str, str]:
    """The holder's command ("" when unknown, or not written yet) and its whole line."""
    line = os.pread(fd, 200, 0).decode("utf-8", "replace").strip()
    name = line.split(",", 1)[0]
    return (name if name in COMMANDS else ""), line


@contextmanager
def _hold(path: Path, command: str, wait: float, waits_for: Callable[[str], bool], refusal: Callable[[str, str], str]) -> Iterator[None]:
    """An exclusive flock on `path`, its holder's name written in it. Held by a command
    `waits_for` accepts, it is tried again until `wait` seconds have passed; then (or at once
    for another holder) RefusedError(refusal(holder's command, holder's line))."""
    try:  # O_NOFOLLOW: a committed lock symlink must not make us truncate its target
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        hint = "it is a symlink; delete it" if path.is_symlink() else "check that the corpus folder is writable"
        raise RefusedError(f"{path}: cannot open the lock file ({exc.strerror or exc}); {hint}") from None
    try:
        deadline = time.monotonic() + wait
        if not _flock(fd, fcntl.LOCK_EX, lambda: waits_for(_holder(fd)[0]) and time.monotonic() < deadline):
            raise RefusedError(refusal(*_holder(fd))) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{command}, pid {os.getpid()}, started {utc_stamp()}".encode(), 0)
        yield
    finally:
        os.close(fd)


def _held(root: Path, name: str, holder: str, waited: float) -> str:
    details = holder.split(",", 1)[1].strip() if name else holder or "another process"
    if name == RESTORER:
        return (f"another corpus-build command ({details}) holds the run lock of {root} while it puts back a mirror a killed fetch left aside"
                + (f", and still did after {waited:g} s" if waited else "") + "; run again in a moment")
    if name in BRIEF_HOLDERS:
        return (f"`corpus-build {name}` ({details}) holds the run lock of {root} while it updates a mirror record"
                + (f", and still did after {waited:g} s" if waited else "") + "; run again in a moment")
    who = f"`corpus-build {name}`" if name else "another corpus-build command"
    return f"{who} is already running on {root} ({details}); wait for it to finish, then run again"
