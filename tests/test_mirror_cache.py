"""Mirror text made once (issue 38): render converts a mirror's text once per content, and MkDocs'
Markdown step never reads it (site/mirrorblocks.py); the published pages are those MkDocs would
have made of the blocks itself.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest

from corpus_build import site
from corpus_build.core import mdtext
from corpus_build.site import uptodate
from tests.fulltext_fixture import write_fulltext_project

pytestmark = pytest.mark.slow

DOCUMENTS = [
    {"id": "doc-html", "kind": "html", "lang": "en", "title": "Swizzle notes", "passages": [
        {"heading": "Layouts", "text": "The okapiword layout swizzles *shared* memory banks."},
        {"heading": "Copies", "text": "Asynchronous copies with `cp.async` and a [link](https://example.org/)."},
    ]},
    {"id": "doc-pdf", "kind": "pdf", "lang": "en", "title": "A paper", "passages": [
        {"text": "First page of the quaggaword paper."},
        {"text": "Second page: results."},
    ]},
    {"id": "doc-thread", "kind": "thread", "lang": "zh-Hans", "title": "An issue", "passages": [
        {"author": "octo", "text": "线程里的第一条 narwhalword 评论。"},
        {"author": "cat", "text": "Second comment with **bold** text."},
    ]},
]
WORDS = ("okapiword", "quaggaword", "narwhalword")


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _project(root: Path) -> Path:
    project = write_fulltext_project(root, DOCUMENTS)
    # A digest that links to the paper's second page: the anchor is in a block MkDocs never reads,
    # and the strict build (validation.anchors: warn) must still find it.
    digests = project / "corpus" / "digests"
    digests.mkdir(exist_ok=True)
    (digests / "2026-10-23.md").write_text("---\ntitle: Digest\ndate: 2026-10-23\n---\n\nSee [[doc-pdf#page-2]].\n", encoding="utf-8")
    return project


def test_a_reused_converter_converts_as_a_new_one():
    import markdown

    from corpus_build.render.mirrortext import _converter

    pieces = ["# Title", "## Same", "## Same", "```python\nx = 1 < 2\n```", "~~~\ncode\n~~~", "| a | b |\n|---|---|\n| 1 | 2 |",
              "term\n:   definition", "    indented code", "[link](http://x.org) and [ref][r]\n\n[r]: http://y.org", "*em* **strong** `code`",
              "1. one\n2. two", "- a\n- b", "> quote", "text with &amp; and < >", "### 标题 中文", "Setext\n======", "```\nunclosed fence",
              "![img](images/abc.png)", "<div>raw</div>"]
    rng = random.Random(3)
    for _ in range(300):
        text = mdtext.escape_markup("\n\n".join(rng.choice(pieces) for _ in range(rng.randint(1, 12))))
        fresh = markdown.markdown(text, extensions=mdtext.TEXT_EXTENSIONS, extension_configs=mdtext.TEXT_EXTENSION_CONFIGS, output_format="html")
        assert _converter().convert(text) == fresh, text


def test_mkdocs_never_reads_mirror_text_and_the_site_is_what_it_would_have_built(tmp_path, monkeypatch):
    import markdown

    seen: list[str] = []
    convert = markdown.Markdown.convert

    def recording(self, source):
        seen.append(source)
        return convert(self, source)

    monkeypatch.setattr(markdown.Markdown, "convert", recording)
    project = _project(tmp_path / "blocks")
    site.build(project, strict=True)
    fast = _tree(project / "site")
    # What MkDocs converted, besides render's own conversion of the extracted text (which reads it once).
    text_pages = [s for s in seen if "cb-extracted" in s or "cb-paper" in s or "cb-timeline" in s]
    assert text_pages == [], "MkDocs' Markdown step read a mirror's text"
    for word in WORDS:
        assert any(word.encode() in body for path, body in fast.items() if path.startswith("sources/doc-") and "/text/" in path), word

    from corpus_build.site import mirrorblocks

    # The same project, the blocks left in the Markdown (their marks dropped) for MkDocs to read: the very same site.
    monkeypatch.setattr(mirrorblocks.Blocks, "take", lambda self, text, uri: text.replace(mirrorblocks.OPAQUE_BEGIN, "").replace(mirrorblocks.OPAQUE_END, ""))
    slow = _project(tmp_path / "inline")
    site.build(slow, strict=True)
    assert _tree(slow / "site") == fast


def test_a_rebuild_converts_only_the_mirror_text_that_changed(tmp_path, monkeypatch):
    from corpus_build.render import mirror, paper, thread

    project = _project(tmp_path / "p")
    site.build(project, strict=True)
    converted: list[str] = []
    made: list[str] = []

    def counting(module, name, log, what):
        real = getattr(module, name)

        def wrapper(*args, **kwargs):
            log.append(what(*args))
            return real(*args, **kwargs)

        monkeypatch.setattr(module, name, wrapper)

    counting(mirror, "sanitize_markdown", converted, lambda text, *rest: text)
    counting(thread, "sanitize_markdown", converted, lambda text, *rest: text)
    for module, name in ((mirror, "_text_page"), (paper, "paper_page"), (thread, "thread_page")):
        counting(module, name, made, lambda corpus, source, *rest: source.id)
    site.build(project, strict=True)
    assert made == [] and converted == [], (made, len(converted))

    # One mirror's text changed (as fetch would leave it): that page, and only it, is made again.
    raw = project / "corpus" / "01-gpu" / "raw" / "doc-html"
    (raw / "text.md").write_text((raw / "text.md").read_text(encoding="utf-8") + "\n\n## Added\n\nA zebraword section.\n", encoding="utf-8")
    site.build(project, strict=True)
    assert made == ["doc-html"] and len(converted) == 1
    page = (project / "site" / "sources" / "doc-html" / "text" / "index.html").read_text(encoding="utf-8")
    assert "zebraword" in page

    # The site equals a build from nothing (but for the full-text index, whose passage numbers an
    # incremental build keeps: tests/test_fulltext_incremental.py compares what it means).
    fresh = tmp_path / "fresh"
    shutil.copytree(project, fresh, ignore=shutil.ignore_patterns("site", ".corpus-build", "docs"))
    site.build(fresh, strict=True)

    def pages(folder: Path) -> dict[str, bytes]:
        return {path: data for path, data in _tree(folder).items() if not path.startswith("search/fulltext/")}

    assert pages(fresh / "site") == pages(project / "site")


def test_the_blocks_anchors_are_the_ids_mkdocs_scan_finds():
    from mkdocs.structure.pages import _HTMLHandler

    from corpus_build.render.sanitize import clean_page
    from corpus_build.site.mirrorblocks import anchor_ids

    block = ('<div class="cb-paper"><p id="page-1">x</p><h2 id="sec-1">A &amp; "b" id="fake"</h2><!-- <p id="in-comment"> -->'
             '<a name="n1" href="#x">a</a><span title="a > b" id="after-gt">t</span><p>text id="nope"</p>'
             '<pre><code>&lt;p id="code"&gt;</code></pre><h3 id="caf&eacute;">c</h3></div>')
    cleaned = clean_page(block)
    scan = _HTMLHandler()
    scan.feed(cleaned.replace("<!-- <p id=\"in-comment\"> -->", ""))
    scan.close()
    assert set(anchor_ids(cleaned)) == scan.present_anchor_ids == {"page-1", "sec-1", "after-gt", "café"}  # `name` is not on the allow-list
    assert json.dumps(sorted(anchor_ids(cleaned)))


def test_a_render_resolves_each_folder_once_and_finds_what_the_one_rule_finds(tmp_path):
    """mirror_file within a render (folders' real paths kept) answers as core/safepath's rule does, on hostile names."""
    from corpus_build.core import safepath
    from corpus_build.render import mirrortext

    root = tmp_path / "corpus"
    raw = root / "s" / "raw" / "x"
    (raw / "images").mkdir(parents=True)
    (raw / "text.md").write_text("ok", encoding="utf-8")
    (raw / "images" / "a.png").write_text("p", encoding="utf-8")
    elsewhere = tmp_path / "elsewhere" / "dir"
    elsewhere.mkdir(parents=True)
    (tmp_path / "elsewhere" / "text.md").write_text("secret", encoding="utf-8")
    (elsewhere / "f.md").write_text("secret", encoding="utf-8")
    (raw / "sym").symlink_to(elsewhere)
    (raw / "link.md").symlink_to(tmp_path / "elsewhere" / "text.md")
    (raw / "imgs").symlink_to(raw / "images")  # a link that stays inside the mirror
    out = root / "s" / "raw" / "y"
    out.symlink_to(elsewhere)  # a mirror folder that points out of the corpus
    names = ["text.md", "images/a.png", "sym/../text.md", "sym/f.md", "link.md", "../x/text.md", "", "/etc/passwd", "images", "images/..",
             "imgs/a.png", "missing", "images/../text.md", "./text.md", "a\0b", "sym/../../x/text.md", "f.md"]
    found = 0
    for folder in (raw, out):
        for name in names:
            try:
                rule = safepath.mirror_member(folder, name) if safepath.is_inside(folder, root) else None
            except ValueError:
                rule = None
            with mirrortext.resolving_once():
                kept = mirrortext._member(folder, root, name)
            assert kept == rule, (folder.name, name, kept, rule)
            found += kept is not None
    assert found == 6  # text.md, images/a.png, ../x/text.md, imgs/a.png, images/../text.md, ./text.md


def test_the_full_text_index_is_linked_when_no_mirror_page_changed(tmp_path, caplog):
    """A real build (the nothing-changed stamp gone: it expired, or another engine option) with no
    mirror page and no search entry changed: the full-text index's files are the published ones,
    linked (site/stepoutput.py), byte for byte what running the index would write; a mirror
    edited: it runs. (A note is a search entry: editing one runs the index.)"""
    import logging

    caplog.set_level(logging.INFO, logger="mkdocs.plugins.corpus")
    project = _project(tmp_path / "p")
    site.build(project, strict=True)
    index = project / "site" / "search" / "fulltext"

    def inodes() -> dict[str, int]:
        return {p.relative_to(index).as_posix(): p.stat().st_ino for p in index.rglob("*") if p.is_file()}

    before = inodes()
    assert len(before) > 3
    (project / uptodate.STAMP).unlink(missing_ok=True)  # (site.build itself does not stamp)
    twin = tmp_path / "twin"  # the same state, without the stamp: the index runs
    shutil.copytree(project, twin, symlinks=True)
    (twin / ".corpus-build" / "cache" / "output-fulltext.json").unlink()
    caplog.clear()
    site.build(project, strict=True)
    assert any("linked from the published site" in r.getMessage() for r in caplog.records)
    assert inodes() == before, "the index's files were written again"
    caplog.clear()
    site.build(twin, strict=True)
    assert not any("linked from the published site" in r.getMessage() for r in caplog.records)
    ran = {p.relative_to(twin / "site").as_posix(): p.read_bytes() for p in (twin / "site" / "search" / "fulltext").rglob("*") if p.is_file()}
    assert {p.relative_to(project / "site").as_posix(): p.read_bytes() for p in index.rglob("*") if p.is_file()} == ran

    raw = project / "corpus" / "01-gpu" / "raw" / "doc-pdf"
    data = json.loads((raw / "structure.json").read_text(encoding="utf-8"))
    data["blocks"].append({"page": 2, "kind": "text", "text": "An added yakword paragraph."})
    (raw / "structure.json").write_text(json.dumps(data), encoding="utf-8")
    caplog.clear()
    site.build(project, strict=True)
    assert not any("linked from the published site" in r.getMessage() for r in caplog.records)
    assert any("yakword" in p.read_text(encoding="utf-8") for p in index.glob("p-*.js"))


def test_the_offline_flavour_and_the_site_share_their_text_pages(tmp_path, monkeypatch):
    """A corpus with `offline: true` renders docs/ for both flavours at every build (directory URLs,
    then the offline copy's page.html URLs): a text page without images is the same in both, and
    neither render converts the mirror's text again. The offline render is given the corpus as the
    plugin gives it (`as_offline_copy`: its home page links no zip of its own), so its settings differ
    from the site's in that flag only."""
    from corpus_build import registry, render
    from corpus_build.render import mirror, offlinelink, thread

    project = _project(tmp_path / "p")
    with open(project / "corpus" / "corpus.yaml", "a", encoding="utf-8") as handle:
        handle.write("offline: true\n")
    site_corpus = registry.load(project / "corpus")
    corpus = offlinelink.as_offline_copy(site_corpus)
    assert repr(corpus.settings) != repr(site_corpus.settings)
    docs = project / "docs"
    render.render(site_corpus, docs, directory_urls=True)
    first = (docs / "sources" / "doc-html" / "text.md").read_bytes()
    converted: list[str] = []
    real = mirror.sanitize_markdown

    def counting(text, *args, **kwargs):
        converted.append(text)
        return real(text, *args, **kwargs)

    monkeypatch.setattr(mirror, "sanitize_markdown", counting)
    monkeypatch.setattr(thread, "sanitize_markdown", counting)
    render.render(corpus, docs, directory_urls=False)
    render.render(site_corpus, docs, directory_urls=True)
    render.render(corpus, docs, directory_urls=False)
    assert converted == []
    assert (docs / "sources" / "doc-html" / "text.md").read_bytes() == first
    fresh = corpus.root.parent / "fresh-docs"  # (generated pages go inside the project)
    render.render(corpus, fresh, directory_urls=False)
    assert len(converted) > 0  # a fresh folder converts
    for page in ("sources/doc-html/text.md", "sources/doc-pdf/text.md", "sources/doc-thread/text.md"):
        render.render(corpus, docs, directory_urls=False)
        assert (docs / page).read_bytes() == (fresh / page).read_bytes(), page


def test_after_a_note_edit_the_index_files_it_did_not_change_are_linked_not_written(tmp_path):
    """A note is a search entry: editing one runs the full-text index, and the files it writes
    anew are only those whose content changed; the rest are the published files, hard-linked."""
    project = _project(tmp_path / "p")
    site.build(project, strict=True)
    index = project / "site" / "search" / "fulltext"
    before = {p.name: (p.stat().st_ino, p.read_bytes()) for p in index.glob("*.js")}
    path = project / "corpus" / "01-gpu" / "sources.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("Held-out document 1.", "Held-out document 1, edited."), encoding="utf-8")
    site.build(project, strict=True)
    after = {p.name: p.stat().st_ino for p in index.glob("*.js")}
    kept = [name for name in after if name in before and name != "index.js"]
    changed = [name for name in after if name not in before]
    assert kept and changed, (sorted(before), sorted(after))  # some files changed with the note, some did not
    assert [name for name in kept if after[name] != before[name][0]] == []  # not written again
    assert all((index / name).read_bytes() == before[name][1] for name in kept)


def test_unchanged_index_files_are_linked_by_their_recorded_stamp_and_a_rewritten_one_is_made_again(tmp_path, monkeypatch):
    """The index's store records each file's inode, mtime and size as the build left it: after a note
    edit, a published file that still has them is linked without being read back and hashed (the
    ~5,000 unchanged passage files at 1,000 sources); one rewritten in place since, even to the same
    size, is checked and made again, so the site stays what a build from nothing makes."""
    import hashlib
    import types

    from corpus_build.site import engines

    project = _project(tmp_path / "p")
    site.build(project, strict=True)
    index = project / "site" / "search" / "fulltext"
    path = project / "corpus" / "01-gpu" / "sources.yaml"

    def edit(old: str, new: str) -> None:
        path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")

    hashed: list[int] = []

    def sha1(data: bytes = b"", **kwargs):
        hashed.append(len(data))
        return hashlib.sha1(data, **kwargs)

    monkeypatch.setattr(engines, "hashlib", types.SimpleNamespace(sha1=sha1, sha256=hashlib.sha256))
    before = {p.name: p.stat().st_ino for p in index.glob("*.js")}
    edit("Held-out document 1.", "Held-out document 1, edited.")
    site.build(project, strict=True)
    kept = [p.name for p in index.glob("*.js") if before.get(p.name) == p.stat().st_ino and p.name != "index.js"]
    assert kept and hashed == [], hashed  # linked by the stamp alone

    victim = index / sorted(kept)[0]
    good = victim.read_bytes()
    victim.write_bytes(good[:-1] + (b"X" if good[-1:] != b"X" else b"Y"))  # the same size, other bytes
    edit("Held-out document 1, edited.", "Held-out document 1, edited twice.")
    site.build(project, strict=True)
    assert victim.read_bytes() == good
    twin = tmp_path / "twin"  # the same sources, built from nothing
    shutil.copytree(project, twin, symlinks=True, ignore=shutil.ignore_patterns("site", ".corpus-build"))
    site.build(twin, strict=True)
    fresh = twin / "site" / "search" / "fulltext"
    assert {p.name: p.read_bytes() for p in index.glob("*.js")} == {p.name: p.read_bytes() for p in fresh.glob("*.js")}


def test_a_render_reads_each_mirrors_records_once_and_the_next_render_reads_them_again(tmp_path, monkeypatch):
    """The home page's change list and each source's mirror box both ask for the mirror's state: one
    render reads each source's provenance once; a record changed between renders shows in the next."""
    from corpus_build import registry, render

    project = _project(tmp_path / "p")
    corpus = registry.load(project / "corpus")
    docs = project / "docs"
    render.render(corpus, docs)
    read = _count_record_reads(monkeypatch)
    render.render(corpus, docs)
    assert read and len(read) == len(set(read)), sorted(read)

    raw = project / "corpus" / "01-gpu" / "raw" / "doc-pdf"
    record = json.loads((raw / "provenance.json").read_text(encoding="utf-8"))
    record["fetched_at"] = record["checked_at"] = "2026-01-02T03:04:05Z"
    (raw / "provenance.json").write_text(json.dumps(record), encoding="utf-8")
    render.render(corpus, docs)
    assert "2026-01-02" in (docs / "sources" / "doc-pdf.md").read_text(encoding="utf-8")


def test_after_a_note_edit_the_unchanged_mirror_pages_are_not_read_to_name_them(tmp_path, monkeypatch):
    """The full-text step's key and the index's store name each mirror page by its content: a page
    MkDocs wrote unchanged is the published file, linked, with the inode, mtime and size recorded with
    its hash (fulltext.PageDigests); it is not read again. A mirror edited: its page is new, hashed, indexed."""
    from collections import Counter

    project = _project(tmp_path / "p")
    site.build(project, strict=True)
    mirror_pages = [p.relative_to(project / "site").as_posix() for p in (project / "site" / "sources").glob("*/*/index.html")]
    assert mirror_pages
    path = project / "corpus" / "01-gpu" / "sources.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("Held-out document 1.", "Held-out document 1, edited."), encoding="utf-8")
    reads: Counter = Counter()
    real_read = Path.read_bytes

    def read_bytes(self):
        reads[str(self)] += 1
        return real_read(self)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    site.build(project, strict=True)
    staging = str(project / ".site.partial")
    assert [p for p in reads if p.startswith(staging) and any(p.endswith(page) for page in mirror_pages)] == []

    raw = project / "corpus" / "01-gpu" / "raw" / "doc-pdf"
    data = json.loads((raw / "structure.json").read_text(encoding="utf-8"))
    data["blocks"].append({"page": 2, "kind": "text", "text": "An added zorbword paragraph."})
    (raw / "structure.json").write_text(json.dumps(data), encoding="utf-8")
    site.build(project, strict=True)
    assert any("zorbword" in p.read_text(encoding="utf-8") for p in (project / "site" / "search" / "fulltext").glob("p-*.js"))


def test_corpus_build_build_reads_each_mirrors_records_once(tmp_path, monkeypatch):
    """`corpus-build build` renders (the home page's change list, the mirror boxes), then saves the
    snapshot the next build compares with: each from the states read once, at the render."""
    from corpus_build import registry, render
    from corpus_build.render import changes
    from corpus_build.site import engines

    project = _project(tmp_path / "p")
    site.build(project, strict=True)
    (project / uptodate.STAMP).unlink(missing_ok=True)
    read = _count_record_reads(monkeypatch)
    corpus = registry.load(project / "corpus")
    render.render(corpus, project / "docs")
    by_render = sorted(read)  # (a few builders read a record themselves: a paper's pages, a thread's badge)
    read.clear()
    engines.build_and_remember(project, corpus, strict=True)
    assert by_render and sorted(read) == by_render
    saved = changes.load(corpus)
    assert saved is not None and saved["sources"]["doc-pdf"]["mirror"] in ("ok", "unchanged")


def test_a_rebuild_finds_the_cleaned_mirror_blocks_by_the_hash_that_names_them(tmp_path, monkeypatch):
    """site/mirrorblocks.py names each mirror text block by its sha256; the build cache finds the
    block's cleaned HTML by that name, without hashing the block's HTML a second time."""
    from corpus_build.render.mirrortext import OPAQUE_BEGIN, OPAQUE_END
    from corpus_build.site import buildcache

    project = _project(tmp_path / "p")
    site.build(project, strict=True)
    blocks = set()
    for page in (project / "docs" / "sources").glob("*/text.md"):
        text = page.read_text(encoding="utf-8")
        while OPAQUE_BEGIN in text:
            text = text.split(OPAQUE_BEGIN, 1)[1]
            block, text = text.split(OPAQUE_END, 1)
            blocks.add(block.strip("\n"))
    assert blocks
    hashed: list[str] = []
    real = buildcache.digest

    def digest(*parts):
        hashed.extend(p for p in parts if isinstance(p, str))
        return real(*parts)

    monkeypatch.setattr(buildcache, "digest", digest)
    (project / uptodate.STAMP).unlink(missing_ok=True)
    site.build(project, strict=True)
    assert hashed and not blocks & set(hashed)


def test_a_rebuild_makes_the_excerpts_of_unchanged_mirrors_no_more(tmp_path, monkeypatch):
    """Every source page's view is made at every render, to find its key: the excerpt's words are
    kept between renders by the text they come from (render/reuse.py), and an edit shows."""
    from corpus_build.core import mdtext

    project = _project(tmp_path / "p")
    site.build(project, strict=True)
    made: list[str] = []
    real = mdtext.plain_text

    def counting(text: str) -> str:
        made.append(text)
        return real(text)

    monkeypatch.setattr(mdtext, "plain_text", counting)
    site.build(project, strict=True)
    assert made == []

    raw = project / "corpus" / "01-gpu" / "raw" / "doc-html"
    (raw / "text.md").write_text("Zebraword opens the text.\n\n" + (raw / "text.md").read_text(encoding="utf-8"), encoding="utf-8")
    site.build(project, strict=True)
    assert len(made) == 1 and made[0].startswith("Zebraword")
    page = (project / "site" / "sources" / "doc-html" / "index.html").read_text(encoding="utf-8")
    assert "Zebraword opens the text." in page

    fresh = tmp_path / "fresh"
    shutil.copytree(project, fresh, ignore=shutil.ignore_patterns("site", ".corpus-build", "docs"))
    monkeypatch.setattr(mdtext, "plain_text", real)
    site.build(fresh, strict=True)
    assert (fresh / "site" / "sources" / "doc-html" / "index.html").read_bytes() == page.encode("utf-8")


def _count_record_reads(monkeypatch) -> list[str]:
    """The mirror folders whose provenance is read from now on, one entry a read."""
    from corpus_build.core import provenance

    read: list[str] = []
    real = provenance.read_provenance

    def counting(raw_dir, *args, **kwargs):
        read.append(str(raw_dir))
        return real(raw_dir, *args, **kwargs)

    monkeypatch.setattr(provenance, "read_provenance", counting)
    return read
