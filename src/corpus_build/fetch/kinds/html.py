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
from ..citemeta import citation_facts, citation_meta
from ..extract import shell_signals, to_markdown
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
    header = _HEADER_CHARSET.search(content_type or "")
    if header:
        labels.append(header.group(1))
    meta = _META_CHARSET.search(data[:4096])
    if meta:
        labels.append(meta.group(1).decode("ascii", "replace"))
    labels.append("utf-8")
    for label in labels:
        codec = _codec(label)
        if codec:
            try:
                return data.decode(codec), codec
            except UnicodeDecodeError:
                continue
    from charset_normalizer import from_bytes

    best = from_bytes(data[:200_000]).best()
    guess = (_codec(best.encoding) if best else None) or "utf-8"
    return data.decode(guess, errors="replace"), guess


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


def page_text(data: bytes, url: str, content_type: str, pairs: tuple[tuple[str, str], ...] = ()) -> dict:
    """Decode, parse once, write the main text as Markdown, read the page's facts. Plain data out."""
    import trafilatura

    text, encoding = decode_html(data, content_type)
    # trafilatura's loader (lxml underneath, with its fixes for broken markup); the walk in
    # to_markdown leaves the tree as it is, and extract_metadata(), which may change it, comes last.
    tree = trafilatura.load_html(text)
    root = tree if tree is not None else _lenient_tree(text)
    language, page_title = _page_facts(root)
    markdown, region, used, shell = "", "", [], []
    sheets, named = styles.page_styles(root, url)
    if root is not None:
        extraction = to_markdown(root, url, functools.partial(cite_space, pairs=pairs))
        markdown, region, used = extraction.markdown, extraction.region, extraction.images
        shell = shell_signals(root, len(data))
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
        "title": " ".join((cited.get("title") or [""])[0].split()) or page_title or (meta.title if meta else "") or "",
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
        "text_chars": len(markdown) - markdown.count(" ") - markdown.count("\n"),
        **citation_facts(cited),
        "facts_from": "citation-meta" if cited.get("title") or cited.get("author") or cited.get("date") or cited.get("publication_date") else "html-meta",
    }


def extract_html(body: str, out: str, url: str, content_type: str, pairs: tuple[tuple[str, str], ...] = ()) -> dict:
    """Runs in a worker process: page_text of the file `body`, Markdown written to `out`."""
    facts = page_text(Path(body).read_bytes(), url, content_type, pairs)
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
        args = (str(ctx.stage / BODY), str(ctx.stage / TEXT), download.final_url, download.content_type, pairs)
        wants_images = ctx.source.kind in IMAGE_KINDS and ctx.options.max_images > 0
        wants_styles = ctx.options.max_styles > 0
        more = (wants_images and await asyncio.to_thread(_has, ctx.stage / BODY, _IMG)) or (wants_styles and await asyncio.to_thread(_has, ctx.stage / BODY, _STYLED))
        if ctx.options.browser == "always" or more:
            facts = await ctx.run_cpu(extract_html, *args)  # the download slot is kept: more downloads follow
            return await self._more(ctx, download, args, facts, wants_images)
        if ctx.leave_downloads is not None:
            await ctx.leave_downloads()
        facts, finished = await ctx.run_cpu(_extract_unless_shell, args, str(ctx.stage), download.exchanges, ctx.options.warc)
        if finished is None:
            return await self._more(ctx, download, args, facts, wants_images)
        return self._outcome(download, facts, finished, styles_considered=ctx.options.max_styles > 0)

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
                    facts = await ctx.run_cpu(extract_html, str(stage / browser.RENDERED), args[1], args[2], "text/html; charset=utf-8", args[4])
                    renderer, extra = rendered.renderer, rendered.versions
                    if shell and facts["text_chars"] < 20:  # CJK is dense: a heading and a sentence are ~40
                        partial_reason = f"{NEEDS_JS}: rendered in Chromium, the page still holds almost no text (its scripts may need a login or a blocked host)"
                except FetchError as exc:
                    await asyncio.to_thread((stage / browser.SCREENSHOT).unlink, missing_ok=True)  # of a render that did not finish
                    if shell:
                        partial_reason = f"{NEEDS_JS}: {exc}"
        elif shell:
            partial_reason = f"{NEEDS_JS}: the page is a script-built shell and fetch.browser is 'never' (set it to 'auto', with chromium installed, to render it)"
        saved: tuple[SavedImage, ...] = ()
        if wants_images and facts["used_images"]:
            saved, image_exchanges = await images.download_images(ctx.http, stage, facts["used_images"], options.max_images)
            exchanges += image_exchanges
        styled: tuple[SavedStyle, ...] = ()
        if options.max_styles > 0 and (facts["stylesheets"] or facts["style_refs"]):
            styled, style_exchanges = await styles.download_styles(ctx.http, stage, facts["stylesheets"], facts["style_refs"], options.max_styles,
                                                                   run_cpu=ctx.run_cpu, memo=ctx.state.setdefault("style-references", {}))
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
