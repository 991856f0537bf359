"""Tune Material's search index for this corpus, after Material has written it.

Material for MkDocs indexes every heading of every page as its own result and
searches it in the browser with lunr. For a corpus of annotated sources that
gives poor answers, so the `corpus` plugin rewrites `search/search_index.json`
once Material has written it (`on_post_build`, lowest priority):

- A source page becomes one result: its annotation is the result's text (what
  the reader sees under the title); the metadata table and the generic
  sections (注释, 另见, 镜像, 引用…) go into a low-weight `meta` field, so they
  still match but neither show nor appear as results of their own. Words most
  sources' metadata shares (the template's labels) are left out of it, and so
  is the mirror's excerpt (`data-search-exclude`: the full-text index has the
  mirror's text), so the index the browser builds grows with what sources say. Source
  pages are found by location (from `render.pages.paths`), the annotation by
  its heading's label word (zh or en, `render.labels`), so a change of page
  template does not break this.
- Section pages repeat every source's title and annotation; those entries
  are dropped, so each source is one result, not two.
- Simplified and Traditional Chinese fold: every Chinese word of a document
  that reads differently in the other script (OpenCC: t2s, s2t, s2twp, tw2sp)
  is added in that script to an `alt` field. A word is looked up wherever it
  occurs in the text, not only where jieba cut it, so the digest's 運算元 (the
  Taiwanese term OpenCC's s2twp writes for 算子) answers a search for 算子.
- Identifiers: a GitHub PR or issue answers `#2900`, `PR 2900`,
  `tilelang#2900` and `tile-ai/tilelang#2900` (the `keys` field).
- Field weights: title > keys > annotation (text) > script variants > tags >
  metadata, instead of Material's tags ×1,000,000.

The page's words are left exactly as written: the alternative spellings live
in fields lunr indexes but Material never displays.

The query side is our search worker (overrides/assets/javascripts/workers/
corpus-search.js, which overrides/main.html names in Material's config): it
loads Material's worker and adds typo tolerance (words one or two edits away),
compounds of adjacent words, the `keys` of a PR or issue named by number, and
orders results by tier (that thread; the page the query names by its title or
repository; a phrase in the title; a phrase in the text), then by score.
"""

from __future__ import annotations

import functools
import html
import json
import logging
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.model import Corpus, Source
from ..core.provenance import write_atomic
from ..render.labels import Labels

log = logging.getLogger("mkdocs.plugins.corpus")

# Weights of lunr's fields: a title match counts most, metadata least.
FIELD_BOOSTS: dict[str, float] = {
    "title": 20.0,
    "keys": 30.0,  # identifiers (a repository's name, pr2900), the title's words in the other script
    "text": 4.0,  # for a source: its annotation
    "alt": 3.0,  # the text's words in the other script, parts of compound names
    "tags": 2.0,
    "meta": 1.0,  # a source's metadata table and generic sections
}
# Chinese words of at most this many characters are folded (longer ones are phrases).
MAX_WORD = 8

_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
# A whole run of 2 to MAX_WORD Han characters (a longer run is a phrase, not a word).
_HAN_WORD = re.compile(rf"(?<!{_HAN.pattern[:-1]}){_HAN.pattern[:-1]}{{2,{MAX_WORD}}}(?!{_HAN.pattern[:-1]})")
_TAG = re.compile(r"<[^>]*>")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_GITHUB_THREAD = re.compile(r"^https?://github\.com/([^/]+)/([^/]+)/(pull|issues)/(\d+)")
_GITHUB_REPO = re.compile(r"^https?://(?:github\.com|gitcode\.com|gitee\.com)/([^/]+)/([^/#?]+?)(?:\.git)?/?$")
# Pages that list other pages (home, indexes, tags, status) match nearly every
# query by the titles they repeat; they rank below the pages they list.
LISTING_BOOST = 0.1
# A word in more than this share of the source pages' metadata (their template's labels: 编号,
# 类型, 镜像…) is dropped from it: lunr's idf gives such a word no weight, yet every source
# matched it, and each indexed word costs the reader's browser time when search starts.
COMMON_META = 0.5
COMMON_META_MIN_SOURCES = 20  # below this, a shared author or host is not yet a template's word
# Digests, chapters and section pages mention sources in passing: a source's own
# page answers its name first.
PROSE_BOOST = 0.5


@dataclass(frozen=True)
class TuneStats:
    """What `tune_index_file` did, for the build log and the tests."""

    bytes_before: int
    bytes_after: int
    docs_before: int
    docs_after: int
    alt_words: int
    # Every tuned document as an entry of the sharded index (fulltext.py): the browser searches
    # those; its page script reads only Material's configuration (`config`, search_config.json).
    entries: tuple[Entry, ...] = ()
    config: dict[str, Any] | None = None


@dataclass(frozen=True)
class Entry:
    """One result of the site's own pages for the sharded index: a source (title, annotation,
    identifiers, metadata) or a page or heading of a hand-written page (chapter, digest...).

    `fields` are (field name, plain text) in FIELD_BOOSTS' names; `text` is what the result shows."""

    url: str
    anchor: str
    title: str
    text: str
    keys: str
    boost: float
    fields: tuple[tuple[str, str], ...]


# search_index.json's config says the documents are in the sharded index (corpus-search.js).
ENTRIES_KEY = "corpus_entries"


def entries_of(docs: list[dict[str, Any]]) -> tuple[Entry, ...]:
    """The tuned documents as entries of the sharded index, in their order."""
    out = []
    for doc in docs:
        page, _, anchor = doc["location"].partition("#")
        fields = []
        for name in FIELD_BOOSTS:
            value = doc.get(name)
            if isinstance(value, list):
                value = " ".join(str(v) for v in value)
            plain = _plain(str(value)) if value else ""
            if plain:
                fields.append((name, plain))
        boost = doc.get("boost", 1.0)
        title = " ".join(html.unescape(_TAG.sub("", str(doc.get("title", "")))).replace("\u200b", "").split())  # a heading's inline tags: no space
        out.append(Entry(page, anchor, title, " ".join(_plain(str(doc.get("text", ""))).split()), _plain(str(doc.get("keys", ""))),
                         float(boost) if isinstance(boost, (int, float)) else 1.0, tuple(fields)))
    return tuple(out)


# What the pages' script reads instead of search_index.json (site/overrides/main.html): Material's
# configuration, marked, and no documents. search_index.json stays whole for whoever reads it (the
# offline copy's search_index.js, tools); a reader's browser never downloads it.
CONFIG_FILE = "search_config.json"


def published(tuned: dict[str, Any]) -> dict[str, Any]:
    """search_index.json once the documents are in the sharded index: the tuned documents, and
    Material's configuration marked (ENTRIES_KEY: our worker answers from the sharded index)."""
    return {**tuned, "config": {**tuned.get("config", {}), ENTRIES_KEY: 1}}


def config_only(tuned: dict[str, Any]) -> dict[str, Any]:
    """search_config.json: what Material's page script sends its worker (the worker needs no document)
    and its highlighting reads (the separator)."""
    return {"config": published(tuned)["config"], "docs": []}


def tune_index_file(path: Path, corpus: Corpus, *, directory_urls: bool = True) -> TuneStats:
    """Rewrite Material's search index at `path` in place (see the module docstring)."""
    bytes_before = path.stat().st_size
    data = json.loads(path.read_bytes())  # no text copy of the file kept beside what it holds
    before = len(data.get("docs", []))
    tuned, alt_words = tune(data, corpus, directory_urls=directory_urls)
    del data
    entries = entries_of(tuned["docs"])
    write_atomic(path, json.dumps(published(tuned), ensure_ascii=False, separators=(",", ":")))  # never through a link (engines.py)
    return TuneStats(bytes_before, path.stat().st_size, before, len(tuned["docs"]), alt_words, entries, config_only(tuned))


def tuned_json(index: Any, corpus: Corpus, *, directory_urls: bool = True, words_memo: Path | None = None) -> tuple[str, TuneStats]:
    """The tuned index as text, straight from the entries Material's search holds in memory.

    What `tune_index_file` does to the file Material writes, without the file: Material's
    `generate_search_index` would serialise every entry, and we would read it all back and
    hold both at the build's peak. `_as_json` gives exactly what that round trip gives.
    """
    config = {key: index.config[key] for key in ("lang", "separator", "pipeline", "fields")}
    data = {"config": _as_json(config), "docs": _as_json(index.entries)}
    tuned, alt_words = tune(data, corpus, directory_urls=directory_urls, words_memo=words_memo)
    out = json.dumps(published(tuned), ensure_ascii=False, separators=(",", ":"))
    return out, TuneStats(0, len(out.encode("utf-8")), len(data["docs"]), len(tuned["docs"]), alt_words, entries_of(tuned["docs"]),
                          config_only(tuned))


def _as_json(value: Any) -> Any:
    """json.loads(json.dumps(value, default=str)), without the text in between."""
    if value is None or type(value) in (str, bool, int, float):
        return value
    if isinstance(value, str):
        return str(value)  # a str subclass (Markup) is written as plain text
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, dict):
        return {_json_key(k): _as_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_as_json(v) for v in value]
    return str(value)


def _json_key(key: Any) -> str:
    if isinstance(key, str):
        return str(key)
    if key is None or isinstance(key, (int, float)):  # bool is an int: true, false, 1, 1.5, null
        return json.dumps(key)
    return str(key)


def tune(data: dict[str, Any], corpus: Corpus, *, directory_urls: bool = True, folder: ScriptFolder | None = None,
         words_memo: Path | None = None) -> tuple[dict[str, Any], int]:
    """The tuned index (a new dict) and the number of alternative-script words added. `words_memo`: where
    the words' conversions are kept between builds (ScriptFolder.for_docs)."""
    from ..render.places import paths

    def url(md_path: str) -> str:  # as MkDocs names the page (the offline copy: no directory URLs)
        stem = md_path[: -len(".md")]
        if not directory_urls:
            return stem + ".html"  # chapters/index.md -> chapters/index.html
        if stem == "index":
            return ""
        if stem.endswith("/index"):
            return stem[: -len("index")]
        return stem + "/"

    source_pages = {url(paths.source(s.id)): s for s in corpus.sources}
    section_pages = {url(paths.section(s)) for s in corpus.sections}
    listings = {url(p) for p in (paths.home, paths.sections, paths.sources, paths.chapters, paths.digests, paths.tags, paths.status)}
    prose = {url(paths.digest(d)) for d in corpus.digests} | section_pages
    prose |= {url(paths.chapter(c.number)) for c in corpus.chapters} | {url(paths.learning_path(p.id)) for p in corpus.paths}
    docs: list[dict[str, Any]] = data.get("docs", [])
    separator = _separator(data.get("config", {}).get("separator"))
    by_page: dict[str, list[dict[str, Any]]] = defaultdict(list)
    order: list[str] = []
    for doc in docs:
        page = doc["location"].split("#", 1)[0]
        if page not in by_page:
            order.append(page)
        by_page[page].append(doc)

    out: list[dict[str, Any]] = []
    for page in order:
        entries = by_page[page]
        if page in source_pages:
            out.append(_source_doc(entries, source_pages[page], separator))
            continue
        for doc in map(dict, entries):  # copies: the caller's index stays as it was
            anchor = doc["location"].partition("#")[2]
            if page in section_pages and anchor in corpus.by_id:
                continue  # the source's own page is its result
            if anchor:
                doc = {k: v for k, v in doc.items() if k != "tags"}  # tags count once, on the page
            if page in listings:
                doc = {**doc, "boost": LISTING_BOOST}
            elif page in prose:
                doc = {**doc, "boost": PROSE_BOOST}
            out.append(doc)

    _drop_common_meta(out)
    folder = folder or ScriptFolder.for_docs(out, extra=[*corpus.settings.glossary, *(t for s in corpus.sources for t in s.tags)], memo=words_memo)
    alt_words = 0
    for doc in out:
        variants = folder.variants(doc.get("title", "") + " " + doc.get("text", ""))
        compounds = _compound_parts(_plain(doc.get("title", "")))
        alt = sorted(variants | compounds)
        if alt:
            doc["alt"] = " ".join(filter(None, [doc.get("alt", ""), *alt]))
            alt_words += len(variants)
        title_variants = folder.variants(doc.get("title", ""))
        if title_variants:
            doc["keys"] = " ".join(filter(None, [doc.get("keys", ""), *sorted(title_variants)]))
    config = dict(data.get("config", {}))
    config["fields"] = {name: {"boost": boost} for name, boost in FIELD_BOOSTS.items()}
    return {**data, "config": config, "docs": out}, alt_words


def _source_doc(entries: list[dict[str, Any]], source: Source, separator: re.Pattern[str]) -> dict[str, Any]:
    """One result for a source page: annotation as text, everything else as metadata."""
    page_doc = entries[0]
    annotation_words = {Labels(lang)("annotation") for lang in ("zh", "en")}
    annotation = ""
    meta_parts = [page_doc.get("text", "")]
    for doc in entries[1:]:
        # Every heading of a source page comes from its template (注释, 另见, 镜像…):
        # the annotation becomes the result's text, the rest its metadata.
        if not annotation and _plain(doc.get("title", "")) in annotation_words:
            annotation = doc.get("text", "")
        else:
            meta_parts.append(f"{doc.get('title', '')} {doc.get('text', '')}")
    if not annotation:
        annotation = f"<p>{html.escape(source.note.strip(), quote=False)}</p>" if source.note.strip() else ""
    doc = {"location": page_doc["location"], "title": page_doc.get("title", source.title), "text": annotation}
    keys, alt = _source_keys(source, separator)
    if keys:
        doc["keys"] = " ".join(keys)
    if alt:
        doc["alt"] = " ".join(alt)
    doc["meta"] = _new_words(" ".join(meta_parts), [doc["title"], annotation, *keys, *page_doc.get("tags", [])], separator)
    if page_doc.get("tags"):
        doc["tags"] = page_doc["tags"]
    for extra in ("boost",):
        if extra in page_doc:
            doc[extra] = page_doc[extra]
    return doc


def _drop_common_meta(docs: list[dict[str, Any]]) -> None:
    """Remove from each source's `meta` the words most sources' metadata holds (COMMON_META)."""
    metas = [doc for doc in docs if doc.get("meta")]
    if len(metas) < COMMON_META_MIN_SOURCES:
        return
    counts: Counter[str] = Counter()
    for doc in metas:
        counts.update({word.lower() for word in doc["meta"].split(" ")})
    common = {word for word, n in counts.items() if n > COMMON_META * len(metas)}
    for doc in metas:
        kept = " ".join(word for word in doc["meta"].split(" ") if word.lower() not in common)
        if kept:
            doc["meta"] = kept
        else:
            del doc["meta"]


def _new_words(text: str, already: list[str], separator: re.Pattern[str]) -> str:
    """The words of `text` not in `already`, once each.

    lunr counts a word's documents field by field, and its idf, log(1 + |N − n|/n),
    falls to zero when that count nears the number of documents: a word repeated
    in every source's metadata (tilelang, in URLs and chapter titles) would stop
    counting even in titles. Metadata adds only words the result lacks.
    """
    seen = {w.lower() for part in already for w in _words(part, separator)}
    words = []
    for word in _words(text, separator):
        lowered = word.lower()
        if word and lowered not in seen:
            seen.add(lowered)
            words.append(word)
    return " ".join(words)


def _source_keys(source: Source, separator: re.Pattern[str]) -> tuple[list[str], list[str]]:
    """Identifiers a reader may type, as (keys, alt): a repository's name, a thread's number.

    lunr adds a trailing wildcard to every query word, so a key must be a whole
    word that the query names: the repository `tilelang` gets `tilelang` as a
    key, while `tilelang-puzzles` (two words) only gets its parts as
    alternatives; otherwise every tilelang-* repository would tie with the
    main one. A thread's bare number is not a key: `3*` (from
    FlashAttention-3) would rank PR 3308 first. `#` separates words
    (mkdocs.yml's search separator), so `#2900`, `PR 2900` and `tilelang#2900`
    all reach the index as 2900 (plus tilelang, from the thread's URL).
    """
    keys: list[str] = []
    alt: list[str] = []
    thread = _GITHUB_THREAD.match(source.url)
    if thread:
        # pr2900 answers the `pr*` of "PR 2900" (and of no other query); 2900
        # answers `2900*`. The bare number is not a key: see above.
        keys.append(("pr" if thread.group(3) == "pull" else "issue") + thread.group(4))
        alt.append(thread.group(4))
    elif source.kind == "repo":
        repo = _GITHUB_REPO.match(source.url)
        if repo:
            words = [w for w in separator.split(repo.group(2).lower()) if w]
            (keys if len(words) == 1 else alt).extend(words)
    return keys, alt


def _separator(pattern: str | None) -> re.Pattern[str]:
    """mkdocs.yml's search separator (a JavaScript regex) for Python; lunr's default if Python cannot read it."""
    try:
        return re.compile(pattern or r"[\s\-]+")
    except re.error:
        log.warning(f"corpus: the search separator {pattern!r} is not a Python regex; splitting words at spaces and hyphens")
        return re.compile(r"[\s\-]+")


def _words(markup: str, separator: re.Pattern[str]) -> list[str]:
    """Words as lunr will see them: tags dropped, cut at the separator (jieba's cuts included)."""
    return [w for w in separator.split(html.unescape(_TAG.sub(" ", markup))) if w]


def _plain(markup: str) -> str:
    """Index text without tags and jieba's zero-width cuts (what the reader sees)."""
    return html.unescape(_TAG.sub(" ", markup)).replace("\u200b", "").strip()


def _compound_parts(text: str) -> set[str]:
    """Parts of camelCase and snake_case names (FlashMLA → flash, mla; atomic_add → atomic, add) so a
    part still finds the whole (the index keeps atomic_add one word), and so does a term of the
    cross-language table (原子加: atomic add)."""
    parts: set[str] = set()
    for word in re.findall(r"[A-Za-z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*", text):
        pieces = _CAMEL.findall(word)
        if len(pieces) > 1:
            parts.update(p.lower() for p in pieces if len(p) > 1)
    for word in re.findall(r"[A-Za-z0-9]+(?:_+[A-Za-z0-9]+)+", text):
        parts.update(p.lower() for p in re.split(r"_+", word) if len(p) > 1 and not p.isdigit())
    return parts


class ScriptFolder:
    """Chinese words of the corpus in their other script, and where to find them in a text.

    `equivalents` maps a spelling (Simplified or Traditional, two characters or
    more) to its other spellings, built from the corpus's own vocabulary: every
    word jieba cut from the index, the glossary and tags, converted with
    OpenCC's t2s, s2t, s2twp (mainland → Taiwan terms: 算子 → 運算元) and tw2sp
    (摩爾執行緒 → 摩尔线程), in both directions. A conversion that is wrong
    for this corpus (tw2sp turns 運算元 into 操作数) only adds a word that
    finds the same page.
    """

    def __init__(self, equivalents: dict[str, set[str]]):
        self.equivalents = equivalents
        self.longest = max((len(k) for k in equivalents), default=0)

    @classmethod
    def for_docs(cls, docs: Iterable[dict[str, Any]], extra: Iterable[str] = (), memo: Path | None = None) -> ScriptFolder:
        """`memo`: a file keeping each word's conversions from one build to the next: OpenCC's four
        dictionaries (a twentieth of a note edit's rebuild at 1,000 sources) load only for new words."""
        vocabulary: set[str] = {w for w in extra if _HAN.fullmatch(w)}
        for doc in docs:
            for value in (doc.get("title", ""), doc.get("text", "")):
                vocabulary.update(_HAN_WORD.findall(_TAG.sub(" ", value)))  # runs between jieba's cuts, spaces and tags
        return cls(_equivalents(vocabulary, _conversions(vocabulary, memo)))

    def variants(self, markup: str) -> set[str]:
        """Other-script spellings of the words in `markup` that it does not contain itself."""
        if not self.equivalents:
            return set()
        text = _plain(markup)
        found: set[str] = set()
        for run in _HAN.findall(text):
            for i in range(len(run) - 1):
                for j in range(i + 2, min(len(run), i + self.longest) + 1):
                    others = self.equivalents.get(run[i:j])
                    if others:
                        found.update(others)
        return {w for w in found if w not in text}


@functools.cache  # loading OpenCC's four dictionaries cost 0.1 s at every tune (each preview edit tunes twice)
def _converters() -> list[Callable[[str], str]]:
    try:
        import opencc
    except ImportError:  # pragma: no cover - opencc is a dependency; without it no folding
        log.warning("corpus: opencc is not installed; search does not fold Simplified and Traditional Chinese")
        return []
    return [opencc.OpenCC(name).convert for name in CONVERSIONS]


CONVERSIONS = ("t2s", "s2t", "s2twp", "tw2sp")


def _conversions(vocabulary: set[str], memo: Path | None) -> dict[str, list[str]]:
    """Each word's conversions by _converters, in their order; from `memo` when it kept them (for the
    same OpenCC: its version is in the file), the others converted and the file rewritten."""
    from importlib import metadata

    try:
        version = f"opencc {metadata.version('opencc')} {CONVERSIONS}"
    except metadata.PackageNotFoundError:
        version = ""
    kept: dict[str, list[str]] = {}
    if memo is not None and version:
        try:
            data = json.loads(memo.read_text(encoding="utf-8"))
            if isinstance(data, dict) and data.get("version") == version and isinstance(data.get("words"), dict):
                kept = data["words"]
        except (OSError, ValueError):
            kept = {}
    out: dict[str, list[str]] = {}
    for word in sorted(vocabulary):
        known = kept.get(word)
        if isinstance(known, list) and len(known) == len(CONVERSIONS) and all(isinstance(w, str) for w in known):
            out[word] = known
        else:
            converters = _converters()
            if not converters:
                return {}
            out[word] = [convert(word) for convert in converters]
    if memo is not None and version and out != kept:
        try:
            memo.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(memo, json.dumps({"version": version, "words": out}, ensure_ascii=False, separators=(",", ":")))
        except OSError:  # the memo only saves time
            pass
    return out


def _equivalents(vocabulary: Iterable[str], conversions: dict[str, list[str]]) -> dict[str, set[str]]:
    equivalents: dict[str, set[str]] = defaultdict(set)
    for word in vocabulary:
        for other in conversions.get(word, ()):
            if other != word and _HAN.fullmatch(other):
                equivalents[word].add(other)
                equivalents[other].add(word)
    return dict(equivalents)
