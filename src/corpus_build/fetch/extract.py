"""Main text of an HTML page as Markdown that keeps the page's structure.

Why not trafilatura's Markdown: measured on real manuals (scripts/bench_extract.py) it
drops about one snippet in ten (a man page's NAME line, paragraphs deep in long
tutorials, `<pre>` lines, table cells, contents entries), turns `<pre>` synopses into
escaped prose, and resolves relative links against the host root (courlan#45).

So: find the main region the page marks itself (`[role=main]`, `<main>`, Sphinx's
`div.body`, `articleBody`, a single `<article>`; else `<body>`), then walk it with
lxml and write every block it holds, leaving out what is chrome (fetch/chrome.py: nav,
navigation sidebars, banners, headers and footers, cookie notices, script text,
permalink markers; in a page that marks no region, the link bars at its edges), and what
stands beside the text and does not read like it (fetch/boilerplate.py); on a page that declares
itself an article, also what lies before and after the run of its prose (fetch/article.py). The
walk never changes the tree, so trafilatura's metadata reader can run on the same
parse afterwards. lxml rather than BeautifulSoup: the tree is already parsed by lxml,
and a second parse would cost more than the whole walk.

Tables used for layout (chrome.lays_out) are unwrapped into their cells' blocks; data
tables become pipe tables. Links inside code stay links around code spans; a `<pre>`
stays verbatim and the targets of its links follow it.

Links are resolved against the page's cited URL, `cite(page_url)` (and `<base href>`):
the public address a reader of the page follows them from, not the fetched copy's;
an absolute link is mapped back into the cited space by `cite`. In-page anchors keep
their page.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urldefrag, urljoin, urlsplit

from .article import declares_article, outside_article, picture_lines
from .boilerplate import boilerplate
from .chrome import box_is_text, edge_navigation, is_chrome, lays_out, link_len, measured, mostly_links, relation_bars, table_rows, text_len
from .density import HAN as _HAN
from .density import Blocks

_BLOCK = {
    "address", "article", "aside", "blockquote", "body", "center", "dd", "details", "dialog", "div", "dl", "dt",
    "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup",
    "hr", "html", "li", "main", "menu", "nav", "ol", "p", "pre", "section", "summary", "table", "ul", "listing", "xmp",
}
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
# Never text of the page: code, embedded objects, form controls.
_SKIP_TAGS = {
    "script", "style", "noscript", "template", "iframe", "object", "embed", "svg", "canvas", "video", "audio",
    "button", "input", "select", "textarea", "option", "link", "meta", "head", "title", "nav", "map", "area", "source",
}
_SKIP_ROLES = {"navigation", "banner", "contentinfo", "search", "menu", "menubar", "toolbar", "dialog", "alert"}
# Permalink markers: symbols, never words ("link" in prose is a link's text).
_PERMALINK_TEXT = {"¶", "#", "§", "🔗", ""}
_LANG_CLASS = re.compile(r"(?:^|\s)(?:language|lang|highlight|sourceCode|brush:)[-_ ]?([A-Za-z0-9_+#.-]+)")
_NO_LANG = {"default", "none", "text", "plain", "plaintext", "nohighlight", "notranslate", "source", "highlight"}
_SPACE = re.compile(r"[ \t\n\r\f\v]+")
_BR = "\x00br\x00"
_LINE_START = re.compile(r"^(\s*)(#{1,6}(?=\s|$)|[-+*](?=\s)|\d+(?=[.)]\s)|>|=+\s*$|-+\s*$)")
_WORD_UNDERSCORE = re.compile(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
_JS_WORDS = re.compile(r"javascript|enable\s+js|启用|開啟|开启|打开|浏览器", re.IGNORECASE)
_GUTTER = {"linenos", "lineno", "gutter", "line-numbers", "linenodiv"}
_CJK_BREAK = re.compile(r"(?<=[\u3000-\u303f\u3400-\u9fff\uff00-\uffef])[ \t]*\n\s*(?=[\u3000-\u303f\u3400-\u9fff\uff00-\uffef])")
_FETCHES = re.compile(r"\bfetch\(|XMLHttpRequest|\baxios\b|\$\.(?:ajax|get|getJSON)\(|\binnerHTML\s*=")
_APP_IDS = {"app", "root", "__next", "__nuxt", "___gatsby", "q-app", "main-app", "application", "react-root", "vue-app"}


@dataclass
class Extraction:
    markdown: str
    region: str  # which element held the main text ("role=main", "main", "sphinx-body", …, "body")
    images: list[dict] = field(default_factory=list)  # {"url": fetch-space URL, "cited": cite-space URL, "alt": …}


def _has_class(el, name: str) -> bool:
    return name in (el.get("class") or "").split()


def find_region(root) -> tuple[Any, str]:
    """(element, label): the main region the page marks, or <body>."""
    body = root.find(".//body")
    if body is None:
        body = root
    finders: list[tuple[str, Callable[[], list]]] = [
        ("role=main", lambda: [e for e in body.iter() if isinstance(e.tag, str) and e.get("role") == "main"]),
        ("main", lambda: list(body.iter("main"))),
        ("sphinx-body", lambda: [e for e in body.iter("div") if _has_class(e, "body") or _has_class(e, "rst-content")]),
        ("articleBody", lambda: [e for e in body.iter() if isinstance(e.tag, str) and e.get("itemprop") == "articleBody"]),
        ("article", lambda: list(body.iter("article"))),
    ]
    total = None
    for label, find in finders:
        found = find()
        if not found:
            continue
        if label == "article" and len(found) > 1:
            break  # a list of articles: the page itself is the unit
        if total is None:
            total = prose_len(body)
        # Of several (two role=main sections, a feed of related stories beside the story), the one
        # with the most prose, text outside links: a feed is its headlines, all links.
        best = max(found, key=prose_len)
        # A marked region holding little of the page's prose (a hero banner in <main>, an empty
        # role=main shell) is not where the content lives.
        if prose_len(best) >= 0.4 * total:
            return _narrowed(best, label)
    return body, "body"


def prose_len(el) -> int:
    """Characters of the element's text outside links."""
    return text_len(el) - link_len(el)


def _narrowed(region, label: str) -> tuple[Any, str]:
    """A <main> that wraps one <article> (plus a table of contents, prev/next links…): the article."""
    if label == "article":
        return region, label
    articles = list(region.iter("article"))
    if len(articles) == 1 and text_len(articles[0]) >= 0.6 * text_len(region):
        article = articles[0]
        # Not when the page's title sits outside the article (<main><h1>…</h1><article>).
        if all(any(a is article for a in h.iterancestors()) for h in region.iter("h1")):
            return article, f"{label} > article"
    return region, label


class _Converter:
    def __init__(self, page_url: str, base_url: str, cite: Callable[[str], str], whole_page: bool):
        self.page_url = page_url
        self.base_url = base_url
        self.cite = cite
        # Relative links are resolved against the page's public address: in the fetched copy's
        # space `/pkg/sync/` or a `../` past a rewrite's prefix would name the mirror's host.
        self.cited_page = cite(page_url)
        self.cited_base = cite(base_url)
        self.whole_page = whole_page
        self.images: list[dict] = []
        # Characters of prose in the page; an element holding most of them is never chrome by a class or id word.
        self.page_text = 0
        self._holds_most: dict = {}
        self._skipped: dict = {}
        self._resolved: dict[str, str] = {}
        # Blocks found to be navigation before the walk: relation bars (any page), and the bars
        # edge_navigation finds at the edges of a page without a main region.
        self.navigation: set = set()

    # --- decisions ----------------------------------------------------------------------

    def skip(self, el) -> bool:
        """Whether the walk leaves the element out: chrome (asked once per element), or navigation found before the walk."""
        if self.navigation and el in self.navigation:
            return True
        found = self._skipped.get(el)
        if found is None:
            found = self._skipped[el] = self.chrome(el)
        return found

    def chrome(self, el) -> bool:
        tag = el.tag
        if not isinstance(tag, str):
            return True  # comments, processing instructions
        tag = tag.lower()
        if tag in _SKIP_TAGS:
            # (a <nav> left open by broken markup wraps the whole page, its text in a submenu: a tag
            # is a class word in the markup, and demotes, never vetoes, what holds most of the text)
            return tag != "nav" or not self.holds_most(el)
        if el.get("hidden") is not None or (el.get("aria-hidden") == "true" and tag != "img"):
            return True
        style = (el.get("style") or "").replace(" ", "").lower()
        if "display:none" in style or "visibility:hidden" in style:
            return True
        if (el.get("role") or "").lower() in _SKIP_ROLES:
            return True
        # (a tag is a class word in the markup: a <header> a theme wraps the whole page in holds the text)
        if (tag == "footer" or (tag == "header" and self.whole_page)) and not self.holds_most(el):
            return True
        if tag == "aside" and "footnote" not in (el.get("class") or "") and not box_is_text(el):
            return True
        if tag == "a" and (el.get("href") or "").startswith("#") and (el.text_content() or "").strip() in _PERMALINK_TEXT and len(el) == 0:
            return True
        return is_chrome(el) and not self.holds_most(el)

    def holds_most(self, el) -> bool:
        """Whether the element holds most of the page's prose (its text outside links): a class or id
        word (`content-with-sidebar-wrp`, `article-body pagination-first`, `js_img_share_area`) may
        demote it, never veto it."""
        if el not in self._holds_most:
            prose = prose_len(el)
            # (mostly links, it holds most of the prose only as a wrapper of the whole page holds it,
            # menus and all: that wrapper, holding nearly all of it, is the page, whatever its name)
            self._holds_most[el] = bool(self.page_text) and 2 * prose >= self.page_text and (10 * prose >= 9 * self.page_text or not mostly_links(el))
        return self._holds_most[el]

    def leaves_page(self, href: str) -> bool:
        """Whether a link goes to another page (not an anchor in this one)."""
        url = self.resolve(href)
        return bool(url) and urldefrag(url)[0] != urldefrag(self.cited_page)[0]

    def is_self(self, href: str) -> bool:
        """Whether a link leads to this very page, not to an anchor in it (a language bar's current language)."""
        url = self.resolve(href)
        return bool(url) and "#" not in href and urldefrag(url)[0] == urldefrag(self.cited_page)[0]

    def leaves_site(self, href: str) -> bool:
        """Whether a link goes to another host than the page's."""
        url = self.resolve(href)
        return urlsplit(url).scheme in ("http", "https") and urlsplit(url).netloc != urlsplit(self.cited_page).netloc

    def resolve(self, href: str) -> str:
        """The link's address in the cited space (asked once per distinct href: pages repeat their links)."""
        found = self._resolved.get(href)
        if found is None:
            found = self._resolved[href] = self._resolve(href)
        return found

    def _resolve(self, href: str) -> str:
        href = href.strip().replace("\n", "").replace("\r", "").replace("\t", "")
        if not href:
            return ""
        scheme = urlsplit(href).scheme.lower() if ":" in href.split("/")[0] else ""
        if scheme in ("javascript", "vbscript", "data", "file"):
            return ""
        if scheme in ("mailto", "tel"):
            return href
        if scheme or href.startswith("//"):  # absolute: it may name the fetched copy's own space
            return self.cite(urljoin(self.base_url, href))
        # In-page anchors stay on this page even under a <base href> elsewhere.
        return urljoin(self.cited_page if href.startswith("#") else self.cited_base, href)

    # --- blocks -------------------------------------------------------------------------

    def flow(self, el) -> list[str]:
        """Blocks of a container: runs of inline content become paragraphs."""
        blocks: list[str] = []
        buf: list[str] = []

        def flush() -> None:
            if buf:
                para = _paragraph(_join(buf))
                if para:
                    blocks.append(para)
                buf.clear()

        if el.text:
            buf.append(_escape(el.text))
        for child in el:
            if not self.skip(child):
                tag = child.tag.lower()
                if tag in _BLOCK:
                    flush()
                    blocks.extend(self.block(child, tag))
                else:
                    buf.append(self.inline(child))
            if child.tail:
                buf.append(_escape(child.tail))
        flush()
        return blocks

    def block(self, el, tag: str) -> list[str]:
        if tag in _HEADINGS:
            text = _collapse(self.inline_children(el))
            return [f"{'#' * _HEADINGS[tag]} {text}"] if text else []
        if tag == "p":
            para = _paragraph(self.inline_children(el))
            return [para] if para else []
        if tag in ("pre", "listing", "xmp"):
            if not (el.text_content() or "").strip():
                return []
            targets = self.pre_links(el) if el.find(".//a[@href]") is not None else ""
            return [self.pre(el), targets] if targets else [self.pre(el)]
        if tag in ("ul", "ol", "menu"):
            return [self.list_block(el, tag == "ol")] if len(el) else self.flow(el)
        if tag == "dl":
            return self.deflist(el)
        if tag == "table":
            return self.table(el)
        if tag == "blockquote":
            inner = "\n\n".join(self.flow(el))
            return ["\n".join(("> " + line).rstrip() for line in inner.split("\n"))] if inner else []
        if tag == "hr":
            return ["---"]
        if tag == "dt":  # outside a <dl> (broken markup): a bold line
            text = _collapse(self.inline_children(el))
            return [f"**{text}**"] if text else []
        return self.flow(el)

    def pre(self, el) -> str:
        text = el.text_content().replace("\r\n", "\n").replace("\t", "    ")
        # The text of <br> inside <pre> (some highlighters emit it) is a newline.
        if el.find(".//br") is not None:
            text = _pre_text(el)
        text = text.strip("\n").rstrip()
        ticks = max([len(m) for m in re.findall(r"`{3,}", text)] + [2]) + 1
        return f"{'`' * ticks}{_language(el)}\n{text}\n{'`' * ticks}"

    def list_block(self, el, ordered: bool) -> str:
        start = el.get("start") or "1"
        number = int(start) if start.lstrip("-").isdigit() else 1
        items, loose = [], False
        children = [c for c in el if not self.skip(c)]
        for child in children:
            if child.tag.lower() != "li":
                blocks = self.block(child, child.tag.lower()) if child.tag.lower() in _BLOCK else [_paragraph(self.inline(child))]
            else:
                blocks = self.flow(child)
            blocks = [b for b in blocks if b]
            if not blocks:
                continue
            marker = f"{number}. " if ordered else "- "
            number += 1
            loose = loose or sum(1 for b in blocks if not _is_list(b)) > 1
            body = blocks[0]
            for block in blocks[1:]:
                body += ("\n" if _is_list(block) else "\n\n") + block
            lines = body.split("\n")
            items.append("\n".join([marker + lines[0]] + [("    " + line) if line else "" for line in lines[1:]]))
        return ("\n\n" if loose else "\n").join(items)

    def deflist(self, el) -> list[str]:
        """python-markdown's def_list syntax: `term` lines, then `:   definition` (indented 4)."""
        out: list[str] = []
        terms: list[str] = []
        entries: list = []
        for child in el:  # HTML5 allows <div> wrappers around dt/dd groups
            if isinstance(child.tag, str) and child.tag.lower() == "div" and not self.skip(child):
                entries.extend(child)
            else:
                entries.append(child)
        for child in entries:
            if self.skip(child):
                continue
            tag = child.tag.lower()
            if tag == "dt":
                text = _collapse(self.inline_children(child)).replace("\n", " ")
                if text:
                    terms.append(_escape_line_start(text))
            elif tag == "dd":
                body = "\n\n".join(self.flow(child)) or " "
                lines = body.split("\n")
                definition = "\n".join([":   " + lines[0]] + [("    " + line) if line else "" for line in lines[1:]])
                if terms:
                    out.append("\n".join(terms) + "\n\n" + definition)
                    terms = []
                elif out:
                    out[-1] += "\n\n" + definition
                else:
                    out.extend(self.flow(child))
            else:
                out.extend(self.block(child, tag) if tag in _BLOCK else [p for p in [_paragraph(self.inline(child))] if p])
        out.extend(terms)
        return out

    def table(self, el) -> list[str]:
        if lays_out(el):
            return self.unwrap(el)
        rows: list[list[str]] = []
        header = False
        caption = ""
        for part in el:
            if self.skip(part):
                continue
            tag = part.tag.lower()
            if tag == "caption":
                caption = _collapse(self.inline_children(part))
            elif tag in ("thead", "tbody", "tfoot"):
                for tr in part:
                    if isinstance(tr.tag, str) and tr.tag.lower() == "tr" and not self.skip(tr):
                        rows.append(self.row(tr))
                        header = header or (tag == "thead" and len(rows) == 1)
            elif tag == "tr":
                rows.append(self.row(part))
                if len(rows) == 1 and all(isinstance(c.tag, str) and c.tag.lower() == "th" for c in part):
                    header = True
        rows = [r for r in rows if any(c.strip() for c in r)]
        out = [caption] if caption else []
        if not rows:
            return out
        width = max(len(r) for r in rows)
        rows = [r + [""] * (width - len(r)) for r in rows]
        head = rows[0] if header else [""] * width
        body = rows[1:] if header else rows
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * width]
        lines += ["| " + " | ".join(r) + " |" for r in body]
        out.append("\n".join(lines))
        return out

    def unwrap(self, el) -> list[str]:
        """A layout table (chrome.lays_out: columns of blocks, a line-numbered listing, code beside
        notes): its cells' blocks in reading order, so nested tables stay tables and code stays
        verbatim; line-number gutters are left out."""
        out: list[str] = []
        caption = el.find("caption")
        if caption is not None and not self.skip(caption):
            out.extend(p for p in [_paragraph(self.inline_children(caption))] if p)
        for row in table_rows(el):
            for cell in row:
                if self.skip(cell) or _GUTTER & set((cell.get("class") or "").lower().split()):
                    continue
                out.extend(self.flow(cell))
        return out

    def row(self, tr) -> list[str]:
        cells = []
        for cell in tr:
            if not isinstance(cell.tag, str) or cell.tag.lower() not in ("td", "th"):
                continue
            # One line per cell: blocks inside (lists, paragraphs) are joined by spaces.
            text = _collapse(self.inline_children(cell)).replace("|", "\\|")
            cells.append(text)
            span = cell.get("colspan") or "1"
            if span.isdigit() and 1 < int(span) < 50:
                cells.extend([""] * (int(span) - 1))
        return cells

    # --- inline -------------------------------------------------------------------------

    def inline_children(self, el) -> str:
        parts = [_escape(el.text)] if el.text else []
        for child in el:
            if not self.skip(child):
                parts.append(self.inline(child))
            if child.tail:
                parts.append(_escape(child.tail))
        return _join(parts)

    def inline(self, el) -> str:
        tag = el.tag.lower()
        if tag == "br":
            return _BR
        if tag == "img":
            return self.image(el)
        if tag in ("code", "kbd", "samp", "tt", "var") and len(el.findall(".//pre")) == 0:
            if el.find(".//a[@href]") is not None:
                return self.linked_code(el)
            return _code_span(el.text_content() or "")
        if tag in ("pre", "listing", "xmp"):
            return _code_span(el.text_content() or "")
        inner = self.inline_children(el)
        if tag == "a":
            href = self.resolve(el.get("href") or "")
            label = _collapse(inner)
            if not label:
                return ""
            if not href:
                return label
            return f"[{label}]({_md_url(href)})"
        if tag in ("strong", "b"):
            core = inner.strip()
            return f" **{core}** " if core and inner != core else (f"**{core}**" if core else inner)
        if tag in ("em", "i", "cite", "dfn"):
            core = inner.strip()
            return f" *{core}* " if core and inner != core else (f"*{core}*" if core else inner)
        if tag in _BLOCK:  # a block inside inline content (a <div> in a link): keep its words
            return " " + inner + " "
        return inner

    def code_pieces(self, el) -> list[tuple[str, str]]:
        """(text, link target or "") runs of a code element's text, in order."""
        pieces: list[tuple[str, str]] = []

        def walk(node, href: str) -> None:
            if node.text:
                pieces.append((node.text, href))
            for child in node:
                if isinstance(child.tag, str) and child.tag.lower() not in _SKIP_TAGS:
                    inner = href
                    if child.tag.lower() == "a" and child.get("href") is not None and not href:
                        inner = self.resolve(child.get("href"))
                    walk(child, inner)
                if child.tail:
                    pieces.append((child.tail, href))

        walk(el, "")
        merged: list[tuple[str, str]] = []
        for text, href in pieces:
            if merged and merged[-1][1] == href:
                merged[-1] = (merged[-1][0] + text, href)
            else:
                merged.append((text, href))
        return merged

    def linked_code(self, el) -> str:
        """Code holding links: code spans, the linked words as links around their own spans
        (Markdown has no link inside a code span). Spaces go between the spans, where
        renderers that trim a span's edges keep them."""
        out = []
        for text, href in self.code_pieces(el):
            text = _SPACE.sub(" ", text)
            core = text.strip()
            lead, trail = (" " if text[:1] == " " else ""), (" " if text[-1:] == " " else "")
            if not core:
                out.append(lead or trail)
                continue
            span = _code_span(core)
            out.append(lead + (f"[{span}]({_md_url(href)})" if href else span) + trail)
        return "".join(out)

    def pre_links(self, el) -> str:
        """The targets of links inside a <pre>, after the verbatim block: a fenced block cannot
        hold a link and the site escapes raw HTML, so the code stays exact and its linked
        words follow it once each, as links."""
        seen: dict[tuple[str, str], None] = {}
        for text, href in self.code_pieces(el):
            core = _SPACE.sub(" ", text).strip()
            if href and core:
                seen[(core, href)] = None
        return " · ".join(f"[{_code_span(text)}]({_md_url(href)})" for text, href in seen)

    def image(self, el) -> str:
        src = (el.get("src") or "").strip()
        if not src or src.startswith("data:"):
            src = (el.get("data-src") or el.get("data-original") or "").strip()
        if not src and el.get("srcset"):
            src = el.get("srcset").split(",")[0].strip().split(" ")[0]
        if not src or src.startswith("data:"):
            return ""
        fetch_url = urljoin(self.base_url, src)
        if urlsplit(fetch_url).scheme not in ("http", "https"):
            return ""
        cited = self.resolve(src)
        # Brackets out before escaping: an escaped `\]` left behind would keep the image open.
        alt = _collapse(_escape((el.get("alt") or "").replace("[", "").replace("]", "")))
        self.images.append({"url": fetch_url, "cited": cited, "alt": alt})
        return f"![{alt}]({_md_url(cited)})"


def _is_list(block: str) -> bool:
    return bool(re.match(r"(- |\d+\. )", block))


def _escape(text: str) -> str:
    """Characters that would turn prose into Markdown syntax get a backslash."""
    text = text.replace("\\", "\\\\").replace("*", "\\*").replace("`", "\\`")
    if "_" in text:
        text = _WORD_UNDERSCORE.sub(r"\\_", text)
    # Both brackets, always: a `]` left bare in one text node closes a link label opened in another.
    if "[" in text or "]" in text:
        text = text.replace("[", "\\[").replace("]", "\\]")
    return text


def _join(parts: list[str]) -> str:
    """Inline pieces as one string; a `!` that text puts before a link is not an image marker."""
    for i in range(1, len(parts)):
        before = parts[i - 1]
        if parts[i].startswith("[") and before.endswith("!") and (len(before) - 1 - len(before[:-1].rstrip("\\"))) % 2 == 0:
            parts[i - 1] = before[:-1] + "\\!"  # (an even run of backslashes before it escapes only itself)
    return "".join(parts)


def _escape_line_start(line: str) -> str:
    match = _LINE_START.match(line)
    if not match:
        return line
    lead, marker = match.group(1), match.group(2)
    if marker[0].isdigit():
        return lead + marker + "\\" + line[len(lead) + len(marker) :]
    return lead + "\\" + line[len(lead) :]


def _collapse(text: str) -> str:
    if "\n" in text:
        text = _CJK_BREAK.sub("", text)  # a line break between Chinese characters is no space
    text = _SPACE.sub(" ", text).strip()
    return text.replace(_BR, " ").strip() if _BR in text else text


def _paragraph(text: str) -> str:
    if "\n" in text:
        text = _CJK_BREAK.sub("", text)
    text = _SPACE.sub(" ", text).strip()
    if _BR in text:
        lines = [line.strip() for line in text.split(_BR)]
        text = "  \n".join(line for line in lines if line)
    return "\n".join(_escape_line_start(line) for line in text.split("\n")) if text else ""


def _code_span(text: str) -> str:
    text = _SPACE.sub(" ", text).strip()
    if not text:
        return ""
    longest = max([len(m) for m in re.findall(r"`+", text)] + [0])
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def _md_url(url: str) -> str:
    return url.replace(" ", "%20").replace("(", "%28").replace(")", "%29").replace("<", "%3C").replace(">", "%3E")


def _pre_text(el) -> str:
    parts: list[str] = []
    for node in el.iter():
        if node is not el and isinstance(node.tag, str) and node.tag.lower() == "br":
            parts.append("\n")
        elif node.text and isinstance(node.tag, str):
            parts.append(node.text)
        if node is not el and node.tail:
            parts.append(node.tail)
    return "".join(parts)


def _language(el) -> str:
    """The code's language where the page says it: a class on <pre>, its <code>, or a wrapper."""
    nodes = [el]
    code = el.find("code")
    if code is not None:
        nodes.insert(0, code)
    parent = el.getparent()
    for _ in range(3):
        if parent is None:
            break
        nodes.append(parent)
        parent = parent.getparent()
    for node in nodes:
        lang = (node.get("data-lang") or node.get("data-language") or "").strip()
        if not lang:
            match = _LANG_CLASS.search(node.get("class") or "")
            lang = match.group(1) if match else ""
        lang = lang.lower()
        if lang and lang not in _NO_LANG and re.fullmatch(r"[a-z0-9_+#.-]{1,30}", lang):
            return lang
    return ""


def _hidden(el) -> bool:
    style = (el.get("style") or "").replace(" ", "").lower()
    return el.get("hidden") is not None or el.get("aria-hidden") == "true" or "display:none" in style or "visibility:hidden" in style


def _noscript_text(body, shown: int):
    """The <noscript> holding the page's text where the page shows next to none without it (a site
    that writes its whole page for readers without JavaScript into one, and builds the visible page
    by script): four times the visible prose and a few paragraphs' worth; else None."""
    best, most = None, 0
    for el in body.iter("noscript"):
        size = sum(_dense(t) for t in el.itertext())
        if size > most:
            best, most = el, size
    return best if most >= _NOSCRIPT_TEXT and most >= 4 * shown else None


_NOSCRIPT_TEXT = 500  # characters of text (whitespace aside) of a <noscript> that is a page's text, not a notice


def _dense(text: str) -> int:
    return len(text) - sum(text.count(c) for c in " \n\t\r\xa0")


def to_markdown(root, page_url: str, cite: Callable[[str], str] = lambda url: url) -> Extraction:
    """The page's main text as Markdown (see the module docstring)."""
    with measured(root):
        return _to_markdown(root, page_url, cite)


def _to_markdown(root, page_url: str, cite: Callable[[str], str]) -> Extraction:
    base = page_url
    base_el = root.find(".//base")
    if base_el is not None and (base_el.get("href") or "").strip():
        base = urljoin(page_url, base_el.get("href").strip())
    region, label = find_region(root)
    converter = _Converter(page_url, base, cite, whole_page=label == "body")
    body = root.find(".//body")
    converter.page_text = prose_len(body if body is not None else root)
    # A page that shows its text only without JavaScript: its <noscript> is its text.
    shown = _noscript_text(body if body is not None else root, converter.page_text)
    if shown is not None:
        region, label = shown, "noscript"
        converter.page_text, converter.whole_page = prose_len(shown), True  # (a whole page: its bars at its edges)
    # The region the page marks is where it says its text is: a class word on it (`<main class="container
    # js-social-anchor-start">`) does not make it chrome; hidden, it is not the text.
    if label != "body" and _hidden(region):
        region, label = body if body is not None else root, "body"
        converter.whole_page = True
    if converter.whole_page:  # a marked region has its navigation outside; <body> has it at its edges
        converter.navigation = edge_navigation(region, converter.skip, converter.leaves_page, converter.leaves_site)
    # After the edge scan, which weighs the bars at the edges with the blocks around them.
    converter.navigation |= relation_bars(region, converter.is_self)
    # Then what stands beside the text and does not read like it (fetch/density.py).
    scores = Blocks(region, converter.skip)
    converter.navigation |= boilerplate(region, converter.skip, scores)
    # On a page that declares itself an article, what lies before and after its prose (fetch/article.py).
    if declares_article(root):
        converter.navigation |= outside_article(region, scores, converter.skip) | picture_lines(region, scores, converter.skip)
    blocks = converter.flow(region) if region.tag != "pre" else [converter.pre(region)]
    markdown = "\n\n".join(b for b in blocks if b.strip())
    return Extraction(markdown=markdown + "\n" if markdown else "", region=label, images=converter.images)


def shell_signals(root, size: int) -> list[str]:
    """Why a page looks like a JavaScript shell (empty: it does not).

    A shell has little text, and one of: a <noscript> asking for JavaScript, an empty
    app container (<div id="app">, #root, #__next…), or scripts outweighing the text
    many times over.
    """
    body = root.find(".//body")
    if body is None:
        body = root
    text = text_len(body)
    if text >= 1500:
        return []
    signals = []
    for noscript in root.iter("noscript"):
        if _JS_WORDS.search(noscript.text_content() or ""):
            signals.append("noscript asks for JavaScript")
            break
    for el in body.iter():
        if isinstance(el.tag, str) and (el.get("id") or "").lower() in _APP_IDS and text_len(el) < 50:
            signals.append(f"empty app container #{el.get('id')}")
            break
    inline = " ".join(s.text or "" for s in root.iter("script") if not s.get("src"))
    if text < 500 and _FETCHES.search(inline):
        signals.append("its scripts fetch the content")
    script_bytes = sum(len(s.text or "") + (2000 if s.get("src") else 0) for s in root.iter("script"))
    if script_bytes > 20 * max(text, 1) and text < 500:
        signals.append(f"{text} characters of text against {script_bytes:,} bytes of script")
    if not signals:
        return []
    if text < 500 or len(signals) > 1:
        return [f"{text} characters of text in {size:,} bytes", *signals]
    return []


@dataclass(frozen=True)
class Capture:
    """How much of a page's text a capture holds: the characters (whitespace aside) of the main
    text a reader reads in the Markdown (link targets and image addresses left out), and of all
    the page's visible-looking text (chrome.text_len of <body>)."""

    text_chars: int
    visible_chars: int
    prose: bool  # whether the captured text holds a paragraph that reads as prose, not only labels and links


_MD_TARGET = re.compile(r"\]\((?:[^()\s]|\([^)\s]*\))*\)")
_MD_MARKS = re.compile(r"[#*`>|\\\[\]!]")


def _prose_line(line: str) -> bool:
    """A line long enough to be a sentence of text: 60 characters, 30 in Chinese."""
    size = len(line) - line.count(" ")
    return size >= 60 or (size >= 30 and bool(_HAN.search(line)))


def capture(root, markdown: str) -> Capture:
    """The measure `hollow` judges by (see Capture), for a parsed page and the Markdown taken from it."""
    body = root.find(".//body") if root is not None else None
    visible = text_len(body if body is not None else root) if root is not None else 0
    reader = _MD_MARKS.sub("", _MD_TARGET.sub("]", markdown))
    prose = any(_prose_line(line) for line in reader.split("\n"))
    return Capture(text_chars=len(reader) - sum(reader.count(c) for c in " \n\t\r"), visible_chars=visible, prose=prose)


def hollow(measure: Capture) -> str:
    """Why a capture is hollow, in words for the record ("" when it is not): no text at all from a page
    that shows some, a sliver of the page's text, or a small part of it that is only labels and
    links (chrome: a cookie button, a header line) rather than the page's text."""
    text, visible = measure.text_chars, measure.visible_chars
    if visible < 50:
        return ""  # nothing to lose: an empty page, a picture
    missing = f"the extracted text holds {text:,} of the {visible:,} characters of text the page shows"
    if text == 0:
        return "no text was extracted from a page that shows text: the main text was missed (the archived page is complete)"
    if visible >= 1000 and text < 0.02 * visible:
        return f"{missing}: the main text was probably missed (the archived page is complete)"
    if text < 0.1 * visible and not measure.prose:
        return f"{missing}, and only labels and links, no paragraph: the main text was probably missed (the archived page is complete)"
    return ""


_TITLE_SEPARATORS = re.compile(r"\s+[|\-–—:·»/]{1,2}\s+|\s*[|｜_]\s*|\s+::\s+")


def _agree(a: str, b: str) -> bool:
    """Two titles that are the same words, one perhaps a little longer (a subtitle, a series name)."""
    a, b = " ".join(a.casefold().split()), " ".join(b.casefold().split())
    if not a or not b:
        return False
    short, long = sorted((a, b), key=len)
    return short in long and len(short) >= 0.5 * len(long)


def work_title(root, page_title: str) -> str:
    """The work's own title, as its page agrees on it: og:title, Dublin Core, the <h1>, the parts
    of <title>; the site's name (og:site_name, or the part of <title> the others lack) left out."""
    if root is None:
        return page_title

    def meta(*names: str) -> str:
        for el in root.iter("meta"):
            key = (el.get("property") or el.get("name") or "").strip().lower()
            if key in names and (el.get("content") or "").strip():
                return " ".join(el.get("content").split())
        return ""

    site = meta("og:site_name", "application-name")
    declared = meta("og:title", "twitter:title") or meta("dc.title", "dcterms.title")
    body = root.find(".//body")
    h1s = [" ".join(h.text_content().split()).rstrip("¶#§🔗 ") for h in (body if body is not None else root).iter("h1")][:3]
    h1s = [h for h in h1s if h]
    parts = [p.strip() for p in _TITLE_SEPARATORS.split(page_title) if p.strip()]

    def without_site(title: str) -> str:
        pieces = [p.strip() for p in _TITLE_SEPARATORS.split(title) if p.strip()]
        kept = [p for p in pieces if not (site and _agree(p, site))]
        return " - ".join(kept) if site and kept and len(kept) < len(pieces) else title

    longest = max(parts, key=len) if parts else page_title
    for h1 in h1s:  # the heading the page shows, where the page's other statements agree with it
        if (declared and _agree(h1, declared)) or _agree(h1, longest) or _agree(h1, page_title):
            return h1
    if declared:
        return without_site(declared)
    return without_site(page_title)
