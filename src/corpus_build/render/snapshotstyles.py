"""The archived copy's look (issue 21): the mirror's stylesheets published beside it, sanitised,
and its own `<style>` blocks and `style=` attributes moved into published files.

An archived page is published under a policy (mirror.SNAPSHOT_CSP) that loads styles, images and
fonts from the site's own origin only (fonts also as data: URLs) and runs no inline style, so
everything here ends up as a file under sources/<id>/archive/styles/:

- each stylesheet the mirror kept (fetch/styles.py), its addresses rewritten by core/css.py to
  the published copies beside it, or dropped; the images it uses, copied as they are (their
  bytes were checked when they were downloaded, their names are checked here); its fonts inside
  it as data: URLs (up to INLINE_FONT each). A font is fetched in CORS mode, and the sandboxed
  frame that shows the copy has an opaque origin: a font file on the site then needs the host
  to send Access-Control-Allow-Origin (GitHub Pages does, `python -m http.server` and most
  others do not). A data: font needs nothing, and only our own sheets can name one;
- each `<style>` block, sanitised the same way, as its own file linked where the block was (the
  order of a page's sheets is its cascade); one inside `<svg>` or `<math>`, where a `<link>` means
  nothing, is linked at the end of `<head>`;
- the `style=` attributes, one rule each (`[data-cb-style="N"]{… !important}`) in one file linked
  last: an attribute outranks the page's sheets, and !important on a later sheet is the nearest
  a file gets. Loosening the policy instead (`'unsafe-hashes'`, `style-src-attr 'unsafe-inline'`)
  would let the attributes through unchecked; this way they pass the same sanitiser.

Sanitising costs about 3 µs a byte (tinycss2 is pure Python: 1.9 s for a 600 KB sheet), so each
result is kept under `.corpus-build/cache/styles/` beside the corpus (`corpus-build clean`
removes it), keyed by the sheet's bytes, the copies it can point at and our code: a rebuild
reads it back.

The names of the copies come from provenance, which a fresh clone or a hand edit can get wrong:
only `styles/<20 hex><known suffix>` files that are in the mirror are published.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import hashlib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from ..core import cachekeys, css
from ..core.model import Corpus, Source
from ..core.provenance import Provenance, write_atomic
from .mirrortext import mirror_file

FOLDER = "styles"  # under the archive folder, as in the mirror
LOCAL_STYLE = re.compile(r"styles/[0-9a-f]{20}\.(?:css|png|jpg|gif|webp|avif|bmp|woff2|woff|ttf|otf)")
SHEET_BYTES = 4 * 1024 * 1024  # as fetch/styles.py: a larger file is not a sheet we kept
ATTRIBUTE = "data-cb-style"
INLINE_FONT = 512 * 1024  # a font up to this size goes into the sheets; a larger one is a file (see above)
_FONT_TYPES = {".woff2": "font/woff2", ".woff": "font/woff", ".ttf": "font/ttf", ".otf": "font/otf"}
CACHE = Path(".corpus-build") / "cache" / "styles"  # beside corpus/


@dataclass(frozen=True)
class PublishedStyles:
    """A mirror's stylesheets as published: the files, and where each address's copy is."""

    files: dict[str, bytes | Path] = field(default_factory=dict)  # path under the archive folder -> content
    sheets: dict[str, str] = field(default_factory=dict)  # absolute address -> file name in styles/
    assets: dict[str, str] = field(default_factory=dict)  # absolute address -> file name in styles/
    fonts: dict[str, str] = field(default_factory=dict)  # file name in styles/ -> data: URL, for the fonts put inside the sheets

    def resolver(self, base: str) -> css.Resolve:
        """Addresses of CSS at `base` -> the copy's name in styles/ (where every published sheet is)."""

        def resolve(address: str, kind: str) -> str | None:
            absolute = urljoin(base, address.strip()).split("#", 1)[0]
            name = (self.sheets if kind == css.IMPORT else self.assets).get(absolute)
            return self.fonts.get(name, name) if name else None

        return resolve


def published_styles(corpus: Corpus, source: Source, record: Provenance) -> PublishedStyles:
    """The mirror's kept stylesheets, images and fonts, ready to publish beside its archived page."""
    kept = [(s, mirror_file(corpus, source, s.path)) for s in record.document.style_files if s.path and LOCAL_STYLE.fullmatch(s.path)]
    present = [(s, path) for s, path in kept if path is not None]
    styles = PublishedStyles()
    for saved, _path in present:
        name = saved.path.split("/", 1)[1]
        target = styles.sheets if name.endswith(".css") else styles.assets
        for address in (saved.url, saved.fetched_url):
            if address:
                target.setdefault(address.split("#", 1)[0], name)
    for saved, path in present:
        name = saved.path.split("/", 1)[1]
        if name.endswith(".css"):
            continue
        font = _FONT_TYPES.get(Path(name).suffix)
        try:
            if font and path.stat().st_size <= INLINE_FONT:
                styles.fonts[name] = f"data:{font};base64," + base64.b64encode(path.read_bytes()).decode("ascii")
                continue
        except OSError:
            continue
        styles.files[f"{FOLDER}/{name}"] = path
    for saved, path in present:
        name = saved.path.split("/", 1)[1]
        if not name.endswith(".css"):
            continue
        try:
            if path.stat().st_size > SHEET_BYTES:
                continue
            data = path.read_bytes()
        except OSError:
            continue
        base = saved.fetched_url or saved.url
        make = functools.partial(_sanitized, data, saved.content_type, styles.resolver(base))
        styles.files[f"{FOLDER}/{name}"] = _cached(corpus.root.parent / CACHE, (data, saved.content_type, base, styles.sheets, styles.assets, sorted(styles.fonts)), make)
    return styles


def _sanitized(data: bytes, content_type: str, resolve: css.Resolve) -> str:
    return css.sanitize(css.decode(data, content_type), resolve)


def _cached(folder: Path, parts: tuple[bytes, str, str, dict[str, str], dict[str, str], list[str]], make: Callable[[], str]) -> bytes:
    """make() as UTF-8, or what it gave for the same parts and code before (an unreadable cache is a slower build)."""
    data, *rest = parts
    key = cachekeys.digest(hashlib.sha256(data).hexdigest(), *rest, cachekeys.code_version(), _tinycss2_version())
    place = folder / f"{key}.css"
    with contextlib.suppress(OSError):
        return place.read_bytes()
    out = make().encode("utf-8")
    with contextlib.suppress(OSError):
        write_atomic(place, out.decode("utf-8"))
    return out


@functools.cache
def _tinycss2_version() -> str:
    from importlib import metadata

    try:
        return metadata.version("tinycss2")
    except metadata.PackageNotFoundError:
        return ""


def restyle(soup: Any, bases: tuple[str, ...], styles: PublishedStyles) -> dict[str, bytes]:
    """Point the page's stylesheet links at the published copies and move its inline styles into
    files (see the module's docstring); returns those files (path under the archive folder -> bytes)."""
    made: dict[str, bytes] = {}

    def sheet(address: str) -> str | None:
        for base in bases or ("",):
            found = styles.sheets.get(urljoin(base, address.strip()).split("#", 1)[0])
            if found:
                return found
        return None

    def link(soup: Any, href: str, media: str) -> Any:
        tag = soup.new_tag("link")
        tag["rel"] = "stylesheet"
        tag["href"] = href
        if media:
            tag["media"] = media
        return tag

    for tag in soup.find_all("link"):
        rel = [str(r).lower() for r in (tag.get("rel") or [])]
        applies = "stylesheet" in rel and "alternate" not in rel and not tag.has_attr("disabled")  # as the original showed it
        copy = sheet(str(tag.get("href") or "")) if applies else None
        if copy:
            tag.replace_with(link(soup, f"{FOLDER}/{copy}", str(tag.get("media") or "")))
        elif not str(tag.get("href") or "").startswith("data:"):
            tag.decompose()  # icons, preloads, sheets the mirror lacks: each would be a failed request
    resolve = _first_of(styles, bases)
    late = []
    for block in soup.find_all("style"):
        kind = str(block.get("type") or "text/css").strip().lower()
        text = css.sanitize(block.string or block.get_text(), resolve) if kind in ("text/css", "") else ""  # a browser skips text/less and the like
        if not text:
            block.decompose()
            continue
        name = f"{FOLDER}/inline-{hashlib.sha256(text.encode('utf-8')).hexdigest()[:16]}.css"
        made[name] = text.encode("utf-8")
        new = link(soup, name, str(block.get("media") or ""))
        if block.find_parent(["svg", "math"]) is not None:
            block.decompose()  # a <link> means nothing there: the rules go to the end of <head>
            late.append(new)
        else:
            block.replace_with(new)
    rules = []
    for n, element in enumerate(soup.find_all(style=True)):
        text = css.sanitize_declarations(str(element["style"]), resolve, important=True)
        del element["style"]  # the policy refuses it anyway: no console error for each one
        if text:
            element[ATTRIBUTE] = str(n)
            rules.append(f'[{ATTRIBUTE}="{n}"]{{{text}}}')
    if rules:
        data = "\n".join(rules).encode("utf-8")
        name = f"{FOLDER}/attributes-{hashlib.sha256(data).hexdigest()[:16]}.css"
        made[name] = data
        late.append(link(soup, name, ""))
    head = soup.find("head") or soup
    for tag in late:
        head.append(tag)
    return made


def _first_of(styles: PublishedStyles, bases: Iterable[str]) -> css.Resolve:
    """An address of the page's own CSS -> its copy, tried against each address the page had."""
    resolvers = [styles.resolver(base) for base in bases or ("",)]

    def resolve(address: str, kind: str) -> str | None:
        return next((found for r in resolvers if (found := r(address, kind))), None)

    return resolve
