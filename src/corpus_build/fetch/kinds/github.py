"""GitHub issues and pull requests through the REST API, in full.

For every thread: the issue, its comments and its timeline (cross-references, closes,
merges, renames, labels). For a pull request also: the PR object (merge facts, base and
head), reviews (state, author, body), review comments (file, line, diff hunk, replies),
commits (sha, subject, author, date) and changed files (status, +/-, patch). Every list
is followed through its `Link: rel="next"` pages. Stored as `thread.json` (structured,
API objects without their API links) and `text.md` (the conversation in time order,
written from corpus_build.core.threads, as the site's thread page is).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from pathlib import Path
from typing import Any

from ...core.errors import ContentError, HTTPStatusError, RateLimitError, UsageError, plural
from ...core.model import Source
from ...core.provenance import Document, Extractor, ThreadFacts
from ...core.threads import TIMELINE_SKIP, Event, conversation
from ...core.urls import github_parts
from ..base import Context, Outcome, package_version

DATA = "thread.json"
TEXT = "text.md"
_NUMBER = re.compile(r"^(issues|pull)/(\d+)")
_DROP = {"_links", "node_id", "gravatar_id", "reactions", "performed_via_github_app", "author_association"}
_KEEP_URLS = {"html_url", "blob_url"}
SCHEMA = 2  # 1: issue, comments, pull; 2: + reviews, review_comments, commits, files, timeline


def thread_ref(source: Source) -> tuple[str, str, str, int] | None:
    """(owner, repo, issues|pull, number) for a GitHub issue or PR URL."""
    parts = github_parts(source.url)
    if not parts:
        return None
    match = _NUMBER.match(parts[2])
    return (parts[0], parts[1], match.group(1), int(match.group(2))) if match else None


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _slim(value: Any) -> Any:
    """An API object without what a reader never needs: API links, node ids, nested repository objects.

    Keeps thread.json a fraction of the answers' size (a user object alone carries 17 URLs)
    while every fact the thread page shows stays.
    """
    if isinstance(value, list):
        return [_slim(v) for v in value]
    if not isinstance(value, dict):
        return value
    out = {}
    for key, item in value.items():
        if key in _DROP or (key.endswith("_url") and key not in _KEEP_URLS) or (key == "url" and isinstance(item, str)):
            continue
        if key in ("repo", "repository") and isinstance(item, dict):
            out[key] = {k: item.get(k) for k in ("full_name", "html_url") if k in item}
        elif key in ("user", "actor", "author", "committer", "merged_by", "assignee", "requested_reviewer") and isinstance(item, dict) and "login" in item:
            out[key] = {k: item.get(k) for k in ("login", "type") if k in item}
        else:
            out[key] = _slim(item)
    return out


def _words(text: str) -> str:
    return " ".join(text.split())


def _write_thread(stage: Path, body: str, data: dict) -> None:
    stage.mkdir(exist_ok=True)
    (stage / DATA).write_text(body, encoding="utf-8")
    (stage / TEXT).write_text(render_thread(data), encoding="utf-8")


def render_thread(data: dict) -> str:
    """A readable Markdown rendering of thread.json, the conversation in time order
    (the bodies are the authors' own Markdown, kept as written)."""
    conv = conversation(data)
    f = conv.facts
    lines = [f"# {f.title} (#{f.number})", ""]
    state = f.display_state + (f" {f.merged_at}" + (f" by @{f.merged_by}" if f.merged_by else "") if f.merged else "")
    lines.append(f"*{'Pull request' if f.is_pull else 'Issue'} by @{f.author} · {state} · opened {f.created_at}*")
    if f.labels:
        lines += ["", "Labels: " + ", ".join(f"`{label}`" for label in f.labels)]
    if f.is_pull:
        lines += ["", f"`{f.head}` → `{f.base}`" + (f" · merge commit `{f.merge_commit}`" if f.merge_commit else "")]
        lines.append(f"{plural(f.commits, 'commit')} · {plural(f.changed_files, 'file')} changed · +{f.additions} −{f.deletions} · "
                     f"{plural(f.reviews, 'review')} · {plural(f.review_comments, 'review comment')}")
    for event in conv.events:
        lines += _event_lines(event)
    if conv.files:
        lines += ["---", "", "## Changed files", "", "| status | file | + | − |", "|---|---|---|---|"]
        for item in conv.files:
            name = f"{item.previous_path} → {item.path}" if item.previous_path else item.path
            lines.append(f"| {item.status} | `{name}` | {item.additions} | {item.deletions} |")
        lines.append("")
    return "\n".join(lines) + "\n"


def _event_lines(event: Event) -> list[str]:
    if event.kind == "opened":
        return ["", event.body.strip(), ""]
    if event.kind == "comment":
        return ["---", "", f"**@{event.author}** · {event.at}", "", event.body.strip(), ""]
    if event.kind == "review":
        out = ["---", "", f"**@{event.author}** reviewed ({event.state.lower().replace('_', ' ')}) · {event.at}", ""]
        if event.body.strip():
            out += [event.body.strip(), ""]
        for group in event.files:
            out += [f"#### `{group.path}`", ""]
            for thread in group.threads:
                if thread.root.diff_hunk:
                    fence = "`" * max(3, max((len(m) for m in re.findall(r"`{3,}", thread.root.diff_hunk)), default=0) + 1)
                    out += [fence + "diff", thread.root.diff_hunk, fence, ""]
                for comment in thread.comments:
                    line = comment.line or comment.original_line
                    out += [f"> **@{comment.author}**" + (f" · line {line}" if line else "") + f" · {comment.at}", ">"]
                    out += [f"> {text}" if text else ">" for text in comment.body.strip().split("\n")] + [""]
        return out
    if event.kind == "commits":
        return ["---", "", f"**@{event.author}** pushed {plural(len(event.commits), 'commit')} · {event.at}", ""] + [
            f"- `{c.sha[:10]}` {_words(c.subject)}" for c in event.commits
        ] + [""]
    if event.kind == "xref":
        what = "pull request" if event.ref_is_pull else "issue"
        return ["---", "", f"*@{event.author} mentioned this in {what} {event.ref_repo}#{event.ref_number}: {_words(event.ref_title)} · {event.at}*", ""]
    detail = f" {event.detail}" if event.detail else ""
    return ["---", "", f"*@{event.author} {event.kind.replace('_', ' ')}{detail} · {event.at}*", ""]


def thread_facts(data: dict) -> ThreadFacts:
    """The thread's facts, read as the thread page reads them (core/threads.py): the answers come from
    outside, and a field of the wrong type is no value, never a crash. `data["issue"]` is an object (checked in fetch)."""
    conv = conversation(data).facts
    pull = data.get("pull")
    return ThreadFacts(
        reviews=conv.reviews, review_comments=conv.review_comments, commits=conv.commits if pull else 0,
        changed_files=conv.changed_files if pull else 0, additions=conv.additions, deletions=conv.deletions,
        number=conv.number, state=conv.state, state_reason=conv.state_reason, draft=conv.draft, merged=conv.merged,
        merged_at=conv.merged_at, merge_commit=conv.merge_commit, base=conv.base, head=conv.head, labels=conv.labels,
        comments=conv.comments, author=conv.author, created_at=conv.created_at,
        updated_at=_text(data["issue"].get("updated_at")),
        closed_at=conv.closed_at,
    )


class GitHubThreadKind:
    name = "github"

    def matches(self, source: Source) -> bool:
        return source.kind in ("issue", "pull") and thread_ref(source) is not None

    async def fetch(self, ctx: Context) -> Outcome:
        ref = thread_ref(ctx.source)
        if ref is None:  # matches() guarantees it
            raise UsageError(f"{ctx.source.url} is not a GitHub issue or pull request URL")
        if ctx.state.get("github_rate_limit"):
            raise ctx.state["github_rate_limit"]  # do not spend more requests; next run
        owner, repo, what, number = ref
        base = f"/repos/{owner}/{repo}"
        responses: list = []

        async def one(path: str):
            response = await ctx.github.get(path)
            responses.append(response)
            if not isinstance(response.data, dict):  # a proxy's or a broken server's answer, not an issue or a PR
                raise ContentError(f"the GitHub API answered with a JSON {type(response.data).__name__} where a JSON object was expected", url=response.url)
            return response

        unavailable: list[str] = []

        async def every(path: str, name: str) -> list:
            try:
                pages = await ctx.github.iter_pages(path)
            except HTTPStatusError as exc:
                if exc.status in (404, 410, 422):
                    # The thread exists (its first request answered), so this part is missing on the
                    # server's side (an older GitHub Enterprise has no timeline): recorded, not fatal.
                    unavailable.append(name)
                    return []
                raise
            responses.extend(pages)
            items = []
            for page in pages:
                if not isinstance(page.data, list):
                    raise ContentError("expected a JSON list from a paginated GitHub endpoint", url=page.url)
                items += page.data
            return items

        # Every request is conditional (ETag): a refresh of an unchanged thread costs no quota.
        # When the quota runs out halfway, the pages already answered are in the ETag cache,
        # so the next run resumes where this one stopped without paying for them again.
        try:
            issue = await one(f"{base}/issues/{number}")
            is_pull = what == "pull" or "pull_request" in (issue.data or {})
            data: dict[str, Any] = {"schema": SCHEMA, "issue": issue.data, "comments": await every(f"{base}/issues/{number}/comments", "comments"), "pull": None}
            if is_pull:
                data["pull"] = (await one(f"{base}/pulls/{number}")).data
                data["reviews"] = await every(f"{base}/pulls/{number}/reviews", "reviews")
                data["review_comments"] = await every(f"{base}/pulls/{number}/comments", "review_comments")
                data["commits"] = await every(f"{base}/pulls/{number}/commits", "commits")
                data["files"] = await every(f"{base}/pulls/{number}/files", "files")
            timeline = await every(f"{base}/issues/{number}/timeline", "timeline")
            data["timeline"] = [e for e in timeline if isinstance(e, dict) and e.get("event") not in TIMELINE_SKIP]
            data["unavailable"] = unavailable
        except RateLimitError as exc:
            ctx.state["github_rate_limit"] = exc
            raise
        finally:
            for response in responses:
                ctx.log.add(response.url, "not-modified" if response.from_cache else "ok", 304 if response.from_cache else response.status)
        # Whether the thread changed is decided by the content, not by the 304s: the ETag
        # cache may be newer than a mirror whose last fetch was interrupted.
        data = _slim(data)
        body = json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        await asyncio.to_thread(_write_thread, ctx.stage, body, data)  # file I/O off the event loop
        encoded = body.encode("utf-8")
        if ctx.same_as_before(hashlib.sha256(encoded).hexdigest()):
            return Outcome(unchanged=True)
        conv = conversation(data).facts
        return Outcome(
            requested_url=issue.url, fetched_url=issue.url, http_status=issue.status, etag=issue.etag,
            last_modified=issue.headers.get("last-modified", ""), content_type="application/json",
            bytes=len(encoded), sha256=hashlib.sha256(encoded).hexdigest(), body_file=DATA, text_file=TEXT,
            document=Document(title=conv.title, published=conv.created_at, authors=(conv.author,), facts_from="github"),
            thread=thread_facts(data), extractor=Extractor("github-rest", {"httpx": package_version("httpx")}),
        )
