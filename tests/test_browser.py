"""The built default site in headless Chromium: search in Chinese and English, reading paths, links, isolation."""

from __future__ import annotations

import os
import shutil
from urllib.parse import urlsplit

import pytest

from tests.site_helpers import serve

CHROMIUM = os.environ.get("CORPUS_BUILD_CHROMIUM", "/usr/bin/chromium")
pytestmark = [pytest.mark.browser, pytest.mark.slow]

if not shutil.which(CHROMIUM):
    if os.environ.get("CI"):
        raise RuntimeError(f"{CHROMIUM} is missing: .ci/run installs Debian's chromium; browser tests must run in CI")
    pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)", allow_module_level=True)

sync_api = pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
        )
        yield browser
        browser.close()


@pytest.fixture
def site_page(browser, default_site):
    """A fresh page on the served default site; records console errors and every request's host."""
    site, corpus = default_site
    with serve(site) as base:
        context = browser.new_context()
        page = context.new_page()
        page.console_errors = []
        page.foreign_requests = []
        page.on("console", lambda m: m.type == "error" and page.console_errors.append(m.text))
        page.on("pageerror", lambda e: page.console_errors.append(str(e)))

        def check_origin(request):
            host = urlsplit(request.url).hostname
            if request.url.startswith(("data:", "blob:", "about:")):
                return
            if host != "127.0.0.1":
                page.foreign_requests.append(request.url)

        page.on("request", check_origin)
        page.base = base
        yield page, corpus
        context.close()


def search(page, term: str) -> list[str]:
    box = page.locator("input.md-search__input")
    box.click()
    box.fill(term)
    box.press("End")  # Material searches on keyup; fill() sends no key events
    page.wait_for_selector(".md-search-result__item", timeout=15_000)
    for _ in range(5):  # Material renders ten results at a time, more as the list scrolls
        page.locator(".md-search__scrollwrap").evaluate("el => el.scrollTo(0, el.scrollHeight)")
        page.wait_for_timeout(100)
    return [a.get_attribute("href") for a in page.locator(".md-search-result__item a, a.md-search-result__link").all()]


def test_search_finds_chinese_and_english_terms(site_page):
    page, corpus = site_page
    page.goto(page.base)
    hits = search(page, "昇腾")
    assert any("sources/deepgemm-ascend/" in h or "#deepgemm-ascend" in h for h in hits), hits
    page.goto(page.base)
    hits = search(page, "DeepGEMM")
    assert any("deepgemm" in h.lower() for h in hits), hits
    assert page.console_errors == []
    assert page.foreign_requests == []


def test_chapter_reading_path_in_order_and_links_to_sources(site_page):
    page, corpus = site_page
    chapter = next(c for c in corpus.chapters if c.number == 36)
    page.goto(page.base + "chapters/36/")
    links = page.locator(".cb-reading-path ol > li > strong > a")
    expected = [corpus.source(step.source).title for step in chapter.path]
    assert links.all_inner_texts() == expected
    links.first.click()
    page.wait_for_load_state()
    assert page.url.endswith(f"/sources/{chapter.path[0].source}/")
    assert page.locator("h1").inner_text().rstrip("¶") == expected[0]
    assert page.console_errors == []
    assert page.foreign_requests == []


def test_unverified_sources_are_visibly_marked(site_page):
    page, corpus = site_page
    source = next(s for s in corpus.sources if not s.verified)
    page.goto(page.base + f"sources/{source.id}/")
    assert page.locator(".cb-badge.cb-unverified").first.is_visible()
    assert page.locator(".admonition.warning").count() == 1
