"""Rendering JavaScript shell pages in headless Chromium (through Playwright).

Playwright is an optional extra (`pip install 'corpus-build[browser]'`) and Chromium
comes from the system (Debian's `chromium`): the site build and most fetches never
need either, and a ~100 MB browser download is not something a registry tool should
pull in by default. Without them, a shell page is mirrored as `partial` with the
reason, never as `ok` (see kinds/html.py).

The page is loaded from the bytes already downloaded (the main document request is
answered from the mirror, so the rendered DOM belongs to the captured page); its
scripts and their requests go to the network as in a browser, within the fetch
timeouts (but outside its byte caps and per-host limits: a browser fetches as it likes).
A public page's requests to loopback and private addresses (and localhost) are refused,
as are its media and event streams there. Only those and the page itself pass through
Python: a request decided here costs a round trip to the browser, and a page polling in a
loop made thousands of them, queuing the browser's every answer behind its own.
The browser runs with its own throw-away profile and is closed after each page.

A page whose scripts fetch without end (a poll in a loop, an image a millisecond) is bounded:
its DOM is taken once `load` fired or the load time ran out, whichever is first, and once the
network is quiet or the settle time ran out; then the context goes offline, so nothing more
leaves. The responses kept for the WARC are counted before their bodies are read (at most
_MAX_RECORDED, _MAX_RECORDED_BYTES), and every task started for them is finished, or
cancelled and awaited, before the browser closes: no "Task exception was never retrieved"
when the page outlives its reader.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import re
import shutil
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import urldefrag, urlsplit

from ..core.errors import ContentError
from ..core.provenance import utc_stamp
from .base import package_version
from .http import Exchange

# Lossy WebP, asked of Chromium itself (DevTools' Page.captureScreenshot; Playwright writes only
# PNG or JPEG). Measured by scripts/bench_screenshot.py: 0.77x the PNG's bytes for a text page,
# 0.39x for one with images, where JPEG at the same quality was 1.16x and 0.51x (issue 21).
SCREENSHOT = "screenshot.webp"
_SCREENSHOT_QUALITY = 70
RENDERED = "rendered.html"
_MAX_SCREENSHOT_HEIGHT = 16_000  # pixels; taller pages are cut (WebP's limit is 16,383)
_SCREENSHOT_WIDTH = 1280  # the viewport's
# Bounds on what the WARC keeps of a rendered page's own requests.
_MAX_RECORDED = 300  # responses
_MAX_RECORDED_BYTES = 32 * 1024 * 1024
# URLs whose host is an address literal or localhost: the only requests of a public page that
# are looked at (host names are not resolved here: see _private).
_LOCAL_HOST = re.compile(r"^[a-z][a-z0-9+.-]*://(?:[^/?#@]*@)?(?:\[[^\]]*\]|[0-9.]+|localhost|[^/?#:]*\.localhost)\.?(?::[0-9]*)?(?:[/?#]|$)", re.IGNORECASE)
# The rendered DOM kept: a script appending to the page forever must not fill the memory.
_MAX_RENDERED_CHARS = 32 * 1024 * 1024
# Playwright hands over bodies decoded: the WARC must not claim an encoding or length they lost.
_DECODED_DROP = {"content-encoding", "content-length", "transfer-encoding"}


@dataclass(frozen=True)
class Rendered:
    html: str
    screenshot: bool
    renderer: str  # "chromium 131.0.6778.85 (playwright 1.49.0)"
    versions: dict[str, str]
    # Every response the page's scripts and styles used (its JSON, CSS, images), for the WARC:
    # without them a replay shows the shell the server sent, not the page (issue 21).
    exchanges: tuple[Exchange, ...] = ()


def find_chromium(configured: str = "") -> str:
    """The Chromium binary to use, or "" when there is none. A configured one is the only
    candidate: a wrong CORPUS_BUILD_CHROMIUM must be reported, not quietly replaced."""
    for candidate in (configured,) if configured else ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(candidate)
        if found:
            return found
    return ""


def unavailable(configured: str = "") -> str:
    """Why no page can be rendered here ("" when one can)."""
    try:
        import playwright.async_api  # noqa: F401
    except ImportError:
        return "Playwright is not installed (pip install 'corpus-build[browser]')"
    if not find_chromium(configured):
        if configured:
            return f"no Chromium at {configured} (check CORPUS_BUILD_CHROMIUM)"
        return "no Chromium found (apt-get install chromium, or set CORPUS_BUILD_CHROMIUM)"
    return ""


async def render(url: str, body: bytes, content_type: str, screenshot: Path | None, *, chromium: str = "",
                 user_agent: str = "", load_timeout: float = 30.0, settle: float = 5.0, record_dir: Path | None = None) -> Rendered:
    """Load `body` as the page at `url`, let its scripts run, return the DOM (and write a full-page WebP).

    `load_timeout` bounds the load and the screenshot, `settle` the wait for a quiet network and
    the reading of the bodies kept for the WARC; the whole render is bounded by asyncio.timeout
    below, with room for Chromium's start.
    """
    from playwright.async_api import Error as PlaywrightError
    from playwright.async_api import TimeoutError as PlaywrightTimeout
    from playwright.async_api import async_playwright

    executable = find_chromium(chromium)
    if not executable:
        raise ContentError("no Chromium to render the page with", url=url)
    document = urldefrag(url)[0]
    served = False
    page_is_private = _private(url)
    recorded: list[Exchange] = []
    budget = {"bytes": _MAX_RECORDED_BYTES}
    closing = asyncio.Event()  # set once the page is taken off the network: nothing more is kept
    page: Any = None  # Playwright's Page, BrowserContext and CDPSession, once made
    context: Any = None
    session: Any = None

    seen: list[Any] = []  # the responses to keep for the WARC, in order; their bodies are read once the DOM is taken

    async def keep(response) -> tuple[bytes, Exchange] | None:
        """A response the page used: its body and its exchange for the WARC, or None when it is not kept."""
        request = response.request
        announced = response.headers.get("content-length", "")
        if announced.isdigit() and int(announced) > budget["bytes"]:
            return None  # known too big before a byte of it crosses to Python
        try:
            try:
                data = await response.body()
            except PlaywrightError:  # a redirect, or a body Chromium did not keep
                data = b""
            if len(data) > budget["bytes"]:
                return None
            headers = tuple((k, v) for k, v in (await response.all_headers()).items() if k.lower() not in _DECODED_DROP)
            sent = tuple((await request.all_headers()).items())
        except PlaywrightError:  # the page or the browser closed meanwhile
            return None
        budget["bytes"] -= len(data)
        return data, Exchange(url=request.url, request_headers=sent, status=response.status, reason=response.status_text,
                              http_version="HTTP/1.1", response_headers=headers, payload=None, at=utc_stamp())

    async def keep_all(deadline: float) -> None:
        """The bodies of the responses seen, one after another, until the deadline or the byte budget runs out.

        Read once the DOM is taken, one at a time: 300 bodies asked for at once, while the page
        loaded, held its DOM up for a minute. Each body goes to a hidden file of `record_dir`
        (deleted once in the WARC), written outside the deadline so no write is cut short.
        """
        for response in seen:
            if loop.time() >= deadline or budget["bytes"] <= 0:
                break
            kept = None
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(max(deadline - loop.time(), 0.01)):
                    kept = await keep(response)
            if kept is None:
                continue
            data, exchange = kept
            if record_dir is not None:
                payload = record_dir / f".rendered-{len(recorded):04d}"
                await asyncio.to_thread(payload.write_bytes, data)
                exchange = replace(exchange, payload=payload)
            recorded.append(exchange)

    def on_response(response) -> None:
        request = response.request
        if urldefrag(request.url)[0] == document and request.resource_type == "document":
            return  # the page itself: already in the WARC as the server sent it
        if not closing.is_set() and len(seen) < _MAX_RECORDED:
            seen.append(response)
        elif page is not None:
            page.remove_listener("response", on_response)  # Playwright then stops sending responses to Python

    async def off_the_network() -> None:
        """The page's scripts stopped and nothing more leaves (offline, a script polling in a loop would spin)."""
        closing.set()
        if page is not None:
            page.remove_listener("response", on_response)
        if session is not None:
            with contextlib.suppress(PlaywrightError):
                await session.send("Emulation.setScriptExecutionDisabled", {"value": True})
        if context is not None:
            with contextlib.suppress(PlaywrightError):
                await context.set_offline(True)

    async def serve_document(request_route) -> None:
        """The page itself, from the bytes already downloaded (asked again by a script, it goes to the network)."""
        nonlocal served
        try:
            if not served and request_route.request.resource_type == "document":
                served = True
                await request_route.fulfill(status=200, body=body, headers={"Content-Type": content_type or "text/html; charset=utf-8"})
            else:
                await request_route.continue_()
        except PlaywrightError:  # the page closed while the request waited
            pass

    async def guard(request_route) -> None:
        """A public page's request to an address literal or localhost: refused when the address is this machine's or its network's."""
        request = request_route.request
        try:
            if _private(request.url) or request.resource_type in ("media", "eventsource"):
                await request_route.abort()
            else:
                await request_route.continue_()
        except PlaywrightError:
            pass

    loop = asyncio.get_running_loop()
    try:
        async with asyncio.timeout(2 * load_timeout + 2 * settle + 30):
            async with async_playwright() as playwright:
                browser = await playwright.chromium.launch(executable_path=executable, headless=True,
                                                           args=["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"])
                try:
                    context = await browser.new_context(user_agent=user_agent or None, viewport={"width": 1280, "height": 900},
                                                        service_workers="block", accept_downloads=False)
                    page = await context.new_page()
                    session = await context.new_cdp_session(page)  # made now, while the page is quiet
                    # Only what needs a decision is routed through Python: the page itself and, for a
                    # public page, requests to address literals and localhost. Every other request goes
                    # out as from a browser, with no round trip here: a page polling in a loop queued the
                    # browser's answers to Python behind its own requests (60 s for a DOM read).
                    await page.route(re.compile("^" + re.escape(document) + "$"), serve_document)
                    if not page_is_private:
                        await page.route(_LOCAL_HOST, guard)
                    if record_dir is not None:
                        page.on("response", on_response)
                    started = loop.time()
                    await page.goto(url, wait_until="domcontentloaded", timeout=load_timeout * 1000)
                    # `load` waits for every image and frame: a page that keeps adding them never fires
                    # it. Its DOM is taken when the load time is up, as it stands then.
                    with contextlib.suppress(PlaywrightTimeout):
                        await page.wait_for_load_state("load", timeout=max(load_timeout - (loop.time() - started), 0.1) * 1000)
                    with contextlib.suppress(PlaywrightTimeout):  # content fetched by script: wait until the network is quiet, but not forever
                        await page.wait_for_load_state("networkidle", timeout=settle * 1000)
                    # What it has fetched by now is what it shows: its scripts are stopped and nothing
                    # more leaves before the DOM is read (a page polling in a loop kept the browser too
                    # busy to answer for a minute); then the bodies for the WARC, within the settle time.
                    await off_the_network()
                    size = await page.evaluate("document.documentElement ? document.documentElement.outerHTML.length : 0")
                    if int(size) > _MAX_RENDERED_CHARS:
                        raise ContentError(f"the rendered page is {int(size):,} characters long, over the limit of {_MAX_RENDERED_CHARS:,}", url=url)
                    html = await page.content()
                    shot = False
                    if screenshot is not None:
                        shot = await _screenshot(page, screenshot, load_timeout)
                    await keep_all(loop.time() + settle)
                    version = browser.version
                finally:
                    closing.set()
                    with contextlib.suppress(PlaywrightError):
                        await browser.close()
    except (PlaywrightError, TimeoutError, ContentError) as exc:
        _drop_unrecorded(record_dir, ())  # a failed render leaves no hidden body files in the mirror
        if isinstance(exc, ContentError):
            raise
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ContentError(f"rendering in Chromium failed ({message})", url=url) from exc
    _drop_unrecorded(record_dir, recorded)
    playwright_version = package_version("playwright")
    return Rendered(html=html, screenshot=shot, renderer=f"chromium {version} (playwright {playwright_version})",
                    versions={"chromium": version, "playwright": playwright_version}, exchanges=tuple(recorded))


def _drop_unrecorded(record_dir: Path | None, recorded) -> None:
    """Remove the hidden body files of responses that are not in `recorded`."""
    if record_dir is None:
        return
    kept = {exchange.payload for exchange in recorded}
    for path in record_dir.glob(".rendered-*"):
        if path not in kept:
            path.unlink(missing_ok=True)


def _private(url: str) -> bool:
    """A loopback, private or link-local address (or localhost): a public page's scripts must not
    reach services of the machine that fetches (its own addresses are another matter)."""
    host = (urlsplit(url).hostname or "").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_private or address.is_loopback or address.is_link_local or address.is_reserved


def render_html_sync(url: str, body: bytes, chromium: str = "") -> str:
    """The rendered DOM of `body` at `url` (for scripts/bench_extract.py); raises when no browser can run."""
    why = unavailable(chromium)
    if why:
        raise RuntimeError(why)
    with tempfile.TemporaryDirectory() as folder:
        return asyncio.run(render(url, body, "text/html; charset=utf-8", Path(folder) / SCREENSHOT, chromium=chromium)).html


async def _screenshot(page, target: Path, load_timeout: float) -> bool:
    """A full-page WebP of the rendered page; False (and no file) when Chromium gives none in time: the DOM is kept without it."""
    from playwright.async_api import Error as PlaywrightError

    try:
        height = await page.evaluate("Math.max(document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0)")
        return await _capture_webp(page, target, min(max(int(height), 1), _MAX_SCREENSHOT_HEIGHT), load_timeout)
    except (PlaywrightError, TimeoutError):
        await asyncio.to_thread(target.unlink, missing_ok=True)
        return False


async def _capture_webp(page, target: Path, height: int, load_timeout: float) -> bool:
    """The whole page (up to `height` pixels) as lossy WebP, written to `target`."""
    import base64

    session = await page.context.new_cdp_session(page)
    try:
        async with asyncio.timeout(load_timeout):
            shot = await session.send("Page.captureScreenshot", {
                "format": "webp", "quality": _SCREENSHOT_QUALITY, "captureBeyondViewport": True,
                "clip": {"x": 0, "y": 0, "width": _SCREENSHOT_WIDTH, "height": height, "scale": 1},
            })
    finally:
        await session.detach()
    data = base64.b64decode(shot.get("data", ""))
    if not data.startswith(b"RIFF"):
        return False  # Chromium gave no image: the mirror is kept without a screenshot
    await asyncio.to_thread(target.write_bytes, data)
    return True

