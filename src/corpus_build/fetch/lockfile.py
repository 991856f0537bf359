"""corpus/corpus.lock (what each source is pinned to) and the run lock that keeps fetches one at a time."""

from __future__ import annotations

import json
from pathlib import Path

from ..core import jsondata
from ..core.provenance import Provenance, write_atomic
from ..core.runlock import RUN_LOCK as RUN_LOCK  # (re-exported: fetch, attach and their tests take it from here)
from ..core.runlock import run_lock as run_lock

LOCK_FILE = "corpus.lock"
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
