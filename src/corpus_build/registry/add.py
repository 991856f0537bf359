"""`corpus-build add`: append a new source to a section's sources.yaml.

The entry is appended as text at the end of the file, so every existing byte
(comments, order, quoting, blank lines) stays exactly as the user wrote it. The
whole registry is validated afterwards; if the new entry breaks it, the file is
put back as it was and the problems are reported.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import yaml

from ..core import urls
from ..core.errors import AddError, Problem, RegistryError, UsageError, plural
from ..core.model import KINDS, LANGS, Corpus
from ..core.urls import default_title  # the placeholder title (bibfacts knows it too)
from . import reader, yamlfile


@dataclass(frozen=True)
class NewSource:
    url: str
    section: str
    title: str = ""
    note: str = ""
    lang: str = ""
    kind: str = ""
    chapters: tuple[int, ...] = ()
    tags: tuple[str, ...] = ()
    source_id: str = ""
    offline: bool = False  # True: do not read the page for its title, authors and date
    dry_run: bool = False  # True: validate the entry in a copy of the registry; write nothing


@dataclass(frozen=True)
class PageFacts:
    """What a new source's page says of itself (fetch/pagefacts.py reads it)."""

    title: str = ""
    authors: tuple[str, ...] = ()
    date: str = ""  # "YYYY", "YYYY-MM" or "YYYY-MM-DD"
    error: str = ""  # why nothing could be read ("" when the page answered)


LookUp = Callable[[Corpus, str], PageFacts]


@dataclass(frozen=True)
class Added:
    id: str
    file: Path
    line: int
    kind: str
    warnings: tuple[str, ...] = ()  # the registry's warnings that the new entry brought
    older_warnings: int = 0  # warnings the registry had before (`corpus-build check` lists them)
    entry: str = ""  # the YAML appended (or, with dry_run, that would be)
    written: bool = True  # False for a dry run


def resolve_section(corpus: Corpus, name: str) -> str:
    """A section folder from its full name or its number prefix (`14`)."""
    for section in corpus.sections:
        if name in (section.folder, str(section.number), f"{section.number:02d}"):
            return section.folder
    known = ", ".join(s.folder for s in corpus.sections) or "none yet"
    raise AddError(f"no section '{name}' in {corpus.root}; known sections: {known}. To start a new one, create corpus/NN-slug/section.yaml with a title")


def unique_id(corpus: Corpus, base: str, url: str) -> str:
    taken = set(corpus.by_id)
    if base not in taken:
        return base
    gh = urls.github_parts(url)
    if gh and urls.slugify(f"{gh[0]}-{base}") not in taken:
        return urls.slugify(f"{gh[0]}-{base}")
    counter = 2
    while f"{base}-{counter}" in taken:
        counter += 1
    return f"{base}-{counter}"


def _entry_yaml(entry: dict) -> str:
    class Dumper(yaml.SafeDumper):
        pass

    def represent_str(dumper, value):
        style = "|" if "\n" in value else None
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

    def represent_list(dumper, value):
        # Short lists of numbers or words read best inline: chapters: [17, 18]
        return dumper.represent_sequence("tag:yaml.org,2002:seq", value, flow_style=True)

    Dumper.add_representer(str, represent_str)
    Dumper.add_representer(list, represent_list)
    mapping = yaml.dump(entry, Dumper=Dumper, allow_unicode=True, sort_keys=False, width=100, indent=2, default_flow_style=False)
    lines = mapping.splitlines()
    # As an item of the file's top-level list: "- id: …" then the other keys indented by two.
    return "\n".join(["- " + lines[0], *("  " + line if line else line for line in lines[1:])]) + "\n"


def add_source(corpus_root: Path, new: NewSource, look_up: LookUp | None = None) -> Added:
    """Append `new` to its section's sources.yaml, or change nothing and raise.

    `look_up(corpus, url)` reads the page for its title, authors and date (the command line
    passes fetch/pagefacts.py's, which goes through the fetch stage's HTTP client); without
    it, or with `new.offline`, nothing is read and the title comes from the URL.
    """
    try:
        corpus, before = reader.load_with_problems(corpus_root)
    except RegistryError as exc:
        # The real reasons first, then what add did about them; no corpus folder at all is its own one line.
        missing = all(p.code == "missing-corpus" for p in exc.errors)
        count = len(exc.errors)
        summary = "" if missing else f"nothing was added: fix the registry's {plural(count, 'error')} first (`corpus-build check` lists {'it' if count == 1 else 'them'})"
        raise RegistryError(exc.errors, summary=summary) from exc
    url = new.url.strip()
    if not urls.is_http_url(url):
        raise UsageError(f"'{url}' is not an http(s) URL; pass the full address, e.g. https://github.com/tile-ai/tilelang")
    if new.kind and new.kind not in KINDS:
        raise UsageError(f"--kind '{new.kind}' is unknown; use one of {', '.join(KINDS)}")
    if new.lang and new.lang not in LANGS:
        raise UsageError("--lang must be zh or en (the language of your note)")
    folder = resolve_section(corpus, new.section)
    key = urls.normalize(url)
    for source in corpus.sources:
        if source.url and urls.normalize(source.url) == key:
            raise AddError(
                f"{url} is already in the registry as '{source.id}' ({corpus.root.name}/{source.section}/sources.yaml:{source.line}); edit that entry instead"
            )
    if new.source_id:
        if not urls.ID_PATTERN.match(new.source_id):
            raise UsageError(f"--id '{new.source_id}' must match [a-z0-9][a-z0-9._-]*")
        if new.source_id in corpus.by_id:
            existing = corpus.by_id[new.source_id]
            raise AddError(f"id '{new.source_id}' is already used by '{existing.title}' ({existing.section}/sources.yaml:{existing.line}); choose another --id")
        source_id = new.source_id
    page = PageFacts() if new.offline or look_up is None else look_up(corpus, url)
    title = new.title or page.title
    if not new.source_id:
        source_id = unique_id(corpus, urls.derive_id(url, title), url)
    kind = new.kind or urls.guess_kind(url)
    entry: dict = {"id": source_id, "title": title or default_title(url), "url": url, "kind": kind}
    if page.authors:
        entry["authors"] = list(page.authors)
    if page.date:
        entry["date"] = dt.date.fromisoformat(page.date) if len(page.date) == 10 else page.date
    entry["added"] = dt.date.today()  # the day it entered the registry (the site's "new" list and feed)
    if new.lang or new.note:
        entry["lang"] = new.lang or reader.guess_lang(new.note)
    if new.chapters:
        entry["chapters"] = list(new.chapters)
    if new.tags:
        entry["tags"] = list(new.tags)
    if new.note:
        entry["note"] = new.note.strip("\n")

    path = corpus.root / folder / "sources.yaml"
    original = path.read_text(encoding="utf-8") if path.exists() else None
    body = original or ""
    body = yamlfile.ready_to_append(body)  # an empty list `[]`, comments around it or not, takes entries
    line = body.count("\n") + 1
    text = _entry_yaml(entry)
    display = _display(corpus.root, path)
    if new.dry_run:
        problems = _check_in_a_copy(corpus.root, path, body + text)
    else:
        _write_atomic(path, body + text)
        try:
            problems = reader.check(corpus.root)
        except Exception:
            _restore(path, original)
            raise
    errors = [p for p in problems if p.severity == "error"]
    if errors:
        if not new.dry_run:
            _restore(path, original)
        raise AddError(_rollback_message(errors, display, line))
    old = {(p.path, p.message) for p in before if p.severity == "warning"}
    fresh = [p for p in problems if p.severity == "warning" and (p.path, p.message) not in old]
    # A placeholder title is said once, below, with the reason add wrote it (check says it on later runs).
    warnings = tuple(_in_old_file(p, display, line) for p in fresh if p.code != "placeholder-title")
    warnings += tuple(f"{display}:{line}: warning: {message}" for message in _page_warnings(new, page, title, kind, entry["title"], looked=look_up is not None))
    return Added(id=source_id, file=path, line=line, kind=kind, warnings=warnings, older_warnings=len(problems) - len(errors) - len(fresh),
                 entry=text, written=not new.dry_run)


def _check_in_a_copy(corpus_root: Path, path: Path, text: str) -> list[Problem]:
    """The registry's problems were `path` to hold `text`, checked in a copy (mirrors left out): a dry run writes nothing."""
    import shutil
    import tempfile

    with tempfile.TemporaryDirectory(prefix="corpus-build-add-") as tmp:
        copy = Path(tmp) / corpus_root.name
        shutil.copytree(corpus_root, copy, ignore=shutil.ignore_patterns("raw", ".watch", ".links", ".cache"), symlinks=True)
        (copy / path.relative_to(corpus_root)).write_text(text, encoding="utf-8")
        return reader.check(copy)


def _display(corpus_root: Path, path: Path) -> str:
    """A path as the registry's problems name it (corpus/NN-slug/sources.yaml)."""
    try:
        return str(path.relative_to(corpus_root.parent))
    except ValueError:
        return str(path)


def _in_old_file(problem: Problem, display: str, first_new_line: int) -> str:
    """A problem, placed in the file as the user knows it: the new entry has no line there yet."""
    if problem.path == display and problem.line >= first_new_line:
        return f"the new entry (after line {first_new_line - 1} of {display}): {problem.severity}: {problem.message}"
    return str(problem)


def _rollback_message(errors: list[Problem], display: str, first_new_line: int) -> str:
    lines = [f"nothing was added: the new entry would not validate, so {display} was left as it was"]
    lines += [_in_old_file(p, display, first_new_line) for p in sorted(errors)]
    return "\n".join(lines)


def _page_warnings(new: NewSource, page: PageFacts, title: str, kind: str, written: str, *, looked: bool) -> list[str]:
    """Say when the title is a placeholder (a repository's owner/name is its real name), and why."""
    if title or kind == "repo":
        return [f"authors and date not filled in: {page.error}"] if page.error else []
    if new.offline:
        why = "--offline"
    elif not looked:
        why = "the page was not read"
    else:
        why = f"the page could not be read: {page.error}" if page.error else "the page states no title"
    return [f"wrote a placeholder title '{written}' ({why}); replace it with the source's real title (or pass --title)"]


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _restore(path: Path, original: str | None) -> None:
    if original is None:
        path.unlink(missing_ok=True)
    else:
        _write_atomic(path, original)
