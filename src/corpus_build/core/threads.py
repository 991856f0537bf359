"""A GitHub thread (issue or pull request) as one conversation in time order.

The fetch stage stores what the REST API answered in `thread.json` (see
fetch/kinds/github.py); this module turns that file into typed, frozen records:
the facts for the top of the page and the events in time order. Both the mirror's
`text.md` and the site's thread page are written from these records, so they agree.

Review comments are grouped the way a reader follows them: a reply
(`in_reply_to_id`) joins the thread of the comment it answers, and each thread
sits under the review that opened it, grouped by file. A review that only
carries replies (GitHub records every reply as its own review) adds nothing of
its own and is left out of the timeline.

Everything here is untrusted data from GitHub; it is only parsed, never trusted:
missing or mistyped fields give empty values, not exceptions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# Timeline events already shown from their own endpoints, or noise for a reader.
TIMELINE_SKIP = {"commented", "reviewed", "committed", "line-commented", "commit-commented", "subscribed", "unsubscribed", "mentioned"}
STATE_EVENTS = (
    "closed", "reopened", "merged", "renamed", "labeled", "unlabeled", "ready_for_review", "convert_to_draft",
    "head_ref_force_pushed", "head_ref_deleted", "head_ref_restored", "referenced", "locked", "unlocked",
    "assigned", "unassigned", "review_requested", "milestoned", "demilestoned", "marked_as_duplicate",
)


def _d(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _l(value: Any) -> list:
    return value if isinstance(value, list) else []


def _s(value: Any) -> str:
    return value if isinstance(value, str) else ("" if value is None else str(value))


def _i(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _login(user: Any) -> str:
    return _s(_d(user).get("login"))


@dataclass(frozen=True)
class ReviewComment:
    id: int
    author: str
    at: str
    body: str
    path: str
    line: int  # the line in the file the comment is on (new side), 0 when outdated
    original_line: int
    diff_hunk: str
    url: str
    in_reply_to: int = 0


@dataclass(frozen=True)
class CommentThread:
    """A review comment and the replies to it, in time order."""

    root: ReviewComment
    replies: tuple[ReviewComment, ...] = ()

    @property
    def comments(self) -> tuple[ReviewComment, ...]:
        return (self.root, *self.replies)


@dataclass(frozen=True)
class FileGroup:
    path: str
    threads: tuple[CommentThread, ...]


@dataclass(frozen=True)
class Commit:
    sha: str
    subject: str
    author: str
    at: str


@dataclass(frozen=True)
class Event:
    """One entry of the conversation.

    kind: "opened" (the description), "comment", "review", "commits", "xref" (another
    issue or PR mentioned this one) or one of STATE_EVENTS ("merged", "closed"…).
    """

    kind: str
    at: str
    author: str = ""
    body: str = ""
    url: str = ""
    state: str = ""  # a review's state: APPROVED, CHANGES_REQUESTED, COMMENTED, DISMISSED
    files: tuple[FileGroup, ...] = ()  # a review's comment threads, by file
    commits: tuple[Commit, ...] = ()
    detail: str = ""  # a label, a new title, a commit id…
    ref_repo: str = ""  # xref: where the mention came from
    ref_number: int = 0
    ref_title: str = ""
    ref_is_pull: bool = False
    ref_state: str = ""


@dataclass(frozen=True)
class ChangedFile:
    path: str
    status: str  # added, modified, removed, renamed, copied, changed, unchanged
    additions: int
    deletions: int
    previous_path: str = ""
    threads: int = 0  # review comment threads on this file
    patch: str = ""  # the file's diff as GitHub sends it ("" for binary or very large files)


@dataclass(frozen=True)
class Facts:
    number: int
    title: str
    is_pull: bool
    state: str  # open, closed
    state_reason: str
    draft: bool
    merged: bool
    merged_at: str
    merged_by: str
    merge_commit: str
    closed_at: str
    author: str
    created_at: str
    url: str
    base: str
    head: str
    labels: tuple[str, ...]
    additions: int
    deletions: int
    changed_files: int
    commits: int
    comments: int
    reviews: int
    review_comments: int
    commits_shown: int
    files_shown: int

    @property
    def display_state(self) -> str:
        if self.merged:
            return "merged"
        if self.state == "open" and self.draft:
            return "draft"
        return self.state or "open"


@dataclass(frozen=True)
class Conversation:
    facts: Facts
    events: tuple[Event, ...]
    files: tuple[ChangedFile, ...] = ()


def _review_comment(raw: dict) -> ReviewComment:
    return ReviewComment(
        id=_i(raw.get("id")), author=_login(raw.get("user")), at=_s(raw.get("created_at")), body=_s(raw.get("body")),
        path=_s(raw.get("path")), line=_i(raw.get("line")), original_line=_i(raw.get("original_line")),
        diff_hunk=_s(raw.get("diff_hunk")), url=_s(raw.get("html_url")), in_reply_to=_i(raw.get("in_reply_to_id")),
    )


def _threads(raw_comments: list) -> tuple[dict[int, list[CommentThread]], dict[str, int]]:
    """(threads by the review id of their root comment, thread count per path)."""
    comments = [_review_comment(c) for c in raw_comments if isinstance(c, dict)]
    review_of = {_i(c.get("id")): _i(c.get("pull_request_review_id")) for c in raw_comments if isinstance(c, dict)}
    by_id = {c.id: c for c in comments}

    def root_of(comment: ReviewComment) -> ReviewComment:
        seen = {comment.id}
        while comment.in_reply_to and comment.in_reply_to in by_id and comment.in_reply_to not in seen:
            comment = by_id[comment.in_reply_to]
            seen.add(comment.id)
        return comment

    replies: dict[int, list[ReviewComment]] = {}
    roots: list[ReviewComment] = []
    for comment in comments:
        root = root_of(comment)
        if root.id == comment.id:
            roots.append(comment)
        else:
            replies.setdefault(root.id, []).append(comment)
    by_review: dict[int, list[CommentThread]] = {}
    per_path: dict[str, int] = {}
    for root in roots:
        thread = CommentThread(root, tuple(sorted(replies.get(root.id, []), key=lambda c: c.at)))
        by_review.setdefault(review_of.get(root.id, 0), []).append(thread)
        per_path[root.path] = per_path.get(root.path, 0) + 1
    return by_review, per_path


def _by_file(threads: list[CommentThread]) -> tuple[FileGroup, ...]:
    groups: dict[str, list[CommentThread]] = {}
    for thread in sorted(threads, key=lambda t: (t.root.at, t.root.id)):
        groups.setdefault(thread.root.path, []).append(thread)
    return tuple(FileGroup(path, tuple(items)) for path, items in groups.items())


def _commit(raw: dict) -> Commit:
    commit = _d(raw.get("commit"))
    author = _d(commit.get("author"))
    message = _s(commit.get("message"))
    who = _login(raw.get("author")) or _s(author.get("name"))
    return Commit(sha=_s(raw.get("sha")), subject=message.split("\n", 1)[0], author=who, at=_s(author.get("date")) or _s(_d(commit.get("committer")).get("date")))


def _timeline_event(raw: dict) -> Event | None:
    kind = _s(raw.get("event"))
    at = _s(raw.get("created_at"))
    actor = _login(raw.get("actor"))
    if kind == "cross-referenced":
        source = _d(raw.get("source"))
        issue = _d(source.get("issue"))
        if not issue:
            return None
        repo = _d(issue.get("repository"))
        return Event(
            "xref", at, actor, url=_s(issue.get("html_url")), ref_repo=_s(repo.get("full_name")), ref_number=_i(issue.get("number")),
            ref_title=_s(issue.get("title")), ref_is_pull="pull_request" in issue, ref_state=_s(issue.get("state")),
        )
    if kind not in STATE_EVENTS:
        return None
    detail = ""
    if kind in ("labeled", "unlabeled"):
        detail = _s(_d(raw.get("label")).get("name"))
    elif kind == "renamed":
        detail = _s(_d(raw.get("rename")).get("to"))
    elif kind in ("referenced", "closed", "merged") and raw.get("commit_id"):
        detail = _s(raw.get("commit_id"))
    elif kind in ("assigned", "unassigned"):
        detail = _login(raw.get("assignee"))
    elif kind == "review_requested":
        detail = _login(raw.get("requested_reviewer")) or _s(_d(raw.get("requested_team")).get("name"))
    elif kind in ("milestoned", "demilestoned"):
        detail = _s(_d(raw.get("milestone")).get("title"))
    return Event(kind, at, actor, detail=detail, url=_s(raw.get("html_url")))


def conversation(data: dict) -> Conversation:
    """thread.json (as fetch/kinds/github.py writes it) -> the facts and the events in time order."""
    issue, pull = _d(data.get("issue")), _d(data.get("pull"))
    is_pull = bool(pull) or "pull_request" in issue
    raw_reviews = [r for r in _l(data.get("reviews")) if isinstance(r, dict)]
    raw_review_comments = _l(data.get("review_comments"))
    raw_commits = [c for c in _l(data.get("commits")) if isinstance(c, dict)]
    raw_files = [f for f in _l(data.get("files")) if isinstance(f, dict)]
    events: list[Event] = [Event("opened", _s(issue.get("created_at")), _login(issue.get("user")), _s(issue.get("body")), _s(issue.get("html_url")))]
    for comment in _l(data.get("comments")):
        if isinstance(comment, dict):
            events.append(Event("comment", _s(comment.get("created_at")), _login(comment.get("user")), _s(comment.get("body")), _s(comment.get("html_url"))))
    by_review, per_path = _threads(raw_review_comments)
    known_reviews = set()
    for review in raw_reviews:
        review_id = _i(review.get("id"))
        known_reviews.add(review_id)
        threads = by_review.get(review_id, [])
        body = _s(review.get("body"))
        state = _s(review.get("state")).upper()
        if not threads and not body.strip() and state in ("COMMENTED", ""):
            continue  # a review that only holds replies: they are shown in their threads
        at = _s(review.get("submitted_at")) or (threads[0].root.at if threads else "")
        events.append(Event("review", at, _login(review.get("user")), body, _s(review.get("html_url")), state=state, files=_by_file(threads)))
    for review_id, threads in by_review.items():
        if review_id not in known_reviews:  # comments whose review the API did not list
            first = min(threads, key=lambda t: t.root.at)
            events.append(Event("review", first.root.at, first.root.author, state="COMMENTED", files=_by_file(threads)))
    commits = sorted((_commit(c) for c in raw_commits), key=lambda c: c.at)
    for commit in commits:
        # Consecutive commits (no other event between them) are shown as one push.
        events.append(Event("commits", commit.at, commit.author, commits=(commit,)))
    for raw in _l(data.get("timeline")):
        if isinstance(raw, dict) and _s(raw.get("event")) not in TIMELINE_SKIP:
            event = _timeline_event(raw)
            if event is not None:
                events.append(event)
    ordered = sorted(enumerate(events), key=lambda pair: (pair[1].kind != "opened", pair[1].at or "~", pair[0]))
    merged: list[Event] = []
    for _index, event in ordered:
        if event.kind == "commits" and merged and merged[-1].kind == "commits" and merged[-1].author == event.author:
            last = merged.pop()
            event = Event("commits", last.at, last.author, commits=last.commits + event.commits)
        merged.append(event)
    files = tuple(
        ChangedFile(
            path=_s(f.get("filename")), status=_s(f.get("status")), additions=_i(f.get("additions")), deletions=_i(f.get("deletions")),
            previous_path=_s(f.get("previous_filename")), threads=per_path.get(_s(f.get("filename")), 0), patch=_s(f.get("patch")),
        )
        for f in raw_files
    )
    merged_flag = bool(pull.get("merged") or pull.get("merged_at"))
    base, head = _d(pull.get("base")), _d(pull.get("head"))
    labels = tuple(_s(_d(label).get("name")) if isinstance(label, dict) else _s(label) for label in _l(issue.get("labels")))
    facts = Facts(
        number=_i(issue.get("number")), title=_s(issue.get("title")), is_pull=is_pull,
        state=_s(pull.get("state")) or _s(issue.get("state")), state_reason=_s(issue.get("state_reason")),
        draft=bool(pull.get("draft") or issue.get("draft")), merged=merged_flag, merged_at=_s(pull.get("merged_at")),
        merged_by=_login(pull.get("merged_by")), merge_commit=_s(pull.get("merge_commit_sha")) if merged_flag else "",
        closed_at=_s(issue.get("closed_at")), author=_login(issue.get("user")), created_at=_s(issue.get("created_at")),
        url=_s(issue.get("html_url")), base=_s(base.get("label")) or _s(base.get("ref")), head=_s(head.get("label")) or _s(head.get("ref")),
        labels=labels, additions=_i(pull.get("additions")) or sum(f.additions for f in files),
        deletions=_i(pull.get("deletions")) or sum(f.deletions for f in files),
        changed_files=_i(pull.get("changed_files")) or len(files), commits=_i(pull.get("commits")) or len(commits),
        comments=len(_l(data.get("comments"))), reviews=sum(1 for e in merged if e.kind == "review"),
        review_comments=sum(1 for c in raw_review_comments if isinstance(c, dict)), commits_shown=len(commits), files_shown=len(files),
    )
    return Conversation(facts=facts, events=tuple(merged), files=files)
