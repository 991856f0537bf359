"""HTML pages (docs, articles, courses, video landing pages): the original bytes, the main text as
Markdown (fetch/extract.py), the images that text uses, the stylesheets the archived copy needs
(fetch/styles.py), and JavaScript shells rendered in Chromium.

The common page costs one round trip to the worker pool (extract, then WARC and hashes, in
one call) while the source holds its download slot only for the page itself. Pages that need
more downloads (images of an article or doc, stylesheets; every page under `fetch.browser: always`) keep
the slot and go in steps: extract, download, then localise text.md and finish. A JavaScript
shell is found by the extraction itself, so it is rendered after the slot was handed on;
rendering is bounded by its own one-browser-at-a-time limit.
"""

from __future__ import annotations

import asyncio
import codecs
import functools
import re
from dataclasses import asdict
from pathlib import Path

from ...core.bibfacts import text_language
from ...core.errors import FetchError
from ...core.model import Source
from ...core.provenance import Document, Extractor, SavedImage, SavedStyle, Status
from .. import browser, images, records, styles
from ..base import Context, Outcome, package_version
from ..chrome import measured
from ..citemeta import citation_facts, citation_meta
from ..extract import capture, hollow, shell_signals, to_markdown, work_title
from ..http import Download, apply_rewrites
from ..options import FetchOptions

BODY = "page.html"
BINARY = "body.bin"
TEXT = "text.md"
NEEDS_JS = "needs JavaScript"
STYLES = "styles"  # in the extractor's versions: the page's stylesheets were looked for (fetch/styles.py)
IMAGE_KINDS = ("article", "docs")  # the kinds whose images are kept ("full text and images")
_IMG = re.compile(rb"<img[\s/>]", re.IGNORECASE)
# A hint that the page has styles worth keeping (a stylesheet link, a <style> block, a url()):
# such a page takes the path with more downloads; the parsed page then says what they are.
_STYLED = re.compile(rb"stylesheet|<style[\s>]|url\(", re.IGNORECASE)
_META_CHARSET = re.compile(rb"""<meta[^>]+?charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE)
_HEADER_CHARSET = re.compile(r"charset\s*=\s*[\"']?([A-Za-z0-9_.:-]+)", re.IGNORECASE)
# Labels the WHATWG Encoding Standard (what browsers follow) maps to a wider encoding than the
# name says: a "GB2312" or "GBK" page is decoded as GB18030, Big5 as Big5-HKSCS, Shift_JIS as
# Windows-31J, EUC-KR as Windows-949, Latin-1 and ASCII as Windows-1252.
_WIDER = {
    **dict.fromkeys(("gb2312", "gbk", "x-gbk", "chinese", "csgb2312", "iso-ir-58", "gb_2312", "gb_2312-80", "csiso58gb231280"), "gb18030"),
    **dict.fromkeys(("big5", "big5-hkscs", "cn-big5", "csbig5", "x-x-big5"), "big5hkscs"),
    **dict.fromkeys(("shift_jis", "shift-jis", "sjis", "ms_kanji", "ms932", "x-sjis", "csshiftjis", "windows-31j"), "cp932"),
    **dict.fromkeys(("euc-kr", "euc_kr", "ks_c_5601-1987", "ks_c_5601-1989", "ksc5601", "ksc_5601", "korean", "iso-ir-149", "cseuckr", "windows-949"), "cp949"),
    **dict.fromkeys(("iso-8859-1", "iso8859-1", "latin1", "l1", "ascii", "us-ascii", "iso_8859-1", "cp819", "ibm819", "windows-1252"), "cp1252"),
    **dict.fromkeys(("iso-8859-9", "latin5", "l5", "iso8859-9"), "cp1254"),
    **dict.fromkeys(("tis-620", "iso-8859-11", "iso8859-11", "windows-874", "dos-874"), "cp874"),
}
# Windows-31J bytes the Standard leaves undecodable, which Python's cp932 maps to private-use characters.
_CP932_HOLES = str.maketrans(dict.fromkeys((0xF8F0, 0xF8F1, 0xF8F2, 0xF8F3), "\ufffd"))


def _codec(label: str, from_meta: bool = False) -> str | None:
    label = label.strip().lower()
    if from_meta and label.startswith(("utf-16", "utf16", "unicode")):
        return "utf-8"  # a page that could be read as ASCII to find its <meta> is not UTF-16 (the Standard says UTF-8)
    label = _WIDER.get(label, label)
    try:
        name = codecs.lookup(label).name
    except LookupError:
        return None
    return None if name in ("rot-13", "base64", "hex", "zlib", "bz2", "uu", "quopri") else name


def _decode(data: bytes, codec: str) -> tuple[str, int]:
    """(text, how many characters could not be decoded): replaced, never given up on, as a browser does."""
    try:
        text, bad = data.decode(codec), 0
    except UnicodeDecodeError:
        text = data.decode(codec, errors="replace")
        bad = text.count("\ufffd")
    if codec == "cp932":
        text = text.translate(_CP932_HOLES)
    return text, bad


def decode_html(data: bytes, content_type: str = "") -> tuple[str, str]:
    """(text, encoding), as browsers decode (the WHATWG Encoding Standard): a byte order mark, else the
    label the HTTP header or the page's <meta> declares, decoded with U+FFFD for each invalid sequence
    (a page with a few bad bytes keeps its encoding); detection only when nothing is declared.

    The header outranks <meta> as in browsers, except where it fails on bytes the page's own
    label reads with fewer errors: servers often label every page UTF-8 while the page says GBK.
    """
    for bom, name in ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16")):
        if data.startswith(bom):
            return data.decode(name, errors="replace").lstrip("\ufeff"), name
    declared: list[str] = []
    header = _HEADER_CHARSET.search(content_type or "")
    if header and (codec := _codec(header.group(1))):
        declared.append(codec)
    meta = _META_CHARSET.search(data[:4096])
    if meta and (codec := _codec(meta.group(1).decode("ascii", "replace"), from_meta=True)) and codec not in declared:
        declared.append(codec)
    if declared:
        best: tuple[str, int, str] | None = None
        # (UTF-8 last: bytes that fail the label but are valid UTF-8 are a page re-saved as UTF-8
        # that kept its old label; a long text in another encoding is never valid UTF-8 by chance.)
        for codec in [*declared, *(["utf-8"] if "utf-8" not in declared else [])]:
            text, bad = _decode(data, codec)
            if not bad:
                return text, codec
            if codec in declared and (best is None or bad < best[1]):
                best = (text, bad, codec)
        assert best is not None
        return best[0], best[2]
    text, bad = _decode(data, "utf-8")
    if not bad:
        return text, "utf-8"
    from charset_normalizer import from_bytes

    guess = from_bytes(data[:200_000]).best()
    codec = (_codec(guess.encoding) if guess else None) or "utf-8"
    return _decode(data, codec)[0], codec


def cite_space(url: str, pairs: tuple[tuple[str, str], ...]) -> str:
    """`url` with the prefix a rewrite or fallback put in front of it turned back (see cite_pairs)."""
    for fetched, cited in pairs:
        if url.startswith(fetched):
            url = cited + url[len(fetched) :]
    return url


def cite_pairs(cited: str, requested: str, options: FetchOptions) -> tuple[tuple[str, str], ...]:
    """(fetched prefix, cited prefix) pairs, in the order to undo them: the fallback used, then the rewrite."""
    pairs = []
    primary = apply_rewrites(cited, options.rewrites)
    if requested != primary:
        for src, dst in options.fallbacks:
            if primary.startswith(src) and requested == dst + primary[len(src) :]:
                pairs.append((dst, src))
                break
    if primary != cited:
        for src, dst in options.rewrites:
            if cited.startswith(src):
                pairs.append((dst, src))
                break
    return tuple(pairs)


def page_text(data: bytes, url: str, content_type: str, pairs: tuple[tuple[str, str], ...] = (), keep_styles: bool = False) -> dict:
    """Decode, parse once, write the main text as Markdown, read the page's facts. Plain data out.

    The page's stylesheets and what its <style> blocks load are read only with `keep_styles`
    (fetch.max_styles > 0): parsing a page's CSS costs more than extracting its text."""
    import trafilatura

    text, encoding = decode_html(data, content_type)
    # trafilatura's loader (lxml underneath, with its fixes for broken markup); the walk in
    # to_markdown leaves the tree as it is, and extract_metadata(), which may change it, comes last.
    tree = trafilatura.load_html(text)
    root = tree if tree is not None else _lenient_tree(text)
    language, page_title = _page_facts(root)
    markdown, region, used, shell, hollow_reason = "", "", [], [], ""
    sheets, named = styles.page_styles(root, url) if keep_styles else ([], [])
    if root is not None:
        with measured(root):  # (one measure of the tree for the walk and the questions after it)
            extraction = to_markdown(root, url, functools.partial(cite_space, pairs=pairs))
            markdown, region, used = extraction.markdown, extraction.region, extraction.images
            shell = shell_signals(root, len(data))
            # A capture that lost the page's text is not a faithful mirror, whatever the walk decided.
            hollow_reason = "" if shell else hollow(capture(root, markdown))
    # extensive=False: a publication date only from the page's own markup (meta tags,
    # JSON-LD, <time>), never guessed from dates mentioned in the text; it also skips
    # htmldate's full-text scan, the largest cost per page.
    meta = trafilatura.extract_metadata(tree, default_url=url, extensive=False) if tree is not None else None

    # Highwire citation_* tags, where a page has them, are the publisher's own statement
    # of authors and date: they outrank trafilatura's guesses from bylines.
    cited = citation_meta(text)
    authors = [a.strip() for a in (meta.author or "").split(";") if a.strip()] if meta else []
    return {
        "markdown": markdown,
        # The work's title as its publisher tags it, before <title>, which adds the site's name.
        "title": " ".join((cited.get("title") or [""])[0].split()) or work_title(root, page_title) or (meta.title if meta else "") or "",
        # The page's own word (`lang`, its metadata), else what its main text plainly is.
        "language": language or (getattr(meta, "language", None) or "" if meta else "") or (cited.get("language") or [""])[0] or text_language(markdown),
        "published": (cited.get("publication_date") or cited.get("date") or [(meta.date or "") if meta else ""])[0],
        "authors": [a for a in cited.get("author", []) if a] or authors,
        "images": list(dict.fromkeys(i["cited"] for i in used))[:500],
        "used_images": used,
        "stylesheets": sheets,
        "style_refs": named,
        "encoding": encoding,
        "region": region,
        "shell": shell,
        "hollow": hollow_reason,
        "text_chars": len(markdown) - markdown.count(" ") - markdown.count("\n"),
        **citation_facts(cited),
        "facts_from": "citation-meta" if cited.get("title") or cited.get("author") or cited.get("date") or cited.get("publication_date") else "html-meta",
    }


def extract_html(body: str, out: str, url: str, content_type: str, pairs: tuple[tuple[str, str], ...] = (), keep_styles: bool = False) -> dict:
    """Runs in a worker process: page_text of the file `body`, Markdown written to `out`."""
    facts = page_text(Path(body).read_bytes(), url, content_type, pairs, keep_styles)
    markdown = facts.pop("markdown")
    Path(out).write_text(markdown, encoding="utf-8")
    return facts


def _extract_unless_shell(args: tuple, stage: str, exchanges, warc: bool):
    """Runs in a worker: extract, then finish the stage (WARC, hashes) unless the page is a JS shell,
    which gets more files (rendered DOM, screenshot) before it is finished."""
    facts = extract_html(*args)
    if facts["shell"]:
        return facts, None
    return facts, records.finish_stage(stage, exchanges, warc)


def _lenient_tree(text: str):
    """lxml's own parse, for text trafilatura does not take as an HTML document (a fragment)."""
    # lxml has no inline types; its stubs are the separate lxml-stubs package, not in the lint extra.
    import lxml.etree  # type: ignore[import-untyped]
    import lxml.html  # type: ignore[import-untyped]

    try:
        return lxml.html.fromstring(text)
    except (ValueError, lxml.etree.ParserError):
        return None


def _page_facts(tree) -> tuple[str, str]:
    """(lang attribute, <title>) of a parsed page, read without changing it."""
    if tree is None:
        return "", ""
    return (tree.get("lang") or "").strip(), (tree.findtext(".//title") or "").strip()


def versions() -> dict[str, str]:
    return {name: package_version(name) for name in ("corpus-build", "trafilatura", "lxml", "charset-normalizer")}


def _renamed(exchanges, old, new):
    from dataclasses import replace

    return tuple(replace(e, payload=new) if e.payload == old else e for e in exchanges)


def _styles_considered(extractor: Extractor | None) -> bool:
    """Whether the mirror this record describes was made looking for the page's stylesheets (STYLES in its versions)."""
    return extractor is not None and STYLES in extractor.versions


def _has(path: Path, pattern: re.Pattern[bytes]) -> bool:
    with open(path, "rb") as handle:
        return bool(pattern.search(handle.read(16 * 1024 * 1024)))


class HtmlKind:
    name = "html"

    def matches(self, source: Source) -> bool:
        return True  # the last resort: whatever a server sends as HTML

    async def fetch(self, ctx: Context) -> Outcome:
        # A partial mirror (a shell no browser rendered) is never "unchanged": ask for the page again;
        # so is one made before pages' styles were kept, once (its archived copy would stay unstyled).
        previous = ctx.previous
        unstyled = previous is not None and previous.body_file == BODY and ctx.options.max_styles > 0 and not _styles_considered(previous.extractor)
        partial = previous is not None and (previous.status is Status.PARTIAL or unstyled)
        conditional: dict[str, str] = {} if partial else ctx.conditional
        download = await ctx.http.download(
            ctx.source.url, ctx.stage / BODY, ctx.log, accept="text/html,application/xhtml+xml;q=0.9,*/*;q=0.5", on_bytes=ctx.on_bytes,
            etag=conditional.get("etag", ""), last_modified=conditional.get("last_modified", ""),
        )
        if not partial and (download.not_modified or ctx.same_as_before(download.sha256)):
            return Outcome(unchanged=True, exchanges=download.exchanges)
        content_type = download.content_type.lower()
        if content_type and not any(t in content_type for t in ("html", "xml", "text/")):
            # Not a page (an archive, a binary): keep the bytes, extract nothing.
            await asyncio.to_thread((ctx.stage / BODY).rename, ctx.stage / BINARY)
            return Outcome.from_download(download, BINARY, exchanges=_renamed(download.exchanges, ctx.stage / BODY, ctx.stage / BINARY))
        pairs = cite_pairs(ctx.source.url, download.requested_url, ctx.options)
        wants_images = ctx.source.kind in IMAGE_KINDS and ctx.options.max_images > 0
        wants_styles = ctx.options.max_styles > 0
        args = (str(ctx.stage / BODY), str(ctx.stage / TEXT), download.final_url, download.content_type, pairs, wants_styles)
        more = (wants_images and await asyncio.to_thread(_has, ctx.stage / BODY, _IMG)) or (wants_styles and await asyncio.to_thread(_has, ctx.stage / BODY, _STYLED))
        if ctx.options.browser == "always" or more:
            facts = await ctx.run_cpu(extract_html, *args)  # the download slot is kept: more downloads follow
            return await self._more(ctx, download, args, facts, wants_images)
        if ctx.leave_downloads is not None:
            await ctx.leave_downloads()
        facts, finished = await ctx.run_cpu(_extract_unless_shell, args, str(ctx.stage), download.exchanges, ctx.options.warc)
        if finished is None:
            return await self._more(ctx, download, args, facts, wants_images)
        return self._outcome(download, facts, finished, styles_considered=ctx.options.max_styles > 0, partial_reason=facts["hollow"])

    async def _more(self, ctx: Context, download: Download, args: tuple, facts: dict, wants_images: bool) -> Outcome:
        """Render a shell (or every page under browser: always), keep the images and the stylesheets, then finish."""
        options, stage = ctx.options, ctx.stage
        exchanges = tuple(download.exchanges)
        shell = tuple(facts["shell"])
        renderer, extra, partial_reason = "", {}, ""
        if options.browser == "always" or (shell and options.browser == "auto"):
            why = browser.unavailable(options.chromium)
            if why and shell:
                partial_reason = f"{NEEDS_JS}: the page is a script-built shell and {why}"
            elif not why:
                try:
                    async with ctx.state.setdefault("browser", asyncio.Semaphore(1)):
                        body = await asyncio.to_thread((stage / BODY).read_bytes)
                        rendered = await browser.render(
                            download.final_url, body, download.content_type, stage / browser.SCREENSHOT,
                            chromium=options.chromium, user_agent=options.user_agent, load_timeout=options.read_timeout,
                            record_dir=stage if options.warc else None,
                        )
                    exchanges += rendered.exchanges  # what the page's scripts fetched: a replay shows the page
                    await asyncio.to_thread((stage / browser.RENDERED).write_text, rendered.html, encoding="utf-8")
                    facts = await ctx.run_cpu(extract_html, str(stage / browser.RENDERED), args[1], args[2], "text/html; charset=utf-8", args[4], args[5])
                    renderer, extra = rendered.renderer, rendered.versions
                    if shell and facts["text_chars"] < 20:  # CJK is dense: a heading and a sentence are ~40
                        partial_reason = f"{NEEDS_JS}: rendered in Chromium, the page still holds almost no text (its scripts may need a login or a blocked host)"
                except FetchError as exc:
                    await asyncio.to_thread((stage / browser.SCREENSHOT).unlink, missing_ok=True)  # of a render that did not finish
                    if shell:
                        partial_reason = f"{NEEDS_JS}: {exc}"
        elif shell:
            partial_reason = f"{NEEDS_JS}: the page is a script-built shell and fetch.browser is 'never' (set it to 'auto', with chromium installed, to render it)"
        partial_reason = partial_reason or facts["hollow"]
        saved: tuple[SavedImage, ...] = ()
        if wants_images and facts["used_images"]:
            saved, image_exchanges = await images.download_images(ctx.http, stage, facts["used_images"], options.max_images, page=download.final_url)
            exchanges += image_exchanges
        styled: tuple[SavedStyle, ...] = ()
        if options.max_styles > 0 and (facts["stylesheets"] or facts["style_refs"]):
            styled, style_exchanges = await styles.download_styles(ctx.http, stage, facts["stylesheets"], facts["style_refs"], options.max_styles,
                                                                   run_cpu=ctx.run_cpu, memo=ctx.state.setdefault("style-references", {}), page=download.final_url)
            exchanges += style_exchanges
        _, finished = await ctx.extract(images.localise, args[1], [asdict(s) for s in saved], exchanges=exchanges)
        screenshot = await asyncio.to_thread((stage / browser.SCREENSHOT).is_file)
        return self._outcome(download, facts, finished, exchanges=exchanges, saved=saved, styled=styled, styles_considered=options.max_styles > 0,
                             renderer=renderer, extra=extra,
                             shell=shell, partial_reason=partial_reason, screenshot=screenshot)

    def _outcome(self, download: Download, facts: dict, finished, *, exchanges=None, saved=(), styled=(), styles_considered=False, renderer="", extra=None,
                 shell=(), partial_reason="", screenshot=False) -> Outcome:
        document = Document(
            title=facts["title"], language=facts["language"], published=facts["published"], authors=tuple(facts["authors"]),
            images=tuple(facts["images"]), image_files=tuple(saved), region=facts["region"], renderer=renderer,
            screenshot=browser.SCREENSHOT if screenshot else "", shell=tuple(shell), partial_reason=partial_reason, style_files=tuple(styled),
            **{k: facts.get(k, "") for k in ("doi", "arxiv_id", "venue", "facts_from")},
        )
        return Outcome.from_download(
            download, BODY, text_file=TEXT, document=document, extractor=Extractor("corpus-build-html", {**versions(), **(extra or {}), **({STYLES: styles.VERSION} if styles_considered else {})}),
            finished=finished, exchanges=exchanges if exchanges is not None else download.exchanges,
        )
