"""Small Markdown-writing helpers shared by the page builders and the templates.

`text` is the one escape for registry and provenance text on a generated page:
every `{{ … }}` in a template goes through it (see render/views.py `environment`).
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

import yaml

# `{` and `}` too: with attr_list on, "{: onclick=… }" in a server's error text would
# otherwise become a real HTML attribute on the site.
_ESCAPE = re.compile(r"([\\`*_\[\]|{}])")
# CJK ideographs and CJK punctuation/full-width forms: a single space between two of
# them in a note is a line-join artefact of the user's editor, not a word break.
_CJK = "\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
_CJK_SPACE = re.compile(rf"(?<=[{_CJK}]) (?=[{_CJK}])")
# python-markdown's own code-span rule (a backslash-escaped backtick opens none): what it shows as
# prose must never be taken for code here, where code is left unescaped.
_CODE_SPAN = re.compile(r"(?<!\\)(`+)(.+?)(?<!`)\1(?!`)")


def text(value: object) -> str:
    """Plain text made safe inside Markdown (link labels, table cells, headings).

    `<`, `>` and `&` become entities (python-markdown does not honour `\\<`, so a
    backslash would leave `<svg onload=…>` a live tag); Markdown's own syntax
    characters are backslash-escaped.
    """
    value = str(value).replace("\n", " ").replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _ESCAPE.sub(r"\\\1", value)


def link(label: str, target: str) -> str:
    return f"[{text(label)}]({target})"


def url_link(label: str, url: str) -> str:
    # Angle brackets keep URLs with spaces or parentheses intact.
    return f"[{text(label)}](<{url}>)"


def front_matter(**meta: Any) -> str:
    """YAML front matter; `title` and `tags` are HTML-escaped: Material prints them unescaped (<title>, tag chips)."""
    data = {k: v for k, v in meta.items() if v not in (None, "", [], ())}
    if "title" in data:
        data["title"] = html.escape(str(data["title"]), quote=False)
    if "tags" in data:
        data["tags"] = [html.escape(str(tag), quote=False) for tag in data["tags"]]
    for key in ("description", "author"):  # Material puts these in a <meta content="…">: quotes too
        if key in data:
            data[key] = html.escape(str(data[key]), quote=True)
    if not data:
        return ""
    if all(isinstance(v, str) or (isinstance(v, list) and all(isinstance(i, str) for i in v)) for v in data.values()):
        # The common case, written directly: yaml.safe_dump costs ~0.6 ms a page.
        lines = []
        for key, value in data.items():
            if isinstance(value, str):
                lines.append(f"{key}: {_scalar(value)}")
            else:
                lines.append(f"{key}:")
                lines += [f"- {_scalar(item)}" for item in value]
        return "---\n" + "\n".join(lines) + "\n---\n\n"
    return "---\n" + yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=1000) + "---\n\n"


# A plain YAML scalar that reads back as the same string: starts with a letter, no YAML syntax, no special word.
_PLAIN = re.compile(r"[^\W\d_][\w .+/·()（）-]*", re.UNICODE)
_SPECIAL = {"y", "n", "yes", "no", "on", "off", "true", "false", "null"}


def _scalar(value: str) -> str:
    if _PLAIN.fullmatch(value) and value.lower() not in _SPECIAL and not value.endswith(" "):
        return value
    return json.dumps(value, ensure_ascii=False)  # JSON strings are YAML double-quoted scalars


def table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(cell.replace("\n", " ") for cell in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def badge(label: str, css: str) -> str:
    return f'<span class="cb-badge cb-{css}">{html.escape(label)}</span>'


# Only what python-markdown (superfences) itself takes for a fence opens and closes one here: a line
# that merely starts with ``` ("``` <img …>") is prose there, so it must be prose here too, or its
# HTML would pass as "code" and go live.
_FENCE_OPEN = re.compile(r"(`{3,}|~{3,})[ \t]*(\{[^}\n]*\}|\.?[\w#.+-]*)?[ \t]*$")
_FENCE_CLOSE = re.compile(r"(`{3,}|~{3,})[ \t]*$")


def outside_code(body: str, change) -> str:
    """Apply `change` to the prose of a Markdown text, leaving fenced blocks and code spans as written."""
    lines = body.split("\n")
    out, fence = [], ""

    def closes(line: str, opener: str) -> bool:
        closing = _FENCE_CLOSE.match(line.lstrip())
        return closing is not None and closing.group(1)[0] == opener[0] and len(closing.group(1)) >= len(opener)

    # The longest closing fence of each kind after each line, so an opener is checked in O(1).
    longest_after: list[dict[str, int]] = [{}] * (len(lines) + 1)
    for number in range(len(lines) - 1, -1, -1):
        closing = _FENCE_CLOSE.match(lines[number].lstrip())
        after = longest_after[number + 1]
        if closing:
            char, size = closing.group(1)[0], len(closing.group(1))
            after = {**after, char: max(after.get(char, 0), size)}
        longest_after[number] = after

    for number, line in enumerate(lines):
        stripped = line.lstrip()
        if fence:
            out.append(line)
            if closes(line, fence):
                fence = ""
            continue
        opening = _FENCE_OPEN.match(stripped)
        # A fence that is never closed is no fence for python-markdown: its lines are prose.
        if opening and longest_after[number + 1].get(opening.group(1)[0], 0) >= len(opening.group(1)):
            fence = opening.group(1)
            out.append(line)
            continue
        pieces = _CODE_SPAN.split(line)
        # split() yields [text, ticks, code, text, ticks, code, …]
        rebuilt = []
        for index in range(0, len(pieces), 3):
            rebuilt.append(change(pieces[index]))
            if index + 2 < len(pieces):
                rebuilt.append(pieces[index + 1] + pieces[index + 2] + pieces[index + 1])
        out.append("".join(rebuilt))
    return "\n".join(out)


# What a `<` may open besides a tag: an HTML comment (digest drafts mark editor blocks with them),
# an http(s) address in angle brackets: an autolink, or a link destination as watch writes them
# (`[#3070](<https://…>)`). Every other `<` is text (no scheme but http(s) becomes a link this way).
_NOT_A_TAG = re.compile(r"<(?!!--|https?://[^\s<>]*>)")


def _no_raw_html(prose: str) -> str:
    return _NOT_A_TAG.sub("&lt;", prose)


def user_markdown(body: str) -> str:
    """The user's Markdown (intro, summary, digest body) kept as written, except that raw HTML stays text."""
    return outside_code(body.strip(), _no_raw_html)


def note_text(body: str) -> str:
    """A note's Markdown for the page: raw HTML and attribute lists stay text; CJK line-join spaces go."""
    return outside_code(body.strip(), lambda prose: _CJK_SPACE.sub("", _no_raw_html(prose).replace("{", "\\{")))


def quote_block(body: str) -> str:
    """The annotation as a block quote: the user's Markdown, kept as written."""
    return "\n".join("> " + line if line.strip() else ">" for line in note_text(body).splitlines()) + "\n"


# --- Markdown back to the words a reader sees (excerpts) ---------------------------------
_BACKSLASHED = re.compile(r"\\([!-/:-@\[-`{-~])")  # CommonMark: any ASCII punctuation may be escaped
_KEPT = re.compile("\ue000(\\d+)\ue001")
_SYNTAX = (
    (re.compile(r"<!--.*?-->", re.S), " "),
    (re.compile(r"<(?:https?|ftp|mailto):[^>\s]*>"), " "),  # an autolink is an address, not words
    # Raw HTML tags go, their text stays: a block's tag parts words, an inline one (<b>now</b>.) does not.
    (re.compile(r"</?(?:address|article|aside|blockquote|br|dd|details|div|dl|dt|figcaption|figure|footer|h[1-6]|header|hr|li|main|nav|ol|p|pre|section|summary|table|tbody|td|tfoot|th|thead|tr|ul)\b[^<>]*>", re.I), " "),
    (re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>"), ""),
    (re.compile(r"!\[([^\]]*)\]\((?:[^()\s]|\([^)]*\))*(?:\s+\"[^\"]*\")?\)"), r"\1"),  # an image: its alt text
    (re.compile(r"\[([^\]]*)\]\((?:[^()\s]|\([^)]*\))*(?:\s+\"[^\"]*\")?\)"), r"\1"),  # a link: its text
    (re.compile(r"\[([^\]]+)\]\[[^\]]*\]"), r"\1"),  # a reference link
    (re.compile(r"(?m)^\s{0,3}\[[^\]]+\]:\s+\S+.*$"), " "),  # a link definition
    (re.compile(r"(?m)^\s*(?:`{3,}|~{3,}).*$"), " "),  # code fences (the code stays)
    (re.compile(r"(?m)^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$"), " "),  # a table's rule
    (re.compile(r"(?m)^\s*([-*_])(?:\s*\1){2,}\s*$"), " "),  # a thematic break
    (re.compile(r"(?m)^\s{0,3}(?:>\s?)+"), ""),  # quote markers
    (re.compile(r"(?m)^\s{0,3}#{1,6}\s+|\s+#+\s*$"), " "),  # heading markers
    (re.compile(r"(?m)^\s*(?:[-*+]|\d{1,9}[.)])\s+"), ""),  # list markers
    (re.compile(r"`+"), ""),  # code spans keep their text
    (re.compile(r"(?:\*{1,3}|~~)(?=\S)|(?<=\S)(?:\*{1,3}|~~)"), ""),  # `*` emphasis, intraword too (这是**加粗**文本)
    (re.compile(r"(?<!\w)_{1,3}(?=\S)|(?<=\S)_{1,3}(?!\w)"), ""),  # `_` emphasis at word edges only (snake_case stays)
    (re.compile(r"(?<=\S)\s*\|\s*(?=\S)|^\s*\||\|\s*$", re.M), " "),  # table cell borders
)


def plain_text(markdown: str) -> str:
    """Markdown as the words it shows, on one line: the syntax goes, every character written stays.

    Excerpts used to blank every `#*`>|[]()!_-`, which made `tile-ai` "tile ai" and showed
    `\\_\\_init\\_\\_.py`. Here escaped characters are set aside first, so only real syntax is
    removed; links and images give their text, raw HTML and bare addresses give nothing.
    """
    kept: list[str] = []

    def keep(match: re.Match) -> str:
        kept.append(match.group(1))
        return f"\ue000{len(kept) - 1}\ue001"

    text = _BACKSLASHED.sub(keep, str(markdown).replace("\ue000", "").replace("\ue001", ""))
    for pattern, replacement in _SYNTAX:
        text = pattern.sub(replacement, text)
    text = _KEPT.sub(lambda m: kept[int(m.group(1))], text)
    return " ".join(html.unescape(text).split())


# --- a mirror's extracted text as the site renders it ------------------------------------
# The one configuration of python-markdown for extracted text (render/mirrortext.py renders
# with it, `check` lists the anchors with it): the same headings get the same ids in both.
# superfences (pymdown-extensions, a dependency of Material) rather than fenced_code: the
# extracted text has code blocks inside list items and definitions, which fenced_code only
# finds at the start of a line. No Pygments: plain <pre><code>, fast on big pages.
SECTION_PREFIX = "sec-"
DISPLAY_LIMIT = 400_000  # characters of an extracted text shown on its page (and searched for anchors)


def section_id(heading: str, separator: str = "-") -> str:
    """A heading's anchor on a text page: `sec-` and its words, in any script (`#sec-安装步骤`).

    The prefix keeps a mirrored heading from taking an id the theme's own markup uses
    (a heading "__search" would otherwise be `id="__search"`, Material's search toggle),
    and keeps Chinese headings readable: python-markdown's default slug drops every
    non-ASCII letter, so each Chinese heading was `_1`, `_2`, … and a link to one broke
    whenever a heading was added above it.
    """
    from markdown.extensions.toc import slugify_unicode

    return SECTION_PREFIX + (slugify_unicode(heading, separator) or "section")


TEXT_EXTENSIONS = ["tables", "pymdownx.highlight", "pymdownx.superfences", "toc", "def_list"]
TEXT_EXTENSION_CONFIGS: dict[str, dict[str, Any]] = {"pymdownx.highlight": {"use_pygments": False}, "toc": {"slugify": section_id}}


def escape_markup(text: str) -> str:
    """`<` and `&` outside code become entities: markup written as text in a page stays visible text.

    (Left alone, python-markdown would take `<script>` in prose for raw HTML and nh3
    would then drop it, losing words the page really contained.)
    """
    return outside_code(text, lambda prose: prose.replace("&", "&amp;").replace("<", "&lt;"))


def text_sections(text: str) -> list[tuple[str, str]]:
    """(anchor, heading) of every heading of an extracted text, in order, as its text page has them."""
    import markdown

    converter = markdown.Markdown(extensions=TEXT_EXTENSIONS, extension_configs=TEXT_EXTENSION_CONFIGS, output_format="html")
    converter.convert(escape_markup(text))
    out: list[tuple[str, str]] = []

    def walk(tokens: list[dict[str, Any]]) -> None:
        for token in tokens:
            out.append((str(token["id"]), html.unescape(str(token["name"]))))
            walk(token.get("children", []))

    walk(getattr(converter, "toc_tokens", []))
    return out
