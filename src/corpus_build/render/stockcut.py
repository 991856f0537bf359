"""jieba's cuts with its stock dictionary only, without loading that dictionary a second time.

`search_vocabulary` (render/__init__.py) asks how jieba cuts the titles' Chinese
runs *before* it learns the corpus's words. A private `jieba.Tokenizer()` answers
that, but it loads jieba's dictionary again: 0.8 s of CPU and 75 MB at every build,
on top of the process-wide tokenizer (`jieba.dt`) that Material's search plugin
loads anyway. So the process-wide tokenizer answers as long as it is provably
stock: it was not loaded yet when we first asked, we loaded it with jieba's
default dictionary, and nothing was added to or removed from it since (its total
frequency, its number of entries and jieba's forced splits are as we left them;
`add_word` and `del_word` change one of them). Otherwise (`mkdocs serve`'s next
build, once the plugin taught it the corpus's words; another plugin that loaded
it first) a private tokenizer is loaded, once per process. Either way the cut is
the stock one; a text's cut is kept, since it never changes.

`cut_all` also keeps the cuts in a file between builds (beside the search
dictionary, under .corpus-build/), stamped with jieba's version and dictionary:
a rebuild whose titles were all cut before loads no dictionary at all, and with
every page's search entries in the build cache, jieba is never loaded.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..core import jsondata
from ..core.provenance import write_atomic

_cuts: dict[str, list[str]] = {}
_shared: tuple[Any, ...] | None = None  # (jieba.dt, its state) when this module loaded it
_private: Any = None  # a tokenizer of its own, once the shared one is no longer stock


def _state(jieba: Any, tokenizer: Any) -> tuple[Any, ...]:
    forced = getattr(jieba.finalseg, "Force_Split_Words", ())
    return (tokenizer, tokenizer.dictionary, tokenizer.total, len(tokenizer.FREQ), len(forced))


def tokenizer() -> Any:
    """A jieba tokenizer holding exactly jieba's stock dictionary (ImportError without jieba)."""
    global _shared, _private
    import jieba

    if _private is not None:
        return _private
    jieba.setLogLevel(logging.WARNING)  # its dictionary-loading chatter
    shared = jieba.dt
    if _shared is None and not shared.initialized and shared.dictionary == jieba.DEFAULT_DICT:
        shared.initialize()  # what search does at its first page: loaded once, used twice
        _shared = _state(jieba, shared)
    if _shared is not None and _shared == _state(jieba, shared):
        return shared
    _private = jieba.Tokenizer()
    return _private


def cut(text: str) -> list[str]:
    """`text` as jieba cuts it with its stock dictionary (HMM on, as `lcut` does by default)."""
    found = _cuts.get(text)
    if found is None:
        found = _cuts[text] = tokenizer().lcut(text)
    return list(found)


def cut_all(texts: Iterable[str], memo: Path | None = None) -> dict[str, list[str]]:
    """Each text's stock cut; `memo`, a JSON file, keeps them for the next build (only these texts)."""
    wanted = dict.fromkeys(texts)
    saved = _read_memo(memo) if memo is not None else {}
    for text in wanted:
        if text not in _cuts and text in saved:
            _cuts[text] = saved[text]
    found = {text: cut(text) for text in wanted}
    if memo is not None and found != saved:
        _write_memo(memo, found)
    return found


def _stamp() -> dict[str, Any]:
    import jieba

    dictionary = os.path.join(os.path.dirname(jieba.__file__), jieba.DEFAULT_DICT_NAME)
    return {"jieba": jieba.__version__, "dictionary": os.path.getsize(dictionary) if os.path.isfile(dictionary) else None}


def _read_memo(path: Path) -> dict[str, list[str]]:
    """The saved cuts, or {} when the file is missing, unreadable, or from another jieba."""
    try:
        data = jsondata.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("stamp") != _stamp() or not isinstance(data.get("cuts"), dict):
        return {}
    cuts = data["cuts"]
    valid = all(isinstance(v, list) and all(isinstance(p, str) for p in v) and "".join(v) == k for k, v in cuts.items())
    return cuts if valid else {}


def _write_memo(path: Path, cuts: dict[str, list[str]]) -> None:
    with contextlib.suppress(OSError):  # a read-only project: the next build cuts again
        write_atomic(path, json.dumps({"stamp": _stamp(), "cuts": cuts}, ensure_ascii=False))
