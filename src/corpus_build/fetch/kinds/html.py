"""HTML pages (docs, articles, courses, video landing pages): original bytes + Markdown via trafilatura."""

from __future__ import annotations

import codecs
import re
from pathlib import Path
from urllib.parse import urljoin

from ...model import Source
from ...provenance import Document, Extractor
from ..base import Context, Outcome, package_version

BODY = "page.html"
BINARY = "body.bin"
TEXT = "text.md"
_META_CHARSET = re.compile(rb"""<meta[^>]+?charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)
_HEADER_CHARSET = re.compile(r"charset\s*=\s*[\"']?([A-Za-z0-9_.:-]+)", re.I)
# Labels browsers treat as wider encodings: a "GBK" page routinely contains GB18030 characters.
_WIDER = {"gb2312": "gb18030", "gbk": "gb18030", "x-gbk": "gb18030", "iso-8859-1": "cp1252", "latin1": "cp1252", "ascii": "cp1252", "us-ascii": "cp1252"}


def _codec(label: str) -> str | None:
    label = label.strip().lower()
    label = _WIDER.get(label, label)
    try:
        return codecs.lookup(label).name
    except LookupError:
        return None


def decode_html(data: bytes, content_type: str = "") -> tuple[str, str]:
    """(text, encoding): BOM, then the HTTP header, then <meta charset>, then UTF-8, then a guess.

    The header outranks <meta> as in browsers, but only while it decodes cleanly:
    servers often label every page UTF-8 while the page itself says GBK.
    """
    for bom, name in ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16")):
        if data.startswith(bom):
            return data.decode(name, errors="replace").lstrip("\ufeff"), name
    labels = []
    match = _HEADER_CHARSET.search(content_type or "")
    if match:
        labels.append(match.group(1))
    match = _META_CHARSET.search(data[:4096])
    if match:
        labels.append(match.group(1).decode("ascii", "replace"))
    labels.append("utf-8")
    for label in labels:
        name = _codec(label)
        if name:
            try:
                return data.decode(name), name
            except UnicodeDecodeError:
                continue
    from charset_normalizer import from_bytes

    best = from_bytes(data[:200_000]).best()
    name = _codec(best.encoding) if best else None
    name = name or "utf-8"
    return data.decode(name, errors="replace"), name


def extract_html(body: str, out: str, url: str, content_type: str) -> dict:
    """Runs in a worker process: decode, extract Markdown, collect metadata. Returns plain data."""
    import trafilatura

    data = Path(body).read_bytes()
    text, encoding = decode_html(data, content_type)
    # One parse, with trafilatura's own loader (what extract() and extract_metadata() would each
    # run on the text again): the page's facts are read first, extract() works on a copy of the
    # tree, and extract_metadata(), which may change the tree, comes last.
    tree = trafilatura.load_html(text)
    language, page_title, images = _page_facts(tree if tree is not None else _lenient_tree(text), url)
    markdown, meta = "", None
    if tree is not None:  # else the text is not HTML and both calls would find nothing
        markdown = trafilatura.extract(
            tree, url=url, output_format="markdown", include_tables=True, include_links=True,
            include_images=True, include_formatting=True, favor_recall=True,
        ) or ""
        # extensive=False: a publication date only from the page's own markup (meta tags,
        # JSON-LD, <time>), never guessed from dates mentioned in the text; it also skips
        # htmldate's full-text scan, the largest cost per page.
        meta = trafilatura.extract_metadata(tree, default_url=url, extensive=False)
    title = page_title or (meta.title if meta else "") or ""
    Path(out).write_text(markdown + ("\n" if markdown and not markdown.endswith("\n") else ""), encoding="utf-8")
    from .pdf import citation_facts, citation_meta  # pdf.py imports this module

    # Highwire citation_* tags, where a page has them, are the publisher's own statement
    # of authors and date: they outrank trafilatura's guesses from bylines.
    cited = citation_meta(text)
    authors = [a.strip() for a in (meta.author or "").split(";") if a.strip()] if meta else []
    return {
        "title": title,
        "language": language or (getattr(meta, "language", None) or "" if meta else ""),
        "published": (cited.get("publication_date") or cited.get("date") or [(meta.date or "") if meta else ""])[0],
        "authors": [a for a in cited.get("author", []) if a] or authors,
        "images": list(dict.fromkeys(images))[:500],
        "encoding": encoding,
        **citation_facts(cited),
        "facts_from": "citation-meta" if cited.get("author") or cited.get("date") or cited.get("publication_date") else "html-meta",
    }


def _lenient_tree(text: str):
    """lxml's own parse, for text trafilatura does not take as an HTML document (a fragment)."""
    import lxml.etree
    import lxml.html

    try:
        return lxml.html.fromstring(text)
    except (ValueError, lxml.etree.ParserError):
        return None


def _page_facts(tree, url: str) -> tuple[str, str, list[str]]:
    """(lang attribute, <title>, image URLs) of a parsed page, read without changing it."""
    if tree is None:
        return "", "", []
    language = (tree.get("lang") or "").strip()
    page_title = (tree.findtext(".//title") or "").strip()
    images = []
    for img in tree.iter("img"):
        src = (img.get("src") or "").strip()
        if src and not src.startswith("data:"):
            images.append(urljoin(url, src))
    return language, page_title, images


def versions() -> dict[str, str]:
    return {name: package_version(name) for name in ("trafilatura", "lxml", "charset-normalizer")}


def _renamed(exchanges, old, new):
    from dataclasses import replace

    return tuple(replace(e, payload=new) if e.payload == old else e for e in exchanges)


class HtmlKind:
    name = "html"

    def matches(self, source: Source) -> bool:
        return True  # the last resort: whatever a server sends as HTML

    async def fetch(self, ctx: Context) -> Outcome:
        download = await ctx.http.download(
            ctx.source.url, ctx.stage / BODY, ctx.log, accept="text/html,application/xhtml+xml;q=0.9,*/*;q=0.5", on_bytes=ctx.on_bytes, **ctx.conditional
        )
        if download.not_modified or ctx.same_as_before(download.sha256):
            return Outcome(unchanged=True, exchanges=download.exchanges)
        content_type = download.content_type.lower()
        if content_type and not any(t in content_type for t in ("html", "xml", "text/")):
            # Not a page (an archive, a binary): keep the bytes, extract nothing.
            (ctx.stage / BODY).rename(ctx.stage / BINARY)
            return Outcome.from_download(download, BINARY, exchanges=_renamed(download.exchanges, ctx.stage / BODY, ctx.stage / BINARY))
        facts, finished = await ctx.extract(
            extract_html, str(ctx.stage / BODY), str(ctx.stage / TEXT), download.final_url, download.content_type, exchanges=download.exchanges
        )
        document = Document(
            title=facts["title"], language=facts["language"], published=facts["published"],
            authors=tuple(facts["authors"]), images=tuple(facts["images"]),
            **{k: facts.get(k, "") for k in ("doi", "arxiv_id", "venue", "facts_from")},
        )
        return Outcome.from_download(
            download, BODY, text_file=TEXT, document=document, extractor=Extractor("trafilatura", versions()), finished=finished,
        )
