"""GitHub issues and pull requests through the REST API: the thread, every comment, labels, merge facts."""

from __future__ import annotations

import hashlib
import json
import re

from ...errors import RateLimitError, UsageError
from ...model import Source
from ...provenance import Document, Extractor, ThreadFacts
from ...urls import github_parts
from ..base import Context, Outcome, package_version

DATA = "thread.json"
TEXT = "text.md"
_NUMBER = re.compile(r"^(issues|pull)/(\d+)")


def thread_ref(source: Source) -> tuple[str, str, str, int] | None:
    """(owner, repo, issues|pull, number) for a GitHub issue or PR URL."""
    parts = github_parts(source.url)
    if not parts:
        return None
    match = _NUMBER.match(parts[2])
    return (parts[0], parts[1], match.group(1), int(match.group(2))) if match else None


def _when(value: str | None) -> str:
    return value or ""


def render_thread(data: dict) -> str:
    """A readable Markdown rendering of thread.json (the bodies are the authors' own Markdown)."""
    issue, pull = data["issue"], data.get("pull") or {}
    facts = thread_facts(data)
    kind = "Pull request" if pull else "Issue"
    lines = [f"# {issue.get('title', '')} (#{issue.get('number')})", ""]
    state = facts.display_state + (f" {facts.merged_at}" if facts.merged else "")
    lines.append(f"*{kind} by @{facts.author} · {state} · opened {facts.created_at}*")
    if facts.labels:
        lines.append("")
        lines.append("Labels: " + ", ".join(f"`{label}`" for label in facts.labels))
    if pull:
        lines += ["", f"`{facts.head}` → `{facts.base}`" + (f" · merge commit `{facts.merge_commit}`" if facts.merge_commit else "")]
    lines += ["", (issue.get("body") or "").strip(), ""]
    for comment in data.get("comments", []):
        author = (comment.get("user") or {}).get("login", "")
        lines += ["---", "", f"**@{author}** · {comment.get('created_at', '')}", "", (comment.get("body") or "").strip(), ""]
    return "\n".join(lines) + "\n"


def thread_facts(data: dict) -> ThreadFacts:
    issue, pull = data["issue"], data.get("pull") or {}
    return ThreadFacts(
        number=int(issue.get("number") or 0),
        state=pull.get("state") or issue.get("state") or "",
        state_reason=issue.get("state_reason") or "",
        draft=bool(pull.get("draft") or issue.get("draft")),
        merged=bool(pull.get("merged") or pull.get("merged_at")),
        merged_at=_when(pull.get("merged_at")),
        merge_commit=(pull.get("merge_commit_sha") or "") if (pull.get("merged") or pull.get("merged_at")) else "",
        base=((pull.get("base") or {}).get("label") or (pull.get("base") or {}).get("ref") or ""),
        head=((pull.get("head") or {}).get("label") or (pull.get("head") or {}).get("ref") or ""),
        labels=tuple(label.get("name", "") if isinstance(label, dict) else str(label) for label in issue.get("labels") or ()),
        comments=len(data.get("comments", [])),
        author=(issue.get("user") or {}).get("login", ""),
        created_at=_when(issue.get("created_at")),
        updated_at=_when(issue.get("updated_at")),
        closed_at=_when(issue.get("closed_at")),
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
        try:
            issue = await ctx.github.get(f"{base}/issues/{number}")
            comments = await ctx.github.iter_pages(f"{base}/issues/{number}/comments")
            pull = await ctx.github.get(f"{base}/pulls/{number}") if what == "pull" or "pull_request" in (issue.data or {}) else None
        except RateLimitError as exc:
            ctx.state["github_rate_limit"] = exc
            raise
        responses = [issue, *comments, *([pull] if pull else [])]
        for response in responses:
            ctx.log.add(response.url, "not-modified" if response.from_cache else "ok", 304 if response.from_cache else response.status)
        # 304s keep the quota; whether the thread changed is decided by the content, because
        # the ETag cache may be newer than a mirror whose last fetch was interrupted.
        data = {"issue": issue.data, "comments": [c for page in comments for c in (page.data or [])], "pull": pull.data if pull else None}
        body = json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        ctx.stage.mkdir(exist_ok=True)
        (ctx.stage / DATA).write_text(body, encoding="utf-8")
        (ctx.stage / TEXT).write_text(render_thread(data), encoding="utf-8")
        encoded = body.encode("utf-8")
        if ctx.same_as_before(hashlib.sha256(encoded).hexdigest()):
            return Outcome(unchanged=True)
        return Outcome(
            requested_url=issue.url, fetched_url=issue.url, http_status=issue.status, etag=issue.etag,
            last_modified=issue.headers.get("last-modified", ""), content_type="application/json",
            bytes=len(encoded), sha256=hashlib.sha256(encoded).hexdigest(), body_file=DATA, text_file=TEXT,
            document=Document(title=str(issue.data.get("title", "")), published=_when(issue.data.get("created_at")), authors=(thread_facts(data).author,), facts_from="github"),
            thread=thread_facts(data), extractor=Extractor("github-rest", {"httpx": package_version("httpx")}),
        )
