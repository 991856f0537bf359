"""The full-text index rewritten incrementally, tested from the outside (README, "Full-text search
over every mirror"): a rebuild after an edit rewrites only the index files the edit touched, the
files the manifest no longer names are removed, and after a series of edits (a documentation
section added, a PDF page changed, a comment added to a thread, a source removed, a source added)
the index means what a fresh build of the same project without `.corpus-build/` means, and the
site's search box answers the same, in the same order.

The index's files are read only through their documented wrapping,
`self.cbFulltext&&self.cbFulltext.<call>(<JSON>);`; what the JSON holds was learnt by decoding built
files: the manifest names `shards` (rows `[term, df, code]`, `code` the passages' number gaps and
weights, alternating, each a base-32 digit `0-9a-v` led by `A-Z` digits for larger values),
`chunks` (passage files: `pages` of `[url, title, first number, [[anchor, label, text], ...]]`) and
`fold`.
"""

from __future__ import annotations

import json
import random
import shutil
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
import yaml

from corpus_build import registry
from corpus_build.cli import main
from corpus_build.site import fulltext
from tests.fulltext_fixture import source_entry, write_fulltext_project, write_mirror
from tests.site_helpers import chromium, playwright_or_skip, search_box, serve

pytestmark = pytest.mark.slow

FOLDER = Path("site") / "search" / "fulltext"
SYLLABLES = ["ka", "ri", "to", "me", "su", "na", "lo", "vi", "de", "ga", "po", "ul", "tre", "min", "sar", "bel", "qu", "ox"]
HAN = ("的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法所民得经"
       "十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表"
       "间样与关各重新线内数正心反你明看原又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位"
       "入常文总次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强放决西被干做必战先回则任取据处队南给色")

# The edits. Each unusual word is in no generated document (their words are made of SYLLABLES).
HTML_ID, HTML_WORD, HTML_ANCHOR = "doc-00", "zyzzyva", "sec-zyzzyva-notes"
PDF_ID, PDF_PAGE, PDF_WORD = "doc-04", 2, "quagga"
THREAD_ID, THREAD_WORD = "doc-05", "okapi"
REMOVED_ID = "doc-10"
NEW_DOC = {"id": "doc-new", "kind": "html", "lang": "en", "title": "Narwhal guide", "passages": [
    {"heading": "Fresh start", "text": "A narwhal descriptor appears in this new source."},
    {"heading": "更多", "text": "新来源的第二节讨论独角鲸调度。"},
]}


def make_documents(count: int = 60, seed: int = 7) -> list[dict]:
    """`count` mirrored documents, a third each HTML, PDF and thread, half English, half Chinese,
    with a vocabulary large enough that the index has many shards and passage files."""
    rng = random.Random(seed)
    vocabulary = sorted({"".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))) for _ in range(3000)})
    documents = []
    for i in range(count):
        kind = ("html", "pdf", "thread")[i % 3]
        chinese = i % 2 == 1
        passages = []
        for j in range(rng.randint(4, 8)):
            if chinese:
                text = "，".join("".join(rng.choice(HAN) for _ in range(rng.randint(4, 12))) for _ in range(rng.randint(6, 14))) + "。"
            else:
                text = " ".join(rng.choice(vocabulary) for _ in range(rng.randint(40, 110))) + "."
            passage = {"text": text}
            if kind == "html":
                passage["heading"] = f"Part {j} {rng.choice(vocabulary)}"
            if kind == "thread":
                passage["author"] = f"user{j}"
            passages.append(passage)
        documents.append({"id": f"doc-{i:02d}", "kind": kind, "lang": "zh-Hans" if chinese else "en", "title": f"Doc {i}", "passages": passages})
    return documents


DOCS = make_documents()
THREAD_ANCHOR = f"event-{len(next(d for d in DOCS if d['id'] == THREAD_ID)['passages']) + 1}"  # the opening post is event-1


# --- reading the index ---------------------------------------------------------------------

def _data(path: Path):
    text = path.read_text(encoding="utf-8")
    return json.loads(text[text.index("(", text.index("cbFulltext.")) + 1 : text.rindex(")")])


def _numbers(code: str) -> list[int]:
    # The index's own decoder (the worker's, in Python): a digit above Z (!#$%&*) comes with numbers
    # of 2**10 and more, as the entries' hashed numbers give.
    return fulltext.decode(code)


@dataclass(repr=False)  # a failure's report stays short
class Snapshot:
    """One build's index: its files, the manifest, and what it means."""

    files: set[str]
    manifest: dict
    shard_terms: dict[str, list[str]]  # shard file -> its terms
    chunk_pages: dict[str, list[str]]  # passage file -> its pages' urls
    postings: dict[str, set[tuple[str, str, str]]]  # term -> {(page url, anchor, passage text)}
    weighted: dict[str, set[tuple[str, str, str, int]]]  # the same with each posting's weight


def snapshot(project: Path) -> Snapshot:
    folder = project / FOLDER
    manifest = _data(folder / "index.js")
    where, chunk_pages = {}, {}
    for name in manifest["chunks"]:
        pages = _data(folder / name)["pages"]
        chunk_pages[name] = [url for url, _title, _first, _rows in pages]
        for url, _title, first, rows in pages:
            for i, row in enumerate(rows):
                assert first + i not in where, (name, url, first + i)  # a passage number is one passage
                where[first + i] = (url, row[0], row[2])
    shard_terms, postings, weighted = {}, {}, {}
    for name in manifest["shards"]:
        rows = _data(folder / name)
        shard_terms[name] = [term for term, _df, _code in rows]
        for term, df, code in rows:
            numbers = _numbers(code)
            assert len(numbers) == 2 * df, (term, df, len(numbers))
            number, seen = 0, []
            for gap, weight in zip(numbers[::2], numbers[1::2], strict=True):
                number += gap
                seen.append((*where[number], weight))  # every posting names a passage of a passage file
            postings[term] = {s[:3] for s in seen}
            weighted[term] = set(seen)
    return Snapshot({p.name for p in folder.iterdir()}, manifest, shard_terms, chunk_pages, postings, weighted)


def named(snap: Snapshot) -> set[str]:
    return {"index.js", *snap.manifest["shards"], *snap.manifest["chunks"], snap.manifest["fold"]}


def url_of(source_id: str) -> str:
    return f"sources/{source_id}/text/"


# --- the edits ------------------------------------------------------------------------------

def raw_dir(root: Path, source_id: str) -> Path:
    return next((root / "corpus").glob(f"*/raw/{source_id}"))


def add_html_section(root: Path) -> None:
    text_md = raw_dir(root, HTML_ID) / "text.md"
    text_md.write_text(text_md.read_text(encoding="utf-8") + f"## Zyzzyva notes\n\nThe {HTML_WORD} keeps tiles resident.\n\n", encoding="utf-8")


def edit_pdf_page(root: Path) -> None:
    raw = raw_dir(root, PDF_ID)
    structure = json.loads((raw / "structure.json").read_text(encoding="utf-8"))
    block = next(b for b in structure["blocks"] if b["page"] == PDF_PAGE)
    block["text"] += f" Errata: the {PDF_WORD} schedule replaces it."
    (raw / "structure.json").write_text(json.dumps(structure, ensure_ascii=False), encoding="utf-8")
    (raw / "text.md").write_text("\n\n".join(b["text"] for b in structure["blocks"]), encoding="utf-8")


def add_thread_comment(root: Path) -> None:
    path = raw_dir(root, THREAD_ID) / "thread.json"
    thread = json.loads(path.read_text(encoding="utf-8"))
    thread["comments"].append({"user": {"login": "dave"}, "body": f"A late note: the {THREAD_WORD} barrier fixes it.",
                               "created_at": "2026-10-05T00:00:00Z", "html_url": "https://github.com/example/repo/issues/6#issuecomment-99"})
    path.write_text(json.dumps(thread, ensure_ascii=False), encoding="utf-8")


def remove_and_add_sources(root: Path) -> None:
    sources = root / "corpus" / "01-gpu" / "sources.yaml"
    entries = [e for e in yaml.safe_load(sources.read_text(encoding="utf-8")) if e["id"] != REMOVED_ID]
    entries.append(source_entry(NEW_DOC, 99))
    sources.write_text(yaml.safe_dump(entries, allow_unicode=True, sort_keys=False), encoding="utf-8")
    write_mirror(registry.load(root / "corpus"), NEW_DOC, 99)


def build(root: Path) -> Snapshot:
    assert main(["--project", str(root), "build"]) == 0
    return snapshot(root)


@dataclass(repr=False)
class History:
    root: Path
    fresh: Path
    first: Snapshot
    after_section: Snapshot
    after_all: Snapshot
    fresh_build: Snapshot


@pytest.fixture(scope="module")
def history(tmp_path_factory) -> History:
    base = tmp_path_factory.mktemp("ftincr")
    root = write_fulltext_project(base / "project", DOCS)
    first = build(root)
    add_html_section(root)
    after_section = build(root)
    edit_pdf_page(root)
    add_thread_comment(root)
    remove_and_add_sources(root)
    after_all = build(root)
    fresh = base / "fresh"
    shutil.copytree(root, fresh)
    shutil.rmtree(fresh / ".corpus-build")  # the cache, fulltext-layout.json with it: numbered afresh
    return History(root, fresh, first, after_section, after_all, build(fresh))


# --- the tests ------------------------------------------------------------------------------

def test_the_index_is_large_enough_to_show_what_an_edit_rewrites(history):
    first = history.first
    assert len(first.manifest["shards"]) >= 10 and len(first.manifest["chunks"]) >= 20, (len(first.manifest["shards"]), len(first.manifest["chunks"]))
    assert (history.root / ".corpus-build" / "cache" / "fulltext-layout.json").is_file()
    for snap in (history.first, history.after_section, history.after_all, history.fresh_build):
        assert snap.files == named(snap)  # every file the manifest names is there, and nothing else


def test_an_added_section_rewrites_only_the_files_it_touched(history):
    before, after = history.first, history.after_section
    added = after.files - before.files - {"index.js"}
    removed = before.files - after.files
    kept = before.files & after.files - {"index.js"}
    new_chunks = [n for n in added if n in after.manifest["chunks"]]
    new_shards = [n for n in added if n in after.manifest["shards"]]
    assert added <= set(new_chunks) | set(new_shards), added  # the fold table is kept: no new Chinese text
    # One passage file: the one holding the edited page. The pages after it keep their files,
    # though the page grew by a passage (files are not cut at running totals).
    assert len(new_chunks) == 1 and url_of(HTML_ID) in after.chunk_pages[new_chunks[0]], (new_chunks, [after.chunk_pages[n] for n in new_chunks])
    # The shards: those whose terms' passages changed, and a minority of all.
    changed_terms = {t for t in set(before.weighted) | set(after.weighted) if before.weighted.get(t) != after.weighted.get(t)}
    touched = {name for name, terms in after.shard_terms.items() if set(terms) & changed_terms}
    assert HTML_WORD in changed_terms and touched <= set(new_shards), (sorted(changed_terms), touched, new_shards)
    # Shards are cut by content (fulltext._cut_before): after the touched ones, the cuts fall where a fresh
    # build's would within a shard or two (here the shards of Chinese pairs, whose small entries rarely cut).
    assert len(new_shards) <= len(touched) + 2, (sorted(changed_terms)[:40], new_shards, touched)
    assert len(new_shards) * 3 <= len(after.manifest["shards"]), (len(new_shards), len(after.manifest["shards"]))
    assert len(kept) >= 0.8 * (len(before.files) - 1), (len(kept), len(before.files))
    # The replaced files are gone; the word is found at its section.
    assert len(removed) == len(added) and not removed & named(after), removed
    assert {(url, anchor) for url, anchor, _text in after.postings[HTML_WORD]} == {(url_of(HTML_ID), HTML_ANCHOR)}, after.postings[HTML_WORD]


def test_after_a_series_of_edits_the_index_means_what_a_fresh_build_means(history):
    # The mirrors' terms: the site's own entries (site/search.py) include the home page, which says what
    # changed since the last build; a fresh build has nothing to say there.
    incremental = {t: v for t, v in history.after_all.postings.items() if not t.startswith(fulltext.ENTRY)}
    fresh = {t: v for t, v in history.fresh_build.postings.items() if not t.startswith(fulltext.ENTRY)}
    # The edits are all in it (so the comparison below compares something).
    assert {(u, a) for u, a, _t in incremental[HTML_WORD]} == {(url_of(HTML_ID), HTML_ANCHOR)}
    assert {(u, a) for u, a, _t in incremental[PDF_WORD]} == {(url_of(PDF_ID), f"page-{PDF_PAGE}")}
    assert {(u, a) for u, a, _t in incremental[THREAD_WORD]} == {(url_of(THREAD_ID), THREAD_ANCHOR)}
    assert {(u, a) for u, a, _t in incremental["narwhal"]} == {(url_of("doc-new"), "sec-fresh-start")}
    assert not any(u == url_of(REMOVED_ID) for postings in incremental.values() for u, _a, _t in postings)
    assert len(incremental) > 5000
    assert history.after_all.manifest["passages"] == history.fresh_build.manifest["passages"]
    missing = sorted(set(fresh) - set(incremental))
    extra = sorted(set(incremental) - set(fresh))
    differ = sorted(t for t in set(fresh) & set(incremental) if fresh[t] != incremental[t])
    assert not missing and not extra and not differ, (missing[:20], extra[:20], differ[:20])


# --- in the browser -------------------------------------------------------------------------

QUERIES = [
    # (query, the passage's page, its anchor, the word marked) — the edits, found where they are
    (HTML_WORD, HTML_ID, HTML_ANCHOR, HTML_WORD),
    (f"{THREAD_WORD} barrier", THREAD_ID, THREAD_ANCHOR, THREAD_WORD),
    (f"{PDF_WORD} schedule", PDF_ID, f"page-{PDF_PAGE}", PDF_WORD),
    ("独角鲸", "doc-new", "sec-更多", "独角鲸"),
]


def _search(page, query):
    return search_box(page, query, settle_ms=300)


def _place(href: str) -> str:
    parts = urlsplit(href)
    return f"{unquote(parts.path)}#{unquote(parts.fragment)}"


def _answers(site: Path, queries: list[str]) -> dict[str, list[dict]]:
    sync_api = playwright_or_skip()
    out = {}
    with serve(site) as url, chromium(sync_api) as browser:
        page = browser.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        for query in queries:
            page.goto(url)
            out[query] = _search(page, query)
        assert not errors, errors
    return out


def _common_words(history, count: int) -> list[str]:
    """English words of several pages, in both builds: queries whose answers have an order."""
    postings = history.after_all.postings
    words = sorted((t for t in postings if t.isalpha() and t.isascii() and 4 <= len({u for u, _a, _x in postings[t]}) <= 8), key=lambda t: (-len(postings[t]), t))
    return words[:count]


@pytest.fixture(scope="module")
def answers(history):
    """The search box's results on the incrementally built site and on the fresh copy, per query:
    the edits' words, and common words whose results have an order to compare."""
    common = _common_words(history, 4)
    queries = [q for q, *_ in QUERIES] + common
    return common, _answers(history.root / "site", queries), _answers(history.fresh / "site", queries)


@pytest.mark.browser
def test_the_search_box_finds_the_edits_where_a_fresh_build_finds_them(answers):
    _common, incremental, fresh = answers
    for query, source, anchor, marked in QUERIES:
        places = [_place(link["href"]) for link in incremental[query]]
        hits = [link for link in incremental[query] if _place(link["href"]).endswith(f"/sources/{source}/text/#{anchor}")]
        assert hits, (query, places)
        assert f"<mark>{marked}</mark>" in hits[0]["html"], (query, hits[0]["html"])
        assert places == [_place(link["href"]) for link in fresh[query]], (query, places, [_place(link["href"]) for link in fresh[query]])


@pytest.mark.browser
def test_the_search_box_ranks_common_words_as_a_fresh_build(history, answers):
    common, incremental, fresh = answers
    differ = {}
    for query in common:
        mine, theirs = [_place(link["href"]) for link in incremental[query]], [_place(link["href"]) for link in fresh[query]]
        assert len(mine) >= 8, (query, mine)  # four pages or more, each with its passages
        if mine != theirs:
            weights = sorted((u, a, w, v) for (u, a, _t, w) in history.after_all.weighted[query] for (u2, a2, _t2, v) in history.fresh_build.weighted[query]
                             if (u, a) == (u2, a2) and w != v)
            differ[query] = {"incremental": mine, "fresh": theirs, "weights differing (page, anchor, incremental, fresh)": weights}
    means = (history.after_all.manifest["mean"], history.fresh_build.manifest["mean"])
    assert not differ, (f"manifest mean incremental/fresh: {means}", differ)
