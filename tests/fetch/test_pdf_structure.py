"""Papers keep their page-by-page text and gain their headings; the site has an anchor per page and
per heading; `[[paper-id#page-N]]` and `[[paper-id#sec-…]]` links are checked and resolved."""

from __future__ import annotations

import json

import pymupdf

from corpus_build import registry
from corpus_build.core.provenance import Status, read_provenance
from corpus_build.fetch import fetch_corpus
from corpus_build.fetch.kinds.pdf import pymupdf_version
from corpus_build.render import build_pages

from .conftest import write_corpus


def paper_pdf(outline: bool = False) -> bytes:
    """Three pages: a title, numbered sections in bold and larger type, body text in 10 pt."""
    doc = pymupdf.open()
    body = "Body text of the paper, long enough to be the most common size on the page. "
    page = doc.new_page()
    page.insert_text((72, 72), "Tiles All The Way Down", fontsize=20, fontname="hebo")
    page.insert_text((72, 110), "Abstract", fontsize=10, fontname="hebo")
    page.insert_text((72, 125), body, fontsize=10)
    page.insert_text((72, 160), "1 Introduction", fontsize=13, fontname="hebo")
    for i in range(4):
        page.insert_text((72, 180 + 14 * i), body, fontsize=10)
    page = doc.new_page()
    page.insert_text((72, 72), "4 Scheduling", fontsize=13, fontname="hebo")
    page.insert_text((72, 92), body, fontsize=10)
    page.insert_text((72, 130), "4.3 Tile Scheduling on Ascend", fontsize=11, fontname="hebo")
    page.insert_text((72, 150), "Scheduling tiles a * b over cube units <script>x</script>.", fontsize=10)
    page = doc.new_page()
    page.insert_text((72, 72), "References", fontsize=13, fontname="hebo")
    page.insert_text((72, 92), "[1] A. Author. A cited work. 2024.", fontsize=10)
    if outline:
        doc.set_toc([[1, "Introduction", 1], [1, "Scheduling", 2], [2, "Tile Scheduling on Ascend", 2], [1, "References", 3]])
    return doc.tobytes()


def make(tmp_path, server, sources_extra=(), digest: str | None = None, note: str = "why it matters", outline: bool = False):
    server.add("/paper.pdf", paper_pdf(outline), content_type="application/pdf")
    sources = [{"id": "tiles-paper", "url": server.url("/paper.pdf"), "kind": "paper", "title": "Tiles", "note": note}, *sources_extra]
    root = write_corpus(tmp_path, sources, languages=["zh", "en"])
    if digest is not None:
        (root / "digests").mkdir(exist_ok=True)
        (root / "digests" / "2026-10-22.md").write_text("---\ntitle: Digest\n---\n\n" + digest + "\n", encoding="utf-8")
    return root


def test_headings_anchors_and_page_text(tmp_path, server, options):
    root = make(tmp_path, server)
    corpus = registry.load(root)
    [result] = fetch_corpus(corpus, options)
    assert result.status is Status.OK, result.error
    raw = corpus.raw_dir(corpus.source("tiles-paper"))
    text = (raw / "text.md").read_text()
    assert "## Page 1" in text and "## Page 3" in text  # the page-by-page text stays
    data = json.loads((raw / "structure.json").read_text())
    assert data["method"] == "fonts" and data["pages"] == 3
    heads = [(h["level"], h["text"], h["page"], h["anchor"]) for h in data["headings"]]
    assert heads == [
        (1, "Tiles All The Way Down", 1, "sec-tiles-all-the-way-down"),
        (2, "Abstract", 1, "sec-abstract"),
        (2, "1 Introduction", 1, "sec-1"),
        (2, "4 Scheduling", 2, "sec-4"),
        (3, "4.3 Tile Scheduling on Ascend", 2, "sec-4-3"),
        (2, "References", 3, "sec-references"),
    ]
    md = (raw / "structure.md").read_text()
    assert "### 4.3 Tile Scheduling on Ascend {#sec-4-3}" in md and "<!-- page 2 -->" in md
    assert {"structure.json", "structure.md"} <= {f.path for f in read_provenance(raw).files}
    page = build_pages(corpus)["sources/tiles-paper/text.md"]
    for anchor in ("page-1", "page-2", "page-3", "sec-1", "sec-4-3", "sec-references"):
        assert f'id="{anchor}"' in page, anchor
    assert '<a href="#sec-4-3">4.3 Tile Scheduling on Ascend</a> <small>第 2 页</small>' in page
    assert "a * b over cube units &lt;script&gt;x&lt;/script&gt;." in page and "<script>" not in page
    assert page.index('id="page-2"') < page.index('id="sec-4"') < page.index('id="sec-4-3"') < page.index('id="page-3"')


def test_outline_gives_the_headings_when_the_pdf_has_one(tmp_path, server, options):
    corpus = registry.load(make(tmp_path, server, outline=True))
    [result] = fetch_corpus(corpus, options)
    assert result.status is Status.OK, result.error
    data = json.loads((corpus.raw_dir(corpus.source("tiles-paper")) / "structure.json").read_text())
    assert data["method"] == "outline"
    # Outline titles without their numbers still find their block; levels come from the outline.
    assert [(h["level"], h["page"]) for h in data["headings"]] == [(2, 1), (2, 2), (3, 2), (2, 3)]
    # The page's own heading text (with its number) is kept, so the anchors are the numbered ones.
    assert [(h["text"], h["anchor"]) for h in data["headings"]] == [
        ("1 Introduction", "sec-1"), ("4 Scheduling", "sec-4"), ("4.3 Tile Scheduling on Ascend", "sec-4-3"), ("References", "sec-references")]


def _problems(root):
    return [str(p) for p in registry.check(root)]


def test_check_validates_page_and_heading_anchors(tmp_path, server, options):
    digest = "\n".join([
        "Good: [[tiles-paper#page-2]], [[tiles-paper#sec-4-3|§4.3]].",
        "Bad page: [[tiles-paper#page-9]].",
        "Bad heading: [[tiles-paper#sec-4-4]].",
        "Bad anchor: [[tiles-paper#figure-2]].",
        "Not fetched: [[other-paper#page-1]].",
    ])
    other = {"id": "other-paper", "url": server.url("/other.pdf"), "kind": "paper", "title": "Other"}
    root = make(tmp_path, server, [other], digest=digest, note="见 [[tiles-paper#page-3|参考文献页]]，以及 [[tiles-paper#page-4]]。")
    before = _problems(root)
    # Before any fetch the anchors cannot be checked: warnings, not errors.
    assert not [p for p in before if ": error:" in p and "#page-2" in p]
    assert any("cannot be checked yet" in p and "warning" in p for p in before)
    fetch_corpus(registry.read(root)[0], options)  # read, not load: the registry has the bad links above
    problems = _problems(root)
    errors = [p for p in problems if ": error:" in p]
    assert any("2026-10-22.md:6:" in p and "page 9, but the paper has 3 page(s)" in p for p in errors), errors
    assert any("2026-10-22.md:7:" in p and "[[tiles-paper#sec-4-4]] names no heading" in p and "did you mean #sec-4-3?" in p for p in errors), errors
    assert any("2026-10-22.md:8:" in p and "#page-N" in p for p in errors), errors
    assert any("sources.yaml" in p and "[[tiles-paper#page-4]]" in p for p in errors), errors  # annotations are checked too
    assert any("other-paper#page-1" in p and "warning" in p for p in problems)
    assert len(errors) == 4, errors


def test_anchor_links_resolve_to_the_text_page(tmp_path, server, options):
    root = make(tmp_path, server, digest="See [[tiles-paper#page-2]] and [[tiles-paper#sec-4-3]] and [[tiles-paper#sec-1|the intro]].",
                note="关键在 [[tiles-paper#sec-4-3|第 4.3 节]]。")
    corpus = registry.load(root)
    fetch_corpus(corpus, options)
    pages = build_pages(corpus)
    digest = pages["digests/2026-10-22.md"]
    assert "[Tiles，第 2 页](../sources/tiles-paper/text.md#page-2)" in digest
    assert "[Tiles · 4.3 Tile Scheduling on Ascend](../sources/tiles-paper/text.md#sec-4-3)" in digest
    assert "[the intro](../sources/tiles-paper/text.md#sec-1)" in digest
    assert "[第 4.3 节](tiles-paper/text.md#sec-4-3)" in pages["sources/tiles-paper.md"]
    # Places a mirror does not have link to the page without the anchor; no mirror: the source page.
    digest2 = build_pages(registry.load(make(tmp_path / "b", server, digest="[[tiles-paper#page-2]]")))["digests/2026-10-22.md"]
    assert "(../sources/tiles-paper.md)" in digest2
    section_page = next(v for k, v in pages.items() if k.startswith("sections/") and "tiles-paper" in v)
    assert "第 4.3 节](" in section_page and "text.md#sec-4-3)" in section_page


def test_pymupdf_version_is_known():
    assert pymupdf_version() and pymupdf_version() != "unknown"


def test_heading_numbers_set_apart_join_their_titles(tmp_path):
    """As Debian's Chinese maint-guide sets them: "Chapter 2" above "第一步", "2.1" above its title."""
    from corpus_build.core import pdf_structure

    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 60), "Chapter 2", fontsize=20, fontname="hebo")
    page.insert_text((72, 100), "第一步", fontsize=25, fontname="china-s")
    page.insert_text((72, 140), "让我们来创建一个自己的软件包，这一段是正文，字号与其他正文相同，而且足够长。", fontsize=10, fontname="china-s")
    page.insert_text((72, 180), "2.1", fontsize=14, fontname="hebo")
    page.insert_text((110, 180), "软件包制作流程", fontsize=14, fontname="china-s")
    page.insert_text((72, 220), "如果你的工作基于某个上游程序，那么典型的软件包制作流程就会需要如下几个特定的文件。", fontsize=10, fontname="china-s")
    page.insert_text((72, 780), "5", fontsize=10)  # a page number, never part of a heading
    data = pdf_structure.structure(pymupdf.open(stream=doc.tobytes(), filetype="pdf"))
    anchors = {h["anchor"]: h["text"] for h in data["headings"]}
    assert anchors.get("sec-2") == "Chapter 2 第一步", data["headings"]
    assert anchors.get("sec-2-1", "").replace(" ", "") == "2.1软件包制作流程", data["headings"]
    assert pdf_structure.split_number("4.3 Tile scheduling") == ("4.3", "Tile scheduling")
    assert pdf_structure.split_number("第 3 章 调度") == ("3", "调度")
    assert pdf_structure.anchor_for("引言", set()) == "sec-引言"
