"""An HTML page's stylesheets kept for its archived copy (issue 21): the linked sheets, what they
@import, the images and fonts they name, each through the run's client, failures recorded.

A real server on 127.0.0.1 serves the page, its sheets, a background image and a font header
made here; nothing comes from outside.
"""

from __future__ import annotations

from dataclasses import replace

from corpus_build.core.provenance import Provenance, Status, read_provenance
from corpus_build.fetch import fetch_corpus

from .test_html_fidelity import png

PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Styled guide</title>
<link rel="stylesheet" href="css/site.css">
<link rel="alternate stylesheet" href="css/alt.css" title="other">
<link rel="stylesheet" href="/missing.css">
<link rel="stylesheet" href="css/wrong-type.css">
<link rel="icon" href="/favicon.ico">
<style>@import url("/css/inline-import.css"); .note { background: url(img/note.png) }</style>
</head><body><main><h1 class="title">Styled guide</h1><p class="lead" style="background-image: url('img/attr.png')">Words shown in the site's colours.</p></main></body></html>"""
SITE_CSS = """@charset "utf-8";
@import "theme.css";
@font-face { font-family: Guide; src: url(../fonts/guide.eot) format("embedded-opentype"), url(../fonts/guide.woff2) format("woff2"); }
body { font-family: Guide, serif; background: #fafafa url("../img/bg.png") repeat-x; }
.logo { background: url(http://127.0.0.1:9/elsewhere.png); }
.vector { background: url(../img/icon.svg); }
"""
THEME_CSS = """@import url(deeper.css); h1.title { color: rgb(200, 16, 46); font-size: 31px; }"""
DEEPER_CSS = """@import url(deepest.css); p.lead { letter-spacing: 2px; }"""
DEEPEST_CSS = """@import url(too-deep.css); p { margin: 0 }"""
SVG = b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'
IMAGES = {"/guide/img/bg.png": 6, "/guide/img/note.png": 5, "/guide/img/attr.png": 4}
WOFF2 = b"wOF2\x00\x01\x00\x00" + b"\x00" * 40  # a header is all the sniffing reads


def _serve(server) -> None:
    server.add("/guide/index.html", PAGE)
    for path, body in (("/guide/css/site.css", SITE_CSS), ("/guide/css/theme.css", THEME_CSS), ("/guide/css/deeper.css", DEEPER_CSS),
                       ("/guide/css/deepest.css", DEEPEST_CSS), ("/guide/css/alt.css", "p{color:red}"), ("/css/inline-import.css", ".x{color:blue}")):
        server.add(path, body, content_type="text/css; charset=utf-8")
    server.add("/guide/css/wrong-type.css", "<html>soft 404</html>", content_type="text/html")
    for path, width in IMAGES.items():
        server.add(path, png(width, 3), content_type="image/png")
    server.add("/guide/img/icon.svg", SVG, content_type="image/svg+xml")
    server.add("/guide/fonts/guide.woff2", WOFF2, content_type="application/octet-stream")  # a type CDNs send: the bytes decide


def _record(corpus, source_id: str) -> Provenance:
    record = read_provenance(corpus.raw_dir(corpus.source(source_id)))
    assert record is not None
    return record


def test_stylesheets_imports_images_and_fonts_are_kept_and_failures_recorded(server, make_corpus, options):
    _serve(server)
    corpus = make_corpus([{"id": "guide", "url": server.url("/guide/index.html"), "kind": "docs"}])
    [result] = fetch_corpus(corpus, options)
    assert result.status is Status.OK, result.error
    raw = corpus.raw_dir(corpus.source("guide"))
    record = _record(corpus, "guide")
    by_url = {s.url: s for s in record.document.style_files}
    site = by_url[server.url("/guide/css/site.css")]
    assert site.role == "stylesheet" and site.path.startswith("styles/") and site.path.endswith(".css")
    assert (raw / site.path).read_text(encoding="utf-8") == SITE_CSS  # kept as sent; render sanitises
    assert by_url[server.url("/guide/css/theme.css")].role == "import" and by_url[server.url("/guide/css/deeper.css")].path
    assert by_url[server.url("/guide/css/deepest.css")].path  # three levels of @import
    assert "deeper than 3" in by_url[server.url("/guide/css/too-deep.css")].error and server.count("/guide/css/too-deep.css") == 0
    assert by_url[server.url("/css/inline-import.css")].role == "import"  # named by a <style> block
    for path, width in IMAGES.items():
        image = by_url[server.url(path)]
        assert image.role == "image" and image.path.endswith(".png") and (raw / image.path).read_bytes() == png(width, 3)
    font = by_url[server.url("/guide/fonts/guide.woff2")]
    assert font.role == "font" and font.path.endswith(".woff2")
    assert server.count("/guide/fonts/guide.eot") == 0  # no browser of ours picks it beside WOFF2
    assert "neither a raster image" in by_url[server.url("/guide/img/icon.svg")].error and not by_url[server.url("/guide/img/icon.svg")].path
    assert "HTTP 404" in by_url[server.url("/missing.css")].error
    assert "'text/html' is not a stylesheet" in by_url[server.url("/guide/css/wrong-type.css")].error
    elsewhere = by_url["http://127.0.0.1:9/elsewhere.png"]  # a port nothing listens on: recorded, not fatal
    assert elsewhere.error and not elsewhere.path
    assert server.count("/guide/css/alt.css") == 0 and server.count("/favicon.ico") == 0  # not the page's own look
    assert not [p for p in (raw / "styles").iterdir() if p.suffix == ".part" or p.name.startswith(".")]
    kept = {s.path for s in record.document.style_files if s.path}
    assert kept <= {f.path for f in record.files}  # hashed like every file of the mirror
    from warcio.archiveiterator import ArchiveIterator

    with open(raw / record.warc_file, "rb") as handle:
        captured = {r.rec_headers.get_header("WARC-Target-URI") for r in ArchiveIterator(handle) if r.rec_type == "response"}
    assert server.url("/guide/css/site.css") in captured and server.url("/guide/img/bg.png") in captured


def test_style_cap_per_source_and_zero_keeps_none(server, make_corpus, options):
    _serve(server)
    corpus = make_corpus([{"id": "guide", "url": server.url("/guide/index.html"), "kind": "docs"}])
    [result] = fetch_corpus(corpus, replace(options, max_styles=2))
    assert result.status is Status.OK, result.error
    files = _record(corpus, "guide").document.style_files
    assert sum(1 for s in files if not s.error.startswith("not kept: over the cap")) == 2
    assert any("fetch.max_styles" in s.error for s in files)
    before = len(server.hits)
    [again] = fetch_corpus(corpus, replace(options, max_styles=0, force=True))
    assert again.status is Status.OK and _record(corpus, "guide").document.style_files == ()
    assert [h.path for h in server.hits[before:]] == ["/guide/index.html"]


def test_records_from_before_styles_still_load():
    old = {"id": "x", "kind": "docs", "cited_url": "https://example.org/", "status": "ok", "document": {"title": "T", "image_files": []}}
    assert Provenance.from_dict(old).document.style_files == ()
    odd = {**old, "document": {"style_files": [{"url": "https://example.org/a.css", "role": "stylesheet", "path": "styles/a.css", "later_field": 1}, "junk"]}}
    [style] = Provenance.from_dict(odd).document.style_files
    assert style.path == "styles/a.css"
    record = Provenance.from_dict(odd)
    assert Provenance.from_dict(record.to_dict()) == record
