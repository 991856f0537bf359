"""What `watch` looks at: repositories (registry + `watch:` in corpus.yaml + orgs) and cited PRs/issues.

`watch:` in corpus.yaml is validated with the rest of the registry (registry/settings.py,
`parse_watch_config`); this module adds the repositories the registry cites and the PRs and
issues its notes link.
"""

from __future__ import annotations

import re

from ..core.model import Corpus
from ..core.urls import github_parts
from ..registry.settings import RepoTarget
from .records import CitedRef

_CITED_URL = re.compile(r"https?://(?:www\.)?github\.com/([A-Za-z0-9-]+)/([A-Za-z0-9._-]+)/(pull|issues)/(\d+)")


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
