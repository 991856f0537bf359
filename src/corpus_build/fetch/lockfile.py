"""corpus/corpus.lock (what each source is pinned to) and the run lock that keeps fetches one at a time."""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..core import jsondata
from ..core.errors import UsageError
from ..core.provenance import Provenance, utc_stamp, write_atomic

LOCK_FILE = "corpus.lock"
RUN_LOCK = ".fetch.lock"
LOCK_VERSION = 1


def read_lock(root: Path) -> dict[str, dict]:
    """source id -> pin ({url, kind, sha256 | commit, etag, fetched_at}); {} when there is none."""
    try:
        data = jsondata.loads((Path(root) / LOCK_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    sources = data.get("sources") if isinstance(data, dict) else None
    return sources if isinstance(sources, dict) else {}


def pin_of(record: Provenance) -> dict:
    pin = {"url": record.cited_url, "kind": record.kind, "fetched_at": record.fetched_at}
    if record.repo:
        pin["commit"] = record.repo.commit
    else:
        pin["sha256"] = record.sha256
    if record.etag:
        pin["etag"] = record.etag
    return pin


def write_lock(root: Path, pins: dict[str, dict]) -> None:
    text = json.dumps({"version": LOCK_VERSION, "sources": pins}, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    path = Path(root) / LOCK_FILE
    try:
        if path.read_text(encoding="utf-8") == text:
            return
    except OSError:
        pass
    write_atomic(path, text)


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
