"""An HTML page's stylesheets and what they use, kept in the mirror (styles/) so its archived
copy looks like the original (issue 21).

What is kept: the sheets the page links (`<link rel=stylesheet>`, not alternates), the sheets
they and the page's `<style>` blocks `@import` (at most MAX_DEPTH deep), and the images and
fonts those sheets and the page's `<style>` blocks and `style=` attributes name in url().
Each goes through the run's HttpClient like every other download (size caps, timeouts,
retries, per-host limits, rewrites and fallbacks), at most `max_styles` files per source; a
failure is recorded with its error, never fatal. A sheet is kept only when the server calls it
text/css (a browser in standards mode ignores anything else), an image or a font only when its
bytes are a raster image (images.py) or a WOFF/WOFF2/TrueType/OpenType font: no SVG, which can
carry script, and the site serves these copies from its own origin.

Reading a sheet for what it loads costs about 3 µs a byte (tinycss2 is pure Python), so it runs
in the extraction workers, once per distinct sheet in a run: a site's pages share their sheets.

The sheets are kept as sent; render rewrites their addresses to the published copies (and
drops whatever it cannot) when it publishes them (core/css.py).
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

from ..core import css
from ..core.errors import FetchError
from ..core.provenance import SavedStyle
from .http import AttemptLog, Download, Exchange
from .images import _sniff as raster_type
from .images import discard, keep_by_content

FOLDER = "styles"
VERSION = "1"  # recorded with each HTML mirror that looked for its styles; a mirror without it is fetched again once
MAX_DEPTH = 3  # page -> sheet -> @import -> @import: deeper chains are recorded, not fetched
SHEET_BYTES = 4 * 1024 * 1024  # one stylesheet; real ones stay well under 1 MB
STYLESHEET, IMPORT, IMAGE, FONT = "stylesheet", css.IMPORT, css.IMAGE, css.FONT
_ACCEPT = {STYLESHEET: "text/css,*/*;q=0.1", IMPORT: "text/css,*/*;q=0.1", IMAGE: "image/avif,image/webp,image/png,image/jpeg,image/*;q=0.8",
           FONT: "font/woff2,font/woff,font/ttf,font/otf,*/*;q=0.5"}
# Formats no browser of ours picks while a WOFF2 or WOFF is offered beside them.
_SKIPPED_FONTS = (".eot", ".svg", ".svgz")


def font_type(head: bytes) -> str:
    """The font format the bytes really are, or ""."""
    if head.startswith(b"wOF2"):
        return ".woff2"
    if head.startswith(b"wOFF"):
        return ".woff"
    if head.startswith((b"\x00\x01\x00\x00", b"true")):
        return ".ttf"
    if head.startswith(b"OTTO"):
        return ".otf"
    return ""


def page_styles(root: Any, url: str) -> tuple[list[str], list[tuple[str, str]]]:
    """(linked sheets, (address, kind) named by <style> blocks and style= attributes) of a parsed page, absolute.

    Runs in the extraction worker on the lxml tree page_text parsed; `<base href>` is honoured
    as a browser honours it.
    """
    if root is None:
        return [], []
    base = url
    for tag in root.iter("base"):
        if tag.get("href"):
            base = urljoin(url, tag.get("href").strip())
            break
    sheets: list[str] = []
    for link in root.iter("link"):
        rel = (link.get("rel") or "").lower().split()
        if "stylesheet" in rel and "alternate" not in rel and link.get("href") and link.get("disabled") is None:
            sheets.append(urljoin(base, link.get("href").strip()))
    named: list[tuple[str, str]] = []
    for style in root.iter("style"):
        if (style.get("type") or "text/css").strip().lower() not in ("text/css", ""):
            continue  # text/less and the like: no browser applies it
        named += [(urljoin(base, r.url), r.kind) for r in css.references(style.text or "")]
    for element in root.iter():
        value = element.get("style") if isinstance(element.tag, str) else None
        if value and "url" in value.lower():
            named += [(urljoin(base, r.url), r.kind) for r in css.references(value, declarations=True)]
    return _web(sheets)[:500], [(u, k) for u, k in dict.fromkeys(named) if _web([u])][:2000]


def _web(urls: list[str]) -> list[str]:
    return list(dict.fromkeys(u.split("#", 1)[0] for u in urls if urlsplit(u).scheme in ("http", "https")))


def sheet_references(path: str, content_type: str) -> list[tuple[str, str]]:
    """Runs in a worker: (address as written, kind) of everything the sheet at `path` loads."""
    return [(r.url, r.kind) for r in css.references(css.decode(Path(path).read_bytes(), content_type))]


async def download_styles(http, stage: Path, sheets: list[str], named: list[tuple[str, str]], limit: int, *,
                          run_cpu: Callable[..., Awaitable[Any]] | None = None,
                          memo: dict[str, list[tuple[str, str]]] | None = None, page: str = "") -> tuple[tuple[SavedStyle, ...], tuple[Exchange, ...]]:
    """(records, exchanges for the WARC): the sheets, their imports, then the images and fonts of the page at `page`, into stage/styles/.

    `run_cpu(fn, *args)` reads the sheets (default: a thread); `memo`, by sha256, keeps what
    each sheet loads for the rest of the run.
    """
    run_cpu = run_cpu or asyncio.to_thread
    memo = {} if memo is None else memo
    folder = stage / FOLDER
    numbers = itertools.count()
    records: dict[str, SavedStyle] = {}
    exchanges: list[Exchange] = []
    level = [(u, STYLESHEET) for u in sheets] + [(u, IMPORT) for u, kind in named if kind == IMPORT]
    assets = [(u, kind) for u, kind in named if kind != IMPORT]
    for depth in range(MAX_DEPTH + 1):
        todo = _fresh(level, records)
        if not todo:
            break
        found = await _batch(http, folder, numbers, todo, records, exchanges, limit, page)
        level = []
        for record in found:
            if record.sha256 not in memo:
                memo[record.sha256] = await run_cpu(sheet_references, str(stage / record.path), record.content_type)
            base = record.fetched_url or record.url
            for url, kind in memo[record.sha256]:
                address = urljoin(base, url).split("#", 1)[0]
                if not _web([address]):
                    continue
                if kind != IMPORT:
                    assets.append((address, kind))
                elif depth < MAX_DEPTH:
                    level.append((address, IMPORT))
                elif address not in records:
                    records[address] = SavedStyle(url=address, role=IMPORT, error=f"not kept: @import nested deeper than {MAX_DEPTH} stylesheets")
    wanted = [(u, k) for u, k in _fresh(assets, records) if not (k == FONT and urlsplit(u).path.lower().endswith(_SKIPPED_FONTS))]
    await _batch(http, folder, numbers, wanted, records, exchanges, limit, page)
    return tuple(records.values()), tuple(exchanges)


def _fresh(wanted: list[tuple[str, str]], records: dict[str, SavedStyle]) -> list[tuple[str, str]]:
    """Each address once, and none already downloaded (or refused)."""
    return [(u, k) for u, k in dict.fromkeys(wanted) if u not in records and _web([u])]


async def _batch(http, folder: Path, numbers, todo: list[tuple[str, str]], records: dict[str, SavedStyle], exchanges: list[Exchange],
                 limit: int, page: str) -> list[SavedStyle]:
    """Download `todo` within the per-source cap; the records go into `records`, those of the kept sheets are returned."""
    room = max(0, limit - sum(1 for r in records.values() if not r.error.startswith("not kept: over the cap")))
    chosen, over = todo[:room], todo[room:]
    for url, role in over:
        records[url] = SavedStyle(url=url, role=role, error=f"not kept: over the cap of {limit} stylesheet files per source (fetch.max_styles)")
    results = await asyncio.gather(*(_one(http, folder, next(numbers), url, role, page) for url, role in chosen))
    sheets = []
    for (url, role), (record, moved) in zip(chosen, results, strict=True):
        records[url] = record
        exchanges.extend(moved)
        if record.path and role in (STYLESHEET, IMPORT):
            sheets.append(record)
    return sheets


async def _one(http, folder: Path, n: int, url: str, role: str, page: str) -> tuple[SavedStyle, tuple[Exchange, ...]]:
    temp = folder / f"download-{n}.part"
    try:
        # (`page`, not the sheet: a public page's sheet may not name this machine either)
        download = await http.download(url, temp, AttemptLog(), accept=_ACCEPT[role], referrer=page)
    except FetchError as exc:
        return SavedStyle(url=url, role=role, error=str(exc)), ()
    return await asyncio.to_thread(_keep, folder, temp, download, url, role)  # file I/O off the event loop


def _keep(folder: Path, temp: Path, download: Download, url: str, role: str) -> tuple[SavedStyle, tuple[Exchange, ...]]:
    """Keep `temp` under its content address when it is what `role` needs."""
    declared = download.content_type.split(";")[0].strip().lower()
    with open(temp, "rb") as handle:
        head = handle.read(16)
    why = ""
    if role in (STYLESHEET, IMPORT):
        suffix = ".css" if declared == "text/css" else ""
        if not suffix:
            why = f"not kept: '{declared or 'no content type'}' is not a stylesheet (text/css)"
        elif download.bytes > SHEET_BYTES:
            why = f"not kept: {download.bytes:,} bytes, over the {SHEET_BYTES:,} a stylesheet may have"
    else:
        suffix = raster_type(head) or font_type(head)
        if not suffix:
            why = f"not kept: '{declared or 'no content type'}' is neither a raster image (PNG, JPEG, GIF, WebP, AVIF, BMP) nor a font (WOFF2, WOFF, TrueType, OpenType)"
    if why:
        discard(temp)
        return SavedStyle(url=url, role=role, fetched_url=download.final_url, content_type=download.content_type, bytes=download.bytes, error=why), ()
    name, exchanges = keep_by_content(folder, temp, download, suffix)
    record = SavedStyle(url=url, role=role, fetched_url=download.final_url, path=f"{FOLDER}/{name}", sha256=download.sha256,
                        content_type=download.content_type, bytes=download.bytes)
    return record, exchanges
