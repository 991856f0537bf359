"""Incremental builds: after each edit, a build that reuses the cache gives the very site a clean build gives.

One project is edited step by step (a note changed, a source added, a source
removed, a chapter's reading path changed, a digest added) and rebuilt each time
with its build cache (.corpus-build/cache/); beside it, a fresh project with the
same registry and no cache is built from scratch. The two site/ trees must be
byte-identical, search index included, and the incremental build must really
have reused the cache.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
from pathlib import Path

import pytest

from corpus_build import site
from corpus_build.cli import main
from corpus_build.site import buildcache, engines, sitedir
from tests.corpus_fixture import SOURCES_ASCEND, SOURCES_GPU, write_project

pytestmark = pytest.mark.slow

NEW_SOURCE = """\
- id: ascend-c-guide
  title: Ascend C 编程指南
  url: https://www.hiascend.com/document/ascend-c
  kind: docs
  lang: zh
  chapters: [2]
  tags: [ascend]
  note: 昇腾算子的 C++ 编程接口。
"""

NEW_DIGEST = """\
---
title: Daily digest 2026-10-23
date: 2026-10-23
tz: "+08:00"
repos: [tile-ai/tilelang]
---

Nothing new in [[tilelang]] today; [[ascend-c-guide]] was added.
"""


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _assert_same_site(incremental: Path, full: Path, step: str) -> None:
    mine, theirs = _tree(incremental), _tree(full)
    assert sorted(mine) == sorted(theirs), f"after {step}: the sites hold different files: {sorted(set(mine) ^ set(theirs))[:10]}"
    differ = [path for path in mine if mine[path] != theirs[path]]
    assert not differ, f"after {step}: {len(differ)} file(s) differ from a clean build: {differ[:10]}"
    assert "search/search_index.json" in mine


def _cache_stats(caplog: pytest.LogCaptureFixture) -> dict[str, tuple[int, int]]:
    """The last build's hits and misses per kind, from the plugin's log line."""
    lines = [r.getMessage() for r in caplog.records if "build cache render" in r.getMessage()]
    assert lines, "the build did not report its cache use"
    return {kind: (int(h), int(m)) for kind, h, m in re.findall(r"(\w+) (\d+) hit\(s\) (\d+) miss\(es\)", lines[-1])}


def _edit(corpus: Path, relative: str, old: str | None, new: str) -> None:
    path = corpus / relative
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    if old is not None:
        assert old in text, f"{relative} does not hold {old!r}"
        text = text.replace(old, new)
    else:
        text = new
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


STEPS = [
    ("a note changed", "01-gpu/sources.yaml", "Second line of the note.", "Second line of the note, edited: now with 算子 too."),
    ("a source added", "02-ascend/sources.yaml", None, SOURCES_ASCEND + NEW_SOURCE),
    ("a source removed", "02-ascend/sources.yaml", SOURCES_ASCEND[SOURCES_ASCEND.index("- id: zhihu-port"):SOURCES_ASCEND.index("- id: tilelang-pr-2900")], ""),
    ("a chapter's reading path changed", "chapters.yaml", "    - source: tilelang\n      why: Then the language.\n", "    - source: tilelang\n      why: Then the language, with its tile layouts.\n    - source: ascend-c-guide\n      why: The Ascend programming interface.\n"),
    ("a digest added", "digests/2026-10-23.md", None, NEW_DIGEST),
]


def _clean_build(root: Path, corpus: Path, *, build_cache: bool = True) -> Path:
    project = write_project(root)
    shutil.rmtree(project / "corpus")
    shutil.copytree(corpus, project / "corpus")
    if not build_cache:
        config = project / "mkdocs.yml"
        text = config.read_text(encoding="utf-8")
        config.write_text(re.sub(r"^  - corpus\b.*$", "  - corpus:\n      build_cache: false", text, count=1, flags=re.M), encoding="utf-8")
    site.build(project, strict=True)
    return project / "site"


def test_incremental_builds_equal_clean_builds_after_each_edit(tmp_path, caplog, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1793000000")  # the sitemap's dates: the same for both builds
    caplog.set_level(logging.INFO, logger="mkdocs.plugins.corpus")
    project = write_project(tmp_path / "edited")
    corpus = project / "corpus"
    site.build(project, strict=True, quiet=False)
    first = _cache_stats(caplog)
    assert first["render"][0] == 0 and first["render"][1] > 10  # an empty cache: everything rendered
    assert (project / buildcache.CACHE_DIR / "cache.sqlite").is_file()

    for number, (step, relative, old, new) in enumerate(STEPS):
        _edit(corpus, relative, old, new)
        caplog.clear()
        site.build(project, strict=True, quiet=False)
        stats = _cache_stats(caplog)
        # Pages put back without reading them (populateskip.py) count as reused renders.
        hits, misses = stats["render"][0] + stats["read"][0], stats["render"][1]
        assert hits > misses, f"after {step}: the incremental build re-rendered {misses} page(s) and reused only {hits}"
        _assert_same_site(project / "site", _clean_build(tmp_path / f"clean-{number}", corpus), step)

    assert SOURCES_GPU  # the fixture the steps edit
    # The cache's hooks change nothing in what is built: a build without them gives the same site.
    _assert_same_site(project / "site", _clean_build(tmp_path / "no-cache", corpus, build_cache=False), "all edits (cache off)")


def test_a_rebuild_without_changes_reuses_every_page(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="mkdocs.plugins.corpus")
    project = write_project(tmp_path)
    site.build(project, quiet=False)
    caplog.clear()
    site.build(project, quiet=False)
    stats = _cache_stats(caplog)
    assert stats.pop("cuts") == (0, 0), "nothing was segmented, so the stored cuts were not even read"
    # Every page's published file linked as the last build made it: no template asked for (site/pageskip.py).
    assert stats.pop("page") == (0, 0), stats
    # And read back without reading the file (site/populateskip.py), but the tags' own pages (their listings).
    read, render = stats.pop("read"), stats.pop("render")
    assert read[1] == 0 and read[0] > 10 and render == (4, 0), (read, render)
    assert stats.pop("clean") == (4, 0), stats
    assert any(re.search(r"corpus: (1\d|[2-9]\d|\d{3,}) page\(s\) linked as the last build made them, 0 built", r.getMessage()) for r in caplog.records)
    assert all(misses == 0 and hits > 10 for hits, misses in stats.values()), stats



def test_a_rebuild_asks_where_each_link_target_is_once(tmp_path, caplog, monkeypatch):
    """A reused render is valid while every link it made resolves as it did: each target is looked
    up once per build, not once per page linking to it (every page links home and to its section)."""
    from collections import Counter

    from mkdocs.structure.files import Files

    caplog.set_level(logging.INFO, logger="mkdocs.plugins.corpus")
    project = write_project(tmp_path)
    site.build(project, quiet=False)
    asked: Counter[str] = Counter()
    lookup = Files.get_file_from_path

    def counted(self, path):
        asked[path] += 1
        return lookup(self, path)

    monkeypatch.setattr(Files, "get_file_from_path", counted)
    caplog.clear()
    site.build(project, quiet=False)
    stats = _cache_stats(caplog)
    hits, misses = stats["render"][0] + stats["read"][0], stats["render"][1] + stats["read"][1]  # (read: populateskip.py)
    assert misses == 0 and hits > 10
    # Once for the check; MkDocs asks twice more for each page its navigation names.
    assert asked and max(asked.values()) <= 3, asked.most_common(3)


def test_pages_search_leaves_out_are_not_looked_up_in_the_cache(tmp_path, caplog):
    """A page whose front matter says `search: exclude` gives Material's search no entries: the
    cache neither keys nor stores any for it (the tags' pages here; every mirror's text page)."""
    caplog.set_level(logging.INFO, logger="mkdocs.plugins.corpus")
    project = write_project(tmp_path)
    site.build(project, quiet=False)
    pages = [p for p in (project / "docs").rglob("*.md") if not p.name.startswith(".")]
    left_out = [p for p in pages if re.search(r"^search:\n  exclude: true$", p.read_text(encoding="utf-8").split("\n---", 1)[0], re.M)]
    assert left_out
    hits, misses = _cache_stats(caplog)["search"]
    assert (hits, misses) == (0, len(pages) - len(left_out))

def test_clean_removes_the_cache_and_the_next_build_is_full(tmp_path, caplog, capsys):
    caplog.set_level(logging.INFO, logger="mkdocs.plugins.corpus")
    project = write_project(tmp_path)
    site.build(project, quiet=False)
    assert (project / buildcache.CACHE_DIR).is_dir()
    assert main(["--project", str(project), "clean"]) == 0
    assert "removed the build cache" in capsys.readouterr().out
    assert not (project / buildcache.CACHE_DIR).exists()
    assert (project / "site" / "index.html").is_file() and (project / "corpus").is_dir()  # nothing else touched
    assert main(["clean", "--project", str(project)]) == 0
    assert "no build cache" in capsys.readouterr().out
    caplog.clear()
    site.build(project, quiet=False)
    assert _cache_stats(caplog)["render"][0] == 0


def test_a_page_whose_link_target_went_away_is_rendered_again_and_keeps_its_warning(tmp_path, caplog):
    """A hand-written page's Markdown does not change when the page it links to is removed:
    the cache must notice the link (it records what each link resolved to), and a reused
    render must still log the warning MkDocs gave (so that --strict fails as before)."""
    caplog.set_level(logging.INFO)
    link = "See [the article](sources/zhihu-port.md).\n"

    def project_with_link(root: Path, corpus: Path | None = None) -> Path:
        project = write_project(root)
        if corpus is not None:
            shutil.rmtree(project / "corpus")
            shutil.copytree(corpus, project / "corpus")
        (project / "docs" / "reading.md").write_text("# Reading\n\n" + link, encoding="utf-8")
        return project

    project = project_with_link(tmp_path / "edited")
    site.build(project, quiet=False)
    assert 'href="../sources/zhihu-port/"' in (project / "site" / "reading" / "index.html").read_text(encoding="utf-8")
    removed = SOURCES_ASCEND[SOURCES_ASCEND.index("- id: zhihu-port"):SOURCES_ASCEND.index("- id: tilelang-pr-2900")]
    _edit(project / "corpus", "02-ascend/sources.yaml", removed, "")
    site.build(project, quiet=False)
    _assert_same_site(project / "site", site.build(project_with_link(tmp_path / "clean", project / "corpus")), "the link's target removed")
    assert 'href="sources/zhihu-port.md"' in (project / "site" / "reading" / "index.html").read_text(encoding="utf-8")
    caplog.clear()
    site.build(project, quiet=False)  # nothing changed: every render reused
    assert _cache_stats(caplog)["render"][1] == 0
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING and "reading.md" in r.getMessage()]
    assert any("sources/zhihu-port.md" in w for w in warnings), warnings


def test_a_rebuild_links_unchanged_files_from_the_published_site_and_writes_the_rest(tmp_path):
    project = write_project(tmp_path / "project")
    site.build(project, strict=True)
    published = project / "site"
    pages = sorted(published.glob("sources/*/index.html"))
    edited, kept, tampered, planted = pages[0], pages[1], pages[2], pages[3]
    inode = {p: p.stat().st_ino for p in pages}
    # A hand edit of the published site that keeps the size: the bytes decide, not the size.
    good = tampered.read_bytes()
    tampered.write_bytes(good.replace(b"<", b">", 1))
    # A symlink where a page was, pointing outside: never followed, never written through.
    outside = tmp_path / "outside.html"
    outside.write_bytes(planted.read_bytes())
    planted_bytes = planted.read_bytes()
    planted.unlink()
    planted.symlink_to(outside)
    # A hard link to a file outside, with the very bytes the page will have: not shared into the new site.
    shared = pages[4]
    elsewhere = tmp_path / "elsewhere.html"
    os.link(shared, elsewhere)
    source_id = edited.parent.name
    sources = next(p for p in (project / "corpus").glob("*/sources.yaml") if f"id: {source_id}\n" in p.read_text(encoding="utf-8"))
    text = sources.read_text(encoding="utf-8")
    at = text.index(f"id: {source_id}\n")
    at = text.index("  note: ", at) + len("  note: ")
    sources.write_text(text[:at] + "Edited first. " + text[at:].lstrip("|>\n"), encoding="utf-8")

    site.build(project, strict=True)
    assert kept.stat().st_ino == inode[kept] and kept.stat().st_nlink == 1  # the old site is gone, its file lives on
    assert edited.stat().st_ino != inode[edited] and b"Edited first." in edited.read_bytes()
    assert tampered.read_bytes() == good
    assert not planted.is_symlink() and planted.read_bytes() == planted_bytes
    assert outside.read_bytes() == planted_bytes  # the file outside the site is as it was
    assert shared.stat().st_ino != elsewhere.stat().st_ino and shared.read_bytes() == elsewhere.read_bytes()
    _assert_same_site(published, _clean_build(tmp_path / "clean", project / "corpus"), "a linked rebuild")


def _folders(site_dir: Path) -> list[str]:
    return sorted(p.relative_to(site_dir).as_posix() for p in site_dir.rglob("*") if p.is_dir())


def test_a_rebuild_builds_into_the_last_sites_folders_emptied(tmp_path, monkeypatch):
    # Issue 38: every rebuild made each folder of the new site and removed each of the old one's
    # (2,600 at 1,000 sources), a tenth of a one-note rebuild's CPU. The old site's folders,
    # emptied of every file, are the next build's staging folder.
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1793000000")  # the sitemap's dates: the same as the clean builds'
    project = write_project(tmp_path / "project")
    published, spare = project / "site", project / ".site.folders"
    site.build(project, strict=True)
    _edit(project / "corpus", "01-gpu/sources.yaml", "Second line of the note.", "Second line of the note, edited.")
    site.build(project, strict=True)
    assert spare.is_dir() and not [p for p in spare.rglob("*") if not p.is_dir()], "the old site's folders, and no file"
    folder = sorted(published.glob("sources/*/"))[0]
    kept = (spare / folder.relative_to(published)).stat().st_ino
    (spare / "gone" / "deeper").mkdir(parents=True)  # a folder the next site has no file in
    _edit(project / "corpus", "01-gpu/sources.yaml", "Second line of the note, edited.", "Second line of the note, edited twice.")

    site.build(project, strict=True)
    assert folder.stat().st_ino == kept  # built into the kept folder
    assert not (published / "gone").exists()
    clean = _clean_build(tmp_path / "clean", project / "corpus")
    _assert_same_site(published, clean, "a build into the kept folders")
    assert _folders(published) == _folders(clean)

    # Anything but folders in the kept tree (planted there, or a link): not built upon, removed.
    (spare / "planted.html").write_text("planted", encoding="utf-8")
    _edit(project / "corpus", "01-gpu/sources.yaml", "Second line of the note, edited twice.", "Second line of the note.")
    site.build(project, strict=True)
    assert not (published / "planted.html").exists()
    clean = _clean_build(tmp_path / "clean-2", project / "corpus")
    _assert_same_site(published, clean, "kept folders with a file planted")
    assert _folders(published) == _folders(clean)


def test_files_written_outside_mkdocs_writers_are_linked_when_their_bytes_are_the_same(tmp_path):
    # The sitemap, tags.json, the portable 404 page, search_config.json and the marker were written
    # anew by every build (issue 38: files written count against a rebuild), though they rarely change.
    project = write_project(tmp_path / "project")
    site.build(project, strict=True)
    published = project / "site"
    names = [name for name in engines.REWRITTEN if (published / name).is_file()]
    assert {"404.html", "sitemap.xml.gz", "search/search_config.json", sitedir.MARKER} <= set(names)
    inode = {name: (published / name).stat().st_ino for name in names}
    (published / "tags.json").write_bytes((published / "tags.json").read_bytes() + b" ")  # the bytes decide
    _edit(project / "corpus", "01-gpu/sources.yaml", "Second line of the note.", "Second line of the note, edited.")

    site.build(project, strict=True)
    relinked = {name for name in names if (published / name).stat().st_ino == inode[name]}
    assert relinked == set(names) - {"tags.json"}, relinked
    assert all((published / name).stat().st_nlink == 1 for name in names)
    assert not [p.name for p in published.rglob(".*.link")]
    _assert_same_site(published, _clean_build(tmp_path / "clean", project / "corpus"), "a note edited")


@pytest.mark.parametrize("damage", ["not a database", "truncated"])
def test_a_damaged_cache_file_is_replaced_and_the_build_goes_on(tmp_path, caplog, damage):
    """A cache file that is not (or no longer) a database only held what a build makes again:
    the build replaces it, says so, and the next build reuses the new one."""
    caplog.set_level(logging.INFO, logger="mkdocs.plugins.corpus")
    project = write_project(tmp_path)
    site.build(project, quiet=False)
    clean = _tree(project / "site")
    path = project / buildcache.CACHE_DIR / "cache.sqlite"
    if damage == "truncated":  # the header kept, the tree cut off: what a half-copied restore leaves
        data = path.read_bytes()
        path.write_bytes(data[:4096] + b"\x07" * 8192)
    else:
        path.write_bytes(b"corpus-build would not write this\n" * 100)
    caplog.clear()
    site.build(project, quiet=False)
    messages = [r.getMessage() for r in caplog.records]
    assert any("was unreadable" in m and "starting it afresh" in m for m in messages), messages
    assert _tree(project / "site") == clean
    caplog.clear()
    site.build(project, quiet=False)
    stats = _cache_stats(caplog)
    assert stats["render"][1] == 0 and stats["read"][1] == 0 and stats["render"][0] + stats["read"][0] > 10, stats


def test_a_build_sets_the_long_lived_objects_aside_from_the_collector_and_then_back(tmp_path, monkeypatch):
    """The plugin freezes what lives through the build (gc.freeze) and undoes it when the build ends,
    so a server's next build, or the program after it, collects as before."""
    import gc

    counts = []
    real_freeze = gc.freeze

    def freeze() -> None:
        real_freeze()
        counts.append(gc.get_freeze_count())

    monkeypatch.setattr(gc, "freeze", freeze)
    project = write_project(tmp_path)
    site.build(project)
    assert counts and counts[0] > 10_000, counts  # the corpus, config and theme were set aside
    assert gc.get_freeze_count() == 0


GEMM_CAPITAL = """
- id: gemm-notes
  title: GEMM notes
  url: https://example.org/gemm
  kind: docs
  lang: en
  tags: [Gemm]
  note: A tag that folds to another tag's address and takes it, being first in sorted order.
"""


def test_a_tag_chip_follows_its_listing_when_another_tag_takes_its_page(tmp_path, caplog, monkeypatch):
    """The chip Material's tags plugin draws on a page links to the tag's listing: a page whose own
    Markdown is unchanged gets its template made again when that listing moves (the cached page's
    key named the tag, not the link: Material's TagReference prints its name alone)."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1793000000")
    project = write_project(tmp_path / "edited")
    site.build(project, strict=True)
    _edit(project / "corpus", "01-gpu/sources.yaml", None, SOURCES_GPU + GEMM_CAPITAL)
    site.build(project, strict=True)
    page = (project / "site" / "sources" / "deepgemm-ascend" / "index.html").read_text(encoding="utf-8")
    assert 'href="../../tags/gemm-' in page  # "Gemm" took tags/gemm/, "gemm" moved
    _assert_same_site(project / "site", _clean_build(tmp_path / "clean", project / "corpus"), "a tag's page moved")
