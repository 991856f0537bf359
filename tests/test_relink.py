"""site/relink.py: the site's raw HTML links, moved for the offline copy's page.html URLs as places.site_rel writes them."""

from __future__ import annotations

from corpus_build.render.places import site_rel
from corpus_build.site.relink import to_file_urls

FILES = {"index.md", "tags.md", "tags/cuda.md", "sources/index.md", "sources/page/2.md", "sources/a.md", "sections/01-gpu.md",
         "sources/a/archive/page.html", "assets/sources-data.js"}


def exists(path: str) -> bool:
    return path in FILES


def test_every_page_link_comes_out_as_site_rel_writes_it_for_page_html_urls():
    pages = sorted(p for p in FILES if p.endswith(".md"))
    for source in pages:
        for target in pages:
            html = f'<a href="{site_rel(source, target, True)}">x</a>'
            assert to_file_urls(html, source, exists) == f'<a href="{site_rel(source, target, False)}">x</a>', (source, target)


def test_files_fragments_and_queries_follow_the_page():
    moved = to_file_urls('<iframe src="archive/page.html"></iframe> <a href="../../tags/cuda/#top">t</a> <a href="../?tag=x">s</a>',
                         "sources/a.md", exists)
    assert moved == '<iframe src="a/archive/page.html"></iframe> <a href="../tags/cuda.html#top">t</a> <a href="./?tag=x">s</a>'


def test_what_leads_nowhere_or_elsewhere_is_left_as_written():
    kept = ('<a href="https://example.org/x/">e</a> <a href="/abs/">r</a> <a href="#part">f</a> <a href="?tag=x">q</a> '
            '<a href="../missing/">m</a> <a href="../../../../outside/">o</a> <a href="mailto:a@b.c">@</a>')
    assert to_file_urls(kept, "sources/a.md", exists) == kept


def test_only_attributes_of_real_start_tags_move_never_code_or_text():
    """What the page shows as written (a code span, a fenced or indented code block, in a note's blockquote
    too), an escaped tag or running text keeps its letters; a start tag beside them still moves."""
    page = ('> Quoted `<a href="../../tags/cuda/">x</a>` and <a href="../../tags/cuda/">real</a>\n'
            ">\n"
            "> ```html\n"
            '> <img src="archive/page.html"> <a class="x" href="../../tags/">t</a>\n'
            "> ```\n"
            ">\n"
            '>     <a href="../../tags/">indented code</a>\n'
            ">\n"
            '> ``a `<a href="../../tags/">` b`` and href="../../tags/" and &lt;a href="../../tags/"&gt;\n'
            "\n"
            "~~~\n"
            '<a href="../../tags/">tildes</a>\n'
            "~~~\n"
            "\n"
            '<p><a title="`" href="../../tags/">after a lone backtick</a></p>\n')
    moved = to_file_urls(page, "sources/a.md", exists)
    assert moved == page.replace('<a href="../../tags/cuda/">real', '<a href="../tags/cuda.html">real').replace(
        'href="../../tags/">after', 'href="../tags.html">after')
