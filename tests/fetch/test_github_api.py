"""The shared GitHub client (used by fetch and watch): pagination, ETag cache, rate limits, origin check."""

from __future__ import annotations

import json

import pytest

from corpus_build.core.errors import ContentError, HTTPStatusError, RateLimitError
from corpus_build.core.github_api import GitHubClient, GitHubConfig, parse_link

from .server import Reply


def test_sync_client_paginates_caches_and_reports_rate_limits(server, tmp_path):
    page2 = server.url("/api/items") + "?page=2"

    def items(request):
        if request.headers.get("if-none-match") == '"p1"':
            return Reply(304, b"", {"ETag": '"p1"'})
        if "page=2" in request.query:
            return Reply(200, b"[3]", {"Content-Type": "application/json"})
        return Reply(200, b"[1, 2]", {"Content-Type": "application/json", "ETag": '"p1"', "Link": f'<{page2}>; rel="next"'})

    server.routes["/api/items"] = items
    server.routes["/api/limited"] = lambda r: Reply(403, b"{}", {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1900000000"})
    config = GitHubConfig.from_env({"GITHUB_API_URL": server.url("/api/")}, cache_dir=tmp_path / "cache")
    with GitHubClient(config) as gh:
        assert gh.paginate("/items") == [1, 2, 3]
        assert gh.paginate("/items") == [1, 2, 3]  # first page from the ETag cache
        assert [h.headers.get("if-none-match") for h in server.hits if h.path == "/api/items" and "page=2" not in h.query] == [None, '"p1"']
        with pytest.raises(RateLimitError) as caught:
            gh.get("/limited")
        assert caught.value.reset_at.startswith("2030-03-17T17:46") and "set GITHUB_TOKEN" in str(caught.value)
        with pytest.raises(HTTPStatusError) as missing:
            gh.get_json("/nothing")
        assert missing.value.status == 404
        with pytest.raises(ContentError):
            gh.get("https://evil.example/steal")  # the token never leaves api_url's origin
    assert parse_link('<a>; rel="next", <b>; rel="last"') == {"next": "a", "last": "b"}
    assert json.loads(next((tmp_path / "cache").iterdir()).read_text())["etag"] == '"p1"'
