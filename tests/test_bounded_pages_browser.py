"""The bounded whole-corpus pages in headless Chromium: tag chips open the tag's own page, and
"All sources" reads its data file only when the reader uses the controls."""

from __future__ import annotations

import pytest

from tests.site_helpers import chromium, playwright_or_skip, serve

pytestmark = [pytest.mark.browser, pytest.mark.slow]

sync_api = playwright_or_skip(module=True)
DATA = "sources-index.js"


@pytest.fixture(scope="module")
def browser():
    with chromium(sync_api) as browser:
        yield browser


@pytest.fixture
def page(browser, default_site):
    site, corpus = default_site
    with serve(site) as base:
        context = browser.new_context()
        tab = context.new_page()
        tab.errors = []
        tab.requests = []
        tab.on("pageerror", lambda e: tab.errors.append(str(e)))
        tab.on("console", lambda m: m.type == "error" and tab.errors.append(m.text))
        tab.on("request", lambda r: tab.requests.append(r.url))
        tab.base = base
        tab.corpus = corpus
        yield tab
        context.close()


def _rows(page) -> list[str]:
    return page.locator("table.cb-sources tbody tr td:first-child a").all_inner_texts()


def test_a_source_pages_tag_chip_opens_the_tags_own_page_listing_its_sources(page):
    corpus = page.corpus
    source = next(s for s in corpus.sources if s.tags)
    tag = source.tags[0]
    carrying = sorted(s.title for s in corpus.sources if tag in s.tags)
    page.goto(page.base + f"sources/{source.id}/")
    chip = page.locator("nav.md-tags a.md-tag", has_text=tag).first
    assert chip.is_visible()
    chip.click()
    page.wait_for_load_state()
    assert "/tags/" in page.url and f"/sources/{source.id}/" not in page.url
    assert tag in page.locator("h1").inner_text()
    shown = _rows(page)
    assert len(carrying) <= 100, "the default corpus's tags fit one page; the paging is tested in test_bounded_pages.py"
    assert sorted(shown) == carrying and source.title in shown
    # Material's listing on the page draws nothing: no list of every page carrying the tag
    assert page.locator("article ul a[href*='/sources/']").count() == 0
    # the tags index lists the tag with its count and links the same page
    here = page.url
    page.goto(page.base + "tags/")
    link = page.locator("a.cb-tag", has=page.locator("span.cb-tag-n", has_text=str(len(carrying)))).filter(has_text=tag).first
    link.click()
    page.wait_for_load_state()
    assert page.url == here.split("#")[0]
    # a digest's tag chip opens its tag's page too, which lists the digest
    digest = next(d for d in corpus.digests if d.tags)
    page.goto(page.base + f"digests/{digest.date.isoformat()}/")
    page.locator("nav.md-tags a.md-tag", has_text=digest.tags[-1]).first.click()
    page.wait_for_load_state()
    assert "/tags/" in page.url and digest.title in page.locator("article ul").inner_text()
    assert page.errors == []


def test_all_sources_reads_its_data_file_only_when_the_reader_uses_the_controls(page):
    n = len(page.corpus.sources)
    page.goto(page.base + "sources/")
    page.wait_for_selector(".cb-filters:not([hidden])")  # the controls show at once
    page.wait_for_timeout(300)
    assert not any(url.endswith(DATA) for url in page.requests), page.requests
    assert len(_rows(page)) == min(n, 100)  # the plain first page, as without the script
    # a sort before the data came: the click itself asks for it, and the sort happens when it is there
    page.locator("th[data-col='0'] button").click()
    page.wait_for_selector("table.cb-sources[data-cb-loaded]", state="attached")
    assert page.locator("th[data-col='0']").get_attribute("aria-sort") == "ascending"
    assert any(url.endswith(DATA) for url in page.requests)
    assert page.locator(".cb-filter-count").inner_text() == f"显示 {n} / {n} 条"
    # a choice list opened before the data came is filled with every choice
    page.goto(page.base + "sources/")
    page.wait_for_selector(".cb-filters:not([hidden])")
    kind = page.locator("select[data-key='kind']")
    kind.click()
    page.wait_for_selector("table.cb-sources[data-cb-loaded]", state="attached")
    assert kind.locator("option").count() == 1 + len({s.kind for s in page.corpus.sources})
    # a view linked with filters in its address (home, tags and status pages) reads the data at once
    page.goto(page.base + "sources/?kind=paper")
    page.wait_for_selector("table.cb-sources[data-cb-loaded]", state="attached")
    assert set(page.locator("table.cb-sources tbody tr").evaluate_all("rows => rows.map(r => r.dataset.kind)")) == {"paper"}
    assert page.errors == []
