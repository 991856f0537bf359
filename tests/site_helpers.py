"""Build sites in temporary folders and serve them on 127.0.0.1 for the tests."""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.corpus_fixture import PROJECT_ROOT

# Debian's chromium, driven by Playwright (its own browser download is never used).
CHROMIUM = os.environ.get("CORPUS_BUILD_CHROMIUM", "/usr/bin/chromium")


def playwright_or_skip(*, module: bool = False) -> ModuleType:
    """playwright.sync_api, or a skip with the reason printed; in CI a missing Chromium is an error."""
    if not shutil.which(CHROMIUM):
        if os.environ.get("CI"):
            raise RuntimeError(f"{CHROMIUM} is missing: .ci/run installs Debian's chromium; browser tests must run in CI")
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)", allow_module_level=module)
    return pytest.importorskip("playwright.sync_api")


def copy_default_project(target: Path) -> Path:
    """The repository's own corpus, mkdocs.yml and assets, copied so builds never touch the work tree."""
    shutil.copytree(PROJECT_ROOT / "corpus", target / "corpus", ignore=shutil.ignore_patterns("raw", ".watch"))
    shutil.copy(PROJECT_ROOT / "mkdocs.yml", target / "mkdocs.yml")
    (target / "docs").mkdir(exist_ok=True)
    return target


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    delay = 0.0

    def log_message(self, *args) -> None:
        pass

    def send_head(self):  # type: ignore[no-untyped-def]
        if self.delay:
            time.sleep(self.delay)  # a real network's round trip before each answer
        return super().send_head()


class _QuietServer(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address) -> None:  # type: ignore[no-untyped-def]
        import sys

        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):  # the browser went on: not an error
            super().handle_error(request, client_address)


@contextlib.contextmanager
def serve(directory: Path, delay: float = 0.0):
    """Serve a built site at http://127.0.0.1:<free port>/ for the duration of the block
    (delay: seconds each answer waits, as a round trip on a real network would)."""
    handler = functools.partial(type("_Handler", (_QuietHandler,), {"delay": delay}), directory=str(directory))
    server = _QuietServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/"
    finally:
        server.shutdown()
        server.server_close()


def recorded_files(raw: Path, names: list[str]) -> tuple:
    """Provenance entries for files a test wrote into a mirror folder, hashed as the fetch stage hashes them."""
    from corpus_build.core.provenance import OutputFile
    from corpus_build.fetch.records import swhid_of_file

    out = []
    for name in names:
        sha256, swhid, size = swhid_of_file(raw / name)
        out.append(OutputFile(name, size, sha256, swhid))
    return tuple(out)


@contextlib.contextmanager
def chromium(sync_api: ModuleType) -> Iterator[Any]:
    """Debian's Chromium through Playwright, launched as the browser tests launch it."""
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
        )
        try:
            yield browser
        finally:
            browser.close()


def box_font(family: str, codes, *, advance: int, margin: int, height: int, ascent: int) -> bytes:
    """A TrueType font made here (fontTools), never downloaded: every character of `codes` one box,
    `margin` from either side of its `advance` and `height` tall, in a 1000-unit em."""
    import io

    builder = pytest.importorskip("fontTools.fontBuilder")
    from fontTools.pens.ttGlyphPen import TTGlyphPen

    pen = TTGlyphPen(None)
    pen.moveTo((margin, 0))
    pen.lineTo((margin, height))
    pen.lineTo((advance - margin, height))
    pen.lineTo((advance - margin, 0))
    pen.closePath()
    fb = builder.FontBuilder(1000, isTTF=True)
    fb.setupGlyphOrder([".notdef", "box"])
    fb.setupCharacterMap(dict.fromkeys(codes, "box"))
    fb.setupGlyf({".notdef": TTGlyphPen(None).glyph(), "box": pen.glyph()})
    fb.setupHorizontalMetrics({".notdef": (500, 0), "box": (advance, margin)})
    fb.setupHorizontalHeader(ascent=ascent, descent=ascent - 1000)
    fb.setupNameTable({"familyName": family, "styleName": "Regular"})
    fb.setupOS2(sTypoAscender=ascent, sTypoDescender=ascent - 1000, usWinAscent=ascent, usWinDescent=1000 - ascent)
    fb.setupPost()
    out = io.BytesIO()
    fb.save(out)
    return out.getvalue()


def search_box(page: Any, query: str, settle_ms: int = 300) -> list[dict]:
    """Type `query` into Material's search box and return the results' links (href, inner HTML)."""
    box = page.locator("input.md-search__input")
    box.click()
    box.fill(query)
    box.press("End")  # a key event, as typing gives: Material searches on keyup
    page.wait_for_selector(".md-search-result__item", timeout=15_000)
    page.wait_for_timeout(settle_ms)
    return page.locator(".md-search-result__item a.md-search-result__link").evaluate_all(
        "links => links.map(a => ({href: a.href, html: a.innerHTML}))")
