"""Every whole-corpus page stays bounded as the corpus grows: home, sections, chapters and digests
indexes, the tags index and each tag's pages, "All sources" and status (rendering only: fast).

Sizes, not times. A corpus of 1,500 sources already fills every page (30 sections, a full
page of rows for the most used tags); at 3,000 the pages must be no bigger than a bound that does not
depend on the corpus, and close to their size at 1,500.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from corpus_build import registry, render
from corpus_build.render import listing, tagpages
from corpus_build.render.pages import HOME_ROWS, INDEX_PAGE_SIZE
from corpus_build.render.places import paths
from tests.test_bounded_pages import write_synthetic

SMALL, LARGE = 1500, 3000
BOUND = 32 * 1024  # bytes of Markdown: a page of 100 rows is ~21 KB whatever the corpus
GROWTH = 1.25  # as scripts/bench_pages.py: digits of counts and ids grow, rows do not
DIGESTS = 45


def _digests(corpus: Path, n: int) -> None:
    folder = corpus / "digests"
    folder.mkdir()
    for day in range(n):
        date = f"2026-{1 + day // 28:02d}-{1 + day % 28:02d}"
        (folder / f"{date}.md").write_text(f"---\ntitle: Digest {day}\ndate: {date}\ntags: [tile]\n---\n\nSee [[source-{day:05d}]].\n", encoding="utf-8")


@pytest.fixture(scope="module")
def two_sizes(tmp_path_factory):
    built = {}
    for n in (SMALL, LARGE):
        root = write_synthetic(tmp_path_factory.mktemp(f"corpus-{n}"), n)
        if n == LARGE:
            _digests(root, DIGESTS)
        corpus = registry.load(root)
        built[n] = (corpus, render.build_pages(corpus))
    return built


def _whole_corpus(pages: dict) -> dict[str, int]:
    """The size of each whole-corpus page; the tag pages by their largest."""
    fixed = (paths.home, paths.sections, paths.chapters, paths.digests, paths.tags, paths.sources, paths.status)
    sizes = {page: len(pages[page].encode()) for page in fixed}
    tag_pages = [len(text.encode()) for page, text in pages.items() if page.startswith("tags/") and not page.startswith("tags/page/")]
    sizes["tags/<largest>"] = max(tag_pages)
    return sizes


def test_every_whole_corpus_page_is_bounded_whatever_the_corpus(two_sizes):
    small, large = _whole_corpus(two_sizes[SMALL][1]), _whole_corpus(two_sizes[LARGE][1])
    for page in large:
        print(f"{page:<20} {small[page]:>7,} bytes at {SMALL:,} sources, {large[page]:>7,} at {LARGE:,}")
    assert max(large.values()) <= BOUND, large
    grown = {page: round(large[page] / small[page], 2) for page in large if page != paths.digests}  # the small corpus has no digests
    assert all(ratio <= GROWTH for ratio in grown.values()), grown


def test_each_tag_has_its_own_pages_listing_every_source_that_carries_it(two_sizes):
    corpus, pages = two_sizes[LARGE]
    slug = tagpages.slugs({t for s in corpus.sources for t in s.tags})
    tag = max(slug, key=lambda t: sum(t in s.tags for s in corpus.sources))
    carrying = {s.id for s in corpus.sources if tag in s.tags}
    assert len(carrying) > listing.PAGE_SIZE  # paged
    found, number = [], 1
    while tagpages.tag_path(slug[tag], number) in pages:
        text = pages[tagpages.tag_path(slug[tag], number)]
        rows = re.findall(r'<tr><td><a href="(?:\.\./)+sources/(source-\d+)/">', text)
        assert 0 < len(rows) <= listing.PAGE_SIZE
        found += rows
        # only the first page carries Material's listing of the tag (what the chips link to)
        assert ("<!-- material/tags " in text) == (number == 1)
        number += 1
    assert sorted(found) == sorted(carrying)
    first = pages[tagpages.tag_path(slug[tag])]
    assert '<a href="page/2/">下一页 ›</a>' in first  # tags/<slug>/ -> tags/<slug>/page/2/
    assert f"(../sources/index.md?tag={tag})" in first  # sorting and filtering: All sources
    # the tags index: every tag once, with its count, linking its page
    index = pages[paths.tags]
    links = re.findall(r'<a class="cb-tag" href="([^"]+)">([^<]+) <span class="cb-tag-n">(\d+)</span>', index)
    assert {name: (href, int(n)) for href, name, n in links} == {
        t: (f"{slug[t]}/", sum(t in s.tags for s in corpus.sources) + sum(t in d.tags for d in corpus.digests)) for t in slug
    }  # sources and digests carrying the tag
    assert "material/tags" not in index  # no listing of every page under every tag


def test_the_tags_index_itself_is_paged_when_there_are_many_tags(tmp_path):
    root = write_synthetic(tmp_path, 450)
    for path in root.glob("*/sources.yaml"):  # every source its own tag: 450 tags
        text = path.read_text(encoding="utf-8")
        path.write_text(re.sub(r"- id: (source-\d+)\n((?:  (?!tags:).*\n)*)  tags: .*\n", r"- id: \1\n\2  tags: [only-\1]\n", text), encoding="utf-8")
    pages = render.build_pages(registry.load(root))
    numbered = sorted(p for p in pages if p.startswith("tags/page/"))
    assert numbered == ["tags/page/2.md", "tags/page/3.md"]
    counted = [len(re.findall(r'class="cb-tag"', pages[p])) for p in (paths.tags, *numbered)]
    assert counted == [tagpages.TAGS_PAGE_SIZE, tagpages.TAGS_PAGE_SIZE, 450 - 2 * tagpages.TAGS_PAGE_SIZE]
    assert "search:\n  exclude: true" in pages["tags/page/2.md"]


def test_home_summarises_and_links_instead_of_listing_every_section(two_sizes):
    corpus, pages = two_sizes[LARGE]
    home = pages[paths.home]
    table = home[home.index("### 按分区") : home.index("### 按类型")]
    assert len(re.findall(r"^\| \[", table, re.M)) == HOME_ROWS < len(corpus.sections)
    assert f"[全部 {len(corpus.sections)} 个分区 →](sections/index.md)" in table
    chart = next(part for part in home.split("<svg")[1:] if "各分区条目数" in part)
    assert chart.count("<rect") <= HOME_ROWS * 5 + 5  # a bar per shown section, a segment per kind, the legend


@pytest.mark.parametrize(("index", "page_path", "count"), [
    (paths.sections, paths.sections_page, LARGE // 50),
    (paths.digests, paths.digests_page, DIGESTS),
])
def test_sections_and_digests_indexes_are_paged_with_every_entry_once(two_sizes, index, page_path, count):
    _corpus, pages = two_sizes[LARGE]
    headings = []
    number = 1
    while page_path(number) in pages:
        text = pages[page_path(number)]
        found = re.findall(r"^## \[", text, re.M)
        assert 0 < len(found) <= INDEX_PAGE_SIZE
        headings += re.findall(r"^## \[([^\]]+)\]", text, re.M)
        assert ("search:\n  exclude: true" in text) == (number > 1)
        number += 1
    assert number - 1 == -(-count // INDEX_PAGE_SIZE) and len(headings) == len(set(headings)) == count
    assert '<nav class="cb-pager"' in pages[index]


def test_tag_slugs_are_unique_safe_and_readable():
    tags = ["CUDA", "cuda", "张量核心", "a b", "a-b", "page", "", "!!!", "x/../y", "end -->", "C++"]
    slugs = tagpages.slugs(tags)
    assert len(set(slugs.values())) == len(tags)
    assert slugs["张量核心"] == "张量核心" and slugs["a b"] == "a-b" and slugs["C++"] == "c"
    assert slugs["CUDA"] == "cuda" and slugs["cuda"].startswith("cuda-")  # the first in sorted order keeps the plain slug
    assert slugs["page"] != "page" and slugs["x/../y"] == "x-y"
    for slug in slugs.values():
        assert re.fullmatch(r"[\w-]+", slug) and not slug.startswith("-"), slug
    # a tag cannot end Material's marker early: its arguments read back as the tag
    import yaml

    arguments = str(tagpages._directive("end --> <b>"))
    assert "-->" not in arguments and "<" not in arguments
    assert yaml.safe_load(arguments) == {"include": ["end --> <b>"], "toc": False}
    assert json.loads(arguments) == {"include": ["end --> <b>"], "toc": False}


def test_a_tag_of_digests_lists_the_latest_of_them_and_links_the_rest(two_sizes):
    corpus, pages = two_sizes[LARGE]
    page = pages[tagpages.tag_path(tagpages.slugs({t for s in corpus.sources for t in s.tags} | {"tile"})["tile"])]
    digests = page[page.index("## 日报") :]
    assert len(re.findall(r"^- \[", digests, re.M)) == tagpages.DIGESTS_ON_TAG_PAGE < DIGESTS
    newest = corpus.digests[0]
    assert f"- [{newest.date} · {newest.title}](../digests/{newest.date}.md)" in digests
    assert f"[全部日报（{DIGESTS} 期带此标签）→](../digests/index.md)" in digests
    assert f"{DIGESTS} 期日报" in page.split("\n\n")[2]  # the count line under the title
