"""Full-text search over every mirror: a static, sharded passage index (issue 24).

Material's search (lunr, site/search.py) answers from one file the browser loads whole;
the mirrors' text (PDF pages, documentation sections, every comment of a thread) would
make it tens of megabytes. So mirror text has an index of its own, written after the
build from the built pages, in the manner of Pagefind: the browser loads a small
manifest, then only the few files a query needs.

What is indexed: every page below `sources/<id>/` (the extracted text, a paper's
pages, a thread, a repository's documents), from its content block on (the page's own
title, links and notes are the source page's business). A page is cut into passages at
its anchors (`#page-12`, `#sec-…`, `#event-3`), and a long passage into blocks of about
BLOCK characters at paragraph ends, so a snippet is always in the block that matched.

Words: text is folded (site/hanfold.py: NFKC, lower case, Traditional → Simplified,
Taiwanese terms → mainland ones), then Latin-script words (a plural's final s dropped)
and Chinese as overlapping character pairs (bigrams: no dictionary needed, and any
word of the corpus, glossary or not, is found). A Chinese query must match all of its
pairs.

Files under `search/fulltext/` (each a JavaScript call holding JSON: the worker fetches them
side by side and reads the JSON, and the offline copy, where fetch cannot read file://,
runs them with importScripts):

- `index.js`: the manifest: passage count, the first term of every term shard, the first
  passage number of every passage file, and every file's name;
- `t-<hash>.js`: term shards, terms in sorted order, about SHARD_BYTES each: per term its
  passage count and its postings (passage number deltas, BM25 weight 1..31, in a compact
  text code). A term in more than MAX_POSTINGS passages keeps only its best ones (and
  is then optional in a query);
- `p-<hash>.js`: passages' page, anchor, title and text: a page's passages a file, or
  several small pages' (CHUNK_CHARS);
- `fold-<hash>.js`: the folding tables, loaded only for a query with Chinese;
- `d-<hash>.js`: in a large index, directories of the passage files (the manifest lists them).

Files are named by their content: a rebuild that changes nothing gives the same names (a
browser's cached files stay good), and a browser never mixes an old shard with a new
manifest. An edit rewrites only the files it touches (the manifest, the edited pages'
passage files, the shards of the words whose passages changed): passage numbers are kept
between builds (Layout), and where a file ends depends on what is near the cut, not on
everything before it. ftindex.py makes the index from these parts, and keeps the last build
(ftstore.py) so that a rebuild analyses only the pages that changed and encodes only the terms
of their passages.
"""

from __future__ import annotations

import functools
import hashlib
import html
import itertools
import json
import math
import os
import re
import zlib
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from ..core.provenance import write_atomic
from . import engines
from .hanfold import HAN, Fold

FOLDER = "search/fulltext"
BLOCK = 600  # characters of a passage block: one snippet's reach
# A passage file holds one page's passages, or several small pages', up to this much text: a
# query loads the files of the passages it shows, a page's best few mostly in one file.
CHUNK_CHARS = 6_000
SHARD_BYTES = 16_000
SMALL_GROUP = 4  # small pages to a shared passage file, on average
DIR_CHUNKS = 512  # passage files a directory file names, on average (_directories)
MEAN_STEPS = 4  # a step is 19% (2 ** (1 / 4)): BM25's length term hardly moves
MAX_POSTINGS = 2_000
TITLE_WEIGHT = 3  # a word of a passage's heading counts as three of its text
K1, B = 1.2, 0.75
WEIGHT_STEPS = 31
VERSION = 5  # 3: passage numbers kept between builds (Layout); files cut by content. 4: the site's own entries. 5: marks dropped
# The site's own results (sources' titles, annotations and identifiers; hand-written pages' headings:
# search.py's entries) share the index with the mirrors' passages, in a space of their own: their
# terms start with ENTRY (a character no word holds), so their counts and shards are their own, and
# their numbers come below the manifest's `entries`, the mirrors' above it. A word's weight in an
# entry adds its fields' weights (lunr's field boosts, relative to the annotation's), each saturated
# as BM25 with no length term (Material's lunr has b = 0).
ENTRY = "!"
ENTRY_FIELDS = {"title": 5.0, "keys": 7.5, "text": 1.0, "alt": 0.75, "tags": 0.5, "meta": 0.25}
ENTRY_TEXT = 2_000  # characters of an entry's text kept for its snippet and phrase tiers

_ARTICLE = re.compile(r'<article class="md-content__inner[^"]*">')  # to the first </article> after it
# The mirror-text block of a text page (render/templates/text.md.j2, render/paper.py, render/thread.py).
_CONTENT = re.compile(r'<div[^>]*class="(?:cb-extracted|cb-paper|cb-thread)[^"]*"')
# The places a passage starts: a heading, a paper's page mark, a thread's event.
_ANCHOR = re.compile(r'<(h[1-6]|p|li)\b[^>]*\bid="(page-\d+|sec-[^"]*|event-\d+)"[^>]*>')
# Not text of the mirror: a paper's contents and page list, permalinks, the note under a thread's timeline.
_SKIP = re.compile(r'<(nav|script|style|template)\b.*?</\1>|<p class="cb-paper-pages">.*?</p>|<a class="headerlink"[^>]*>.*?</a>'
                   r'|(?<=</ol>)\s*<p><em>.*?</em></p>', re.S)
_BLOCK_END = re.compile(r"</(?:p|h[1-6]|li|pre|tr|div|dd|dt|blockquote|table|ul|ol)>|<br\s*/?>", re.I)
_TAG = re.compile(r"<[^>]+>")
_SPACE = re.compile(r"[ \t\r\f\v]+")
# A word: letters, digits and Chinese characters (of folded text: no marks left), inner underscores kept
# (enable_tma); then cut into Han and other runs (vllm昇腾). The worker's WORDS is the same.
_WORDS = re.compile(rf"(?:[^\W_]|[{HAN}])+(?:_+(?:[^\W_]|[{HAN}])+)*")
# The same for text with no Chinese character in it (most text): one character class, not two alternatives
# a character, about twice as fast. (Without the HAN ranges, the two find the same words.)
_LATIN_WORDS = re.compile(r"[^\W_]+(?:_+[^\W_]+)*")
_PIECES = re.compile(f"[{HAN}]+|[^{HAN}]+")
_HAN_RUN = re.compile(f"[{HAN}]+")
_HAN_ANY = re.compile(f"[{HAN}]")
_END = "0123456789abcdefghijklmnopqrstuv"  # a number's last 5-bit digit
_MORE = "ABCDEFGHIJKLMNOPQRSTUVWXYZ!#$%&*"  # its earlier digits


@dataclass(frozen=True)
class Page:
    """A built page to index: its address on the site, its title and its file in site/."""

    url: str
    title: str
    path: Path


@dataclass(frozen=True)
class Stats:
    pages: int
    passages: int
    terms: int
    files: int
    files_new: int  # files the last build did not have: what a browser downloads again, a deploy uploads
    bytes: int
    seconds: float
    reused: int = 0  # runs (pages, entries' addresses) whose analysis the last build gave
    analysed: int = 0  # runs analysed by this build
    encoded: int = 0  # terms whose postings this build encoded
    terms_reused: bool = False  # the table of the field's terms as the last build made it (ftindex._terms_table)


def passages(markup: str) -> list[tuple[str, str, str]]:
    """(anchor, title, text) of a built page's passages, in order; text keeps its paragraph breaks."""
    article = _ARTICLE.search(markup)
    end = markup.find("</article>", article.end()) if article else -1
    body = markup[article.end():end] if article and end >= 0 else markup
    start = _CONTENT.search(body)
    if start is None:  # not a mirror's text (a repository's list of its docs pages)
        return []
    body = body[start.start():]
    body = _SKIP.sub(" ", body)
    cuts = list(_ANCHOR.finditer(body))
    pieces = [("", "", body[: cuts[0].start() if cuts else len(body)])]
    for i, match in enumerate(cuts):
        end = cuts[i + 1].start() if i + 1 < len(cuts) else len(body)
        segment = body[match.start():end]
        tag = match.group(1)
        head = re.search(rf"</{tag}>", segment) if tag.startswith("h") or tag == "p" else None  # a heading, a page mark
        if head is None and tag == "li":
            head = re.search(r"</div>", segment)  # a thread event: its head line (who, when)
        title = _plain(segment[: head.start()]) if head else ""
        text = segment[head.end():] if head else segment
        pieces.append((match.group(2), title, text))
    out = []
    for anchor, title, text in pieces:
        plain = _plain(_BLOCK_END.sub("\n", text), keep_lines=True)
        if plain or title:
            out.append((anchor, title[:200], plain))
    return out


def _plain(markup: str, keep_lines: bool = False) -> str:
    text = html.unescape(_TAG.sub(" " if not keep_lines else "", markup))
    # Runs of spaces joined in the whole text at once (_SPACE matches no line break: the same as line by line).
    lines = (line.strip() for line in _SPACE.sub(" ", text).split("\n"))
    return "\n".join(line for line in lines if line) if keep_lines else " ".join(x for x in lines if x).strip()


def blocks(text: str, size: int = BLOCK) -> list[str]:
    """A passage's text in blocks of about `size` characters, cut at line ends (or inside a very long line)."""
    out: list[str] = []
    current = ""
    for line in text.split("\n"):
        while len(line) > 2 * size:
            cut = line.rfind(" ", size // 2, size * 3 // 2)
            cut = cut if cut > 0 else size
            if current:
                out.append(current)
                current = ""
            out.append(line[:cut])
            line = line[cut:].lstrip()
        if current and len(current) + len(line) > size:
            out.append(current)
            current = ""
        current = f"{current}\n{line}" if current else line
    if current:
        out.append(current)
    return out or [""]


def terms(folded: str) -> list[str]:
    """The index terms of folded text: Latin words, digits and Chinese character pairs."""
    # Most text: words alone, and only a final s to look at (isascii answers without a scan).
    if folded.isascii() or _HAN_ANY.search(folded) is None:
        return [stem(word) if word[-1] == "s" else word for word in _LATIN_WORDS.findall(folded)]
    out: list[str] = []
    for whole in _WORDS.findall(folded):
        if whole.isascii():  # a Latin word (no Han character): one piece
            out.append(stem(whole) if whole[-1] == "s" else whole)
            continue
        for word in _PIECES.findall(whole):
            if _HAN_RUN.fullmatch(word):
                if len(word) == 1:
                    out.append(word)
                else:
                    out += map(str.__add__, word[:-1], word[1:])
            else:
                out.append(stem(word))
    return out


def stem(word: str) -> str:
    """Plural to singular, as the worker does: kernels → kernel, caches → cache (not: class, status)."""
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")) and not "0" <= word[-2] <= "9":
        return word[:-1]
    return word


def encode(numbers: Iterable[int]) -> str:
    """Non-negative integers as text: 5-bit digits, the last of each number from _END, the others from _MORE."""
    codes = _codes()  # every weight and nearly every gap: looked up, not spelled out
    limit = len(codes)
    return "".join([codes[n] if n < limit else _code(n) for n in numbers])


def _code(n: int) -> str:
    digits = [_END[n & 31]]
    n >>= 5
    while n:
        digits.append(_MORE[n & 31])
        n >>= 5
    return "".join(reversed(digits))


@functools.cache
def _codes() -> list[str]:
    return [_code(n) for n in range(1 << 15)]


def decode(text: str) -> list[int]:
    """encode's inverse (the worker has the same in JavaScript); for the tests."""
    out, n = [], 0
    for char in text:
        at = _MORE.find(char)
        if at >= 0:
            n = (n << 5) | at
        else:
            out.append((n << 5) | _END.index(char))
            n = 0
    return out


def _js(call: str, value: object) -> str:
    # JSON is a JavaScript expression: strings from mirrored pages are escaped by json.dumps.
    return f"self.cbFulltext&&self.cbFulltext.{call}({json.dumps(value, ensure_ascii=False, separators=(',', ':'))});\n"


class Writer:
    """Writes files named by their content into the index folder, and removes the ones no longer named."""

    def __init__(self, folder: Path, stamps: dict | None = None):
        self.folder = folder
        # The last build's files as it left them: name -> [inode, mtime_ns, bytes] (stamps()). A published
        # file that still has its stamp was not touched since: linked without reading it back (keep).
        self.known_stamps: dict = stamps if isinstance(stamps, dict) else {}
        self.names: set[str] = set()
        self.files: dict[str, tuple[str, int]] = {}  # name -> (sha1, bytes): what the next build keeps by name (keep)
        self.bytes = 0
        self._published: Path | bool | None = False  # the folder's published twin (engines.published_twin), once known

    def put(self, prefix: str, text: str) -> str:
        data = text.encode("utf-8")
        digest = hashlib.sha1(data).hexdigest()
        name = f"{prefix}-{digest[:12]}.js"
        self._named(name, digest, len(data))
        path = self.folder / name
        # Unchanged after an edit, most of the index's files: linked from the published site, not written again.
        if not path.is_file() and not engines.link_published(path, data):
            write_atomic(path, text)
        return name

    def keep(self, name: str, digest: str, size: int, make: Callable[[], str]) -> str:
        """A file of the last build, known by name, sha1 and size: there already, or linked from the
        published site when it holds those bytes; else made again (`make`: its text)."""
        path = self.folder / name
        if self._published is False:
            self._published = engines.published_twin(self.folder)
        published = self._published if isinstance(self._published, Path) else None
        # Linked first: in a staging folder (every `corpus-build build`) the file is never there yet,
        # and asking costs a failed stat per file; a link onto a file already there fails, then it is asked.
        if (published is not None and engines.link_published_as(path, size, digest, published / name,
                                                                 stamp=self.known_stamps.get(name))) or path.is_file():
            self._named(name, digest, size)
            return name
        return self.put(name.split("-", 1)[0], make())

    def _named(self, name: str, digest: str, size: int) -> None:
        if name not in self.names:
            self.names.add(name)
            self.files[name] = (digest, size)
            self.bytes += size

    def finish(self) -> None:
        for old in self.folder.glob("*.js"):
            if old.name not in self.names and old.name != "index.js":
                old.unlink()

    def stamps(self) -> dict[str, list[int]]:
        """Every file's [inode, mtime_ns, bytes] as this build leaves it, for the next build's keep: the
        site is swapped in by renaming its folder, which keeps both, and any rewrite changes them."""
        found = {}
        for name in sorted(self.names):
            try:
                info = os.lstat(self.folder / name)
            except OSError:
                continue
            found[name] = [info.st_ino, info.st_mtime_ns, info.st_size]
        return found


class PageDigests:
    """The sha256 of built pages, each hashed only when it is not the file the last build hashed.

    Both the full-text step's key (plugin.py) and the index's store (ftindex.py) name a mirror page
    by its content: at 1,000 sources that was reading and hashing ~50 MB of pages twice per build.
    A page MkDocs wrote with the bytes the published site holds is that published file, hard-linked
    (engines.py), with its inode, mtime and size; so those, recorded with the hash in `memo` after
    each build (the staging folder keeps them when swapped in), name the same bytes. A page written
    anew has a new inode and is hashed. Paths are kept relative to `root` (the site folder).
    """

    def __init__(self, root: Path, memo: Path | None = None):
        self.root, self.memo = root, memo
        self.known: dict[str, list] = {}
        self.seen: dict[str, list] = {}
        if memo is not None:
            try:
                data = json.loads(memo.read_text(encoding="utf-8"))
                self.known = data if isinstance(data, dict) else {}
            except (OSError, ValueError):
                self.known = {}

    def of(self, path: Path) -> str | None:
        """The page's sha256 (hex), or None when it cannot be read."""
        try:
            relative = path.relative_to(self.root).as_posix()
        except ValueError:
            relative = None
        if relative is not None and relative in self.seen:
            return self.seen[relative][3]
        try:
            data = path.read_bytes() if relative is None or not self._as_known(path, relative) else None
            info = os.lstat(path)
        except OSError:
            return None
        digest = self.known[relative][3] if data is None and relative is not None else hashlib.sha256(data or b"").hexdigest()
        if relative is not None:
            self.seen[relative] = [info.st_ino, info.st_mtime_ns, info.st_size, digest]
        return digest

    def _as_known(self, path: Path, relative: str) -> bool:
        known = self.known.get(relative)
        if not (isinstance(known, list) and len(known) == 4 and isinstance(known[3], str)):
            return False
        try:
            info = os.lstat(path)
        except OSError:
            return False
        return [info.st_ino, info.st_mtime_ns, info.st_size] == known[:3]

    def save(self) -> None:
        if self.memo is None or self.seen == self.known:
            return
        try:
            self.memo.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(self.memo, json.dumps(self.seen, separators=(",", ":")))
        except OSError:  # the digests only save time
            pass


def analyse(markup: str, fold: Fold) -> tuple[list[list], str]:
    """A page's blocks as [anchor, title, text, {term: count}, length], and the characters they use."""
    return analyse_passages(passages(markup), fold)


def passages_key(found: list[tuple[str, str, str]]) -> bytes:
    """What names a page's analysis whatever its links: `passages` of it (analyse_passages reads nothing else).

    The offline copy's pages are the site's with other link targets (page.html URLs): their bytes
    differ, their passages do not, and the copy takes the site's analyses by this (ftindex.py)."""
    return hashlib.sha1(json.dumps(found, ensure_ascii=False).encode("utf-8", "surrogatepass")).digest()


def analyse_passages(found: list[tuple[str, str, str]], fold: Fold) -> tuple[list[list], str]:
    """analyse, from the page's `passages`."""
    out: list[list] = []
    used: set[str] = set()
    for anchor, title, text in found:
        title_terms = terms(fold.text(title)) if title else []
        for part in blocks(text):
            folded = fold.text(part)
            used.update(part)
            used.update(folded)
            words = terms(folded)
            counts = Counter(words)
            for word in title_terms:
                counts[word] += TITLE_WEIGHT
            out.append([anchor, title, part, dict(counts), len(words) + len(title_terms)])
    return out, "".join(sorted(used))


def analyse_entry(entry, fold: Fold) -> tuple[list, str]:
    """An entry (search.Entry) as one passage row: [anchor, title, text, {ENTRY + term: weight}, -1, keys, boost]."""
    weights: dict[str, float] = defaultdict(float)
    used: set[str] = set()
    for name, value in entry.fields:
        relative = ENTRY_FIELDS.get(name, 0.0)
        if not relative:
            continue
        folded = fold.text(value)
        used.update(value)
        used.update(folded)
        for word, tf in Counter(terms(folded)).items():
            weights[word] += relative * tf * (K1 + 1) / (tf + K1)
    scaled = {ENTRY + word: max(1, round(entry.boost * w / (K1 + 1) * WEIGHT_STEPS)) for word, w in weights.items()}
    return [entry.anchor, entry.title[:200], entry.text[:ENTRY_TEXT], scaled, -1, entry.keys, entry.boost], "".join(sorted(used))


class Layout:
    """Where each page's passages are numbered, kept between builds: a page keeps its range of
    numbers while it fits (with room to grow), so an edit renumbers only that page's passages and
    the files that hold other pages' passages stay as they were. Also the last build's file
    names (to count what is new). A JSON file; without one, numbers follow the pages' order."""

    def __init__(self, path: Path | None):
        self.path = path
        self.slots: dict[str, list[int]] = {}  # url -> [first passage number, room]
        self.end = 0
        self.files: set[str] = set()  # the last build's file names
        data: dict = {}
        if path is not None:
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                data = {}
        if isinstance(data, dict) and data.get("version") == VERSION:
            try:
                self.slots = {str(url): [int(a), int(b)] for url, (a, b) in data["slots"].items()}
                self.end = int(data["end"])
                self.files = {str(name) for name in data.get("files", [])}
            except (KeyError, TypeError, ValueError, AttributeError):
                self.slots, self.end = {}, 0
        ranges = sorted(self.slots.values())
        if any(a < 0 or b < 0 for a, b in ranges) or any(a + b > c for (a, b), (c, _d) in itertools.pairwise(ranges)) \
                or (ranges and sum(ranges[-1]) > self.end):
            self.slots, self.end = {}, 0  # ranges that overlap: not a layout this code wrote

    def place(self, counts: dict[str, int]) -> dict[str, int]:
        """The first passage number of each page (url -> passage count), in the pages' order."""
        self.slots = {url: slot for url, slot in self.slots.items() if url in counts}
        used = sum(counts.values())
        if self.end > 2 * used + 64:  # mostly holes (pages removed or moved): number afresh
            self.slots, self.end = {}, 0
        for url, count in counts.items():
            slot = self.slots.get(url)
            if slot is None or count > slot[1]:
                room = count + max(2, count // 4)
                self.slots[url] = [self.end, room]
                self.end += room
        return {url: self.slots[url][0] for url in counts}

    def save(self, files: set[str]) -> None:
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(self.path, json.dumps({"version": VERSION, "end": self.end, "files": sorted(files),
                                                "slots": self.slots}))


def _directories(writer: Writer, starts: list[int], chunks: list[str]) -> dict:
    """Where the passage files are: in the manifest itself (`starts`, `chunks`) while they are few, else
    in directory files the manifest lists (`dirStarts`, `dirs`), each naming about DIR_CHUNKS passage
    files, so that the manifest a reader loads on opening search stays small at any size of corpus
    (a query then loads the directories of the passages it shows). A directory ends where a hash of
    a file's first passage number says, as shards end: an edit rewrites the directory of the files it
    renamed, not those after it."""
    if len(chunks) <= DIR_CHUNKS:
        return {"starts": starts, "chunks": chunks}
    groups: list[list[int]] = [[]]
    for i, start in enumerate(starts):
        if len(groups[-1]) >= DIR_CHUNKS // 4 and (len(groups[-1]) >= 2 * DIR_CHUNKS or zlib.crc32(str(start).encode()) % DIR_CHUNKS == 0):
            groups.append([])
        groups[-1].append(i)
    dirs = [writer.put("d", _js("directory", {"start": starts[g[0]], "starts": [starts[i] for i in g], "chunks": [chunks[i] for i in g]}))
            for g in groups]
    return {"dirStarts": [starts[g[0]] for g in groups], "dirs": dirs}


def _entry_slots(counts: dict[str, int]) -> tuple[dict[str, int], int]:
    """The first passage number of each entry page (url -> its entries' count), and the size of the
    entries' space, where the mirrors' numbers start.

    A page's numbers come from a hash of its address in a space eight times their number (the next
    free range from there): they depend on the pages there are, never on the builds before, so an
    incremental build writes the files a clean build writes (tests/test_incremental.py), and adding
    or removing a page moves no other but the rare one whose range it takes. The space doubles, and
    every number moves, only when the entries double."""
    total = sum(counts.values())
    space = 1 << max(10, (8 * total).bit_length())
    taken = bytearray(space)
    firsts: dict[str, int] = {}
    for url in sorted(counts, key=lambda u: (zlib.crc32(u.encode("utf-8")), u)):
        n = counts[url]
        start = zlib.crc32(url.encode("utf-8")) % space
        while True:
            if start + n > space:
                start = 0
            if not any(taken[start:start + n]):
                break
            start += 1
        taken[start:start + n] = b"\x01" * n
        firsts[url] = start
    return firsts, space


def reference_mean(mean: float) -> float:
    """The mean passage length the weights are computed against: the corpus's, on a grid of
    MEAN_STEPS a doubling. An edit moves the mean a little, and moving every weight with it would
    rewrite every shard; on the grid, the weights change only when the mean crosses a step. A
    build from nothing computes the same value (no state is kept), so it weighs alike."""
    return round(2 ** (round(math.log2(max(mean, 1.0)) * MEAN_STEPS) / MEAN_STEPS), 2)


def _cut_before(word: str, entry: int, size: int) -> bool:
    if size + entry > 2 * SHARD_BYTES:
        return True
    if size < SHARD_BYTES // 4:
        return False
    return zlib.crc32(word.encode("utf-8")) < min(1.0, entry / (SHARD_BYTES * 3 // 4)) * 2**32


def _chunk_groups(runs: list[tuple[int, Page, list[list]]]) -> list[list[tuple[int, Page, list[list]]]]:
    """The passage files: each a list of (first passage number, page, passages) (chunk_cuts on whole runs)."""
    cuts = chunk_cuts([(first, page.url, [len(row[2]) + len(row[1] or "") for row in rows]) for first, page, rows in runs])
    return [[(runs[i][0] + start, runs[i][1], runs[i][2][start:end]) for i, start, end in group] for group in cuts]


def chunk_cuts(runs: list[tuple[int, str, list[int]]]) -> list[list[tuple[int, int, int]]]:
    """The passage files of runs (first passage number, url, each passage's characters), in number
    order: each file a list of (run's index, first passage, end) of the runs it holds.

    A page of CHUNK_CHARS // 2 characters or more has files of its own, cut every CHUNK_CHARS.
    Smaller pages next to each other share a file, up to CHUNK_CHARS; where a shared file
    starts depends on the page there (a hash of its address picks one page in SMALL_GROUP),
    so an edit changes the files of the pages it touches, not those after them."""
    groups: list[list[tuple[int, int, int]]] = []
    small: list[tuple[int, int, int]] = []
    chars = 0
    for index, (_first, url, sizes) in enumerate(runs):
        if sum(sizes) >= CHUNK_CHARS // 2:
            if small:
                groups.append(small)
                small, chars = [], 0
            start, held = 0, 0
            for i, n in enumerate(sizes):
                if i > start and held + n > CHUNK_CHARS:
                    groups.append([(index, start, i)])
                    start, held = i, 0
                held += n
            groups.append([(index, start, len(sizes))])
            continue
        if small and (chars + sum(sizes) > CHUNK_CHARS or zlib.crc32(url.encode("utf-8")) % SMALL_GROUP == 0):
            groups.append(small)
            small, chars = [], 0
        small.append((index, 0, len(sizes)))
        chars += sum(sizes)
    if small:
        groups.append(small)
    return [group for group in groups if any(end > start for _i, start, end in group)]


def _weight(tf: int, length: int, mean: float) -> int:
    """BM25's term-frequency part, 1..WEIGHT_STEPS (the idf is the worker's, from the term's passage count)."""
    saturated = tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / mean))
    return max(1, min(WEIGHT_STEPS, math.ceil(saturated / (K1 + 1) * WEIGHT_STEPS)))


def _js_order(term: str) -> bytes:
    # The worker compares terms as JavaScript does, by UTF-16 code units: sort the same way.
    return term.encode("utf-16-be")


def site_pages(files: Iterable, source_ids: set[str]) -> list[Page]:
    """The pages to index among MkDocs's files: every page below sources/<id>/ (not the source page
    itself, nor the pages of the list of all sources, sources/page/N)."""
    out = []
    for file in files:
        parts = file.src_uri.split("/")
        if len(parts) >= 3 and parts[0] == "sources" and parts[1] in source_ids and file.src_uri.endswith(".md"):
            page = getattr(file, "page", None)
            title = getattr(page, "title", None) or parts[1]
            out.append(Page(file.url, _plain(str(title)), Path(file.abs_dest_path)))
    return out


def write_search_config(site_dir: Path, search_config: dict) -> None:
    """search.CONFIG_FILE beside search_index.json: what the pages' script reads instead of it.
    Written on every build, also when the full-text index is linked from the last one (its
    content follows Material's configuration, which that link does not cover)."""
    from .search import CONFIG_FILE

    target = site_dir / "search" / CONFIG_FILE
    text = json.dumps(search_config, ensure_ascii=False, separators=(",", ":"))
    if not target.is_file() or target.read_text(encoding="utf-8") != text:
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(target, text)
