"""Material's lunr index, built once at build time instead of in every reader's browser.

No longer used by the published site (issue 38): the search worker answers from the sharded
index (site/fulltext.py, site/search.py's entries), and `write` writes nothing for an index
marked so. Kept while the build and the preview still call it.

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
import itertools
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
FORM = 2  # of the compact index: 2, document and term numbers as gaps, scores in integer thousandths
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
    # An index whose documents the sharded index has (site/search.py's `corpus_entries`) needs none.
    if supported(config) and not config.get("corpus_entries") and len({d.get("location") for d in docs}) == len(docs):
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
    """The index of `data` (Material's {config, docs}) in this module's compact form (see `expand`).

    lunr's own serialisation repeats every document's address in every term's posting and
    every field's vector, and lists every field of every posting, empty or not: five times
    the search index itself. Documents are numbered here instead (their order in `docs`), the
    numbers of a posting and of a vector as gaps (small numbers: a third less after gzip at
    5,000 sources), scores as the integers lunr rounds them to (thousandths), an empty field
    as 0; the worker expands it into lunr's form before `lunr.Index.load`."""
    config = data["config"]
    docs = data["docs"]
    fields = list(config["fields"])
    boosts = [float(spec.get("boost") or 1) for spec in config["fields"].values()]
    separator = js_pattern(config.get("separator") or r"[\s\-]+")
    trim = _trimmer(config.get("lang") or ["en"])

    numbers: dict[str, int] = {}  # term -> lunr's _index: terms numbered in order of first use
    postings: dict[str, list[list[int]]] = {}  # term -> per field, the documents holding it
    counted: list[list[dict[str, int]]] = []  # per document, per field: term frequencies
    for number, doc in enumerate(docs):
        row = []
        for f, field in enumerate(fields):
            terms = [trim(t) for t in tokens(doc.get(field), separator)]
            counts: dict[str, int] = {}
            for term in terms:
                counts[term] = counts.get(term, 0) + 1
                if term not in numbers:
                    numbers[term] = len(numbers)
                    postings[term] = [[] for _ in fields]
                holders = postings[term][f]
                if not holders or holders[-1] != number:
                    holders.append(number)
            row.append(counts)
        counted.append(row)
    lengths = [sum(sum(row[f].values()) for row in counted) for f in range(len(fields))]  # a field's length: its terms' counts
    average = [total / len(docs) for total in lengths] if docs else []
    idfs: dict[str, float] = {}
    vectors = []
    for doc, row in zip(docs, counted, strict=True):
        doc_boost = doc.get("boost") or 1
        out: list[Any] = []
        for f, counts in enumerate(row):
            length = sum(counts.values())
            elements: list[tuple[int, int]] = []
            for term, tf in counts.items():
                idf = idfs.get(term)
                if idf is None:
                    idf = idfs[term] = _idf(sum(len(holders) for holders in postings[term]), len(docs))
                # lunr's Builder#createFieldVectors, operation for operation (the same doubles).
                score = idf * ((K1 + 1) * tf) / (K1 * (1 - B + B * (length / average[f])) + tf)
                score *= boosts[f]
                score *= doc_boost
                elements.append((numbers[term], math.floor(score * 1000 + 0.5)))  # Math.round(score * 1000)
            elements.sort()
            flat: list[int] = []
            last = 0
            for number, thousandths in elements:
                flat += (number - last, thousandths)
                last = number
            out.append(flat or 0)
        vectors.append(out)

    terms = sorted(numbers, key=lambda t: t.encode("utf-16-be"))  # lunr's order: JavaScript compares UTF-16 units
    return {
        "form": FORM,
        "fields": fields,
        "terms": terms,
        "numbers": [numbers[t] for t in terms],
        "postings": [[_deltas(holders) or 0 for holders in postings[t]] for t in terms],
        "vectors": vectors,
    }


def expand(compact: dict[str, Any], docs: list[dict[str, Any]]) -> dict[str, Any]:
    """lunr's serialisation (Index#toJSON, without positions) of a compact index: what the
    worker hands to lunr.Index.load (corpus-search.js does this too, in JavaScript)."""
    fields = compact["fields"]
    refs = [doc["location"] for doc in docs]
    inverted = []
    for term, number, holders in zip(compact["terms"], compact["numbers"], compact["postings"], strict=True):
        posting: dict[str, Any] = {"_index": number}
        for field, held in zip(fields, holders, strict=True):
            posting[field] = {refs[n]: {} for n in itertools.accumulate(held or [])}
        inverted.append([term, posting])
    vectors = []
    for ref, row in zip(refs, compact["vectors"], strict=True):
        for field, flat in zip(fields, row, strict=True):
            flat = flat or []
            # lunr keeps Math.round(score * 1000) / 1000: the file holds the integer, this is the same double.
            scores = [_number(t / 1000) for t in flat[1::2]]
            vectors.append([f"{field}/{ref}", [x for pair in zip(itertools.accumulate(flat[0::2]), scores, strict=True) for x in pair]])
    return {"version": LUNR_VERSION, "fields": fields, "fieldVectors": vectors, "invertedIndex": inverted, "pipeline": []}


def _deltas(numbers: list[int]) -> list[int]:
    return [n - (numbers[i - 1] if i else 0) for i, n in enumerate(numbers)]


def _number(x: float) -> float | int:
    return int(x) if x.is_integer() else x


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


def _idf(with_term: int, count: int) -> float:
    """lunr.idf: `with_term` counts a document once per field that holds the term."""
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
