"""`corpus/.watch/state.json`: what `watch` remembers between runs.

    cited    "owner/name#N" -> {state, before, window, title, …}: the last seen state of
             every PR/issue the registry cites, so a run can say "open -> merged"
    tags     "owner/name" -> {window, before, after}: tag names before and after the last
             window, the baseline for "new tags" ("before" when that window is re-run)
    pending  the window being gathered when the rate limit ran out, with the facts of
             the repositories already done; the next run resumes from there

Sorted JSON, written atomically: a run stopped half-way never leaves a torn file.
ETag-cached answers live with the shared GitHub client's cache, not here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core import jsondata
from ..core.errors import UsageError
from ..core.provenance import write_atomic
from .records import SCHEMA_VERSION, RepoFacts, StateChange

STATE_DIR = ".watch"
STATE_FILE = "state.json"


@dataclass
class Pending:
    window: str  # Window.key
    start: str
    end: str
    tz: str
    repos: dict[str, RepoFacts] = field(default_factory=dict)  # lower-case slug -> facts
    changes: list[StateChange] | None = None  # None until the cited re-check finished


@dataclass
class WatchState:
    path: Path
    cited: dict[str, dict[str, Any]] = field(default_factory=dict)
    tags: dict[str, dict[str, Any]] = field(default_factory=dict)
    pending: Pending | None = None

    @classmethod
    def load(cls, corpus_root: Path) -> WatchState:
        path = Path(corpus_root) / STATE_DIR / STATE_FILE
        if not path.exists():
            return cls(path=path)
        try:
            data = jsondata.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise UsageError(f"{path}: cannot read the watch state ({exc}); fix or delete the file (it is rebuilt on the next run)") from exc
        pending = None
        raw = data.get("pending")
        if isinstance(raw, dict):
            changes = raw.get("changes")
            pending = Pending(
                window=raw["window"],
                start=raw["start"],
                end=raw["end"],
                tz=raw["tz"],
                repos={k: RepoFacts.from_dict(v) for k, v in raw.get("repos", {}).items()},
                changes=None if changes is None else [StateChange.from_dict(c) for c in changes],
            )
        return cls(path=path, cited=dict(data.get("cited", {})), tags=dict(data.get("tags", {})), pending=pending)

    def save(self) -> None:
        data: dict[str, Any] = {"schema": SCHEMA_VERSION, "cited": self.cited, "tags": self.tags}
        if self.pending is not None:
            p = self.pending
            data["pending"] = {
                "window": p.window,
                "start": p.start,
                "end": p.end,
                "tz": p.tz,
                "repos": {k: v.to_dict() for k, v in sorted(p.repos.items())},
                "changes": None if p.changes is None else [c.to_dict() for c in p.changes],
            }
        # (a full disk: the previous state stays, no temp file is left; never through a planted link)
        write_atomic(self.path, json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
