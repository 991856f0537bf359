"""`corpus-build adopt`: write what a source's mirror found (its title, its authors) into the registry.

`add --offline` writes a placeholder title (the address restated, core/bibfacts.py
`placeholder_titles`); after `fetch`, the mirror's provenance.json knows the real title and
often the authors. The site already shows them; this makes them the registry's own words.

Only what the registry lacks is written: a title where it holds a placeholder, authors where
it has none. Each change edits one line of sources.yaml (the title) or inserts one after it
(the authors); every other byte of the file stays as it was, comments included. The whole
registry is validated afterwards and the file put back when it would not validate.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

from ..core import limits
from ..core.bibfacts import has_placeholder_title, mirror_title
from ..core.errors import AddError, Problem, UsageError, printable
from ..core.model import Corpus, Source
from ..core.provenance import read_provenance, write_atomic
from ..core.runlock import registry_lock
from . import reader, yamlfile
from .add import _restore, check_edited_copy

_TITLE_LINE = re.compile(r"^(\s*(?:-\s+)?)title:[ \t]*(.*?)\s*$")


@dataclass(frozen=True)
class Adoption:
    """What adopt writes for one source ("" / () where it writes nothing)."""

    id: str
    file: Path
    line: int  # of the entry's title in that file
    title: str = ""
    authors: tuple[str, ...] = ()
    skipped: str = ""  # why nothing can be written, when so

    def describe(self, *, dry_run: bool = False) -> str:
        if self.skipped:
            return f"{self.id}: nothing to adopt: {self.skipped}"
        said = [f"title '{self.title}'"] if self.title else []
        said += [f"authors {', '.join(self.authors)}"] if self.authors else []
        return f"{self.id}: {'would write' if dry_run else 'wrote'} " + " and ".join(said)


def plan(corpus: Corpus, ids: Sequence[str] = ()) -> list[Adoption]:
    """What the mirrors can give: for `ids`, each of them; without, every placeholder title a mirror can replace."""
    unknown = [i for i in ids if i not in corpus.by_id]
    if unknown:
        raise UsageError(f"no source with id {', '.join(repr(i) for i in unknown)} in the registry; `corpus-build status` lists them")
    chosen = [corpus.source(i) for i in dict.fromkeys(ids)] if ids else [s for s in corpus.sources if has_placeholder_title(s)]
    return [_one(corpus, source) for source in chosen]


def _one(corpus: Corpus, source: Source) -> Adoption:
    file = corpus.root / source.section / "sources.yaml"
    record = read_provenance(corpus.raw_dir(source))
    if record is None:
        return Adoption(source.id, file, source.line, skipped=f"never mirrored; run `corpus-build fetch {source.id}` first")
    title = mirror_title(source, record)
    authors = () if source.authors else tuple(" ".join(a.split()) for a in record.document.authors if a and a.strip())
    if not title and not authors:
        why = "the registry already has a title and authors" if not has_placeholder_title(source) else "the mirror found no title or authors"
        return Adoption(source.id, file, source.line, skipped=why)
    # A mirrored page is untrusted: what the registry would refuse is said here, for this source
    # alone, and in the same words by a dry run and a real one.
    for what, text in [("title", title)] + [("authors", name) for name in authors]:
        bad = yamlfile.unwritable(text)
        too_long = limits.text_problem(what, text)
        if bad or too_long:
            why = f"holds the character {bad}, which a registry file cannot keep" if bad else str(too_long)
            return Adoption(source.id, file, source.line, skipped=f"the mirror's {what} {why}; write the {what} yourself")
    return Adoption(source.id, file, source.line, title=title, authors=authors)


def adopt(corpus_root: Path, ids: Sequence[str] = (), *, dry_run: bool = False) -> list[Adoption]:
    """Write the plan into the registry's files (unless `dry_run`); raises AddError and restores
    the files when the result would not validate."""
    corpus, before = reader.load_with_problems(corpus_root)
    adoptions = plan(corpus, ids)
    todo = [a for a in adoptions if not a.skipped]
    if not todo:
        return adoptions
    # Under the registry lock, as add (registry/add.py): no other writer between the read and the put-back.
    with contextlib.nullcontext() if dry_run else registry_lock(corpus_root, "adopt"):
        # The same edits and the same check for a dry run (in a copy of the registry) as for a real
        # one: a dry run promises nothing the real run refuses.
        originals: dict[Path, str] = {}
        edited: dict[Path, str] = {}
        placed: list[Adoption] = []
        for file in dict.fromkeys(a.file for a in todo):
            originals[file] = file.read_text(encoding="utf-8")
            edited[file], lines = _edit(originals[file], file, [a for a in todo if a.file == file])
            placed += lines
        if dry_run:
            problems = check_edited_copy(corpus_root, edited)
        else:
            for file, text in edited.items():
                write_atomic(file, text)
            problems = reader.check(corpus_root)
        old = {(p.path, p.message) for p in before}
        errors = [p for p in problems if p.severity == "error" and (p.path, p.message) not in old]
        if errors:
            if not dry_run:
                changed = [file for file, text in originals.items() if not _restore(file, text, edited[file])]
                if changed:  # saved by someone else while checked: their edit is kept, ours stays in it
                    raise AddError(f"the adopted facts would not validate, but {', '.join(map(str, changed))} changed while checked (an editor or "
                                   "another command saved it), so it was not put back: undo the adopted lines there by hand\n" + "\n".join(map(str, errors)))
            raise AddError("nothing was adopted: the registry would not validate, so its files were left as they were\n" + "\n".join(map(str, errors)))
    return [next((p for p in placed if p.id == a.id), a) for a in adoptions]


def _edit(text: str, file: Path, adoptions: list[Adoption]) -> tuple[str, list[Adoption]]:
    """The file's text with each adoption's lines changed; the adoptions with the title's line."""
    problems: list[Problem] = []
    entries = yamlfile.parse(text, str(file), problems)
    if not isinstance(entries, list):
        raise AddError(f"{file}: cannot be read as a list of sources; run `corpus-build check`")
    lines = text.splitlines(keepends=True)
    wanted = {a.id: a for a in adoptions}
    edits: list[tuple[int, Adoption]] = []
    for entry in entries:
        if isinstance(entry, yamlfile.LocatedMap) and entry.get("id") in wanted and "title" in entry:
            adoption = wanted[entry["id"]]
            if "authors" in entry:  # an empty `authors: []` is the curator's; never a second key
                adoption = Adoption(adoption.id, file, adoption.line, adoption.title)
            edits.append((entry.line_of("title"), adoption))
    done = []
    for line_no, adoption in sorted(edits, key=lambda e: e[0], reverse=True):  # from the bottom: line numbers above stay put
        index = line_no - 1
        match = _TITLE_LINE.match(lines[index]) if 0 <= index < len(lines) else None
        if match is None or not _is_one_line_value(match.group(2)):
            raise AddError(f"{file}:{line_no}: the title of '{adoption.id}' spans several lines; write the title there yourself")
        prefix = match.group(1)
        new = [lines[index].rstrip("\r\n") if not adoption.title else f"{prefix}title: {_scalar(adoption.title)}"]
        if adoption.authors:
            new.append(f"{' ' * len(prefix)}authors: [{', '.join(_scalar(a, flow=True) for a in adoption.authors)}]")
        ending = lines[index][len(lines[index].rstrip("\r\n")):]  # the file's own line ending ("" on a last line without one)
        lines[index : index + 1] = [line + (ending or "\n") for line in new[:-1]] + [new[-1] + ending]
        done.append(Adoption(adoption.id, file, line_no, adoption.title, adoption.authors))
    return "".join(lines), done


def _is_one_line_value(value: str) -> bool:
    """The value on a `title:` line is the whole value (not a block scalar or a continued quote)."""
    if not value or value[0] in "|>":
        return False
    try:
        return isinstance(yaml.safe_load(f"k: {value}"), dict)
    except yaml.YAMLError:
        return False


def _scalar(value: str, *, flow: bool = False) -> str:
    """`value` as YAML that reads back as exactly it: plain where that is safe, else double-quoted."""
    plain = value.strip() == value and not re.search(r"[:#\[\]{},&*!|>'\"%@`]" if flow else r"(:\s|\s#|^[-?:,\[\]{}#&*!|>'\"%@`])", value)
    if plain:
        try:
            if yaml.safe_load(f"k: [{value}]" if flow else f"k: {value}") == {"k": [value] if flow else value}:
                return value
        except yaml.YAMLError:
            pass
    return json.dumps(value, ensure_ascii=False)  # a JSON string is a YAML double-quoted scalar


# --- the command ------------------------------------------------------------------------


def register(sub: argparse._SubParsersAction) -> None:
    from ..core.commands import add_command

    p = add_command(
        sub, "adopt", cmd_adopt,
        help="write what a source's mirror found (title, authors) into the registry where it has a placeholder or none",
        description="After `add --offline` and `fetch`, the registry still holds the placeholder title `add` wrote. "
        "This writes the mirror's title over the placeholder, and the mirror's authors where the registry names none, "
        "changing only those lines of sources.yaml (comments and layout stay). Without ids: every source whose "
        "placeholder title a mirror can replace. Exit 1 when the result would not validate (nothing is changed then).",
        example="corpus-build adopt --dry-run\ncorpus-build adopt <id>",
    )
    p.add_argument("ids", nargs="*", metavar="ID", help="sources to adopt facts for (default: every placeholder title a mirror can replace)")
    p.add_argument("--dry-run", action="store_true", help="print what would be written; change nothing")


def cmd_adopt(args: argparse.Namespace) -> int:
    from ..core.commands import EXIT_OK, corpus_dir

    adoptions = adopt(corpus_dir(args), args.ids, dry_run=args.dry_run)
    if not adoptions:
        print("no placeholder title that a mirror can replace")
    for adoption in adoptions:
        where = f"corpus/{adoption.file.parent.name}/{adoption.file.name}:{adoption.line}"
        print(printable(f"{where}: {adoption.describe(dry_run=args.dry_run)}"))  # a mirror's title is untrusted text
    return EXIT_OK
