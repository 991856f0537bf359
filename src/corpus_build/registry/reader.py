"""Read and validate the registry under corpus/.

`check(root)` returns every problem found (errors and warnings), each with a file
and line; `load(root)` returns a `Corpus` or raises `RegistryError` carrying them.
Validation never stops at the first problem: a user fixing a registry wants the
whole list in one run.
"""

from __future__ import annotations

import datetime as dt
import difflib
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core import limits, safepath, swapdir, urls
from ..core.errors import Problem, RegistryError
from ..core.model import KINDS, LANGS, Chapter, Corpus, Digest, LearningPath, ReadingStep, Section, Settings, Source
from . import checks, sectioncache, yamlfile
from .settings import timezone_problem
from .yamlfile import LocatedList, LocatedMap

SECTION_FOLDER = re.compile(r"^(\d{2,3})-[a-z0-9][a-z0-9-]*$")
DIGEST_NAME = re.compile(r"^(\d{4}-\d{2}-\d{2})\.md$")
WIKILINK = re.compile(r"\[\[([^\]|]+?)(?:\|([^\]]*))?\]\]")
# Did-you-mean only for near misses: a typo or two, not any id sharing a few letters
# (difflib's default 0.6 suggested 'tilelang-lsp' for 'bitblas-paper').
SUGGEST_IDS = 0.8
SUGGEST_WORDS = 0.75

# Field name -> (required, expected type(s), description for messages).
SOURCE_FIELDS: dict[str, tuple[bool, tuple[type, ...], str]] = {
    "id": (True, (str,), "text matching [a-z0-9][a-z0-9._-]*"),
    "title": (True, (str,), "text"),
    "url": (False, (str,), "an http(s) URL"),
    "kind": (False, (str,), "one of " + ", ".join(KINDS)),
    "lang": (False, (str,), "zh or en"),
    "chapters": (False, (list,), "a list of chapter numbers, e.g. [17, 18]"),
    "tags": (False, (list,), "a list of words, e.g. [ascend, gemm]"),
    "see_also": (False, (list,), "a list of source ids"),
    "verified": (False, (bool,), "true or false"),
    "verify_note": (False, (str,), "text saying what is uncertain"),
    "mirror": (False, (dict,), "a mapping such as {depth: full}"),
    "note": (False, (str,), "the annotation text"),
    "added": (False, (dt.date, str), "a date YYYY-MM-DD"),
    # Bibliographic facts (see _bib_facts); what they leave out comes from the mirror.
    "authors": (False, (list,), "a list of names, e.g. [Lei Wang, \"Cheng, Yu\"]"),
    "date": (False, (str, int, dt.date), "a date: YYYY, YYYY-MM or YYYY-MM-DD"),
    "venue": (False, (str,), "text, e.g. OSDI 2018"),
    "doi": (False, (str,), "a DOI such as 10.1145/2491956.2462176"),
    "arxiv": (False, (str,), "an arXiv id such as 2504.17577"),
    "version": (False, (str, int, float), "a version such as v0.1.6"),
    "verified_from": (False, (str,), "where the authors, date… were checked, e.g. the arXiv abstract page https://arxiv.org/abs/2504.17577"),
}
BIB_DATE = re.compile(r"^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$")
DOI = re.compile(r"^10\.\d{4,9}/\S+$")
ARXIV_ID = re.compile(r"^(?:\d{4}\.\d{4,5}|[a-z-]+(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?$")
SECTION_FIELDS = {"title": (True, (str,), "text"), "title_zh": (False, (str,), "text"), "intro": (False, (str,), "text")}
CHAPTER_FIELDS = {
    "number": (True, (int,), "a whole number"),
    "title": (True, (str,), "text"),
    "title_en": (False, (str,), "text"),
    "summary": (False, (str,), "text"),
    "path": (False, (list,), "a list of {source: id, why: text}"),
}
PATH_FIELDS = {**{k: v for k, v in CHAPTER_FIELDS.items() if k != "number"}, "id": (True, (str,), "an id")}
STEP_FIELDS = {"source": (True, (str,), "a source id"), "why": (False, (str,), "one line")}
SETTINGS_FIELDS = {
    "title": (True, (str,), "text"),
    "description": (False, (str,), "text"),
    "languages": (False, (list,), "a list such as [zh, en]"),
    "site_url": (False, (str,), "a URL or empty"),
    "stale_after_days": (False, (int,), "a whole number of days"),
    "glossary": (False, (list,), "a list of terms search must keep whole, e.g. [昇腾, 算子]"),
    "search_terms": (False, (list,), "a list of groups of one term's spellings in Chinese and English, e.g. [[稀疏注意力, sparse attention]]"),
    "timezone": (False, (str,), "an offset such as +08:00, or a zone name such as Asia/Shanghai"),
    "short_title": (False, (str,), "a short name for the header and browser tabs"),
    # Read by the fetch and watch stages, which validate their contents.
    "fetch": (False, (dict,), "a mapping"),
    "rewrites": (False, (dict, list), "a mapping FROM: TO"),
    "fallbacks": (False, (dict, list), "a mapping FROM: TO"),
    "watch": (False, (dict, list), "a mapping"),
    "links": (False, (dict,), "a mapping such as {recheck_after: 3d}"),
    "offline": (False, (bool,), "true to publish a zip of the site that works offline (linked from the home page)"),
    "archive_max_bytes": (False, (int,), "the most bytes one source's archived page and its styles publish, e.g. 20000000"),
}
DIGEST_FIELDS = {
    "title": (True, (str,), "text"),
    "date": (False, (dt.date, str), "YYYY-MM-DD"),
    "window_start": (False, (str, dt.datetime), "an ISO time with offset"),
    "window_end": (False, (str, dt.datetime), "an ISO time with offset"),
    "tz": (False, (str,), "an offset such as +08:00"),
    "repos": (False, (list,), "a list of owner/name"),
    "tags": (False, (list,), "a list of words"),
    "counts": (False, (dict,), "a mapping"),
    "description": (False, (str,), "text"),
}


@dataclass
class _Checker:
    root: Path
    problems: list[Problem] = field(default_factory=list)
    # [[id]] links seen in digests, checked once every source id is known.
    pending_links: list[tuple[str, int, str]] = field(default_factory=list)
    # Ids defined in files (or entries) already reported as unreadable: a reference to one
    # of them is a consequence of that error, not a second mistake, so it is not reported.
    lost_ids: set[str] = field(default_factory=set)
    # A sources.yaml could not be read at all: any id may have been in it, so no reference is
    # reported as unknown until that file is fixed (one mistake, one error).
    sources_lost: bool = False
    # chapters.yaml: "ok", "missing", or "broken" (unparsable, or an entry lost its number).
    chapters_state: str = "ok"
    # Set when `root` is a dry run's throwaway copy of this corpus folder: parsed sections are read
    # from its cache (sectioncache.py keys them by the files' bytes, so an unchanged section of the
    # copy is found there), and nothing of the copy is cached.
    copy_of: Path | None = None

    def rel(self, path: Path) -> str:
        try:
            return str(path.relative_to(self.root.parent))
        except ValueError:
            return str(path)

    def error(self, path: str, line: int, message: str, column: int = 0, *, code: str = "invalid") -> None:
        self.problems.append(Problem(path, line, column, message, "error", code))

    def warn(self, path: str, line: int, message: str, *, code: str = "invalid") -> None:
        self.problems.append(Problem(path, line, 0, message, "warning", code))

    def fields(self, data: Any, spec: dict, path: str, what: str, line: int = 0) -> bool:
        """Check a mapping against a field spec; False when it is not a mapping at all."""
        if not isinstance(data, LocatedMap):
            self.error(path, getattr(data, "line", line), f"{what} must be a mapping of fields (key: value), got {_kind_of(data)}", code="not-a-mapping")
            return False
        for key in data:
            if key not in spec:
                hint = difflib.get_close_matches(str(key), list(spec), n=1, cutoff=SUGGEST_WORDS)
                fix = f"did you mean '{hint[0]}'?" if hint else "allowed: " + ", ".join(spec)
                self.error(path, data.line_of(key), f"unknown field '{key}' in {what}; {fix}", code="unknown-field")
        for key, (required, types, description) in spec.items():
            if key not in data:
                if required:
                    self.error(path, data.line, f"{what} is missing required field '{key}' ({description})", code="missing-field")
                continue
            value = data[key]
            # bool is a subclass of int: `number: true` must not pass as a number.
            ok = isinstance(value, types) and (bool in types or not isinstance(value, bool))
            if not ok:
                self.error(path, data.line_of(key), f"field '{key}' of {what} must be {description}, got {_kind_of(value)}", code="wrong-type")
            elif required and isinstance(value, str) and not value.strip():
                self.error(path, data.line_of(key), f"field '{key}' of {what} is empty; write {description}", code="empty-field")
            elif too_big := limits.text_problem(key, value) or _range_problem(key, value):
                self.error(path, data.line_of(key), f"{too_big} ({what})", code="too-large")
        return True


_RANGES = {"number": (0, limits.LIMITS.chapter_number), "stale_after_days": (1, limits.LIMITS.days), "archive_max_bytes": (0, 10**12)}


def _range_problem(key: str, value: Any) -> str | None:
    return limits.number_problem(key, value, *_RANGES[key]) if key in _RANGES else None


def _kind_of(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return f"{value!r}".lower()
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return f"text '{value[:40]}'"
    shown = repr(value)
    return f"{type(value).__name__} {shown if len(shown) <= 40 else shown[:20] + '…'}"


def _text(data: LocatedMap, key: str, default: str = "") -> str:
    value = data.get(key)
    return value if isinstance(value, str) else default


def _str_list(checker: _Checker, data: LocatedMap, key: str, path: str, what: str, item_type: type = str) -> tuple:
    value = data.get(key)
    if not isinstance(value, list):
        return ()
    items = []
    for index, item in enumerate(value):
        if isinstance(item, bool) or not isinstance(item, item_type):
            expected = "a whole number" if item_type is int else "text"
            line = value.line_of(index) if isinstance(value, LocatedList) else data.line_of(key)
            checker.error(path, line, f"item {index + 1} of '{key}' in {what} must be {expected}, got {_kind_of(item)}", code="wrong-type")
            continue
        items.append(item)
    return tuple(items)


# --- corpus.yaml --------------------------------------------------------------------


def _load_settings(checker: _Checker) -> Settings:
    path = checker.root / "corpus.yaml"
    display = checker.rel(path)
    if _outside(checker, path):
        return Settings(title="Corpus")
    if not path.exists():
        checker.error(display, 0, "missing; create it with at least `title: My corpus`", code="missing-file")
        return Settings(title="Corpus")
    before = len(checker.problems)
    data = yamlfile.load(path, checker.problems, display)
    if data is None and len(checker.problems) == before:
        checker.error(display, 0, "is empty; title is required: write at least `title: My corpus`")
    if data is None or not checker.fields(data, SETTINGS_FIELDS, display, "corpus.yaml"):
        return Settings(title="Corpus")
    checker.problems.extend(checks.stage_problems(data, display))
    languages = _str_list(checker, data, "languages", display, "corpus.yaml") or ("zh", "en")
    for lang in languages:
        if lang not in LANGS:
            checker.error(display, data.line_of("languages"), f"language '{lang}' is not supported; use {' or '.join(LANGS)}", code="unknown-language")
    days = data.get("stale_after_days", 30)
    return Settings(
        title=_text(data, "title", "Corpus"),
        description=_text(data, "description"),
        languages=tuple(lang for lang in languages if lang in LANGS) or ("en",),
        site_url=_text(data, "site_url"),
        stale_after_days=days if isinstance(days, int) and not isinstance(days, bool) else 30,
        glossary=_str_list(checker, data, "glossary", display, "corpus.yaml"),
        search_terms=_search_terms(checker, data, display),
        timezone=_timezone(checker, data, display),
        short_title=_text(data, "short_title").strip(),
        extra={k: data[k] for k in ("fetch", "rewrites", "fallbacks", "watch", "links", "offline", "archive_max_bytes") if k in data},
    )


def _search_terms(checker: _Checker, data: LocatedMap, display: str) -> tuple[tuple[str, ...], ...]:
    """`search_terms`: groups of two or more spellings of one term (site/crossterms.py)."""
    value = data.get("search_terms")
    if not isinstance(value, list):
        return ()
    groups = []
    for index, group in enumerate(value):
        line = value.line_of(index) if isinstance(value, LocatedList) else data.line_of("search_terms")
        problem = _search_terms_problem(group)
        if problem:
            checker.error(display, line, f"item {index + 1} of 'search_terms' must list two or more spellings of one term, e.g. "
                                         f"[稀疏注意力, sparse attention]: {problem}", code="wrong-type")
            continue
        forms = group
        groups.append(tuple(f.strip() for f in forms))
    return tuple(groups)


def _search_terms_problem(group: Any) -> str:
    if not isinstance(group, list):
        return f"got {_kind_of(group)}"
    if len(group) < 2:
        return "it has only one" if group else "it is empty"
    for number, form in enumerate(group, 1):
        if not isinstance(form, str) or not form.strip():
            return f"spelling {number} is {_kind_of(form) if not isinstance(form, str) else 'empty'}"
        if len(form) > 60 or "\n" in form:
            return f"spelling {number} is not one term (up to 60 characters on one line)"
    return ""


def _timezone(checker: _Checker, data: LocatedMap, display: str) -> str:
    value = _text(data, "timezone", "+08:00").strip()
    problem = timezone_problem(value)
    if problem:
        checker.error(display, data.line_of("timezone"), problem)
        return "+08:00"
    return value


def _added(checker: _Checker, entry: LocatedMap, display: str, what: str) -> dt.date | None:
    value = entry.get("added")
    if value is None or isinstance(value, dt.datetime):
        return value.date() if isinstance(value, dt.datetime) else None
    if isinstance(value, dt.date):
        return value
    try:
        return dt.date.fromisoformat(str(value).strip())
    except ValueError:
        checker.error(display, entry.line_of("added"), f"added date '{value}' of {what} is not a date; write it as YYYY-MM-DD, e.g. added: 2026-10-22")
        return None


# --- sections and sources -----------------------------------------------------------


def _outside(checker: _Checker, path: Path) -> bool:
    """A registry file that is a symlink out of corpus/ is an error, and is never read (nor echoed)."""
    if path.is_symlink() and not safepath.is_inside(path, checker.root):
        checker.error(checker.rel(path), 0, "is a symlink to a file outside corpus/; registry files must live inside it. Replace the link with the file")
        return True
    return False


def _section_folders(checker: _Checker) -> list[Path]:
    folders = []
    for child in sorted(checker.root.iterdir()):
        if not child.is_dir() or child.name in ("digests",) or child.name.startswith("."):
            continue
        if not safepath.is_inside(child, checker.root):
            checker.error(checker.rel(child), 0, "is a symlink to a folder outside corpus/; fetch would write there. Replace it with a real folder")
            continue
        if _outside(checker, child / "section.yaml") or _outside(checker, child / "sources.yaml"):
            continue
        if not SECTION_FOLDER.match(child.name):
            if (child / "sources.yaml").exists() or (child / "section.yaml").exists():
                checker.error(checker.rel(child), 0, "section folders are named NN-slug (e.g. 15-new-topic); rename the folder", code="bad-folder-name")
            continue
        folders.append(child)
    return sorted(folders, key=lambda p: (_section_number(p.name), p.name))


def _section_number(folder: str) -> int:
    match = SECTION_FOLDER.match(folder)
    return int(match.group(1)) if match else 0


# Sections read in this process, by the identity of their two files: `corpus-build build`
# reads the registry, then the plugin reads it again inside MkDocs, and `mkdocs serve` reads
# it at every edit, when one file of a hundred changed. Bounded by the number of sections.
_SECTIONS: dict[tuple[Any, ...], tuple[Section, list[Problem], set[str], bool]] = {}
_SECTIONS_MAX = 4096


def _file_identity(path: Path) -> tuple[int, ...] | None:
    """What changes whenever the file's bytes may have: (device, inode, size, mtime, ctime); None when not a plain file."""
    try:
        info = path.lstat()
    except OSError:
        return (0,)  # absent: absence is a state too
    if not stat.S_ISREG(info.st_mode):
        return None  # a link, FIFO or device: read it the careful way every time (core/safepath.py, core/limits.py)
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def _load_section_once(checker: _Checker, folder: Path) -> Section:
    """`_load_section`, reusing this process's last read of the folder while its files are unchanged.

    The problems the read reported and what it told the checker are replayed, so a
    reused section reports exactly what reading it again would.
    """
    files = [_file_identity(folder / name) for name in ("section.yaml", "sources.yaml")]
    key = (str(checker.root), folder.name, *files)
    if None in files:
        return _load_section(checker, folder)
    if key not in _SECTIONS:
        # Then the last run's read of exactly these bytes (sectioncache.py), else a fresh read.
        stored, found = sectioncache.get(checker.copy_of or checker.root, folder)
        if found is None:
            own = _Checker(root=checker.root)  # what this folder alone reports
            found = (_load_section(own, folder), own.problems, own.lost_ids, own.sources_lost)
            if checker.copy_of is None:
                sectioncache.put(checker.root, folder, stored, found)
        if len(_SECTIONS) >= _SECTIONS_MAX:
            _SECTIONS.clear()
        _SECTIONS[key] = found
    section, problems, lost_ids, lost = _SECTIONS[key]
    checker.problems.extend(problems)
    checker.lost_ids.update(lost_ids)
    checker.sources_lost = checker.sources_lost or lost
    return section


def _load_section(checker: _Checker, folder: Path) -> Section:
    meta_path = folder / "section.yaml"
    display = checker.rel(meta_path)
    meta: Any = None
    if meta_path.exists():
        before = len(checker.problems)
        meta = yamlfile.load(meta_path, checker.problems, display)
        if meta is None and len(checker.problems) == before:
            checker.error(display, 0, f"is empty; title is required: write `title: …` for section {folder.name}")
        if meta is not None:
            checker.fields(meta, SECTION_FIELDS, display, "section.yaml")
    else:
        checker.error(display, 0, f"missing; create it with `title: …` for section {folder.name}", code="missing-file")
    if not isinstance(meta, LocatedMap):
        meta = LocatedMap()
        meta.key_lines = {}
    sources = _load_sources(checker, folder)
    return Section(
        folder=folder.name,
        number=_section_number(folder.name),
        title=_text(meta, "title", folder.name),
        title_zh=_text(meta, "title_zh"),
        intro=_text(meta, "intro"),
        sources=tuple(sources),
    )


def _load_sources(checker: _Checker, folder: Path) -> list[Source]:
    path = folder / "sources.yaml"
    display = checker.rel(path)
    if not path.exists():
        checker.warn(display, 0, "missing; the section has no sources yet (add one with `corpus-build add`)", code="missing-file")
        return []
    reported = len(checker.problems)
    data = yamlfile.load(path, checker.problems, display)
    if data is None:
        checker.sources_lost = checker.sources_lost or len(checker.problems) > reported
        return []
    if not isinstance(data, LocatedList):
        checker.error(display, getattr(data, "line", 1), f"sources.yaml must be a list of sources (each starting with '- id: …'), got {_kind_of(data)}", code="not-a-list")
        checker.sources_lost = True
        return []
    sources = []
    for index, entry in enumerate(data):
        line = data.line_of(index)
        what = f"source #{index + 1}"
        if isinstance(entry, LocatedMap) and isinstance(entry.get("id"), str):
            what = f"source '{entry['id']}'"
        reported = len(checker.problems)
        if not checker.fields(entry, SOURCE_FIELDS, display, what, line):
            continue
        source = _make_source(checker, entry, display, what, folder.name)
        _one_error_per_duplicate(checker, entry, reported)
        if source:
            sources.append(source)
    return sources


def _one_error_per_duplicate(checker: _Checker, entry: LocatedMap, reported: int) -> None:
    """A key written twice is one mistake: drop what the checks since `reported` said about its value."""
    if not entry.duplicate_keys:
        return
    lines = {entry.line_of(key) for key in entry.duplicate_keys}
    checker.problems[reported:] = [p for p in checker.problems[reported:] if p.line not in lines or p.code == "duplicate-key"]


def _make_source(checker: _Checker, entry: LocatedMap, display: str, what: str, section: str) -> Source | None:
    source_id = _text(entry, "id")
    if source_id and not urls.ID_PATTERN.match(source_id):
        suggestion = urls.slugify(source_id) or "my-source"
        # References written with the intended id follow from this one mistake.
        checker.lost_ids.update({source_id.lower(), suggestion})
        checker.error(display, entry.line_of("id"), f"id '{source_id}' must match [a-z0-9][a-z0-9._-]* (lower case, digits, . _ -); try '{suggestion}'", code="bad-id")
    verified = entry.get("verified", True) is not False
    url = _text(entry, "url").strip()
    # `verified: maybe` is reported as a wrong type; whether the url may be missing is then unknown.
    if not url and entry.get("verified", True) is True:
        checker.error(display, entry.line_of("url") if "url" in entry else entry.line, f"{what} has no url; add one, or set `verified: false` with a `verify_note` if the address is unknown", code="missing-url")
    elif url and not urls.is_http_url(url):
        checker.error(display, entry.line_of("url"), f"url '{url}' of {what} is not an http(s) URL with a host; write the full address, e.g. https://example.org/page", code="bad-url")
    elif url and re.search(r"\s", url):
        checker.error(display, entry.line_of("url"), f"url of {what} contains spaces; percent-encode them (%20)", code="bad-url")
    elif url and (bad_url := urls.url_problem(url)):
        checker.error(display, entry.line_of("url"), f"url of {what} {bad_url}", code="bad-url")
    kind = _text(entry, "kind")
    if kind and kind not in KINDS:
        hint = difflib.get_close_matches(kind, KINDS, n=1, cutoff=SUGGEST_WORDS)
        checker.error(display, entry.line_of("kind"), f"kind '{kind}' of {what} is unknown; use {'`' + hint[0] + '`' if hint else 'one of ' + ', '.join(KINDS)}", code="unknown-kind")
    implied = urls.detect_kind(url) if url and urls.is_http_url(url) else None
    if kind in KINDS and implied and implied != kind and kind not in urls.ALSO_FITS.get(implied, ()):
        checker.error(display, entry.line_of("kind"), f"kind '{kind}' of {what} contradicts its URL, which is a {implied}; set `kind: {implied}` or fix the URL", code="kind-contradicts-url")
    if not kind:
        kind = implied or (urls.guess_kind(url) if url else "article")
    note = _text(entry, "note")
    if not note.strip():
        checker.warn(display, entry.line, f"{what} has no annotation yet; add a `note` saying why it is worth reading", code="no-note")
    lang = _text(entry, "lang") or guess_lang(note)
    if lang not in LANGS:
        checker.error(display, entry.line_of("lang"), f"lang '{lang}' of {what} must be zh or en (the annotation's language)", code="unknown-language")
    if not verified and not _text(entry, "verify_note"):
        checker.warn(display, entry.line, f"{what} is unverified; add a `verify_note` saying what is uncertain", code="no-verify-note")
    depth = "shallow"
    mirror = entry.get("mirror")
    if isinstance(mirror, LocatedMap):
        for key in mirror:
            if key != "depth":
                checker.error(display, mirror.line_of(key), f"unknown field '{key}' in mirror of {what}; allowed: depth", code="unknown-field")
        depth = str(mirror.get("depth", "shallow"))
        if depth not in ("shallow", "full"):
            checker.error(display, mirror.line_of("depth"), f"mirror depth of {what} must be shallow or full, got '{depth}'", code="wrong-type")
    return Source(
        id=source_id,
        title=_text(entry, "title"),
        url=url,
        kind=kind,
        lang=lang,
        note=note,
        section=section,
        chapters=_str_list(checker, entry, "chapters", display, what, int),
        tags=_str_list(checker, entry, "tags", display, what),
        see_also=_str_list(checker, entry, "see_also", display, what),
        verified=verified,
        verify_note=_text(entry, "verify_note"),
        mirror_depth=depth,
        added=_added(checker, entry, display, what),
        line=entry.line,
        **_bib_facts(checker, entry, display, what, url),
    )


def _bib_facts(checker: _Checker, entry: LocatedMap, display: str, what: str, url: str) -> dict[str, Any]:
    """authors, date, venue, doi, arxiv and version of a source entry, each checked where it stands."""
    authors = _str_list(checker, entry, "authors", display, what)
    for index, name in enumerate(authors):
        if not name.strip():
            checker.error(display, entry.line_of("authors"), f"author {index + 1} of {what} is empty; write the name or remove the item")
    date = _bib_date(checker, entry, display, what)
    doi = _text(entry, "doi").strip()
    if doi:
        bare = re.sub(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", "", doi, flags=re.I)
        if not DOI.match(bare):
            checker.error(display, entry.line_of("doi"), f"doi '{doi}' of {what} is not a DOI; write it as 10.NNNN/suffix, e.g. 10.1145/2491956.2462176")
        elif bare != doi:
            checker.error(display, entry.line_of("doi"), f"doi of {what} is written as a link or with a prefix; write the bare DOI: `doi: {bare}`")
    arxiv = _text(entry, "arxiv").strip()
    if arxiv:
        bare = re.sub(r"^arxiv:\s*", "", arxiv, flags=re.I)
        url_id = urls.arxiv_id(url) if url else ""
        if not ARXIV_ID.match(bare):
            checker.error(display, entry.line_of("arxiv"), f"arxiv '{arxiv}' of {what} is not an arXiv id; write it as e.g. 2504.17577 (or hep-th/9901001)")
        elif bare != arxiv:
            checker.error(display, entry.line_of("arxiv"), f"arxiv of {what} has a prefix; write the bare id: `arxiv: {bare}`")
        elif url_id and re.sub(r"v\d+$", "", bare) != re.sub(r"v\d+$", "", url_id):
            checker.error(display, entry.line_of("arxiv"), f"arxiv '{arxiv}' of {what} differs from the id in its URL ({url_id}); fix one of them")
    version = entry.get("version")
    return {
        "authors": tuple(name.strip() for name in authors if name.strip()),
        "date": date,
        "venue": _text(entry, "venue").strip(),
        "doi": doi,
        "arxiv": arxiv,
        "version": "" if version is None or isinstance(version, bool) else str(version).strip(),
        "verified_from": _text(entry, "verified_from").strip(),
    }


def _bib_date(checker: _Checker, entry: LocatedMap, display: str, what: str) -> str:
    """The `date` field as "YYYY", "YYYY-MM" or "YYYY-MM-DD" ("" when absent or wrong, with an error)."""
    if "date" not in entry:
        return ""
    value, line = entry["date"], entry.line_of("date")
    if isinstance(value, dt.datetime):  # YAML reads `2024-05-01 10:00` as a time of day
        checker.error(display, line, f"date of {what} has a time of day; write the day only, e.g. {value.date().isoformat()}")
        return ""
    if isinstance(value, dt.date):  # YAML reads an unquoted 2024-05-01 as a date
        return value.isoformat()
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return ""  # the field check reported it
    text = str(value).strip()
    match = BIB_DATE.match(text)
    if not match:
        checker.error(display, line, f"date '{text}' of {what} is not YYYY, YYYY-MM or YYYY-MM-DD; write e.g. 2025, 2025-04 or 2025-04-24")
        return ""
    year, month, day = (int(part) if part else 0 for part in match.groups())
    try:
        dt.date(year, month or 1, day or 1)
    except ValueError:
        checker.error(display, line, f"date '{text}' of {what} is not a real date; check the month and the day")
        return ""
    return text


def guess_lang(text: str) -> str:
    """zh when Chinese characters make up a fair share of the text, else en."""
    cjk = sum(1 for ch in text if "\u4e00" <= ch <= "\u9fff")
    return "zh" if cjk * 4 >= max(1, len(text.strip())) // 3 and cjk else "en"


# --- chapters.yaml and paths.yaml -----------------------------------------------------


def _load_steps(checker: _Checker, data: LocatedMap, display: str, what: str) -> tuple[ReadingStep, ...]:
    raw = data.get("path")
    if not isinstance(raw, LocatedList):
        return ()
    steps = []
    for index, item in enumerate(raw):
        step_what = f"step {index + 1} of {what}'s path"
        if not checker.fields(item, STEP_FIELDS, display, step_what, raw.line_of(index)):
            continue
        steps.append(ReadingStep(source=_text(item, "source"), why=_text(item, "why"), line=raw.line_of(index)))
    return tuple(steps)


def _load_list_file(checker: _Checker, name: str) -> tuple[str, LocatedList | None, str]:
    """(display path, the list or None, state): state is "ok", "missing" or "broken"."""
    path = checker.root / name
    display = checker.rel(path)
    if not path.exists():
        return display, None, "missing"
    if _outside(checker, path):
        return display, None, "broken"
    reported = len(checker.problems)
    data = yamlfile.load(path, checker.problems, display)
    if data is None:
        return display, None, "broken" if len(checker.problems) > reported else "ok"
    if not isinstance(data, LocatedList):
        checker.error(display, getattr(data, "line", 1), f"{name} must be a list (each entry starting with '- '), got {_kind_of(data)}", code="not-a-list")
        return display, None, "broken"
    return display, data, "ok"


def _load_chapters(checker: _Checker) -> tuple[tuple[Chapter, ...], dict[int, int]]:
    display, data, checker.chapters_state = _load_list_file(checker, "chapters.yaml")
    chapters: list[Chapter] = []
    lines: dict[int, int] = {}
    for index, entry in enumerate(data or LocatedList()):
        if not checker.fields(entry, CHAPTER_FIELDS, display, f"chapter #{index + 1}", data.line_of(index) if data else 0):
            checker.chapters_state = "broken"
            continue
        number = entry.get("number")
        if not isinstance(number, int) or isinstance(number, bool):
            checker.chapters_state = "broken"  # its number is unknown: citations of it are not checked
            continue
        if number in lines:
            checker.error(display, entry.line_of("number"), f"chapter {number} is defined twice (first at line {lines[number]}); merge them", code="duplicate-chapter")
            checker.chapters_state = "broken"  # the second was meant to be another number
            continue
        lines[number] = entry.line_of("number")
        chapters.append(
            Chapter(
                number=number,
                title=_text(entry, "title"),
                title_en=_text(entry, "title_en"),
                summary=_text(entry, "summary"),
                path=_load_steps(checker, entry, display, f"chapter {number}"),
            )
        )
    return tuple(sorted(chapters, key=lambda c: c.number)), lines


def _load_paths(checker: _Checker) -> tuple[LearningPath, ...]:
    display, data, _ = _load_list_file(checker, "paths.yaml")
    paths: list[LearningPath] = []
    seen: dict[str, int] = {}
    for index, entry in enumerate(data or LocatedList()):
        if not checker.fields(entry, PATH_FIELDS, display, f"learning path #{index + 1}", data.line_of(index) if data else 0):
            continue
        path_id = _text(entry, "id")
        if path_id in seen:
            checker.error(display, entry.line_of("id"), f"learning path id '{path_id}' is used twice (first at line {seen[path_id]})", code="duplicate-id")
            continue
        if path_id and not urls.ID_PATTERN.match(path_id):
            checker.error(display, entry.line_of("id"), f"learning path id '{path_id}' must match [a-z0-9][a-z0-9._-]*", code="bad-id")
        seen[path_id] = entry.line_of("id")
        paths.append(
            LearningPath(
                id=path_id,
                title=_text(entry, "title"),
                title_en=_text(entry, "title_en"),
                summary=_text(entry, "summary"),
                path=_load_steps(checker, entry, display, f"learning path '{path_id}'"),
            )
        )
    return tuple(paths)


# --- digests -------------------------------------------------------------------------


def split_front_matter(text: str) -> tuple[str, str, int]:
    """(front matter YAML, body, line where the body starts). No front matter: ('', text, 1)."""
    if not text.startswith("---\n"):
        return "", text, 1
    end = text.find("\n---\n", 3)
    if end == -1:
        end = text.find("\n---", 3)
        if end == -1 or text[end + 4 :].strip():
            return "", text, 1
    front = text[4 : end + 1]
    body = text[end + 5 :]
    return front, body, front.count("\n") + 3


def _load_digests(checker: _Checker) -> tuple[Digest, ...]:
    folder = checker.root / "digests"
    if not folder.is_dir():
        return ()
    digests = []
    for path in sorted(folder.iterdir()):
        display = checker.rel(path)
        if path.name.startswith(".") or path.is_dir():
            continue
        match = DIGEST_NAME.match(path.name)
        if not match:
            checker.error(display, 0, "digest files are named YYYY-MM-DD.md (e.g. 2026-10-22.md); rename it", code="bad-file-name")
            continue
        try:
            date = dt.date.fromisoformat(match.group(1))
        except ValueError:
            checker.error(display, 0, f"'{match.group(1)}' is not a real date; rename the file", code="bad-file-name")
            continue
        text = yamlfile.read_text(path, checker.problems, display)
        if text is None:
            continue
        front, body, body_line = split_front_matter(text)
        if not front:
            checker.error(display, 1, "missing front matter; start the file with ---, `title: …`, ---", code="missing-front-matter")
            continue
        meta = yamlfile.parse(front, display, checker.problems)
        if meta is None:
            continue
        # Front matter lines are counted from the file's first line, which is the opening '---'.
        meta = _shift_lines(meta, 1)
        if not checker.fields(meta, DIGEST_FIELDS, display, "digest front matter"):
            continue
        declared = meta.get("date")
        if declared is not None and str(declared) != str(date):
            checker.error(display, meta.line_of("date"), f"date {declared} differs from the file name's {date}; make them agree", code="date-mismatch")
        digests.append(Digest(date=date, title=_text(meta, "title", str(date)), body=body, file=path, meta=dict(meta)))
        for offset, line in enumerate(body.splitlines()):
            for link in WIKILINK.finditer(line):
                checker.pending_links.append((display, body_line + offset, link.group(1).strip()))
    return tuple(sorted(digests, key=lambda d: d.date, reverse=True))


def _shift_lines(data: Any, offset: int) -> Any:
    if isinstance(data, LocatedMap):
        data.line += offset
        data.key_lines = {k: v + offset for k, v in data.key_lines.items()}
        for value in data.values():
            _shift_lines(value, offset)
    elif isinstance(data, LocatedList):
        data.line += offset
        data.item_lines = [v + offset for v in data.item_lines]
        for value in data:
            _shift_lines(value, offset)
    return data


# --- cross-references ------------------------------------------------------------------


def _cross_check(checker: _Checker, corpus: Corpus, chapter_lines: dict[int, int]) -> None:
    first_id: dict[str, tuple[str, int]] = {}
    first_url: dict[str, tuple[str, int, Source]] = {}
    for section in corpus.sections:
        display = checker.rel(corpus.root / section.folder / "sources.yaml")
        for source in section.sources:
            if source.id in first_id:
                where = "{}:{}".format(*first_id[source.id])
                checker.error(display, source.line, f"duplicate id '{source.id}': already used at {where}; give one of them another id", code="duplicate-id")
            else:
                first_id[source.id] = (display, source.line)
            if source.url and urls.is_http_url(source.url):
                key = urls.normalize(source.url)
                if key in first_url:
                    other_display, other_line, other = first_url[key]
                    message = f"duplicate URL {source.url}: '{source.id}' cites the same page as '{other.id}' at {other_display}:{other_line}"
                    if source.verified or other.verified:
                        checker.error(display, source.line, message + "; keep one entry (merge the notes)", code="duplicate-url")
                    else:
                        checker.warn(display, source.line, message + " (both unverified placeholders)", code="duplicate-url")
                else:
                    first_url[key] = (display, source.line, source)
    ids = set(first_id)
    known = ids | checker.lost_ids  # references to lost ids follow from an error already reported
    if checker.sources_lost:
        known = _Everything()
    chapters_display = checker.rel(corpus.root / "chapters.yaml")
    citing = [s for s in corpus.sources if s.chapters]
    if checker.chapters_state == "missing" and citing:
        numbers = ", ".join(str(n) for n in sorted({n for s in citing for n in s.chapters}))
        checker.error(
            chapters_display, 0,
            f"missing, but {len(citing)} source(s) cite chapters {numbers}; create it with those chapters "
            "(see the README's `chapters.yaml` section), or remove the `chapters` fields",
            code="missing-file",
        )
    for section in corpus.sections:
        display = checker.rel(corpus.root / section.folder / "sources.yaml")
        for source in section.sources:
            for related in source.see_also:
                if related not in known:
                    checker.error(display, source.line, f"see_also of '{source.id}' names unknown source '{related}'{_suggest(related, ids)}", code="unknown-source")
                elif related == source.id:
                    checker.warn(display, source.line, f"see_also of '{source.id}' names itself", code="see-also-self")
            if checker.chapters_state != "ok":
                continue  # chapters.yaml is missing or broken: reported once above or where it broke
            for number in source.chapters:
                if number not in chapter_lines:
                    checker.error(display, source.line, f"'{source.id}' cites chapter {number}, which {chapters_display} does not define; add the chapter or fix the number", code="unknown-chapter")
    path_sources: dict[int, set[str]] = {}
    for chapter in corpus.chapters:
        path_sources[chapter.number] = {step.source for step in chapter.path}
        _check_steps(checker, chapter.path, ids, known, chapters_display, f"chapter {chapter.number}")
    for learning_path in corpus.paths:
        _check_steps(checker, learning_path.path, ids, known, checker.rel(corpus.root / "paths.yaml"), f"learning path '{learning_path.id}'")
    for source in corpus.sources:
        for number in source.chapters:
            if number in path_sources and source.id not in path_sources[number]:
                checker.warn(chapters_display, chapter_lines[number], f"'{source.id}' cites chapter {number} but is not in its reading path; add a step for it", code="not-in-reading-path")
    for section in corpus.sections:  # annotations may link too: [[id]], [[paper-id#page-12]]
        display = checker.rel(corpus.root / section.folder / "sources.yaml")
        for source in section.sources:
            checker.pending_links += [(display, source.line, m.group(1).strip()) for m in WIKILINK.finditer(source.note or "")]
    for display, line, target in checker.pending_links:
        target, _, fragment = target.partition("#")
        target = target.strip()
        if target not in known:
            checker.error(display, line, f"link [[{target}]] names no source in the registry{_suggest(target, ids)}", code="unknown-source")
        elif fragment.strip() and target in corpus.by_id:
            from ..core.pdf_structure import check_anchor  # anchors live in the paper's mirror

            problem = check_anchor(corpus.raw_dir(corpus.by_id[target]), target, fragment.strip(), corpus.by_id[target].kind)
            if problem is not None:
                (checker.error if problem[0] == "error" else checker.warn)(display, line, problem[1], code="unknown-anchor")


class _Everything(set):
    """Contains every id: stands for the ids of a sources.yaml that could not be read."""

    def __contains__(self, item: object) -> bool:
        return True


def _check_steps(checker: _Checker, steps: tuple[ReadingStep, ...], ids: set[str], known: set[str], display: str, what: str) -> None:
    seen: set[str] = set()
    for step in steps:
        # A step's reason may link too ([[deepep#csrc/kernels/internode.cu:120-160]]): checked with the notes' links.
        checker.pending_links += [(display, step.line, m.group(1).strip()) for m in WIKILINK.finditer(step.why or "")]
        if step.source not in known:
            checker.error(display, step.line, f"{what}'s path names unknown source '{step.source}'{_suggest(step.source, ids)}", code="unknown-source")
        elif step.source in seen:
            checker.warn(display, step.line, f"{what}'s path lists '{step.source}' twice", code="duplicate-step")
        seen.add(step.source)


def _suggest(name: str, ids: set[str]) -> str:
    hint = difflib.get_close_matches(name, sorted(ids), n=1, cutoff=SUGGEST_IDS)
    return f"; did you mean '{hint[0]}'?" if hint else ""


# --- entry points ----------------------------------------------------------------------


def read(root: Path, *, copy_of: Path | None = None) -> tuple[Corpus, list[Problem]]:
    """The corpus as far as it could be read, and every problem (errors and warnings), sorted.

    copy_of: `root` is a throwaway copy of that corpus folder (a dry run's): its unchanged
    sections are taken from that corpus's section cache, and nothing is cached for the copy.
    """
    root = Path(root)
    checker = _Checker(root=root, copy_of=Path(copy_of) if copy_of is not None else None)
    if not root.is_dir():
        checker.error(str(root), 0, "no corpus folder here; run corpus-build from the project root or pass --project DIR", code="missing-corpus")
        return Corpus(root=root, settings=Settings(title="Corpus"), sections=()), checker.problems
    settings = _load_settings(checker)
    sections = tuple(_load_section_once(checker, folder) for folder in _section_folders(checker))
    chapters, chapter_lines = _load_chapters(checker)
    paths = _load_paths(checker)
    digests = _load_digests(checker)
    corpus = Corpus(root=root, settings=settings, sections=sections, chapters=chapters, paths=paths, digests=digests)
    _cross_check(checker, corpus, chapter_lines)
    checker.problems.extend(checks.placeholder_problems(corpus, checker.rel))
    return corpus, sorted(set(checker.problems))


def check(root: Path, *, copy_of: Path | None = None) -> list[Problem]:
    """Every problem in the registry, errors and warnings, sorted by file and line (copy_of: as `read`)."""
    return read(root, copy_of=copy_of)[1]


def load_with_problems(root: Path) -> tuple[Corpus, list[Problem]]:
    """The validated corpus and its warnings; raises RegistryError listing every error.

    Every stage loads the registry here before it reads a mirror, so this is where a mirror that
    a fetch killed mid-swap left parked is put back under its name (core/swapdir.put_back)."""
    corpus, problems = read(root)
    if any(p.severity == "error" for p in problems):
        raise RegistryError(problems)
    # Before any stage reads a mirror: one a killed fetch left parked is back under its name.
    swapdir.put_back(corpus.root, ((corpus.root / s.folder / "raw", {x.id for x in s.sources}) for s in corpus.sections))
    return corpus, problems


def load(root: Path) -> Corpus:
    """The validated corpus; raises RegistryError listing every error."""
    return load_with_problems(root)[0]
