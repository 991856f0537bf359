"""A fake GitHub REST API served over real HTTP on 127.0.0.1, shaped like the real one.

It answers the endpoints `watch` uses, with the behaviours that matter:
pagination through `Link` (per_page/page), `since`/`until` on commits, search with
`merged:`/`updated:` ranges and a 1,000-result cap (lowered in tests), ETag/304 on
every GET (a 304 does not use quota, as on GitHub), and 403 with
`X-RateLimit-Remaining: 0` and `X-RateLimit-Reset` once the quota is spent.
Every request is logged so tests can count them.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import math
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit


def ts(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


@dataclass
class Logged:
    path: str
    query: str
    status: int


@dataclass
class FakeRepo:
    full_name: str
    pushed_at: str
    default_branch: str = "main"
    archived: bool = False
    commits: dict[str, list[dict]] = field(default_factory=dict)  # branch -> [{sha, date}]
    pulls: list[dict] = field(default_factory=list)  # {number, title, user, state, created_at, updated_at, merged_at, closed_at, ...}
    issues: list[dict] = field(default_factory=list)
    releases: list[dict] = field(default_factory=list)  # {tag_name, name, published_at}
    tags: list[dict] = field(default_factory=list)  # {name, sha, date}


class FakeGitHub:
    def __init__(self) -> None:
        self.repos: dict[str, FakeRepo] = {}
        self.orgs: dict[str, list[str]] = {}
        self.log: list[Logged] = []
        self.search_cap = 1000
        self.quota: int | None = None  # requests left before 403; None = unlimited
        self.reset_epoch = int(time.time()) + 3600  # like GitHub's hourly core quota
        self.refill: int | None = None  # quota restored once reset_epoch has passed
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self.lock = threading.Lock()

    # --- lifecycle --------------------------------------------------------------------

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> FakeGitHub:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def add(self, repo: FakeRepo) -> FakeRepo:
        self.repos[repo.full_name.lower()] = repo
        return repo

    def counts(self) -> dict[str, int]:
        """Requests so far: total, answered 200, answered 304 (unbilled), refused 403."""
        return {
            "total": len(self.log),
            "ok": sum(1 for r in self.log if r.status == 200),
            "not_modified": sum(1 for r in self.log if r.status == 304),
            "rate_limited": sum(1 for r in self.log if r.status == 403),
            "billed": sum(1 for r in self.log if r.status != 304),
        }

    def reset_log(self) -> None:
        self.log.clear()

    # --- routing ----------------------------------------------------------------------

    def route(self, path: str, q: dict[str, str]) -> tuple[int, Any, dict[str, str]]:
        m = re.fullmatch(r"/orgs/([^/]+)/repos", path)
        if m:
            names = self.orgs.get(m.group(1).lower(), None)
            if names is None:
                return 404, {"message": "Not Found"}, {}
            return self.paginate(path, q, [self.repo_json(self.repos[n.lower()]) for n in names])
        m = re.fullmatch(r"/repos/([^/]+/[^/]+)(/.*)?", path)
        if m:
            repo = self.repos.get(m.group(1).lower())
            if repo is None:
                return 404, {"message": "Not Found"}, {}
            return self.repo_route(repo, m.group(2) or "", path, q)
        if path == "/search/issues":
            return self.search(path, q)
        return 404, {"message": "Not Found"}, {}

    def repo_route(self, repo: FakeRepo, rest: str, path: str, q: dict[str, str]):
        if rest == "":
            return 200, self.repo_json(repo), {}
        if rest == "/commits":
            branch = q.get("sha", repo.default_branch)
            if branch not in repo.commits:
                return 404, {"message": "No commit found for SHA: " + branch}, {}
            items = sorted(repo.commits[branch], key=lambda c: c["date"], reverse=True)
            if "since" in q:
                items = [c for c in items if ts(c["date"]) >= ts(q["since"])]
            if "until" in q:
                items = [c for c in items if ts(c["date"]) <= ts(q["until"])]
            return self.paginate(path, q, [self.commit_json(repo, c) for c in items])
        m = re.fullmatch(r"/commits/([^/]+)", rest)
        if m:
            for commits in repo.commits.values():
                for c in commits:
                    if c["sha"] == m.group(1):
                        return 200, self.commit_json(repo, c), {}
            for t in repo.tags:
                if t["sha"] == m.group(1):
                    return 200, self.commit_json(repo, t), {}
            return 404, {"message": "Not Found"}, {}
        m = re.fullmatch(r"/pulls/(\d+)", rest)
        if m:
            for pr in repo.pulls:
                if pr["number"] == int(m.group(1)):
                    return 200, self.pull_json(repo, pr), {}
            return 404, {"message": "Not Found"}, {}
        m = re.fullmatch(r"/issues/(\d+)", rest)
        if m:
            for item in repo.issues + repo.pulls:
                if item["number"] == int(m.group(1)):
                    return 200, self.issue_json(repo, item), {}
            return 404, {"message": "Not Found"}, {}
        if rest == "/releases":
            items = sorted(repo.releases, key=lambda r: r["published_at"], reverse=True)
            return self.paginate(path, q, [self.release_json(repo, r) for r in items])
        if rest == "/tags":
            return self.paginate(path, q, [{"name": t["name"], "commit": {"sha": t["sha"], "url": f"{self.url}/repos/{repo.full_name}/commits/{t['sha']}"}} for t in repo.tags])
        return 404, {"message": "Not Found"}, {}

    def search(self, path: str, q: dict[str, str]):
        terms = q.get("q", "").split()
        items: list[tuple[FakeRepo, dict]] = []
        for repo in self.repos.values():
            for pr in repo.pulls:
                items.append((repo, pr))
        for term in terms:
            key, _, value = term.partition(":")
            if key == "repo":
                items = [(r, p) for r, p in items if r.full_name.lower() == value.lower()]
            elif term == "is:merged":
                items = [(r, p) for r, p in items if p.get("merged_at")]
            elif term == "is:open":
                items = [(r, p) for r, p in items if not p.get("merged_at") and not p.get("closed_at")]
            elif key in ("merged", "updated", "created"):
                low, high = (ts(x) for x in value.split(".."))
                field_name = f"{key}_at"
                items = [(r, p) for r, p in items if p.get(field_name) and low <= ts(p[field_name]) <= high]
        if q.get("sort") == "updated":
            items.sort(key=lambda rp: rp[1]["updated_at"], reverse=q.get("order", "desc") == "desc")
        else:
            items.sort(key=lambda rp: rp[1]["number"], reverse=True)
        total = len(items)
        capped = items[: self.search_cap]
        per_page = min(int(q.get("per_page", 30)), 100)
        page = int(q.get("page", 1))
        if (page - 1) * per_page >= self.search_cap and total:
            return 422, {"message": "Only the first 1000 search results are available"}, {}
        status, chunk, headers = self.paginate(path, q, [self.issue_json(r, p) for r, p in capped])
        return status, {"total_count": total, "incomplete_results": False, "items": chunk}, headers

    def paginate(self, path: str, q: dict[str, str], items: list) -> tuple[int, list, dict[str, str]]:
        per_page = min(int(q.get("per_page", 30)), 100)
        page = int(q.get("page", 1))
        last = max(1, math.ceil(len(items) / per_page))
        chunk = items[(page - 1) * per_page : page * per_page]
        links = []
        for rel, number in (("next", page + 1), ("last", last)):
            if rel == "next" and page >= last:
                continue
            query = urlencode(sorted({**q, "page": str(number)}.items()))
            links.append(f'<{self.url}{path}?{query}>; rel="{rel}"')
        return 200, chunk, ({"Link": ", ".join(links)} if links and last > 1 else {})

    # --- JSON shapes ------------------------------------------------------------------

    def repo_json(self, repo: FakeRepo) -> dict:
        return {
            "full_name": repo.full_name,
            "name": repo.full_name.split("/")[1],
            "html_url": f"https://github.com/{repo.full_name}",
            "default_branch": repo.default_branch,
            "pushed_at": repo.pushed_at,
            "archived": repo.archived,
            "fork": False,
        }

    def commit_json(self, repo: FakeRepo, c: dict) -> dict:
        return {
            "sha": c["sha"],
            "html_url": f"https://github.com/{repo.full_name}/commit/{c['sha']}",
            "commit": {"message": c.get("message", "change"), "committer": {"date": c["date"]}, "author": {"date": c["date"]}},
        }

    def pull_json(self, repo: FakeRepo, pr: dict) -> dict:
        return {
            "number": pr["number"],
            "title": pr["title"],
            "user": {"login": pr.get("user", "someone")},
            "html_url": f"https://github.com/{repo.full_name}/pull/{pr['number']}",
            "state": "closed" if pr.get("merged_at") or pr.get("closed_at") else "open",
            "draft": pr.get("draft", False),
            "body": pr.get("body", ""),
            "created_at": pr["created_at"],
            "updated_at": pr["updated_at"],
            "closed_at": pr.get("closed_at") or pr.get("merged_at"),
            "merged_at": pr.get("merged_at"),
            "merged": bool(pr.get("merged_at")),
            "additions": pr.get("additions", 1),
            "deletions": pr.get("deletions", 0),
            "changed_files": pr.get("changed_files", 1),
        }

    def issue_json(self, repo: FakeRepo, item: dict) -> dict:
        is_pr = "merged_at" in item or item in repo.pulls
        data = {
            "number": item["number"],
            "title": item["title"],
            "user": {"login": item.get("user", "someone")},
            "html_url": f"https://github.com/{repo.full_name}/{'pull' if is_pr else 'issues'}/{item['number']}",
            "state": "closed" if item.get("merged_at") or item.get("closed_at") else "open",
            "created_at": item["created_at"],
            "updated_at": item["updated_at"],
            "closed_at": item.get("closed_at") or item.get("merged_at"),
            "body": item.get("body", ""),
            "draft": item.get("draft", False),
        }
        if is_pr:
            data["pull_request"] = {"url": f"{self.url}/repos/{repo.full_name}/pulls/{item['number']}", "merged_at": item.get("merged_at")}
        return data

    def release_json(self, repo: FakeRepo, r: dict) -> dict:
        return {
            "tag_name": r["tag_name"],
            "name": r.get("name", r["tag_name"]),
            "html_url": f"https://github.com/{repo.full_name}/releases/tag/{r['tag_name']}",
            "draft": False,
            "prerelease": False,
            "created_at": r["published_at"],
            "published_at": r["published_at"],
        }

    # --- HTTP ----------------------------------------------------------------------

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:  # keep pytest output clean
                pass

            def do_GET(self) -> None:  # noqa: N802 - http.server's naming
                parts = urlsplit(self.path)
                q = {k: v[-1] for k, v in parse_qs(parts.query).items()}
                with fake.lock:
                    if fake.quota is not None and fake.quota <= 0 and fake.refill is not None and time.time() >= fake.reset_epoch:
                        fake.quota = fake.refill
                    if fake.quota is not None and fake.quota <= 0:
                        headers = {"X-RateLimit-Limit": "60", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(fake.reset_epoch)}
                        fake.log.append(Logged(parts.path, parts.query, 403))
                        return self.send(403, {"message": "API rate limit exceeded"}, headers)
                    status, data, headers = fake.route(parts.path, q)
                    body = json.dumps(data, sort_keys=True).encode()
                    etag = '"' + hashlib.sha256(body + headers.get("Link", "").encode()).hexdigest()[:32] + '"'
                    if status == 200 and self.headers.get("If-None-Match") == etag:
                        fake.log.append(Logged(parts.path, parts.query, 304))
                        return self.send(304, None, {"ETag": etag})
                    if fake.quota is not None:
                        fake.quota -= 1
                    fake.log.append(Logged(parts.path, parts.query, status))
                remaining = "4999" if fake.quota is None else str(fake.quota)
                self.send(status, data, {**headers, "ETag": etag, "X-RateLimit-Remaining": remaining, "X-RateLimit-Reset": str(fake.reset_epoch)})

            def send(self, status: int, data: Any, headers: dict[str, str]) -> None:
                body = b"" if data is None else json.dumps(data).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                for key, value in headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(body)

        return Handler
