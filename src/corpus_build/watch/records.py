"""Typed, frozen records passed from gathering (GitHub) to writing (Markdown).

Each record has `to_dict`/`from_dict` so partial facts survive a rate-limit stop in
`corpus/.watch/state.json` and the next run resumes from them. Times are kept as
ISO strings exactly as GitHub sends them (UTC, `Z`); only the writer converts them
to the digest's zone.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import asdict, dataclass, field, fields
from typing import Any

SCHEMA_VERSION = 1


def parse_time(value: str) -> dt.datetime:
    """A GitHub timestamp (`2026-10-21T02:20:00Z`) as an aware datetime."""
    return dt.datetime.fromisoformat(value.replace("Z", "+00:00"))


def _build(cls, data: dict[str, Any]):
    names = {f.name for f in fields(cls)}
    return cls(**{k: (tuple(v) if isinstance(v, list) else v) for k, v in data.items() if k in names})


@dataclass(frozen=True)
class CitedRef:
    """A PR or issue the registry cites (a source of kind pull/issue, or a URL in a note)."""

    repo: str
    number: int
    kind: str  # "pull" or "issue"
    url: str
    source_id: str = ""  # set when the registry has an entry for exactly this PR/issue

    @property
    def key(self) -> str:
        return f"{self.repo}#{self.number}"


@dataclass(frozen=True)
class PullRequest:
    repo: str
    number: int
    title: str
    author: str
    url: str
    state: str  # "open", "closed" or "merged"
    created_at: str = ""
    updated_at: str = ""
    merged_at: str = ""
    changed_files: int = 0
    additions: int = 0
    deletions: int = 0
    linked_issues: tuple[str, ...] = ()  # "#123" or "owner/name#123", from fixes/closes/resolves
    draft: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PullRequest:
        return _build(cls, data)


@dataclass(frozen=True)
class Release:
    tag: str
    name: str
    url: str
    published_at: str
    prerelease: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Release:
        return _build(cls, data)


@dataclass(frozen=True)
class BranchCommits:
    branch: str
    count: int
    latest_at: str = ""  # newest commit in the window
    latest_sha: str = ""


@dataclass(frozen=True)
class RepoFacts:
    """Everything the digest says about one repository for one window."""

    repo: str
    url: str
    default_branch: str
    pushed_at: str
    branches: tuple[BranchCommits, ...] = ()
    merged: tuple[PullRequest, ...] = ()  # merged in the window, oldest first
    updated: tuple[PullRequest, ...] = ()  # open and opened or updated in the window
    open_count: int = 0
    releases: tuple[Release, ...] = ()  # published in the window
    new_tags: tuple[str, ...] = ()
    all_tags: tuple[str, ...] = ()  # baseline for the next run's "new tags"
    source_id: str = ""
    error: str = ""  # why the repository could not be checked (then every count is unknown)

    @property
    def commit_count(self) -> int:
        return sum(b.count for b in self.branches)

    @property
    def quiet(self) -> bool:
        return not (self.error or self.commit_count or self.merged or self.updated or self.releases or self.new_tags)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["branches"] = [asdict(b) for b in self.branches]
        data["merged"] = [p.to_dict() for p in self.merged]
        data["updated"] = [p.to_dict() for p in self.updated]
        data["releases"] = [r.to_dict() for r in self.releases]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RepoFacts:
        data = dict(data)
        data["branches"] = tuple(_build(BranchCommits, b) for b in data.get("branches", ()))
        data["merged"] = tuple(PullRequest.from_dict(p) for p in data.get("merged", ()))
        data["updated"] = tuple(PullRequest.from_dict(p) for p in data.get("updated", ()))
        data["releases"] = tuple(Release.from_dict(r) for r in data.get("releases", ()))
        return _build(cls, data)


@dataclass(frozen=True)
class StateChange:
    """A cited PR or issue whose state moved since the last check (open -> merged/closed…)."""

    ref: CitedRef
    title: str
    before: str
    after: str
    changed_at: str = ""  # merged_at or closed_at

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["ref"] = asdict(self.ref)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> StateChange:
        data = dict(data)
        data["ref"] = _build(CitedRef, data["ref"])
        return _build(cls, data)


@dataclass(frozen=True)
class DigestFacts:
    """The whole input of the writer: window, repositories, cited-state changes."""

    start: dt.datetime
    end: dt.datetime
    tz: str
    repos: tuple[RepoFacts, ...]
    changes: tuple[StateChange, ...] = ()
    requests: int = field(default=0, compare=False)

    def counts(self) -> dict[str, int]:
        return {
            "repos": len(self.repos),
            "active": sum(1 for r in self.repos if not r.quiet and not r.error),
            "failed": sum(1 for r in self.repos if r.error),
            "commits": sum(r.commit_count for r in self.repos),
            "merged": sum(len(r.merged) for r in self.repos),
            "updated_prs": sum(len(r.updated) for r in self.repos),
            "open_prs": sum(r.open_count for r in self.repos),
            "releases": sum(len(r.releases) for r in self.repos),
            "new_tags": sum(len(r.new_tags) for r in self.repos),
            "state_changes": len(self.changes),
        }
