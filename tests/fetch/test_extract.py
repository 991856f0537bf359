"""The main-text walk on the shapes manuals use (no server: a pure function of the parsed page)."""

from __future__ import annotations

import lxml.html

from corpus_build.fetch.extract import shell_signals, to_markdown


def md(html: str, url: str = "https://docs.example.org/guide/v1/page.html") -> str:
    return to_markdown(lxml.html.document_fromstring(html), url).markdown


def test_man_page_header_synopsis_and_options():
    text = md("""<html><body><div id="header"><h1>git-clone(1) Manual Page</h1><h2>NAME</h2>
    <div class="sectionbody"><p>git-clone - Clone a repository into a new directory</p></div></div>
    <div id="content"><h2 id="_synopsis">SYNOPSIS</h2><div class="verseblock"><pre class="content"><em>git clone</em> [--template=&lt;template-directory&gt;]
          [-l] [-s]</pre></div>
    <dl><dt class="hdlist1">-l</dt><dt class="hdlist1">--local</dt><dd><p>Bypasses the normal transport.</p></dd></dl></div>
    <div id="footer"><div id="footer-text">Last updated 2024-01-01</div></div></body></html>""")
    assert "## NAME\n\ngit-clone - Clone a repository into a new directory" in text
    assert "```\ngit clone [--template=<template-directory>]\n          [-l] [-s]\n```" in text  # verbatim, no escapes
    assert "-l\n--local\n\n:   Bypasses the normal transport." in text
    assert "Last updated" not in text


def test_sphinx_body_with_footnotes_tables_code_and_no_chrome():
    text = md("""<html><body><div class="related" role="navigation"><a href="../index.html">Python docs index page</a></div>
    <div class="document"><div class="body" role="main"><section id="cookie-management"><h1>Cookie management<a class="headerlink" href="#cookie-management">¶</a></h1>
    <p>See <a href="os.html#os.open">os.open()</a> and the note<a class="footnote-reference brackets" href="#id4">1</a>.</p>
    <div class="highlight-python3 notranslate"><div class="highlight"><pre><span class="k">import</span> os
<span class="n">os</span>.getcwd()</pre></div></div>
    <table><thead><tr><th>Name</th><th colspan="2">Meaning</th></tr></thead><tbody><tr><td><code>a|b</code></td><td>x</td><td>y</td></tr></tbody></table>
    <ol start="3"><li><p>Third</p><ul><li>nested</li></ul></li><li>Fourth</li></ol>
    <aside class="footnote brackets" id="id4"><span class="label">1</span><p>Footnote body text.</p></aside></section></div></div>
    <div class="sphinxsidebar" role="navigation"><h3>This page in the sidebar</h3></div><div class="footer">Copyright footer line</div>
    <script>var DOCUMENTATION_OPTIONS = {};</script></body></html>""", "https://docs.python.org/3/library/http.cookies.html")
    assert text.startswith("# Cookie management\n")  # a section id that looks like chrome is still content
    assert "[os.open()](https://docs.python.org/3/library/os.html#os.open)" in text
    assert "[1](https://docs.python.org/3/library/http.cookies.html#id4)" in text and "Footnote body text." in text
    assert "```python3\nimport os\nos.getcwd()\n```" in text
    assert "| Name | Meaning |  |\n|---|---|---|\n| `a\\|b` | x | y |" in text
    assert "3. Third\n\n    - nested\n\n4. Fourth" in text or "3. Third\n    - nested\n4. Fourth" in text
    for chrome in ("Python docs index", "This page in the sidebar", "Copyright footer", "DOCUMENTATION_OPTIONS", "¶"):
        assert chrome not in text, chrome


def test_prose_escapes_do_not_make_markup_and_hidden_things_stay_out():
    text = md("""<html><body><div class="cookie-banner">We use cookies</div><article><h1>T</h1>
    <p>Use *args and _private names; 1. is not a list</p><p>- nor is this</p><p hidden>Hidden text</p>
    <p style="display: none">Invisible</p><p>中文
    换行</p></article></body></html>""")
    assert "Use \\*args and \\_private names; 1. is not a list" in text and "\\- nor is this" in text
    assert "We use cookies" not in text and "Hidden text" not in text and "Invisible" not in text
    assert "中文换行" in text  # a source line break between Chinese characters is no space


def test_shell_signals():
    shell = lxml.html.document_fromstring('<html><body><noscript>You need to enable JavaScript to run this app.</noscript><div id="root"></div><script src="/static/js/main.js"></script></body></html>')
    assert any("noscript" in s for s in shell_signals(shell, 300)) and any("#root" in s for s in shell_signals(shell, 300))
    page = lxml.html.document_fromstring("<html><body><div id='app'><p>" + "Real words in the page. " * 100 + "</p></div><noscript>enable JavaScript</noscript></body></html>")
    assert shell_signals(page, 5000) == []
