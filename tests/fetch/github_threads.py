"""A GitHub thread served the way the REST API serves it, on the suite's local HTTP server.

Every list endpoint is paginated with `Link` headers (a small page size, so that even a
test thread spans several pages), every answer has an ETag and answers If-None-Match with
a 304 that uses no quota, and a quota can run out (403 with X-RateLimit-Remaining: 0).
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from urllib.parse import parse_qs

from .server import FixtureServer, Reply, Request


@dataclass
class FakeThread:
    owner: str
    repo: str
    number: int
    issue: dict
    pull: dict | None = None
    lists: dict[str, list] = field(default_factory=dict)  # comments, reviews, review_comments, commits, files, timeline
    page_size: int = 2
    quota: int | None = None  # requests left before 403; None = unlimited
    billed: list[str] = field(default_factory=list)
    not_modified: list[str] = field(default_factory=list)

    def serve(self, server: FixtureServer, prefix: str = "/api") -> FakeThread:
        base = f"{prefix}/repos/{self.owner}/{self.repo}"
        n = self.number
        routes = {
            f"{base}/issues/{n}": lambda: self.issue,
            f"{base}/issues/{n}/comments": "comments",
            f"{base}/issues/{n}/timeline": "timeline",
        }
        if self.pull is not None:
            routes.update({
                f"{base}/pulls/{n}": lambda: self.pull,
                f"{base}/pulls/{n}/reviews": "reviews",
                f"{base}/pulls/{n}/comments": "review_comments",
                f"{base}/pulls/{n}/commits": "commits",
                f"{base}/pulls/{n}/files": "files",
            })
        for path, what in routes.items():
            server.routes[path] = self._route(server, path, what)
        return self

    def _route(self, server: FixtureServer, path: str, what):
        def route(request: Request) -> Reply:
            query = {k: v[-1] for k, v in parse_qs(request.query).items()}
            headers = {"Content-Type": "application/json; charset=utf-8"}
            if callable(what):
                data = what()
            else:
                items = self.lists.get(what, [])
                page = int(query.get("page", "1"))
                data = items[(page - 1) * self.page_size : page * self.page_size]
                last = max(1, -(-len(items) // self.page_size))
                if page < last:
                    nxt = server.url(path) + f"?page={page + 1}&per_page={query.get('per_page', '30')}"
                    headers["Link"] = f'<{nxt}>; rel="next", <{server.url(path)}?page={last}>; rel="last"'
            body = json.dumps(data, sort_keys=True).encode()
            etag = '"' + hashlib.sha256(body + headers.get("Link", "").encode()).hexdigest()[:16] + '"'
            label = path + ("?" + request.query if request.query else "")
            if request.headers.get("if-none-match") == etag:
                self.not_modified.append(label)
                return Reply(304, b"", {"ETag": etag})
            if self.quota is not None and self.quota <= 0:
                reset = str(int(time.time()) + 3600)
                return Reply(403, b'{"message": "API rate limit exceeded"}', {"Content-Type": "application/json", "X-RateLimit-Limit": "60", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset})
            if self.quota is not None:
                self.quota -= 1
            self.billed.append(label)
            return Reply(200, body, {**headers, "ETag": etag, "X-RateLimit-Remaining": str(self.quota if self.quota is not None else 4999)})

        return route


def user(login: str) -> dict:
    # As the API sends it: a login and a pile of API links the mirror should not keep.
    return {"login": login, "type": "User", "url": f"https://api.github.com/users/{login}", "avatar_url": "https://avatars.example/x", "followers_url": "x", "node_id": "U_1"}


def sample_pull(owner: str = "tile-ai", repo: str = "tilelang", number: int = 42) -> FakeThread:
    """A merged PR with a description, comments, reviews, threaded line comments, commits, files and a timeline."""
    html = f"https://github.com/{owner}/{repo}/pull/{number}"
    issue = {
        "number": number, "title": "[Ascend] Add the NPU backend <script>alert(1)</script>", "state": "closed", "state_reason": None,
        "user": user("alice"), "labels": [{"name": "ascend"}, {"name": "backend"}], "html_url": html,
        "created_at": "2026-01-10T02:00:00Z", "updated_at": "2026-02-01T10:00:00Z", "closed_at": "2026-02-01T10:00:00Z",
        "body": "This adds the **Ascend** backend.\n\n<img src=x onerror=alert(2)>", "pull_request": {"url": "x", "html_url": html},
    }
    pull = {
        "number": number, "state": "closed", "draft": False, "merged": True, "merged_at": "2026-02-01T10:00:00Z", "merged_by": user("bob"),
        "merge_commit_sha": "abcdef1234567890", "base": {"label": "tile-ai:main", "ref": "main", "repo": {"full_name": "tile-ai/tilelang", "hooks_url": "x"}},
        "head": {"label": "alice:ascend", "ref": "ascend"}, "additions": 120, "deletions": 30, "changed_files": 3, "commits": 3,
    }
    hunk = "@@ -10,6 +10,8 @@ def lower(x):\n     a = 1\n-    b = 2\n+    b = tile(2)\n+    c = 3"
    lists: dict[str, list] = {
        "comments": [
            {"id": 1, "user": user("carol"), "body": "Does this need CANN 8?", "created_at": "2026-01-11T00:00:00Z", "html_url": html + "#issuecomment-1"},
            {"id": 2, "user": user("alice"), "body": "Yes, CANN 8.0 or newer.", "created_at": "2026-01-12T00:00:00Z", "html_url": html + "#issuecomment-2"},
            {"id": 3, "user": user("dave"), "body": "Thanks, merging soon.", "created_at": "2026-01-31T00:00:00Z", "html_url": html + "#issuecomment-3"},
        ],
        "reviews": [
            {"id": 100, "user": user("bob"), "state": "CHANGES_REQUESTED", "body": "A few things to fix first.", "submitted_at": "2026-01-13T00:00:00Z", "html_url": html + "#pullrequestreview-100"},
            {"id": 101, "user": user("alice"), "state": "COMMENTED", "body": "", "submitted_at": "2026-01-14T00:00:00Z"},  # only holds a reply
            {"id": 102, "user": user("bob"), "state": "APPROVED", "body": "LGTM now.", "submitted_at": "2026-01-30T00:00:00Z"},
        ],
        "review_comments": [
            {"id": 500, "pull_request_review_id": 100, "user": user("bob"), "path": "src/backend/ascend.py", "line": 12, "original_line": 12, "diff_hunk": hunk,
             "body": "Why `tile(2)` here?", "created_at": "2026-01-13T00:00:00Z", "html_url": html + "#discussion_r500"},
            {"id": 501, "pull_request_review_id": 100, "user": user("bob"), "path": "src/backend/ascend.py", "line": None, "original_line": 40, "diff_hunk": "@@ -38,3 +38,4 @@\n+    return y",
             "body": "Missing a test.", "created_at": "2026-01-13T00:00:01Z"},
            {"id": 502, "pull_request_review_id": 100, "user": user("bob"), "path": "docs/ascend.md", "line": 3, "original_line": 3, "diff_hunk": "@@ -1,2 +1,3 @@\n+Ascend </code></pre><script>alert(3)</script>",
             "body": "Typo.", "created_at": "2026-01-13T00:00:02Z"},
            {"id": 503, "pull_request_review_id": 101, "in_reply_to_id": 500, "user": user("alice"), "path": "src/backend/ascend.py", "line": 12, "original_line": 12,
             "diff_hunk": hunk, "body": "The NPU wants tiles of 2.", "created_at": "2026-01-14T00:00:00Z"},
            {"id": 504, "pull_request_review_id": 102, "in_reply_to_id": 503, "user": user("bob"), "path": "src/backend/ascend.py", "line": 12, "original_line": 12,
             "diff_hunk": hunk, "body": "Makes sense.", "created_at": "2026-01-30T00:00:00Z"},
        ],
        "commits": [
            {"sha": "1111111aaaa", "commit": {"message": "Add Ascend backend\n\nLong text", "author": {"name": "Alice", "date": "2026-01-10T01:00:00Z"}}, "author": user("alice")},
            {"sha": "2222222bbbb", "commit": {"message": "Address review", "author": {"name": "Alice", "date": "2026-01-20T01:00:00Z"}}, "author": user("alice")},
            {"sha": "3333333cccc", "commit": {"message": "Add the missing test", "author": {"name": "Alice", "date": "2026-01-20T02:00:00Z"}}, "author": user("alice")},
        ],
        "files": [
            {"filename": "src/backend/ascend.py", "status": "added", "additions": 100, "deletions": 0, "patch": "@@ +1 @@"},
            {"filename": "docs/ascend.md", "status": "modified", "additions": 15, "deletions": 5},
            {"filename": "src/backend/npu.py", "previous_filename": "src/backend/old.py", "status": "renamed", "additions": 5, "deletions": 25},
        ],
        "timeline": [
            {"event": "commented", "created_at": "2026-01-11T00:00:00Z", "actor": user("carol")},  # duplicate of a comment: not kept
            {"event": "cross-referenced", "created_at": "2026-01-15T00:00:00Z", "actor": user("erin"),
             "source": {"type": "issue", "issue": {"number": 7, "title": "Track Ascend support", "html_url": "https://github.com/tile-ai/tilelang/issues/7",
                                                    "state": "open", "repository": {"full_name": "tile-ai/tilelang", "hooks_url": "x"}}}},
            {"event": "labeled", "created_at": "2026-01-16T00:00:00Z", "actor": user("bob"), "label": {"name": "ascend"}},
            {"event": "merged", "created_at": "2026-02-01T10:00:00Z", "actor": user("bob"), "commit_id": "abcdef1234567890"},
            {"event": "closed", "created_at": "2026-02-01T10:00:01Z", "actor": user("bob")},
        ],
    }
    return FakeThread(owner, repo, number, issue, pull, lists)
