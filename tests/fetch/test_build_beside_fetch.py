"""A build running while a fetch replaces a mirror: the site shows one capture of each source, never a mix.

The fetch is real (a local HTTP server, fetch_corpus swapping raw/<id> through core/swapdir.py);
what makes the interleaving certain is where it runs: from inside the build, the moment render
first reads a file of that mirror after its record (mirrortext.mirror_file, our own seam).
A fetch run from another process beside a build hits that window only now and then.
"""

from __future__ import annotations

import shutil
from dataclasses import replace

import pytest

from corpus_build import registry
from corpus_build.core import swapdir
from corpus_build.fetch import fetch_corpus
from corpus_build.render import mirrortext
from corpus_build.site import engines
from tests.corpus_fixture import PROJECT_ROOT

from .conftest import write_corpus


def _page(word: str) -> str:
    return ("<html><head><title>Capture " + word + "</title></head><body><article><h1>Capture " + word + "</h1>"
            + "".join(f"<p>The {word}word paragraph number {i} says enough for the extractor to keep it as text.</p>" for i in range(12))
            + "</article></body></html>")


@pytest.fixture
def project(tmp_path, server, options):
    server.add("/page", _page("alpha"))
    write_corpus(tmp_path, [{"id": "page", "url": server.url("/page"), "kind": "article", "title": "The page"}])
    shutil.copy(PROJECT_ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    (tmp_path / "docs").mkdir()
    corpus = registry.load(tmp_path / "corpus")
    fetch_corpus(corpus, options)
    assert "alphaword" in (tmp_path / "corpus" / "01-main" / "raw" / "page" / "text.md").read_text(encoding="utf-8")
    server.add("/page", _page("beta"))  # the next fetch brings another capture
    return tmp_path, corpus


def _fetch_during_build(monkeypatch, corpus, options, times: int = 1) -> list[int]:
    """Run a real fetch of `page` (with --force) at the first `times` reads of one of its files after its record."""
    real = mirrortext.mirror_file
    done: list[int] = []

    def mirror_file(corpus_, source, name):
        if source.id == "page" and len(done) < times:
            done.append(1)
            fetch_corpus(registry.load(corpus.root), replace(options, force=True))
        return real(corpus_, source, name)

    monkeypatch.setattr(mirrortext, "mirror_file", mirror_file)
    import corpus_build.render.mirror as mirror

    monkeypatch.setattr(mirror, "mirror_file", mirror_file)
    return done


def _built(root):
    site = root / "site"
    source = (site / "sources" / "page" / "index.html").read_text(encoding="utf-8")
    text = (site / "sources" / "page" / "text" / "index.html").read_text(encoding="utf-8")
    index = "".join(p.read_text(encoding="utf-8") for p in (site / "search" / "fulltext").glob("p-*.js"))
    return source, text, index


def _record(root):
    from corpus_build.core.provenance import read_provenance

    return read_provenance(root / "corpus" / "01-main" / "raw" / "page")


@pytest.mark.parametrize("exchange", [True, False], ids=["renameat2", "fallback"])
def test_a_fetch_swapping_a_mirror_during_a_build_never_yields_a_mixed_site(project, monkeypatch, options, exchange):
    root, corpus = project
    if not exchange:
        monkeypatch.setattr(swapdir, "_renameat2", None)
    done = _fetch_during_build(monkeypatch, corpus, options)
    engines.build_and_remember(root, corpus, strict=False)
    assert done, "the fetch never ran during the build"
    record = _record(root)
    assert record is not None and record.sha256
    source, text, index = _built(root)
    # The mirror now holds capture beta: the site shows it, its record and its text, throughout.

    assert record.sha256 in source
    assert "betaword" in source and "alphaword" not in source
    assert "betaword" in text and "alphaword" not in text
    assert "betaword" in index and "alphaword" not in index


def test_a_build_that_keeps_finding_its_mirrors_changed_keeps_the_old_site_and_says_why(project, monkeypatch, server, options, capsys):
    from corpus_build.core.errors import SiteError
    from corpus_build.site import uptodate

    root, corpus = project
    engines.build_and_remember(root, corpus, strict=False)
    before = (root / "site" / "sources" / "page" / "text" / "index.html").read_text(encoding="utf-8")
    assert "alphaword" in before
    (root / uptodate.STAMP).unlink(missing_ok=True)
    real_marks, real_file = mirrortext.mirror_marks, mirrortext.mirror_file
    armed: list[bool] = []
    fetched: list[str] = []

    def mirror_marks(corpus_):  # each build arms one fetch, at its first read of the mirror's files
        armed.append(True)
        return real_marks(corpus_)

    def mirror_file(corpus_, source, name):
        if source.id == "page" and armed and armed[-1]:
            armed[-1] = False
            word = ("beta", "gamma", "delta")[len(fetched) % 3]
            fetched.append(word)
            server.add("/page", _page(word))
            fetch_corpus(registry.load(corpus.root), replace(options, force=True))
        return real_file(corpus_, source, name)

    import corpus_build.render.mirror as mirror

    monkeypatch.setattr(mirrortext, "mirror_marks", mirror_marks)
    monkeypatch.setattr(mirrortext, "mirror_file", mirror_file)
    monkeypatch.setattr(mirror, "mirror_file", mirror_file)
    with pytest.raises(SiteError, match=r"mirrors of 1 source\(s\) \(page\) changed while the site was built, 3 times"):
        engines.build_and_remember(root, corpus, strict=False)
    assert len(fetched) == engines.MIRROR_TRIES
    assert (root / "site" / "sources" / "page" / "text" / "index.html").read_text(encoding="utf-8") == before  # the old site, whole
    assert not (root / ".site.partial").exists()
    assert capsys.readouterr().err.count("changed during the build: building again") == engines.MIRROR_TRIES - 1


def _png(seed: int) -> bytes:
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    raw = b"\x00" + bytes([seed % 256, 7, 9])
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


def _page_with_images(word: str, images: list[str]) -> str:
    paragraphs = "".join(f"<p>The {word}word paragraph number {i} says enough for the extractor to keep it as text.</p>" for i in range(12))
    figures = "".join(f'<p>Figure {name} of {word}:</p><img src="/img/{name}.png" alt="figure {name}">' for name in images)
    return f"<html><head><title>Capture {word}</title></head><body><article><h1>Capture {word}</h1>{paragraphs}{figures}</article></body></html>"


def test_a_mirror_swapped_between_render_listing_its_images_and_copying_them_builds_again(tmp_path, server, options, monkeypatch):
    for i, name in enumerate(("one", "two", "three")):
        server.add(f"/img/{name}.png", _png(i), content_type="image/png")
    server.add("/page", _page_with_images("alpha", ["one", "two"]))
    write_corpus(tmp_path, [{"id": "page", "url": server.url("/page"), "kind": "article", "title": "The page"}])
    shutil.copy(PROJECT_ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    (tmp_path / "docs").mkdir()
    corpus = registry.load(tmp_path / "corpus")
    fetch_corpus(corpus, options)
    record = _record(tmp_path)
    kept = [image.path for image in record.document.image_files if image.path]
    assert len(kept) == 2, record.document.image_files
    server.add("/page", _page_with_images("beta", ["three"]))  # the next capture has other images
    real = mirrortext.mirror_file
    fetched: list[int] = []

    def mirror_file(corpus_, source, name):
        found = real(corpus_, source, name)
        if source.id == "page" and name == kept[-1] and not fetched:  # render has both images' paths: the fetch swaps now
            fetched.append(1)
            fetch_corpus(registry.load(corpus.root), replace(options, force=True))
        return found

    import corpus_build.render.mirror as mirror

    monkeypatch.setattr(mirrortext, "mirror_file", mirror_file)
    monkeypatch.setattr(mirror, "mirror_file", mirror_file)
    engines.build_and_remember(tmp_path, corpus, strict=False)
    assert fetched
    source, text, _index = _built(tmp_path)
    assert "betaword" in source and "betaword" in text and "alphaword" not in text


def test_a_watch_rewriting_a_pull_requests_record_during_a_build(tmp_path, server, options, monkeypatch):
    """watch/run.py rewrites a mirror's record (the thread's state) by a rename, under the run lock.
    A build that read the record just before shows the older state; it builds again, and neither
    it nor the next build keeps the page made from the older record."""
    import json

    from corpus_build.site import uptodate
    from corpus_build.watch import run as watch_run
    from corpus_build.watch.records import CitedRef

    server.add("/api/repos/o/r/issues/9", json.dumps({"number": 9, "title": "A PR", "state": "open", "body": "The change.", "user": {"login": "a"}, "labels": []}),
               content_type="application/json")
    server.add("/api/repos/o/r/issues/9/comments", "[]", content_type="application/json")
    server.add("/api/repos/o/r/pulls/9", json.dumps({"state": "open", "merged": False, "base": {"label": "o:main"}, "head": {"label": "b:x"}}),
               content_type="application/json")
    write_corpus(tmp_path, [{"id": "r-pr-9", "url": "https://github.com/o/r/pull/9", "kind": "pull", "title": "PR 9"}])
    shutil.copy(PROJECT_ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    (tmp_path / "docs").mkdir()
    corpus = registry.load(tmp_path / "corpus")
    fetch_corpus(corpus, options)
    raw = tmp_path / "corpus" / "01-main" / "raw" / "r-pr-9"
    real = mirrortext.mirror_state
    watched: list[int] = []

    def mirror_state(raw_dir, stale_after_days):
        found = real(raw_dir, stale_after_days)
        if raw_dir == raw and not watched:  # the build has read the record: watch writes the merge now
            watched.append(1)
            ref = CitedRef(repo="o/r", number=9, kind="pull", url="https://github.com/o/r/pull/9", source_id="r-pr-9")
            watch_run._update_provenance(corpus, ref, {"state": "merged", "merged_at": "2026-11-04T05:06:07Z"})
        return found

    monkeypatch.setattr(mirrortext, "mirror_state", mirror_state)
    engines.build_and_remember(tmp_path, corpus, strict=False)
    assert watched and _record_of(raw).thread.merged
    page = (tmp_path / "site" / "sources" / "r-pr-9" / "index.html").read_text(encoding="utf-8")
    assert "merged 2026-11-04" in page and "state-open" not in page
    # And the next build too: the page made from the record before watch's write, keyed by the
    # record's stamp after it (render/sourcekeys.py), was read back by every later build.
    monkeypatch.setattr(mirrortext, "mirror_state", real)
    (tmp_path / uptodate.STAMP).unlink(missing_ok=True)
    engines.build_and_remember(tmp_path, registry.load(tmp_path / "corpus"), strict=False)
    page = (tmp_path / "site" / "sources" / "r-pr-9" / "index.html").read_text(encoding="utf-8")
    assert "merged 2026-11-04" in page and "state-open" not in page


def _record_of(raw):
    from corpus_build.core.provenance import read_provenance

    return read_provenance(raw)


# --- builds outside `corpus-build build`: plain `mkdocs build` with the plugin, `corpus-build render` --------


def _mkdocs_build(root) -> None:
    """A plain `mkdocs build` of the project (the `corpus` plugin renders and builds), in this process."""
    from mkdocs.commands.build import build as mkdocs_build
    from mkdocs.config import load_config

    mkdocs_build(load_config(str(root / "mkdocs.yml")))


def test_a_plain_mkdocs_build_beside_a_fetch_fails_and_says_what_to_do(project, monkeypatch, options, caplog):
    """MkDocs writes site/ as it goes and the plugin cannot build again: a fetch swapping a mirror during
    the build is found when it is done, the build fails (non-zero) with what to do, and the next build
    (nothing fetched) publishes one capture throughout, as a clean build of the same mirrors does."""
    from mkdocs.exceptions import Abort

    root, corpus = project
    done = _fetch_during_build(monkeypatch, corpus, options)
    with pytest.raises(Abort):
        _mkdocs_build(root)
    assert done, "the fetch never ran during the build"
    message = " ".join(r.getMessage() for r in caplog.records if r.levelname == "ERROR")
    assert "mirrors of 1 source(s) (page) changed while the site was built" in message and "build again" in message
    monkeypatch.undo()
    _mkdocs_build(root)
    record = _record(root)
    assert record is not None and record.sha256
    source, text, index = _built(root)
    assert record.sha256 in source and "betaword" in source and "alphaword" not in source
    assert "betaword" in text and "alphaword" not in text
    assert "betaword" in index and "alphaword" not in index


def test_corpus_build_render_beside_a_fetch_renders_again(project, monkeypatch, options, capsys):
    """`corpus-build render` (docs/ for another engine): a mirror swapped while render read it is
    rendered again, so the source page and its text page name one capture."""
    root, corpus = project
    done = _fetch_during_build(monkeypatch, corpus, options)
    engines.render_for_engines(root, corpus)
    assert done, "the fetch never ran during the render"
    record = _record(root)
    assert record is not None and record.sha256
    source = (root / "docs" / "sources" / "page.md").read_text(encoding="utf-8")
    text = (root / "docs" / "sources" / "page" / "text.md").read_text(encoding="utf-8")
    assert record.sha256 in source
    assert "alphaword" not in source and "alphaword" not in text and "betaword" in text
    assert "changed during the render: rendering again" in capsys.readouterr().err


# --- a fetch of unchanged sources beside a build: every record rewritten in place, no capture changed -------


def _checked_days_ago(root, days: int) -> str:
    """Give the mirror's record an older capture and check (as fetches some days ago would have left it); the page's "Last checked" text."""
    import datetime as dt

    from corpus_build.core.provenance import Status, write_provenance
    from corpus_build.render.views import local_time

    raw = root / "corpus" / "01-main" / "raw" / "page"
    record = _record(root)
    def ago(n: int) -> str:
        return (dt.datetime.now(dt.UTC) - dt.timedelta(days=n)).strftime("%Y-%m-%dT%H:%M:%SZ")

    # (status unchanged: as the page's state would not change, only its check time can tell the two records apart)
    write_provenance(raw, replace(record, status=Status.UNCHANGED, fetched_at=ago(days + 1), checked_at=ago(days)))
    return local_time(_record(root).checked_at, registry.load(root / "corpus").settings.tzinfo)


def _unchanged_fetch_during_build(monkeypatch, corpus, options, server, when: str = "file") -> list[int]:
    """A real fetch of `page` whose server still serves the mirrored capture: it rewrites the record in place
    (status unchanged, a new check time) at the first read of one of its files after its record (`when`
    "file"), or right after the render's first read of its record ("record": before the render stamps the
    mirrors' files for its reuse keys, render/sourcekeys.py)."""
    server.add("/page", _page("alpha"))
    done: list[int] = []

    def fetch() -> None:
        done.append(1)
        [result] = fetch_corpus(registry.load(corpus.root), options)
        assert result.status.value == "unchanged", result

    if when == "record":
        real_state = mirrortext.mirror_state

        def mirror_state(raw_dir, stale_after_days):
            found = real_state(raw_dir, stale_after_days)
            if raw_dir.name == "page" and not done:
                fetch()
            return found

        monkeypatch.setattr(mirrortext, "mirror_state", mirror_state)
        return done
    real = mirrortext.mirror_file

    def mirror_file(corpus_, source, name):
        if source.id == "page" and not done:
            fetch()
        return real(corpus_, source, name)

    import corpus_build.render.mirror as mirror

    monkeypatch.setattr(mirrortext, "mirror_file", mirror_file)
    monkeypatch.setattr(mirror, "mirror_file", mirror_file)
    return done


@pytest.mark.parametrize("when", ["file", "record"])
def test_a_plain_mkdocs_build_beside_a_fetch_of_unchanged_sources_succeeds_and_the_next_shows_the_new_check(project, monkeypatch, options, server, when):
    """An unchanged fetch rewrites every record it checks (when, how): the marks saw each as a changed
    mirror, and a plain `mkdocs build` beside a fetch failed though no capture changed. The page shows
    the record as the render read it, one capture throughout; the next build shows the new check (the
    page made from the older record is not read back under the newer record's stamps)."""
    root, corpus = project
    before = _checked_days_ago(root, 2)
    stamp = (root / "corpus" / "01-main" / "raw" / "page" / "provenance.json").stat().st_ino
    done = _unchanged_fetch_during_build(monkeypatch, corpus, options, server, when)
    _mkdocs_build(root)  # no Abort
    assert done, "the fetch never ran during the build"
    assert (root / "corpus" / "01-main" / "raw" / "page" / "provenance.json").stat().st_ino != stamp  # rewritten in place
    record = _record(root)
    assert record.status.value == "unchanged"
    source, text, _index = _built(root)
    assert record.sha256 in source and before in source  # as read, before the fetch's rewrite
    assert "alphaword" in text and "betaword" not in text
    monkeypatch.undo()
    _mkdocs_build(root)
    source, _text, _index = _built(root)
    assert before not in source and record.sha256 in source


def test_corpus_build_build_beside_a_fetch_of_unchanged_sources_builds_once(project, monkeypatch, options, server, capsys):
    from corpus_build.site import uptodate

    root, corpus = project
    _checked_days_ago(root, 2)
    done = _unchanged_fetch_during_build(monkeypatch, corpus, options, server)
    engines.build_and_remember(root, corpus, strict=False)
    assert done, "the fetch never ran during the build"
    assert "building again" not in capsys.readouterr().err
    _source, text, _index = _built(root)
    assert "alphaword" in text
    assert not (root / uptodate.STAMP).exists()  # an input changed under it: the next build is a real one
