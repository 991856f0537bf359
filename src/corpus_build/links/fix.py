"""`corpus-build links --fix-moved ID`: point a moved source's `url` at where it went.

Only the bytes of the URL on its `url:` line change; every other byte of the file
(comments, order, quoting) stays. The registry is validated afterwards and every
touched file put back if it does not validate.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

from .. import registry
from ..core.errors import Problem, RegistryError, UsageError
from ..core.model import Corpus, Source
from ..core.provenance import write_atomic
from ..core.runlock import registry_lock
from ..registry import yamlfile
from ..registry.add import _restore, check_edited_copy
from ..registry.yamlfile import LocatedList, LocatedMap


def _url_line(path: Path, source: Source) -> int:
    problems: list[Problem] = []
    data = yamlfile.load(path, problems, str(path))
    if isinstance(data, LocatedList):
        for entry in data:
            if isinstance(entry, LocatedMap) and entry.get("id") == source.id and "url" in entry:
                return entry.line_of("url")
    raise UsageError(f"{path}: no `url:` line for '{source.id}'; edit the entry by hand")


def rewrite_urls(corpus: Corpus, changes: list[tuple[Source, str]], *, dry_run: bool = False) -> list[tuple[str, str, str]]:
    """Rewrite each source's `url:` line to its target and validate the registry; put every file back
    when it does not validate. With `dry_run`, the same edits are checked in a copy and nothing is written,
    so a dry run refuses exactly what the real run refuses."""
    # Under the registry lock, as add (registry/add.py): no other writer between the read and the put-back.
    with contextlib.nullcontext() if dry_run else registry_lock(corpus.root, "links"):
        return _rewrite_urls(corpus, changes, dry_run=dry_run)


def _rewrite_urls(corpus: Corpus, changes: list[tuple[Source, str]], *, dry_run: bool) -> list[tuple[str, str, str]]:
    originals: dict[Path, str] = {}
    edited: dict[Path, str] = {}
    done = []
    for source, target in changes:
        path = corpus.root / source.section / "sources.yaml"
        originals.setdefault(path, path.read_text(encoding="utf-8"))
        lines = edited.get(path, originals[path]).split("\n")
        index = _url_line(path, source) - 1
        line = lines[index]
        if source.url not in line:
            raise UsageError(f"{path}:{index + 1}: the URL is not written on one line; change it to {target} by hand")
        lines[index] = line.replace(source.url, _replacement(line, source.url, target), 1)
        edited[path] = "\n".join(lines)
        done.append((source.id, source.url or "", target))
    if dry_run:
        problems = [p for p in check_edited_copy(corpus.root, edited) if p.severity == "error"]
        if problems:
            raise RegistryError(problems)
        return done
    try:
        for path, text in edited.items():
            write_atomic(path, text)
        problems = [p for p in registry.check(corpus.root) if p.severity == "error"]
        if problems:
            raise RegistryError(problems)
    except BaseException:
        for path, text in originals.items():
            _restore(path, text, edited[path])  # only a file that still holds our edit: one saved since stays
        raise
    return done


def _replacement(line: str, url: str, target: str) -> str:
    """The target written in the style of the old URL: bare stays bare, quoted stays quoted."""
    at = line.index(url)
    quote = line[at - 1] if at else ""
    if quote == '"':
        return json.dumps(target)[1:-1]
    if quote == "'":
        return target.replace("'", "''")
    # JSON quoting is valid YAML: used only where a bare URL would be misread (` #`, `: `).
    return json.dumps(target) if (" #" in target or ": " in target) else target
