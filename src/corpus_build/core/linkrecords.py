"""What the link checker writes: one `LinkResult` per cited URL, kept in corpus/.links/results.json.

The file is the link stage's output and the site's input (stages talk through files).
Here on the ground floor because three stages read it: the link stage (links/), the
site (render/linknotice.py) and `corpus-build status` (fetch/cli.py).
It also carries history the next run needs: when the current state began (`since`,
shown as "dead since …") and when DNS first failed (a name that stays unresolvable
for `dns_dead_after` days counts as dead, a shorter outage only as unknown).
"""

from __future__ import annotations

import enum
import json
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from . import jsondata
from .errors import CorpusBuildError, UsageError
from .provenance import clean_temps, write_atomic

SCHEMA_VERSION = 1
RESULTS_FILE = Path(".links") / "results.json"  # relative to corpus/


class LinkState(enum.StrEnum):
    OK = "ok"
    MOVED = "moved"  # permanent redirect: `target` is where it went
    DEAD = "dead"  # 404/410, or DNS failing for a week
    SOFT_404 = "soft-404"  # a 200 (or a redirect home) whose page says "not found"
    UNKNOWN = "unknown"  # rate limited, refused, server error, timeout: ask again later
    ROBOTS = "robots"  # robots.txt disallows checking it; not asked

    @property
    def broken(self) -> bool:
        """States a reader should be warned about and that fail `corpus-build links`."""
        return self in (LinkState.DEAD, LinkState.SOFT_404)


@dataclass(frozen=True)
class LinkResult:
    id: str
    url: str
    state: LinkState
    checked_at: str  # UTC, ISO 8601
    since: str  # when this state was first seen (kept while it lasts)
    status: int = 0  # the final HTTP status, 0 when none came
    target: str = ""  # moved: the permanent redirect's destination
    reason: str = ""  # one line: why this state
    method: str = ""  # HEAD or GET: what answered
    dns_failing_since: str = ""

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["state"] = self.state.value
        return {k: v for k, v in data.items() if v not in ("", 0) or k in ("id", "url", "state", "checked_at", "since")}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LinkResult:
        names = {f.name for f in fields(cls)}
        known = {k: v for k, v in data.items() if k in names}
        known["state"] = LinkState(known["state"])
        return cls(**known)


def results_path(corpus_root: Path) -> Path:
    return Path(corpus_root) / RESULTS_FILE


def load_results(corpus_root: Path) -> dict[str, LinkResult]:
    """The last run's results by source id; {} when there is none yet."""
    path = results_path(corpus_root)
    if not path.exists():
        return {}
    try:
        data = jsondata.loads(path.read_text(encoding="utf-8"))
        if data.get("schema_version") != SCHEMA_VERSION:
            return {}  # an older layout: checking again is cheap, and safer than misreading it
        return {key: LinkResult.from_dict(value) for key, value in data.get("results", {}).items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise UsageError(f"{path}: unreadable link results ({exc}); delete the file and run `corpus-build links` again") from exc


def save_results(corpus_root: Path, results: dict[str, LinkResult], checked_at: str) -> Path:
    path = results_path(corpus_root)
    clean_temps(path.parent, (path.name,))  # a killed run's .results.json.<pid>.<thread>.tmp
    payload = {
        "schema_version": SCHEMA_VERSION,
        "checked_at": checked_at,
        "results": {key: results[key].to_dict() for key in sorted(results)},
    }
    write_atomic(path, json.dumps(payload, ensure_ascii=False, indent=1, sort_keys=True) + "\n")
    return path


def problem_line(result: LinkResult) -> str:
    """One line for a link worth a look (also used by `corpus-build status`); "" for a fine one."""
    if result.state is LinkState.MOVED:
        return f"moved: {result.id}: {result.url} -> {result.target}; fix: corpus-build links --fix-moved {result.id}"
    if result.state in (LinkState.DEAD, LinkState.SOFT_404):
        return f"{result.state.value}: {result.id}: {result.url} ({result.reason}; since {result.since[:10]})"
    if result.state in (LinkState.UNKNOWN, LinkState.ROBOTS):
        return f"{result.state.value}: {result.id}: {result.url} ({result.reason})"
    return ""


def status_report(corpus) -> tuple[dict[str, str], list[str]]:
    """For `corpus-build status`: each source's last link state, and a line per dead or moved link."""
    try:
        results = load_results(corpus.root)
    except CorpusBuildError as exc:
        return {}, [f"error: {exc}"]
    states, lines = {}, []
    for source in corpus.sources:
        result = results.get(source.id)
        if result is None or result.url != source.url:
            continue
        states[source.id] = result.state.value
        if result.state.broken or result.state is LinkState.MOVED:
            lines.append(problem_line(result))
    return states, lines
