"""Mirror text as finished blocks: cleaned once per content, never read by MkDocs' Markdown step.

A mirror's text page (render/mirror.py, paper.py, thread.py) is a small Markdown frame (title,
links, notes) around one or more blocks of HTML that render already made from the mirror:
python-markdown and nh3 for extracted text, escaped blocks for a paper, the conversation of
a thread. Left in the page, MkDocs would read each block twice more as raw HTML (its anchor
scan and md_in_html, both `html.parser`): a third of a build at 1,000 mirrored sources, to
hand the block on unchanged.

So render marks each block (mirrortext.OPAQUE_BEGIN … OPAQUE_END, comments that any engine
without this plugin passes through), and the plugin:

- on_page_markdown: takes every marked block out of the page's Markdown, leaving a
  placeholder comment that names the block by its content's hash. The block goes through
  the allow-list (`sanitize.clean_page`, the very pass every generated page's body goes
  through in on_page_content) once per content: the build cache keeps the result, so a
  rebuild cleans only new blocks. Until its page is written the cleaned block waits in a
  spool file, not in memory (20,000 mirrors' text would not fit beside MkDocs' pages).
- on_page_content: adds the block's `id`s to the page's anchors, as MkDocs' own scan of raw
  HTML would have (links to `#page-12` are validated as before).
- on_post_page: puts each cleaned block where its placeholder is, after the template.

Only a page kept out of Material's search index (`search: exclude`) is treated so, since the
search index is made from the page's content before the template: every mirror text page is.
A placeholder is replaced only by a block taken from that same page, so page text that looks
like one can bring in nothing.
"""

from __future__ import annotations

import hashlib
import html
import re
import tempfile
from collections.abc import Callable
from typing import Any

from ..render.mirrortext import OPAQUE_BEGIN, OPAQUE_END

__all__ = ["OPAQUE_BEGIN", "Blocks", "anchor_ids", "held", "placeholder"]

_START_TAG = re.compile(r"<([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[^\s\"'<>/=]+(?:=\"[^\"]*\")?)*)\s*/?>")
_ATTRIBUTE = re.compile(r"\s([^\s\"'<>/=]+)(?:=\"([^\"]*)\")?")
_COMMENT = re.compile(r"<!--.*?-->", re.S)


def placeholder(key: str) -> str:
    return f"<!--cb-block:{key}-->"


def anchor_ids(cleaned: str) -> list[str]:
    """The `id`s (and `<a name>`s) of HTML as nh3 writes it, as MkDocs' anchor scan would find them.

    nh3 (html5ever) writes every attribute value in double quotes with `"` as `&quot;` and
    text's `<` as `&lt;`: outside comments, every `<name …>` is a start tag and its attributes
    read exactly so.
    """
    found: list[str] = []
    for match in _START_TAG.finditer(_COMMENT.sub("", cleaned)):
        tag = match.group(1).lower()
        for name, value in _ATTRIBUTE.findall(match.group(2)):
            if name == "id" or (name == "name" and tag == "a"):
                found.append(html.unescape(value))
    return found


def held(markdown: str) -> tuple[str, list[tuple[str, str, str]]]:
    """`markdown` with each marked block replaced by its placeholder, and the blocks as (key, block, sha256), in order
    (what `Blocks.take` does, keeping nothing: site/twinrender.py compares a page's two builds by it)."""
    found: list[tuple[str, str, str]] = []
    out: list[str] = []
    at = 0
    while True:
        begin = markdown.find(OPAQUE_BEGIN, at)
        if begin == -1 or (begin and markdown[begin - 1] != "\n"):
            break
        end = markdown.find(OPAQUE_END, begin)
        if end == -1:
            break
        block = markdown[begin + len(OPAQUE_BEGIN):end].strip("\n")
        sha256 = hashlib.sha256(block.encode("utf-8", "surrogatepass")).hexdigest()
        found.append((sha256[:40], block, sha256))
        out += [markdown[at:begin], placeholder(sha256[:40])]
        at = end + len(OPAQUE_END)
    if not found:
        return markdown, found
    out.append(markdown[at:])
    return "".join(out), found


class Blocks:
    """One build's finished blocks (see the module docstring), and the pages they belong to."""

    def __init__(self, clean: Callable[[str], str], cache: Any = None):
        self._clean = clean
        self.cache = cache  # buildcache.BuildCache while its build runs (None: every block cleaned)
        self._spool = tempfile.TemporaryFile(prefix="corpus-blocks-")  # noqa: SIM115  (lives as long as the build; close())
        self._where: dict[str, tuple[int, int, tuple[str, ...]]] = {}  # key -> (offset, length, anchor ids)
        self._pages: dict[str, list[str]] = {}  # a page's src_uri -> its blocks' keys, in order
        self.taken = self.cleaned = 0

    def close(self) -> None:
        self._spool.close()
        self._where.clear()
        self._pages.clear()

    def take(self, markdown: str, page_uri: str) -> str:
        """`markdown` with each marked block replaced by its placeholder; the blocks kept for the page."""
        taken, found = held(markdown)
        for key, block, sha256 in found:
            if key not in self._where:
                self._keep(key, block, sha256)
        if not found:
            return markdown
        self._pages[page_uri] = [key for key, _block, _sha in found]
        self.taken += len(found)
        return taken

    def keys(self, page_uri: str) -> list[str]:
        """The keys of the blocks taken out of this page, in order."""
        return list(self._pages.get(page_uri, ()))

    def _keep(self, key: str, block: str, sha256: str) -> None:
        cleaned, ids = self._cleaned(block, sha256)
        data = cleaned.encode("utf-8", "surrogatepass")
        self._spool.seek(0, 2)
        self._where[key] = (self._spool.tell(), len(data), tuple(ids))
        self._spool.write(data)

    def _cleaned(self, block: str, sha256: str) -> tuple[str, list[str]]:
        """`block` cleaned, and its anchor ids; `sha256`: the block's (its name in the build cache)."""
        if self.cache is not None and self.cache.enabled:
            stored = self.cache.block(sha256, self._clean)
            if stored is not None:
                return stored
        self.cleaned += 1
        cleaned = self._clean(block)
        ids = anchor_ids(cleaned)
        if self.cache is not None and self.cache.enabled:
            self.cache.keep_block(sha256, self._clean, cleaned, ids)
        return cleaned, ids

    def holds(self, page_uri: str) -> bool:
        """Whether blocks were taken out of this page."""
        return page_uri in self._pages

    def anchors(self, page_uri: str) -> set[str]:
        return {i for key in self._pages.get(page_uri, ()) for i in self._where[key][2]}

    def put_back(self, output: str, page_uri: str) -> str:
        """The page's output with its blocks where their placeholders are."""
        for key in self._pages.get(page_uri, ()):
            mark = placeholder(key)
            at = output.find(mark)
            if at == -1:
                raise RuntimeError(f"{page_uri}: the place of a mirror text block is gone from the page (a plugin removed the comment {mark})")
            offset, length, _ids = self._where[key]
            self._spool.seek(offset)
            output = output[:at] + self._spool.read(length).decode("utf-8", "surrogatepass") + output[at + len(mark):]
        return output
