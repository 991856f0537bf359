"""Material's lunr index, built once at build time instead of in every reader's browser.

Material's search worker builds a lunr index from search_index.json on every page view,
before it can answer: at 1,000 sources about 0.8 s of CPU, growing with the corpus (issue
24). This module builds that same index in Python and writes it beside the search index
(search/lunr_index.js); our worker (corpus-search.js) hands it to `lunr.Index.load`, which
takes a fraction of the time, and builds as before whenever the search index names no such
file (another configuration, an older build, a partial rebuild).

"The same index" means what lunr 2.3.9 would serialise after Material's setup:

- tokens: Material's tokenizer, which takes the text between tags (its `extract`, quirks
  included: a `>` in text ends a "tag") and splits it on the configured separator (a
  JavaScript pattern: `\\s`, `\\w`, `\\d` keep their JavaScript meaning here), lower-cased;
- the pipeline Material leaves with `pipeline: []`: for several languages, lunr-languages'
  multi-language trimmer (word characters: `\\w` for en, `\\w一-龥` for zh), else nothing;
- lunr's BM25 with Material's b = 0 and k1 = 1.2, field and document boosts, scores
  rounded to three places, terms numbered in order of first use.

It leaves out what lunr keeps for Material's highlighting (every token's position): the
worker computes positions for the results it shows, with Material's own tokenizer. Only
configurations reproduced exactly are written (languages en and zh, an empty pipeline);
tests/test_lunr_index.py compares the file with the index Material's worker builds.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..core.provenance import write_atomic

PREFIX = "lunr_index."  # search/lunr_index.<digest>.js, named in search_index.json's config as `lunr`
KEY = "lunr"
LUNR_VERSION = "2.3.9"  # the lunr Material's worker bundles
K1 = 1.2
B = 0.0  # Material's `this.b(0)`
# lunr-languages' word characters, for the multi-language trimmer.
WORD_CHARACTERS = {"en": r"\w", "zh": r"\w一-龥"}
# What \s matches in a JavaScript pattern (Python's \s differs: \x1c-\x1f, \x85; no \ufeff).
_JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"


def supported(config: dict[str, Any]) -> bool:
    """Whether this module reproduces Material's index for this search configuration."""
    langs = config.get("lang") or ["en"]
    return not config.get("pipeline") and all(lang in WORD_CHARACTERS for lang in langs) and bool(config.get("fields"))


def write(site_dir: Path) -> int:
    """Write the lunr index of the site's search/search_index.json and name it there; its size, or 0.

    The file's name holds a digest of its content and the search index names it, so a page
    never pairs one build's documents with another's index (a cached file, a partial rebuild
    that rewrites the search index without this)."""
    folder = site_dir / "search"
    index_file = folder / "search_index.json"
    data = json.loads(index_file.read_bytes())
    config = data.get("config", {})
    docs = data.get("docs", [])
    name = ""
    text = ""
    if supported(config) and len({d.get("location") for d in docs}) == len(docs):
        text = "self.cbLunrIndex=" + json.dumps(build(data), ensure_ascii=False, separators=(",", ":")) + ";\n"
        name = PREFIX + hashlib.sha1(text.encode("utf-8")).hexdigest()[:16] + ".js"
        write_atomic(folder / name, text)
    for old in folder.glob(PREFIX + "*.js"):
        if old.name != name:
            old.unlink()
    if config.get(KEY) != (name or None):
        data["config"] = {**config, KEY: name} if name else {k: v for k, v in config.items() if k != KEY}
        write_atomic(index_file, json.dumps(data, ensure_ascii=False, separators=(",", ":")))
    return len(text.encode("utf-8"))


def build(data: dict[str, Any]) -> dict[str, Any]:
    """lunr's serialised index (no positions) of `data` (Material's {config, docs})."""
    config = data["config"]
    docs = data["docs"]
    fields = list(config["fields"])
    boosts = {name: float(spec.get("boost") or 1) for name, spec in config["fields"].items()}
    separator = js_pattern(config.get("separator") or r"[\s\-]+")
    trim = _trimmer(config.get("lang") or ["en"])

    inverted: dict[str, dict[str, Any]] = {}
    frequencies: list[tuple[str, str, float, dict[str, int], int]] = []  # (field, ref, doc boost, tf, length)
    lengths = dict.fromkeys(fields, 0)
    for doc in docs:
        ref = doc["location"]
        doc_boost = doc.get("boost") or 1
        for field in fields:
            terms = [trim(t) for t in tokens(doc.get(field), separator)]
            counts: dict[str, int] = {}
            for term in terms:
                counts[term] = counts.get(term, 0) + 1
                posting = inverted.get(term)
                if posting is None:
                    posting = inverted[term] = {"_index": len(inverted), **{f: {} for f in fields}}
                posting[field][ref] = {}
            frequencies.append((field, ref, doc_boost, counts, len(terms)))
            lengths[field] += len(terms)
    average = {field: lengths[field] / len(docs) for field in fields} if docs else {}

    idf_cache: dict[str, float] = {}
    vectors = []
    for field, ref, doc_boost, counts, length in frequencies:
        elements: list[tuple[int, float]] = []
        for term, tf in counts.items():
            posting = inverted[term]
            idf = idf_cache.get(term)
            if idf is None:
                idf = idf_cache[term] = _idf(posting, len(docs))
            score = idf * ((K1 + 1) * tf) / (K1 * (1 - B + B * (length / average[field])) + tf)
            score *= boosts[field]
            score *= doc_boost
            elements.append((posting["_index"], math.floor(score * 1000 + 0.5) / 1000))  # JavaScript's Math.round
        elements.sort()
        vectors.append([f"{field}/{ref}", [x for pair in elements for x in pair]])

    return {
        "version": LUNR_VERSION,
        "fields": fields,
        "fieldVectors": vectors,
        # lunr sorts terms as JavaScript compares strings: by UTF-16 code unit.
        "invertedIndex": [[term, inverted[term]] for term in sorted(inverted, key=lambda t: t.encode("utf-16-be"))],
        "pipeline": [],
    }


def tokens(value: Any, separator: re.Pattern[str]) -> Iterator[str]:
    """Material's tokenizer: the words of the text between tags, lower-cased."""
    if value is None:
        return
    for text in value if isinstance(value, list) else [value]:
        for section in _sections(str(text)):
            at = 0  # split as Material's `split` does (an exec loop): groups in the pattern add nothing
            for match in separator.finditer(section):
                if match.start() > at:
                    yield section[at : match.start()].lower()
                at = max(at, match.end())
            if len(section) > at:
                yield section[at:].lower()


def _sections(text: str) -> Iterator[str]:
    """The text sections of Material's `extract` (search/internal/extract), as it finds them."""
    start = 0
    for end, char in enumerate(text):
        if char == "<" and end > start:
            yield text[start:end]
            start = end
        elif char == ">":
            start = end + 1  # the end of what it takes for a tag, text or not
    if len(text) > start:
        yield text[start:]


def _trimmer(langs: list[str]):
    if len(langs) < 2:
        return lambda term: term  # one language: Material removes its trimmer with `pipeline: []`
    chars = "".join(WORD_CHARACTERS[lang] for lang in langs)
    start = re.compile(f"^[^{chars}]+", re.ASCII)
    end = re.compile(f"[^{chars}]+$", re.ASCII)
    return lambda term: end.sub("", start.sub("", term))


def _idf(posting: dict[str, Any], count: int) -> float:
    with_term = sum(len(refs) for field, refs in posting.items() if field != "_index")
    x = (count - with_term + 0.5) / (with_term + 0.5)
    return math.log(1 + abs(x))


def js_pattern(pattern: str) -> re.Pattern[str]:
    r"""A JavaScript regular expression (no flags) as Python's re reads it the same way.

    re.ASCII gives \w, \d and \b their JavaScript (ASCII) meaning; \s is spelled out."""
    out = []
    i = 0
    in_class = False
    while i < len(pattern):
        char = pattern[i]
        if char == "\\" and i + 1 < len(pattern):
            pair = pattern[i : i + 2]
            if pair == r"\s":
                out.append(_JS_SPACE if in_class else f"[{_JS_SPACE}]")
            else:
                out.append(pair)
            i += 2
            continue
        if char == "[" and not in_class:
            in_class = True
        elif char == "]" and in_class:
            in_class = False
        out.append(char)
        i += 1
    return re.compile("".join(out), re.ASCII)
