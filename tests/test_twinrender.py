"""site/twinrender.py: the offline copy's page from the site's render, only where that is what converting gives."""

from __future__ import annotations

from types import SimpleNamespace

from corpus_build.site import mirrorblocks, twinrender

_BLOCK = "<p>mirror text</p>"
_KEY = mirrorblocks.held(f"{mirrorblocks.OPAQUE_BEGIN}\n\n{_BLOCK}\n\n{mirrorblocks.OPAQUE_END}")[1][0][0]


def _record(content: str, **changes) -> dict:
    return {"content": content, "calls": [], "logs": [], "toc": [], "title": "T", "anchors": ["a"], **changes}


def _page(markdown: str = "md") -> SimpleNamespace:
    return SimpleNamespace(markdown=markdown, file=None, content=None)


def _derive(content: str, moves=(("../b/", "b.html"),), blocks=(), markdown: str = "md", **changes):
    page = _page(markdown)
    plan = twinrender.Plan("key", tuple(moves), tuple(blocks), "md")
    return twinrender.derive(plan, _record(content, **changes), page, None, None, True), page


def test_a_raw_link_moves_and_the_page_takes_the_site_render():
    calls, page = _derive(f'<p><a href="../b/">b</a> <img src="../b/"> {mirrorblocks.placeholder(_KEY)}</p>',
                          moves=(("../b/", "b.html"), ("../b/", "b.html")), blocks=((_KEY, "f" * 40),))
    assert calls == []
    assert page.content == f'<p><a href="b.html">b</a> <img src="b.html"> {mirrorblocks.placeholder("f" * 40)}</p>'
    assert page._title_from_render == "T" and page.present_anchor_ids == {"a"}


def test_a_moved_value_also_standing_elsewhere_leaves_the_page_to_be_converted():
    # The same letters as text of the page (or a link the page wrote another way): which one moves is unknown.
    assert _derive('<p><a href="../b/">b</a> and <a href="../b/">again</a></p>')[0] is None
    assert _derive('<p>none of it here</p>')[0] is None


def test_what_the_site_render_cannot_say_leaves_the_page_to_be_converted():
    assert _derive('<p><a href="../b/">b</a></p>', logs=[["mkdocs", 30, "a warning"]])[0] is None  # the copy's warning would differ
    assert _derive('<p><a href="../b/">b</a></p>', calls=None)[0] is None  # made by MkDocs' own render: links unrecorded
    assert _derive('<p><a href="../b/">b</a></p>', markdown="md, then a later plugin's listing")[0] is None
    # A block the site's HTML lacks (or holds twice): its text would be missing, or doubled.
    assert _derive('<p><a href="../b/">b</a></p>', blocks=((_KEY, _KEY),))[0] is None


def test_a_page_whose_markdown_differs_or_parses_raw_html_is_converted():
    site = {"x.md": [twinrender._sha("same"), "key"]}
    assert twinrender.plan(site, "x.md", "same", "same", False, lambda path: True, []) is not None
    assert twinrender.plan(site, "x.md", "other", "other", False, lambda path: True, []) is None
    assert twinrender.plan(site, "y.md", "same", "same", False, lambda path: True, []) is None
    parsed = '<div markdown="1">[a](a.md)</div>'
    site["z.md"] = [twinrender._sha(parsed), "key"]
    assert twinrender.plan(site, "z.md", parsed, parsed, False, lambda path: True, []) is None  # md_in_html: MkDocs resolves raw links
    # The copy's Markdown is not the site's with its raw links moved (a plugin before ours differs): converted.
    assert twinrender.plan(site, "x.md", "same", "same, moved", False, lambda path: True, []) is None
