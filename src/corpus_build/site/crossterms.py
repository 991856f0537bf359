"""The field's terms in Chinese and English, so that a query in one language finds text in the other (issue 37).

The corpus's readers type Chinese for material annotated in English all day (原生稀疏注意力 for
the Native Sparse Attention paper) and the reverse. Each group below lists spellings of one
term, Chinese and English (a Traditional or Taiwanese spelling where folding alone would not
reach it: 運算元 for 算子); the corpus adds its own in `corpus.yaml`:

    search_terms:
      - [稀疏注意力, sparse attention]
      - [昇腾算子, Ascend C operator]

The build folds every spelling as the index folds text (site/hanfold.py: NFKC, lower case,
Traditional to Simplified, Taiwanese terms to mainland ones) and writes the table into the
index's manifest (site/fulltext.py). The search worker (corpus-fulltext.js) looks the query up
in it: an English word or phrase of the table also searches its Chinese spellings, and a Chinese
run is also searched with every table term in it replaced by its English spellings (the rest of
the run then counts where present, but is not required). The same lookup serves the sites' own
entries (sources, pages) and the mirrors' full text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from . import fieldterms
from .hanfold import HAN, Fold

MAX_FORM = 60  # characters of one spelling: a term, not a sentence
_HAN = re.compile(f"[{HAN}]+")


def _read(text: str) -> tuple[tuple[str, ...], ...]:
    groups = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            groups.append(tuple(form.strip() for form in line.split("|") if form.strip()))
    return tuple(groups)


# The field's groups (site/fieldterms.py: GPU and Ascend hardware, compilers, parallel training,
# quantization, attention, MoE and serving, and the words of the field's documents).
TERMS: tuple[tuple[str, ...], ...] = _read(fieldterms.TABLE)


def table(extra: Iterable[Iterable[str]], fold: Fold) -> list[list[str]]:
    """The package's groups and the corpus's own (`search_terms`), every spelling folded as the index
    folds text, spaces normalised, each Chinese spelling's Taiwanese form added where folding does not
    reach it (taiwanese). Groups are not merged: a spelling in two groups (kernel: 算子, 内核) finds
    both groups' spellings, but 算子 does not find 内核 through it."""
    groups: list[list[str]] = []
    seen: set[tuple[str, ...]] = set()
    for group in [*TERMS, *(tuple(g) for g in extra)]:
        forms: list[str] = []
        for form in group:
            folded = " ".join(fold.text(str(form)).replace("-", " ").split())
            if folded and folded not in forms:
                forms.append(folded)
        if len(forms) >= 2 and tuple(forms) not in seen:
            seen.add(tuple(forms))
            groups.append(forms)
    listed = {form for group in groups for form in group if _HAN.fullmatch(form)}
    for forms, more in zip(groups, taiwanese(groups, fold, listed), strict=True):
        forms.extend(form for form in more if form not in forms)
    return groups


def taiwanese(groups: list[list[str]], fold: Fold, listed: set[str]) -> list[list[str]]:
    """Each group's Chinese spellings as Taiwan writes them (OpenCC s2twp: 缓存 → 快取, 比特 → 位元),
    folded, where that differs from the spelling folded: a Taiwanese text keeps such words (its
    characters are Simplified already, or the index's Taiwanese-term step does not know them). A form
    that another group lists as its own spelling is left out (进程 is 程序 in Taiwan, where the
    mainland's 程序 is a program)."""
    try:
        import opencc
    except ImportError:  # pragma: no cover - opencc is a dependency
        return [[] for _ in groups]
    convert = opencc.OpenCC("s2twp").convert  # a word at a time: OpenCC's phrases match across a joining newline
    out = []
    for group in groups:
        more = []
        for form in group:
            if _HAN.fullmatch(form):
                other = fold.text(convert(form))
                # Not a mainland word Taiwan writes otherwise (文档 is 文件 in Taiwan, the mainland's file, 檔案 there).
                mainland = convert(other).translate(fold.table) != other
                if other != form and _HAN.fullmatch(other) and other not in listed and not mainland and other not in more:
                    more.append(other)
        out.append(more)
    return out
