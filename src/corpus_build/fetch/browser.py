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
Only http(s) requests leave; media and websockets are refused, and so are requests to
loopback and private addresses unless the page itself lives on one. The browser
runs with its own throw-away profile and is closed after each page.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
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
    """Load `body` as the page at `url`, let its scripts run, return the DOM (and write a full-page PNG).

    `load_timeout` bounds each of Playwright's page steps (load, screenshot); the whole render is
    bounded by asyncio.timeout below, with room for the settle time and Chromium's start.
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
    pending: list[asyncio.Task] = []
    budget = {"bytes": _MAX_RECORDED_BYTES, "responses": 0}

    async def keep(response) -> None:
        """A response the page used, its body in a hidden file of `record_dir` (deleted once in the WARC)."""
        request = response.request
        if urldefrag(request.url)[0] == document and request.resource_type == "document":
            return  # the page itself: already in the WARC as the server sent it
        try:
            data = await response.body()
        except PlaywrightError:  # a redirect, or a body Chromium did not keep
            data = b""
        # Responses are kept concurrently: a response takes its place and its file name before any
        # await, so two of them never share a name (len(recorded) grows only after the awaits).
        if budget["responses"] >= _MAX_RECORDED or len(data) > budget["bytes"]:
            return
        budget["bytes"] -= len(data)
        budget["responses"] += 1
        payload = record_dir / f".rendered-{budget['responses'] - 1:04d}" if record_dir is not None else None
        # Headers first: a response whose headers cannot be read leaves no body file behind.
        headers = tuple((k, v) for k, v in (await response.all_headers()).items() if k.lower() not in _DECODED_DROP)
        sent = tuple((await request.all_headers()).items())
        if payload is not None:
            await asyncio.to_thread(payload.write_bytes, data)
        recorded.append(Exchange(url=request.url, request_headers=sent, status=response.status,
                                 reason=response.status_text, http_version="HTTP/1.1", response_headers=headers,
                                 payload=payload, at=utc_stamp()))

    async def route(request_route) -> None:
        nonlocal served
        request = request_route.request
        if not served and request.resource_type == "document" and urldefrag(request.url)[0] == document:
            served = True
            await request_route.fulfill(status=200, body=body, headers={"Content-Type": content_type or "text/html; charset=utf-8"})
        elif (urlsplit(request.url).scheme not in ("http", "https") or request.resource_type in ("media", "websocket", "eventsource")
              or (_private(request.url) and not page_is_private)):
            await request_route.abort()
        else:
            await request_route.continue_()

    try:
        async with asyncio.timeout(load_timeout + settle + 30):
            async with async_playwright() as playwright:
                browser = await playwright.chromium.launch(executable_path=executable, headless=True,
                                                           args=["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"])
                try:
                    context = await browser.new_context(user_agent=user_agent or None, viewport={"width": 1280, "height": 900},
                                                        service_workers="block", accept_downloads=False)
                    page = await context.new_page()
                    await page.route("**/*", route)
                    if record_dir is not None:
                        page.on("response", lambda response: pending.append(asyncio.ensure_future(keep(response))))
                    await page.goto(url, wait_until="load", timeout=load_timeout * 1000)
                    with contextlib.suppress(PlaywrightTimeout):  # content fetched by script: wait until the network is quiet, but not forever
                        await page.wait_for_load_state("networkidle", timeout=settle * 1000)
                    html = await page.content()
                    if pending:
                        await asyncio.gather(*pending, return_exceptions=True)  # bodies read before the browser closes
                    shot = False
                    if screenshot is not None:
                        height = await page.evaluate("Math.max(document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0)")
                        shot = await _capture_webp(page, screenshot, min(max(int(height), 1), _MAX_SCREENSHOT_HEIGHT), load_timeout)
                    version = browser.version
                finally:
                    await browser.close()
    except (PlaywrightError, TimeoutError) as exc:
        for exchange in recorded:  # a failed render leaves no hidden body files in the mirror
            if exchange.payload is not None:
                exchange.payload.unlink(missing_ok=True)
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ContentError(f"rendering in Chromium failed ({message})", url=url) from exc
    playwright_version = package_version("playwright")
    return Rendered(html=html, screenshot=shot, renderer=f"chromium {version} (playwright {playwright_version})",
                    versions={"chromium": version, "playwright": playwright_version}, exchanges=tuple(recorded))


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

