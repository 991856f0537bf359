"""Python-Markdown's inline step, skipped for text no inline pattern can match.

Python-Markdown runs every inline pattern over every run of text, one regular expression
scan each (14 for extracted text): on prose without a single `*`, `` ` ``, `[` or `<`
that is most of converting it (2.5 of 5.4 s for the 35 MB of mirror text of the
1,000-source bench). Each of the library's own patterns needs one of a few characters to
match at all, so a run holding none of them leaves the step unchanged: the patterns are
tried only when one is present.

That holds only for patterns known here, by their very regular expression (`_required`):
`install` changes nothing on a converter with any other inline pattern (an extension's
own). A pattern acts only on a match (`InlineProcessor.__applyPattern` calls its
`handleMatch` for each one and for nothing else), so skipping runs none of them match
skips no state change either: the output is the same (tests/test_mdinline.py compares
both ways).
"""

from __future__ import annotations

import re
from typing import Any

_STEP = "inline"


def _required() -> dict[str, tuple[str, ...]]:
    """The library's inline patterns (their regular expressions) -> text one of which a match contains."""
    from markdown import inlinepatterns as ip

    return {
        ip.BACKTICK_RE: ("`", "\\"),  # a code span, or escaped backslashes before one
        ip.ESCAPE_RE: ("\\",),
        ip.LINK_RE: ("[",),  # links, references and (with `!`) images
        ip.IMAGE_LINK_RE: ("[",),
        ip.AUTOLINK_RE: ("<",),
        ip.AUTOMAIL_RE: ("<",),
        ip.HTML_RE: ("<",),
        ip.ENTITY_RE: ("&",),
        ip.LINE_BREAK_RE: ("  \n",),
    }


def _needs(pattern: Any, known: dict[str, tuple[str, ...]]) -> tuple[str, ...] | None:
    """What a match of `pattern` contains, or None for a pattern not known here.

    Known by its regular expression alone, whatever its class (pymdownx.inlinehilite's code
    spans use the library's BACKTICK_RE): the inline step calls a pattern for its matches only,
    found with that expression, unless the class finds them some other way.
    """
    from markdown import inlinepatterns as ip

    if type(pattern).getCompiledRegExp is not ip.Pattern.getCompiledRegExp:
        return None
    compiled = getattr(pattern, "compiled_re", None)
    if not isinstance(compiled, re.Pattern):
        return None
    if isinstance(pattern, ip.DelimiterProcessor):  # emphasis: its regular expression is its delimiters
        tokens = tuple(pattern.tokens)
        return tokens if tokens and compiled.pattern == "|".join(re.escape(t) for t in tokens) else None
    return known.get(compiled.pattern)


def trigger(md: Any) -> re.Pattern[str] | None:
    """A pattern found in every text some inline pattern of `md` can match; None when one is not known here."""
    known = _required()
    needed: set[str] = set()
    for pattern in md.inlinePatterns:
        found = _needs(pattern, known)
        if found is None:
            return None
        needed.update(found)
    return re.compile("|".join(re.escape(text) for text in sorted(needed, key=lambda t: (-len(t), t))))


def install(md: Any) -> bool:
    """Skip the inline step of `md` for text no pattern can match; False (nothing changed) when a pattern is not known."""
    from markdown.treeprocessors import InlineProcessor

    seen = trigger(md)
    if seen is None or _STEP not in md.treeprocessors or type(md.treeprocessors[_STEP]) is not InlineProcessor:
        return False
    found: re.Pattern[str] = seen
    priority = next(item.priority for item in md.treeprocessors._priority if item.name == _STEP)

    class Skipping(InlineProcessor):
        # The name InlineProcessor's own calls resolve to (its `__handleInline`, name-mangled).
        def _InlineProcessor__handleInline(self, data: str, patternIndex: int = 0) -> str:
            if found.search(data) is None:
                return data
            handle: Any = super()._InlineProcessor__handleInline
            return str(handle(data, patternIndex))

    md.treeprocessors.register(Skipping(md), _STEP, priority)
    return True
