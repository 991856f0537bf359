"""The cite box of a source page: escaped, says where facts disagree, and its copy button works in Chromium."""

from __future__ import annotations

import dataclasses
from urllib.parse import urlsplit

import pytest

from corpus_build import registry, site
from corpus_build.core import bibfacts
from corpus_build.core.provenance import Document, Extractor, Provenance, Status, write_provenance
from corpus_build.render import citation, export
from corpus_build.render.labels import _LABELS, Labels
from corpus_build.render.pages import PageBuilder
from corpus_build.render.places import paths
from tests.corpus_fixture import SOURCES_GPU, write_corpus, write_project
from tests.site_helpers import CHROMIUM, playwright_or_skip, serve

HOSTILE = SOURCES_GPU.replace("title: TileLang", "title: \"TileLang <script>alert('t')</script> & {x}\"")
# `check` refuses raw quotes and angle brackets in URLs; the box escapes them all the same.
HOSTILE_URL = "https://github.com/tile-ai/tilelang?a=1&b=\"><img%20src=x%20onerror=alert(1)>"


def test_everything_in_the_box_is_escaped(tmp_path):
    corpus = registry.load(write_corpus(tmp_path, {"01-gpu/sources.yaml": HOSTILE}))
    hostile = dataclasses.replace(corpus.source("tilelang"), url=HOSTILE_URL)
    box = citation.box(corpus, hostile, Labels("zh"), paths.source("tilelang"))
    assert "<script>" not in box and "<img" not in box
    assert "TileLang &lt;script&gt;alert(&#x27;t&#x27;)&lt;/script&gt; &amp; {x}" in box
    assert 'href="https://github.com/tile-ai/tilelang?a=1&amp;b=&quot;&gt;&lt;img%20src=x%20onerror=alert(1)&gt;"' in box
    assert "复制 BibTeX" in box and 'data-cb-done="已复制"' in box and " hidden>" in box  # shown by cite.js only
    # What a mirror recorded is untrusted too.
    guide = corpus.source("cuda-guide")
    write_provenance(corpus.raw_dir(guide), Provenance(id=guide.id, kind="docs", cited_url=guide.url, status=Status.OK,
                                                       document=Document(authors=("<script>alert(2)</script>",), published="2025", facts_from="html-meta")))
    box = citation.box(corpus, guide, Labels("en"), paths.source(guide.id))
    assert "<script>" not in box and "&lt;script&gt;alert(2)&lt;/script&gt;. CUDA C++ Programming Guide[EB/OL]. (2025)." in box


def test_the_box_names_where_a_fact_came_from_only_when_registry_and_mirror_disagree(tmp_path):
    fields = "  authors: [Lei Wang]\n  date: 2024\n"
    corpus = registry.load(write_corpus(tmp_path, {"01-gpu/sources.yaml": SOURCES_GPU.replace("  note: The grid", fields + "  note: The grid", 1)}))
    guide = corpus.source("cuda-guide")
    page = paths.source(guide.id)
    agreeing = Provenance(id=guide.id, kind="docs", cited_url=guide.url, status=Status.OK, fetched_at="2026-11-30T02:00:00Z",
                          document=Document(authors=("Wang, Lei",), published="2024-06-01", facts_from="citation-meta"), extractor=Extractor("trafilatura"))
    write_provenance(corpus.raw_dir(guide), agreeing)
    box = citation.box(corpus, guide, Labels("zh"), page)
    assert "cb-cite-dispute" not in box
    assert "Lei Wang. CUDA C++ Programming Guide[EB/OL]. (2024)[引用日期 2026-11-30]." in box
    write_provenance(corpus.raw_dir(guide), Provenance(**{**agreeing.__dict__, "document": Document(authors=("Ada Lovelace",), published="2023-01-02", facts_from="citation-meta")}))
    zh = citation.box(corpus, guide, Labels("zh"), page)
    assert "登记表中的作者为 Lei Wang；原页面的引用元数据为 Ada Lovelace。" in zh
    assert "登记表中的日期为 2024；原页面的引用元数据为 2023-01-02。" in zh
    en = citation.box(corpus, guide, Labels("en"), page)
    assert "The registry gives the authors as Lei Wang; according to the page&#x27;s citation tags it is Ada Lovelace." in en


def test_downloads_link_the_sections_and_the_whole_corpus_exports(tmp_path):
    corpus = registry.load(write_corpus(tmp_path))
    box = citation.box(corpus, corpus.source("deepgemm-ascend"), Labels("en"), paths.source("deepgemm-ascend"))
    assert "[BibTeX](../export/sections/02-ascend.bib) · [RIS](../export/sections/02-ascend.ris) · [CSL-JSON](../export/sections/02-ascend.json)" in box
    assert "; the whole corpus: [BibTeX](../corpus.bib)" in box
    zh = citation.box(corpus, corpus.source("deepgemm-ascend"), Labels("zh"), paths.source("deepgemm-ascend"))
    assert "下载引用文件 — 本分区：[BibTeX](../export/sections/02-ascend.bib)" in zh and "；全部条目：[BibTeX](../corpus.bib)" in zh
    assert set(export.export_files(corpus)) >= {"export/sections/02-ascend.bib", "corpus.ris"}


def test_source_page_has_the_box_and_the_renamed_cited_by_heading(tmp_path):
    corpus = registry.load(write_corpus(tmp_path, {"corpus.yaml": "title: T\nlanguages: [zh, en]\n"}))
    page = PageBuilder(corpus).source_page(corpus.source("tilelang"))
    assert "## 被以下内容引用" in page and "引用本条目" not in page
    assert page.index("## 引用 {") > page.index("## 被以下内容引用")
    assert "@software{tilelang," in page


def test_every_label_the_box_uses_is_in_both_languages():
    keys = ["cite", "copy_bibtex", "copied", "cite_download", "export_section", "export_whole", "et_al", "accessed_on", "merged_on", "fact_disputed", "title_from_mirror"]
    keys += [f"field_{name}" for name in ("authors", "date", "venue", "doi", "arxiv")]
    keys += [f"fact_from_{origin}" for origin in bibfacts.ORIGINS]
    for key in keys:
        assert _LABELS[key]["zh"].strip() and _LABELS[key]["en"].strip(), key


# --- in the browser -----------------------------------------------------------------------------



@pytest.mark.browser
@pytest.mark.slow
def test_copy_button_puts_the_bibtex_on_the_clipboard(tmp_path):
    sync_api = playwright_or_skip()
    project = write_project(tmp_path)
    built = site.build(project, strict=True)
    corpus = registry.load(project / "corpus")
    expected = export.bibtex_entry(corpus.source("tilelang"), bibfacts.all_facts(corpus)["tilelang"]).rstrip()
    with serve(built) as base, sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu", "--no-first-run"])
        try:
            context = browser.new_context()
            context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base.rstrip("/"))
            page = context.new_page()
            errors: list[str] = []
            foreign: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("console", lambda m: m.type == "error" and errors.append(m.text))
            page.on("request", lambda r: urlsplit(r.url).hostname not in (None, "127.0.0.1") and not r.url.startswith("data:") and foreign.append(r.url))
            page.goto(base + "sources/tilelang/")
            button = page.locator("button.cb-cite-copy")
            button.wait_for(state="visible", timeout=10_000)  # hidden until cite.js runs
            assert button.inner_text() == "Copy BibTeX"
            assert page.locator(".cb-cite .md-clipboard").count() == 0  # one copy button, ours
            button.click()
            page.wait_for_function("document.querySelector('button.cb-cite-copy').textContent === 'Copied'", timeout=5_000)
            assert page.evaluate("navigator.clipboard.readText()") == expected
            assert errors == [] and foreign == []
            # Without JavaScript the BibTeX is still there to select, and no dead button shows.
            bare = browser.new_context(java_script_enabled=False).new_page()
            bare.goto(base + "sources/tilelang/")
            assert bare.locator("pre.cb-cite-bibtex").inner_text().startswith("@software{tilelang,")
            assert not bare.locator("button.cb-cite-copy").is_visible()
        finally:
            browser.close()


def test_a_mirrored_pull_request_is_cited_with_its_author_number_and_merge_date(tmp_path):
    from corpus_build.core.provenance import ThreadFacts

    corpus = registry.load(write_corpus(tmp_path))
    pull = corpus.source("tilelang-pr-2900")
    write_provenance(corpus.raw_dir(pull), Provenance(
        id=pull.id, kind="pull", cited_url=pull.url, status=Status.OK, fetched_at="2026-11-30T02:00:00Z",
        thread=ThreadFacts(number=2900, author="bob", created_at="2026-10-01T02:00:00Z", merged=True, merged_at="2026-10-05T09:00:00Z"),
        document=Document(authors=("bob",), published="2026-10-01T02:00:00Z", facts_from="github"), extractor=Extractor("github-rest"),
    ))
    box = citation.box(corpus, pull, Labels("zh"), paths.source(pull.id))
    assert "bob. Define backend architecture[EB/OL]. #2900 合并于 2026-10-05. (2026-10-01)[引用日期 2026-11-30]." in box
    assert r"note = {Pull request \#2900, merged 2026-10-05}" in box


def test_code_in_a_title_shows_as_code_in_the_reference_never_as_markup(tmp_path):
    """Issue and PR titles name code in backticks: the reference shows it as code, escaped, without the backticks."""
    titled = SOURCES_GPU.replace("title: TileLang", "title: \"`T.copy<dst>` fails & `x`\"")
    corpus = registry.load(write_corpus(tmp_path, {"01-gpu/sources.yaml": titled}))
    box = citation.box(corpus, corpus.source("tilelang"), Labels("zh"), paths.source("tilelang"))
    reference = box.split("cb-cite-ref", 1)[1].split("</", 1)[0] if "cb-cite-ref" in box else box
    assert "<code>T.copy&lt;dst&gt;</code> fails &amp; <code>x</code>" in box
    assert "`" not in reference
