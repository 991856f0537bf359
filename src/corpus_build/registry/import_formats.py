"""Readers for the files reference managers export: CSL-JSON (Zotero), BibTeX/biblatex, RIS, URL lists.

Each reader turns a file into `Reference` records, one per entry, with where it came
from (`file:line` or `file: item N`) for messages. Parsing is left to well-kept
libraries (bibtexparser v2, rispy); what is done here is the mapping of each format's
field names onto one record.
"""

from __future__ import annotations

import functools
import html
import json
import os
import re
import stat
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from ..core import console, urls
from ..core.errors import UsageError, printable
from .yamlfile import kind_of_file

# An export larger than this is not one person's library: Zotero's CSL-JSON of 20,000 items
# with notes is ~30 MB, and the registry takes at most 16 MB per sources.yaml (core/limits.py).
MAX_IMPORT_BYTES = 64 * 1024 * 1024
# JSON nesting deeper than this is not a CSL-JSON export (items are 4 levels deep: list, item,
# author list, name); json.loads would recurse until RecursionError.
MAX_JSON_DEPTH = 64

FORMATS = ("csl-json", "bibtex", "ris", "urls")
_ARXIV_ID = re.compile(r"(?:arxiv[:/ ]\s*|arxiv\.org/(?:abs|pdf)/|10\.48550/arxiv\.)(\d{4}\.\d{4,5}|[a-z-]+(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?", re.IGNORECASE)
_DOI = re.compile(r"\b(10\.\d{4,9}/[^\s\"<>]+)", re.IGNORECASE)


@dataclass(frozen=True)
class Reference:
    where: str  # "refs.bib:12" or "zotero.json: item 3"
    key: str = ""  # the citation key or the exporter's id
    type: str = ""  # the format's own type word (article-journal, inproceedings, JOUR…)
    title: str = ""
    authors: tuple[str, ...] = ()
    date: str = ""  # YYYY, YYYY-MM or YYYY-MM-DD
    doi: str = ""
    arxiv: str = ""
    url: str = ""
    venue: str = ""
    note: str = ""  # the curator's annotation (Zotero note, BibTeX annote)
    tags: tuple[str, ...] = ()
    problem: str = ""  # why this reference cannot be imported (a URL-list line that is no URL); the others still are


def arxiv_id(*texts: str) -> str:
    for text in texts:
        match = _ARXIV_ID.search(text or "")
        if match:
            return match.group(1)
    return ""


def clean_doi(text: str) -> str:
    text = (text or "").strip()
    text = re.sub(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", "", text, flags=re.IGNORECASE)
    match = _DOI.search(text)
    return match.group(1).rstrip(".,;") if match else ""


def _date(year: Any = "", month: Any = "", day: Any = "") -> str:
    """YYYY, YYYY-MM or YYYY-MM-DD from parts that may be words (`may`), numbers or text."""
    months = {m: i for i, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), 1)}
    y = str(year or "").strip()
    if not re.fullmatch(r"\d{4}", y):
        return ""
    m_text = str(month or "").strip().lower()[:3]
    m = months.get(m_text) or (int(m_text) if m_text.isdigit() else 0)
    if not 1 <= m <= 12:
        return y
    d = str(day or "").strip()
    return f"{y}-{m:02d}-{int(d):02d}" if d.isdigit() and 1 <= int(d) <= 31 else f"{y}-{m:02d}"


def iso_date(text: str) -> str:
    """A date written as 2022-05-27, 2022/05/27/, 2022-05 or 2022."""
    parts = [p for p in re.split(r"[-/]", (text or "").strip()) if p]
    return _date(*[*parts, "", "", ""][:3]) if parts else ""


def note_text(text: str) -> str:
    """A note as Markdown-ready text: Zotero keeps notes as HTML (<p>…</p>)."""
    if not text:
        return ""
    text = text.replace("\r\n", "\n").replace("\r", "\n")  # a note typed on Windows
    if re.search(r"</?(p|div|br|span|strong|em|h\d)\b", text, re.IGNORECASE):
        text = re.sub(r"(?i)<br\s*/?>", "\n", text)
        text = re.sub(r"(?i)</(p|div|h\d)>", "\n\n", text)
        text = html.unescape(re.sub(r"<[^>]+>", "", text))
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def _tags(value: Any) -> tuple[str, ...]:
    items = value if isinstance(value, list) else re.split(r"[,;]", str(value or ""))
    out: list[str] = []
    for item in items:
        tag = (item.get("tag", "") if isinstance(item, dict) else str(item)).strip()
        if tag and tag not in out:
            out.append(tag)
    return tuple(out)


def _clean(text: Any) -> str:
    return re.sub(r"\s+", " ", str(text or "")).strip()


# --- CSL-JSON (Zotero: File > Export > CSL JSON) --------------------------------------


# CSL-JSON's rich text in titles (the CSL specification's "HTML-like formatting tags"):
# Zotero and citation-js write <i>, <b>, <sup>, <sub> and two <span>s; pandoc writes the same.
_CSL_MARKUP = re.compile(r"</?(?:i|b|sup|sub)>|<span\s+(?:style=\"font-variant:\s*small-caps;?\"|class=\"nocase\")\s*>|</span>", re.IGNORECASE)
_SUPERSCRIPT = str.maketrans("0123456789+-=()n", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿ")
_SUBSCRIPT = str.maketrans("0123456789+-=()", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎")


class _CslText(HTMLParser):
    """The text of a CSL rich-text value: tags dropped, entities decoded, <sup>2</sup> as ²."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.script: list[str] = []  # the open <sup>/<sub> elements

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("sup", "sub"):
            self.script.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("sup", "sub") and self.script:
            self.script.pop()

    def handle_data(self, data: str) -> None:
        if self.script:
            table = _SUPERSCRIPT if self.script[-1] == "sup" else _SUBSCRIPT
            mapped = data.translate(table)
            # Only when every character has a Unicode form; "x<sup>th</sup>" stays "xth".
            data = mapped if not any(ch.isascii() and ch.isalnum() for ch in mapped) else data
        self.parts.append(data)


def csl_text(value: Any) -> str:
    """A CSL-JSON title as plain text. Only a value using the CSL tags is read as markup: a
    title that merely contains `<` or `&` ("a < b") is kept as written."""
    text = _clean(value)
    if not _CSL_MARKUP.search(text):
        return text
    parser = _CslText()
    parser.feed(text)
    parser.close()
    return _clean("".join(parser.parts))


def _csl_name(name: Any) -> str:
    if not isinstance(name, dict):
        return _clean(name)
    if name.get("literal"):
        return _clean(name["literal"])
    return ", ".join(p for p in (_clean(name.get("family")), _clean(name.get("given"))) if p)


def _zotero_extra(note: str) -> tuple[str, dict[str, str]]:
    """Zotero's Extra field (CSL `note`) mixes the curator's text with `Key: value` lines it uses itself."""
    facts, keep = {}, []
    for line in note.splitlines():
        match = re.match(r"^(arXiv|DOI|tex\.[\w-]+|Citation Key|original-date|type|publisher-place):\s*(.+)$", line.strip(), re.IGNORECASE)
        if match:
            facts[match.group(1).lower()] = match.group(2).strip()
        else:
            keep.append(line)
    return "\n".join(keep).strip(), facts


def json_depth_problem(text: str, limit: int = MAX_JSON_DEPTH) -> tuple[int, str] | None:
    """(line, message) when `text`'s brackets nest deeper than `limit`, else None; strings are skipped.

    json.loads recurses once per level: 100,000 nested `[` end in RecursionError (a traceback).
    Counting brackets first is linear and never recurses; malformed text is left to json.loads.
    """
    depth = 0
    for match in _JSON_TOKENS.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > limit:
                return text.count("\n", 0, match.start()) + 1, f"nested more than {limit} levels deep; a CSL-JSON export is a list of flat items"
        elif token in "]}":
            depth -= 1
    return None


_JSON_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')


def read_csl_json(path: Path, text: str) -> list[Reference]:
    deep = json_depth_problem(text)
    if deep:
        raise UsageError(f"{path}:{deep[0]}: not a CSL-JSON export: {deep[1]}")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg}); export CSL JSON from Zotero again") from exc
    except RecursionError:  # the depth check above makes this unreachable; kept so no input can print a traceback
        raise UsageError(f"{path}: not a CSL-JSON export: nested too deep") from None
    if isinstance(data, dict) and isinstance(data.get("items"), list):
        data = data["items"]
    if not isinstance(data, list):
        raise UsageError(f"{path}: CSL-JSON is a list of items; this file holds {type(data).__name__}")
    refs = []
    for index, item in enumerate(data, 1):
        console.progress("reading references", index, len(data))
        if not isinstance(item, dict):
            raise UsageError(f"{path}: item {index} is not an object; is this a CSL-JSON export?")
        note, extra = _zotero_extra(note_text(str(item.get("annote") or "")) or note_text(str(item.get("note") or "")))
        if item.get("annote") and item.get("note"):
            extra = _zotero_extra(str(item["note"]))[1]
        parts = (item.get("issued") or {}).get("date-parts") or [[]]
        issued = _date(*[*parts[0], "", "", ""][:3]) if parts and parts[0] else iso_date(str((item.get("issued") or {}).get("raw", "")))
        url = _clean(item.get("URL"))
        doi = clean_doi(str(item.get("DOI") or extra.get("doi", "")))
        refs.append(Reference(
            where=f"{path.name}: item {index}",
            key=_clean(item.get("citation-key") or extra.get("citation key") or item.get("id")),
            type=_clean(item.get("type")),
            title=csl_text(item.get("title")),
            authors=tuple(n for n in (_csl_name(a) for a in item.get("author") or []) if n),
            date=issued,
            doi=doi,
            arxiv=arxiv_id(extra.get("arxiv", "") and "arXiv:" + extra["arxiv"], url, doi, str(item.get("number") or "") if "arxiv" in str(item.get("publisher", "")).lower() else ""),
            url=url,
            venue=csl_text(item.get("container-title") or item.get("event-title") or item.get("publisher")),
            note=note,
            tags=_tags(item.get("keyword") or item.get("tags") or item.get("categories") or ""),
        ))
    return refs


# --- BibTeX / biblatex ---------------------------------------------------------------


# Fields holding an address or identifier, not LaTeX text: `~`, `_`, `%` and `#` are part of
# them (hyperref's \url reads them verbatim), so only their escapes (`\%`) are undone.
_BIB_VERBATIM = frozenset({"url", "doi", "eprint", "file", "pdf", "howpublished"})
# A `%` that starts a LaTeX comment: not escaped as `\%`. Inside a field value it is text to
# BibTeX (the .bib grammar has no comments within braces or quotes); decoded as LaTeX it would
# cut the rest of the value off.
_BARE_PERCENT = re.compile(r"(?<!\\)%")


@functools.cache
def _latex_decoder() -> Any:
    """pylatexenc's LaTeX-to-text, as bibtexparser's LatexDecodingMiddleware sets it up."""
    from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db  # type: ignore[import-untyped]  # pylatexenc ships no type information

    context = get_default_latex_context_db()
    context.add_context_category("corpus-build-bibtex", prepend=True, macros=[MacroTextSpec("url", simplify_repl="%s")])
    return LatexNodes2Text(latex_context=context, keep_braced_groups=False, math_mode="verbatim")


# What pylatexenc changes in text: macros and groups (\\ { }), math ($), LaTeX's special
# characters (~ % & # ^ _) and ligatures of punctuation (-- --- `` '' !` ?`). A value with none
# of them comes out as it went in, and most values (titles, names, journals) have none: they
# skip the decoder, which costs ~0.5 ms a value (20,000 entries: a minute).
_LATEX_ACTIVE = re.compile(r"[\\{}$~%&#^_`]|--|''")


def _bib_text(value: str) -> str:
    r"""A field value's LaTeX as text: accents and `\textit{}` undone, a bare `%` kept as a character."""
    active = _LATEX_ACTIVE.search(value)
    if not active:
        return value
    if active.group() in "{}" and not _LATEX_ACTIVE.search(value.replace("{", "").replace("}", "")) and _balanced(value):
        return value.replace("{", "").replace("}", "")  # only case-protecting braces ({GPU}s): the decoder drops them
    try:
        return str(_latex_decoder().latex_to_text(_BARE_PERCENT.sub(r"\\%", value)))
    except Exception:  # noqa: BLE001 - pylatexenc raises its own errors on odd input: keep the value as written
        return value


def _balanced(value: str) -> bool:
    depth = 0
    for ch in value:
        if ch in "{}":
            depth += 1 if ch == "{" else -1
            if depth < 0:
                return False
    return depth == 0


def _bib_verbatim(value: str) -> str:
    r"""An address as written, with `\url{…}`, braces and LaTeX escapes (`\%`, `\_`, `\#`, `\&`, `\~`) undone."""
    value = re.sub(r"^\\url\{(.*)\}$", r"\1", value.strip(), flags=re.DOTALL)
    return re.sub(r"\\([%_#&~$])", r"\1", value.replace("{", "").replace("}", ""))


def read_bibtex(path: Path, text: str) -> list[Reference]:
    import bibtexparser
    from bibtexparser import middlewares

    # No LatexDecodingMiddleware: it decodes every field as LaTeX, so `url = {…/a%20b}` lost
    # everything after its `%` (a LaTeX comment) and two addresses became one. Each field is
    # decoded below as what it is: text (`_bib_text`) or an address (`_bib_verbatim`).
    library = bibtexparser.parse_string(text, append_middleware=[middlewares.SeparateCoAuthors()])
    if library.failed_blocks:
        block = library.failed_blocks[0]
        raise UsageError(f"{path}:{(block.start_line or 0) + 1}: BibTeX that cannot be parsed ({type(getattr(block, 'error', None)).__name__}); fix the entry and import again")
    refs = []
    parsed = library.entries  # a property that builds a new list on every call
    for index, entry in enumerate(parsed, 1):
        console.progress("reading references", index, len(parsed))
        f: dict[str, Any] = {}
        for key, field in entry.fields_dict.items():
            name, value = key.lower(), field.value
            if isinstance(value, list):
                f[name] = [_bib_text(v) for v in value]
            elif isinstance(value, str):
                f[name] = _bib_verbatim(value) if name in _BIB_VERBATIM and not _is_prose(name, value) else _bib_text(value)

        def get(*names: str, f: dict[str, Any] = f) -> str:
            for name in names:
                if f.get(name):
                    return _clean(f[name]) if not isinstance(f[name], list) else ""
            return ""

        authors = f.get("author") or f.get("editor") or []
        authors = [authors] if isinstance(authors, str) else authors
        eprint = get("eprint") if get("archiveprefix", "eprinttype").lower() == "arxiv" else ""
        date = iso_date(get("date")) or _date(get("year"), get("month"), get("day"))
        note = note_text(str(f.get("annote") or f.get("annotation") or f.get("note") or ""))
        refs.append(Reference(
            where=f"{path.name}:{(entry.start_line or 0) + 1}",  # bibtexparser sets it for every parsed entry
            key=entry.key,
            type=entry.entry_type.lower(),
            title=get("title"),
            authors=tuple(_clean(a) for a in authors if _clean(a)),
            date=date,
            doi=clean_doi(get("doi")),
            arxiv=arxiv_id("arXiv:" + eprint if eprint else "", get("url"), get("doi"), get("journal") if "arxiv" in get("journal").lower() else ""),
            url=get("url", "howpublished") if get("url", "howpublished").startswith(("http://", "https://")) else get("url"),
            venue=get("journal", "journaltitle", "booktitle", "publisher", "organization", "institution"),
            note=note,
            tags=_tags(get("keywords")),
        ))
    return refs


def _is_prose(name: str, value: str) -> bool:
    r"""`howpublished` is an address only when it holds one (`\url{https://…}`); else it is text."""
    return name == "howpublished" and not re.match(r"^\s*(?:\\url\{)?\s*https?://", value)


# --- RIS -------------------------------------------------------------------------------


def read_ris(path: Path, text: str) -> list[Reference]:
    import rispy  # type: ignore[import-untyped]  # rispy ships no type information (no py.typed, no stubs package)

    try:
        entries = rispy.loads(text)
    except (OSError, ValueError, KeyError) as exc:
        raise UsageError(f"{path}: not a RIS file that can be read ({exc}); each entry starts with `TY  - ` and ends with `ER  - `") from exc
    starts = [i + 1 for i, line in enumerate(text.splitlines()) if line.startswith("TY  -")]
    refs = []
    for index, entry in enumerate(entries):
        urls = entry.get("urls") or ([entry["url"]] if entry.get("url") else [])
        url = next((u for u in urls if str(u).startswith(("http://", "https://"))), "")
        notes = entry.get("notes") or []
        notes = [notes] if isinstance(notes, str) else notes
        doi = clean_doi(str(entry.get("doi") or ""))
        refs.append(Reference(
            where=f"{path.name}:{starts[index] if index < len(starts) else 0}",
            key=_clean(entry.get("id")),
            type=_clean(entry.get("type_of_reference")),
            title=_clean(entry.get("title") or entry.get("primary_title") or entry.get("translated_title")),
            authors=tuple(_clean(a) for a in (entry.get("authors") or entry.get("first_authors") or []) if _clean(a)),
            date=iso_date(str(entry.get("date") or entry.get("publication_year") or "")) or _date(str(entry.get("year") or "")[:4]),
            doi=doi,
            arxiv=arxiv_id(url, doi),
            url=url,
            venue=_clean(entry.get("journal_name") or entry.get("secondary_title") or entry.get("publisher")),
            note="\n\n".join(note_text(str(n)) for n in notes if str(n).strip()),
            tags=_tags(entry.get("keywords") or []),
        ))
    return refs


# --- a plain list of URLs --------------------------------------------------------------


def read_urls(path: Path, text: str) -> list[Reference]:
    """One reference per line: `URL [title]`. A line that is no http(s) URL is refused alone, with its number."""
    refs = []
    # Lines as an editor numbers them: split at \n only (str.splitlines also breaks at \x0b, \x1c, U+2028…).
    for number, raw in enumerate(text.split("\n"), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        url, _, rest = line.replace("\t", " ").partition(" ")
        where = f"{path.name}:{number}"
        address = http_url(url)
        if not address:
            shown = printable(url[:80])
            refs.append(Reference(where=where, title=shown, problem="not an http(s) URL; a URL list has one address per line (`#` starts a comment)"))
            continue
        refs.append(Reference(where=where, url=address, title=_clean(rest.lstrip("#-– ")), arxiv=arxiv_id(address)))
    return refs


def http_url(text: str) -> str:
    """`text` as an http(s) URL with its scheme and host in lower case (HTTPS://Example.org/A -> https://example.org/A), or ""."""
    scheme, sep, rest = text.partition("://")
    if not sep or scheme.lower() not in ("http", "https"):
        return ""
    cut = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
    authority = rest[:cut]
    userinfo, at, host = authority.rpartition("@")
    url = f"{scheme.lower()}://{userinfo}{at}{host.lower()}{rest[cut:]}"
    return url if urls.is_http_url(url) else ""


def sniff(path: Path, text: str) -> str:
    """The format, from the extension, else from the first characters."""
    suffix = path.suffix.lower()
    if suffix in (".json", ".csljson"):
        return "csl-json"
    if suffix in (".bib", ".bibtex", ".biblatex"):
        return "bibtex"
    if suffix in (".ris",):
        return "ris"
    head = text.lstrip()[:200]
    if head.startswith(("[", "{")):
        return "csl-json"
    if head.startswith("@"):
        return "bibtex"
    if head.startswith("TY  -"):
        return "ris"
    return "urls"


READERS = {"csl-json": read_csl_json, "bibtex": read_bibtex, "ris": read_ris, "urls": read_urls}
# What a file of each format holds, for the message when it holds none: an empty import is a
# wrong file or a failed export, not "0 imported, all fine".
EXPECTED = {
    "csl-json": "CSL-JSON items (a JSON list of objects with `type` and `title`); export the collection from Zotero again",
    "bibtex": "BibTeX entries (`@article{key, title = {…}, …}`)",
    "ris": "RIS records (each starts with a `TY  - ` line and ends with `ER  - `)",
    "urls": "URLs (one http(s) address per line; `#` starts a comment)",
}


def read_file(path: Path, fmt: str = "") -> tuple[str, list[Reference]]:
    text = read_text(path)
    fmt = fmt or sniff(path, text)
    if fmt not in READERS:
        raise UsageError(f"--format must be one of {', '.join(FORMATS)}; got '{fmt}'")
    console.progress(f"reading {fmt}", 0, 0)
    refs = READERS[fmt](path, text)
    if not refs:
        raise UsageError(f"{path}: no references found; expected {EXPECTED[fmt]}{_format_hint(path, fmt, text)}")
    return fmt, refs


def read_text(path: Path, max_bytes: int = MAX_IMPORT_BYTES) -> str:
    """The export's text: a regular file (a FIFO, /dev/zero or a link to one is refused before a byte is read), at most `max_bytes`.

    Opened with O_NONBLOCK, so a FIFO cannot block the open, and checked with fstat; read in
    chunks against the bound (a file that grows while read is cut off), with progress shown
    on a terminal.
    """
    shown = printable(str(path))
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise UsageError(f"{shown}: no such file") from None
    except IsADirectoryError:
        raise UsageError(f"{shown}: is a folder; pass the file your reference manager exported") from None
    except OSError as exc:
        raise UsageError(f"{shown}: cannot read ({exc.strerror or exc})") from exc
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UsageError(f"{shown}: is {kind_of_file(info.st_mode)}, not a regular file; pass the file your reference manager exported")
        if info.st_size > max_bytes:
            raise UsageError(f"{shown}: is {info.st_size:,} bytes, over the limit of {max_bytes:,} for an export; split it and import the parts")
        chunks, total = [], 0
        while chunk := os.read(fd, 1024 * 1024):
            total += len(chunk)
            if total > max_bytes:
                raise UsageError(f"{shown}: grew past the limit of {max_bytes:,} bytes while being read; import a finished export")
            chunks.append(chunk)
            console.progress(f"reading {path.name} (bytes)", total, max(total, info.st_size))
    except OSError as exc:
        raise UsageError(f"{shown}: cannot read ({exc.strerror or exc})") from exc
    finally:
        os.close(fd)
    try:
        return b"".join(chunks).decode("utf-8-sig")
    except UnicodeDecodeError:
        raise UsageError(f"{shown}: not UTF-8 text; export the file as UTF-8") from None


def _format_hint(path: Path, fmt: str, text: str) -> str:
    """When the content looks like another format than the one read: say so."""
    guessed = sniff(Path(path.stem), text)  # from the content alone
    return f" (its content looks like {guessed}: pass --format {guessed})" if guessed not in (fmt, "urls") else ""
