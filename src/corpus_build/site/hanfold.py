"""Fold Chinese for full-text search: one spelling for Simplified, Traditional and Taiwanese terms.

The mirror texts of this corpus are written in Simplified Chinese, in Traditional
Chinese the Taiwanese way (記憶體 where the mainland writes 内存, 運算元 for 算子) and
in English. Search folds every text and every query to one form, the same on both
sides (site/fulltext.py builds the index with `Fold.text`, the search worker folds the
query with the tables `Fold.tables` ships):

1. NFKC and lower case (ligatures such as U+FB01 become "fi", full-width letters ASCII),
   then every combining mark dropped (a mark NFKC could not compose: q̇, the dot of the
   Turkish İ, which lower-cases to i + U+0307, a variation selector after an emoji), so
   that İstanbul, istanbul and ISTANBUL are one word and a mark never splits or starts one;
2. each Traditional character to its Simplified one (OpenCC's t2s, character by
   character, so a position in the folded text is a position in the original);
3. in text that had Traditional characters, Taiwanese terms to the mainland's
   (記憶體 → 内存), with a table built from OpenCC's s2twp conversion of jieba's
   dictionary words and the corpus's glossary: each word whose Taiwanese form differs
   from its character-by-character Traditional form gives one pair. The table is one
   regular expression (a trie of the terms, longest first) that Python and the
   browser both run, so the two sides cannot disagree on a match.

A query is looked up in both forms (step 2 only, and steps 2 and 3): a Simplified
reader's 资料 (material) still finds mainland pages that say 资料, and also the
Taiwanese pages whose 資料 (data) the index holds as 数据.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import re
import time
import unicodedata
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..core.provenance import write_atomic

# Chinese characters: Extension A, the unified block, the compatibility ideographs, and the astral
# extensions B to H with the compatibility supplement (U+20000-U+323AF). The worker's pattern is the
# same ranges (corpus-fulltext.js: HAN); tests/test_tokenizer_cases.py holds the two to one table.
HAN = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U000323af"
_HAN_WORD = re.compile(f"[{HAN}]{{2,6}}")
# jieba dictionary words used to find Taiwanese terms: the commoner two- to four-character words.
_DICT_MIN_FREQ = 3
FORMAT = 1  # of the cached table (cached_fold)


@functools.cache
def marks() -> dict[int, None]:
    """Every combining mark (Unicode categories Mn, Mc, Me) as a translation to nothing. Marks live in
    the first two planes and among the variation selectors (plane 14): only those are scanned."""
    found: dict[int, None] = {}
    for low, high in ((0x300, 0x20000), (0xE0000, 0xE1000)):
        for code in range(low, high):
            if unicodedata.category(chr(code))[0] == "M":
                found[code] = None
    return found


@functools.cache
def _marks_re() -> re.Pattern[str]:
    """A character class of marks(): whether a text has one, in one scan."""
    codes = sorted(marks())
    ranges: list[list[int]] = []
    for code in codes:
        if ranges and ranges[-1][1] == code - 1:
            ranges[-1][1] = code
        else:
            ranges.append([code, code])
    return re.compile("[" + "".join(f"\\U{a:08x}-\\U{b:08x}" for a, b in ranges) + "]")


class Fold:
    def __init__(self, chars: dict[str, str], phrases: dict[str, str]):
        self.chars = chars
        self.table = str.maketrans(chars)
        self.phrases = phrases
        self.pattern = trie_pattern(phrases)
        self._phrase_re = re.compile(self.pattern) if phrases else None
        # Words by their first two characters (the lengths there are, longest first): most places of a
        # text start no word's pair, and are passed after one lookup. One-character words apart.
        pairs: dict[str, set[int]] = {}
        for word in phrases:
            if len(word) >= 2:
                pairs.setdefault(word[:2], set()).add(len(word))
        self._pairs = {pair: sorted(sizes, reverse=True) for pair, sizes in pairs.items()}
        self._singles = {word: value for word, value in phrases.items() if len(word) == 1}
        self._starts = frozenset(word[0] for word in phrases if word)
        self._ascii_free = all(not key.isascii() for key in chars)  # ASCII text folds to itself (after lower case)

    def text(self, text: str) -> str:
        """The folded form of a passage: steps 1 and 2, and 3 if it had Traditional characters."""
        normal = unicodedata.normalize("NFKC", text).lower()
        if normal.isascii():  # most text: no mark, and no character of the table (Chinese ones)
            if self._ascii_free:
                return normal
        elif _marks_re().search(normal) is not None:  # found in one scan; translated only where there is one
            normal = normal.translate(marks())
        folded = normal.translate(self.table)
        if folded != normal and self._phrase_re is not None:
            folded = self._replace_phrases(folded)
        return folded

    def _replace_phrases(self, text: str) -> str:
        """What the phrase pattern's substitution gives (the longest word at each place, from the
        left), by looking the words up: Python's engine tries the pattern's thousands of branches
        at every character, seven times slower (the worker, on a query, still runs the pattern)."""
        phrases, pairs, singles, starts = self.phrases, self._pairs, self._singles, self._starts
        out: list[str] = []
        done = at = 0
        end = len(text)
        while at < end:
            if text[at] in starts:
                found = None
                for size in pairs.get(text[at:at + 2], ()):
                    found = phrases.get(text[at:at + size]) if at + size <= end else None
                    if found is not None:
                        break
                if found is None and singles:
                    size, found = 1, singles.get(text[at])
                if found is not None:
                    out += (text[done:at], found)
                    at = done = at + size
                    continue
            at += 1
        return "".join(out) + text[done:] if out else text

    def tables(self, used: Iterable[str] = ()) -> dict[str, Any]:
        """What the search worker needs to fold a query: the character map and the phrase expression.

        `used`: characters of the indexed text, before and after folding; a character
        neither the text nor its folded form holds cannot help a query find anything.
        """
        present = set(used)
        chars = "".join(t + s for t, s in sorted(self.chars.items()) if s in present or t in present)
        phrases = {k: v for k, v in sorted(self.phrases.items()) if all(c in present for c in v)}
        return {"chars": chars, "phrases": phrases, "pattern": trie_pattern(phrases)}


def trie_pattern(words: Iterable[str]) -> str:
    """A regular expression matching any of `words`, the longest at each place, as Python and JavaScript read it."""
    trie: dict[str, Any] = {}
    for word in words:
        node = trie
        for char in word:
            node = node.setdefault(char, {})
        node[""] = True

    def walk(node: dict[str, Any]) -> str:
        ends = "" in node
        branches = [re.escape(char) + walk(child) for char, child in sorted(node.items()) if char]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        if ends:  # greedy: the longer word first, this one if the longer fails
            body = (body if len(branches) == 1 and len(body) == 1 else f"(?:{body})") + "?"
        return body

    return walk(trie) if trie else ""


@functools.cache
def default_fold(glossary: tuple[str, ...] = ()) -> Fold:
    from ..render.listing import _t2s_characters

    return Fold(_t2s_characters(), _taiwan_terms(glossary))


def _taiwan_terms(glossary: tuple[str, ...]) -> dict[str, str]:
    """Folded Taiwanese term → mainland term (記憶體 folded to 记忆体 → 内存)."""
    try:
        import opencc
    except ImportError:  # pragma: no cover - opencc is a dependency
        return {}
    words = [w for w in glossary if _HAN_WORD.fullmatch(w)] + _dictionary_words()
    joined = "\n".join(words)
    taiwan = opencc.OpenCC("s2twp").convert(joined).split("\n")
    plain = opencc.OpenCC("s2t").convert(joined).split("\n")
    back = opencc.OpenCC("t2s").convert("\n".join(taiwan)).split("\n")
    pairs: dict[str, str] = {}
    for word, tw, tr, folded in zip(words, taiwan, plain, back, strict=True):
        if tw != tr and folded != word and _HAN_WORD.fullmatch(folded) and len(folded) <= 6:
            pairs.setdefault(folded, word)  # the glossary's and the commoner words' first
    return pairs


def _dictionary_words() -> list[str]:
    try:
        import jieba
    except ImportError:  # pragma: no cover - jieba is a dependency (Material's search)
        return []
    path = os.path.join(os.path.dirname(jieba.__file__), "dict.txt")
    words: list[tuple[int, str]] = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            parts = line.split(" ")
            if len(parts) >= 2 and 2 <= len(parts[0]) <= 4 and parts[1].isdigit() and int(parts[1]) >= _DICT_MIN_FREQ and _HAN_WORD.fullmatch(parts[0]):
                words.append((-int(parts[1]), parts[0]))
    return [w for _f, w in sorted(words)]


def cached_fold(cache_dir: Path | None, glossary: tuple[str, ...] = ()) -> Fold:
    """default_fold, kept on disk between builds (building the Taiwanese-term table takes about two seconds)."""
    if cache_dir is None:
        return default_fold(glossary)
    try:
        import jieba
        import opencc

        versions = f"{getattr(opencc, '__version__', '?')}/{jieba.__version__}"
    except ImportError:  # pragma: no cover
        return default_fold(glossary)
    key = hashlib.sha1(json.dumps([FORMAT, versions, _DICT_MIN_FREQ, list(glossary)], ensure_ascii=False).encode()).hexdigest()[:16]
    name = f"hanfold-{key}.json"
    # The project's cache, then the user's: the table depends only on the libraries and the
    # glossary, so a new project (a fresh clone, a first build) need not spend two seconds on it.
    folders = [cache_dir] + ([user] if (user := _user_cache()) is not None else [])
    for folder in folders:
        fold = _read_fold(folder / name)
        if fold is not None:
            if folder != cache_dir:
                with contextlib.suppress(OSError):
                    os.utime(folder / name)  # in use: kept
            break
    else:
        fold = default_fold(glossary)
    text = json.dumps({"chars": sorted(fold.chars.items()), "phrases": sorted(fold.phrases.items())}, ensure_ascii=False)
    for folder in folders:
        if (folder / name).is_file():
            continue
        try:
            folder.mkdir(parents=True, exist_ok=True)
            for old in folder.glob("hanfold-*.json"):  # our own files only: this name in our own folders
                # The project's last table goes; the user's folder serves other projects (other
                # glossaries), so only tables unused for 30 days go there.
                if folder == cache_dir or time.time() - old.stat().st_mtime > 30 * 86_400:
                    old.unlink(missing_ok=True)
            write_atomic(folder / name, text)
        except OSError:
            if folder == cache_dir:
                raise
    return fold


def _read_fold(path: Path) -> Fold | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return Fold(dict(data["chars"]), dict(data["phrases"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _user_cache() -> Path | None:
    """$XDG_CACHE_HOME/corpus-build (~/.cache/corpus-build), or None without a home."""
    base = os.environ.get("XDG_CACHE_HOME") or (os.path.join(os.path.expanduser("~"), ".cache") if os.path.expanduser("~") != "~" else "")
    return Path(base) / "corpus-build" if base and os.path.isabs(base) else None

