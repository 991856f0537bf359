"""The full-text index (fulltext.py says what it holds) made so that a rebuild costs what changed.

A run is what gets a range of passage numbers: a mirror page's passages, or the site's entries
of one address. The last build is kept (ftstore.py): each run's analysis in a file of its own,
each term shard's rows with the whole postings of its terms, and a state naming the runs (their
content hash, first number, passage sizes and characters: not their passages), the shards and
the passage files. A rebuild then

- reads every page (its bytes name its analysis) and analyses only the new ones; the offline copy's
  index (another store: its pages have other addresses and links) first takes the site's analysis of
  the same passages or entries, which the site's state names (`texts`, by fulltext.passages_key);
- numbers the runs (fulltext.Layout, fulltext._entry_slots) and compares them with the state: a
  run changed when its content or its first number did;
- finds the terms of the changed runs (their old analysis and their new one), re-encodes only
  those terms, and cuts again only the shards that hold them, going on past them until a cut
  falls where the last build's fell: from there on the old shards are the new ones, since a
  cut depends on the terms around it only (fulltext._cut_before);
- keeps each passage file whose runs did not change, by name, without reading it.

A build with no usable state (none, another salt, the reference mean moved a step, the
entries' space resized, or more than FULL_SHARE of the passages changed) makes everything, in
one pass over the runs in number order: each run's passages are read back from its file when
its passage files are written, and the postings are typed arrays, so that no build holds every
passage's text. Either way the files are the same, byte for byte (tests/test_fulltext_store.py).
"""

from __future__ import annotations

import bisect
import hashlib
import json
import time
import unicodedata
from array import array
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import partial
from itertools import accumulate
from pathlib import Path
from typing import TypeGuard

from ..core.provenance import write_atomic
from . import crossterms, fulltext
from .ftstore import Store
from .hanfold import Fold

STATE_VERSION = 1
FULL_SHARE = 0.25  # past this share of the passages changed, making everything is as cheap


@dataclass(frozen=True)
class Run:
    """A page's passages (or one address's entries) as the state keeps them: no passage text."""

    url: str
    title: str
    key: str  # its analysis's name in the store (a hash of its input)
    count: int  # passages
    length: int  # its passages' lengths added (mirror pages; entries: 0)
    sizes: tuple[int, ...]  # characters of each passage (title and text): where the passage files cut
    used: str  # characters of its text, before and after folding (the folding table keeps those)

    @classmethod
    def of(cls, url: str, title: str, key: str, rows: list[list], used: str) -> Run:
        return cls(url, title, key, len(rows), sum(row[4] for row in rows if row[4] > 0),
                   tuple(len(row[2]) + len(row[1] or "") for row in rows), used)


Placed = tuple[int, Run]  # (first passage number, run)


def _salt(fold: Fold) -> str:
    table = "".join(t + s for t, s in sorted(fold.chars.items()))
    constants = (STATE_VERSION, fulltext.VERSION, fulltext.BLOCK, fulltext.TITLE_WEIGHT, fulltext.MAX_POSTINGS, fulltext.SHARD_BYTES,
                 fulltext.K1, fulltext.B, fulltext.WEIGHT_STEPS, fulltext.MEAN_STEPS)
    return hashlib.sha1(f"{constants}/{fold.pattern}/{table}".encode()).hexdigest()


class _Stale(Exception):
    """A file the state names is missing or unreadable: make everything."""


def build(site_dir: Path, pages: list[fulltext.Page], fold: Fold, cache_dir: Path | None = None, entries: Iterable = (),
          search_terms: Iterable[Iterable[str]] = (), digests: fulltext.PageDigests | None = None,
          shared: Path | None = None) -> fulltext.Stats:
    """Index `pages` (built files under site_dir) and `entries` (search.Entry) into site_dir/search/fulltext/,
    with the table of the field's terms in both languages (crossterms.py; `search_terms`: the corpus's own).
    `cache_dir`: where the last build's store (fulltext-store/) and layout are kept; None: nowhere (a build from nothing).
    `shared`: another index's cache_dir (the site's, for its offline copy) whose analyses of the same passages are
    taken, not made again; it is only read."""
    started = time.process_time()
    folder = site_dir / fulltext.FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    salt = _salt(fold)
    store = Store(cache_dir / "fulltext-store" if cache_dir else None, salt)
    layout = fulltext.Layout(cache_dir / "fulltext-layout.json" if cache_dir else None)
    runs = _Runs(store, fold, digests or fulltext.PageDigests(site_dir),
                 Store(shared / "fulltext-store", salt) if shared is not None and shared != cache_dir else None)
    for page in pages:
        runs.page(page)
    grouped: dict[str, list] = {}
    for entry in entries:
        grouped.setdefault(entry.url, []).append(entry)
    for url, group in grouped.items():
        runs.entries(url, group)
    entry_firsts, space = fulltext._entry_slots({url: run.count for url, run in runs.own.items()})
    page_firsts = layout.place({url: run.count for url, run in runs.found.items()})
    placed = {**{("e", url): (entry_firsts[url], run) for url, run in runs.own.items()},
              **{("p", url): (space + page_firsts[url], run) for url, run in runs.found.items()}}
    total = sum(run.count for run in runs.found.values())
    mean = fulltext.reference_mean((sum(run.length for run in runs.found.values()) / total) if total else 1.0)
    stamps = (store.state or {}).get("stamps")
    terms_key, terms, terms_reused = _terms_table(store, search_terms, fold)
    writer = fulltext.Writer(folder, stamps)
    index = _Index(store, writer, mean, placed, runs.rows)
    try:
        index.update() if index.can_update(space) else index.make()
    except _Stale:
        writer = index.writer = fulltext.Writer(folder, stamps)
        index.make()
    used_chars: set[str] = set()
    for _first, run in placed.values():
        used_chars.update(run.used)
    fold_file = writer.put("fold", fulltext._js("fold", fold.tables(used_chars)))
    manifest = {
        "version": fulltext.VERSION, "passages": total, "entries": space, "entryCount": sum(run.count for run in runs.own.values()),
        "mean": mean, "maxPostings": fulltext.MAX_POSTINGS,
        "weightSteps": fulltext.WEIGHT_STEPS, "k1": fulltext.K1, "firsts": [s[0] for s in index.shards], "shards": [s[1] for s in index.shards],
        "fold": fold_file, "terms": terms,
        **fulltext._directories(writer, [c[0] for c in index.chunk_list], [c[1] for c in index.chunk_list]),
    }
    text = fulltext._js("manifest", manifest)
    write_atomic(folder / "index.js", text)
    writer.finish()
    layout.save(writer.names)
    store.save({"version": STATE_VERSION, "mean": mean, "space": space, "empty": sorted(runs.empty),
                "runs": {f"{kind}:{url}": (first, *_fields(run)) for (kind, url), (first, run) in placed.items()},
                "texts": {run.key: runs.texts[run.key] for (kind, _url), (_first, run) in placed.items() if kind == "p" and run.key in runs.texts},
                "shards": index.shards, "chunks": index.chunks, "stamps": writer.stamps(), "terms": (terms_key, terms)},
               {run.key for _first, run in placed.values()}, {s[2] for s in index.shards})
    return fulltext.Stats(runs.read, total, index.terms, len(writer.names) + 1, len(writer.names - layout.files) + 1,
                          writer.bytes + len(text.encode("utf-8")), time.process_time() - started, runs.reused,
                          analysed=runs.analysed, encoded=index.encoded, terms_reused=terms_reused)


def _terms_table(store: Store, search_terms: Iterable[Iterable[str]], fold: Fold) -> tuple[str, list[list[str]], bool]:
    """(its key, crossterms.table, whether the last build's was reused): the table as the last build made it
    when its inputs are the same. Made afresh it costs a tenth of a second (OpenCC over every Chinese
    spelling), three percent of a one-note rebuild at 1,000 sources, for a table that rarely changes."""
    from importlib import metadata

    from ..core.cachekeys import code_version

    try:
        opencc = metadata.version("opencc")
    except metadata.PackageNotFoundError:
        opencc = ""
    extra = [[str(form) for form in group] for group in search_terms]
    # (Python's Unicode tables too: folding starts with NFKC.)
    key = hashlib.sha1(json.dumps([code_version(), opencc, unicodedata.unidata_version, extra, sorted(fold.chars.items()), sorted(fold.phrases.items())],
                                  ensure_ascii=False).encode("utf-8", "surrogatepass")).hexdigest()
    last = (store.state or {}).get("terms")
    # (The cache folder comes from outside: a table that is not lists of strings is made again.)
    if (isinstance(last, tuple) and len(last) == 2 and last[0] == key and isinstance(last[1], list)
            and all(isinstance(group, list) and all(isinstance(form, str) for form in group) for group in last[1])):
        return key, last[1], True
    return key, crossterms.table(extra, fold), False


def _fields(run: Run) -> tuple:
    return (run.url, run.title, run.key, run.count, run.length, run.sizes, run.used)


class _Runs:
    """The build's runs, each analysed only when the store has no analysis of its content."""

    def __init__(self, store: Store, fold: Fold, digests: fulltext.PageDigests, shared: Store | None = None):
        self.store, self.fold, self.digests, self.shared = store, fold, digests, shared
        state = store.state or {}
        # Each page run's passages_key (hex), by its key: what another index (the offline copy's) names the
        # analysis by, since the copy's pages have other bytes (their links) and the same passages.
        known_texts = state.get("texts")
        self.known_texts: dict = known_texts if isinstance(known_texts, dict) else {}
        self.texts: dict[str, str] = {}
        self._shared_keys: dict[str, str] | None = None  # the shared store's keys by passages_key, once read
        self.known: dict[str, Run] = {}  # the last build's runs, by content
        for value in state.get("runs", {}).values():
            run = Run(*value[1:])
            self.known[run.key] = run
        self.was_empty: set[str] = set(state.get("empty", ()))  # pages with no mirror text, by content
        self.empty: set[str] = set()  # this build's
        self.sources: dict[str, Callable[[], tuple[list[list], str]]] = {}  # key -> its analysis made again, should its file be gone
        self.found: dict[str, Run] = {}  # mirror pages, by url, in the pages' order
        self.own: dict[str, Run] = {}  # entries, by url
        self.read = self.reused = self.analysed = 0

    def page(self, page: fulltext.Page) -> None:
        digest = self.digests.of(page.path)  # (read only when it is not the file the last build hashed)
        if digest is None:
            return
        self.read += 1
        if page.url in self.found:
            return
        key = self.store.key(b"page\0" + digest.encode())
        if key in self.was_empty:
            self.empty.add(key)
            return
        self.sources[key] = lambda: fulltext.analyse(page.path.read_bytes().decode("utf-8", "replace"), self.fold)
        run = self._known(key, page.url, page.title)
        if run is None:
            try:
                data = page.path.read_bytes()
            except OSError:
                return
            found = fulltext.passages(data.decode("utf-8", "replace"))
            text = self.texts[key] = fulltext.passages_key(found).hex()
            analysis = self._shared(text)
            rows, used = analysis if analysis is not None else fulltext.analyse_passages(found, self.fold)
            if not rows:
                self.empty.add(key)
                return
            run = self._made(key, page.url, page.title, rows, used, analysed=analysis is None)
        elif isinstance(self.known_texts.get(key), str):
            self.texts[key] = self.known_texts[key]
        self.found[page.url] = run

    def _shared(self, text: str) -> tuple[list[list], str] | None:
        """The shared store's analysis of these passages (by their passages_key), when it holds one."""
        if self.shared is None or self.shared.state is None:
            return None
        if self._shared_keys is None:
            texts = self.shared.state.get("texts")
            self._shared_keys = {v: k for k, v in texts.items() if isinstance(k, str) and isinstance(v, str)} if isinstance(texts, dict) else {}
        key = self._shared_keys.get(text)
        found = self.shared.analysis(key) if key is not None else None
        return (found[0], found[1]) if _analysis_shaped(found, 5) else None

    def entries(self, url: str, group: list) -> None:
        # Everything fulltext.analyse_entry reads, not the address: the offline copy's entries are the
        # site's at other addresses, and take the site's analyses by this key (its store has the same salt).
        data = json.dumps([[e.anchor, e.title, e.text, e.keys, e.boost, e.fields] for e in group], ensure_ascii=False)
        key = self.store.key(b"entries\0" + data.encode("utf-8"))
        self.sources[key] = lambda: self._analyse_entries(group)
        run = self._known(key, url, group[0].title)
        if run is None:
            found = self.shared.analysis(key) if self.shared is not None and self.shared.state is not None else None
            if _analysis_shaped(found, 7):
                run = self._made(key, url, group[0].title, found[0], found[1], analysed=False)
            else:
                run = self._made(key, url, group[0].title, *self._analyse_entries(group))
        self.own[url] = run

    def _analyse_entries(self, group: list) -> tuple[list[list], str]:
        rows: list[list] = []
        used: set[str] = set()
        for entry in group:
            row, chars = fulltext.analyse_entry(entry, self.fold)
            rows.append(row)
            used.update(chars)
        return rows, "".join(sorted(used))

    def rows(self, run: Run) -> list[list] | None:
        """A run of this build's passages: from its file, else made again (and kept); None: not a run of this build."""
        found = self.store.analysis(run.key)
        if isinstance(found, list) and len(found) == 2:
            return found[0]
        source = self.sources.get(run.key)
        if source is None:
            return None
        rows, used = source()
        self.store.put_analysis(run.key, [rows, used])
        return rows

    def _known(self, key: str, url: str, title: str) -> Run | None:
        run = self.known.get(key)
        if run is None:
            return None
        self.reused += 1
        return run if (run.url, run.title) == (url, title) else Run(url, title, *_fields(run)[2:])

    def _made(self, key: str, url: str, title: str, rows: list[list], used: str, analysed: bool = True) -> Run:
        if analysed:
            self.analysed += 1
        else:
            self.reused += 1  # (another index's analysis)
        self.store.put_analysis(key, [rows, used])
        run = Run.of(url, title, key, rows, used)
        self.known[key] = run
        return run


def _analysis_shaped(found: object, width: int) -> TypeGuard[list]:
    """[rows, characters used], each row a list of `width` (5: a page's passage, 7: an entry): the cache folder
    comes from outside, an analysis of another shape is made again."""
    return (isinstance(found, list) and len(found) == 2 and isinstance(found[0], list) and isinstance(found[1], str)
            and all(isinstance(row, list) and len(row) == width for row in found[0]))


class _Index:
    """The shards and passage files of the placed runs: made from nothing (make) or from the last build's (update)."""

    def __init__(self, store: Store, writer: fulltext.Writer, mean: float, placed: dict[tuple[str, str], Placed],
                 rows_of: Callable[[Run], list[list] | None]):
        self.store, self.writer, self.mean, self.rows_of = store, writer, mean, rows_of
        self.placed = placed
        self.order = sorted(placed.values(), key=lambda p: p[0])
        self.old = store.state or {}
        self.shards: list[tuple[str, str, str, str, int, int]] = []  # (first term, file, store file, sha1, bytes, terms)
        self.chunks: dict[str, tuple[str, str, int]] = {}  # what a passage file holds -> (file, sha1, bytes)
        self.chunk_list: list[tuple[int, str]] = []  # (first passage number, file), in order
        self.terms = self.encoded = 0
        self._weights: dict[tuple[int, int], int] = {}

    # --- deciding -------------------------------------------------------------------------

    def _changes(self) -> tuple[list[Placed], list[Placed]]:
        """The last build's runs that are gone or changed, and this build's that are new or changed."""
        old = {tuple(name.split(":", 1)): (value[0], Run(*value[1:])) for name, value in self.old.get("runs", {}).items()}
        gone = [p for name, p in old.items() if _moved(p, self.placed.get(name))]
        new = [p for name, p in self.placed.items() if _moved(p, old.get(name))]
        return gone, new

    def can_update(self, space: int) -> bool:
        if self.old.get("version") != STATE_VERSION or self.old.get("mean") != self.mean or self.old.get("space") != space:
            return False
        gone, new = self._changes()
        passages = sum(run.count for _first, run in self.order)
        return sum(run.count for _f, run in gone + new) <= FULL_SHARE * max(passages, 1)

    # --- from nothing ---------------------------------------------------------------------

    def make(self) -> None:
        """Every shard and passage file, in one pass over the runs in number order."""
        self.shards, self.chunks, self.chunk_list, self.terms, self.encoded = [], {}, [], 0, 0
        # The hot loop of a build from nothing (millions of postings): _weighted written out, its
        # weights looked up by length then term frequency, a term's array made by the defaultdict.
        postings: defaultdict[str, array] = defaultdict(partial(array, "i"))
        by_length: dict[int, dict[int, int]] = {}
        mean = self.mean
        for first, _run, rows in self._passage_files(known={}):
            for pid, row in enumerate(rows, first):
                counts, length = row[3], row[4]
                if length < 0:  # an entry's: the weights themselves (fulltext.analyse_entry)
                    for word, weight in counts.items():
                        found = postings[word]
                        found.append(pid)
                        found.append(weight)
                    continue
                weights = by_length.get(length)
                if weights is None:
                    weights = by_length[length] = {}
                for word, tf in counts.items():
                    weight = weights.get(tf)
                    if weight is None:
                        weight = weights[tf] = fulltext._weight(tf, length, mean)
                    found = postings[word]
                    found.append(pid)
                    found.append(weight)
        cutter = _Cutter(self)
        for word in sorted(postings, key=fulltext._js_order):
            cutter.feed(self._row(word, postings.pop(word)))
        cutter.flush()

    def _weighted(self, row: list) -> Iterator[tuple[str, int]]:
        counts, length = row[3], row[4]
        if length < 0:  # an entry's: the weights themselves (fulltext.analyse_entry)
            yield from counts.items()
            return
        weights = self._weights
        for word, tf in counts.items():
            weight = weights.get((tf, length))
            if weight is None:
                weight = weights[(tf, length)] = fulltext._weight(tf, length, self.mean)
            yield word, weight

    def _row(self, word: str, flat: array | list[int]) -> list:
        """A shard's row for a term: [term, passage count, code, whole postings when cut at MAX_POSTINGS]."""
        self.encoded += 1
        df = len(flat) // 2
        whole = None
        if df > fulltext.MAX_POSTINGS:
            whole = array("i", flat).tobytes()
            flat = best(flat, fulltext.MAX_POSTINGS)
        pids = flat[::2]
        gaps = [b - a for a, b in zip([0, *pids[:-1]], pids, strict=True)]
        out = [0] * len(flat)
        out[::2] = gaps
        out[1::2] = flat[1::2]
        return [word, df, fulltext.encode(out), whole]

    # --- from the last build --------------------------------------------------------------

    def update(self) -> None:
        gone, new = self._changes()
        removed = [(first, first + run.count) for first, run in gone]
        touched: set[str] = set()
        for _first, run in gone:
            for row in self._rows(run):
                touched.update(row[3])
        added: dict[str, list[tuple[int, int]]] = {}
        for first, run in new:
            for offset, row in enumerate(self._rows(run)):
                for word, weight in self._weighted(row):
                    added.setdefault(word, []).append((first + offset, weight))
                    touched.add(word)
        self._update_shards(touched, removed, added)
        self._passage_files_kept()

    def _rows(self, run: Run) -> list[list]:
        found = self.rows_of(run)
        if found is None:  # a run of the last build whose analysis is gone: its terms are not known
            raise _Stale(run.key)
        return found

    def _update_shards(self, touched: set[str], removed: list[tuple[int, int]], added: dict[str, list[tuple[int, int]]]) -> None:
        old = [tuple(s) for s in self.old.get("shards", [])]
        keys = [fulltext._js_order(s[0]) for s in old]
        affected: dict[int, set[str]] = {}
        for word in touched:
            at = max(0, bisect.bisect_right(keys, fulltext._js_order(word)) - 1)
            affected.setdefault(at, set()).add(word)
            if at > 0 and old[at][0] == word:  # a shard's first term decides the cut before it: the shard before is cut again
                affected.setdefault(at - 1, set())
        if not old:
            affected = {0: touched} if touched else {}
        cutter = _Cutter(self)
        copying = True
        for i, (first_term, name, stored, digest, size, count) in enumerate(old):
            if i in affected:
                copying = False
                for row in self._changed_rows(stored, affected[i], removed, added):
                    cutter.feed(row)
                continue
            if not copying:
                rows = self._shard_rows(stored)
                head = rows[0]
                if not cutter.rows or fulltext._cut_before(head[0], _entry_size(head), cutter.size):
                    cutter.flush()
                    copying = True
                else:
                    for row in rows:
                        cutter.feed(row)
                    continue
            self.writer.keep(name, digest, size, partial(self._shard_text, stored))
            self.shards.append((first_term, name, stored, digest, size, count))
            self.terms += count
        if not old and 0 in affected:
            for row in self._changed_rows(None, affected[0], removed, added):
                cutter.feed(row)
        cutter.flush()

    def _shard_text(self, stored: str) -> str:
        return fulltext._js("shard", [row[:3] for row in self._shard_rows(stored)])

    def _shard_rows(self, stored: str) -> list[list]:
        rows = self.store.shard(stored)
        if not isinstance(rows, list) or not rows or not all(map(_row_shaped, rows)):
            raise _Stale(stored)
        return rows

    def _changed_rows(self, stored: str | None, words: set[str], removed: list[tuple[int, int]],
                      added: dict[str, list[tuple[int, int]]]) -> list[list]:
        """A shard's rows with its touched terms encoded again (a term no passage holds now dropped, a new one added)."""
        rows = {row[0]: row for row in self._shard_rows(stored)} if stored is not None else {}
        for word in words:
            row = rows.pop(word, None)
            flat = array("i")
            try:
                if row is not None and row[3] is not None:
                    flat.frombytes(row[3])
                elif row is not None:
                    coded = fulltext.decode(row[2])
                    coded[::2] = accumulate(coded[::2])
                    flat.extend(coded)
            except (ValueError, OverflowError) as exc:  # (the cache folder comes from outside)
                raise _Stale(f"{stored}: {exc}") from None
            if len(flat) % 2:
                raise _Stale(f"{stored}: {word}")
            flat = _spliced(flat, removed, sorted(added.get(word, ())))
            if flat:
                rows[word] = self._row(word, flat)
        return [rows[word] for word in sorted(rows, key=fulltext._js_order)]

    # --- passage files --------------------------------------------------------------------

    def _passage_files_kept(self) -> None:
        known = {sig: tuple(value) for sig, value in self.old.get("chunks", {}).items()}
        for _ in self._passage_files(known):
            pass

    def _passage_files(self, known: dict[str, tuple]) -> Iterator[tuple[int, Run, list[list]]]:
        """Write (or keep, when `known` names it) every passage file, in number order; yields each
        run whose passages were read for it, once, with its first number."""
        cuts = fulltext.chunk_cuts([(first, run.url, list(run.sizes)) for first, run in self.order])
        current: tuple[int, list[list]] | None = None
        for group in cuts:
            parts = [(self.order[i][0] + start, self.order[i][1], i, start, end) for i, start, end in group]
            sig = hashlib.sha1(json.dumps([[f, run.url, run.title, run.key, s, e] for f, run, _i, s, e in parts],
                                          ensure_ascii=False).encode("utf-8")).hexdigest()

            def text(parts: list = parts) -> str:
                nonlocal current
                pieces = []
                for f, run, i, s, e in parts:
                    if current is None or current[0] != i:
                        current = (i, self._rows(run))
                    rows = current[1][s:e]
                    pieces.append([run.url, run.title, f, [row[:3] + row[5:7] if row[4] < 0 else row[:3] for row in rows]])
                return fulltext._js("chunk", {"start": parts[0][0], "pages": pieces})

            if sig in known:
                name, digest, size = known[sig]
                self.writer.keep(name, digest, size, text)
            else:
                for _f, run, i, _s, _e in parts:
                    if current is None or current[0] != i:
                        current = (i, self._rows(run))
                        yield self.order[i][0], run, current[1]
                name = self.writer.put("p", text())
                digest, size = self.writer.files[name]
            self.chunks[sig] = (name, digest, size)
            self.chunk_list.append((parts[0][0], name))


def _row_shaped(row: object) -> bool:
    """A stored shard row as _Index._row makes it: [term, passage count, code, whole postings or None]."""
    return (isinstance(row, list) and len(row) == 4 and isinstance(row[0], str) and type(row[1]) is int
            and isinstance(row[2], str) and (row[3] is None or isinstance(row[3], bytes)))


def _spliced(flat: array, removed: list[tuple[int, int]], added: list[tuple[int, int]]) -> array:
    """A term's postings (passage numbers and weights, alternating, in number order) without those
    numbered in the removed ranges, with the added pairs (in order) put in their places. A changed
    run's passages are a range of numbers, so this is a few slices of the array, however common
    the term: never a pass over its postings in Python."""
    pids = flat[::2]
    keep: list[tuple[int, int]] = []  # pids[start:end] slices that stay
    start = 0
    for low, high in sorted(removed):
        at = bisect.bisect_left(pids, low, start)
        end = bisect.bisect_left(pids, high, at)
        if end > at:
            keep.append((start, at))
            start = end
    if not keep and not added:
        return flat
    keep.append((start, len(pids)))
    out = array("i")
    i = 0  # the next added pair
    for begin, end in keep:
        while i < len(added) and begin < end:
            at = bisect.bisect_left(pids, added[i][0], begin, end)
            out.extend(flat[2 * begin:2 * at])
            begin = at
            if at == end:  # it goes after this slice (into a removed range, or later)
                break
            if added[i][0] == pids[at]:  # a passage kept and added: the state does not name a run its shards hold
                raise _Stale(f"passage {pids[at]}")
            while i < len(added) and added[i][0] < pids[at]:
                out.extend(added[i])
                i += 1
        out.extend(flat[2 * begin:2 * end])
    for pair in added[i:]:
        out.extend(pair)
    return out


def best(flat: array | list[int], keep: int) -> list[int]:
    """The `keep` best postings of a term (passage numbers and weights, alternating, in number order):
    the highest weights, the lowest numbers among equal weights; in number order. Weights are few
    (1..WEIGHT_STEPS): count them, rather than sort the postings."""
    weights = flat[1::2]
    counts = Counter(weights)
    threshold, room = 0, keep  # every posting above the threshold, and the first `room` at it
    for weight in sorted(counts, reverse=True):
        if counts[weight] >= room:
            threshold = weight
            break
        room -= counts[weight]
    out: list[int] = []
    for pid, weight in zip(flat[::2], weights, strict=True):
        if weight > threshold:
            out += (pid, weight)
        elif weight == threshold and room:
            out += (pid, weight)
            room -= 1
    return out


class _Cutter:
    """Rows into shards, cut where fulltext._cut_before says (the same cuts however the rows come)."""

    def __init__(self, index: _Index):
        self.index = index
        self.rows: list[list] = []
        self.size = 0

    def feed(self, row: list) -> None:
        entry = _entry_size(row)
        if self.rows and fulltext._cut_before(row[0], entry, self.size):
            self.flush()
        self.rows.append(row)
        self.size += entry

    def flush(self) -> None:
        if not self.rows:
            return
        index = self.index
        name = index.writer.put("t", fulltext._js("shard", [row[:3] for row in self.rows]))
        digest, size = index.writer.files[name]
        index.shards.append((self.rows[0][0], name, index.store.put_shard(self.rows), digest, size, len(self.rows)))
        index.terms += len(self.rows)
        self.rows, self.size = [], 0


def _entry_size(row: list) -> int:
    return len(row[2]) + len(row[0]) * 3 + 8


def _moved(mine: Placed, theirs: Placed | None) -> bool:
    return theirs is None or mine[0] != theirs[0] or mine[1].key != theirs[1].key


def index_site(site_dir: Path, files: Iterable, source_ids: set[str], cache_dir: Path | None, glossary: tuple[str, ...],
               entries: tuple = (), search_terms: Iterable[Iterable[str]] = (), flavour: str = "fulltext",
               digests: fulltext.PageDigests | None = None) -> fulltext.Stats:
    """Index the built site's mirror pages and the site's own entries (search.py; with neither, an
    empty manifest: the worker asks for it). `flavour`: whose last build to start from, the site's
    ("fulltext") or another's (the offline copy's, built after the site at every build, whose pages
    have other addresses: with one store the two would each make everything, every time)."""
    from .hanfold import cached_fold

    pages = fulltext.site_pages(files, source_ids)
    fold = cached_fold(cache_dir, glossary) if pages or entries else Fold({}, {})
    if cache_dir is not None:  # the whole corpus's analyses in one file, as builds before the store (ftstore.py) kept them
        (cache_dir / "fulltext-pages.marshal").unlink(missing_ok=True)
    kept = (cache_dir if flavour == "fulltext" else cache_dir / flavour) if cache_dir and (pages or entries) else None
    # Another flavour's pages are the site's with other links: the site's analyses of their passages are taken.
    shared = cache_dir if kept is not None and flavour != "fulltext" else None
    return build(site_dir, pages, fold, kept, entries, search_terms, digests, shared)

