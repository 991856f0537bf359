"""An archived page's published copy is bounded, whatever the page (issue 36, item 5).

A real server on 127.0.0.1 serves each page and its styles; `fetch` mirrors them and the
render publishes the archive. A font named by hundreds of `@font-face` rules is published once;
tens of thousands of `style=` attributes make a bounded rule file; a source whose page and
styles are over corpus.yaml's `archive_max_bytes` keeps its page and as many styles as fit,
and its page says so to the reader. Nothing here reaches outside 127.0.0.1.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
import yaml

from corpus_build import registry, render
from corpus_build.core.errors import RegistryError
from corpus_build.core.provenance import Status
from corpus_build.fetch import fetch_corpus
from corpus_build.render import snapshotstyles

from .test_html_fidelity import png


def _archive(files: dict, source_id: str) -> dict[str, bytes | Path]:
    prefix = f"sources/{source_id}/archive/"
    return {name[len(prefix):]: content for name, content in files.items() if name.startswith(prefix) and not name.endswith((".warc.gz", ".webp"))}


def _size(content: bytes | Path) -> int:
    return content.stat().st_size if isinstance(content, Path) else len(content)


def _font(size: int) -> bytes:
    return b"wOF2\x00\x01\x00\x00" + os.urandom(size - 8)  # a WOFF2 header is all the fetch sniffs; the rest is noise that does not compress


def test_a_font_named_by_400_font_face_rules_is_published_once(server, make_corpus, options):
    font = _font(100_000)
    rules = "".join(f"@font-face{{font-family:f{i};src:url(fonts/one.woff2) format('woff2')}}\n" for i in range(400))
    usage = "".join(f".c{i}{{font-family:f{i}}}\n" for i in range(400))
    server.add("/bomb/page.html", '<!doctype html><html><head><title>Fonts</title><link rel="stylesheet" href="bomb.css"><link rel="stylesheet" href="once.css">'
                                  '</head><body><main><h1>Four hundred families</h1><p class="c1">One font file.</p></main></body></html>')
    server.add("/bomb/bomb.css", rules + usage, content_type="text/css")
    server.add("/bomb/once.css", "@font-face{font-family:solo;src:url(fonts/solo.woff2)}\nh1{font-family:solo}", content_type="text/css")
    server.add("/bomb/fonts/one.woff2", font, content_type="font/woff2")
    server.add("/bomb/fonts/solo.woff2", _font(20_000), content_type="font/woff2")
    corpus = make_corpus([{"id": "bomb", "url": server.url("/bomb/page.html"), "kind": "article"}])
    [result] = fetch_corpus(corpus, options)
    assert result.status is Status.OK, result.error
    archive = _archive(render.build_pages(corpus), "bomb")
    total = sum(_size(c) for c in archive.values())
    fonts = [name for name in archive if name.endswith(".woff2")]
    sheets = {name: c for name, c in archive.items() if name.endswith(".css") and isinstance(c, bytes)}
    print(f"published archive: {total:,} bytes in {len(archive)} files; the font is {len(font):,} bytes")
    assert len(fonts) == 1 and _size(archive[fonts[0]]) == len(font)  # the shared font: one file
    bomb = next(c for c in sheets.values() if b"font-family:f399" in c)
    assert bomb.count(f"url({fonts[0].split('/')[1]})".encode()) == 400 and b"data:" not in bomb  # 400 rules, one copy
    assert sum(c.count(b"data:font/woff2;base64,") for c in sheets.values()) == 1  # the font named once stays inside its sheet
    assert total < len(font) + 100_000  # was 400 inlined copies: 53 MB


def test_style_attributes_make_a_bounded_rule_file(server, make_corpus, options):
    distinct = "".join(f'<p style="margin-left:{i}px">d{i}</p>' for i in range(12_000))
    shared = '<p style="color: rgb(1, 2, 3)">s</p>' * 3000
    server.add("/attrs/page.html", f"<!doctype html><html><head><title>Attributes</title></head><body><main><h1>Inline styles</h1>{shared}{distinct}</main></body></html>")
    corpus = make_corpus([{"id": "attrs", "url": server.url("/attrs/page.html"), "kind": "article"}])
    [result] = fetch_corpus(corpus, options)
    assert result.status is Status.OK, result.error
    archive = _archive(render.build_pages(corpus), "attrs")
    [sheet] = [c for name, c in archive.items() if "/attributes-" in name]
    page = archive["page.html"]
    assert isinstance(sheet, bytes) and isinstance(page, bytes)
    rules = sheet.decode().splitlines()
    carrying = re.findall(rb'data-cb-style="(\d+)"', page)
    print(f"attribute rules: {len(rules):,} in {len(sheet):,} bytes, on {len(carrying):,} elements")
    assert len(rules) <= snapshotstyles.ATTRIBUTE_RULES and len(sheet) <= snapshotstyles.ATTRIBUTE_BYTES
    assert len(carrying) <= snapshotstyles.ATTRIBUTE_ELEMENTS
    assert rules[0] == '[data-cb-style="0"]{color:rgb(1, 2, 3)!important}' and carrying.count(b"0") == 3000  # one rule for 3,000 elements
    assert b" style=" not in page  # every attribute left the page, kept as a rule or not at all


ARTICLE = """<!doctype html><html lang="en"><head><title>Heavy styles</title>
<link rel="stylesheet" href="a.css"><link rel="stylesheet" href="b.css"></head>
<body><main><h1>Heavy styles</h1><p class="hero">The words of the page, which the archive always keeps.</p></main></body></html>"""


def test_an_archive_over_the_cap_keeps_its_page_and_says_what_it_left_out(server, make_corpus, options):
    filler = "".join(f".r{i}{{margin:{i}px}}\n" for i in range(3000))  # ~50 KB a sheet
    server.add("/heavy/page.html", ARTICLE)
    server.add("/heavy/a.css", ".hero{background:url(img/big.png)}\n" + filler, content_type="text/css")
    server.add("/heavy/b.css", "h1{color:rgb(9, 9, 9)}\n" + filler, content_type="text/css")
    server.add("/heavy/img/big.png", png(400, 400, pad=200_000), content_type="image/png")
    cap = snapshotstyles.ATTRIBUTE_BYTES + 150_000  # the page, the attribute reserve and the two sheets fit; the image does not
    corpus = make_corpus([{"id": "heavy", "url": server.url("/heavy/page.html"), "kind": "article"}], archive_max_bytes=cap, languages=["zh", "en"])
    [result] = fetch_corpus(corpus, options)
    assert result.status is Status.OK, result.error
    files = render.build_pages(corpus)  # never fails for it
    archive = _archive(files, "heavy")
    total = sum(_size(c) for c in archive.values())
    print(f"published archive: {total:,} bytes under a cap of {cap:,}")
    assert total <= cap and b"The words of the page" in archive["page.html"]  # type: ignore[operator]
    assert len([n for n in archive if n.endswith(".css")]) == 2 and not [n for n in archive if n.endswith(".png")]
    sheet = next(c for c in archive.values() if isinstance(c, bytes) and b".hero" in c)
    assert b".hero{background:none}" in sheet  # the image left out: no request for it
    page = files["sources/heavy.md"]
    said = page[page.index("网页存档已精简"):][:300]  # the reader's note, in the site's language, with no command in it
    assert "省略了 1 个样式文件" in said and "402.5 KB" in said and "corpus-build" not in said
    # Under the default cap nothing is left out, and nothing is said.
    (corpus.root / "corpus.yaml").write_text(yaml.safe_dump({"title": "T", "languages": ["zh", "en"], "fetch": {"recheck_after": 0}}), encoding="utf-8")
    relaxed = render.build_pages(registry.load(corpus.root))
    assert any(n.endswith(".png") for n in _archive(relaxed, "heavy")) and "网页存档已精简" not in relaxed["sources/heavy.md"]


@pytest.mark.parametrize("value", [-1, "20 MB", 10**13, True])
def test_archive_max_bytes_must_be_a_whole_number_of_bytes(tmp_path, value):
    from tests.fetch.conftest import write_corpus

    root = write_corpus(tmp_path, [{"id": "x", "url": "https://example.org/x", "kind": "article"}], archive_max_bytes=value)
    with pytest.raises(RegistryError) as refused:
        registry.load(root)
    assert "archive_max_bytes" in str(refused.value)
