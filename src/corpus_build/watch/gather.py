"""Gather one window's facts from the GitHub REST API into frozen records.

Requests per repository (N = PRs merged in the window, B = watched branches):

    GET /repos/{r}                                      default branch, latest push
    GET /repos/{r}/commits?sha=&since=&until=     x B   commits on the watched branches
    GET /search/issues  is:merged merged:S..E           merged PRs (time-sliced past 1,000)
    GET /repos/{r}/pulls/{n}                      x N   files, +/- lines, body (linked issues)
    GET /search/issues  is:open sort=updated            open PRs: the count, and those updated
    GET /repos/{r}/releases, GET /repos/{r}/tags        releases and new tags

Every GET goes through the shared client, which sends If-None-Match with the cached
ETag, so re-running a window costs 304s, which GitHub does not bill.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol

from ..core.errors import ContentError, HTTPStatusError
from ..core.github_api import GitHubResponse
from ..registry.settings import RepoTarget
from .records import BranchCommits, CitedRef, PullRequest, Release, RepoFacts, StateChange, parse_time
from .window import Window, utc_iso

SEARCH_CAP = 1000  # GitHub returns at most 1,000 results per search query
MIN_SLICE = dt.timedelta(minutes=1)
FIRST_RUN_TAG_CHECKS = 3  # without a baseline, date this many tags by their commit
_SLUG = re.compile(r"[A-Za-z0-9-]{1,39}/[A-Za-z0-9._-]{1,100}")
_LINKED = re.compile(
    r"\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\s*:?\s+((?:[A-Za-z0-9-]+/[A-Za-z0-9._-]+)?#\d+)",
    re.IGNORECASE,
)


class Client(Protocol):
    """What gathering needs from `corpus_build.core.github_api.GitHubClient`."""

    def get(self, path_or_url: str, params: Any = None) -> Any: ...
    def iter_pages(self, path_or_url: str, params: Any = None) -> Iterator[Any]: ...
    def paginate(self, path_or_url: str, params: Any = None) -> list: ...


def linked_issues(text: str) -> tuple[str, ...]:
    """Issues a PR closes by GitHub's keywords: "fixes #12", "Closes owner/name#3"."""
    return tuple(dict.fromkeys(m.group(1) for m in _LINKED.finditer(text or "")))


@contextmanager
def answers_of(what: str) -> Iterator[None]:
    """GitHub's answers come from outside: one of the wrong shape (a string where an object belongs,
    a missing key, a word where a number belongs) fails what was being gathered with one
    ContentError naming it, which the run reports in one line, instead of a traceback."""
    try:
        yield
    except (AttributeError, TypeError, KeyError, IndexError, ValueError) as exc:
        raise ContentError(f"the GitHub API answered in an unexpected shape ({type(exc).__name__}: {exc})", url=what) from exc


def expand_orgs(client: Client, orgs: Iterable[str]) -> list[RepoTarget]:
    """Every non-archived repository of each organisation."""
    targets = []
    for org in orgs:
        with answers_of(f"organisation {org}"):
            for repo in client.paginate(f"/orgs/{org}/repos", {"type": "all", "sort": "full_name"}):
                if not repo.get("archived"):
                    targets.append(RepoTarget(repo=repo["full_name"]))
    return targets


class Gatherer:
    def __init__(self, client: Client, window: Window, *, search_cap: int = SEARCH_CAP):
        self.client = client
        self.window = window
        self.search_cap = search_cap

    # --- search, split into time slices past GitHub's 1,000-result cap -----------------

    def search(self, query: str, qualifier: str, start: dt.datetime, end: dt.datetime) -> list[dict]:
        """Every issue/PR matching `query` with `qualifier` (merged, updated…) in [start, end]."""
        params = {"q": f"{query} {qualifier}:{utc_iso(start)}..{utc_iso(end)}", "per_page": 100}
        items: list[dict] = []
        for index, page in enumerate(self.client.iter_pages("/search/issues", params)):
            data = _mapping(page.data, page.url)
            if index == 0 and int(data.get("total_count", 0)) > self.search_cap and end - start > MIN_SLICE:
                middle = start + (end - start) / 2
                middle = middle.replace(microsecond=0)
                # Qualifier ranges are inclusive at both ends; deduplicate the shared second.
                found = {i["number"]: i for i in self.search(query, qualifier, start, middle)}
                found.update({i["number"]: i for i in self.search(query, qualifier, middle, end)})
                return list(found.values())
            items.extend(data.get("items", []))
        return items

    def _open_prs(self, slug: str) -> tuple[int, list[PullRequest]]:
        """(open PRs, those updated in the window), from one search sorted by last update.

        One query gives both: `total_count` is the open count, and paging stops at the
        first PR last touched before the window, usually on the first page.
        """
        params = {"q": f"repo:{slug} is:pr is:open", "sort": "updated", "order": "desc", "per_page": 100}
        total, updated = 0, []
        for index, page in enumerate(self.client.iter_pages("/search/issues", params)):
            data = _mapping(page.data, page.url)
            if index == 0:
                total = int(data.get("total_count", 0))
            items = data.get("items", [])
            updated += [_pull_from_issue(slug, i) for i in items if self.window.contains(parse_time(i["updated_at"]))]
            if not items or parse_time(items[-1]["updated_at"]) < self.window.start:
                break
        return total, updated

    # --- one repository -----------------------------------------------------------------

    def repo(self, target: RepoTarget, known_tags: list[str] | None) -> RepoFacts:
        with answers_of(target.repo):
            return self._repo(target, known_tags)

    def _repo(self, target: RepoTarget, known_tags: list[str] | None) -> RepoFacts:
        w = self.window
        info = _mapping(self.client.get(f"/repos/{target.repo}").data, target.repo)
        # full_name becomes headings, anchors and marker ids: only a well-formed owner/name is taken.
        full_name = info.get("full_name")
        slug = full_name if isinstance(full_name, str) and _SLUG.fullmatch(full_name) else target.repo
        default = _text(info.get("default_branch")) or "main"
        branches = tuple(BranchCommits(b, *self._commits(slug, b)) for b in (target.branches or (default,)))

        merged = []
        for item in self.search(f"repo:{slug} is:pr is:merged", "merged", w.start, w.end):
            merged_at = (item.get("pull_request") or {}).get("merged_at") or item.get("closed_at")
            if merged_at and w.contains(parse_time(merged_at)):
                merged.append(self._pull_details(slug, item["number"], merged_at))
        merged.sort(key=lambda p: (p.merged_at, p.number))

        open_count, updated = self._open_prs(slug)
        releases = self._releases(slug)
        all_tags, new_tags = self._tags(slug, known_tags, releases)
        return RepoFacts(
            repo=slug,
            url=_text(info.get("html_url")) or f"https://github.com/{slug}",
            default_branch=default,
            pushed_at=_time(info.get("pushed_at")),
            branches=branches,
            merged=tuple(merged),
            updated=tuple(updated),
            open_count=open_count,
            releases=releases,
            new_tags=new_tags,
            all_tags=all_tags,
            source_id=target.source_id,
        )

    def _commits(self, slug: str, branch: str) -> tuple[int, str, str]:
        params = {"sha": branch, "since": utc_iso(self.window.start), "until": utc_iso(self.window.end)}
        try:
            commits = self.client.paginate(f"/repos/{slug}/commits", params)
        except HTTPStatusError as exc:
            if exc.status in (404, 409):  # 404: no such branch; 409: empty repository
                return 0, "", ""
            raise
        # `until` is inclusive on GitHub; the window is not, so the next digest owns that second.
        dated = [(c["commit"]["committer"]["date"], c["sha"]) for c in commits]
        dated = [(d, s) for d, s in dated if self.window.contains(parse_time(d))]
        if not dated:
            return 0, "", ""
        latest = max(dated)
        return len(dated), latest[0], latest[1]

    def _pull_details(self, slug: str, number: int, merged_at: str) -> PullRequest:
        """The PR's own answer; `merged_at` is the search's (already read as a time), kept when the PR's is not one."""
        pr = _mapping(self.client.get(f"/repos/{slug}/pulls/{number}").data, f"{slug}#{number}")
        return PullRequest(
            repo=slug,
            number=number,
            title=_text(pr.get("title")),
            author=_login(pr.get("user")),
            url=_text(pr.get("html_url")) or f"https://github.com/{slug}/pull/{number}",
            state="merged" if pr.get("merged_at") else _text(pr.get("state")),
            created_at=_time(pr.get("created_at")),
            updated_at=_time(pr.get("updated_at")),
            merged_at=_time(pr.get("merged_at")) or merged_at,
            changed_files=_count(pr.get("changed_files")),
            additions=_count(pr.get("additions")),
            deletions=_count(pr.get("deletions")),
            linked_issues=linked_issues(f"{_text(pr.get('title'))}\n{_text(pr.get('body'))}"),
            draft=bool(pr.get("draft")),
        )

    def _releases(self, slug: str) -> tuple[Release, ...]:
        found = []
        for page in self.client.iter_pages(f"/repos/{slug}/releases"):
            data = page.data if isinstance(page.data, list) else []
            for rel in data:
                when = rel.get("published_at") or rel.get("created_at")
                if not when or rel.get("draft"):
                    continue
                if self.window.contains(parse_time(when)):
                    tag = _text(rel["tag_name"])
                    found.append(Release(tag, _text(rel.get("name")) or tag, _text(rel.get("html_url")), when, bool(rel.get("prerelease"))))
            # Newest first: once a page reaches before the window, older pages cannot matter.
            if not data or any(parse_time(r.get("created_at") or r.get("published_at")) < self.window.start for r in data):
                break
        return tuple(sorted(found, key=lambda r: r.published_at))

    def _tags(self, slug: str, known: list[str] | None, releases: tuple[Release, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(every tag on the first page, the ones that are new in this window)."""
        tags = self.client.get(f"/repos/{slug}/tags", {"per_page": 100}).data or []
        names = tuple(t["name"] for t in tags)
        released = {r.tag for r in releases}
        if known is not None:
            new = [n for n in names if n not in set(known)]
        else:
            # No baseline yet: a tag is new when a release in the window names it or its
            # commit falls inside the window (checked for the first few tags only).
            new = [n for n in names if n in released]
            for tag in tags[:FIRST_RUN_TAG_CHECKS]:
                if tag["name"] in new:
                    continue
                try:
                    commit = self.client.get(tag["commit"]["url"]).data
                except HTTPStatusError:  # a tag on a commit GitHub no longer serves: not datable
                    continue
                date = ((commit or {}).get("commit") or {}).get("committer", {}).get("date")
                if date and self.window.contains(parse_time(date)):
                    new.append(tag["name"])
        return names, tuple(n for n in names if n in new)

    # --- PRs and issues the registry cites -----------------------------------------------

    def recheck(self, ref: CitedRef, previous: dict | None) -> tuple[dict, StateChange | None]:
        """The ref's current state record and, if it moved, the change to report."""
        with answers_of(ref.url):
            return self._recheck(ref, previous)

    def _recheck(self, ref: CitedRef, previous: dict | None) -> tuple[dict, StateChange | None]:
        path = f"/repos/{ref.repo}/{'pulls' if ref.kind == 'pull' else 'issues'}/{ref.number}"
        try:
            data = _mapping(self.client.get(path).data, ref.url)
        except HTTPStatusError as exc:
            if exc.status in (404, 410):
                data = {"state": "deleted", "title": ""}
            else:
                raise
        state = "merged" if data.get("merged_at") else _text(data.get("state"))
        changed_at = _time(data.get("merged_at")) or _time(data.get("closed_at"))
        record = {
            "state": state,
            "title": _text(data.get("title")),
            "changed_at": changed_at,
            "merged_at": _time(data.get("merged_at")),
            "closed_at": _time(data.get("closed_at")),
            "updated_at": _time(data.get("updated_at")),
        }
        before = (previous or {}).get("state")
        if before is None:
            # Never seen: a close or merge inside the window means it was open when the window began.
            in_window = bool(changed_at) and self.window.contains(parse_time(changed_at))
            before = "open" if in_window and state in ("merged", "closed") else state
        if before == state:
            return record, None
        return record, StateChange(ref=ref, title=record["title"], before=before, after=state, changed_at=changed_at)


def _pull_from_issue(slug: str, item: dict) -> PullRequest:
    """A search result (issue-shaped) as a PullRequest, without a second request."""
    return PullRequest(
        repo=slug,
        number=item["number"],
        title=_text(item.get("title")),
        author=_login(item.get("user")),
        url=_text(item.get("html_url")) or f"https://github.com/{slug}/pull/{item['number']}",
        state=_text(item.get("state")) or "open",
        created_at=_time(item.get("created_at")),
        updated_at=_time(item.get("updated_at")),
        draft=bool(item.get("draft")),
    )


def _text(value: Any) -> str:
    """A text field of an answer; anything else (a number, an object, null) is no text."""
    return value if isinstance(value, str) else ""


def _time(value: Any) -> str:
    """A timestamp field; one that is no timestamp is no time (the digest formats every time it keeps)."""
    if not isinstance(value, str):
        return ""
    try:
        parse_time(value)
    except ValueError:
        return ""
    return value


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def _login(user: Any) -> str:
    return _text(user.get("login")) if isinstance(user, dict) else ""


def _mapping(data: Any, where: str) -> dict:
    if not isinstance(data, dict):
        raise ContentError("expected a JSON object from the GitHub API", url=where)
    return data


class Remembering:
    """A Client that answers every request it has answered before from `memo`, and records new ones.

    Progress is saved per request, not per repository: without a token GitHub allows 60
    requests an hour and bills 304s too, so a repository that needs more requests than one
    quota (many merged PRs) would otherwise start over on every run and never finish. The
    run saves `memo` when the rate limit stops it; the next run replays it for free.
    """

    def __init__(self, client: Client, memo: dict[str, dict]):
        self.client = client
        self.memo = memo

    @staticmethod
    def _key(path_or_url: str, params: Any) -> str:
        return path_or_url + "?" + json.dumps(sorted((str(k), str(v)) for k, v in dict(params or {}).items()))

    def get(self, path_or_url: str, params: Any = None) -> Any:
        key = self._key(path_or_url, params)
        hit = self.memo.get(key)
        if hit is not None:
            return GitHubResponse(url=hit["url"], status=200, data=hit["data"], headers={"link": hit.get("link", "")}, from_cache=True)
        response = self.client.get(path_or_url, params)
        self.memo[key] = {"url": response.url, "data": response.data, "link": response.headers.get("link", "")}
        return response

    def iter_pages(self, path_or_url: str, params: Any = None) -> Iterator[Any]:
        config = getattr(self.client, "config", None)
        per_page, max_pages = getattr(config, "per_page", 100), getattr(config, "max_pages", 100)
        page = self.get(path_or_url, {"per_page": per_page, **dict(params or {})})
        yield page
        for _ in range(max_pages - 1):
            if not page.next_url:
                return
            page = self.get(page.next_url)
            yield page

    def paginate(self, path_or_url: str, params: Any = None) -> list:
        items: list = []
        for page in self.iter_pages(path_or_url, params):
            if not isinstance(page.data, list):
                raise ContentError("expected a JSON list from a paginated GitHub endpoint", url=page.url)
            items.extend(page.data)
        return items
