"""Papers: arXiv abs pages, DOIs and any PDF. The PDF is kept and extracted page by page with PyMuPDF."""

from __future__ import annotations

import asyncio
import functools
import logging
import re
import sys
import unicodedata
from importlib.metadata import PackageNotFoundError
from pathlib import Path
from urllib.parse import urljoin, urlsplit

from ...core import pdf_structure
from ...core.bibfacts import text_language
from ...core.errors import ContentError
from ...core.model import Source
from ...core.provenance import Document, Extractor
from ..base import Context, Outcome, package_version
from ..citemeta import citation_facts, citation_meta
from ..http import move_body
from .html import BODY as HTML_BODY
from .html import TEXT, decode_html, extract_html
from .html import versions as html_versions

PDF = "paper.pdf"
LANDING = "landing.html"
_ARXIV_ABS = re.compile(r"^/abs/([^/?#]+?)(?:\.pdf)?$")
MAX_NOTICES = 20  # MuPDF repeats itself per page: the first few say what it had to work around
log = logging.getLogger("corpus_build.fetch.pdf")
# What a PDF's text layer gives that is no text: typographic ligatures (U+FB00-FB06 ﬁ ﬂ ﬀ…, and
# the Armenian ones) folded to their letters, as NFKC does, for these characters only (NFKC on the
# whole text would also rewrite full-width punctuation, superscripts and the like); and control
# characters (a NUL, a bell) dropped, newline and tab kept.
_PLAIN = {c: unicodedata.normalize("NFKC", chr(c)) for c in (*range(0xFB00, 0xFB07), *range(0xFB13, 0xFB18))}
_PLAIN.update({c: "" for c in (*range(0x20), *range(0x7F, 0xA0)) if chr(c) not in "\n\t"})


# A footnote mark set as a raised number right after a word ("results1") would make one word of
# the two; written with superscript digits ("results¹") it reads as a mark, and search, which
# splits words at characters that are not letters or digits, finds "results".
_MARK = re.compile(r"\d{1,3}(?:[,\u2013-]\d{1,3})*")
_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def plain_text(text: str) -> str:
    """A PDF's text with ligatures folded and control characters dropped (see _PLAIN)."""
    return text.translate(_PLAIN)


def page_text(pymupdf, page) -> str:
    """One page's text as get_text("text") gives it (the same lines, from the same spans), with
    raised numbers glued to a word written as superscripts, then made plain (plain_text)."""
    flags = getattr(pymupdf, "TEXTFLAGS_TEXT", None)
    if flags is None:  # an old PyMuPDF: its plain text
        return plain_text(page.get_text("text"))
    lines = []
    for block in page.get_text("dict", flags=flags).get("blocks", []):
        if block.get("type", 0) != 0:
            continue
        for line in block.get("lines", []):
            out = ""
            for span in line.get("spans", []):
                text = span.get("text", "")
                if int(span.get("flags", 0)) & 1 and out[-1:].isalnum() and _MARK.fullmatch(text.strip()):
                    text = text.strip().translate(_SUPERSCRIPT)
                out += text
            lines.append(out + "\n")
    return plain_text("".join(lines))


def _import_pymupdf():
    """The PyMuPDF module, from `pymupdf` or `pymupdf-lite` (same `pymupdf` module), or the old `fitz` name.

    When pymupdf_layout is installed, `import pymupdf` imports it, and it loads an ONNX
    layout model at once: 0.25 s of CPU in every worker process, for a model that only
    Page.get_layout() consults; get_text(), all extraction uses, never does. Hiding the
    plugin during the import skips that; it can still be imported explicitly later.
    """
    if "pymupdf" in sys.modules or "pymupdf.layout" in sys.modules:
        import pymupdf

        _quiet(pymupdf)
        return pymupdf
    sys.modules["pymupdf.layout"] = None  # type: ignore[assignment]  # `import pymupdf.layout` raises ImportError
    try:
        import pymupdf
    except ImportError:
        import fitz as pymupdf  # type: ignore[no-redef]  # PyMuPDF before 1.24.3 only had this name
    finally:
        del sys.modules["pymupdf.layout"]
    _quiet(pymupdf)
    return pymupdf


def _quiet(pymupdf) -> None:
    """MuPDF prints what it repaired or skipped ("MuPDF error: …") to stdout, into our tables and
    --json output, while the page reads fine. It keeps them instead; extract_pdf hands them to
    the log. A PDF it cannot read still fails, with its reason, as every failure does."""
    tools = getattr(pymupdf, "TOOLS", None)
    for switch in ("mupdf_display_errors", "mupdf_display_warnings"):
        if hasattr(tools, switch):
            getattr(tools, switch)(False)


def _notices(pymupdf) -> list[str]:
    """MuPDF's stored warnings and errors since the last call (and clears them), repeats dropped."""
    tools = getattr(pymupdf, "TOOLS", None)
    if tools is None or not hasattr(tools, "mupdf_warnings"):
        return []
    lines = [line.strip() for line in str(tools.mupdf_warnings()).splitlines() if line.strip()]
    return list(dict.fromkeys(lines))[:MAX_NOTICES]


@functools.cache
def pymupdf_version() -> str:
    """The installed PyMuPDF's version, whichever distribution (pymupdf, pymupdf-lite) provides it."""
    for name in ("pymupdf", "pymupdf-lite", "PyMuPDF"):
        try:
            return package_version(name)
        except PackageNotFoundError:
            continue
    return str(getattr(_import_pymupdf(), "VersionBind", "") or "unknown")


def extract_pdf(body: str, out: str) -> dict:
    """Runs in a worker: PDF -> Markdown with one `## Page N` heading per page, and beside it
    structure.json / structure.md (the text with the paper's headings, see pdf_structure).
    {"error": …} when unparsable."""
    pymupdf = _import_pymupdf()
    _notices(pymupdf)  # what an earlier PDF left in this process's store is not this one's

    data = Path(body).read_bytes()
    if not data.startswith(b"%PDF-"):
        return {"error": "not a PDF (no %PDF- header)"}
    if b"%%EOF" not in data[-2048:]:
        return {"error": "the PDF is truncated (no %%EOF marker at the end); the download was cut short or the file is damaged"}
    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except Exception as exc:  # noqa: BLE001 - PyMuPDF raises several unrelated types
        return {"error": f"PyMuPDF cannot open it ({type(exc).__name__}: {exc})" + _said(pymupdf)}
    if doc.needs_pass:
        return {"error": "the PDF is encrypted"}
    if doc.page_count == 0:
        return {"error": "the PDF has no pages"}
    parts = []
    try:
        for number, page in enumerate(doc, start=1):
            parts.append(f"## Page {number}\n\n{page_text(pymupdf, page).strip()}\n")
    except Exception as exc:  # noqa: BLE001
        return {"error": f"PyMuPDF failed on page {len(parts) + 1} ({type(exc).__name__}: {exc})" + _said(pymupdf)}
    meta = doc.metadata or {}
    Path(out).write_text("\n".join(parts), encoding="utf-8")
    headings = -1
    try:
        headings = len(pdf_structure.write(doc, Path(out).parent)["headings"])
    except Exception:  # noqa: BLE001 - the headings are a bonus: a page PyMuPDF cannot lay out must not cost the text
        for name in (pdf_structure.STRUCTURE, pdf_structure.STRUCTURE_MD):
            (Path(out).parent / name).unlink(missing_ok=True)
    language = text_language("\n".join(parts[:3]))  # the first pages: the title, abstract and introduction
    return {"title": plain_text(meta.get("title") or "").strip(), "authors": pdf_authors(plain_text(meta.get("author") or "")), "pages": doc.page_count,
            "headings": headings, "language": language, "notices": _notices(pymupdf)}


def _said(pymupdf) -> str:
    """What MuPDF reported before a failure, for its message (the log is not where a failure is read)."""
    notices = _notices(pymupdf)
    return f"; MuPDF reported: {'; '.join(notices[:3])}" if notices else ""


def pdf_authors(text: str) -> list[str]:
    """The names in a PDF's Author field: "A; B", "A, B and C", "A & B"; "Wang, Lei" is one name.

    Semicolons, where present, are the separators (the commas are then inside names).
    Otherwise commas separate, unless the field is exactly two single words around one
    comma: that is a family name and a given name.
    """
    text = " ".join(text.split())
    if ";" in text:
        names = text.split(";")
    else:
        pieces = re.split(r",|\s+and\s+|\s+&\s+", text)
        if len(pieces) == 2 and "," in text and all(len(p.split()) == 1 for p in pieces):
            names = [text]
        else:
            names = pieces
    return [n.strip() for n in names if n.strip()]


class PaperKind:
    name = "paper"

    def matches(self, source: Source) -> bool:
        return source.kind == "paper" or urlsplit(source.url).path.lower().endswith(".pdf")

    async def fetch(self, ctx: Context) -> Outcome:
        url = ctx.source.url
        parts = urlsplit(url)
        host = (parts.hostname or "").lower().removeprefix("www.")
        landing_meta: dict[str, list[str]] = {}
        exchanges: tuple = ()
        pdf_url = url
        match = _ARXIV_ABS.match(parts.path)
        if host in ("arxiv.org", "export.arxiv.org") and match:
            # The abstract page gives the metadata and the PDF's address.
            landing = await ctx.http.download(url, ctx.stage / LANDING, ctx.log, accept="text/html")
            exchanges = landing.exchanges
            landing_body = await asyncio.to_thread((ctx.stage / LANDING).read_bytes)  # the download's `dest`; file I/O off the event loop
            landing_meta = citation_meta(decode_html(landing_body, landing.content_type)[0])
            pdf_url = urljoin(landing.final_url, (landing_meta.get("pdf_url") or [f"https://arxiv.org/pdf/{match.group(1)}"])[0])
        conditional = ctx.conditional
        download = await ctx.http.download(pdf_url, ctx.stage / PDF, ctx.log, accept="application/pdf,*/*;q=0.5", on_bytes=ctx.on_bytes,
                                           etag=conditional.get("etag", ""), last_modified=conditional.get("last_modified", ""),
                                           referrer=url if pdf_url != url else "")
        exchanges += download.exchanges
        if download.not_modified or ctx.same_as_before(download.sha256):
            return Outcome(unchanged=True, exchanges=exchanges)
        if not await asyncio.to_thread(_is_pdf, ctx.stage / PDF):
            # A DOI or publisher page: follow its citation_pdf_url, or keep it as an HTML page.
            # Moved out of the PDF's way, so its WARC record keeps the page, not the PDF.
            exchanges = await asyncio.to_thread(move_body, exchanges, ctx.stage / PDF, ctx.stage / LANDING)
            text = decode_html(await asyncio.to_thread((ctx.stage / LANDING).read_bytes), download.content_type)[0]
            landing_meta = citation_meta(text)
            if not landing_meta.get("pdf_url"):
                return await self._as_html(ctx, download, exchanges)
            pdf_url = urljoin(download.final_url, landing_meta["pdf_url"][0])
            # (named by the page: a public page may not name an address on this machine, as for its images)
            download = await ctx.http.download(pdf_url, ctx.stage / PDF, ctx.log, accept="application/pdf", on_bytes=ctx.on_bytes, referrer=download.final_url)
            exchanges += download.exchanges
        facts, finished = await ctx.extract(extract_pdf, str(ctx.stage / PDF), str(ctx.stage / TEXT), exchanges=exchanges)
        if "error" in facts:
            raise ContentError(facts["error"], url=download.final_url)
        for notice in facts.get("notices", ()):
            log.info("%s: PyMuPDF: %s", download.final_url, notice)
        document = Document(
            title=(landing_meta.get("title") or [facts["title"]])[0],
            authors=tuple(landing_meta.get("author") or facts["authors"]),
            published=(landing_meta.get("date") or landing_meta.get("publication_date") or landing_meta.get("online_date") or [""])[0],
            page_count=facts["pages"],
            language=(landing_meta.get("language") or [facts.get("language", "")])[0],
            **citation_facts(landing_meta),
            facts_from="citation-meta" if landing_meta.get("title") or landing_meta.get("author") else "pdf-metadata",
        )
        extractor = Extractor("pymupdf", {"pymupdf": pymupdf_version()})
        return Outcome.from_download(download, PDF, text_file=TEXT, document=document, extractor=extractor, exchanges=exchanges, finished=finished)

    async def _as_html(self, ctx: Context, download, exchanges) -> Outcome:
        exchanges = await asyncio.to_thread(move_body, exchanges, ctx.stage / LANDING, ctx.stage / HTML_BODY)
        facts, finished = await ctx.extract(
            extract_html, str(ctx.stage / HTML_BODY), str(ctx.stage / TEXT), download.final_url, download.content_type, exchanges=exchanges
        )
        document = Document(
            title=facts["title"], language=facts["language"], published=facts["published"], authors=tuple(facts["authors"]),
            **{k: facts.get(k, "") for k in ("doi", "arxiv_id", "venue", "facts_from")},
        )
        return Outcome.from_download(
            download, HTML_BODY, text_file=TEXT, document=document, extractor=Extractor("trafilatura", html_versions()), exchanges=exchanges, finished=finished,
        )


def _is_pdf(path: Path) -> bool:
    with open(path, "rb") as handle:
        head = handle.read(1024)
    return head.startswith(b"%PDF-")
