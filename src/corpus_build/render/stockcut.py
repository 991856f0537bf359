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
"""

from __future__ import annotations

import logging
from typing import Any

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
