"""`corpus-build import FILE --section S`: add the references a curator keeps in Zotero or a .bib file.

Each reference becomes a registry entry (kind, title, authors, date, doi, arxiv, venue,
url, tags, the note as annotation). One already in the registry (same normalised URL,
DOI or arXiv id), or twice in the file, is reported and skipped. One without any address
is refused, or with `--unverified` imported as `verified: false` (the registry's form for a
source whose address is not known yet) and known by its title. New entries are
appended to the section's sources.yaml as `add` does: existing bytes untouched, the
registry validated afterwards, the file put back if it does not validate.

A reference the registry would refuse (a control character, a 300,000-character note, an
address that is no http(s) URL) is refused alone, named by its place in the imported file
(`refs.bib:120`, `zotero.json: item 7`), never by the line of sources.yaml the importer
wrote; the others are imported. `--dry-run` runs the same checks on a copy of the registry,
so it refuses exactly what the real run refuses, with the same words.
"""

from __future__ import annotations

import argparse
import contextlib
import re
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..core import console, limits, urls
from ..core.errors import AddError, Problem, RegistryError, plural, printable
from ..core.model import Corpus
from ..core.runlock import registry_lock
from . import reader, yamlfile
from .add import _display, _restore, _write_and_check, entries_yaml, resolve_section
from .import_formats import FORMATS, Reference, arxiv_id, clean_doi, read_file

# Each format's type words -> our kinds. A URL that implies a kind (GitHub, arXiv…) wins.
_KIND_BY_TYPE = {
    # CSL
    "article-journal": "paper", "paper-conference": "paper", "article": "paper", "report": "paper", "thesis": "paper",
    "chapter": "paper", "book": "paper", "manuscript": "paper", "webpage": "article", "post-weblog": "article",
    "post": "article", "article-magazine": "article", "article-newspaper": "article", "software": "repo",
    "dataset": "dataset", "motion_picture": "video", "broadcast": "video", "speech": "video",
    # BibTeX / biblatex
    "inproceedings": "paper", "conference": "paper", "techreport": "paper", "phdthesis": "paper",
    "mastersthesis": "paper", "incollection": "paper", "inbook": "paper", "proceedings": "paper", "preprint": "paper",
    "online": "article", "electronic": "article", "www": "article", "manual": "docs",
    # RIS
    "JOUR": "paper", "CONF": "paper", "CPAPER": "paper", "RPRT": "paper", "THES": "paper", "BOOK": "paper",
    "CHAP": "paper", "EJOUR": "paper", "GEN": "article", "ELEC": "article", "WEB": "article", "BLOG": "article",
    "NEWS": "article", "MGZN": "article", "COMP": "repo", "DATA": "dataset", "VIDEO": "video", "MPCT": "video",
}


@dataclass(frozen=True)
class Skipped:
    where: str
    title: str
    why: str

    def __str__(self) -> str:  # titles and addresses are the export's text: control characters shown escaped
        return printable(f"{self.where}: skipped '{self.title[:60]}': {self.why}")


@dataclass(frozen=True)
class ImportPlan:
    file: Path  # the sources.yaml that grows
    format: str
    entries: tuple[dict, ...]
    duplicates: tuple[Skipped, ...]
    unusable: tuple[Skipped, ...]  # no address at all, or refused by the registry's checks: the curator must fix it
    text: str = field(default="", repr=False)  # the YAML to append
    places: tuple[str, ...] = field(default=(), repr=False)  # each entry's place in the imported file ("refs.bib:12")
    items: tuple[str, ...] = field(default=(), repr=False)  # each entry's YAML (text is their concatenation)

    def without(self, refused: dict[int, str]) -> ImportPlan:
        """This plan with the entries at these indices refused (index -> why)."""
        keep = [i for i in range(len(self.entries)) if i not in refused]
        skipped = tuple(Skipped(self.places[i], self.entries[i]["title"], why) for i, why in sorted(refused.items()))
        items = tuple(self.items[i] for i in keep)
        return replace(self, entries=tuple(self.entries[i] for i in keep), places=tuple(self.places[i] for i in keep), items=items,
                       text="".join(items), unusable=self.unusable + skipped)



def _url_for(ref: Reference) -> str:
    if ref.url and urls.is_http_url(ref.url):
        return ref.url
    if ref.arxiv:
        return f"https://arxiv.org/abs/{ref.arxiv}"
    if ref.doi:
        return f"https://doi.org/{ref.doi}"
    return ""


def _kind(ref: Reference, url: str) -> str:
    implied = urls.detect_kind(url) if url else None
    if implied:
        return implied
    mapped = _KIND_BY_TYPE.get(ref.type) or _KIND_BY_TYPE.get(ref.type.lower())
    if ref.type.lower() in ("misc", "unpublished", "") or not mapped:
        return "paper" if (ref.doi or ref.arxiv) else urls.guess_kind(url) if url else "article"
    return mapped


def _known_keys(corpus: Corpus) -> dict[str, str]:
    """Normalised URL, DOI and arXiv id of every registry entry -> its id and place."""
    keys: dict[str, str] = {}
    for source in corpus.sources:
        place = f"'{source.id}' ({source.section}/sources.yaml:{source.line})"
        if not source.url:
            keys[_title_key(source.title)] = place + ", which has no address yet"
        else:
            keys["url:" + urls.normalize(source.url)] = place
            doi = clean_doi(source.url) if "doi.org/" in source.url else ""
            if doi:
                keys["doi:" + doi.lower()] = place
            found = arxiv_id(source.url)
            if found:
                keys["arxiv:" + found.lower()] = place
        # Fields the bibliographic stage adds to the registry; absent on older records.
        for name in ("doi", "arxiv"):
            value = str(getattr(source, name, "") or "")
            if value:
                keys[f"{name}:" + (clean_doi(value) if name == "doi" else value).lower()] = place
    return keys


def _title_key(title: str) -> str:
    """An address-less entry's identity: its title's letters and digits, case folded."""
    return "title:" + "".join(ch for ch in title.casefold() if ch.isalnum())


def _ref_keys(ref: Reference, url: str) -> list[str]:
    # An entry imported --unverified is known by its title alone; a reference with an address
    # is also checked against those (then the curator adds the address to that entry).
    keys = [_title_key(ref.title)] if ref.title else []
    if not url:
        return keys
    keys.append("url:" + urls.normalize(url))
    if ref.doi:
        keys.append("doi:" + ref.doi.lower())
    if ref.arxiv:
        keys.append("arxiv:" + ref.arxiv.lower())
    return keys


def _source_id(ref: Reference, url: str, taken: set[str], counters: dict[str, int]) -> str:
    base = urls.derive_id(url, ref.title)
    key = urls.slugify(ref.key)
    # A citation key (vaswani2017attention) reads better than a title slug; a URL-ish
    # exporter id (http://zotero.org/users/…) does not.
    if not base.startswith(("arxiv-",)) and not urls.github_parts(url) and key and len(key) <= 40 and "/" not in ref.key and ":" not in ref.key:
        base = key
    # The next number to try for this base: 30,000 URLs of one page (…/item?id=N) share the
    # base `example-item`, and counting from 2 for each was 450 million set lookups.
    candidate, counter = base, counters.get(base, 2)
    while candidate in taken:
        candidate = f"{base}-{counter}"
        counter += 1
    counters[base] = counter
    return candidate


def _entry_problem(entry: dict) -> str | None:
    """What the registry would refuse in a planned entry, checked before any YAML is written, or None."""
    for key, value in entry.items():
        for text in value if isinstance(value, list) else [value]:
            if isinstance(text, str) and (bad := yamlfile.unwritable(text)):
                return f"field '{key}' holds the character {bad} (a control character or no character at all), which a registry file cannot keep; remove it and import again"
        if too_big := limits.text_problem(key, value):
            return too_big
    url = entry.get("url", "")
    if url and (bad_url := urls.url_problem(url) or ("contains spaces; percent-encode them (%20)" if re.search(r"\s", url) else None)):
        return f"its URL {bad_url}"
    return None


def plan_import(corpus: Corpus, path: Path, section: str, fmt: str = "", *, unverified: bool = False) -> ImportPlan:
    """What importing `path` adds and skips. `unverified`: a reference without URL, DOI or arXiv
    id becomes an entry with `verified: false` (the registry's form for a source whose address
    is not known yet) instead of being refused."""
    folder = resolve_section(corpus, section)
    fmt, refs = read_file(path, fmt)
    known = _known_keys(corpus)
    taken = set(corpus.by_id)
    counters: dict[str, int] = {}
    entries, places, duplicates, unusable = [], [], [], []
    for number, ref in enumerate(refs, 1):
        console.progress("planning entries", number, len(refs))
        if ref.problem:
            unusable.append(Skipped(ref.where, ref.title or ref.key, ref.problem))
            continue
        url = _url_for(ref)
        title = ref.title or url
        if not url and not (unverified and ref.title):
            why = "no URL, DOI or arXiv id; add one to the entry, or import it with --unverified (marked unverified until you add its address)"
            if unverified:
                why = "no URL, DOI or arXiv id, and no title to list it under; add one of them to the entry"
            unusable.append(Skipped(ref.where, title or ref.key, why))
            continue
        match = next((k for k in _ref_keys(ref, url) if k in known), None)
        if match:
            hint = f"; add {url} to that entry" if url and match.startswith("title:") else ""
            duplicates.append(Skipped(ref.where, title, f"already in the registry as {known[match]}{hint}"))
            continue
        entry = _entry(ref, url, title, taken, counters)
        refused = _entry_problem(entry)
        if refused:
            unusable.append(Skipped(ref.where, title, refused))
            continue
        taken.add(entry["id"])
        for k in _ref_keys(ref, url):
            if url and k.startswith("title:"):
                continue  # two references of one title with different addresses are two sources
            known[k] = f"'{entry['id']}' ({ref.where}, earlier in this file)"
        entries.append(entry)
        places.append(ref.where)
    items = tuple(entries_yaml(entries))
    return ImportPlan(corpus.root / folder / "sources.yaml", fmt, tuple(entries), tuple(duplicates), tuple(unusable), "".join(items), tuple(places), items)


def _entry(ref: Reference, url: str, title: str, taken: set[str], counters: dict[str, int]) -> dict:
    entry: dict = {"id": _source_id(ref, url, taken, counters), "title": title}
    if url:
        entry["url"] = url
    entry["kind"] = _kind(ref, url)
    if not url:
        entry["verified"] = False
        entry["verify_note"] = f"imported from {ref.where} without a URL, DOI or arXiv id; add the address and remove `verified: false`"
    if ref.authors:
        entry["authors"] = list(ref.authors)
    for name in ("date", "doi", "arxiv", "venue"):
        if getattr(ref, name):
            entry[name] = getattr(ref, name)
    entry["lang"] = reader.guess_lang(ref.note or ref.title)
    if ref.tags:
        entry["tags"] = list(ref.tags)
    if ref.note:
        entry["note"] = ref.note
    return entry


def apply_import(corpus: Corpus, plan: ImportPlan, *, dry_run: bool = False) -> ImportPlan:
    """Append the planned entries (with `dry_run`, to a copy of the registry); returns the plan as carried out.

    The registry is checked with the new entries in it. An error on a line the importer wrote
    refuses that entry alone, named by its place in the imported file; the others are checked
    again and written. Any other error leaves sources.yaml as it was and raises RegistryError.
    """
    path = plan.file
    # Under the registry lock, as add (registry/add.py): no other writer between the read and the put-back.
    with contextlib.nullcontext() if dry_run else registry_lock(corpus.root, "import"):
        original = path.read_text(encoding="utf-8") if path.exists() else None
        body = yamlfile.ready_to_append(original or "")  # an empty list `[]` cannot be appended to: its comments stay, `[]` goes
        display = _display(corpus.root, path)
        for attempt in (1, 2):
            if not plan.entries:
                return plan
            console.progress("checking the registry with the new entries", 0, 0)
            problems = _write_and_check(corpus.root, path, body + plan.text, original, dry_run=dry_run)
            errors = [p for p in problems if p.severity == "error"]
            if not errors:
                return plan
            if not dry_run and not _restore(path, original, body + plan.text):
                raise AddError(f"the imported entries would not validate, but {display} changed while it was checked (an editor or another "
                               f"command saved it), so it was not put back: the entries are still there, after line {body.count(chr(10))}; "
                               "remove them by hand\n" + "\n".join(map(str, sorted(errors))))
            refused, other = _by_entry(errors, plan, display, body.count("\n") + 1)
            if other or attempt == 2:
                raise RegistryError(sorted(other) or [_as_problem(display, plan.places[i], why) for i, why in refused.items()])
            plan = plan.without(refused)
        return plan


def _by_entry(errors: list[Problem], plan: ImportPlan, display: str, first_line: int) -> tuple[dict[int, str], list[Problem]]:
    """The errors on lines the importer wrote, by the index of the entry they are in; and the others."""
    starts, line = [], first_line
    for item in plan.items:
        starts.append(line)
        line += item.count("\n")
    refused: dict[int, str] = {}
    other = []
    for problem in errors:
        if problem.path != display or problem.line < first_line:
            other.append(problem)
            continue
        index = max(i for i, start in enumerate(starts) if start <= problem.line)
        refused.setdefault(index, problem.message)
    return refused, other


def _as_problem(display: str, place: str, why: str) -> Problem:
    """A refused entry, named by its place in the imported file (`display`, the sources.yaml, is not to blame)."""
    return Problem(place, 0, 0, why, "error", "import")


# --- command line -------------------------------------------------------------------------


def register(sub: argparse._SubParsersAction) -> None:
    from ..core.commands import add_command

    p = add_command(
        sub, "import", cmd_import,
        help="add the references of a Zotero CSL-JSON, BibTeX/biblatex, RIS or URL-list file to a section",
        description="Add every reference of an exported file to a section's sources.yaml. Duplicates of registry entries "
        "(same URL, DOI or arXiv id) are reported and skipped; existing bytes of sources.yaml stay as they are. "
        "References without URL, DOI or arXiv id are refused unless --unverified. "
        "Exit 1 when some reference could not be imported, 2 for an unreadable file or one with no references.",
        example='corpus-build import "My Library.json" --section 11 --dry-run\ncorpus-build import refs.bib --section 11\ncorpus-build import thesis.bib --section 11 --unverified',
    )
    p.add_argument("file", help="the exported file (.json, .bib, .ris, or a text file with one URL per line)")
    p.add_argument("--section", required=True, help="section folder (e.g. 14-deepseek-ascend-stack) or its number (14)")
    p.add_argument("--format", choices=FORMATS, help="the file's format (default: from the extension and content)")
    p.add_argument("--dry-run", action="store_true", help="print what would be added and skipped; change nothing")
    p.add_argument("--unverified", action="store_true", help="also import references without URL, DOI or arXiv id, as `verified: false` entries "
                   "(the site marks them; add the address later)")


def _entries(plan: ImportPlan) -> str:
    """`3 entries` or `3 entries (2 unverified, without an address)`."""
    count = len(plan.entries)
    unverified = sum(1 for entry in plan.entries if entry.get("verified") is False)
    return f"{count} entr{'y' if count == 1 else 'ies'}" + (f" ({unverified} unverified, without an address)" if unverified else "")


def cmd_import(args: argparse.Namespace) -> int:
    from ..core.commands import project_dir
    from ..core.console import progress_on_terminal
    from .cli import load_corpus

    # Registry, usage and file errors are raised: corpus_build.cli.main prints them and maps the exit code.
    project = project_dir(args)
    corpus = load_corpus(args)
    problem: RegistryError | None = None
    with progress_on_terminal() if not args.quiet else _nothing():
        plan = plan_import(corpus, Path(args.file), args.section, args.format or "", unverified=args.unverified)
        try:
            plan = apply_import(corpus, plan, dry_run=args.dry_run)
        except RegistryError as exc:
            problem = exc
    shown = plan.file.relative_to(project) if plan.file.is_relative_to(project) else plan.file
    for skipped in plan.duplicates:
        print(str(skipped))
    for skipped in plan.unusable:
        print(f"error: {skipped}", file=sys.stderr)
    if problem is not None:
        print(problem, file=sys.stderr)
        print(f"nothing {'would be ' if args.dry_run else ''}imported: {shown} is as it was", file=sys.stderr)
        return 1
    if args.dry_run:
        print(f"dry run ({plan.format}): would add {_entries(plan)} to {shown}, skip {plural(len(plan.duplicates), 'duplicate')} and {len(plan.unusable)} refused")
        if plan.text:
            print(plan.text, end="")
        return 1 if plan.unusable else 0
    print(f"imported {_entries(plan)} into {shown} ({plan.format}); skipped {plural(len(plan.duplicates), 'duplicate')}, {len(plan.unusable)} refused")
    for entry in plan.entries:
        print(f"  + {entry['id']} ({entry['kind']}{', unverified' if entry.get('verified') is False else ''}): {entry['title'][:70]}")
    if plan.entries:
        print("next: corpus-build build   (and write a note for entries that have none)")
    return 1 if plan.unusable else 0


def _nothing():
    import contextlib

    return contextlib.nullcontext()
