"""Small Markdown-writing helpers shared by the page builders."""

from __future__ import annotations

import html
import re

import yaml

# `{` and `}` too: with attr_list on, "{: onclick=… }" in a server's error text would
# otherwise become a real HTML attribute on the site.
_ESCAPE = re.compile(r"([\\`*_\[\]<>|{}])")


def text(value: str) -> str:
    """Plain text made safe inside Markdown (link labels, table cells, headings)."""
    return _ESCAPE.sub(r"\\\1", value.replace("\n", " "))


def link(label: str, target: str) -> str:
    return f"[{text(label)}]({target})"


def url_link(label: str, url: str) -> str:
    # Angle brackets keep URLs with spaces or parentheses intact.
    return f"[{text(label)}](<{url}>)"


def front_matter(**meta: object) -> str:
    data = {k: v for k, v in meta.items() if v not in (None, "", [], ())}
    if not data:
        return ""
    return "---\n" + yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=1000) + "---\n\n"


def table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(cell.replace("\n", " ") for cell in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def badge(label: str, css: str) -> str:
    return f'<span class="cb-badge cb-{css}">{html.escape(label)}</span>'


def quote_block(body: str) -> str:
    """The annotation as a block quote: the user's Markdown, kept as written."""
    return "\n".join("> " + line if line.strip() else ">" for line in body.strip().splitlines()) + "\n"
