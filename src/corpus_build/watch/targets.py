"""What `watch` looks at: repositories (registry + `watch:` in corpus.yaml + orgs) and cited PRs/issues.

`watch:` in corpus.yaml is kept raw by the registry; it is validated here:

    watch:
      repos:
        - tile-ai/TileOPs
        - {repo: tile-ai/tilelang-hygon, branches: [main, feat-hcu-smls-b-vgpr]}
      orgs: [tile-ai]
      exclude: [tile-ai/old-fork]      # optional: never watch these
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import UsageError
from ..model import Corpus
from ..urls import github_parts
from .records import CitedRef, RepoTarget

_SLUG = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+$")
_ORG = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]*$")
_CITED_URL = re.compile(r"https?://(?:www\.)?github\.com/([A-Za-z0-9-]+)/([A-Za-z0-9._-]+)/(pull|issues)/(\d+)")
_WATCH_KEYS = ("repos", "orgs", "exclude")


@dataclass(frozen=True)
class WatchConfig:
    repos: tuple[RepoTarget, ...] = ()
    orgs: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()


def parse_watch_config(raw: object) -> WatchConfig:
    """Validate `watch:` from corpus.yaml; every problem is listed in one UsageError."""
    if raw is None:
        return WatchConfig()
    where = "corpus.yaml `watch`"
    line = getattr(raw, "line", 0)
    if not isinstance(raw, dict):
        raise UsageError(f"{where} (line {line}) must be a mapping such as {{repos: [owner/name], orgs: [org]}}")
    problems: list[str] = []

    def at(container: object, key: object) -> str:
        line_of = getattr(container, "line_of", None)
        return f"line {line_of(key)}" if line_of else "?"

    for key in raw:
        if key not in _WATCH_KEYS:
            problems.append(f"{at(raw, key)}: unknown key '{key}' in {where}; allowed: {', '.join(_WATCH_KEYS)}")
    repos: list[RepoTarget] = []
    for index, item in enumerate(_as_list(raw.get("repos"), "repos", problems)):
        where_item = f"{at(raw.get('repos'), index)}: item {index + 1} of watch.repos"
        if isinstance(item, str):
            slug, branches = item, list[str]()
        elif isinstance(item, dict) and isinstance(item.get("repo"), str):
            slug, branches = item["repo"], item.get("branches") or []
            extra = [k for k in item if k not in ("repo", "branches")]
            if extra:
                problems.append(f"{where_item}: unknown key(s) {', '.join(map(str, extra))}; allowed: repo, branches")
            if not isinstance(branches, list) or not all(isinstance(b, str) and b for b in branches):
                problems.append(f"{where_item}: branches must be a list of branch names, e.g. [main, dev]")
                branches = []
        else:
            problems.append(f"{where_item} must be owner/name or {{repo: owner/name, branches: [...]}}")
            continue
        if not _SLUG.match(slug):
            problems.append(f"{where_item}: '{slug}' is not owner/name")
            continue
        repos.append(RepoTarget(repo=slug, branches=tuple(branches)))
    orgs = _as_list(raw.get("orgs"), "orgs", problems)
    for org in orgs:
        if not isinstance(org, str) or not _ORG.match(org):
            problems.append(f"{where}: org '{org}' is not a GitHub organisation name")
    exclude = _as_list(raw.get("exclude"), "exclude", problems)
    if problems:
        raise UsageError("\n".join(problems) + f"\nfix {where} and run again")
    return WatchConfig(repos=tuple(repos), orgs=tuple(str(o) for o in orgs), exclude=tuple(str(e) for e in exclude))


def _as_list(value: object, key: str, problems: list[str]) -> list:
    if value is None:
        return []
    if not isinstance(value, list):
        problems.append(f"corpus.yaml `watch.{key}` must be a list")
        return []
    return value


def registry_repos(corpus: Corpus) -> list[RepoTarget]:
    """Every GitHub repository the registry cites as a repository (kind `repo`)."""
    targets = []
    for source in corpus.sources:
        parts = github_parts(source.url) if source.url else None
        if parts and source.kind == "repo" and not parts[2]:
            targets.append(RepoTarget(repo=f"{parts[0]}/{parts[1]}", source_id=source.id))
    return targets


def merge_targets(*groups: list[RepoTarget], exclude: tuple[str, ...] = ()) -> tuple[RepoTarget, ...]:
    """One target per repository (case-insensitive, as GitHub is); branches are unioned.

    The first spelling and the first registry id win, so a repository named in both
    the registry and `watch:` keeps its `[[id]]` link and the extra branches.
    """
    merged: dict[str, RepoTarget] = {}
    skip = {e.lower() for e in exclude}
    for group in groups:
        for target in group:
            key = target.repo.lower()
            if key in skip:
                continue
            old = merged.get(key)
            if old is None:
                merged[key] = target
                continue
            branches = tuple(dict.fromkeys(old.branches + target.branches))
            merged[key] = RepoTarget(repo=old.repo, branches=branches, source_id=old.source_id or target.source_id)
    return tuple(sorted(merged.values(), key=lambda t: t.repo.lower()))


def cited_refs(corpus: Corpus) -> tuple[CitedRef, ...]:
    """Every PR or issue the registry cites: sources of kind pull/issue and URLs inside notes."""
    refs: dict[str, CitedRef] = {}
    for source in corpus.sources:
        for text, is_own_url in ((source.url, True), (source.note, False), (source.verify_note, False)):
            for match in _CITED_URL.finditer(text or ""):
                owner, name, kind, number = match.groups()
                repo = f"{owner}/{name.removesuffix('.git')}"
                ref = CitedRef(
                    repo=repo,
                    number=int(number),
                    kind="pull" if kind == "pull" else "issue",
                    url=f"https://github.com/{repo}/{kind}/{number}",
                    source_id=source.id if is_own_url else "",
                )
                old = refs.get(ref.key.lower())
                if old is None or (ref.source_id and not old.source_id):
                    refs[ref.key.lower()] = ref
    return tuple(sorted(refs.values(), key=lambda r: (r.repo.lower(), r.number)))
