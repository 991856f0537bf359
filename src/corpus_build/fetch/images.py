"""Images of an article's or doc's main text, kept in the mirror beside text.md.

Each goes through the run's HttpClient like every other download (size caps, timeouts,
retries, per-host limits, rewrites and fallbacks), at most `max_images` per source. An
image that fails is recorded with its error, never fatal. Only raster formats whose
bytes match their declared type are kept: an SVG can carry script, and the site serves
these copies from its own origin.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from ..core.errors import FetchError
from ..core.provenance import SavedImage
from .http import AttemptLog, Download, Exchange, move_body, raw_twin

FOLDER = "images"
_TYPES = {
    "image/png": ".png", "image/jpeg": ".jpg", "image/jpg": ".jpg", "image/pjpeg": ".jpg", "image/gif": ".gif",
    "image/webp": ".webp", "image/avif": ".avif", "image/bmp": ".bmp",
}


def _sniff(head: bytes) -> str:
    """The raster type the bytes really are, or ""."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return ".png"
    if head.startswith(b"\xff\xd8\xff"):
        return ".jpg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return ".gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return ".webp"
    if head[4:12] in (b"ftypavif", b"ftypavis"):
        return ".avif"
    if head.startswith(b"BM"):
        return ".bmp"
    return ""


def _head(path: Path) -> bytes:
    with open(path, "rb") as handle:
        return handle.read(16)


async def download_images(http, stage: Path, wanted: list[dict], limit: int, page: str = "") -> tuple[tuple[SavedImage, ...], tuple[Exchange, ...]]:
    """(records, exchanges for the WARC): each wanted image ({"url", "cited"}) of the page at `page` downloaded into stage/images/."""
    unique: dict[str, dict] = {}
    for image in wanted:
        unique.setdefault(image["url"], image)
    chosen = list(unique.values())
    folder = stage / FOLDER
    results = await asyncio.gather(*(_one(http, folder, n, image, page) for n, image in enumerate(chosen[:limit])))
    records = [r for r, _ in results]
    exchanges = tuple(e for _, ex in results for e in ex)
    for image in chosen[limit:]:
        records.append(SavedImage(url=image["cited"], fetched_url=image["url"], error=f"not kept: over the cap of {limit} images per source (fetch.max_images)"))
    return tuple(records), exchanges


async def _one(http, folder: Path, n: int, image: dict, page: str) -> tuple[SavedImage, tuple[Exchange, ...]]:
    url, cited = image["url"], image["cited"]
    temp = folder / f"download-{n}.part"
    try:
        download = await http.download(url, temp, AttemptLog(), accept="image/avif,image/webp,image/png,image/jpeg,image/*;q=0.8", referrer=page)
    except FetchError as exc:
        return SavedImage(url=cited, fetched_url=url, error=str(exc)), ()
    return await asyncio.to_thread(_keep, folder, temp, download, cited)  # file I/O off the event loop


def _keep(folder: Path, temp: Path, download: Download, cited: str) -> tuple[SavedImage, tuple[Exchange, ...]]:
    """Keep the downloaded image `temp` under its content address, or drop it when it is not a raster image."""
    declared = download.content_type.split(";")[0].strip().lower()
    real = _sniff(_head(temp))
    if declared not in _TYPES or not real:
        discard(temp)
        what = f"'{declared}'" if declared else "no content type"
        return SavedImage(url=cited, fetched_url=download.final_url, content_type=declared, bytes=download.bytes,
                          error=f"not kept: {what} is not a raster image (PNG, JPEG, GIF, WebP, AVIF, BMP)"), ()
    name, exchanges = keep_by_content(folder, temp, download, real)
    return SavedImage(url=cited, fetched_url=download.final_url, path=f"{FOLDER}/{name}", sha256=download.sha256,
                      content_type=declared, bytes=download.bytes), exchanges


def discard(temp: Path) -> None:
    """Drop a download that is not kept, and its raw twin."""
    temp.unlink(missing_ok=True)
    raw_twin(temp).unlink(missing_ok=True)


def keep_by_content(folder: Path, temp: Path, download: Download, suffix: str) -> tuple[str, tuple[Exchange, ...]]:
    """Move the download `temp` into `folder` under its content address; its name and WARC exchanges.

    The same bytes under two addresses make one file (and the second records no body)."""
    name = f"{download.sha256[:20]}{suffix}"
    target = folder / name
    if target.exists():
        discard(temp)
        return name, ()
    return name, move_body(download.exchanges, temp, target)


def localise(text_path: str, saved: list[dict]) -> None:
    """Point text.md's image links at the local copies (runs in a worker, before the stage is hashed)."""
    path = Path(text_path)
    text = path.read_text(encoding="utf-8")
    for image in saved:
        if not image.get("path"):
            continue
        cited = image["url"].replace(" ", "%20").replace("(", "%28").replace(")", "%29").replace("<", "%3C").replace(">", "%3E")
        local = image["path"]

        def point(match: re.Match[str], local: str = local) -> str:
            return f"{match.group(1)}({local})"

        text = re.sub(r"(!\[[^\]\n]*\])\(" + re.escape(cited) + r"\)", point, text)
    path.write_text(text, encoding="utf-8")
