"""`corpus-build add`: append a new source to a section's sources.yaml.

The entry is appended as text at the end of the file, so every existing byte
(comments, order, quoting, blank lines) stays exactly as the user wrote it. The
whole registry is validated afterwards; if the new entry breaks it, the file is
put back as it was and the problems are reported.
"""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import yaml

from ..core import urls
from ..core.errors import AddError, Problem, RegistryError, UsageError, plural
from ..core.model import KINDS, LANGS, Corpus
from ..core.provenance import write_atomic
from ..core.runlock import registry_lock
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


# Characters YAML 1.1 reads as line breaks that Python's "\n" is not: in a block (`|`) or a
# quoted scalar written raw they would come back as "\n" (or end the document: `...`).
_OTHER_BREAKS = frozenset("\r\x85\u2028\u2029")
_Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)  # libyaml's emitter: ~4x the pure-Python one's speed


class _EntryDumper(_Dumper):  # type: ignore[misc,valid-type]  # CSafeDumper is a class chosen at run time
    """Registry style: several lines as a `|` block, short lists inline, everything else as PyYAML picks."""


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = None
    if not _OTHER_BREAKS.isdisjoint(value):
        style = '"'  # escaped (\r, \N, \L, \P): the value comes back as it went in
    elif "\n" in value:
        style = '"' if value.endswith("\n") else "|"  # `|+` would end the document with `...`
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


def _represent_list(dumper: yaml.SafeDumper, value: list) -> yaml.SequenceNode:
    # Short lists of numbers or words read best inline: chapters: [17, 18]
    return dumper.represent_sequence("tag:yaml.org,2002:seq", value, flow_style=True)


class _Entries(list):
    """The top-level list of entries: a block sequence, `- id: …` then the other keys indented by two."""


def _represent_entries(dumper: yaml.SafeDumper, value: list) -> yaml.SequenceNode:
    return dumper.represent_sequence("tag:yaml.org,2002:seq", value, flow_style=False)


_EntryDumper.add_representer(str, _represent_str)
_EntryDumper.add_representer(list, _represent_list)
_EntryDumper.add_representer(_Entries, _represent_entries)


def entries_yaml(entries: list[dict]) -> list[str]:
    """Each entry as the YAML of an item of a sources.yaml list, ready to append; one emitter run for all of them."""
    if not entries:
        return []
    text = yaml.dump(_Entries(entries), Dumper=_EntryDumper, allow_unicode=True, sort_keys=False, width=100, indent=2, default_flow_style=False)
    items: list[str] = []
    for line in text.split("\n")[:-1]:  # "\n" only: every other break character is written escaped
        if line.startswith("- "):
            items.append("")
        items[-1] += line + "\n"
    return items


def _entry_yaml(entry: dict) -> str:
    return entries_yaml([entry])[0]


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

    for key, value in entry.items():
        for text in value if isinstance(value, list) else [value]:
            if isinstance(text, str) and (bad := yamlfile.unwritable(text)):
                # A control character, or a byte of the command line that is not UTF-8 (Python keeps it as a lone surrogate).
                raise UsageError(f"the {key} holds the character {bad} (a control character, or bytes that are not UTF-8), which a registry file cannot keep; retype it")
    path = corpus.root / folder / "sources.yaml"
    # Read, written and checked under the registry lock: another add at the same time would
    # append to the file as it had read it, and one entry would be lost.
    with contextlib.nullcontext() if new.dry_run else registry_lock(corpus.root, "add"):
        original = path.read_text(encoding="utf-8") if path.exists() else None
        body = original or ""
        body = yamlfile.ready_to_append(body)  # an empty list `[]`, comments around it or not, takes entries
        line = body.count("\n") + 1
        text = _entry_yaml(entry)
        display = _display(corpus.root, path)
        problems = _write_and_check(corpus.root, path, body + text, original, dry_run=new.dry_run)
        errors = [p for p in problems if p.severity == "error"]
        if errors:
            if not new.dry_run and not _restore(path, original, body + text):
                raise AddError(_changed_message(errors, display, line))
            raise AddError(_rollback_message(errors, display, line))
    old = {(p.path, p.message) for p in before if p.severity == "warning"}
    fresh = [p for p in problems if p.severity == "warning" and (p.path, p.message) not in old]
    # A placeholder title is said once, below, with the reason add wrote it (check says it on later runs).
    warnings = tuple(_in_old_file(p, display, line) for p in fresh if p.code != "placeholder-title")
    warnings += tuple(f"{display}:{line}: warning: {message}" for message in _page_warnings(new, page, title, kind, entry["title"], looked=look_up is not None))
    return Added(id=source_id, file=path, line=line, kind=kind, warnings=warnings, older_warnings=len(problems) - len(errors) - len(fresh),
                 entry=text, written=not new.dry_run)


def _write_and_check(corpus_root: Path, path: Path, text: str, original: str | None, *, dry_run: bool) -> list[Problem]:
    """The registry's problems with `text` as `path`: in a copy for a dry run; else written, and
    put back to `original` should the check itself stop (an interrupt too). The caller restores
    it on errors it refuses."""
    if dry_run:
        return _check_in_a_copy(corpus_root, path, text)
    write_atomic(path, text)
    try:
        return reader.check(corpus_root)
    except BaseException:
        _restore(path, original, text)
        raise


def _check_in_a_copy(corpus_root: Path, path: Path, text: str) -> list[Problem]:
    """The registry's problems were `path` to hold `text`, checked in a copy (mirrors left out): a dry run writes nothing."""
    return check_edited_copy(corpus_root, {path: text})


def check_edited_copy(corpus_root: Path, edits: dict[Path, str]) -> list[Problem]:
    """The registry's problems were each file to hold its new text, checked in a copy (mirrors left out).

    What a dry run (add, import, adopt) says: the same check the real run makes after writing,
    so a dry run refuses exactly what the real run refuses, in the same words.
    """
    import shutil
    import tempfile

    with tempfile.TemporaryDirectory(prefix="corpus-build-check-") as tmp:
        copy = Path(tmp) / corpus_root.name
        shutil.copytree(corpus_root, copy, ignore=shutil.ignore_patterns("raw", ".watch", ".links", ".cache"), symlinks=True)
        for path, text in edits.items():
            (copy / path.relative_to(corpus_root)).write_text(text, encoding="utf-8")
        return reader.check(copy, copy_of=corpus_root)


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


def _changed_message(errors: list[Problem], display: str, first_new_line: int) -> str:
    lines = [f"the new entry would not validate, but {display} changed while it was checked (an editor or another command saved it), "
             f"so it was not put back: the new entry is still there, after line {first_new_line - 1}; remove it by hand"]
    lines += [_in_old_file(p, display, first_new_line) for p in sorted(errors)]
    return "\n".join(lines)


def _restore(path: Path, original: str | None, written: str) -> bool:
    """Put `path` back to `original`, if it still holds what we `written` there; False (and left
    alone) when someone saved it since: their edit must not be lost to our put-back."""
    try:
        current: str | None = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        current = None
    except (OSError, UnicodeDecodeError):
        return False
    if current != written:
        return False
    if original is None:
        path.unlink(missing_ok=True)
    else:
        write_atomic(path, original)
    return True
