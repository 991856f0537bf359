"""Excerpts keep the text as written (issue 21): Markdown syntax goes, characters stay."""

from __future__ import annotations

import re

import markdown
import pytest

from corpus_build import registry, render
from corpus_build.core.mdtext import plain_text
from corpus_build.core.provenance import Provenance, Status, write_provenance
from tests.site_helpers import recorded_files


@pytest.mark.parametrize(
    "written, shown",
    [
        ("The **tile-ai** org", "The tile-ai org"),
        ("Edit \\_\\_init\\_\\_.py and snake_case_name", "Edit __init__.py and snake_case_name"),  # our extractor escapes
        ("see [the docs](https://x.org/a_(b) \"t\") and <https://x.org/raw>", "see the docs and"),  # link text, not URLs
        ("<div class=x>raw <b>html</b></div> a < b", "raw html a < b"),
        ("# Title\n\n> quoted\n\n- one\n- *two*\n1. three", "Title quoted one two three"),
        ("| a | b |\n|---|---|\n| 1 | 2 |", "a b 1 2"),
        ("![logo](x.png) `T.copy` in\n```py\nx = 1\n```", "logo T.copy in x = 1"),
        ("这是**加粗**文本，链接[文档](http://a)。", "这是加粗文本，链接文档。"),
        ("a\\*b\\|c \\[not a link\\](x) 2 * 3 &amp; 4", "a*b|c [not a link](x) 2 * 3 & 4"),
    ],
)
def test_markdown_becomes_the_words_it_shows(written, shown):
    assert plain_text(written) == shown


def test_the_source_page_excerpt_reads_as_the_page_did(project):
    corpus = registry.load(project / "corpus")
    source = corpus.source("cuda-guide")
    raw = corpus.raw_dir(source)
    raw.mkdir(parents=True)
    (raw / "text.md").write_text("# The guide\n\nThe **tile-ai** org ships \\_\\_init\\_\\_.py; see [the docs](https://x.org/a) <b>now</b>.\n", encoding="utf-8")
    write_provenance(raw, Provenance(id=source.id, kind=source.kind, cited_url=source.url, status=Status.OK, fetched_at="2026-12-01T08:00:00Z",
                                     checked_at="2026-12-01T08:00:00Z", text_file="text.md", files=recorded_files(raw, ["text.md"])))
    page = render.build_pages(registry.load(project / "corpus"))["sources/cuda-guide.md"]
    quote = next(line for line in page.splitlines() if line.startswith("> ") and "guide" in line)
    shown = markdown.markdown(quote)
    assert "The guide The tile-ai org ships __init__.py; see the docs now." in shown, shown
    assert "https://x.org/a" not in quote and "<b>" not in quote
    # Out of Material's search index (the full-text index has the mirror's words), label and all.
    body = markdown.markdown(page, extensions=["attr_list", "md_in_html"])
    assert re.search(r'<p data-search-exclude[^>]*>The guide The tile-ai org', body), body
    assert re.search(r'<p data-search-exclude[^>]*><strong>(?:摘录|Excerpt)</strong>', body), body
