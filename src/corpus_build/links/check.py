"""`check_links`: ask every cited URL whether it still answers, politely, and classify the answer.

Per URL: robots.txt first (RFC 9309, parsed by protego; a robots.txt that cannot be
reached for a server or network error means "disallow all", as the RFC says), then a
HEAD, redirects followed by hand so each hop's status is seen. A HEAD that is refused
or fails, or that answers with an HTML page, is followed by a ranged GET (the first
`body_bytes` bytes): servers that mishandle HEAD are common, and an HTML page is read
to recognise a soft 404. The GET decides.

Requests go through the fetch engine's `HttpClient` (pool, per-host limit, error
translation) plus a minimum spacing between requests to one host (`delay`, raised by
a robots.txt Crawl-delay).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import html
import re
import socket
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urljoin, urlsplit

import httpx

from ..core import console, urls
from ..core.errors import FetchError, TransportError, UsageError
from ..core.linkrecords import LinkResult, LinkState, load_results, save_results
from ..core.model import Corpus, Source
from ..core.provenance import now_utc, parse_time, utc_stamp
from ..fetch.http import HttpClient
from ..fetch.options import FetchOptions
from .options import LinkOptions

if TYPE_CHECKING:
    from protego import Protego  # the `fetch` extra: imported when a robots.txt is read

_REDIRECTS = (301, 302, 303, 307, 308)
_PERMANENT = (301, 308)
ROBOTS_TOKEN = "corpus-build"
# What an error page served with 200 calls itself. A <title> or <h1> is split at the
# separators sites put between page and site name ("Page not found · GitHub"), and one
# part must be the phrase alone: an issue titled "Module not found when importing" or an
# article about 404 pages is not an error page.
_NOT_FOUND = re.compile(
    r"^(?:error\s*)?(?:404(?:\s*(?:error|not found|page not found))?|(?:page|file|document|article|post) not found|not found"
    r"|(?:this )?page (?:does not|doesn't|no longer) exists?|(?:page|content) (?:is )?no longer available|(?:page|content) has been (?:removed|deleted)"
    r"|页面不存在|页面未找到|找不到(?:该|此)?页面|网页不存在|内容不存在|(?:该)?(?:页面|内容|文章)已(?:被)?删除|404\s*(?:错误|页面)?)[.!。！]*$",
    re.IGNORECASE,
)
_SEPARATORS = re.compile(r"\s[|·•–—-]\s|\s*[|·•]\s*|[:：]\s+")
_HEADING = re.compile(r"<(title|h1)\b[^>]*>(.*?)</\1\s*>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]+>")


@dataclass(frozen=True)
class _Answer:
    url: str  # the URL that gave the final answer
    status: int
    headers: dict[str, str]
    body: bytes
    method: str
    permanent_target: str  # after the chain's leading permanent redirects, "" when none


@dataclass(frozen=True)
class LinkRun:
    results: tuple[LinkResult, ...]  # the selected sources, in registry order
    cached: int  # answered from the results file without a request
    checked: int
    requests: int  # HTTP requests sent (robots.txt included)

    def count(self, state: LinkState) -> int:
        return sum(1 for r in self.results if r.state is state)


def _is_dns_failure(exc: BaseException) -> bool:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, socket.gaierror):
            return True
        text = str(current).lower()
        if "name or service not known" in text or "nodename nor servname" in text or "temporary failure in name resolution" in text:
            return True
        current = current.__cause__ or current.__context__
    return False


def _rate_limited(status: int, headers: dict[str, str]) -> bool:
    if status == 429:
        return True
    return status == 403 and (headers.get("x-ratelimit-remaining", "").strip() == "0" or "retry-after" in headers)


def soft_404_reason(body: bytes, content_type: str) -> str:
    """Why an HTML page that answered 200 is an error page, or "" when it looks real."""
    if "html" not in content_type.lower() and not body.lstrip()[:15].lower().startswith((b"<!doctype html", b"<html")):
        return ""
    text = body.decode("utf-8", errors="replace")
    for match in _HEADING.finditer(text):
        words = re.sub(r"\s+", " ", html.unescape(_TAG.sub(" ", match.group(2)))).strip()
        if any(_NOT_FOUND.match(part.strip()) for part in _SEPARATORS.split(words)):
            return f"the page's {match.group(1).lower()} says '{words[:80]}'"
    return ""


class _Robots:
    """robots.txt per origin, fetched once per run."""

    def __init__(self, ask: Callable, user_agent: str):
        self._ask = ask
        self._agent = user_agent
        self._rules: dict[str, tuple[Protego | None, str]] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    async def rules(self, url: str) -> tuple[Protego | None, str]:
        """(parsed rules or None for allow-all, reason when everything is disallowed)."""
        parts = urlsplit(url)
        origin = f"{parts.scheme}://{parts.netloc}"
        lock = self._locks.setdefault(origin, asyncio.Lock())
        async with lock:
            if origin not in self._rules:
                self._rules[origin] = await self._load(origin)
            return self._rules[origin]

    async def _load(self, origin: str) -> tuple[Protego | None, str]:
        try:
            status, _headers, body = await self._ask("GET", origin + "/robots.txt", {"Accept": "text/plain"}, 512 * 1024)
        except TransportError:
            # The host cannot be reached at all: the URL's own request will say so (DNS
            # failure, refused connection), which is the finding a link check is for.
            return None, ""
        except FetchError as exc:
            return None, f"robots.txt unreadable ({exc}); RFC 9309 says to assume every path is disallowed"
        if 400 <= status < 500:
            return None, ""  # no robots.txt: everything is allowed
        if status >= 500:
            return None, f"robots.txt answered HTTP {status}; RFC 9309 says to assume every path is disallowed"
        if status != 200:
            return None, ""
        from protego import Protego

        return Protego.parse(body.decode("utf-8", errors="replace")), ""

    async def allowed(self, url: str) -> tuple[bool, float, str]:
        """(may we ask, Crawl-delay in seconds, why not)."""
        rules, blocked = await self.rules(url)
        if blocked:
            return False, 0.0, blocked
        if rules is None:
            return True, 0.0, ""
        delay = rules.crawl_delay(self._agent) or 0.0
        if not rules.can_fetch(url, self._agent):
            return False, float(delay), "robots.txt disallows this path for automated checks"
        return True, float(delay), ""


class LinkChecker:
    """One per run: the HTTP client, robots.txt, per-host spacing."""

    def __init__(self, options: LinkOptions, *, transport: httpx.AsyncBaseTransport | None = None, now: dt.datetime | None = None):
        self.options = options
        self.now = now or now_utc()
        fetch_options = FetchOptions(
            jobs=options.jobs, per_host=options.per_host, connect_timeout=options.connect_timeout,
            read_timeout=options.read_timeout, retries=0, user_agent=options.user_agent,
        )
        self.client = HttpClient(fetch_options, transport=transport)
        self.robots = _Robots(self._ask, ROBOTS_TOKEN)
        self._next_slot: dict[str, float] = {}
        self._host_turn: dict[str, asyncio.Lock] = {}
        self._spacing: dict[str, float] = {}
        self.requests = 0

    async def _ask(self, method: str, url: str, headers: dict[str, str] | None, max_body: int) -> tuple[int, dict[str, str], bytes]:
        host = (urlsplit(url).hostname or "").lower()
        # Requests to one host take turns (FIFO) and each starts at least `delay` after the
        # previous one really started. The next slot is counted from the moment this request
        # goes, not from when it was planned: on a loaded machine several sleepers can wake
        # together, and planned slots would then let them all go at once.
        async with self._host_turn.setdefault(host, asyncio.Lock()):
            wait = self._next_slot.get(host, 0.0) - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            self._next_slot[host] = time.monotonic() + self._spacing.get(host, self.options.delay)
        self.requests += 1
        return await self.client.probe(method, url, headers, max_body=max_body)

    async def _follow(self, url: str, method: str) -> _Answer:
        current, target, leading = url, "", True
        headers = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
        if method == "GET":
            headers["Range"] = f"bytes=0-{self.options.body_bytes - 1}"
        for _hop in range(self.options.max_redirects + 1):
            status, rheaders, body = await self._ask(method, current, headers, self.options.body_bytes)
            if status in _REDIRECTS and "location" in rheaders:
                nxt = urljoin(current, rheaders["location"])
                if leading and status in _PERMANENT:
                    target = nxt
                else:
                    leading = False
                current = nxt
                continue
            return _Answer(current, status, rheaders, body, method, target)
        raise FetchError(f"more than {self.options.max_redirects} redirects", url=url)

    def _result(self, source: Source, previous: LinkResult | None, state: LinkState, **facts) -> LinkResult:
        stamp = utc_stamp(self.now)
        since = previous.since if previous and previous.url == source.url and previous.state is state and previous.since else stamp
        return LinkResult(id=source.id, url=source.url, state=state, checked_at=stamp, since=facts.pop("since", since), **facts)

    async def check(self, source: Source, previous: LinkResult | None) -> LinkResult:
        url = source.url
        try:
            ok, crawl_delay, why = await self.robots.allowed(url)
            host = (urlsplit(url).hostname or "").lower()
            self._spacing[host] = max(self.options.delay, min(crawl_delay, self.options.max_delay))
            if not ok:
                return self._result(source, previous, LinkState.ROBOTS, reason=why)
            answer: _Answer | None = None
            try:
                answer = await self._follow(url, "HEAD")
            except TransportError as exc:
                if _is_dns_failure(exc):
                    raise
            except FetchError:
                pass
            refused = answer is None or not (200 <= answer.status < 300) or "html" in answer.headers.get("content-type", "").lower()
            if refused and not (answer is not None and _rate_limited(answer.status, answer.headers)):
                answer = await self._follow(url, "GET")
            assert answer is not None
            return self._classify(source, previous, answer)
        except FetchError as exc:
            if _is_dns_failure(exc):
                first = previous.dns_failing_since if previous and previous.url == url and previous.dns_failing_since else utc_stamp(self.now)
                began = parse_time(first) or self.now
                if (self.now - began).total_seconds() >= self.options.dns_dead_after:
                    return self._result(source, previous, LinkState.DEAD, since=first, reason="the host name has not resolved since then", dns_failing_since=first)
                return self._result(source, previous, LinkState.UNKNOWN, reason="the host name does not resolve; counted dead if it lasts a week", dns_failing_since=first)
            return self._result(source, previous, LinkState.UNKNOWN, reason=str(exc))

    def _classify(self, source: Source, previous: LinkResult | None, answer: _Answer) -> LinkResult:
        status, headers = answer.status, answer.headers
        facts = {"status": status, "method": answer.method}
        if 200 <= status < 300 or status == 416:  # 416: the range was past the end; the resource exists
            why = soft_404_reason(answer.body, headers.get("content-type", "")) if answer.method == "GET" else ""
            if why:
                return self._result(source, previous, LinkState.SOFT_404, reason=why, **facts)
            target = answer.permanent_target
            if target and urlsplit(target).path in ("", "/") and urlsplit(source.url).path not in ("", "/"):
                return self._result(source, previous, LinkState.SOFT_404, reason=f"permanently redirected to the site's home page {target}", target=target, **facts)
            if target and urls.normalize(target) != urls.normalize(source.url):
                return self._result(source, previous, LinkState.MOVED, target=target, reason=f"permanent redirect to {target}", **facts)
            return self._result(source, previous, LinkState.OK, **facts)
        if status in (404, 410):
            return self._result(source, previous, LinkState.DEAD, reason=f"HTTP {status} at {answer.url}", **facts)
        if _rate_limited(status, headers):
            return self._result(source, previous, LinkState.UNKNOWN, reason=f"rate limited (HTTP {status}); not a verdict, checked again next run", **facts)
        return self._result(source, previous, LinkState.UNKNOWN, reason=f"HTTP {status}; not a verdict on the link", **facts)


def select(corpus: Corpus, options: LinkOptions) -> list[Source]:
    chosen = [s for s in corpus.sources if s.url and urls.is_http_url(s.url)]
    if options.ids:
        unknown = [i for i in options.ids if i not in corpus.by_id]
        if unknown:
            raise UsageError(f"no source with id {', '.join(unknown)}; `corpus-build check` lists the registry")
        chosen = [s for s in chosen if s.id in options.ids]
    if options.sections:
        wanted = set()
        for name in options.sections:
            match = [sec.folder for sec in corpus.sections if name in (sec.folder, str(sec.number), f"{sec.number:02d}")]
            if not match:
                raise UsageError(f"no section '{name}'; known: {', '.join(s.folder for s in corpus.sections)}")
            wanted.update(match)
        chosen = [s for s in chosen if s.section in wanted]
    return chosen


async def _run(corpus: Corpus, options: LinkOptions, sources: Iterable[Source], previous: dict[str, LinkResult],
               transport: httpx.AsyncBaseTransport | None, now: dt.datetime) -> LinkRun:
    checker = LinkChecker(options, transport=transport, now=now)
    gate = asyncio.Semaphore(options.jobs)
    cached = done = 0
    sources = list(sources)

    async def one(source: Source) -> LinkResult:
        nonlocal cached, done
        old = previous.get(source.id)
        if old and old.url == source.url and not options.force:
            age = (now - (parse_time(old.checked_at) or dt.datetime.min.replace(tzinfo=dt.UTC))).total_seconds()
            if 0 <= age < options.recheck_after:
                cached += 1
                done += 1
                return old
        async with gate:
            result = await checker.check(source, old)
        done += 1
        console.progress("checking links", done, len(sources))  # shown on a terminal only (links/cli.py)
        return result

    try:
        results = await asyncio.gather(*(one(s) for s in sources))
    finally:
        await checker.client.aclose()
    return LinkRun(results=tuple(results), cached=cached, checked=len(results) - cached, requests=checker.requests)


def check_links(corpus: Corpus, options: LinkOptions, *, transport: httpx.AsyncBaseTransport | None = None,
                now: dt.datetime | None = None) -> LinkRun:
    """Check the selected sources' URLs and update corpus/.links/results.json (unselected results kept)."""
    moment = now or now_utc()
    previous = load_results(corpus.root)
    sources = select(corpus, options)
    run = asyncio.run(_run(corpus, options, sources, previous, transport, moment))
    keep = {s.id for s in corpus.sources if s.url}  # results of removed sources go
    merged = {k: v for k, v in previous.items() if k in keep}
    merged.update({r.id: r for r in run.results})
    save_results(corpus.root, merged, utc_stamp(moment))
    return run


def fix_moved(corpus: Corpus, ids: Iterable[str], *, dry_run: bool = False) -> list[tuple[str, str, str]]:
    """Point each moved source's `url` at its redirect target; returns (id, old, new).

    With `dry_run`, only says what it would change: nothing is written.
    """
    from .fix import rewrite_urls

    results = load_results(corpus.root)
    changes = []
    for source_id in ids:
        result = results.get(source_id)
        source = corpus.by_id.get(source_id)
        if source is None:
            raise UsageError(f"no source with id '{source_id}'")
        if result is None or result.state is not LinkState.MOVED or result.url != source.url:
            raise UsageError(f"'{source_id}' is not recorded as moved; run `corpus-build links {source_id}` first")
        changes.append((source, result.target))
    done = rewrite_urls(corpus, changes, dry_run=dry_run)  # a dry run checks the same edit, in a copy
    if dry_run:
        return done
    remaining = {k: v for k, v in results.items() if k not in {c[0] for c in done}}
    save_results(corpus.root, remaining, utc_stamp())
    return done

