"""The archived copy's look (issue 21): the mirror's stylesheets published beside it, sanitised,
and its own `<style>` blocks and `style=` attributes moved into published files.

An archived page is published under a policy (mirror.SNAPSHOT_CSP) that loads styles, images and
fonts from the site's own origin only (fonts also as data: URLs) and runs no inline style, so
everything here ends up as a file under sources/<id>/archive/styles/:

- each stylesheet the mirror kept (fetch/styles.py), its addresses rewritten by core/css.py to
  the published copies beside it, or dropped; the images it uses, copied as they are (their
  bytes were checked when they were downloaded, their names are checked here), each once;
  its fonts inside it as data: URLs (up to INLINE_FONT each). A font is fetched in CORS mode,
  and the sandboxed frame that shows the copy has an opaque origin: a font file on the site
  then needs the host to send Access-Control-Allow-Origin (GitHub Pages does, `python -m
  http.server` and most others do not). A data: font needs nothing, and only our own sheets
  can name one. But a font is inlined only where the page's sheets name it once: one named by
  several rules (a family's weights, or 400 `@font-face` rules naming one 500 KB font, which
  made a 273 MB sheet) is published once as a file that they all name (`inline_fonts`);
- each `<style>` block, sanitised the same way, as its own file linked where the block was (the
  order of a page's sheets is its cascade); one inside `<svg>` or `<math>`, where a `<link>` means
  nothing, is linked at the end of `<head>`;
- the `style=` attributes, one rule for each distinct declaration text (`[data-cb-style="N"]{…
  !important}`, the elements that share a text share N) in one file linked last: an attribute
  outranks the page's sheets, and !important on a later sheet is the nearest a file gets.
  Loosening the policy instead (`'unsafe-hashes'`, `style-src-attr 'unsafe-inline'`) would let
  the attributes through unchecked; this way they pass the same sanitiser. Bounded: at most
  ATTRIBUTE_ELEMENTS elements keep theirs, in at most ATTRIBUTE_RULES rules and ATTRIBUTE_BYTES
  (every element is matched against every such rule: 30,000 of them took a browser 59 s).

A source's archive is bounded too: the page, its sheets, fonts and images together publish at
most corpus.yaml's `archive_max_bytes` (ARCHIVE_BYTES by default). Over it, the archive keeps
the page and as many of its sheets, then of their fonts and images, as fit, in the page's order
(`archive_budget`, which reads only file sizes, so the source page's note and the published
files agree); the build never fails for it.

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
ARCHIVE_BYTES = 20 * 1024 * 1024  # corpus.yaml `archive_max_bytes` by default: one source's archived page and its styles
ATTRIBUTE_ELEMENTS = 10_000  # elements whose style= attribute is kept
ATTRIBUTE_RULES = 1_000  # distinct declaration texts among them
ATTRIBUTE_BYTES = 256 * 1024  # the rule file they make
_FONT_TYPES = {".woff2": "font/woff2", ".woff": "font/woff", ".ttf": "font/ttf", ".otf": "font/otf"}
CACHE = Path(".corpus-build") / "cache" / "styles"  # beside corpus/


@dataclass(frozen=True)
class PublishedStyles:
    """A mirror's stylesheets as published: the files, and where each address's copy is."""

    files: dict[str, bytes | Path] = field(default_factory=dict)  # path under the archive folder -> content
    sheets: dict[str, str] = field(default_factory=dict)  # absolute address -> file name in styles/
    assets: dict[str, str] = field(default_factory=dict)  # absolute address -> file name in styles/ (images and fonts)
    fonts: dict[str, Path] = field(default_factory=dict)  # file name in styles/ -> the font in the mirror (inline_fonts publishes it)

    def resolver(self, base: str) -> css.Resolve:
        """Addresses of CSS at `base` -> the copy's name in styles/ (where every published sheet is)."""

        def resolve(address: str, kind: str) -> str | None:
            absolute = urljoin(base, address.strip()).split("#", 1)[0]
            return (self.sheets if kind == css.IMPORT else self.assets).get(absolute)

        return resolve


@dataclass(frozen=True)
class Budget:
    """Which of a mirror's style files its archive publishes, under the per-source cap (`archive_budget`)."""

    kept: frozenset[str] | None = None  # names in styles/; None: all of them
    dropped: int = 0  # style files left out
    cap: int = ARCHIVE_BYTES


def archive_cap(corpus: Corpus) -> int:
    """corpus.yaml's `archive_max_bytes` (the registry checked it is a whole number in range), else ARCHIVE_BYTES."""
    value = corpus.settings.extra.get("archive_max_bytes")
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else ARCHIVE_BYTES


def _present(corpus: Corpus, source: Source, record: Provenance) -> list[tuple[Any, Path]]:
    kept = [(s, mirror_file(corpus, source, s.path)) for s in record.document.style_files if s.path and LOCAL_STYLE.fullmatch(s.path)]
    return [(s, path) for s, path in kept if path is not None]


def archive_budget(corpus: Corpus, source: Source, record: Provenance, page: Path) -> Budget:
    """The style files that fit beside the archived `page` within the source's cap: the sheets first, in
    the page's order, then their fonts and images. Reads only file sizes (a font counted as the data:
    URL it may become, the attribute rules at their bound), so it costs nothing to ask twice."""
    cap = archive_cap(corpus)
    try:
        total = page.stat().st_size + ATTRIBUTE_BYTES
    except OSError:
        return Budget(frozenset(), 0, cap)
    present = list({saved.path: (saved, path) for saved, path in _present(corpus, source, record)}.values())  # a file once, however many addresses it had
    ordered = [p for p in present if p[0].path.endswith(".css")] + [p for p in present if not p[0].path.endswith(".css")]
    kept, dropped = set(), 0
    for saved, path in ordered:
        try:
            size = path.stat().st_size
        except OSError:
            continue
        if Path(saved.path).suffix in _FONT_TYPES:
            size = size * 4 // 3 + 64  # base64 and its prefix
        if total + size <= cap:
            kept.add(saved.path.split("/", 1)[1])
            total += size
        else:
            dropped += 1
    return Budget(frozenset(kept) if dropped else None, dropped, cap)


def published_styles(corpus: Corpus, source: Source, record: Provenance, budget: Budget | None = None) -> PublishedStyles:
    """The mirror's kept stylesheets, images and fonts (those `budget` keeps), ready to publish beside its archived page."""
    allowed = budget.kept if budget is not None else None
    present = [(s, path) for s, path in _present(corpus, source, record) if allowed is None or s.path.split("/", 1)[1] in allowed]
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
        if Path(name).suffix in _FONT_TYPES:
            styles.fonts[name] = path  # published by inline_fonts, once, as the sheets name it
        else:
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


def inline_fonts(files: dict[str, bytes | Path], fonts: dict[str, Path]) -> dict[str, bytes | Path]:
    """The archive's style files with each font in place: inside the one sheet that names it once (a data:
    URL, up to INLINE_FONT), else published once as styles/<name> for every sheet that names it."""
    uses: dict[str, int] = dict.fromkeys(fonts, 0)
    sheets = {name: content for name, content in files.items() if name.endswith(".css") and isinstance(content, bytes)}
    found = {name: {m.group(1).decode("ascii") for m in _FONT_URL.finditer(text)} & uses.keys() for name, text in sheets.items()}
    for name, text in sheets.items():
        for font in found[name]:
            uses[font] += text.count(f"url({font})".encode("ascii"))
    out = dict(files)
    for font, count in uses.items():
        path = fonts[font]
        try:
            small = path.stat().st_size <= INLINE_FONT
        except OSError:
            continue
        if count == 1 and small:
            holder = next(name for name in sheets if font in found[name])
            try:
                data = f"data:{_FONT_TYPES[Path(font).suffix]};base64,".encode("ascii") + base64.b64encode(path.read_bytes())
            except OSError:
                continue
            current = out[holder]
            if isinstance(current, bytes):
                out[holder] = current.replace(f"url({font})".encode("ascii"), b"url(" + data + b")")
        elif count:
            out[f"{FOLDER}/{font}"] = path
    return out


_FONT_URL = re.compile(rb"url\(([0-9a-f]{20}\.(?:woff2|woff|ttf|otf))\)")


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
    rules: dict[str, int] = {}  # sanitised declarations -> their rule's number: elements that share a text share a rule
    sanitized: dict[str, str] = {}
    elements = size = 0
    for element in soup.find_all(style=True):
        raw = str(element["style"])
        del element["style"]  # the policy refuses it anyway: no console error for each one
        if elements >= ATTRIBUTE_ELEMENTS:
            continue
        if raw not in sanitized:
            sanitized[raw] = css.sanitize_declarations(raw, resolve, important=True) if len(sanitized) < 4 * ATTRIBUTE_RULES else ""
        text = sanitized[raw]
        if not text:
            continue
        if text not in rules:
            rule_bytes = len(text.encode("utf-8")) + len(ATTRIBUTE) + 16
            if len(rules) >= ATTRIBUTE_RULES or size + rule_bytes > ATTRIBUTE_BYTES:
                continue
            rules[text] = len(rules)
            size += rule_bytes
        element[ATTRIBUTE] = str(rules[text])
        elements += 1
    if rules:
        data = "\n".join(f'[{ATTRIBUTE}="{n}"]{{{text}}}' for text, n in rules.items()).encode("utf-8")
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
