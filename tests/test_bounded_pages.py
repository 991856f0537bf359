"""Pages that stay small as the corpus grows: source pages, "All sources" and the status page.

Sizes, not times: "All sources" and the status page are compared at two corpus sizes
(they must not grow with it); source pages of the built default site are held to the
20 KB of issue 11; the HTML slimming in front of them keeps what white space means.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from corpus_build import registry, render
from corpus_build.render import listing
from corpus_build.site import slim

SMALL, LARGE = 150, 1500


def write_synthetic(root: Path, n: int, seed: int = 11) -> Path:
    """A valid corpus of n sources, 50 to a section, bilingual notes and a few tags each."""
    rng = random.Random(seed)
    words = ["tile", "kernel", "layout", "pipeline", "tensor", "memory", "warp", "schedule", "compiler", "backend", "ascend", "cuda", "gemm", "attention"]
    corpus = root / "corpus"
    corpus.mkdir(parents=True)
    (corpus / "corpus.yaml").write_text(f"title: Synthetic corpus of {n}\nlanguages: [zh, en]\n", encoding="utf-8")
    for s in range((n + 49) // 50):
        folder = corpus / f"{s + 1:03d}-section-{s + 1}"
        folder.mkdir()
        (folder / "section.yaml").write_text(f"title: Section {s + 1}\ntitle_zh: 第 {s + 1} 分区\nintro: Synthetic.\n", encoding="utf-8")
        lines = []
        for i in range(s * 50, min(n, (s + 1) * 50)):
            lines += [
                f"- id: source-{i:05d}",
                f"  title: Synthetic source {i} on {rng.choice(words)}",
                f"  url: https://example.org/papers/{i}",
                f"  kind: {rng.choice(['article', 'paper', 'repo', 'docs'])}",
                f"  lang: {'zh' if i % 3 == 0 else 'en'}",
                f"  tags: [{rng.choice(words)}, t{i % 97}]",  # the number of tags grows with the corpus
                f"  note: {' '.join(rng.choice(words) for _ in range(30))}",
            ]
        (folder / "sources.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return corpus


@pytest.fixture(scope="module")
def two_sizes(tmp_path_factory):
    built = {}
    for n in (SMALL, LARGE):
        corpus = registry.load(write_synthetic(tmp_path_factory.mktemp(f"corpus-{n}"), n))
        built[n] = render.build_pages(corpus)
    return built


def _size(text: str) -> int:
    return len(text.encode("utf-8"))


def _numbered(pages: dict) -> dict[str, str]:
    return {path: text for path, text in pages.items() if path.startswith("sources/page/")}


@pytest.mark.parametrize("page", ["sources/index.md", "status.md"])
def test_whole_corpus_pages_do_not_grow_with_the_corpus(two_sizes, page):
    small, large = _size(two_sizes[SMALL][page]), _size(two_sizes[LARGE][page])
    print(f"{page}: {small:,} bytes at {SMALL} sources, {large:,} at {LARGE}")
    assert large <= 1.25 * small, (small, large)


def test_all_sources_is_split_into_pages_of_bounded_size_with_every_source_once(two_sizes):
    pages = two_sizes[LARGE]
    numbered = _numbered(pages)
    assert len(numbered) == listing.page_count(LARGE) - 1 == LARGE // listing.PAGE_SIZE - 1
    first = pages["sources/index.md"]
    biggest = max(_size(text) for text in numbered.values())
    assert biggest <= 1.25 * _size(first)  # no numbered page is heavier than the first
    # Every source once over the plain pages, in title order, 100 to a page.
    links = []
    for number in range(1, listing.page_count(LARGE) + 1):
        text = pages[listing.page_path(number)]
        rows = re.findall(r'<tr><td><a href="(?:\.\./\.\./)?(source-\d+)/">', text)
        assert len(rows) == listing.PAGE_SIZE, number
        links += rows
    assert sorted(links) == sorted(f"source-{i:05d}" for i in range(LARGE))
    # The pager is a bounded row of links wherever the reader is, and links the next page.
    middle = pages[listing.page_path(8)]
    pager = middle[middle.index('<nav class="cb-pager"') :]
    assert len(re.findall(r"<a href=", pager)) <= 2 * listing.PAGER_WINDOW + 4
    assert '<a href="../9/">下一页 ›</a>' in pager and '<a href="../../">1</a>' in pager and '<strong aria-current="page">8</strong>' in pager
    # Numbered pages stay out of search (the first page and the source pages are what readers look for).
    assert "search:\n  exclude: true" in middle and "exclude" not in first.split("---")[1]


def test_the_data_file_carries_every_row_and_the_filter_choices(two_sizes):
    pages = two_sizes[LARGE]
    text = pages[listing.DATA_FILE]
    data = json.loads(text[text.index("= ") + 2 : text.rstrip().rindex(";")])
    assert len(data["rows"]) == LARGE and data["page_size"] == listing.PAGE_SIZE
    tags = next(f for f in data["filters"] if f["key"] == "tag")["options"]
    assert len(tags) > 97  # every tag is a choice: they live here, not on the page
    assert "t42" not in pages["sources/index.md"].split("<table")[0]
    sections = next(f for f in data["filters"] if f["key"] == "section")["options"]
    assert len(sections) == len(data["sections"]) == LARGE // 50


def test_status_lists_the_rest_by_state_linked_to_filtered_views(two_sizes):
    status = two_sizes[LARGE]["status.md"]
    assert f"[{LARGE}](sources/index.md?mirror=never)" in status
    assert "source-00001" not in status  # no row per source


def test_source_pages_of_the_default_site_are_at_most_20_kb(default_site):
    site, corpus = default_site
    sizes = {s.id: (site / "sources" / s.id / "index.html").stat().st_size for s in corpus.sources}
    print(f"source pages: mean {sum(sizes.values()) / len(sizes) / 1024:.1f} KB, max {max(sizes.values()) / 1024:.1f} KB")
    assert max(sizes.values()) <= 20 * 1024, max(sizes.items(), key=lambda item: item[1])
    page = (site / "sources" / "tilelang" / "index.html").read_text(encoding="utf-8")
    # The sidebar is pruned to what is visible: the sections are one link, not a list on every page.
    nav = page[page.index('<nav class="md-nav md-nav--primary"') : page.index('<div class="md-content"')]
    assert 'href="../../sections/"' in nav and "sections/01-gpu-hardware-docs/" not in nav
    # The cite box's BibTeX keeps its line breaks and indentation.
    bibtex = re.search(r'<pre class="cb-cite-bibtex"[^>]*>(.*?)</pre>', page, re.S)
    assert bibtex and "\n  title = {" in bibtex.group(1)


def test_slimming_keeps_what_white_space_means():
    page = (
        "<ul>\n      <li>\n        <a href=x>A</a>\n\n      </li>\n   </ul>\n"
        "<pre>  keep\n      this\n</pre>\n    <code>a\n    b</code>\n  <textarea>\n  x</textarea>\n"
        "<script>\n  var s = 'a\\\n    b';\n</script>\n  <!-- a\n   comment -->\n"
        "<p>昇腾\n    算子\u00a0\u00a0x\u3000y</p>\n  <PRE class=z>\n  upper\n</PRE>"
    )
    out = slim.html(page)
    assert out.startswith("<ul>\n<li>\n<a href=x>A</a>\n</li>\n</ul>\n")
    for kept in ("<pre>  keep\n      this\n</pre>", "<code>a\n    b</code>", "<textarea>\n  x</textarea>", "<script>\n  var s = 'a\\\n    b';\n</script>",
                 "<!-- a\n   comment -->", "<PRE class=z>\n  upper\n</PRE>"):
        assert kept in out, kept
    assert "<p>昇腾\n算子\u00a0\u00a0x\u3000y</p>" in out  # no-break and ideographic spaces are text
    assert slim.html(out) == out
