"""A small GitHub REST client shared by `fetch` (issues, PRs) and `watch` (digests).

Public interface (stable; additions only):

    config = GitHubConfig.from_env(os.environ, cache_dir=Path(".corpus-build/github"))
        api_url   GITHUB_API_URL, default https://api.github.com (no trailing slash)
        token     GITHUB_TOKEN, default none (60 requests/hour instead of 5,000)
        cache_dir where ETag-cached answers live; None disables the cache

    with GitHubClient(config) as gh:                 # synchronous (httpx.Client)
        gh.get("/repos/o/r")          -> GitHubResponse (status, data, headers, from_cache)
        gh.get_json("/repos/o/r")     -> the decoded JSON
        gh.paginate("/repos/o/r/issues/1/comments", params={...})
                                      -> list of every item, following `Link: rel="next"`
        gh.iter_pages(path, params)   -> iterator of GitHubResponse, one per page

    async with AsyncGitHubClient(config) as gh:      # same methods, awaitable
        await gh.get(...); await gh.get_json(...); await gh.paginate(...)

    Paths are relative to api_url ("/repos/o/r") or absolute URLs (as found in Link
    headers and `*_url` fields); absolute URLs must share api_url's origin, so a
    server cannot send the token elsewhere.

Errors (all from corpus_build.core.errors):
    RateLimitError   quota exhausted (403/429 with X-RateLimit-Remaining: 0, or a
                     secondary limit with Retry-After); `.reset_at` is an ISO UTC time
                     and the message says when it resets and to set GITHUB_TOKEN.
    HTTPStatusError  any other error status (`.status`), e.g. 404 for a deleted issue.
    TransportError   connection, TLS or timeout problems.
    ContentError     the answer was not JSON.

Conditional requests: every GET sends If-None-Match with the ETag cached on disk
for that exact URL; a 304 returns the cached body (`from_cache=True`) and, on
GitHub, does not count against the rate limit. The cache is one JSON file per URL
under cache_dir, named by the sha256 of the URL, written atomically.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import hashlib
import json
import os
import re
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

import httpx

from . import jsondata
from .errors import ContentError, HTTPStatusError, RateLimitError, TransportError
from .provenance import write_atomic

DEFAULT_API_URL = "https://api.github.com"
USER_AGENT = "corpus-build (+https://github.com/)"
_LINK = re.compile(r'<([^>]+)>\s*;\s*rel="?([^";]+)"?')


@dataclass(frozen=True)
class GitHubConfig:
    api_url: str = DEFAULT_API_URL
    token: str = ""
    cache_dir: Path | None = None
    timeout: float = 30.0
    per_page: int = 100
    max_pages: int = 100  # 10,000 comments is far beyond any thread worth citing

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> GitHubConfig:
        """Read GITHUB_API_URL and GITHUB_TOKEN from `env` (os.environ when None)."""
        env = os.environ if env is None else env
        values: dict[str, Any] = {
            "api_url": (env.get("GITHUB_API_URL") or DEFAULT_API_URL).rstrip("/"),
            "token": env.get("GITHUB_TOKEN", "").strip(),
        }
        values.update(overrides)
        return cls(**values)


@dataclass(frozen=True)
class GitHubResponse:
    url: str
    status: int  # 200, or the original 200's status when served from cache after a 304
    data: Any
    headers: Mapping[str, str] = field(default_factory=dict)
    from_cache: bool = False

    @property
    def next_url(self) -> str | None:
        return parse_link(self.headers.get("link", "")).get("next")

    @property
    def etag(self) -> str:
        return self.headers.get("etag", "")


def parse_link(header: str) -> dict[str, str]:
    """`Link: <url>; rel="next", <url>; rel="last"` -> {"next": url, "last": url}."""
    links: dict[str, str] = {}
    for match in _LINK.finditer(header or ""):
        for rel in match.group(2).split():
            links[rel] = match.group(1)
    return links


def reset_time(headers: Mapping[str, str], now: dt.datetime | None = None) -> dt.datetime | None:
    """When the quota comes back: X-RateLimit-Reset (epoch seconds) or Retry-After (seconds)."""
    now = now or dt.datetime.now(dt.UTC)
    reset = headers.get("x-ratelimit-reset", "")
    if reset.strip().isdigit():
        return dt.datetime.fromtimestamp(int(reset), dt.UTC)
    retry = headers.get("retry-after", "")
    if retry.strip().isdigit():
        return now + dt.timedelta(seconds=int(retry))
    return None


def is_rate_limited(status: int, headers: Mapping[str, str]) -> bool:
    if status not in (403, 429):
        return False
    return headers.get("x-ratelimit-remaining") == "0" or "retry-after" in headers or status == 429


def rate_limit_error(url: str, status: int, headers: Mapping[str, str], has_token: bool) -> RateLimitError:
    reset = reset_time(headers)
    limit = headers.get("x-ratelimit-limit", "")
    quota = f" ({limit} requests/hour)" if limit else ""
    when = f"it resets at {reset:%Y-%m-%d %H:%M} UTC" if reset else "it resets within the hour"
    fix = (
        "retry after then, or use a token with a higher quota"
        if has_token
        else "set GITHUB_TOKEN to raise the limit to 5,000 requests/hour, or retry after then"
    )
    return RateLimitError(
        f"GitHub API rate limit exhausted{quota} (HTTP {status}); {when}; {fix}",
        url=url,
        reset_at=reset.isoformat() if reset else "",
    )


class _Core:
    """What the sync and async clients share: URLs, headers, cache, answer checking."""

    def __init__(self, config: GitHubConfig):
        self.config = config
        self.origin = _origin(config.api_url)

    def url(self, path_or_url: str, params: Mapping[str, Any] | None = None) -> str:
        if path_or_url.startswith(("http://", "https://")):
            if _origin(path_or_url) != self.origin:
                raise ContentError(f"refusing to follow a GitHub API link to another host (expected {self.origin})", url=path_or_url)
            url = path_or_url
        else:
            url = self.config.api_url + "/" + path_or_url.lstrip("/")
        if params:
            url += ("&" if "?" in url else "?") + urlencode(sorted((k, str(v)) for k, v in params.items()))
        return url

    def headers(self, cached: dict | None) -> dict[str, str]:
        headers = {"Accept": "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28", "User-Agent": USER_AGENT}
        if self.config.token:
            headers["Authorization"] = f"Bearer {self.config.token}"
        if cached and cached.get("etag"):
            headers["If-None-Match"] = cached["etag"]
        return headers

    def _cache_path(self, url: str) -> Path | None:
        if self.config.cache_dir is None:
            return None
        # The token is part of the key: answers can differ by who asks (private repos).
        key = hashlib.sha256(f"{bool(self.config.token)} {url}".encode()).hexdigest()
        return Path(self.config.cache_dir) / f"{key}.json"

    def cached(self, url: str) -> dict | None:
        path = self._cache_path(url)
        if path is None:
            return None
        try:
            return jsondata.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    def store(self, url: str, response: GitHubResponse) -> None:
        path = self._cache_path(url)
        if path is None or not response.etag:
            return
        keep = {k: v for k, v in response.headers.items() if k in ("etag", "link", "last-modified")}
        # (The async client stores from worker threads: write_atomic's temporary names the thread.)
        write_atomic(path, json.dumps({"url": url, "etag": response.etag, "headers": keep, "status": response.status, "data": response.data}))

    def answer(self, url: str, response: httpx.Response, cached: dict | None) -> GitHubResponse:
        headers = {k.lower(): v for k, v in response.headers.items()}
        if response.status_code == 304 and cached is not None:
            merged = {**cached.get("headers", {}), **{k: v for k, v in headers.items() if k.startswith("x-ratelimit")}}
            return GitHubResponse(url, cached.get("status", 200), cached.get("data"), merged, from_cache=True)
        if is_rate_limited(response.status_code, headers):
            raise rate_limit_error(url, response.status_code, headers, bool(self.config.token))
        if response.status_code >= 400:
            message = ""
            with contextlib.suppress(ValueError, AttributeError):
                message = str(jsondata.loads(response.content).get("message", ""))
            hint = " (check the URL, or set GITHUB_TOKEN for private repositories)" if response.status_code in (401, 403, 404) else ""
            raise HTTPStatusError(f"GitHub API answered HTTP {response.status_code}{': ' + message if message else ''}{hint}", url=url, status=response.status_code)
        try:
            data = jsondata.loads(response.content)
        except ValueError as exc:
            raise ContentError(f"GitHub API answered HTTP {response.status_code} with something that is not JSON", url=url) from exc
        result = GitHubResponse(url, response.status_code, data, headers)
        self.store(url, result)
        return result

    def check_list(self, page: GitHubResponse) -> list:
        if not isinstance(page.data, list):
            raise ContentError("expected a JSON list from a paginated GitHub endpoint", url=page.url)
        return page.data

    def page_params(self, params: Mapping[str, Any] | None) -> dict[str, Any]:
        return {"per_page": self.config.per_page, **(params or {})}


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


# One API answer: a page of 100 items is well under 1 MB. A server that sends more (or never
# stops) is cut off here instead of filling memory; so is one that trickles past MAX_SECONDS.
MAX_ANSWER_BYTES = 32 * 1024 * 1024


class _CappedBody:
    """An answer's bytes as they stream in, cut off past MAX_ANSWER_BYTES or `seconds` (the sync and async clients share it)."""

    def __init__(self, url: str, seconds: float) -> None:
        self.url, self.seconds = url, seconds
        self.deadline = time.monotonic() + seconds
        self.body = bytearray()

    def add(self, chunk: bytes) -> None:
        self.body += chunk
        if len(self.body) > MAX_ANSWER_BYTES:
            raise TransportError(f"the GitHub API's answer passed {MAX_ANSWER_BYTES // (1024 * 1024)} MB and was cut off; check GITHUB_API_URL", url=self.url)
        if time.monotonic() > self.deadline:
            raise TransportError(f"the GitHub API's answer took longer than {self.seconds:.0f} s and was cut off; retry later or check GITHUB_API_URL",
                                 url=self.url)


def _whole(response: httpx.Response, body: bytes) -> httpx.Response:
    return httpx.Response(response.status_code, headers=response.headers, content=body, request=response.request)


def _transport_error(url: str, exc: httpx.HTTPError) -> TransportError:
    return TransportError(f"cannot reach the GitHub API ({type(exc).__name__}: {exc}); check the network or GITHUB_API_URL", url=url)


class GitHubClient:
    """Synchronous client; use as a context manager or call close()."""

    def __init__(self, config: GitHubConfig, *, transport: httpx.BaseTransport | None = None):
        self._core = _Core(config)
        self.config = config
        self._http = httpx.Client(timeout=config.timeout, transport=transport, follow_redirects=True, trust_env=False)

    def __enter__(self) -> GitHubClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def get(self, path_or_url: str, params: Mapping[str, Any] | None = None) -> GitHubResponse:
        url = self._core.url(path_or_url, params)
        cached = self._core.cached(url)
        body = _CappedBody(url, 4 * self.config.timeout)
        try:
            with self._http.stream("GET", url, headers=self._core.headers(cached)) as streamed:
                for chunk in streamed.iter_bytes():
                    body.add(chunk)
                response = _whole(streamed, bytes(body.body))
        except httpx.HTTPError as exc:
            raise _transport_error(url, exc) from exc
        return self._core.answer(url, response, cached)

    def get_json(self, path_or_url: str, params: Mapping[str, Any] | None = None) -> Any:
        return self.get(path_or_url, params).data

    def iter_pages(self, path_or_url: str, params: Mapping[str, Any] | None = None) -> Iterator[GitHubResponse]:
        page = self.get(path_or_url, self._core.page_params(params))
        yield page
        for _ in range(self.config.max_pages - 1):
            if not page.next_url:
                return
            page = self.get(page.next_url)
            yield page

    def paginate(self, path_or_url: str, params: Mapping[str, Any] | None = None) -> list:
        return [item for page in self.iter_pages(path_or_url, params) for item in self._core.check_list(page)]


class AsyncGitHubClient:
    """The same interface for asyncio code (the fetch stage)."""

    def __init__(self, config: GitHubConfig, *, transport: httpx.AsyncBaseTransport | None = None):
        self._core = _Core(config)
        self.config = config
        self._http = httpx.AsyncClient(timeout=config.timeout, transport=transport, follow_redirects=True, trust_env=False)

    async def __aenter__(self) -> AsyncGitHubClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def get(self, path_or_url: str, params: Mapping[str, Any] | None = None) -> GitHubResponse:
        url = self._core.url(path_or_url, params)
        cached = await asyncio.to_thread(self._core.cached, url)  # the ETag cache is on disk: off the event loop
        body = _CappedBody(url, 4 * self.config.timeout)
        try:
            async with self._http.stream("GET", url, headers=self._core.headers(cached)) as streamed:
                async for chunk in streamed.aiter_bytes():
                    body.add(chunk)
                response = _whole(streamed, bytes(body.body))
        except httpx.HTTPError as exc:
            raise _transport_error(url, exc) from exc
        return await asyncio.to_thread(self._core.answer, url, response, cached)  # answer() writes the cache

    async def get_json(self, path_or_url: str, params: Mapping[str, Any] | None = None) -> Any:
        return (await self.get(path_or_url, params)).data

    async def iter_pages(self, path_or_url: str, params: Mapping[str, Any] | None = None) -> list[GitHubResponse]:
        pages = [await self.get(path_or_url, self._core.page_params(params))]
        while pages[-1].next_url and len(pages) < self.config.max_pages:
            pages.append(await self.get(pages[-1].next_url))
        return pages

    async def paginate(self, path_or_url: str, params: Mapping[str, Any] | None = None) -> list:
        return [item for page in await self.iter_pages(path_or_url, params) for item in self._core.check_list(page)]
