"""Unchanged pages are linked from the published site, not built (site/pageskip.py), and the site
stays byte-identical to a clean build, also after edits that change pages whose Markdown did not."""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from corpus_build import site
from tests.corpus_fixture import SOURCES_GPU, write_project
from tests.test_incremental import GEMM_CAPITAL, _assert_same_site, _clean_build, _edit

pytestmark = pytest.mark.slow


def _skipped(caplog: pytest.LogCaptureFixture) -> tuple[int, int]:
    """(pages linked, pages built) from the last build's log line."""
    lines = [r.getMessage() for r in caplog.records if "page(s) linked as the last build made them" in r.getMessage()]
    assert lines, "the build did not report the pages it linked"
    linked, built = re.search(r"(\d+) page\(s\) linked as the last build made them, (\d+) built", lines[-1]).groups()
    return int(linked), int(built)


def _rebuild(project: Path, caplog: pytest.LogCaptureFixture) -> tuple[int, int]:
    caplog.clear()
    site.build(project, strict=True, quiet=False)
    return _skipped(caplog)


def test_a_note_edit_builds_only_the_pages_it_changed(tmp_path, caplog, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1793000000")
    caplog.set_level(logging.INFO, logger="mkdocs.plugins.corpus")
    project = write_project(tmp_path / "edited")
    site.build(project, strict=True, quiet=False)
    _edit(project / "corpus", "01-gpu/sources.yaml", "Second line of the note.", "Second line of the note, edited.")
    linked, built = _rebuild(project, caplog)
    # The source's page and the one other page that shows its note.
    assert built <= 3 and linked >= 17, (linked, built)
    _assert_same_site(project / "site", _clean_build(tmp_path / "clean", project / "corpus"), "a note edit")


# Edits that change pages whose own Markdown stays the same: the navigation, the theme, a tag
# chip's target (Material's tags plugin draws it), the neighbours' titles.
STEPS = [
    ("a section's title (every page's navigation)", "01-gpu/section.yaml", "title_zh: GPU 硬件", "title_zh: GPU 硬件与架构"),
    ("a tag's page moved by another tag (the chips of the pages under it)", "01-gpu/sources.yaml", None, SOURCES_GPU + GEMM_CAPITAL),
]


def test_edits_that_change_unchanged_pages_are_seen(tmp_path, caplog, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1793000000")
    caplog.set_level(logging.INFO, logger="mkdocs.plugins.corpus")
    project = write_project(tmp_path / "edited")
    corpus = project / "corpus"
    site.build(project, strict=True, quiet=False)
    for number, (step, relative, old, new) in enumerate(STEPS):
        _edit(corpus, relative, old, new)
        _rebuild(project, caplog)
        _assert_same_site(project / "site", _clean_build(tmp_path / f"clean-{number}", corpus), step)
    # The theme: mkdocs.yml's palette, in every page's <head> and <body>.
    config = project / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8").replace("primary: indigo", "primary: teal"), encoding="utf-8")
    linked, _built = _rebuild(project, caplog)
    assert linked == 0
    clean = _clean_build(tmp_path / "clean-theme", corpus)
    (clean.parent / "mkdocs.yml").write_text(config.read_text(encoding="utf-8"), encoding="utf-8")
    site.build(clean.parent, strict=True)
    _assert_same_site(project / "site", clean, "the theme's colour")


def test_a_published_page_changed_by_hand_is_built_again(tmp_path, caplog, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1793000000")
    caplog.set_level(logging.INFO, logger="mkdocs.plugins.corpus")
    project = write_project(tmp_path / "edited")
    site.build(project, strict=True, quiet=False)
    page = project / "site" / "sources" / "cuda-guide" / "index.html"
    page.write_text(page.read_text(encoding="utf-8").replace("</body>", "<p>planted</p></body>"), encoding="utf-8")
    linked, built = _rebuild(project, caplog)
    assert built == 1 and linked > 10, (linked, built)
    assert "planted" not in page.read_text(encoding="utf-8")
    _assert_same_site(project / "site", _clean_build(tmp_path / "clean", project / "corpus"), "a hand edit of the site")


def _cli_build(project: Path, seed: int) -> tuple[int, int]:
    """A build in a process of its own, with this string-hash seed; (pages linked, pages built)."""
    env = {**os.environ, "PYTHONHASHSEED": str(seed), "CORPUS_BUILD_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-m", "corpus_build", "--project", str(project), "build", "-v"],
                          capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    found = re.search(r"(\d+) page\(s\) linked as the last build made them, (\d+) built", done.stderr)
    assert found, done.stderr[-2000:]
    return int(found.group(1)), int(found.group(2))


def test_pages_are_linked_whatever_order_the_tags_plugin_keeps_its_listings_in(tmp_path):
    """Material's tags plugin keeps its listings in a set (ordered by string hashes, which change from
    process to process): the pages' keys must not follow that order, or no tagged page is ever linked."""
    project = write_project(tmp_path / "p")
    _cli_build(project, 1)
    for seed in (2, 3, 4):
        _edit(project / "corpus", "01-gpu/sources.yaml", "Second line of the note", f"Second line of the note, edited {seed}")
        linked, built = _cli_build(project, seed)
        assert built <= 3 and linked >= 17, (seed, linked, built)


def _read(caplog: pytest.LogCaptureFixture) -> tuple[int, int]:
    """(pages put back, pages read) from the last build's log line (site/populateskip.py)."""
    lines = [r.getMessage() for r in caplog.records if "page(s) put back as the last build read them" in r.getMessage()]
    assert lines, "the build did not report the pages it put back"
    back, read = re.search(r"(\d+) page\(s\) put back as the last build read them, (\d+) read", lines[-1]).groups()
    return int(back), int(read)


def test_a_note_edit_reads_only_the_pages_whose_files_changed(tmp_path, caplog, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1793000000")
    caplog.set_level(logging.INFO, logger="mkdocs.plugins.corpus")
    project = write_project(tmp_path / "edited")
    site.build(project, strict=True, quiet=False)
    _edit(project / "corpus", "01-gpu/sources.yaml", "Second line of the note.", "Second line of the note, edited.")
    _rebuild(project, caplog)
    back, read = _read(caplog)
    # The note's two pages, and the tags' four own pages (their listings are filled after every page is read).
    assert read <= 6 and back >= 16, (back, read)
    _assert_same_site(project / "site", _clean_build(tmp_path / "clean", project / "corpus"), "a note edit")


def test_mirror_pages_put_back_unread_get_their_text_when_their_template_is_built(tmp_path, caplog, monkeypatch):
    """A mirror's text page put back from the cache left its text blocks in its file: when its template
    must be built again (every page's navigation changed), the blocks are taken from the file then."""
    from tests.test_mirror_pages import write_mirrors

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1793000000")
    caplog.set_level(logging.INFO, logger="mkdocs.plugins.corpus")
    project = write_mirrors(write_project(tmp_path / "edited"), "http://127.0.0.1:9")
    site.build(project, strict=True, quiet=False)
    _edit(project / "corpus", "01-gpu/section.yaml", "title: GPU hardware", "title: GPU hardware and more")  # in the navigation
    linked, _built = _rebuild(project, caplog)
    back, _read_count = _read(caplog)
    assert linked == 0 and back > 10, (linked, back)
    text = (project / "site" / "sources" / "cuda-guide" / "text" / "index.html").read_text(encoding="utf-8")
    assert "What the page said." in text and "cb-block" not in text
    _assert_same_site(project / "site", _clean_build(tmp_path / "clean", project / "corpus"), "a section title, with mirrors")


def test_records_of_pages_put_back_are_kept_for_the_build_that_reads_them_again(tmp_path, caplog, monkeypatch):
    """A page put back uses none of the records its reading used (its render, its allow-list pass, its
    mirror text blocks): they are kept all the same, so when a later edit makes it be read (and its
    template built) again, nothing is converted or cleaned afresh."""
    from tests.test_incremental import _cache_stats
    from tests.test_mirror_pages import write_mirrors

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1793000000")
    caplog.set_level(logging.INFO, logger="mkdocs.plugins.corpus")
    project = write_mirrors(write_project(tmp_path / "edited"), "http://127.0.0.1:9")
    site.build(project, strict=True, quiet=False)
    _edit(project / "corpus", "01-gpu/sources.yaml", "Second line of the note.", "Second line of the note, edited.")
    _rebuild(project, caplog)
    assert _read(caplog)[0] > 10
    (project / buildcache_dir(project) / "pages-read-fulltext.json").unlink()  # every page read again
    _edit(project / "corpus", "01-gpu/section.yaml", "title: GPU hardware", "title: GPU hardware and more")
    _rebuild(project, caplog)
    messages = [r.getMessage() for r in caplog.records]
    assert any("mirror text block(s) kept from the Markdown step, 0 cleaned afresh" in m for m in messages), [m for m in messages if "cleaned" in m]
    render = _cache_stats(caplog)["render"]
    assert render[1] <= 10 and render[0] >= 10, render  # (the section's pages, its sources' (their section link), the listings)
    _assert_same_site(project / "site", _clean_build(tmp_path / "clean", project / "corpus"), "a section title after pages were put back")


def buildcache_dir(project: Path) -> Path:
    from corpus_build.site import buildcache

    return project / buildcache.CACHE_DIR


def test_a_mirror_page_put_back_and_rewritten_before_its_template_stops_the_build_with_the_site_kept(tmp_path, caplog, monkeypatch):
    """A mirror's text page put back from the cache took its text blocks by reading its file again
    when its template was built, long after the read step: a `corpus-build render` (another
    capture) writing the file in between paired the cached page's block places with the new
    file's blocks, and the build died on 'the place of a mirror text block is gone' (or, had the
    new file no block, published the page without its text). The build stops with what to do instead,
    and the published site stays the last one, whole."""
    import mkdocs.commands.build as mkdocs_build

    from tests.test_mirror_pages import write_mirrors

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1793000000")
    caplog.set_level(logging.INFO, logger="mkdocs.plugins.corpus")
    project = write_mirrors(write_project(tmp_path / "edited"), "http://127.0.0.1:9")
    site.build(project, strict=True, quiet=False)
    _edit(project / "corpus", "01-gpu/section.yaml", "title: GPU hardware", "title: GPU hardware and more")  # every template again
    text_page = project / "docs" / "sources" / "cuda-guide" / "text.md"
    real_build_page = mkdocs_build._build_page
    rewritten: list[str] = []

    def build_page(page, *args, **kwargs):  # MkDocs' template step, after every page was read or put back
        if page.file.src_uri == "sources/cuda-guide/text.md" and not rewritten:
            old = text_page.read_text(encoding="utf-8")
            text_page.write_text(old.replace("What the page said.", "What another capture said."), encoding="utf-8")
            rewritten.append(old)
        return real_build_page(page, *args, **kwargs)

    monkeypatch.setattr(mkdocs_build, "_build_page", build_page)
    from corpus_build.core.errors import SiteError

    with pytest.raises(SiteError, match="the mkdocs build failed"):
        _rebuild(project, caplog)
    said = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
    assert any("cuda-guide/text.md: the page was rewritten while the site was built" in m and "build again" in m for m in said), said
    assert rewritten  # (the error comes from the page put back: one read gets its blocks with its Markdown)
    shown = project / "site" / "sources" / "cuda-guide" / "text" / "index.html"
    assert "What the page said." in shown.read_text(encoding="utf-8")  # the published site: the last one, whole
    monkeypatch.setattr(mkdocs_build, "_build_page", real_build_page)
    _rebuild(project, caplog)  # the render puts its own page back; the build after it is whole
    assert "What the page said." in shown.read_text(encoding="utf-8") and "cb-block" not in shown.read_text(encoding="utf-8")
