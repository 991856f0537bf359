"""Navigation a page names in its markup (issue 21): a block of nothing but links whose `rel`
says they lead to the page's neighbours (next, prev, up, contents, index) or whose `hreflang` says
they lead to a translation, with at most a label beside them, is navigation wherever it sits;
the same links inside a sentence, a heading or a contents list are the text's. Every page here
is written by hand in the shape a generator emits; none is copied from a site."""

from __future__ import annotations

import lxml.html

from corpus_build.fetch.extract import to_markdown

URL = "https://docs.example.org/manual/tool.html"


def md(html: str, url: str = URL) -> str:
    return to_markdown(lxml.html.document_fromstring(html), url).markdown


def node_header(wrapper: str, next_: str, up: str, prev: str = "", prev_rel: str = "prev") -> str:
    """A texinfo node's navigation line in a one-page manual: in-page anchors, rel on each link."""
    previous = f'Previous: <a href="#{prev}" accesskey="p" rel="{prev_rel}">{prev} node</a>,' if prev else ""
    line = f"""<p>Next: <a href="#{next_}" accesskey="n" rel="next">{next_} node</a>, {previous}
Up: <a href="#{up}" accesskey="u" rel="up">{up} node</a> &nbsp; [<a href="#SEC_Contents" title="Table of contents" rel="contents">Contents</a>][<a href="#Index" title="Index" rel="index">Index</a>]</p>"""
    return f"{wrapper}{line}</div>" if wrapper else line


def test_texinfo_node_headers_between_the_nodes_of_a_one_page_manual_are_navigation():
    # Every node opens with its header, in the middle of the page: no edge scan reaches them,
    # and their links are anchors in the page itself. The manual's contents list (whose last
    # entry also says rel=index) is the page's own text.
    for wrapper in ('<div class="header">', '<div class="nav-panel">', '<div class="node">', ""):
        text = md(f"""<html><body><h1 class="settitle">The Tool Manual</h1>
        <div class="top" id="Top">{node_header(wrapper, "Overview", "dir")}
        <h1 class="top">The Tool Manual</h1><p>This manual documents the tool, version 2.</p>
        <div class="contents"><ul class="no-bullet"><li><a href="#Overview">1 Overview</a></li><li><a href="#Invoking">2 Invoking</a></li>
        <li><a id="toc-Index-1" href="#Index" rel="index">Index</a></li></ul></div></div><hr>
        <div class="chapter" id="Overview">{node_header(wrapper, "Invoking", "Top", prev="Top")}
        <h2 class="chapter">1 Overview</h2><p>The tool copies files between hosts, and only what changed.</p></div><hr>
        <div class="chapter" id="Invoking">{node_header(wrapper, "Index", "Top", prev="Overview", prev_rel="previous")}
        <h2 class="chapter">2 Invoking</h2><p>Give it a source and a destination.</p></div>
        </body></html>""")
        for chrome in ("Next:", "Previous", "Up:", "node]", "Contents"):
            assert chrome not in text, (chrome, wrapper)
        assert f"- [1 Overview]({URL}#Overview)\n- [2 Invoking]({URL}#Invoking)\n- [Index]({URL}#Index)" in text, wrapper
        assert "## 1 Overview\n\nThe tool copies files between hosts, and only what changed." in text
        assert text.endswith("## 2 Invoking\n\nGive it a source and a destination.\n")


def test_makeinfo_4_headers_with_rel_previous_and_a_bar_inside_a_marked_main_region_are_navigation():
    text = md("""<html><body><main><div class="node"><a name="Options"></a>
    <p>Next:&nbsp;<a rel="next" accesskey="n" href="Files.html#Files">Files</a>,
    Previous:&nbsp;<a rel="previous" accesskey="p" href="Invoking.html#Invoking">Invoking</a>,
    Up:&nbsp;<a rel="up" accesskey="u" href="index.html#Top">Top</a></p><hr></div>
    <h2 class="chapter">3 Options</h2><p>Options start with two dashes and may be abbreviated.</p>
    <ul class="chapters"><li><a rel="prev" href="Invoking.html">« Invoking</a></li><li><a rel="next" href="Files.html">Files »</a></li></ul>
    </main></body></html>""")
    for chrome in ("Next", "Previous", "Up:", "Invoking", "Files"):
        assert chrome not in text, chrome
    assert text.startswith("## 3 Options\n\nOptions start with two dashes")


def test_a_two_language_bar_the_current_page_and_one_translation_is_navigation():
    # With one other language the bar links one other page: too little for the repeated-bar rule,
    # but its markup says what it is (hreflang, rel=alternate), and the other link is the page itself.
    bar = """<p><span>Available Languages: </span><a href="../../en/mod/mod_demo.html" title="English">&nbsp;en&nbsp;</a> |
    <a href="../../fr/mod/mod_demo.html" hreflang="fr" rel="alternate" title="Français">&nbsp;fr&nbsp;</a></p>"""
    text = md(f"""<html><body><div id="page-content"><div id="preamble"><h1>Module mod_demo</h1>
    <div class="toplang">{bar}</div>
    <p>This module maps a request's path onto a directory.</p></div>
    <div class="section"><h2>Order</h2><p>Mappings in a virtual host apply first.</p></div></div>
    <div class="bottomlang">{bar}</div></body></html>""", "https://docs.example.org/manual/en/mod/mod_demo.html")
    for chrome in ("Available Languages", "[en]", "[fr]"):
        assert chrome not in text, chrome
    assert text == "# Module mod_demo\n\nThis module maps a request's path onto a directory.\n\n## Order\n\nMappings in a virtual host apply first.\n"


def test_the_same_links_in_prose_in_a_heading_or_among_other_links_stay_text():
    text = md("""<html><body><h1>Chapter 2</h1>
    <p>The first pass reads the whole input before anything is written.</p>
    <p>Continue with <a rel="next" href="ch03.html">the next chapter</a>, which shows how the second pass writes the output.</p>
    <p>See <a rel="next" href="ch03.html">Output</a>.</p>
    <p>Dieses Kapitel gibt es auch <a href="ch02.de.html" hreflang="de">auf Deutsch</a>, in der Übersetzung des Teams.</p>
    <h2><a rel="next" href="ch03.html">What comes next</a></h2>
    <p>The third pass is optional and checks the result.</p>
    <ul><li><a href="ch01.html">Chapter 1</a></li><li><a href="ch03.html" rel="next">Chapter 3</a></li><li><a href="ch04.html">Chapter 4</a></li></ul>
    <p>It ends when the check passes.</p></body></html>""", "https://docs.example.org/manual/ch02.html")
    base = "https://docs.example.org/manual/"
    for kept in (f"Continue with [the next chapter]({base}ch03.html), which shows how the second pass writes the output.",
                 f"See [Output]({base}ch03.html).", f"auch [auf Deutsch]({base}ch02.de.html), in der Übersetzung",
                 f"## [What comes next]({base}ch03.html)",
                 f"- [Chapter 1]({base}ch01.html)\n- [Chapter 3]({base}ch03.html)\n- [Chapter 4]({base}ch04.html)"):
        assert kept in text, kept


def test_a_line_of_links_without_relation_markup_in_the_middle_of_the_text_stays():
    # Only the markup, or the edges of a page, make a line of links navigation: in the middle of
    # the text a bare line of links is the text's (a "see also" line), whatever its words.
    text = md("""<html><body><h1>Setup</h1><p>Install the package, then write its configuration file.</p>
    <p><a href="next.html">Next</a> | <a href="index.html">Up</a> | <a href="prev.html">Previous</a></p>
    <p>The file is read once at start, and again on a reload signal.</p></body></html>""")
    assert "[Next](https://docs.example.org/manual/next.html) | [Up]" in text
