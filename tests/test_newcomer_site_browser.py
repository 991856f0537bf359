"""A newcomer's and a reader's first look (issue 37), in headless Chromium at 1280 and 390 px: the
default corpus built offline (no mirrors), a corpus just made by `init` + `add`, and the reader
fixture (some sources mirrored, some not)."""

from __future__ import annotations

import base64
import re

import pytest

from corpus_build import site
from corpus_build.cli import main
from tests.corpus_fixture import write_project
from tests.reader_fixture import write_reader_project
from tests.site_helpers import box_font, chromium, playwright_or_skip, serve

pytestmark = [pytest.mark.browser, pytest.mark.slow]

sync_api = playwright_or_skip(module=True)
WIDTHS = (1280, 390)
NO_MIRROR_WORDS = re.compile(r"尚未镜像|尚未存档")
NOTICE = "这次构建的站点不含存档副本"
# How many lines an element's text takes on screen.
LINES = """el => { const r = document.createRange(); r.selectNodeContents(el);
    return new Set([...r.getClientRects()].filter(x => x.width > 0).map(x => Math.round(x.top))).size }"""


@pytest.fixture(scope="module")
def browser():
    with chromium(sync_api) as found:
        yield found


@pytest.fixture(scope="module")
def default_served(default_site):
    built, corpus = default_site
    with serve(built) as base:
        yield base, built, corpus


@pytest.fixture(scope="module")
def new_corpus_site(tmp_path_factory, monkeypatch_module):
    """The README's new corpus: `init`, one `add --offline`, a build."""
    root = tmp_path_factory.mktemp("newcomer")
    project = root / "mysite"
    assert main(["init", str(project), "--title", "我的阅读语料"]) == 0
    monkeypatch_module.setenv("CORPUS_BUILD_OFFLINE", "1")
    assert main(["--project", str(project), "add", "https://github.com/tile-ai/tilelang", "--section", "01", "--note", "为什么值得读。"]) == 0
    built = site.build(project)
    with serve(built) as base:
        yield base


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as patch:
        yield patch


@pytest.fixture(scope="module")
def reader_served(tmp_path_factory):
    built = site.build(write_reader_project(tmp_path_factory.mktemp("reader")), strict=True)
    with serve(built) as base:
        yield base


def _open(browser, url: str, width: int = 1280, font: bool = False):
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.goto(url)
    page.wait_for_load_state("networkidle")
    if font:
        _cjk_font(page)
    return page


def _cjk_font(page) -> None:
    """A Chinese font made by the test (the machine has none: Chromium would draw narrow boxes)."""
    ranges = [(0x3000, 0x303F), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xFF00, 0xFFEF)]
    codes = [code for low, high in ranges for code in range(low, high + 1)]
    data = base64.b64encode(box_font("CB Test Han", codes, advance=1000, margin=100, height=800, ascent=880)).decode("ascii")
    page.add_style_tag(content=(
        '@font-face { font-family: "CB Test Han"; src: url(data:font/ttf;base64,' + data + '); unicode-range: U+3000-303F, U+3400-4DBF, U+4E00-9FFF, U+FF00-FFEF; }'
        ' :root { --md-text-font: "CB Test Han"; }'
    ))
    page.evaluate("() => document.fonts.load('16px \"CB Test Han\"', '中').then(() => document.fonts.ready)")


# --- one statement where mirrors are absent -----------------------------------------------------


@pytest.mark.parametrize("width", WIDTHS)
def test_a_build_without_mirrors_says_so_once_not_on_every_source_page(default_served, browser, width):
    base, built, corpus = default_served
    for address in ("", "status/"):
        page = _open(browser, base + address, width)
        notice = page.locator(".cb-site-notice")
        assert notice.count() == 1 and notice.is_visible() and notice.inner_text().startswith(NOTICE)
        page.close()
    page = _open(browser, base + "sources/tilelang/", width)
    text = page.locator(".md-content").inner_text()
    assert not NO_MIRROR_WORDS.search(text) and "镜像" not in page.locator(".md-content h2").all_inner_texts()
    assert "also cloned in full at 02-tilelang-core-repo/raw/tilelang" in text  # the user's note, as written
    page.close()
    # Not one source page, section page or the table says "not mirrored yet" for a build that has no mirrors.
    pages = [built / "sources" / s.id / "index.html" for s in corpus.sources] + [built / "sources" / "index.html"]
    said = [p for p in pages if NO_MIRROR_WORDS.search(p.read_text(encoding="utf-8"))]
    assert said == []


def test_a_source_without_a_mirror_in_a_mirrored_build_names_this_site_not_the_world(reader_served, browser):
    page = _open(browser, reader_served + "sources/tilelang/")
    text = page.locator(".md-content").inner_text()
    assert "本站没有存档副本" in text and "尚未镜像" not in text  # the user may keep a clone of it elsewhere
    page.close()
    page = _open(browser, reader_served)
    assert page.locator(".cb-site-notice").count() == 0  # this build has mirrors
    page.close()


# --- the papers' authors and dates ------------------------------------------------------------


def test_every_paper_with_verified_authors_shows_them_in_the_cite_box_and_bibtex(default_served, browser):
    base, built, corpus = default_served
    papers = [s for s in corpus.sources if s.kind == "paper"]
    verified = [s for s in papers if s.authors]
    assert len(verified) == len(papers) == 30 and all(s.verified_from for s in verified)  # each says where it was checked
    for source in verified:
        html = (built / "sources" / source.id / "index.html").read_text(encoding="utf-8")
        bibtex = html.split('class="cb-cite-bibtex"', 1)[1].split("</pre>", 1)[0]
        assert "author = {" in bibtex, source.id
    page = _open(browser, base + "sources/paper-tilelang/")
    assert page.locator(".cb-cite-ref").inner_text().startswith("Lei Wang, Yu Cheng, Yining Shi, 等. TileLang")
    assert "(2025-04-24)" in page.locator(".cb-cite-ref").inner_text()
    assert "author = {Wang, Lei and Cheng, Yu" in page.locator(".cb-cite-bibtex").inner_text()
    checked = page.locator(".cb-cite-checked")
    assert checked.inner_text().startswith("作者与日期的核对出处：the arXiv abstract page https://arxiv.org/abs/2504.17577")
    assert checked.locator("span[lang='en']").count() == 1
    page.close()
    page = _open(browser, base + "sources/paper-deepseek-v3/")
    assert "author = {{DeepSeek-AI}}" in page.locator(".cb-cite-bibtex").inner_text()  # an organisation, kept whole
    page.close()


# --- a registry note in another language --------------------------------------------------------


@pytest.mark.parametrize("width", WIDTHS)
def test_an_english_verify_note_is_quoted_apart_not_half_of_a_chinese_sentence(default_served, browser, width):
    base, _built, _corpus = default_served
    page = _open(browser, base + "sources/ascend-operator-dev-overview/", width)
    warning = page.locator(".admonition.warning")
    first = warning.locator("p:not(.admonition-title)").first.inner_text()
    assert first == "本条目的标题或地址尚未核实。登记表中的说明（原文）：" and not re.search(r"[A-Za-z]", first)
    quoted = warning.locator("blockquote p[lang='en']")
    assert quoted.inner_text() == "Exact doc page not located; URL is the hiascend document root."
    page.close()
    page = _open(browser, base + "sections/04-ascend-cann-pto/", width)
    assert page.locator("blockquote p[lang='en']", has_text="Exact doc page not located").count() == 1
    assert "尚未核实：Exact" not in page.locator(".md-content").inner_text()
    page.close()


# --- a new corpus's empty pages ----------------------------------------------------------------


@pytest.mark.parametrize("width", WIDTHS)
def test_a_new_corpus_says_what_its_empty_pages_are_for_and_counts_only_what_it_has(new_corpus_site, browser, width):
    page = _open(browser, new_corpus_site + "chapters/", width)
    assert "还没有章节。章节是按顺序排列的阅读路径" in page.locator(".md-content").inner_text()
    page.close()
    page = _open(browser, new_corpus_site + "digests/", width)
    assert "还没有日报。观察日报按日期记录" in page.locator(".md-content").inner_text()
    page.close()
    page = _open(browser, new_corpus_site, width)
    summary = page.locator(".md-content p", has_text="个分区").first.inner_text()
    assert summary == "1 个条目 · 1 个分区", summary  # no "0 个章节 · 0 期日报"
    # No expand arrow over an index with nothing under it.
    for name in ("章节", "观察日报"):
        item = page.locator(".md-nav--primary > .md-nav__list > .md-nav__item", has=page.locator(f".md-ellipsis:text-is('{name}')"))
        assert item.count() == 1 and "md-nav__item--nested" not in (item.get_attribute("class") or ""), name
    page.close()


# --- the offline zip's link --------------------------------------------------------------------


def test_the_offline_link_shows_only_when_the_zip_is_there(browser, tmp_path):
    project = write_project(tmp_path / "offline")
    corpus_yaml = project / "corpus" / "corpus.yaml"
    corpus_yaml.write_text(corpus_yaml.read_text(encoding="utf-8") + "offline: true\n", encoding="utf-8")
    # Plain `mkdocs build` (the engine alone): no zip, and no link to one.
    built = site.build(project)
    assert not (built / "offline.zip").exists()
    with serve(built) as base:
        page = _open(browser, base)
        assert page.locator(".cb-offline").count() == 1 and not page.locator(".cb-offline").is_visible()
        assert page.locator(".cb-offline a").get_attribute("href") == "offline.zip"
        page.close()
    # `corpus-build build` writes the zip, then shows the link.
    assert main(["--project", str(project), "build"]) == 0
    assert (built / "offline.zip").is_file()
    with serve(built) as base:
        page = _open(browser, base)
        link = page.locator(".cb-offline a")
        assert link.is_visible() and link.inner_text().startswith("Download the offline copy")
        page.close()


# --- the digest page ---------------------------------------------------------------------------


@pytest.mark.parametrize("width", WIDTHS)
def test_the_digest_states_its_window_once_and_keeps_dates_and_repositories_whole(default_served, browser, width):
    base, _built, corpus = default_served
    digest = corpus.digests[0]
    page = _open(browser, base + f"digests/{digest.date.isoformat()}/", width, font=True)
    text = page.locator(".md-content").inner_text()
    assert text.count("調研視窗") == 1 and "观察窗口" not in text
    date = page.locator(".md-content h1 .cb-nowrap")
    assert date.inner_text() == digest.date.isoformat() and date.evaluate(LINES) == 1  # not "2026-10-" / "22"
    chips = page.locator(".cb-digest-facts code")
    assert chips.count() >= 10
    for chip in chips.all():
        assert chip.evaluate(LINES) == 1, chip.inner_text()  # tile-ai/tilelang-ascend never breaks at a hyphen
    page.close()
    page = _open(browser, base + "digests/", width, font=True)  # the index repeats each digest's repositories
    chips = page.locator(".cb-digest-facts code")
    assert chips.count() >= 10 and all(chip.evaluate(LINES) == 1 for chip in chips.all())
    page.close()


# --- "All sources" -----------------------------------------------------------------------------


def _table_ready(page) -> None:
    page.wait_for_selector(".cb-filters:not([hidden])")
    page.hover(".cb-filters")
    page.wait_for_selector("table.cb-sources[data-cb-loaded]", state="attached")


@pytest.mark.parametrize("width", WIDTHS)
def test_a_filter_with_no_match_says_so(default_served, browser, width):
    base, _built, _corpus = default_served
    page = _open(browser, base + "sources/", width)
    _table_ready(page)
    page.locator(".cb-filter-text").fill("zzz-nothing-like-this")
    page.wait_for_timeout(200)
    line = page.locator(".cb-page-range")
    assert line.is_visible() and line.inner_text() == "没有符合这些条件的条目。"
    assert "0–0" not in page.evaluate("() => document.body.textContent")
    page.close()


def test_columns_nothing_fills_are_left_out(default_served, new_corpus_site, browser):
    base, _built, corpus = default_served
    assert not any(s.added for s in corpus.sources)
    page = _open(browser, base + "sources/")
    headers = page.locator("table.cb-sources thead th").all_inner_texts()
    assert headers == ["标题", "类型", "分区", "注释语言"], headers  # no mirror state (none), no 加入日期 (none)
    _table_ready(page)
    page.locator("table.cb-sources thead th").nth(2).locator("button").click()  # sort by section: the script's columns match
    assert page.locator("table.cb-sources tbody tr").first.locator("td").count() == 4
    page.close()
    page = _open(browser, new_corpus_site + "sources/")
    assert "加入日期" in page.locator("table.cb-sources thead th").all_inner_texts()  # `add` wrote the date
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", page.locator("table.cb-sources tbody td").last.inner_text())
    page.close()


def test_the_section_column_takes_at_most_two_lines_at_1280(default_served, browser):
    base, _built, _corpus = default_served
    page = _open(browser, base + "sources/", 1280, font=True)
    lines = page.locator("table.cb-sources tbody td:nth-child(3)").evaluate_all("tds => tds.map(" + LINES + ")")
    assert lines and max(lines) <= 2, sorted(set(lines))
    page.close()


def test_on_a_phone_the_table_does_not_scroll_sideways(default_served, browser):
    base, _built, _corpus = default_served
    page = _open(browser, base + "sources/", 390, font=True)
    widths = page.evaluate("""() => { const t = document.querySelector('table.cb-sources');
        return {table: t.scrollWidth, column: t.clientWidth, page: document.documentElement.scrollWidth} }""")
    assert widths["table"] <= widths["column"] and widths["page"] <= 390, widths
    first = page.locator("table.cb-sources tbody tr").first
    assert first.locator("td a").first.is_visible()
    page.close()


# --- the home chart on a phone -----------------------------------------------------------------


@pytest.mark.parametrize("width", WIDTHS)
def test_home_chart_labels_are_readable(default_served, browser, width):
    base, _built, _corpus = default_served
    page = _open(browser, base, width, font=True)
    heights = page.evaluate("""() => [...document.querySelectorAll('.cb-chart svg')].filter(s => s.getBoundingClientRect().width > 0)
        .flatMap(s => [...s.querySelectorAll('text')].map(t => t.getBoundingClientRect().height)).filter(h => h > 0)""")
    assert heights and min(heights) >= 10, (width, min(heights or [0]))  # were about 6 px at 390
    chart = page.evaluate("() => [...document.querySelectorAll('.cb-chart svg')].filter(s => s.getBoundingClientRect().width > 0).length")
    assert chart == 1  # one layout shown at a time
    page.close()


# --- the copy button ---------------------------------------------------------------------------


def test_copy_bibtex_says_it_copied_and_says_when_it_could_not(default_served, browser):
    base, _built, _corpus = default_served
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = context.new_page()
    page.goto(base + "sources/paper-tilelang/")
    page.locator("button.cb-cite-copy").click()
    status = page.locator(".cb-cite-status")
    assert status.get_attribute("role") == "status"
    page.wait_for_function("() => document.querySelector('.cb-cite-status').textContent === '已复制到剪贴板'", timeout=5_000)
    assert status.is_visible()
    assert page.evaluate("() => navigator.clipboard.readText()") == page.locator(".cb-cite-bibtex").text_content()
    # Both ways of copying refused: the reader is told, and the text is selected for Ctrl+C.
    page.goto(base + "sources/paper-tilelang/")
    page.evaluate("""() => {
        navigator.clipboard.writeText = () => Promise.reject(new Error('denied'));
        document.execCommand = () => false;
    }""")
    page.locator("button.cb-cite-copy").click()
    page.wait_for_function("() => document.querySelector('.cb-cite-status').textContent.startsWith('无法自动复制')", timeout=5_000)
    assert page.evaluate("() => window.getSelection().toString()").strip() == page.locator(".cb-cite-bibtex").text_content().strip()
    context.close()


# --- the home description ----------------------------------------------------------------------


def test_the_home_description_is_in_the_readers_words(default_served, browser):
    base, _built, _corpus = default_served
    page = _open(browser, base)
    description = page.locator(".md-content h1 + p").inner_text()
    assert "digests" not in description and "观察日报" in description
    page.close()
