"""A mirrored repository readable on the site (issue 24): its README and docs as pages, relative
links and images resolved inside the mirror, vendored folders and caps said on the page, and
`[[repo-id#path:10-12]]` from notes and digests opening the file at those lines, highlighted;
`check` validating such links against the checkout. Real git repositories, served by the local
fixture server, cloned by fetch; real renders and a real MkDocs build."""

from __future__ import annotations

import json
import os
import re
import shutil
import zlib
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from corpus_build import registry, site
from corpus_build import render as render_stage
from corpus_build.core import repofiles
from corpus_build.fetch import fetch_corpus
from corpus_build.fetch.kinds import git as git_kind
from corpus_build.render import build_pages, repodocs
from tests.corpus_fixture import PROJECT_ROOT

from .conftest import git, write_corpus

GITHUB = "https://github.com/acme/widget"


def _png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return len(data).to_bytes(4, "big") + kind + data + zlib.crc32(kind + data).to_bytes(4, "big")

    header = (1).to_bytes(4, "big") * 2 + bytes([8, 0, 0, 0, 0])
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\0\0")) + chunk(b"IEND", b"")


README = """# Widget

See [the guide](docs/guide.md), [the tiles](docs/deep-dive.md#the-tiles), [the kernel](src/kernel.cu#L3),
[the build script](build.sh), [the source folder](src) and [from the top](/docs/guide.md).

![logo](docs/img/logo.png) ![fake](docs/img/fake.png) ![far](https://example.org/far.png)

Escapes: [passwd](../../etc/passwd), [deeper](docs/../../../../etc/passwd), ![out](../outside.png).

<script>window.__pwned = 1</script> and [js](javascript:alert(1)).

## Install steps

Jump [within](#install-steps).
"""

GUIDE = """# Guide

Back to [the README](../README.md) and the [logo](img/logo.png): ![logo](img/logo.png)
"""

KERNEL = "".join(f"int line_{n} = {n};  // <b>{n}</b>\n" for n in range(1, 31))


def _repo(tmp_path: Path, server, extra_docs: int = 0, big_lines: int = 0) -> Path:
    """A repository at /git/widget.git with docs, an image, code, vendored folders; returns its work tree."""
    root, work = tmp_path / "git-root", tmp_path / "git-work"
    root.mkdir()
    (work / "docs" / "img").mkdir(parents=True)
    (work / "src").mkdir()
    (work / "README.md").write_text(README, encoding="utf-8")
    (work / "docs" / "guide.md").write_text(GUIDE, encoding="utf-8")
    (work / "docs" / "deep-dive.md").write_text("# Deep dive\n\n## The tiles\n\nTiles.\n", encoding="utf-8")
    (work / "docs" / "img" / "logo.png").write_bytes(_png())
    (work / "docs" / "img" / "fake.png").write_text('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>')
    (work / "docs" / "huge.md").write_text("# Huge\n\n" + "word " * 120_000, encoding="utf-8")  # over MAX_DOC_FILE
    (work / "src" / "kernel.cu").write_text(KERNEL, encoding="utf-8")
    (work / "build.sh").write_text("#!/bin/sh\nmake\n", encoding="utf-8")
    (work / "odd name.md").write_text("# Odd\n", encoding="utf-8")
    for vendored in ("3rdparty/cutlass", "node_modules/left-pad"):
        (work / vendored).mkdir(parents=True)
        (work / vendored / "README.md").write_text("# Someone else's docs\n", encoding="utf-8")
    if extra_docs:
        (work / "notes").mkdir()
        for n in range(extra_docs):
            (work / "notes" / f"n{n:03d}.md").write_text(f"# Note {n}\n\nText {n}.\n", encoding="utf-8")
    if big_lines:
        (work / "gen").mkdir()
        (work / "gen" / "big.txt").write_text("".join(f"row {n}\n" for n in range(1, big_lines + 1)), encoding="utf-8")
    git("init", "-q", "-b", "main", cwd=work)
    git("add", "-A", cwd=work)
    git("commit", "-q", "-m", "first", cwd=work)
    git("clone", "-q", "--bare", str(work), str(root / "widget.git"), cwd=tmp_path)
    server.git_root = root
    return work


def _corpus(tmp_path: Path, server, note: str = "", digest: str = "", extra_docs: int = 0, big_lines: int = 0):
    work = _repo(tmp_path, server, extra_docs, big_lines)
    root = write_corpus(tmp_path, [{"id": "widget", "url": GITHUB, "kind": "repo", "title": "Widget", "note": note or "Why it matters."}])
    if digest:
        (root / "digests").mkdir(exist_ok=True)
        (root / "digests" / "2026-10-22.md").write_text("---\ntitle: Digest\n---\n\n" + digest + "\n", encoding="utf-8")
    return root, work


def _fetch(root: Path, server, options) -> None:
    [result] = fetch_corpus(registry.read(root)[0], replace(options, rewrites=((GITHUB, server.url("/git/widget.git")),)))
    assert result.ok if hasattr(result, "ok") else result.status.value in ("ok", "unchanged"), result.error


def test_checkout_folder_is_the_one_fetch_clones_into():
    assert repofiles.CHECKOUT == git_kind.CLONE


def test_docs_pages_resolve_links_and_images_inside_the_mirror_only(tmp_path, server, options):
    root, work = _corpus(tmp_path, server)
    _fetch(root, server, options)
    corpus = registry.load(root)
    checkout = corpus.raw_dir(corpus.source("widget")) / "repo"
    # What a tracked mirror could hold on the build machine: symlinks out of it (git itself writes none).
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# Secret of the build machine\n", encoding="utf-8")
    (outside / "secret.png").write_bytes(_png())
    os.symlink(outside / "secret.md", checkout / "docs" / "escape.md")
    os.symlink(outside, checkout / "linked")
    os.symlink(outside / "secret.png", checkout / "docs" / "img" / "link.png")
    pages = build_pages(corpus)
    commit = git("rev-parse", "HEAD", cwd=work).strip()

    base = "sources/widget/repo/"
    built = sorted(p[len(base):] for p in pages if p.startswith(base))
    assert built == ["README.md.md", "docs/deep-dive.md.md", "docs/guide.md.md", "index.md"], built
    assert sorted(p for p in pages if "repo-images" in p) == ["sources/widget/repo-images/docs/img/logo.png"]
    assert not any("secret" in str(v) for p, v in pages.items() if p.startswith("sources/widget/"))

    readme = pages[base + "README.md.md"]
    assert 'href="../docs/guide.md/"' in readme  # from sources/widget/repo/README.md/ to the guide's page
    assert 'href="../docs/deep-dive.md/#sec-the-tiles"' in readme
    assert readme.count('href="../docs/guide.md/"') == 2  # /docs/guide.md is from the repository's top
    # Files without a page go to the original at the pinned commit, marked as leaving the site.
    assert f'<a class="cb-external" href="{GITHUB}/blob/{commit}/src/kernel.cu#L3"' in readme
    assert f'href="{GITHUB}/blob/{commit}/build.sh"' in readme and f'href="{GITHUB}/tree/{commit}/src"' in readme
    assert '<img alt="logo" src="../../repo-images/docs/img/logo.png"' in readme
    assert "fake.png" not in readme and "example.org/far.png" not in readme and "outside.png" not in readme
    assert "passwd" in readme and "etc/passwd" not in readme.replace("../../etc/passwd)", "")  # the words stay, no link
    assert not re.search(r'href="[^"]*etc/passwd', readme)
    assert "<span>passwd</span>" in readme and "<span>js</span>" in readme  # no link, the words as text
    assert "<script" not in readme and "javascript:" not in readme.replace("[js](javascript:", "")
    assert 'href="#sec-install-steps"' in readme and 'id="sec-install-steps"' in readme
    guide = pages[base + "docs/guide.md.md"]
    assert 'href="../../README.md/"' in guide and 'src="../../../repo-images/docs/img/logo.png"' in guide

    index = pages[base + "index.md"]
    assert "[docs/guide.md](docs/guide.md.md)" in index and "[README.md](README.md.md)" in index
    assert "3rdparty/" in index and "node\\_modules/" in index and "Someone else" not in str(pages)
    assert "1 doc larger than 512 KB each." in index
    assert "3 symbolic links, never followed." in index  # linked/, docs/escape.md, docs/img/link.png
    source_page = pages["sources/widget.md"]
    assert "3 docs pages built" in source_page and "(widget/repo/index.md)" in source_page
    assert "larger than 512 KB" in source_page and "third-party code or submodules" in source_page


def test_page_cap_is_applied_and_said(tmp_path, server, options):
    root, _work = _corpus(tmp_path, server, extra_docs=repodocs.MAX_PAGES)
    _fetch(root, server, options)
    pages = build_pages(registry.load(root))
    built = [p for p in pages if p.startswith("sources/widget/repo/") and p != "sources/widget/repo/index.md"]
    assert len(built) == repodocs.MAX_PAGES
    assert "sources/widget/repo/README.md.md" in pages  # the overview first
    assert f"3 more docs past the limit of {repodocs.MAX_PAGES} pages per repository." in pages["sources/widget/repo/index.md"]
    assert "past the limit of 200 pages" in pages["sources/widget.md"]


def test_cited_lines_open_the_file_page_highlighted(tmp_path, server, options):
    root, _work = _corpus(tmp_path, server, note="Read [[widget#src/kernel.cu:10-12]] and [[widget#build.sh:2|the make line]].")
    (root / "chapters.yaml").write_text(yaml.safe_dump([{"number": 1, "title": "Kernels", "path": [
        {"source": "widget", "why": "Start at <line 20>: [[widget#src/kernel.cu:20|the loop]]."}]}], allow_unicode=True), encoding="utf-8")
    sources = root / "01-main" / "sources.yaml"
    sources.write_text(sources.read_text(encoding="utf-8").replace("kind: repo", "kind: repo\n  chapters: [1]"), encoding="utf-8")
    _fetch(root, server, options)
    corpus = registry.load(root)
    assert [p for p in registry.check(root) if "widget" in str(p) and "link" in str(p)] == []
    pages = build_pages(corpus)
    source_page = pages["sources/widget.md"]
    assert "[Widget · src/kernel.cu:10-12](widget/repo/src/kernel.cu.md#L10)" in source_page
    assert "[the make line](widget/repo/build.sh.md#L2)" in source_page
    chapter = pages["chapters/01.md"]
    assert "Start at &lt;line 20&gt;: [the loop](../sources/widget/repo/src/kernel.cu.md#L20)." in chapter  # the rest stays text
    assert "[the loop](widget/repo/src/kernel.cu.md#L20)" in source_page  # "cited by" shows the step's why
    kernel = pages["sources/widget/repo/src/kernel.cu.md"]
    assert "search:\n  exclude: true" in kernel
    assert "&lt;b&gt;10&lt;/b&gt;" in kernel and "<b>" not in kernel  # code is text
    # The README's link to the kernel now goes to its page, not to GitHub.
    assert 'href="../src/kernel.cu/#L3"' in pages["sources/widget/repo/README.md.md"]
    (tmp_path / "mkdocs.yml").write_text((PROJECT_ROOT / "mkdocs.yml").read_text(encoding="utf-8"), encoding="utf-8")
    built = site.build(tmp_path, strict=True)
    html = (built / "sources" / "widget" / "repo" / "src" / "kernel.cu" / "index.html").read_text(encoding="utf-8")

    def line_class(n: int) -> str:
        match = re.search(rf'<span class="([^"]*)" id="L{n}">', html)
        assert match, n
        return match.group(1)

    assert [line_class(n) for n in (9, 10, 11, 12, 13)] == ["cb-line", "cb-line cb-hl", "cb-line cb-hl", "cb-line cb-hl", "cb-line"]
    assert [line_class(n) for n in (19, 20, 21)] == ["cb-line", "cb-line cb-hl", "cb-line"]  # the chapter's line
    note_html = (built / "sources" / "widget" / "index.html").read_text(encoding="utf-8")
    assert 'href="repo/src/kernel.cu/#L10"' in note_html
    assert (built / "sources" / "widget" / "repo-images" / "docs" / "img" / "logo.png").read_bytes() == _png()
    assert (built / "sources" / "widget" / "repo" / "docs" / "guide.md" / "index.html").is_file()
    # The docs are in the full-text search, by section (site/fulltext.py); the docs index is not mirror text.
    chunks = "".join(p.read_text(encoding="utf-8") for p in (built / "search" / "fulltext").glob("p-*.js"))
    assert '"sources/widget/repo/docs/deep-dive.md/"' in chunks and '"sec-the-tiles"' in chunks
    # The docs index is a page like the chapters (one entry of the sharded index, issue 38), not mirror text cut into passages.
    assert chunks.count('"sources/widget/repo/"') == 1


def test_a_long_cited_file_is_cut_at_the_cap_and_lines_past_it_link_to_the_original(tmp_path, server, options):
    lines = repodocs.MAX_CODE_LINES + 50
    root, work = _corpus(tmp_path, server, note=f"[[widget#gen/big.txt:5]] and [[widget#gen/big.txt:{lines - 10}-{lines}]].", big_lines=lines)
    _fetch(root, server, options)
    assert [p for p in registry.check(root) if "link" in str(p)] == []  # the file has those lines: check reads all of it
    pages = build_pages(registry.load(root))
    commit = git("rev-parse", "HEAD", cwd=work).strip()
    note = pages["sources/widget.md"]
    assert "(widget/repo/gen/big.txt.md#L5)" in note
    assert f"(<{GITHUB}/blob/{commit}/gen/big.txt#L{lines - 10}-L{lines}>)" in note
    page = pages["sources/widget/repo/gen/big.txt.md"]
    assert f'id="L{repodocs.MAX_CODE_LINES}"' in page and f'id="L{repodocs.MAX_CODE_LINES + 1}"' not in page
    assert f"only its first {repodocs.MAX_CODE_LINES:,} lines are shown" in page


def test_unchanged_repository_pages_are_read_back_and_an_edited_doc_rendered_again(tmp_path, server, options):
    root, _work = _corpus(tmp_path, server, note="See [[widget#src/kernel.cu:3]].")
    _fetch(root, server, options)
    corpus = registry.load(root)
    docs = tmp_path / "docs"
    render_stage.render(corpus, docs)
    views = json.loads((docs / ".corpus-build-views.json").read_text(encoding="utf-8"))
    repo_pages = ["sources/widget/repo/README.md.md", "sources/widget/repo/docs/guide.md.md", "sources/widget/repo/src/kernel.cu.md"]
    assert all(page in views for page in repo_pages), sorted(views)  # laid out once, then read back while unchanged
    assert render_stage.render(corpus, docs).written == ()
    guide = corpus.raw_dir(corpus.source("widget")) / "repo" / "docs" / "guide.md"
    guide.write_text(GUIDE + "\nA new paragraph.\n", encoding="utf-8")
    again = render_stage.render(corpus, docs)
    assert again.written == ("sources/widget/repo/docs/guide.md.md",), again
    assert "A new paragraph." in (docs / "sources/widget/repo/docs/guide.md.md").read_text(encoding="utf-8")


def test_check_validates_file_links_against_the_checkout(tmp_path, server, options):
    digest = "\n".join([
        "Good: [[widget#src/kernel.cu:10-12]] and [[widget#src/kernel.cu:30]] and [[widget#docs/guide.md]].",
        "Misspelt: [[widget#src/kernal.cu:3]].",
        "Past the end: [[widget#src/kernel.cu:25-40]].",
        "Backwards: [[widget#src/kernel.cu:12-10]].",
        "Escaping: [[widget#../../etc/passwd]].",
        "Heading of the README: [[widget#sec-install-steps]].",
    ])
    root, _work = _corpus(tmp_path, server, digest=digest)
    before = [str(p) for p in registry.check(root) if "2026-10-22.md" in str(p)]
    warnings = [p for p in before if "cannot be checked yet" in p]
    assert len(warnings) == 6 and all(": warning:" in p for p in warnings), before  # no mirror: nothing can be checked
    errors = [p for p in before if ": error:" in p]
    assert len(errors) == 2, before  # what needs no mirror to be wrong: a backwards range, a path out of the repository
    _fetch(root, server, options)
    problems = [str(p) for p in registry.check(root) if "2026-10-22.md" in str(p)]
    errors = [p for p in problems if ": error:" in p]
    assert len(errors) == 4 and len(problems) == 4, problems
    assert any("2026-10-22.md:6:" in p and "has no file src/kernal.cu; did you mean src/kernel.cu?" in p for p in errors), errors
    assert any("2026-10-22.md:7:" in p and "names lines 25-40, but src/kernel.cu has 30 line(s)" in p for p in errors), errors
    assert any("2026-10-22.md:8:" in p and "whose first line is after its last" in p for p in errors), errors
    assert any("2026-10-22.md:9:" in p and "no path inside a repository" in p for p in errors), errors


def _chromium() -> str | None:
    chromium = os.environ.get("CORPUS_BUILD_CHROMIUM", "/usr/bin/chromium")
    return chromium if shutil.which(chromium) else None


@pytest.mark.slow
@pytest.mark.browser
def test_browser_opens_the_cited_line_scrolled_into_view_and_highlighted(tmp_path, server, options):
    chromium = _chromium()
    if chromium is None:
        print("skipped: no Chromium at /usr/bin/chromium (set CORPUS_BUILD_CHROMIUM)")
        pytest.skip("no Chromium")
    sync_api = pytest.importorskip("playwright.sync_api")
    from tests.site_helpers import serve

    many = "".join(f"int line_{n} = {n};\n" for n in range(1, 401))
    root, work = _corpus(tmp_path, server, note="The loop: [[widget#src/long.cu:300-305]].")
    (work / "src" / "long.cu").write_text(many, encoding="utf-8")
    git("add", "-A", cwd=work)
    git("commit", "-q", "-m", "long", cwd=work)
    git("push", "-q", str(tmp_path / "git-root" / "widget.git"), "main", cwd=work)
    _fetch(root, server, options)
    (tmp_path / "mkdocs.yml").write_text((PROJECT_ROOT / "mkdocs.yml").read_text(encoding="utf-8"), encoding="utf-8")
    built = site.build(tmp_path, strict=True)
    with serve(built) as base, sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1200, "height": 800})
        page.goto(base + "sources/widget/")
        page.click("text=src/long.cu:300-305")
        page.wait_for_load_state("load")
        assert page.url.endswith("sources/widget/repo/src/long.cu/#L300"), page.url
        line = page.locator("#L300")
        box = line.bounding_box()
        assert box is not None and 0 <= box["y"] < 800, box  # scrolled into view
        assert "cb-hl" in (line.get_attribute("class") or "")
        marked = page.evaluate("getComputedStyle(document.getElementById('L300')).backgroundColor")
        plain = page.evaluate("getComputedStyle(document.getElementById('L299')).backgroundColor")
        assert marked != plain, (marked, plain)  # the highlight is visible, without any script of ours
        browser.close()
