"""corpus/corpus.lock (what each source is pinned to) and the run lock that keeps fetches one at a time.

The lock is written once, at the end of a run. A run killed before that (SIGKILL, the
out-of-memory killer, Ctrl-C) has already swapped some mirrors in; so before each swap the
source's id is appended to corpus/.corpus.lock.pending, and whatever run comes next (or this
one, when interrupted) pins those ids from the mirrors on disk (`settle`), the truth,
then removes the file. A kill before the swap leaves an id whose mirror is the old one:
pinning it again from disk changes nothing.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

from ..core import jsondata
from ..core.errors import RefusedError
from ..core.provenance import Provenance, write_atomic
from ..core.runlock import BRIEF_WAIT as BRIEF_WAIT
from ..core.runlock import RUN_LOCK as RUN_LOCK  # (re-exported: fetch, attach and their tests take it from here)
from ..core.runlock import run_lock as run_lock

LOCK_FILE = "corpus.lock"
LOCK_VERSION = 1
PENDING_FILE = ".corpus.lock.pending"


def read_lock(root: Path) -> dict[str, dict]:
    """source id -> pin ({url, kind, sha256 | commit, etag, fetched_at}); {} when there is none.

    A lock that is there but unreadable (a git merge left its conflict markers in it) is a
    RefusedError: read as empty, the run's lock would keep only the pins it wrote itself."""
    path = Path(root) / LOCK_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeError) as exc:
        raise RefusedError(f"{path}: cannot read it ({getattr(exc, 'strerror', None) or exc}); {_FIX}") from None
    try:
        data = jsondata.loads(text)
    except ValueError as exc:
        where = f"{path}:{exc.lineno}" if isinstance(exc, json.JSONDecodeError) else str(path)
        what = "it holds git merge conflict markers (<<<<<<<)" if "\n<<<<<<< " in f"\n{text}" else f"not valid JSON ({getattr(exc, 'msg', exc)})"
        raise RefusedError(f"{where}: {what}; {_FIX}") from None
    sources = data.get("sources") if isinstance(data, dict) else None
    if not isinstance(sources, dict) or not all(isinstance(pin, dict) for pin in sources.values()):
        raise RefusedError(f'{path}: not a corpus.lock (no "sources" object of pins); {_FIX}')
    return sources


_FIX = "resolve it by hand, or delete it and run `corpus-build fetch` (without --frozen) to pin every mirror again"


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


def note_pending(root: Path, source_id: str) -> None:
    """Before a mirror is swapped in: its id, so that a killed run's lock can be settled."""
    # O_APPEND: one short write per line, from several threads at once, lands whole
    fd = os.open(Path(root) / PENDING_FILE, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    try:
        os.write(fd, f"{source_id}\n".encode())
    finally:
        os.close(fd)


def pending(root: Path) -> list[str]:
    """Ids a run swapped in and has not pinned yet (none when the last run finished)."""
    try:
        text = (Path(root) / PENDING_FILE).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    return list(dict.fromkeys(line for line in text.splitlines() if line))


def settle(root: Path, mirrors: Callable[[str], Provenance | None]) -> None:
    """Pin each pending id to its mirror on disk (`mirrors(id)`: None for an id not in the
    registry or without a mirror), then forget the pending ids. Idempotent: killed here, the
    next run does it again."""
    ids = pending(root)
    if not ids:
        (Path(root) / PENDING_FILE).unlink(missing_ok=True)
        return
    pins = read_lock(root)
    for source_id in ids:
        record = mirrors(source_id)
        if record is not None:
            pins[source_id] = pin_of(record)
    write_lock(root, dict(sorted(pins.items())))
    done(root)


def done(root: Path) -> None:
    """The lock now holds every pending id's pin."""
    (Path(root) / PENDING_FILE).unlink(missing_ok=True)
