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

Files under `search/fulltext/` (JavaScript files, loaded with importScripts, so the
offline copy reads them from file:// as well):

- `index.js`: the manifest: passage count, mean length, the first term of every
  term shard and every file's name;
- `t-<hash>.js`: term shards, terms in sorted order, about SHARD_BYTES each: per term its
  passage count and its postings (passage number deltas, BM25 weight 1..31, in a compact
  text code). A term in more than MAX_POSTINGS passages keeps only its best ones (and
  is then optional in a query);
- `p-<hash>.js`: the passages' page, anchor, title and text, a page's passages a file (CHUNK_CHARS);
- `fold-<hash>.js`: the folding tables, loaded only for a query with Chinese.

Files are named by their content: a rebuild that changes nothing gives the same names (a
browser's cached files stay good), and a browser never mixes an old shard with a new
manifest. Each page's analysis (its passages and their words) is kept between builds
(PageCache), so a rebuild reads into words only the pages that changed.
"""

from __future__ import annotations

import hashlib
import html
import json
import marshal
import math
import os
import re
import time
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..core.provenance import write_atomic
from .hanfold import HAN, Fold

FOLDER = "search/fulltext"
BLOCK = 600  # characters of a passage block: one snippet's reach
# A passage file holds one page's passages, or several small pages', up to this much text: a
# query loads the files of the passages it shows, a page's best few mostly in one file.
CHUNK_CHARS = 6_000
SHARD_BYTES = 16_000
MAX_POSTINGS = 2_000
TITLE_WEIGHT = 3  # a word of a passage's heading counts as three of its text
K1, B = 1.2, 0.75
WEIGHT_STEPS = 31
VERSION = 2  # 2: passage files by page (`starts`), not by fixed count

_ARTICLE = re.compile(r'<article class="md-content__inner[^"]*">(.*?)</article>', re.S)
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
# A word: letters and digits, inner underscores kept (enable_tma); then cut into Han and other runs (vllm昇腾).
_WORDS = re.compile(r"[^\W_]+(?:_+[^\W_]+)*")
_PIECES = re.compile(f"[{HAN}]+|[^{HAN}]+")
_HAN_RUN = re.compile(f"[{HAN}]+")
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
    files_written: int
    bytes: int
    seconds: float
    reused: int = 0  # pages whose analysis the last build's cache gave


def passages(markup: str) -> list[tuple[str, str, str]]:
    """(anchor, title, text) of a built page's passages, in order; text keeps its paragraph breaks."""
    article = _ARTICLE.search(markup)
    body = article.group(1) if article else markup
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
    lines = (_SPACE.sub(" ", line).strip() for line in text.split("\n"))
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
    out: list[str] = []
    for word in (piece for whole in _WORDS.findall(folded) for piece in _PIECES.findall(whole)):
        if _HAN_RUN.fullmatch(word):
            if len(word) == 1:
                out.append(word)
            else:
                out.extend(word[i : i + 2] for i in range(len(word) - 1))
        else:
            out.append(stem(word))
    return out


def stem(word: str) -> str:
    """Plural to singular, as the worker does: kernels → kernel, caches → cache (not: class, status)."""
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")) and not word[-2].isdigit():
        return word[:-1]
    return word


def encode(numbers: Iterable[int]) -> str:
    """Non-negative integers as text: 5-bit digits, the last of each number from _END, the others from _MORE."""
    out = []
    for n in numbers:
        digits = [_END[n & 31]]
        n >>= 5
        while n:
            digits.append(_MORE[n & 31])
            n >>= 5
        out.append("".join(reversed(digits)))
    return "".join(out)


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

    def __init__(self, folder: Path):
        self.folder = folder
        self.names: set[str] = set()
        self.written = 0
        self.bytes = 0

    def put(self, prefix: str, text: str) -> str:
        data = text.encode("utf-8")
        name = f"{prefix}-{hashlib.sha1(data).hexdigest()[:12]}.js"
        self.names.add(name)
        self.bytes += len(data)
        path = self.folder / name
        if not path.is_file():
            write_atomic(path, text)
            self.written += 1
        return name

    def finish(self) -> None:
        for old in self.folder.glob("*.js"):
            if old.name not in self.names and old.name != "index.js":
                old.unlink()


def analyse(markup: str, fold: Fold) -> tuple[list[list], str]:
    """A page's blocks as [anchor, title, text, {term: count}, length], and the characters they use."""
    out: list[list] = []
    used: set[str] = set()
    for anchor, title, text in passages(markup):
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


class PageCache:
    """Each page's analysis from the last build, by the page's bytes and the folding table: an edit
    re-analyses the pages it changed. One marshal file (plain data only: loading runs no code)."""

    def __init__(self, path: Path | None, fold: Fold):
        self.path = path
        table = "".join(t + s for t, s in sorted(fold.chars.items()))
        self.salt = hashlib.sha1(f"{VERSION}/{BLOCK}/{TITLE_WEIGHT}/{fold.pattern}/{table}".encode()).hexdigest()
        self.old: dict[str, tuple] = {}
        self.new: dict[str, tuple] = {}
        self.reused = 0
        if path is not None:
            try:
                data = marshal.loads(path.read_bytes())
                if isinstance(data, dict) and data.get("salt") == self.salt:
                    self.old = data["pages"]
            except (OSError, ValueError, EOFError, TypeError, KeyError):
                pass

    def get(self, data: bytes, fold: Fold) -> tuple[list[list], str]:
        key = hashlib.sha1(data).hexdigest()
        found = self.old.get(key)
        if found is not None:
            self.reused += 1
        else:
            found = analyse(data.decode("utf-8", "replace"), fold)
        self.new[key] = found
        return found

    def save(self) -> None:
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_name(self.path.name + ".tmp")
            tmp.write_bytes(marshal.dumps({"salt": self.salt, "pages": self.new}))
            os.replace(tmp, self.path)


def build(site_dir: Path, pages: list[Page], fold: Fold, cache_file: Path | None = None) -> Stats:
    """Index `pages` (built files under site_dir) into site_dir/search/fulltext/."""
    started = time.process_time()
    folder = site_dir / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    writer = Writer(folder)
    cache = PageCache(cache_file, fold)
    records: list[list] = []  # [page number, anchor, title, text] per passage
    page_rows: list[list[str]] = []
    postings: dict[str, list[tuple[int, int]]] = defaultdict(list)
    lengths: list[int] = []
    used_chars: set[str] = set()
    for page in pages:
        try:
            data = page.path.read_bytes()
        except OSError:
            continue
        page_rows.append([page.url, page.title])
        analysed, used = cache.get(data, fold)
        used_chars.update(used)
        for anchor, title, part, counts, length in analysed:
            pid = len(records)
            records.append([len(page_rows) - 1, anchor, title, part])
            lengths.append(length)
            for word, tf in counts.items():
                postings[word].append((pid, tf))
    cache.save()
    total = len(records)
    mean = (sum(lengths) / total) if total else 1.0
    shards, firsts = [], []
    shard: list[list] = []
    size = 0
    for word in sorted(postings, key=_js_order):
        plist = postings[word]
        df = len(plist)
        scored = [(pid, _weight(tf, lengths[pid], mean)) for pid, tf in plist]
        if df > MAX_POSTINGS:
            scored = sorted(sorted(scored, key=lambda p: -p[1])[:MAX_POSTINGS])
        flat: list[int] = []
        last = 0
        for pid, weight in scored:
            flat += (pid - last, weight)
            last = pid
        code = encode(flat)
        if shard and size + len(code) + len(word) > SHARD_BYTES:
            firsts.append(shard[0][0])
            shards.append(writer.put("t", _js("shard", shard)))
            shard, size = [], 0
        shard.append([word, df, code])
        size += len(code) + len(word) * 3 + 8
    if shard:
        firsts.append(shard[0][0])
        shards.append(writer.put("t", _js("shard", shard)))
    chunks, starts = [], []
    for start, end in _chunk_bounds(records):
        part = records[start:end]
        numbers = sorted({int(r[0]) for r in part})
        starts.append(start)
        chunks.append(writer.put("p", _js("chunk", {"start": start, "pages": {str(n): page_rows[n] for n in numbers}, "passages": part})))
    fold_file = writer.put("fold", _js("fold", fold.tables(used_chars)))
    manifest = {
        "version": VERSION, "passages": total, "mean": round(mean, 2), "starts": starts, "maxPostings": MAX_POSTINGS,
        "weightSteps": WEIGHT_STEPS, "k1": K1, "firsts": firsts, "shards": shards, "chunks": chunks, "fold": fold_file,
    }
    index = _js("manifest", manifest)
    write_atomic(folder / "index.js", index)
    writer.finish()
    return Stats(len(page_rows), total, len(postings), writer.written, writer.bytes + len(index), time.process_time() - started, cache.reused)


def _chunk_bounds(records: list[list]) -> list[tuple[int, int]]:
    """[start, end) of each passage file: a new file at a page's first passage once the file
    holds half its text, or at any passage that would take it past CHUNK_CHARS."""
    bounds: list[tuple[int, int]] = []
    start, chars = 0, 0
    for pid, record in enumerate(records):
        size = len(record[3]) + len(record[2] or "")
        new_page = pid > start and record[0] != records[pid - 1][0]
        if pid > start and (chars + size > CHUNK_CHARS or (new_page and chars >= CHUNK_CHARS // 2)):
            bounds.append((start, pid))
            start, chars = pid, 0
        chars += size
    if start < len(records):
        bounds.append((start, len(records)))
    return bounds


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


def index_site(site_dir: Path, files: Iterable, source_ids: set[str], cache_dir: Path | None, glossary: tuple[str, ...]) -> Stats:
    """Index the built site's mirror pages (with none, an empty manifest: the worker asks for it)."""
    from .hanfold import Fold, cached_fold

    pages = site_pages(files, source_ids)
    fold = cached_fold(cache_dir, glossary) if pages else Fold({}, {})
    return build(site_dir, pages, fold, cache_dir / "fulltext-pages.marshal" if cache_dir and pages else None)
