""""All sources" and the tag pages as a reader uses them, in headless Chromium (the default corpus):
the text filter folds Simplified and Traditional, the sort lives in the address (a reload keeps it,
Back returns to the sort before), the range line names the sort shown, and at 1280 px the tables fit
their column."""

from __future__ import annotations

import base64
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.site_helpers import box_font, chromium, playwright_or_skip, serve

pytestmark = [pytest.mark.browser, pytest.mark.slow]

sync_api = playwright_or_skip(module=True)
# The table's last column. The default corpus has no mirrors and no `added` dates, so the table
# leaves those columns out (render/listing.py): the last is the annotation's language.
LAST_COLUMN = 3


@pytest.fixture(scope="module")
def browser():
    with chromium(sync_api) as browser:
        yield browser


@pytest.fixture
def page(browser, default_site):
    site, corpus = default_site
    with serve(site) as base:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        tab = context.new_page()
        tab.errors = []
        tab.on("pageerror", lambda e: tab.errors.append(str(e)))
        tab.on("console", lambda m: m.type == "error" and tab.errors.append(m.text))
        tab.base = base
        tab.site = site
        tab.corpus = corpus
        yield tab
        assert tab.errors == []
        context.close()


def _open_with_data(page, address: str = "sources/") -> None:
    page.goto(page.base + address)
    page.wait_for_selector(".cb-filters:not([hidden])")
    page.hover(".cb-filters")  # the data file is read when the reader reaches for the controls
    page.wait_for_selector("table.cb-sources[data-cb-loaded]", state="attached")


def _titles(page) -> list[str]:
    return page.locator("table.cb-sources tbody tr td:first-child a").all_inner_texts()


def _count(page) -> str:
    return page.locator(".cb-filter-count").inner_text()


def _header(page, column: int):
    return page.locator("table.cb-sources thead th").nth(column)


def _query(page) -> dict[str, list[str]]:
    return parse_qs(urlsplit(page.url).query)


def test_the_text_filter_folds_traditional_and_simplified(page):
    _open_with_data(page)
    page.locator(".cb-filter-text").fill("昇腾")
    found = _count(page)
    rows = sorted(_titles(page))
    assert not found.startswith("显示 0 "), "the default corpus has sources about 昇腾 (Ascend)"
    page.locator(".cb-filter-text").fill("昇騰")  # the same word in Traditional characters
    assert _count(page) == found and sorted(_titles(page)) == rows
    page.locator(".cb-filter-text").fill("畢昇")  # and the other way: rows say 毕昇
    assert not _count(page).startswith("显示 0 ")


def test_the_sort_is_kept_in_the_address_restored_on_reload_and_back_returns(page):
    _open_with_data(page)
    by_title = _titles(page)
    page.locator("select[data-key='kind']").select_option("paper")
    papers = _titles(page)
    _header(page, 2).locator("button").click()  # section, upwards
    _header(page, 2).locator("button").click()  # …then downwards
    by_section = _titles(page)
    assert _query(page) == {"kind": ["paper"], "sort": ["-section"]}
    page.reload()
    page.wait_for_selector("table.cb-sources[data-cb-loaded]", state="attached")  # the address asks: read at once
    assert _titles(page) == by_section
    assert _header(page, 2).get_attribute("aria-sort") == "descending"
    assert page.locator("select[data-key='kind']").input_value() == "paper"
    page.go_back()  # the sort before: section upwards
    page.wait_for_function("() => new URLSearchParams(location.search).get('sort') === 'section'")
    assert _header(page, 2).get_attribute("aria-sort") == "ascending"
    page.go_back()
    page.go_back()  # no sort, no filter: the page as it came
    page.wait_for_function("() => location.search === ''")
    assert _titles(page) == by_title and papers != by_title
    assert page.locator("table.cb-sources th[aria-sort]").count() == 0


def test_the_range_line_names_the_sort_shown(page):
    _open_with_data(page)
    line = page.locator(".cb-page-range")
    assert line.is_visible() and "标题" in line.inner_text()  # 121 sources: two pages of 100
    date = _header(page, LAST_COLUMN).inner_text().strip()
    _header(page, LAST_COLUMN).locator("button").click()
    _header(page, LAST_COLUMN).locator("button").click()  # newest first
    assert line.is_visible()
    text = line.inner_text()
    assert f"按{date}降序" in text and "标题" not in text, text
    assert text.startswith(f"第 1–100 条，共 {len(page.corpus.sources)} 条")
    page.locator("nav.cb-pager button", has_text="2").first.click()
    assert line.inner_text().startswith(f"第 101–{len(page.corpus.sources)} 条"), line.inner_text()


def _wide_cjk_font() -> str:
    """A font whose Chinese characters are one em wide, as in every CJK font, as a data: URL.

    Test machines often have no CJK font: Chromium then draws narrow boxes, and a table too
    wide for a reader's screen fits.
    """
    ranges = [(0x3000, 0x303F), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xFF00, 0xFFEF)]
    codes = [code for low, high in ranges for code in range(low, high + 1)]
    font = box_font("CB Test Han", codes, advance=1000, margin=100, height=800, ascent=880)
    return "data:font/ttf;base64," + base64.b64encode(font).decode("ascii")


def test_tables_fit_their_column_at_1280px_with_a_chinese_font(page):
    font = _wide_cjk_font()
    tags = sorted(p.parent.name for p in (page.site / "tags").glob("*/index.html"))
    assert tags, "the default corpus has tag pages"
    clipped = []
    for address in ["sources/", *(f"tags/{tag}/" for tag in tags)]:
        page.goto(page.base + address)
        page.add_style_tag(content=(
            '@font-face { font-family: "CB Test Han"; src: url(' + font + '); unicode-range: U+3000-303F, U+3400-4DBF, U+4E00-9FFF, U+FF00-FFEF; }'
            ' :root { --md-text-font: "CB Test Han"; }'
        ))
        page.evaluate("() => document.fonts.load('16px \"CB Test Han\"', '中').then(() => document.fonts.ready)")
        widths = page.evaluate("""() => {
            const table = document.querySelector('table.cb-sources');
            if (!table) return null;
            const glyph = document.createElement('span');
            glyph.textContent = '中中中中中中中中中中';
            glyph.style.whiteSpace = 'nowrap';
            glyph.style.display = 'inline-block';
            table.querySelector('td').appendChild(glyph);
            const ten = glyph.getBoundingClientRect().width / parseFloat(getComputedStyle(glyph).fontSize);
            glyph.remove();
            return {scroll: table.scrollWidth, client: table.clientWidth, ems: ten};
        }""")
        if widths is None:
            continue
        assert widths["ems"] == pytest.approx(10, abs=0.05), "the test font draws the page's Chinese text"
        if widths["scroll"] > widths["client"]:
            clipped.append(f"{address}: table {widths['scroll']} px wide in a {widths['client']} px column")
    assert clipped == [], "\n".join(clipped)


def test_words_typed_before_the_data_arrives_are_kept_and_applied(page):
    """A reader who types at once (no hover first) must not see the words wiped when the data loads."""
    page.goto(page.base + "sources/")
    page.wait_for_selector(".cb-filters:not([hidden])")
    page.locator(".cb-filter-text").fill("flashattention")  # the first thing done: the data is not read yet
    page.wait_for_selector("table.cb-sources[data-cb-loaded]", state="attached")
    page.wait_for_function("() => new URLSearchParams(location.search).get('text') === 'flashattention'", timeout=10_000)
    assert page.locator(".cb-filter-text").input_value() == "flashattention"
    shown = page.locator("table.cb-sources tbody tr:not([hidden])")
    assert 0 < shown.count() < len(page.corpus.sources)
