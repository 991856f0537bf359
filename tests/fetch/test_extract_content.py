"""Content against chrome in the main-text walk (issue 21): boxes inside the text, ids that name
sections, permalink markers, layout tables, links in code, navigation at the edges of a page that
marks no main region, and brackets that must still parse. Every page here is written by hand in the
shape a generator emits; none is copied from a site."""

from __future__ import annotations

import re

import lxml.html
import markdown as python_markdown

from corpus_build.fetch.extract import to_markdown

URL = "https://docs.example.org/manual/ch02.html"


def md(html: str, url: str = URL) -> str:
    return to_markdown(lxml.html.document_fromstring(html), url).markdown


def links(text: str) -> list[tuple[str, str]]:
    """(text, href) of every link in the Markdown as python-markdown reads it."""
    page = lxml.html.fragment_fromstring(python_markdown.markdown(text), create_parent="div")
    return [(a.text_content(), a.get("href")) for a in page.iter("a")]


# --- 1. boxes inside the text ------------------------------------------------------------------


def test_sidebar_boxes_inside_the_text_are_content_and_navigation_sidebars_are_not():
    docbook = md("""<html><body><div class="navheader"><a href="ch01.html">Prev</a></div>
    <div class="chapter"><div class="titlepage"><h1 class="title">Chapter 2. Packaging</h1></div>
    <p>Packages are built from a source tree with a debian directory in it.</p>
    <div class="sidebar"><div class="titlepage"><div><div><p class="title"><strong>TIP: Build in a clean chroot</strong></p></div></div></div>
    <p>A clean chroot shows the build dependencies you forgot to declare.</p></div>
    <p>The next section explains the control file.</p></div>
    <div class="sidebar"><ul><li><a href="/">Home of the site</a></li><li><a href="/search">Search the site</a></li></ul></div>
    </body></html>""")
    assert "**TIP: Build in a clean chroot**" in docbook
    assert "A clean chroot shows the build dependencies you forgot to declare." in docbook
    assert "Home of the site" not in docbook and "Search the site" not in docbook

    sphinx = md("""<html><body><div class="sphinxsidebar" role="navigation"><p>Quick search of the docs</p></div>
    <div class="body" role="main"><section id="intro"><h1>Introduction</h1><p>This page is the reference of the module.</p>
    <aside class="sidebar"><p class="sidebar-title">Tutorial</p><p>For a gentler introduction, read the tutorial first.</p></aside>
    <p>The module parses command lines.</p></section></div></body></html>""")
    assert "Tutorial\n\nFor a gentler introduction, read the tutorial first." in sphinx
    assert "Quick search" not in sphinx


def test_an_aside_holding_prose_inside_a_page_without_main_is_kept_a_link_aside_beside_it_is_not():
    text = md("""<html><body><div class="content"><h1>Release notes</h1><p>This release changes the file format.</p>
    <aside><p>Back to basics: a format is the layout of bytes in a file.</p></aside><p>Old files are converted.</p></div>
    <aside><h3>Elsewhere</h3><ul><li><a href="/a">Another page</a></li><li><a href="/b">A second page</a></li></ul></aside></body></html>""")
    assert "Back to basics: a format is the layout of bytes in a file." in text
    assert "Another page" not in text and "Elsewhere" not in text


# --- 2. ids name things ------------------------------------------------------------------------


def test_a_section_or_heading_whose_id_is_a_chrome_word_is_content():
    text = md("""<html><body><main><h1>HTTP client</h1><p>The client keeps state between requests.</p>
    <section id="cookies"><h2>Cookies</h2><p>Cookies received from a server are stored in a jar and sent back.</p></section>
    <h2 id="nav">Nav</h2><p>The nav element holds links.</p>
    <div id="menu"><a href="/a">One link</a> <a href="/b">Another link</a></div></main></body></html>""")
    assert "## Cookies\n\nCookies received from a server are stored in a jar and sent back." in text
    assert "## Nav\n\nThe nav element holds links." in text
    assert "One link" not in text  # an id-named menu of links is still chrome


# --- 3. permalink markers ----------------------------------------------------------------------


def test_only_permalink_markers_are_dropped_not_the_word_link():
    text = md("""<html><body><main><h2 id="opts">Options<a class="headerlink" href="#opts">¶</a></h2>
    <h2 id="more">More <a href="#more">#</a></h2>
    <p>Each entry has a <a href="#opts">link</a> to its option, and the <a href="#more">🔗</a> marker.</p></main></body></html>""")
    assert f"a [link]({URL}#opts) to its option" in text
    assert "## Options\n" in text and "## More\n" in text
    assert "¶" not in text and "🔗" not in text


# --- 5. layout tables --------------------------------------------------------------------------


def test_layout_tables_are_unwrapped_and_nested_data_tables_keep_their_cells():
    text = md("""<html><body><main><table border="0" width="100%"><tr><td valign="top">
    <h2>Tape formats</h2><p>Tape drives differ in capacity.</p>
    <table border="1"><tr><th>Format</th><th>Typical capacity</th></tr><tr><td>DLT IV</td><td>40 GB</td></tr><tr><td>LTO-1</td><td>100 GB</td></tr></table>
    </td><td valign="top"><ul><li>See the drive's manual.</li><li>Clean the heads.</li></ul></td></tr></table></main></body></html>""")
    assert "## Tape formats\n\nTape drives differ in capacity." in text
    assert "| Format | Typical capacity |\n|---|---|\n| DLT IV | 40 GB |\n| LTO-1 | 100 GB |" in text
    assert "- See the drive's manual.\n- Clean the heads." in text
    assert len(re.findall(r"^\|---", text, re.M)) == 1  # the outer table is not a table in the Markdown


def test_data_tables_stay_tables_even_with_a_paragraph_in_each_cell():
    text = md("""<html><body><main><table><thead><tr><th><p>Name</p></th><th><p>Meaning</p></th></tr></thead>
    <tbody><tr><td><p>a</p></td><td><p>first</p></td></tr><tr><td><p>b</p></td><td><p>second</p></td></tr></tbody></table></main></body></html>""")
    assert "| Name | Meaning |\n|---|---|\n| a | first |\n| b | second |" in text


# --- 6. links in code --------------------------------------------------------------------------


def test_links_inside_code_and_pre_are_kept():
    text = md("""<html><body><main><p>Returns a <code><a href="../io/index.html#Reader">Reader</a></code> and
    takes <code>func(<a href="#Mutex">Mutex</a>) error</code>.</p>
    <pre>type Pool struct {
    New func() <a href="/pkg/builtin/#any">any</a>
}</pre></main></body></html>""", "https://go.example.org/pkg/sync/")
    assert "[`Reader`](https://go.example.org/pkg/io/index.html#Reader)" in text
    assert ("`func(`[`Mutex`](https://go.example.org/pkg/sync/#Mutex)`) error`") in text
    assert "```\ntype Pool struct {\n    New func() any\n}\n```" in text  # the code verbatim
    assert ("any", "https://go.example.org/pkg/builtin/#any") in links(text)  # and where its link went
    assert ("Reader", "https://go.example.org/pkg/io/index.html#Reader") in links(text)


# --- 7. navigation in a page that marks no main region -----------------------------------------

NO_MAIN = """<html><body>
<p class="crumbs"><a href="/">Docs</a> &gt; <a href="/manual/">Manual</a> &gt; Chapter 2</p>
<ul class="docnav"><li><a href="ch01.html">Prev</a></li><li><a href="index.html">Up</a></li><li><a href="/">Home</a></li><li><a href="ch03.html">Next</a></li></ul>
<div class="langbar"><a href="ch02.de.html">Deutsch</a> | <a href="ch02.fr.html">Français</a> | <a href="ch02.zh.html">中文</a></div>
<div class="chapter"><h1>Chapter 2. Storage</h1>
<details><summary>Contents</summary><ul><li><a href="#disks">Disks</a></li><li><a href="#tapes">Tapes</a></li></ul></details>
<div class="toc"><p><b>Table of Contents</b></p><dl><dt><a href="ch02.html#disks">2.1. Disks</a></dt><dt><a href="ch02.html#tapes">2.2. Tapes</a></dt></dl></div>
<h2 id="disks">2.1. Disks</h2><p>Disks hold the data that is read often. They are partitioned before use, and each partition holds one file system.</p>
<h2 id="tapes">2.2. Tapes</h2><p>Tapes hold the backups that are read rarely, and they are kept off site in a safe.</p>
<h2>See also</h2><ul><li><a href="ch05.html">Chapter 5, Backups</a></li></ul></div>
<table width="100%"><tr><td><a href="ch01.html">Prev</a></td><td><a href="index.html">Up</a></td><td><a href="ch03.html">Next</a></td></tr>
<tr><td>Chapter 1. Basics</td><td><a href="/">Home</a></td><td>Chapter 3. Networks</td></tr></table>
</body></html>"""


def test_link_bars_at_the_edges_of_a_page_without_main_are_navigation():
    text = md(NO_MAIN)
    for chrome in ("Prev", "Next", "Deutsch", "中文", "Manual", "Chapter 1. Basics", "Chapter 3. Networks"):
        assert chrome not in text, chrome
    assert "[Disks](#disks)" not in text and f"[Disks]({URL}#disks)" not in text  # the folded contents widget
    assert text.startswith("# Chapter 2. Storage")
    assert f"[2.1. Disks]({URL}#disks)" in text  # the chapter's own visible contents are text
    assert "## See also\n\n- [Chapter 5, Backups](https://docs.example.org/manual/ch05.html)" in text  # a section's list of links
    assert "Tapes hold the backups" in text


def test_a_language_bar_under_the_title_and_a_path_bar_are_navigation_a_closing_footnote_is_text():
    text = md("""<html><body><div id="page-header"><p class="menu"><a href="/mod/">Modules</a> | <a href="/dir/">Directives</a> | <a href="/faq/">FAQ</a></p></div>
    <div id="path"><a href="/">Server</a> &gt; <a href="/docs/">Documentation</a> &gt; <a href="/docs/2.4/">Version 2.4</a></div>
    <div id="page-content"><div id="preamble"><h1>Binding to addresses</h1>
    <div class="toplang"><p><span>Available languages: </span><a href="bind.de.html">de</a> | <a href="bind.en.html">en</a> | <a href="bind.fr.html">fr</a></p></div>
    <p>The server binds to the addresses and ports named by its configuration, and to every interface when none is named.</p>
    <p>Binding to a port below 1024 needs the privileges of the superuser.<sup><a href="#fn1">1</a></sup></p>
    <div class="notes"><p id="fn1">1. See <a href="/security.html">security tips</a> and <a href="/privileges.html">privileges</a>.</p></div></div></div>
    <div class="bottomlang"><p><span>Available languages: </span><a href="bind.de.html">de</a> | <a href="bind.en.html">en</a> | <a href="bind.fr.html">fr</a></p></div>
    </body></html>""")
    for chrome in ("Modules", "Documentation", "Available languages", "[de]"):
        assert chrome not in text, chrome
    assert text.startswith("# Binding to addresses\n\nThe server binds")
    assert "1\\. See [security tips](https://docs.example.org/security.html) and [privileges](https://docs.example.org/privileges.html)." in text


def test_a_page_that_is_a_list_of_links_keeps_it():
    text = md("""<html><body><h1>Manuals</h1><ul><li><a href="a.html">Administration guide</a></li>
    <li><a href="b.html">Packaging guide</a></li><li><a href="c.html">Reference card</a></li></ul></body></html>""")
    assert "- [Administration guide](https://docs.example.org/manual/a.html)" in text and "Reference card" in text


# --- 8. brackets that still parse --------------------------------------------------------------


def test_brackets_split_across_text_nodes_keep_links_parseable():
    html = """<html><body><main><p>An array <code>[</code>of<a href="a.html">items]</a> and [<a href="b.html">b</a>] and
    <span>x]</span><a href="c.html">c</a>(d) and Wow!<a href="e.html">e</a> and <em>[</em><a href="f.html">f</a><em>](g)</em></p>
    <p><img src="warning.png" alt="[Warning]"> Keep backups.</p></main></body></html>"""
    text = md(html)
    got = links(text)
    base = "https://docs.example.org/manual/"
    assert got == [("items]", base + "a.html"), ("b", base + "b.html"), ("c", base + "c.html"), ("e", base + "e.html"), ("f", base + "f.html")], text
    page = lxml.html.fragment_fromstring(python_markdown.markdown(text), create_parent="div")
    assert re.sub(r"\s+", " ", page.text_content()).strip() == "An array [ofitems] and [b] and x]c(d) and Wow!e and [f](g) Keep backups."
    assert [(img.get("src"), img.get("alt")) for img in page.iter("img")] == [(base + "warning.png", "Warning")]  # an alt in brackets


# --- 9. manuals' own bars: DocBook/Publican, an httpd-like manual, GNU texinfo (issue 21) -------

CH03 = "https://docs.example.org/manual/ch03.html"
DOCNAV_TOP = """<ul class="docnav top"><li class="previous"><a accesskey="p" href="ch02.html"><strong>Prev</strong></a></li>
<li class="home">The Storage Guide</li><li class="next"><a accesskey="n" href="ch03s02.html"><strong>Next</strong></a></li></ul>"""
DOCNAV_BOTTOM = """<ul class="docnav"><li class="previous"><a accesskey="p" href="ch02.html"><strong>Prev</strong>Chapter 2. Volumes</a></li>
<li class="up"><a accesskey="u" href="#top"><strong>Up</strong></a></li><li class="home"><a accesskey="h" href="index.html"><strong>Home</strong></a></li>
<li class="next"><a accesskey="n" href="ch03s02.html"><strong>Next</strong>3.2. LVM pools</a></li></ul>"""


def test_publican_logo_bar_docnav_and_edit_links_are_not_the_text():
    text = md(f"""<html><head><title>Chapter 3. Storage Pools</title></head><body>
    <p id="title"><a class="left" href="https://product.example.org/"><img alt="Product Site" src="left.png"></a><a class="right" href="https://docs.example.org/"><img alt="Documentation Site" src="right.png"></a></p>
    {DOCNAV_TOP}
    <div class="chapter"><div class="titlepage"><div><div><h1 class="title">Chapter 3. Storage Pools</h1></div></div></div>
    <div class="para">A storage pool is storage set aside for the guests, shared by all of them and carved into volumes.</div>
    <div class="section"><div class="titlepage"><div><div><h2 class="title">3.1. Directory pools</h2></div></div></div>
    <div class="para">A directory pool keeps each volume as a file in one directory of the host.</div>
    <div class="para">It needs no special hardware.</div>
    <p><a href="https://git.example.org/guide/edit/pools.xml">Edit this page</a> · <a href="https://bugs.example.org/new?c=guide">Report a bug</a></p></div></div>
    {DOCNAV_BOTTOM}</body></html>""", CH03)
    for chrome in ("Product Site", "Prev", "The Storage Guide", "Chapter 2. Volumes", "LVM pools", "Home", "Edit this page", "Report a bug"):
        assert chrome not in text, chrome
    assert text.startswith("# Chapter 3. Storage Pools\n\nA storage pool is storage")
    assert text.endswith("It needs no special hardware.\n")


def test_docbook_title_and_product_lines_linking_to_the_start_are_a_masthead():
    text = md("""<html><head><title>3.2. LVM pools</title></head><body>
    <div class="titlebar"><a href="index.html">The Storage Guide</a></div>
    <div class="product"><a href="index.html">Example Virtualisation 4.2</a></div>
    <div class="section"><h2 class="title">3.2. LVM pools</h2>
    <p>An LVM pool hands each guest a logical volume of one volume group, faster than a file.</p>
    <p>Create the volume group first. See <a href="ch03.html">Chapter 3</a> and <a href="index.html">the start</a>.</p></div>
    <table width="100%"><tr><td><a href="ch03.html">Prev</a></td><td><a href="ch03.html">Up</a></td><td><a href="ch03s03.html">Next</a></td></tr>
    <tr><td>Chapter 3. Storage Pools</td><td><a href="index.html">Home</a></td><td>3.3. iSCSI pools</td></tr></table></body></html>""",
             "https://docs.example.org/manual/ch03s02.html")
    for chrome in ("The Storage Guide", "Example Virtualisation", "Prev", "iSCSI"):
        assert chrome not in text, chrome
    assert text.startswith("## 3.2. LVM pools\n\nAn LVM pool")
    assert "See [Chapter 3](https://docs.example.org/manual/ch03.html) and [the start](https://docs.example.org/manual/index.html)." in text


LANGS = "".join(f'<a href="../{code}/mod/mod_demo.html" hreflang="{code}">&nbsp;{code}&nbsp;</a> |\n' for code in ("de", "en", "es", "fr", "ja", "ko", "zh-cn"))


def test_httpd_like_language_bars_breadcrumb_and_comments_are_not_the_text():
    text = md(f"""<html><head><title>mod_demo - Web Server 2.4</title></head><body>
    <div id="page-header"><p class="menu"><a href="../mod/">Modules</a> | <a href="../mod/directives.html">Directives</a> | <a href="../faq/">FAQ</a></p>
    <p class="apache">Example Web Server Version 2.4</p><img alt="" src="../images/feather.png"></div>
    <div class="up"><a href="./"><img alt="&lt;-" src="../images/left.gif"></a></div>
    <div id="path"><a href="https://www.example.org/">Example</a> &gt; <a href="https://server.example.org/">Web Server</a> &gt; <a href="../">Version 2.4</a> &gt; <a href="./">Modules</a></div>
    <div id="page-content"><div id="preamble"><h1>Module mod_demo</h1>
    <div class="toplang"><p><span>Available Languages: </span>{LANGS}</p></div>
    <p>The directives of this module map a request's path onto a directory, and redirect paths that moved.</p></div>
    <div class="section"><h2><a name="order" id="order">Order of processing</a></h2>
    <p>Mappings in a virtual host apply before those of the main server; the first that matches wins.</p></div></div>
    <div class="bottomlang"><p><span>Available Languages: </span>{LANGS}</p></div>
    <div class="top"><a href="#page-header"><img src="../images/up.gif" alt="top"></a></div>
    <div class="section"><h2><a id="comments_section" name="comments_section">Comments</a></h2><div class="warning"><strong>Notice:</strong><br>
    This is no place for questions; comments should suggest improvements to the documentation.</div><script>var shortname = 'demo';</script></div>
    <div id="footer"><p class="menu"><a href="../mod/">Modules</a> | <a href="../mod/directives.html">Directives</a> | <a href="../faq/">FAQ</a></p></div>
    </body></html>""")
    for chrome in ("Available Languages", "zh-cn", "Example Web Server", "Version 2.4", "feather", "left.gif", "up.gif", "Comments", "no place for questions"):
        assert chrome not in text, chrome
    assert text.startswith("# Module mod_demo\n\nThe directives of this module")
    assert text.endswith("the first that matches wins.\n")


TEXINFO_NAV = """Next: <a href="Options.html" accesskey="n" rel="next">Options</a>, Previous: <a href="Overview.html" accesskey="p" rel="prev">Overview</a>,
Up: <a href="index.html" accesskey="u" rel="up">Top</a> &nbsp; [<a href="index.html#SEC_Contents" rel="contents">Contents</a>][<a href="Index.html" rel="index">Index</a>]"""


def test_texinfo_node_headers_at_top_and_bottom_are_navigation():
    body = """<h2 class="chapter">2 Invoking the program</h2>
    <p>Give the program a source and a destination; either may name a remote host, a colon and a path.</p>
    <p>Without a destination it lists the source.</p>"""
    for shape in (
        f'<div class="chapter-level-extent" id="Invoking"><div class="nav-panel"><p>{TEXINFO_NAV}</p></div><hr>{body}<hr><div class="nav-panel"><p>{TEXINFO_NAV}</p></div></div>',
        f'<div class="chapter" id="Invoking"><div class="header"><p>{TEXINFO_NAV}</p></div><hr>{body}<hr><div class="header"><p>{TEXINFO_NAV}</p></div></div>',
        f"<p>{TEXINFO_NAV}</p><hr>{body}<hr><p>{TEXINFO_NAV}</p>",
    ):
        text = md(f"<html><body>{shape}</body></html>")
        for chrome in ("Next:", "Previous", "Contents", "Index", "---"):
            assert chrome not in text, (chrome, shape[:40])
        assert text == "## 2 Invoking the program\n\nGive the program a source and a destination; either may name a remote host, a colon and a path.\n\nWithout a destination it lists the source.\n"


def test_publican_sidebars_first_last_or_alone_in_their_section_are_text():
    text = md(f"""<html><body>{DOCNAV_TOP}
    <div class="section"><div class="titlepage"><div><div><h2 class="title">4.2. Partitioning</h2></div></div></div>
    <div class="sidebar"><div class="titlepage"><div><div><p class="title"><strong><span class="emphasis"><em>BACK TO BASICS</em></span> Partitions</strong></p></div></div></div>
    <p>A partition is a slice of a disk, and a file system is the way files are laid out inside one.</p></div>
    <p>The installer proposes a layout that suits most machines.</p>
    <div class="sidebar"><div class="titlepage"><div><div><p class="title"><strong>COMPLEMENTS Encrypted partitions</strong></p></div></div></div>
    <p>An encrypted partition asks for its passphrase at boot.</p></div></div>
    <div class="section"><div class="titlepage"><div><div><h3 class="title">4.2.1. Swap</h3></div></div></div>
    <div class="sidebar"><div class="titlepage"><div><div><p class="title"><strong>TIP Size of the swap</strong></p></div></div></div>
    <p>A few gigabytes are enough unless you hibernate.</p></div></div>
    {DOCNAV_BOTTOM}</body></html>""", CH03)
    for kept in ("BACK TO BASICS", "A partition is a slice", "COMPLEMENTS Encrypted partitions", "asks for its passphrase",
                 "### 4.2.1. Swap\n\n**TIP Size of the swap**\n\nA few gigabytes are enough unless you hibernate."):
        assert kept in text, kept
    assert "Prev" not in text and "The Storage Guide" not in text


def test_closing_prose_with_links_to_other_sites_and_a_references_list_stay_beside_the_bars():
    text = md(f"""<html><body>{DOCNAV_TOP}<div class="section"><h1>Install</h1>
    <p>Install the package from the archive with the usual tools of your system.</p>
    <h2>References</h2><ul><li><a href="https://upstream.example.com/manual">Upstream manual</a></li><li><a href="https://wiki.example.net/Install">The wiki</a></li></ul>
    <p>See the <a href="https://upstream.example.com/faq">upstream FAQ</a>.</p></div>{DOCNAV_BOTTOM}</body></html>""", CH03)
    assert "## References\n\n- [Upstream manual](https://upstream.example.com/manual)\n- [The wiki](https://wiki.example.net/Install)" in text
    assert text.endswith("See the [upstream FAQ](https://upstream.example.com/faq).\n")
    assert "Prev" not in text and "The Storage Guide" not in text
