"""The full-text index made incrementally (site/ftindex.py, site/ftstore.py): after each edit, the
files are byte for byte those a build from nothing writes (with the same passage numbers: the
layout file copied), and the work is the edit's: only the changed pages analysed, only the
terms of their passages encoded, no cache of the whole corpus read."""

from __future__ import annotations

import bisect
import dataclasses
import json
import marshal
import shutil
import signal
import threading
from pathlib import Path

import pytest

from corpus_build.site import ftindex, fulltext
from corpus_build.site.hanfold import default_fold
from corpus_build.site.search import Entry

WORDS = [f"w{i}" for i in range(2500)] + [f"词{chr(0x4e00 + i)}{chr(0x4e80 + i % 50)}" for i in range(300)]


def page_words(n: int, k: int) -> list[str]:
    return [WORDS[(n * 7 + k * 13 + j * 3) % len(WORDS)] for j in range(50)]


def write_page(path: Path, n: int, extra: str = "", sections: int = 3, drop: str = "") -> None:
    body = "".join(f'<h2 id="sec-{k}">Part {k}</h2><p>common {" ".join(w for w in page_words(n, k) if w != drop)}</p>' for k in range(sections))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'<article class="md-content__inner md-typeset"><div class="cb-extracted">{body}{extra}</div></article>', encoding="utf-8")


def entry(n: int, note: str = "", drop: str = "") -> Entry:
    title = " ".join(w for w in ("Source", str(n), WORDS[n * 11 % len(WORDS)]) if w != drop)
    text = note or " ".join(w for w in ("note", WORDS[n * 5 % len(WORDS)], WORDS[n * 17 % len(WORDS)]) if w != drop)
    return Entry(f"sources/s{n}/", "", title, text, f"id-{n}", 1.0, (("title", title), ("text", text), ("keys", f"id-{n}")))


def read_manifest(folder: Path) -> dict:
    return json.loads((folder / "index.js").read_text(encoding="utf-8").split("manifest(", 1)[1].rsplit(")", 1)[0])


def read_rows(path: Path) -> list[list]:
    return json.loads(path.read_text(encoding="utf-8").split("shard(", 1)[1].rsplit(")", 1)[0])


def files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


@pytest.fixture
def small_limits(monkeypatch):
    # Small shards and a small posting limit: many shards, and terms cut at MAX_POSTINGS (their
    # whole postings kept in the store), in an index a test builds in seconds.
    monkeypatch.setattr(fulltext, "SHARD_BYTES", 3_000)
    monkeypatch.setattr(fulltext, "MAX_POSTINGS", 60)


def test_each_edit_writes_what_a_build_from_nothing_writes_and_does_the_edits_work(tmp_path, small_limits):
    fold = default_fold(())
    site, cache = tmp_path / "site", tmp_path / "cache"
    pages = [fulltext.Page(f"/sources/s{n}/text/", f"S{n}", site / f"s{n}" / "index.html") for n in range(200)]
    for n, page in enumerate(pages):
        write_page(page.path, n)
    entries = [entry(n) for n in range(200)]
    first = ftindex.build(site, pages, fold, cache, entries)
    assert first.analysed == 400 and first.encoded == first.terms
    folder = site / fulltext.FOLDER
    assert len(read_manifest(folder)["shards"]) > 30
    assert sorted(p.name for p in cache.iterdir()) == ["fulltext-layout.json", "fulltext-store"]  # no file of the whole corpus's analyses
    assert len(list((cache / "fulltext-store" / "a").iterdir())) == 400  # but one per page, and per entry address (ftstore.py)
    added = fulltext.Page("/sources/s900/text/", "S900", site / "s900" / "index.html")

    def rewrite_all() -> None:
        for n, page in enumerate(pages):
            write_page(page.path, n, f"<p>w{n % 9}</p>")

    dropped: list[str] = []

    def drop_a_first_term(entries: list[Entry]) -> None:
        """A shard's first term gone: an entry's own word, which no page and no other entry has (an
        entry touches few shards): the cut before that shard moves, and the shard before is cut again."""
        manifest = read_manifest(folder)
        df = {row[0]: row[1] for name in manifest["shards"] for row in read_rows(folder / name)}
        keys = [first.encode("utf-16-be") for first in manifest["firsts"]]

        def shard_of(term: str) -> int:
            return max(0, bisect.bisect_right(keys, term.encode("utf-16-be")) - 1)

        for at, first in enumerate(manifest["firsts"][1:], 1):
            if not (first.startswith(fulltext.ENTRY + "w") and df[first] == 1):
                continue
            n = next(n for n, e in enumerate(entries) if first[1:] in e.title.split() + e.text.split())
            others = {fulltext.ENTRY + t for _field, value in entries[n].fields for t in fulltext.terms(value.lower())} - {first}
            if shard_of(first) == at and all(shard_of(t) != at - 1 for t in others):  # only the first term says to cut again before
                entries[n] = entry(n, drop=first[1:])
                dropped.append(first)
                return
        raise AssertionError("no entry's word stands first in a shard alone")

    edited = [*entries[:80], entry(80, "zebu note w7"), *entries[81:]]
    grown = [*pages, added]
    fewer = grown[:120] + grown[121:]
    edits = [
        # (what, the edit, the pages and entries after it, the most terms it may encode)
        ("a paragraph added to a page", lambda: write_page(pages[50].path, 50, "<p>zanzibar quokka w5</p>"), pages, entries, 200),
        ("a note edited", None, pages, edited, 30),
        ("a page added", lambda: write_page(added.path, 900), grown, edited, 200),
        ("a page removed", None, fewer, edited, 200),
        ("a page outgrows its numbers", lambda: write_page(pages[7].path, 7, sections=9), fewer, edited, 500),
        ("a shard's first term dropped", lambda: drop_a_first_term(edited), fewer, edited, 30),
        ("every page changed: made from nothing", rewrite_all, fewer, edited, None),
    ]
    for what, change, pages_now, entries_now, most in edits:
        if change is not None:
            change()
        stats = ftindex.build(site, pages_now, fold, cache, entries_now)
        fresh_cache = tmp_path / f"fresh-{what}" / "cache"
        fresh_cache.mkdir(parents=True)
        shutil.copy(cache / "fulltext-layout.json", fresh_cache / "fulltext-layout.json")
        fresh = ftindex.build(tmp_path / f"fresh-{what}" / "site", pages_now, fold, fresh_cache, entries_now)
        assert files(folder) == files(tmp_path / f"fresh-{what}" / "site" / fulltext.FOLDER), what
        assert (stats.terms, stats.passages, stats.files) == (fresh.terms, fresh.passages, fresh.files), what
        if dropped:
            assert f'"{dropped.pop()}"' not in "".join(p.read_text(encoding="utf-8") for p in folder.glob("t-*.js"))
        if most is not None:
            assert stats.analysed <= 1 and stats.encoded <= most and stats.encoded < stats.terms / 5, (what, stats)


def test_a_term_in_too_many_passages_keeps_its_best_postings():
    # ftindex.best counts weights instead of sorting: the postings a sort by weight, then number, keeps.
    import random

    rng = random.Random(3)
    for size, keep in ((50, 10), (3000, 2000), (500, 499), (40, 40)):
        pids = sorted(rng.sample(range(10 * size), size))
        flat = [n for pid in pids for n in (pid, rng.choice([1, 2, 3, 17, 31]))]
        pairs = sorted(sorted(zip(flat[::2], flat[1::2], strict=True), key=lambda p: (-p[1], p[0]))[:keep])
        assert ftindex.best(flat, keep) == [n for pair in pairs for n in pair], (size, keep)


def test_a_store_with_files_missing_or_broken_makes_everything_again(tmp_path, small_limits):
    # A shard's or a page's file gone, or the state unreadable (a disk cleaned by hand, a kill
    # while writing it): the rebuild makes everything and writes what a build from nothing writes.
    fold = default_fold(())
    site, cache = tmp_path / "site", tmp_path / "cache"
    store = cache / "fulltext-store"
    pages = [fulltext.Page(f"/sources/s{n}/text/", f"S{n}", site / f"s{n}" / "index.html") for n in range(60)]
    for n, page in enumerate(pages):
        write_page(page.path, n)
    ftindex.build(site, pages, fold, cache)
    breakages = [
        ("every shard's file gone", lambda: [p.unlink() for p in (store / "t").iterdir()]),
        ("the changed page's old analysis gone", lambda: [p.unlink() for p in (store / "a").iterdir()]),
        ("the state cut short", lambda: (store / "state").write_bytes((store / "state").read_bytes()[:100])),
        ("a state of another shape", lambda: (store / "state").write_bytes(
            marshal.dumps({**marshal.loads((store / "state").read_bytes()), "runs": {"p:/x/": (1, "a")}}))),
        # The cache folder comes from outside: a state that does not name a run its shards hold. The
        # run looks new, its passages are added where the shards already hold them (ftindex._spliced
        # looped forever on such a posting).
        ("a state without a run its shards hold", lambda: (store / "state").write_bytes(marshal.dumps(
            {**(state := marshal.loads((store / "state").read_bytes())),
             "runs": {k: v for k, v in state["runs"].items() if k != "p:/sources/s30/text/"}}))),
        # Shards whose rows are of another shape: postings cut mid-pair, a code that is no code, a
        # count that is no number (each was a ValueError or TypeError traceback).
        ("shard rows of another shape", lambda: [p.write_bytes(marshal.dumps(
            [[r[0], r[1], r[2], b"\x01\x02\x03"] if r[3] is not None else [r[0], r[1], r[2] + "\x00", None] for r in marshal.loads(p.read_bytes())]))
            for p in (store / "t").iterdir()]),
        ("shard rows with values of other types", lambda: [p.write_bytes(marshal.dumps(
            [[r[0], str(r[1]), 7, r[3]] for r in marshal.loads(p.read_bytes())])) for p in (store / "t").iterdir()]),
    ]

    def hung(signum, frame):
        raise TimeoutError("the rebuild did not end")

    signal.signal(signal.SIGALRM, hung)
    for n, (what, breakage) in enumerate(breakages):
        breakage()
        write_page(pages[n].path, n, f"<p>zanzibar{n} w{n}</p>")
        signal.alarm(60)
        try:
            stats = ftindex.build(site, pages, fold, cache)
        finally:
            signal.alarm(0)
        fresh = tmp_path / f"fresh-{n}"
        (fresh / "cache").mkdir(parents=True)
        shutil.copy(cache / "fulltext-layout.json", fresh / "cache" / "fulltext-layout.json")
        ftindex.build(fresh / "site", pages, fold, fresh / "cache")
        assert files(site / fulltext.FOLDER) == files(fresh / "site" / fulltext.FOLDER), what
        assert stats.encoded == stats.terms, what  # made from nothing


@pytest.mark.slow
def test_the_site_and_its_offline_copy_each_start_from_their_own_last_index(tmp_path, caplog):
    """`offline: true` indexes the site, then the offline copy (other addresses: page.html), at
    every build: each from its own last build, and the copy takes the site's analyses of the pages
    it shares with it (the same passages, other links), so a page is analysed once a build, by the
    site's index; the copy's index is the one it makes analysing every page itself."""
    import logging
    import re

    from corpus_build.cli import main
    from tests.fulltext_fixture import write_fulltext_project

    documents = [{"id": f"doc-{n}", "kind": "html", "lang": "en", "title": f"Doc {n}",
                  "passages": [{"heading": f"Part {k}", "text": " ".join(page_words(n, k))} for k in range(3)]} for n in range(6)]
    project = write_fulltext_project(tmp_path / "p", documents)
    corpus_yaml = project / "corpus" / "corpus.yaml"
    corpus_yaml.write_text(corpus_yaml.read_text(encoding="utf-8") + "offline: true\n", encoding="utf-8")
    caplog.set_level(logging.INFO, logger="mkdocs.plugins.corpus")

    def counts() -> list[tuple[int, int]]:  # (runs analysed, runs as before): the site's index, then the copy's
        runs = [r.getMessage() for r in caplog.records if r.getMessage().startswith("corpus: full text of")]
        caplog.clear()
        return [(int(m.group(1)), int(m.group(2))) for m in (re.search(r"\((\d+) page\(s\) analysed, (\d+) as before", line) for line in runs) if m]

    def analysed() -> list[int]:
        return [a for a, _b in counts()]

    assert main(["--project", str(project), "build"]) == 0
    first = counts()
    (site_made, site_kept), (copy_made, copy_kept) = first
    # Runs are pages and the entries of each address: the copy takes the pages' and most entries' (not the
    # folder index pages', which search.py weighs by address: 0.1 at `chapters/`, 1.0 at `chapters/index.html`).
    assert site_kept == 0 and copy_made + copy_kept == site_made and copy_kept > 6 + (site_made - 6) // 2, first
    text_md = next((project / "corpus").glob("*/raw/doc-2/text.md"))
    text_md.write_text(text_md.read_text(encoding="utf-8") + "\n\n## Added\n\nA zanzibar section.\n", encoding="utf-8")
    assert main(["--project", str(project), "build"]) == 0
    assert analysed() == [1, 0]
    copy_index = project / ".corpus-build" / "offline-site" / fulltext.FOLDER
    assert "zanzibar" in "".join(p.read_text(encoding="utf-8") for p in copy_index.glob("p-*.js"))



def test_a_copy_takes_the_analyses_of_the_same_passages_from_the_site_and_writes_what_it_would_alone(tmp_path, small_limits):
    """The offline copy's pages are the site's with other links and addresses (page.html): its index takes
    the site's analyses of the same passages (ftindex.build's `shared`), reads nothing else of the site's
    store, and writes the files it writes analysing every page itself. A page whose text differs is analysed."""
    fold = default_fold(())

    def pages(root: Path, copy: bool) -> list[fulltext.Page]:
        out = []
        for n in range(8):
            url = f"sources/s{n}/text.html" if copy else f"sources/s{n}/text/"
            link = f'<p>See <a href="{"../s1/text.html" if copy else "../../s1/text/"}">the other</a>.</p>'
            extra = link + ("<p>only in the copy</p>" if copy and n == 5 else "")
            path = root / (url if copy else url + "index.html")
            write_page(path, n, extra)
            out.append(fulltext.Page(url, f"Page {n}", path))
        return out

    cache = tmp_path / "cache"
    site = ftindex.build(tmp_path / "site", pages(tmp_path / "site", False), fold, cache, [entry(n) for n in range(3)])
    assert site.analysed == 8 + 3
    copy_pages = pages(tmp_path / "copy", True)
    # The copy's entries: the site's at page.html addresses, one with a note of its own.
    copy_entries = [dataclasses.replace(entry(n, note="a note the copy alone has" if n == 2 else ""), url=f"sources/s{n}.html") for n in range(3)]
    copy = ftindex.build(tmp_path / "copy", copy_pages, fold, cache / "offline", copy_entries, shared=cache)
    assert (copy.analysed, copy.reused) == (1 + 1, 7 + 2)  # s5's text and s2's entry differ
    alone = ftindex.build(tmp_path / "alone", copy_pages, fold, None, copy_entries)
    assert alone.analysed == 8 + 3
    assert files(tmp_path / "copy" / fulltext.FOLDER) == files(tmp_path / "alone" / fulltext.FOLDER)
    # Rebuilt, the copy starts from its own last index: nothing analysed, the same files.
    again = ftindex.build(tmp_path / "copy", copy_pages, fold, cache / "offline", copy_entries, shared=cache)
    assert again.analysed == 0
    assert files(tmp_path / "copy" / fulltext.FOLDER) == files(tmp_path / "alone" / fulltext.FOLDER)


def test_postings_spliced_by_range_are_the_postings_filtered_and_sorted():
    """A rebuild takes a changed run's passages out of a term's postings, and puts the new ones in,
    by slicing the array at the runs' number ranges (ftindex._spliced): the same list as filtering
    every posting and sorting, for random postings, ranges and additions (at the start, inside a
    removed range, between, after the end)."""
    import random
    from array import array

    rng = random.Random(38)
    for _ in range(2000):
        pids = sorted(rng.sample(range(300), rng.randrange(0, 40)))
        flat = array("i", [n for pid in pids for n in (pid, rng.randrange(1, 32))])
        removed, start = [], 0
        for _ in range(rng.randrange(0, 4)):
            if start >= 320:
                break
            low = rng.randrange(start, 320)
            high = rng.randrange(low, min(low + 60, 330) + 1)
            removed.append((low, high))
            start = high
        rng.shuffle(removed)
        gone = {n for low, high in removed for n in range(low, high)}
        free = [n for n in range(330) if n in gone or n not in pids]
        added = sorted((pid, rng.randrange(1, 32)) for pid in rng.sample(free, rng.randrange(0, min(len(free), 12))))
        expected = sorted([p for p in zip(flat[::2], flat[1::2], strict=True) if p[0] not in gone] + added)
        assert list(ftindex._spliced(flat, removed, added)) == [n for pair in expected for n in pair], (list(flat), removed, added)


def test_links_planted_in_the_store_are_never_written_through_nor_pruned_through(tmp_path):
    """The cache folder comes from outside (CI restores it from a cache, links and all). A link in
    the store in place of its shard folder made the build write there and prune there: it deleted
    every file of the folder it pointed at. A link under the name of a file's temporary copy made
    the build write through it. Either way the build makes its index and touches nothing outside."""
    import os

    fold = default_fold(())
    site, cache, clean = tmp_path / "site", tmp_path / "cache", tmp_path / "clean"
    pages = [fulltext.Page(f"/sources/s{n}/text/", f"S{n}", site / f"s{n}" / "index.html") for n in range(12)]
    for n, page in enumerate(pages):
        write_page(page.path, n)
    ftindex.build(clean, pages, fold, None)
    outside = tmp_path / "outside"
    (outside / "folder").mkdir(parents=True)
    (outside / "folder" / "precious.txt").write_text("mine", encoding="utf-8")
    (outside / "file.txt").write_text("mine too", encoding="utf-8")
    store = cache / "fulltext-store"
    store.mkdir(parents=True)
    (store / "t").symlink_to(outside / "folder", target_is_directory=True)
    (store / f".state.{os.getpid()}.{threading.get_ident()}.tmp").symlink_to(outside / "file.txt")
    (cache / f".fulltext-layout.json.{os.getpid()}.{threading.get_ident()}.tmp").symlink_to(outside / "file.txt")
    for _ in range(2):  # the first build, then one from what it kept
        ftindex.build(site, pages, fold, cache)
        assert sorted(os.listdir(outside / "folder")) == ["precious.txt"]
        assert (outside / "folder" / "precious.txt").read_text(encoding="utf-8") == "mine"
        assert (outside / "file.txt").read_text(encoding="utf-8") == "mine too"
        assert files(site / fulltext.FOLDER) == files(clean / fulltext.FOLDER)
