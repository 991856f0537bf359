"""render/snapshotstyles.py through mirror.snapshot_page: an archived page's links, <style> blocks
and style= attributes, with the published copies given by hand (the fetch side: tests/fetch/test_styles.py)."""

from __future__ import annotations

import re

from corpus_build.render.mirror import SNAPSHOT_CSP, snapshot_page
from corpus_build.render.snapshotstyles import PublishedStyles

PAGE_URL = "https://docs.example.org/guide/intro.html"
STYLES = PublishedStyles(
    sheets={"https://docs.example.org/static/site.css": "0123456789abcdef0123.css", "https://cdn.example.net/print.css": "1111111111aaaaaaaaaa.css"},
    assets={"https://docs.example.org/guide/img/bg.png": "2222222222bbbbbbbbbb.png"},
)


def _page(body: str) -> tuple[str, dict[str, bytes]]:
    html, made = snapshot_page(body.encode(), (PAGE_URL,), {}, STYLES)
    return html.decode(), made


def test_links_point_at_the_copies_in_place_and_the_rest_goes():
    html, _ = _page("""<html><head><base href="/static/">
<link rel="stylesheet" href="site.css"><link rel="stylesheet" href="https://cdn.example.net/print.css" media="print" integrity="sha384-x" crossorigin>
<link rel="alternate stylesheet" href="site.css" title="alt"><link rel="stylesheet" href="site.css" disabled>
<link rel="stylesheet" href="https://evil.example/x.css"><link rel="preload" as="style" href="site.css"><link rel="icon" href="/favicon.ico">
</head><body><p>Words</p></body></html>""")
    links = re.findall(r"<link[^>]*>", html)
    assert links == ['<link href="styles/0123456789abcdef0123.css" rel="stylesheet"/>',
                     '<link href="styles/1111111111aaaaaaaaaa.css" media="print" rel="stylesheet"/>'], links  # <base href> honoured
    assert f'content="{SNAPSHOT_CSP}"' in html and "evil" not in html and "integrity" not in html


def test_style_blocks_and_attributes_become_files_the_policy_allows():
    html, made = _page("""<html><head><link rel="stylesheet" href="/static/site.css">
<style>.hero { background: url(img/bg.png); color: rgb(1, 2, 3) } .x { background: url(https://evil.example/t.png) }</style>
<style media="print">body { font-size: 10pt }</style>
<style type="text/less">@c: red; a { color: @c }</style>
<style>.only-script { behavior: url(x.htc) }</style>
</head><body><p style="color: red; background: url('img/bg.png'); width: expression(alert(1))">A</p><p style="">B</p>
<svg><style>circle { fill: blue }</style><circle r="2"/></svg></body></html>""")
    head = html[html.index("<head>"):html.index("</head>")]
    hrefs = re.findall(r'<link href="([^"]*)"', head)
    assert hrefs[0] == "styles/0123456789abcdef0123.css" and hrefs[1].startswith("styles/inline-") and hrefs[2].startswith("styles/inline-")
    assert 'media="print"' in head and "<style" not in html and not re.search(r"\sstyle=", html)
    assert made[hrefs[1]] == b".hero{background:url(2222222222bbbbbbbbbb.png);color:rgb(1, 2, 3)}\n.x{background:none}"
    assert made[hrefs[2]] == b"body{font-size:10pt}"
    assert not any(b"@c" in data or b"htc" in data for data in made.values())  # a less sheet is not CSS; an emptied block leaves no file
    attributes = next(name for name in made if "/attributes-" in name)
    assert made[attributes] == b'[data-cb-style="0"]{color:red!important;background:url(2222222222bbbbbbbbbb.png)!important}'
    assert hrefs[-1] == attributes and hrefs[-2].startswith("styles/inline-")  # the svg's block and the attributes: last, so they win as inline styles do
    assert made[hrefs[-2]] == b"circle{fill:blue}"
    assert '<p data-cb-style="0">A</p><p>B</p>' in html
    assert len(made) == 4


def test_without_copies_the_page_links_nothing():
    html, made = snapshot_page(b"<html><head><link rel=stylesheet href=/static/site.css></head><body></body></html>", (PAGE_URL,))
    assert b"<link" not in html and made == {}
