"""The HTTP layer: streaming downloads with limits, retries, conditional requests and fallbacks.

Every download streams to a file: the body never sits whole in memory. Three caps
hold while streaming: bytes on the wire (`max_bytes`), bytes after gzip/deflate
(`max_decoded_bytes`, decompressed in bounded steps so a bomb cannot balloon a
single chunk) and time (`total_timeout` for one URL, retries included).

httpx exceptions are translated here, once, into corpus_build.core.errors.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import email.utils
import hashlib
import ipaddress
import random
import ssl
import time
import zlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import httpx

from ..core.errors import ContentError, FetchError, HTTPStatusError, TransportError
from ..core.provenance import Attempt, utc_stamp
from . import blocked, connect
from .connect import LocalAddressRefused
from .options import FetchOptions

CHUNK = 64 * 1024
_SHARD = 4  # connections per httpx client (see HttpClient.__init__)
_REDIRECTS = (301, 302, 303, 307, 308)
_RETRY_STATUS = (429, 500, 502, 503, 504)


@dataclass(frozen=True)
class Exchange:
    """One request and its answer, kept for the WARC file."""

    url: str
    request_headers: tuple[tuple[str, str], ...]
    status: int
    reason: str
    http_version: str
    response_headers: tuple[tuple[str, str], ...]
    payload: Path | None  # the body as transferred (still compressed), or None (redirect, 304)
    at: str


@dataclass(frozen=True)
class Download:
    requested_url: str  # after rewrites and fallbacks
    final_url: str  # after redirects
    redirects: tuple[str, ...]
    status: int
    headers: dict[str, str]
    not_modified: bool = False
    path: Path | None = None  # the decoded body
    bytes: int = 0
    sha256: str = ""
    exchanges: tuple[Exchange, ...] = ()

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "")

    @property
    def etag(self) -> str:
        return self.headers.get("etag", "")

    @property
    def last_modified(self) -> str:
        return self.headers.get("last-modified", "")


def raw_twin(dest: Path) -> Path:
    """Where a download to `dest` keeps the body as transferred (still compressed) for the WARC."""
    return dest.with_name(f".{dest.name}.raw")


def move_body(exchanges: tuple[Exchange, ...], old: Path, new: Path) -> tuple[Exchange, ...]:
    """Rename a downloaded body (and its raw twin, if kept) and point its exchanges at the new names.

    Needed before a second download reuses the name: else the first exchange's WARC record
    would carry the second body.
    """
    old.rename(new)
    if raw_twin(old).exists():
        raw_twin(old).rename(raw_twin(new))
    moved = {old: new, raw_twin(old): raw_twin(new)}
    return tuple(replace(e, payload=moved[e.payload]) if e.payload in moved else e for e in exchanges)


@dataclass
class AttemptLog:
    """What one source tried, in order (ends up in provenance)."""

    attempts: list[Attempt] = field(default_factory=list)

    def add(self, url: str, outcome: str, status: int = 0, error: str = "") -> None:
        self.attempts.append(Attempt(url=url, at=utc_stamp(), outcome=outcome, status=status, error=error))


def translate(exc: Exception, url: str) -> FetchError:
    """httpx's exceptions -> ours; the one place where that mapping lives."""
    if isinstance(exc, FetchError):
        return exc
    if isinstance(exc, LocalAddressRefused):  # (fetch/connect.py: never retried)
        return ContentError(
            f"{exc.host} answered {exc.address}, an address on this machine or its local network, when connecting, though it "
            "answered a public one when checked (DNS rebinding); refused (if that is really where the source lives, cite it directly)",
            url=url,
        )
    if isinstance(exc, httpx.TimeoutException):
        return TransportError(f"timed out ({type(exc).__name__}); the server is slow or unreachable, retry later", url=url)
    if isinstance(exc, httpx.TransportError):  # connect, read, write, protocol, proxy, unsupported protocol
        return TransportError(f"connection failed ({type(exc).__name__}: {exc or 'no detail'})", url=url)
    if isinstance(exc, httpx.DecodingError):
        return ContentError(f"the body could not be decoded ({exc})", url=url)
    if isinstance(exc, httpx.TooManyRedirects):
        return ContentError("too many redirects", url=url)
    if isinstance(exc, (httpx.InvalidURL, httpx.UnsupportedProtocol)):
        return ContentError(f"not a URL that can be fetched ({exc})", url=url)
    if isinstance(exc, httpx.HTTPError):
        return TransportError(f"HTTP error ({type(exc).__name__}: {exc})", url=url)
    if isinstance(exc, (TimeoutError, asyncio.TimeoutError)):
        return TransportError("took longer than the total timeout; raise fetch.total_timeout or retry later", url=url)
    if isinstance(exc, OSError):
        return ContentError(f"cannot write the download ({exc.strerror or exc})", url=url)
    raise exc


def apply_rewrites(url: str, rewrites: tuple[tuple[str, str], ...]) -> str:
    for src, dst in rewrites:
        if url.startswith(src):
            return dst + url[len(src) :]
    return url


def candidates(url: str, options: FetchOptions) -> list[str]:
    """The URL after rewrites, then each fallback that applies, without repeats."""
    primary = apply_rewrites(url, options.rewrites)
    found = [primary]
    for src, dst in options.fallbacks:
        if primary.startswith(src):
            alt = dst + primary[len(src) :]
            if alt not in found:
                found.append(alt)
    return found


def _check_scheme(url: str) -> None:
    if urlsplit(url).scheme not in ("http", "https") or not urlsplit(url).hostname:
        raise ContentError("only http(s) URLs are fetched", url=url)


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    host = host.strip("[]")
    try:
        return ipaddress.ip_address(int(host) if host.isdigit() else host)  # http://2130706433/ is 127.0.0.1
    except ValueError:
        return None


def is_local_address(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Loopback, private, link-local, unspecified or reserved: this machine or its network."""
    mapped = getattr(address, "ipv4_mapped", None)
    if mapped is not None:
        address = mapped
    return address.is_loopback or address.is_private or address.is_link_local or address.is_unspecified or address.is_reserved or address.is_multicast


def is_local_host(host: str) -> bool:
    """True for `localhost` names and for IP literals in local ranges (no DNS lookup)."""
    host = host.lower().rstrip(".")
    if host == "localhost" or host.endswith(".localhost"):
        return True
    address = _address(host)
    return address is not None and is_local_address(address)


async def _resolves_local(host: str) -> bool:
    """Whether a host name resolves to a local address (False when it does not resolve at all)."""
    try:
        answers = await connect.resolve(host, 0)
    except (OSError, UnicodeError):
        return False
    return any(is_local_address(ipaddress.ip_address(checked)) for _address, checked in answers)


PUBLIC_TTL = 60.0  # seconds a host found public is trusted before it is resolved again


class HostVerdicts:
    """Whether each host name resolves into this machine or its network, asked once per host per
    run (a page's twenty images on a CDN cost one lookup, not twenty); lookups of one host at the
    same time share one.

    DNS rebinding: a name can answer a public address now and 127.0.0.1 a moment later. A
    local answer therefore stands for the whole run (the host stays refused even if it later
    answers a public address), and a public one only for PUBLIC_TTL seconds, after which the
    host is resolved again. The check alone is no proof against rebinding (the name is resolved
    again when connecting): every host found public joins `guarded`, whose connections resolve
    the name themselves and go only to addresses found public then (fetch/connect.py). A host
    found local is not guarded: the check refuses what a public page asks of it, and a source
    the user cites there (an intranet wiki) connects as any cited host does.
    """

    def __init__(self, ttl: float = PUBLIC_TTL):
        self.ttl = ttl
        self.guarded: set[str] = set()
        self._local: set[str] = set()
        self._public_until: dict[str, float] = {}
        self._asking: dict[str, asyncio.Future[bool]] = {}

    def mark_local(self, host: str) -> None:
        """A guarded host answered a local address when connecting: refused for the rest of the run."""
        self._local.add(connect.host_key(host))

    async def __call__(self, host: str) -> bool:
        # One key for every spelling of a name (connect.host_key): the connection reports a host by its
        # IDNA form, a URL may spell it in Unicode, in capitals or with a final dot. Keyed as spelled,
        # a host refused when connecting stayed "checked, public" to the check under its URL's spelling.
        host = connect.host_key(host)
        if host in self._local:
            return True
        if time.monotonic() < self._public_until.get(host, 0.0):
            return False
        asking = self._asking.get(host)
        if asking is None:
            asking = self._asking[host] = asyncio.ensure_future(self._ask(host))
        local = await asyncio.shield(asking)  # one caller cancelled does not cancel the others' lookup
        if not local:
            # Only a host found public is guarded, before the request this verdict lets through connects.
            # A local one is refused here already; guarding it too would refuse the user's own citation
            # of it (an intranet wiki a public page also names) for the rest of the run.
            self.guarded.add(host)
        return local

    async def _ask(self, host: str) -> bool:
        try:
            local = await _resolves_local(host)
        finally:
            del self._asking[host]
        if local:
            self._local.add(host)
        else:
            self._public_until[host] = time.monotonic() + self.ttl
        return local


def user_hosts(options: FetchOptions) -> frozenset[str]:
    """Hosts the user's own `rewrites:`/`fallbacks:` send requests to: redirects there are wanted."""
    return frozenset((urlsplit(dst).hostname or "").lower() for _src, dst in (*options.rewrites, *options.fallbacks))


async def check_redirect(origin: str, target: str, allowed: frozenset[str], how: str = "redirected from a public host to",
                         resolves_local: Callable[[str], Awaitable[bool]] | None = None) -> None:
    """ContentError when a redirect leads from a public host into this machine or its network.

    A cited page on the internet that answers 302 to http://127.0.0.1:8080/admin (or
    169.254.169.254, a cloud's metadata service) must not be mirrored and published.
    Requests that start local (a test server, a mirror the user rewrote to) may redirect
    anywhere; so may a redirect to a host the user's rewrites or fallbacks name. The same check
    holds for what a page names (its images, stylesheets, fonts: `download(referrer=)`).
    `resolves_local`: the run's HostVerdicts (a lookup per call without one).
    """
    origin_host = (urlsplit(origin).hostname or "").lower()
    target_host = (urlsplit(target).hostname or "").lower()
    if is_local_host(origin_host) or target_host in allowed or target_host == origin_host:
        return
    if is_local_host(target_host) or (_address(target_host) is None and await (resolves_local or _resolves_local)(target_host)):
        raise ContentError(
            f"{how} {target_host}, an address on this machine or its local network; refused "
            "(if that is really where the source lives, cite it directly or add a `rewrites:` entry pointing there)",
            url=target,
        )


class _Decoder:
    """Content-Encoding undone in bounded steps: no single call may yield more than CHUNK bytes."""

    def __init__(self, encoding: str, url: str):
        encoding = encoding.strip().lower()
        self.url = url
        if encoding in ("", "identity"):
            self._z = None
        elif encoding in ("gzip", "x-gzip"):
            self._z = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif encoding == "deflate":
            self._z = zlib.decompressobj()
        else:
            raise ContentError(f"unsupported Content-Encoding '{encoding}'", url=url)

    def feed(self, data: bytes) -> list[bytes]:
        if self._z is None:
            return [data]
        out = []
        try:
            while data:
                out.append(self._z.decompress(data, CHUNK))
                data = self._z.unconsumed_tail
        except zlib.error as exc:
            raise ContentError(f"corrupt compressed body ({exc})", url=self.url) from exc
        return out

    def flush(self) -> bytes:
        if self._z is None:
            return b""
        rest = self._z.flush()
        if not self._z.eof:
            # A gzip/deflate stream cut short decodes to a prefix (often nothing) without any
            # zlib error: taken as complete, it would replace a good mirror with that prefix.
            raise ContentError("the compressed body ends before its end marker (truncated or corrupt); the previous mirror is kept", url=self.url)
        return rest


def retry_after_seconds(headers: dict[str, str], now: float | None = None) -> float | None:
    """The wait a `Retry-After` header asks for, in seconds (None when absent or unreadable).

    RFC 9110 section 10.2.3 allows delay-seconds (`120`) or an HTTP-date
    (`Wed, 21 Oct 2026 07:28:00 GMT`). A date is measured from the response's own `Date`
    header when it has one, so a server whose clock differs from ours still gets the wait
    it meant; a date already past asks for none. The caller caps it (fetch.max_backoff).
    """
    value = headers.get("retry-after", "").strip()
    if value.isdigit():
        return float(value)
    when = _http_date(value)
    if when is None:
        return None
    sent = _http_date(headers.get("date", "").strip())
    reference = sent if sent is not None else (time.time() if now is None else now)
    return max(0.0, when - reference)


def _http_date(text: str) -> float | None:
    """An HTTP-date (IMF-fixdate, or the obsolete RFC 850 and asctime forms) as a POSIX time."""
    if not text:
        return None
    try:
        parsed = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if parsed.tzinfo is None:  # asctime has no zone: HTTP dates are always GMT
        parsed = parsed.replace(tzinfo=dt.UTC)
    return parsed.timestamp()


async def _drain(response: httpx.Response, limit: int = CHUNK) -> None:
    """Read a small body to its end, so the connection goes back to the pool.

    Closing a streamed response that was not read to the end closes its connection:
    every 304 of a refresh then paid a new TCP connection. Bodies over `limit` (a
    redirect's page, rarely) are not worth reading; that connection is closed.
    """
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) <= limit:
        await response.aread()


class HttpClient:
    """One per run: a shared connection pool and a per-host limit."""

    def __init__(self, options: FetchOptions, *, transport: httpx.AsyncBaseTransport | None = None):
        self.options = options
        timeout = httpx.Timeout(connect=options.connect_timeout, read=options.read_timeout, write=options.read_timeout, pool=None)
        # A source has one request in flight at a time, so `jobs` connections suffice. More only
        # cost time: httpcore polls every idle pooled connection for liveness on each request.
        # That poll (a select() and a getpeername() per idle connection, twice per request) grows
        # with the pool: at 16 connections it took ~0.7 ms of event-loop CPU per request. So the
        # connections are split over several clients of at most _SHARD connections; a request
        # goes to the least busy one, which always has a free connection (see _pick), and only
        # that client's few idle connections are polled. They share one cookie jar and one SSL
        # context, so the run still behaves as one client. A transport passed in (tests) gets
        # a single client.
        shards = 1 if transport is not None else -(-options.jobs // _SHARD)
        pool = -(-options.jobs // shards)
        limits = httpx.Limits(max_connections=pool, max_keepalive_connections=pool)
        self._shards: list[httpx.AsyncClient | None] = [None] * shards
        self._busy = [0] * shards
        self._shared: tuple[httpx.Cookies, bool | ssl.SSLContext] | None = None

        def make_client() -> httpx.AsyncClient:
            if self._shared is None:
                verify = True if transport is not None else httpx.create_ssl_context()
                self._shared = (httpx.Cookies(), verify)
            cookies, verify = self._shared
            # Redirects are followed by hand: each hop is checked (scheme, count) and recorded.
            client = httpx.AsyncClient(
                timeout=timeout, limits=limits, follow_redirects=False, transport=transport, verify=verify,
                headers={"User-Agent": options.user_agent},
            )
            client.cookies.jar = cookies.jar  # one jar for the run, whichever client a request uses
            if transport is None:  # a checked host is connected to at an address found public (DNS rebinding)
                connect.install(client, self._backend)
            return client

        self._make_client = make_client
        self._hosts: dict[str, asyncio.Semaphore] = {}
        self._user_hosts = user_hosts(options)
        self._verdicts = HostVerdicts()
        self._backend = connect.PinnedBackend(self._verdicts.guarded, is_local_address, self._verdicts.mark_local)

    def _pick(self) -> int:
        """The least busy client. Requests in flight never exceed `jobs` = the sum of the clients'
        pools, so the least busy one has a free connection and nothing waits for one."""
        index = min(range(len(self._busy)), key=self._busy.__getitem__)
        # Created on first use: a run whose sources were all checked recently sends nothing,
        # and building a client (its SSL context) is a noticeable part of such a run.
        if self._shards[index] is None:
            self._shards[index] = self._make_client()
        return index

    async def aclose(self) -> None:
        for client in self._shards:
            if client is not None:
                await client.aclose()

    async def probe(self, method: str, url: str, headers: dict[str, str] | None = None, *, max_body: int = 0) -> tuple[int, dict[str, str], bytes]:
        """One request, redirects not followed, at most `max_body` decoded body bytes read.

        For the link checker (HEAD, ranged GET, robots.txt): same pool, per-host limit and
        error translation as downloads, without retries or files.
        """
        _check_scheme(url)
        index = self._pick()
        self._busy[index] += 1
        try:
            async with self._host_limit(url):
                async with asyncio.timeout(self.options.connect_timeout + self.options.read_timeout):
                    client = self._shards[index]
                    assert client is not None
                    request = client.build_request(method, url, headers={"Accept-Encoding": "gzip, deflate", **(headers or {})})
                    response = await client.send(request, stream=True)
                    try:
                        rheaders = {k.lower(): v for k, v in response.headers.items()}
                        body = bytearray()
                        if method == "HEAD":
                            # Reading the (empty) body completes the exchange, so the connection
                            # goes back to the pool instead of being closed (see _drain).
                            await response.aread()
                        elif max_body:
                            decoder = _Decoder(rheaders.get("content-encoding", ""), url)
                            async for chunk in response.aiter_raw(CHUNK):
                                for piece in decoder.feed(chunk):
                                    body += piece
                                if len(body) >= max_body:
                                    break
                        return response.status_code, rheaders, bytes(body[:max_body])
                    finally:
                        await response.aclose()
        except Exception as raw:
            exc = translate(raw, url)
            if exc is raw:
                raise
            raise exc from raw
        finally:
            self._busy[index] -= 1

    def _host_limit(self, url: str) -> asyncio.Semaphore:
        host = (urlsplit(url).hostname or "").lower()
        if host not in self._hosts:
            self._hosts[host] = asyncio.Semaphore(self.options.per_host)
        return self._hosts[host]

    async def download(
        self,
        url: str,
        dest: Path,
        log: AttemptLog,
        *,
        etag: str = "",
        last_modified: str = "",
        accept: str = "*/*",
        keep_raw: bool | None = None,
        on_bytes: Callable[[int], None] | None = None,
        referrer: str = "",
    ) -> Download:
        """Fetch `url` (rewritten, with fallbacks) into `dest`; raise a FetchError when every candidate failed.

        `referrer`: the page that names `url` (an image, a stylesheet); a public page may not
        name an address on this machine or its network (check_redirect)."""
        last: FetchError | None = None
        for candidate in candidates(url, self.options):
            if referrer:
                await check_redirect(referrer, candidate, self._user_hosts, how="a page on a public host names", resolves_local=self._verdicts)
            try:
                return await self._with_retries(candidate, dest, log, etag, last_modified, accept, self.options.warc if keep_raw is None else keep_raw, on_bytes)
            except (TransportError, HTTPStatusError) as exc:
                last = exc  # the next fallback may answer
        assert last is not None
        raise last

    async def _with_retries(self, url, dest, log, etag, last_modified, accept, keep_raw, on_bytes) -> Download:
        options = self.options
        deadline = time.monotonic() + options.total_timeout
        for attempt in range(options.retries + 1):
            retry_after = None
            try:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError
                async with self._host_limit(url):
                    async with asyncio.timeout(remaining):
                        result = await self._once(url, dest, etag, last_modified, accept, keep_raw, on_bytes)
                log.add(url, "not-modified" if result.not_modified else "ok", result.status)
                return result
            except Exception as raw:
                exc = translate(raw, url)
                status = getattr(exc, "status", 0)
                log.add(url, f"http-{status}" if status else type(exc).__name__.removesuffix("Error").lower(), status, str(exc))
                retryable = isinstance(exc, TransportError) or (isinstance(exc, HTTPStatusError) and status in _RETRY_STATUS)
                if isinstance(raw, (TimeoutError, asyncio.TimeoutError)) or not retryable or attempt == options.retries:
                    if exc is raw:
                        raise
                    raise exc from raw
                retry_after = getattr(exc, "retry_after", None)
            delay = min(options.max_backoff, options.backoff * 2**attempt) * (0.5 + random.random())
            if retry_after is not None:
                delay = max(delay, min(retry_after, options.max_backoff))
            if time.monotonic() + delay > deadline:
                raise TransportError(f"gave up after {attempt + 1} tries within the total timeout ({options.total_timeout:g}s)", url=url)
            await asyncio.sleep(delay)
        raise AssertionError("unreachable")

    async def _once(self, url, dest: Path, etag, last_modified, accept, keep_raw, on_bytes) -> Download:
        index = self._pick()
        self._busy[index] += 1
        try:
            return await self._hops(self._shards[index], url, dest, etag, last_modified, accept, keep_raw, on_bytes)  # type: ignore[arg-type]
        finally:
            self._busy[index] -= 1

    async def _hops(self, client: httpx.AsyncClient, url, dest: Path, etag, last_modified, accept, keep_raw, on_bytes) -> Download:
        options = self.options
        redirects: list[str] = []
        exchanges: list[Exchange] = []
        current = url
        for _hop in range(options.max_redirects + 1):
            _check_scheme(current)
            headers = {"Accept": accept, "Accept-Encoding": "gzip, deflate"}
            if etag:
                headers["If-None-Match"] = etag
            if last_modified:
                headers["If-Modified-Since"] = last_modified
            request = client.build_request("GET", current, headers=headers)
            response = await client.send(request, stream=True)
            try:
                rheaders = {k.lower(): v for k, v in response.headers.items()}
                exchange = {
                    "url": current,
                    "request_headers": tuple(request.headers.items()),
                    "status": response.status_code,
                    "reason": response.reason_phrase,
                    "http_version": response.http_version,
                    "response_headers": tuple(response.headers.multi_items()),
                    "at": utc_stamp(),
                }
                if response.status_code in _REDIRECTS and "location" in rheaders:
                    await _drain(response)
                    exchanges.append(Exchange(payload=None, **exchange))
                    redirects.append(current)
                    target = urljoin(current, rheaders["location"])
                    await check_redirect(url, target, self._user_hosts, resolves_local=self._verdicts)
                    if blocked.is_login_redirect(target):
                        raise HTTPStatusError(f"redirected to a login page ({target})" + blocked.hint("the page is behind a login wall"), url=url, status=response.status_code)
                    current = target
                    continue
                if response.status_code == 304:
                    await _drain(response)
                    exchanges.append(Exchange(payload=None, **exchange))
                    return Download(url, current, tuple(redirects), 304, rheaders, not_modified=True, exchanges=tuple(exchanges))
                if response.status_code >= 400:
                    note = await blocked.note_for(response)  # 401/403/CAPTCHA: say that `attach` exists
                    error = HTTPStatusError(f"HTTP {response.status_code} {response.reason_phrase}".strip() + note, url=current, status=response.status_code)
                    error.retry_after = retry_after_seconds(rheaders)  # type: ignore[attr-defined]
                    raise error
                if response.status_code != 200:
                    raise HTTPStatusError(f"unexpected HTTP {response.status_code}", url=current, status=response.status_code)
                size, digest, raw_path = await self._stream_body(response, current, dest, keep_raw, on_bytes)
                exchanges.append(Exchange(payload=raw_path, **exchange))
                return Download(url, current, tuple(redirects), 200, rheaders, path=dest, bytes=size, sha256=digest, exchanges=tuple(exchanges))
            finally:
                await response.aclose()
        raise ContentError(f"more than {options.max_redirects} redirects", url=url)

    async def _stream_body(self, response: httpx.Response, url: str, dest: Path, keep_raw: bool, on_bytes) -> tuple[int, str, Path | None]:
        options = self.options
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > options.max_bytes:
            raise ContentError(f"body of {int(declared):,} bytes exceeds the size cap of {options.max_bytes:,}; raise fetch.max_bytes", url=url)
        decoder = _Decoder(response.headers.get("content-encoding", ""), url)
        digest = hashlib.sha256()
        raw_total = decoded_total = 0
        dest.parent.mkdir(parents=True, exist_ok=True)
        encoded = decoder._z is not None
        raw_path = raw_twin(dest) if keep_raw and encoded else (dest if keep_raw else None)
        # Chunks are written as they arrive, to the page cache: a thread hop per chunk would cost
        # more than the write itself, and the download slot is held for the body either way.
        raw_file = open(raw_path, "wb") if raw_path is not None and raw_path != dest else None  # noqa: ASYNC230, SIM115 (closed in finally)
        try:
            with open(dest, "wb") as out:  # noqa: ASYNC230

                def keep(piece: bytes, total: int) -> int:
                    """Write decoded bytes, stopping a compression bomb at the decoded cap."""
                    total += len(piece)
                    if total > options.max_decoded_bytes:
                        raise ContentError(f"decompressed body exceeds {options.max_decoded_bytes:,} bytes (a compression bomb?); stopped", url=url)
                    digest.update(piece)
                    out.write(piece)
                    return total

                async for chunk in response.aiter_raw(CHUNK):
                    raw_total += len(chunk)
                    if raw_total > options.max_bytes:
                        raise ContentError(f"body exceeds the size cap of {options.max_bytes:,} bytes; raise fetch.max_bytes", url=url)
                    if raw_file:
                        raw_file.write(chunk)
                    for piece in decoder.feed(chunk):
                        decoded_total = keep(piece, decoded_total)
                    if on_bytes:
                        on_bytes(len(chunk))
                decoded_total = keep(decoder.flush(), decoded_total)
        except BaseException:
            dest.unlink(missing_ok=True)  # noqa: ASYNC240 (cleanup on the failure path)
            if raw_path is not None and raw_path != dest:
                raw_path.unlink(missing_ok=True)
            raise
        finally:
            if raw_file:
                raw_file.close()
        return decoded_total, digest.hexdigest(), raw_path
