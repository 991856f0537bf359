"""A PDF's text layer as searchable text (issue 21): ligature characters folded to their letters,
control characters (a NUL from a broken ToUnicode map) dropped. The PDF is made here with a
system font and served by a real local server."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from corpus_build.core.provenance import Status
from corpus_build.fetch import fetch_corpus

FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")  # Debian's fonts-dejavu-core, which has ﬁ and ﬂ


@pytest.mark.skipif(not FONT.is_file(), reason="needs fonts-dejavu-core")
def test_ligatures_fold_and_control_characters_go(server, make_corpus, options):
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "The \ufb01rst \ufb02ow, e\ufb00ort and su\ufb03x; a\x00b\x07c", fontfile=str(FONT), fontname="dv")
    page.insert_text((72, 100), "x² and № stay as printed", fontfile=str(FONT), fontname="dv")  # NFKC would fold these
    font = pymupdf.Font(fontfile=str(FONT))
    x = 72 + font.text_length("The results", fontsize=11)
    page.insert_text((72, 130), "The results", fontfile=str(FONT), fontname="dv")
    page.insert_text((x, 126.5), "12", fontsize=7, fontfile=str(FONT), fontname="dv")  # a raised footnote mark
    page.insert_text((x + font.text_length("12", fontsize=7), 130), " show the trend in H2O.", fontfile=str(FONT), fontname="dv")
    doc.set_metadata({"title": "The \ufb01rst\x00 manual"})
    raw = doc.tobytes()
    assert "\ufb01" in pymupdf.open(stream=raw, filetype="pdf")[0].get_text()  # the text layer really holds the ligature
    server.add("/manual.pdf", raw, content_type="application/pdf")
    corpus = make_corpus([{"id": "manual", "url": server.url("/manual.pdf"), "kind": "paper"}])
    [result] = fetch_corpus(corpus, options)
    assert result.status is Status.OK, result.error
    text = (corpus.raw_dir(corpus.source("manual")) / "text.md").read_text(encoding="utf-8")
    assert "The first flow, effort and suffix; abc" in text
    assert not any(0xFB00 <= ord(c) <= 0xFB4F for c in text) and "\x00" not in text and "\x07" not in text
    assert "x² and № stay as printed" in text  # only the ligatures are folded
    assert "The results¹² show the trend in H2O." in text  # the mark set apart from the word, a digit in a word left alone
    assert "\n" in text.strip()  # lines are kept
    from corpus_build.core.provenance import read_provenance

    assert read_provenance(corpus.raw_dir(corpus.source("manual"))).document.title == "The first manual"
