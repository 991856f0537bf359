"""A source page's key from what it is made of, without making its view: an edit lays out the pages it touches.

reuse.py reads a page back from docs/ when its view record is the last render's, but the view
record itself had to be made for every source to find that out: its mirror panel, cite box,
link notice and facts, a third of a render after one note edit at 1,000 mirrored sources.

What a source's view reads (pages.py source_view and what it calls): the corpus's settings,
sections, chapters, reading paths and digests; its own record and mirror (corpus/<section>/
raw/<id>/); the records of the sources its note, see-also and the reading steps about it name
(their titles, whether they exist); the mirrors of the sources any `[[id#…]]` link names (a
paper's page, a repository's file: paper.py, repodocs.py), and every note's `[[…#…]]` links (a note citing a repository's
file gives that repository's panel a page more, repodocs.cited); the other files under corpus/
(the link check's results…); whether any source has a mirror; our code, today's month (an
arXiv id of a month to come is no date yet, bibfacts.py) and today's date (a mirror turns stale). So a source page is keyed by:

    the corpus's key   all of that but the sources: the settings, sections, chapters, paths,
                       digests, every note's `[[…#…]]` links, the inode, times and size of
                       every file under corpus/ outside raw/ and the sources.yaml files (what
                       they say is the sources' records), and of the mirrors such links name;
                       made once per render
    the source's own   its record (note included), the stamps of its mirror's files and its
                       state today (stale or not), the records of the sources it and the
                       steps about it name

The last render's (key -> view record's key) pairs are kept beside the view keys: a key found
there whose page docs/ still holds is that page, made from the same inputs. So a note edit, a
mirror changed or a source added makes the views of the sources they touch; a section, chapter
or settings edit makes them all, as before. A symbolic link anywhere under corpus/ (what it
leads to may change while no stamp here does) turns the keys off for the render.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import os
from collections import defaultdict
from pathlib import Path

from ..core.model import Corpus, Source
from ..registry import WIKILINK
from . import mirrortext
from .offlinelink import site_settings

REGISTRY_FILE = "sources.yaml"  # what it holds is the corpus's sources, notes and all
Stamp = tuple[int, int, int, int]  # (inode, mtime_ns, ctime_ns, size)


class SourceKeys:
    """One render's keys of source pages (module docstring)."""

    def __init__(self, corpus: Corpus, code: str, *, directory_urls: bool, has_mirrors: bool):
        self.corpus = corpus
        self.base = ""  # "": no keys this render
        stamps = _stamps(corpus.root)
        if stamps is None:
            return
        self.mirrors: dict[tuple[str, str], list[tuple[str, Stamp]]] = defaultdict(list)  # (section, id) -> its mirror's files
        others = []
        for path, stamp in stamps:
            parts = path.split("/", 3)
            if len(parts) >= 3 and parts[1] == "raw":  # <section>/raw/<id>[/…]
                self.mirrors[(parts[0], parts[2])].append((path, stamp))
            else:
                others.append((path, stamp))
        steps = [step for chapter in corpus.chapters for step in chapter.path] + [step for path in corpus.paths for step in path.path]
        texts = [s.note for s in corpus.sources] + [d.body for d in corpus.digests] + [step.why or "" for step in steps]
        # A step's why is shown on the page of the source it is about ("cited by"), its [[id]] links
        # with the named sources' titles: those sources are named by that page as its note's are.
        self.steps_name: dict[str, set[str]] = defaultdict(set)
        for step in steps:
            self.steps_name[step.source] |= {m.group(1).partition("#")[0].strip() for m in WIKILINK.finditer(step.why or "")}
        anchored = sorted(m.group(0) for text in texts for m in WIKILINK.finditer(text) if "#" in m.group(1))
        named = sorted({link[2:].split("#", 1)[0].strip() for link in anchored})
        h = hashlib.sha256()
        # The settings as the site has them: the offline copy's flag is the home page's alone (offlinelink.py).
        for part in (code, directory_urls, has_mirrors, dt.datetime.now(dt.UTC).strftime("%Y-%m"), str(corpus.root), site_settings(corpus),
                     [dataclasses.replace(section, sources=()) for section in corpus.sections], corpus.chapters, corpus.paths, corpus.digests,
                     anchored, others, [self._mirror(i) for i in named]):
            h.update(repr(part).encode("utf-8", "surrogatepass"))
            h.update(b"\0")
        self.base = h.hexdigest()

    def _mirror(self, source_id: str) -> object:
        source = self.corpus.by_id.get(source_id)
        return None if source is None else [source.section, self.mirrors.get((source.section, source.id), [])]

    def key(self, source: Source) -> str | None:
        if not self.base:
            return None
        named = sorted({m.group(1).partition("#")[0].strip() for m in WIKILINK.finditer(source.note)} | set(source.see_also)
                       | self.steps_name.get(source.id, set()))
        others = [[i, repr(self.corpus.by_id.get(i))] for i in named]
        text = repr([self.base, source, self._mirror(source.id), self._state(source), others])
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


    def _state(self, source: Source) -> str | None:
        """The mirror's state as its page shows it: "stale" follows the clock (a day passes, provenance.days_old),
        not any file stamped here. (Read once per render: the home page's change list reads it too.)"""
        if (source.section, source.id) not in self.mirrors:
            return None  # no folder: never fetched, whatever the day
        return mirrortext.mirror_state(self.corpus.raw_dir(source), self.corpus.settings.stale_after_days)[0]


def _stamps(root: Path) -> list[tuple[str, tuple[int, int, int, int]]] | None:
    """(path under corpus/, (inode, mtime_ns, ctime_ns, size)) of every file but the sources.yaml files and of the
    folders inside a mirror (an empty raw/<id>/ is a mirror that a missing one is not), sorted;
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
                if path.count("/") < 2 or path.split("/", 2)[1] != "raw":
                    continue  # a folder outside a mirror: its files are listed (its times change with any new file in it)
            elif entry.name == REGISTRY_FILE and relative and "/" not in relative:
                continue  # corpus/<section>/sources.yaml: the corpus itself
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            found.append((path, (info.st_ino, info.st_mtime_ns, info.st_ctime_ns, info.st_size)))
    found.sort()
    return found
