"""The offline copy's pages from the site's Markdown: raw HTML links moved to `page.html` URLs.

The site's pages (source, tag, listing pages…) carry links MkDocs does not rewrite: raw HTML
(`places.site_rel`), written for one kind of URL. The offline copy is a second MkDocs build with
`page.html` URLs (site/offline.py); rendering its pages with links of that kind made docs/ differ
between the two builds, so each build laid out every such page twice and wrote it twice (a note
edit of the default corpus laid out 131 source pages and 70 tag pages).

So render writes those pages once, with the site's links, for both builds (render's `links_as`),
and the copy's build moves each raw HTML link here, before its Markdown step: the link is
resolved against the page's URL with directory URLs, and written again relative to its URL
as a file, exactly as `site_rel` writes it for that kind (an `index.md` page keeps its folder
URL, as `places.site_url` gives it). Only links that lead to a file of the build (a page or
any other file) are moved, and only in pages render names (its `relinked`); a link that leads
nowhere, a fragment or a query alone, and an absolute address are left as they are.

Only the attributes of real elements move: an `href="…"` inside a start tag of the page's raw
HTML. The same letters in a code span, a fenced or an indented code block (a note quoting
`<a href="../x/">`), or in running text, are text the reader sees, and stay as written.
"""

from __future__ import annotations

import bisect
import posixpath
import re
from collections.abc import Callable

from ..render.places import site_url, url_rel

# An attribute MkDocs would leave as written. Markdown's own link syntax has no `href="`: MkDocs resolves those.
_ATTRIBUTE = re.compile(r'(\s(?:href|src)=")([^"<>]*)(")')
_ADDRESS = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:|/")  # a scheme, or a path from the root
# What makes an attribute one: the start tag it sits in, from the last `<` before it (Markdown passes
# raw HTML through as written).
_TAG_BEFORE = re.compile(r"<[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?\Z")
# What the page shows as written (Python-Markdown's rules, in a note's blockquote too): code blocks and spans.
_QUOTE = r"(?:[ ]{0,3}>[ ]?)*"  # blockquote markers before a line's own text (a note is quoted)
_FENCE = re.compile(rf"^{_QUOTE}[ ]{{0,3}}(`{{3,}}(?=[^`\n]*$)|~{{3,}})", re.M)
_INDENTED_HINT = re.compile(r"\n[ >]*\n[ >]*(?:    |\t)")
# Lines indented by four after a blank line (inside a list too: a link there is never moved, rather than a text altered).
_INDENTED = re.compile(rf"\n{_QUOTE}[ \t]*\n(?:{_QUOTE}(?:[ ]{{4}}|[ ]{{0,3}}\t)[^\n]*(?:\n|\Z)|{_QUOTE}[ \t]*\n(?={_QUOTE}(?:[ ]{{4}}|[ ]{{0,3}}\t)))+")
_TICKS = re.compile(r"`+")
_BLANK_LINE = re.compile(r"\n[ >]*\n")  # a code span ends with its paragraph


def to_file_urls(markdown: str, src_uri: str, exists: Callable[[str], bool], moves: list[tuple[str, str]] | None = None) -> str:
    """`markdown` (the page at docs/`src_uri`, linked for directory URLs) with its raw HTML links for `page.html` URLs.

    `exists(path)` tells whether docs/`path` is a file of the build. `moves`, when given, gets each
    attribute value moved, as (before, after), in order."""
    if 'href="' not in markdown and 'src="' not in markdown:
        return markdown
    from_dir = _folder(site_url(src_uri, True))
    page_url = site_url(src_uri, False)
    code = _code(markdown)
    code_starts = [start for start, _ in code]

    def move(match: re.Match[str]) -> str:
        at = match.start()
        lt = markdown.rfind("<", 0, at)
        if lt == -1 or not _TAG_BEFORE.match(markdown, lt, at) or _within(code, code_starts, at):
            return match.group(0)  # text that reads like an attribute: running text, or code
        moved = _move(match.group(2), from_dir, page_url, exists)
        if moved is None:
            return match.group(0)
        if moves is not None and moved != match.group(2):
            moves.append((match.group(2), moved))
        return match.group(1) + moved + match.group(3)

    return _ATTRIBUTE.sub(move, markdown)


def _within(code: list[tuple[int, int]], starts: list[int], at: int) -> bool:
    i = bisect.bisect_right(starts, at) - 1
    return i >= 0 and at < code[i][1]


def _code(markdown: str) -> list[tuple[int, int]]:
    """Where `markdown` has code (fenced or indented blocks, spans), as sorted (start, end) offsets."""
    blocks: list[tuple[int, int]] = []
    if "```" in markdown or "~~~" in markdown:
        at = 0
        while (opened := _FENCE.search(markdown, at)) is not None:
            fence = opened.group(1)
            line_end = markdown.find("\n", opened.end())
            if line_end == -1:
                blocks.append((opened.start(), len(markdown)))
                break
            closing = re.compile(rf"^{_QUOTE}[ ]{{0,3}}{re.escape(fence)}{re.escape(fence[0])}*[ \t]*$", re.M).search(markdown, line_end + 1)
            end = len(markdown) if closing is None else closing.end()  # unclosed: code to the page's end
            blocks.append((opened.start(), end))
            at = end
    if _INDENTED_HINT.search(markdown):
        blocks += [m.span() for m in _INDENTED.finditer(markdown) if not _within(blocks, [s for s, _ in blocks], m.start())]
        blocks.sort()
    if "`" not in markdown:
        return blocks
    starts = [s for s, _ in blocks]
    runs = [m for m in _TICKS.finditer(markdown) if not blocks or not _within(blocks, starts, m.start())]
    spans: list[tuple[int, int]] = []
    i = 0
    while i < len(runs):
        opener = runs[i]
        if opener.start() and markdown[opener.start() - 1] == "\\":  # an escaped backtick is text
            i += 1
            continue
        width = opener.end() - opener.start()
        j = next((k for k in range(i + 1, len(runs)) if runs[k].end() - runs[k].start() == width), None)
        if j is None or _BLANK_LINE.search(markdown, opener.end(), runs[j].start()):
            i += 1  # no closing run in the paragraph: the backticks are text
            continue
        spans.append((opener.start(), runs[j].end()))
        i = j + 1
    return sorted(blocks + spans)


def _folder(url: str) -> str:
    return url.rstrip("/") if url.endswith("/") or not url else posixpath.dirname(url)


def _move(href: str, from_dir: str, page_url: str, exists: Callable[[str], bool]) -> str | None:
    cut = min((i for i in (href.find("?"), href.find("#")) if i != -1), default=len(href))
    path, rest = href[:cut], href[cut:]
    if not path or _ADDRESS.match(path):
        return None
    folder_url = path.endswith("/") or posixpath.basename(path) in (".", "..")
    target = posixpath.normpath(posixpath.join(from_dir or ".", path))
    if target.startswith("../") or target == "..":
        return None
    target = "" if target == "." else target
    if folder_url:  # a page: its file with directory URLs was <target>.md or <target>/index.md
        if target and exists(target + ".md"):
            target += ".html"
        elif exists(posixpath.join(target, "index.md")):
            target = target + "/" if target else ""
        else:
            return None
    elif not exists(target):
        return None
    return url_rel(page_url, target) + rest  # as places.site_rel writes it for page.html URLs
