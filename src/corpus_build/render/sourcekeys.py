"""A source page's key from what it is made of, without making its view: a note edit lays out one page.

reuse.py reads a page back from docs/ when its view record is the last render's, but the view
record itself had to be made for every source to find that out: its mirror panel, cite box,
link notice and facts, a third of a render after one note edit at 1,000 mirrored sources.

A source's view is made from the corpus (its settings, sections, chapters, reading paths,
digests and every source: titles, tags, links…), the files under corpus/ (mirrors, their
provenance, the link check's results), our code and today's month (an arXiv id of a month to
come is no date yet, bibfacts.py). Of the sources' notes, it reads its own, and of the others
only their `[[…]]` links (a note citing a repository's file gives that repository's panel a
page more, repodocs.py). So a source page is keyed by:

    the corpus's key   the corpus with every note cut down to its `[[…]]` links, the inode,
                       times and size of every file under corpus/ but the sources.yaml files
                       (what they say is the corpus above), the code, the month: made once
                       per render
    the source         its record, note included

and the last render's (key -> view record's key) pairs are kept beside the view keys: a key
found there whose page docs/ still holds is that page, made from the same inputs. Anything
else about the corpus changed (a mirror, a title, a chapter, a new source), the corpus's key
changes, and every view is made as before.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import os
from pathlib import Path

from ..core.model import Corpus, Source
from ..registry import WIKILINK

REGISTRY_FILE = "sources.yaml"  # what it holds is the corpus's sources, notes and all


def corpus_key(corpus: Corpus, code: str, *, directory_urls: bool, has_mirrors: bool) -> str | None:
    """Everything a source page reads besides its own record (module docstring); None when a link
    under corpus/ could lead to files whose changes its stamps would not show."""
    stamps = _stamps(corpus.root)
    if stamps is None:
        return None
    h = hashlib.sha256()

    def add(*parts: object) -> None:
        for part in parts:
            h.update(repr(part).encode("utf-8", "surrogatepass"))
            h.update(b"\0")

    add(code, directory_urls, has_mirrors, dt.datetime.now(dt.UTC).strftime("%Y-%m"), str(corpus.root), corpus.settings)
    for section in corpus.sections:
        add(dataclasses.replace(section, sources=()))
        for source in section.sources:
            add(dataclasses.replace(source, note=_links(source.note)))  # (the links alone: see the docstring)
    add(corpus.chapters, corpus.paths, corpus.digests)
    for path, stamp in stamps:
        add(path, stamp)
    return h.hexdigest()


def source_key(base: str, source: Source) -> str:
    return hashlib.sha256(f"{base}\0{source!r}".encode("utf-8", "surrogatepass")).hexdigest()


def _links(note: str) -> str:
    return "\n".join(m.group(0) for m in WIKILINK.finditer(note))


def _stamps(root: Path) -> list[tuple[str, tuple[int, int, int, int]]] | None:
    """(path under corpus/, (inode, mtime_ns, ctime_ns, size)) of every file but the sources.yaml files, sorted;
    None when corpus/ holds a symbolic link (what it leads to may change without any stamp here changing).
    One scandir per folder and one stat per file (about 2,700 at 1,000 mirrored sources: a few milliseconds)."""
    found: list[tuple[str, tuple[int, int, int, int]]] = []
    pending = [""]
    while pending:
        relative = pending.pop()
        try:
            with os.scandir(os.path.join(root, relative)) as listing:
                entries = sorted(listing, key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            if entry.is_symlink():
                return None
            path = f"{relative}/{entry.name}" if relative else entry.name
            if entry.is_dir(follow_symlinks=False):
                pending.append(path)
                continue
            if entry.name == REGISTRY_FILE and relative and "/" not in relative:
                continue  # corpus/<section>/sources.yaml: the corpus itself
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            found.append((path, (info.st_ino, info.st_mtime_ns, info.st_ctime_ns, info.st_size)))
    found.sort()
    return found
