"""A content-keyed build cache for the MkDocs build: an edit costs what it changes.

A full MkDocs build converts every page's Markdown, renders every page's template
and segments every page for search, though one note changed. The `corpus` plugin
keeps three caches under `.corpus-build/cache/` (`corpus-build clean` removes it;
CI may restore it: nothing in a key is a path or a time):

    (one SQLite file, cache.sqlite, three kinds of record)
    render   a page's Markdown -> HTML (content, toc, title, anchors, the warnings
             MkDocs logged), keyed by the Markdown, the page's location, the
             Markdown extensions' configuration and the versions involved; valid
             only while every link the page made resolves as it did (the lookups
             are recorded and checked, so adding or removing a page re-renders
             exactly the pages that link to it)
    page     a page's HTML from the theme template, keyed by everything the
             template is given: the page (content, toc, meta, neighbours), the
             whole navigation, the effective configuration, the theme's files
             and the versions (and the build's date, when a theme template
             prints it: build_date_key)
    search   the search entries Material makes of a page (jieba segmentation),
             keyed by the page's text and the search vocabulary
    clean    a generated page's body after the nh3 allow-list (render/sanitize.py),
             keyed by that very HTML and the code that cleans it: a page whose body
             changed in any byte is cleaned again
    cuts     one record: how jieba cut each run of Han characters the search
             entries held (segment.py), keyed by jieba's version, the search
             settings and the corpus's vocabulary, so a page segmented again rarely
             needs jieba at all

Unlike MkDocs' `--dirty`, every page still goes through the build: a hit only
skips the expensive step, so the search index is always whole and the site is
written fresh into the staging folder, byte-identical to a build without cache
(tests/test_incremental.py). A key covers everything the output depends on,
or the entry is not used: a value the key cannot describe stably (an object
without a stable repr) turns the cache off for that build, with a log line.
After a successful build, entries this build did not use are deleted, so the
cache holds one build.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import sys
import time
import types
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from enum import Enum
from importlib import metadata
from pathlib import Path
from typing import Any

from ..core.cachekeys import digest, versions
from . import mdshared

log = logging.getLogger("mkdocs.plugins.corpus")

CACHE_DIR = ".corpus-build/cache"
SCHEMA = 1  # bump when the records change shape
KINDS = ("render", "page", "search", "clean", "cuts", "read")
FLUSH_BYTES = 4_000_000  # characters of pending records written in one transaction
KEEP_FLAVOURS = 4  # builds of other configurations whose entries are kept (the offline flavour…)
# Markdown extensions that read other files while converting a page: what they read is not in
# the page's key, so with one of them configured the cache is off.
_READS_FILES = ("pymdownx.snippets", "markdown_include", "mdx_include")
# Config entries that say where things are, not what is built.
_NOT_OUTPUT = {"site_dir", "docs_dir", "config_file_path", "watch", "dev_addr", "plugins", "theme", "hooks", "strict"}
# get_context's standard entries; anything else in a page's context came from a plugin.
_STANDARD_CONTEXT = {"nav", "pages", "base_url", "extra_css", "extra_javascript", "mkdocs_version", "build_date_utc", "config", "page"}


class Unstable(Exception):
    """A value with no stable description: it cannot be part of a key."""


def stable(value: Any, depth: int = 0) -> Any:
    """A JSON-able description of `value` that is the same in every process, or Unstable."""
    if depth > 40:
        raise Unstable("nested too deeply")
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, Enum):
        return f"{type(value).__qualname__}.{value.name}"
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, bytes):
        return hashlib.sha256(value).hexdigest()
    if isinstance(value, Mapping):
        return {"{}": sorted(([str(k), stable(v, depth + 1)] for k, v in value.items()), key=lambda kv: kv[0])}
    if isinstance(value, (list, tuple)):
        return [stable(v, depth + 1) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted(json.dumps(stable(v, depth + 1), sort_keys=True) for v in value)
    if isinstance(value, functools.partial):
        return {"partial": stable(value.func, depth + 1), "args": stable(value.args, depth + 1), "kw": stable(value.keywords, depth + 1)}
    if isinstance(value, (types.FunctionType, types.BuiltinFunctionType, type)):
        cells = [c.cell_contents for c in (getattr(value, "__closure__", None) or ())]
        return {"fn": f"{value.__module__}.{value.__qualname__}", "cells": stable(cells, depth + 1), "defaults": stable(getattr(value, "__defaults__", None), depth + 1)}
    if type(value).__name__ == "TagReference" and isinstance(getattr(value, "links", None), list):
        # Material's tag chip: its repr names the tag alone, not the listing it links to, which moves
        # when another tag takes its page's address.
        return {type(value).__qualname__: stable(vars(value), depth + 1)}
    text = repr(value)
    if " at 0x" in text or text.startswith("<"):
        raise Unstable(f"{type(value).__module__}.{type(value).__qualname__}")
    return f"{type(value).__qualname__}:{text}"


def _walk(folder: str) -> Iterator[tuple[str, list[str], list[str]]]:
    """os.walk through linked folders, as Jinja reads templates (overrides/partials -> a folder shared by
    projects); each real folder once, so a link to a folder above ends."""
    seen: set[str] = set()
    for root, dirs, files in os.walk(folder, followlinks=True):
        real = os.path.realpath(root)
        if real in seen:
            dirs[:] = []
            continue
        seen.add(real)
        yield root, dirs, files


def _tree_hash(folder: str) -> str:
    h = hashlib.sha256()
    for root, dirs, files in _walk(folder):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(root, name)
            h.update(os.path.relpath(path, folder).encode())
            with open(path, "rb") as f:
                h.update(f.read())
    return h.hexdigest()


def theme_key(theme: Any) -> Any:
    """The theme's options and the files of every theme folder not installed with a versioned package."""
    installed = tuple(str(Path(p).resolve()) for p in {os.path.dirname(os.path.dirname(metadata.__file__))} | set(sys.path) if "-packages" in str(p))
    dirs = []
    for folder in theme.dirs:
        resolved = str(Path(folder).resolve())
        dirs.append("(installed)" if resolved.startswith(installed) else _tree_hash(resolved))
    return {"name": theme.name, "options": stable(dict(theme.items())), "dirs": dirs, "static": stable(set(theme.static_templates))}


# What a page's template can print that follows the build's date, not any input: MkDocs gives every
# page's context `build_date_utc` and every page an `update_date`. Material's page templates name
# neither (MkDocs' own themes print the first; its sitemap.xml, no page template, the second).
_DATED = (b"build_date_utc", b"update_date")
_TEMPLATE_SUFFIXES = (".html", ".htm", ".j2", ".jinja", ".jinja2")


def build_date_key(theme: Any) -> str | None:
    """None when no page template of the theme names the build's date; else that date as this build
    has it: SOURCE_DATE_EPOCH (a reproducible build's fixed date, MkDocs' get_build_datetime), or this
    very moment, so that no page made from such templates is reused by a build of another day."""
    for folder in theme.dirs:
        for root, dirs, files in _walk(folder):
            dirs[:] = [d for d in dirs if not d.startswith(".")]  # Material's .icons: thousands of SVG files
            for name in files:
                if name.endswith(_TEMPLATE_SUFFIXES):
                    with open(os.path.join(root, name), "rb") as f:
                        text = f.read()
                    if any(word in text for word in _DATED):
                        return os.environ.get("SOURCE_DATE_EPOCH") or f"now {time.time_ns()}"
    return None


def _icons_read(mdx_configs: Any) -> list[str]:
    """The custom icon folders the emoji extension reads while converting a page (Material's
    `options: custom_icons`, found from the current folder as the extension finds them), by their
    files' bytes: `:mine-logo:` becomes the icon's SVG, so an icon edited is an edit of its pages."""
    emoji = mdx_configs.get("pymdownx.emoji") if isinstance(mdx_configs, Mapping) else None
    options = emoji.get("options") if isinstance(emoji, Mapping) else None
    folders = options.get("custom_icons") if isinstance(options, Mapping) else None
    if not isinstance(folders, (list, tuple)):
        return []
    return [_tree_hash(folder) if isinstance(folder, str) and os.path.isdir(folder) else "" for folder in folders]


def config_key(config: Any) -> Any:
    """Everything in the effective configuration that can change a page's HTML."""
    options = {k: stable(v) for k, v in config.items() if k not in _NOT_OUTPUT}
    plugins = {name: _plugin_key(name, plugin) for name, plugin in config.plugins.items()}
    return {"options": options, "plugins": plugins, "theme": theme_key(config.theme)}


def _plugin_key(name: str, plugin: Any) -> Any:
    if hasattr(plugin, "config"):
        return stable(dict(plugin.config))
    source = getattr(plugin, "__file__", None)  # a module of mkdocs.yml's `hooks:`: what it does is its code
    if isinstance(source, str) and os.path.isfile(source):
        with open(source, "rb") as f:
            return {"hook": hashlib.sha256(f.read()).hexdigest()}
    raise Unstable(f"the plugin {name}")


def nav_key(nav: Any) -> Any:
    def item(node: Any) -> Any:
        return {
            "type": type(node).__name__,
            "title": node.title,
            "url": getattr(node, "url", None),
            # Material's navigation shows a listed page's front matter too (its icon, subtitle, status).
            "meta": stable(getattr(node, "meta", None)),
            "children": [item(c) for c in (node.children or [])] if getattr(node, "children", None) else [],
        }

    return [item(n) for n in nav.items]


def toc_to_json(toc: Any) -> list[Any]:
    return [{"title": a.title, "id": a.id, "level": a.level, "children": toc_to_json(a.children)} for a in toc]


def put_rendered(page: Any, record: dict[str, Any], files: Any) -> None:
    """Give `page` what MkDocs' Markdown step leaves on it, from a render record: its HTML, toc,
    title, anchors and links to anchors, and the warnings that step logged (logged again)."""
    page.content = record["content"]
    page.toc = toc_from_json(record["toc"])
    page._title_from_render = record["title"]
    page.present_anchor_ids = set(record["anchors"])
    links = record["links_to_anchors"]
    if links is not None and logging.getLogger("mkdocs.structure.pages").getEffectiveLevel() > logging.DEBUG:
        page.links_to_anchors = {files.get_file_from_path(uri): v for uri, v in links.items()}
    for name, level, message in record["logs"]:
        logging.getLogger(name).log(level, message)


def toc_from_json(items: list[Any]) -> Any:
    from mkdocs.structure.toc import AnchorLink, TableOfContents

    def link(d: dict[str, Any]) -> Any:
        a = AnchorLink(d["title"], d["id"], d["level"])
        a.children = [link(c) for c in d["children"]]
        return a

    return TableOfContents([link(d) for d in items])


class Store:
    """Records by kind and key in one SQLite file under the cache folder.

    One file, not one per record: on a slow file system thousands of small files
    cost more to open than the work they save. The store remembers which keys this
    build used, for `prune`.
    """

    def __init__(self, root: Path):
        self.root = Path(root)
        self.used: dict[str, set[str]] = {kind: set() for kind in KINDS}
        self.hits = dict.fromkeys(KINDS, 0)
        self.misses = dict.fromkeys(KINDS, 0)
        self._pending: list[tuple[str, str, str]] = []
        self._pending_bytes = 0
        # The keys stored when the build began: a key not among them is a miss without a query
        # (a full build asks for every page's three records). One written meanwhile by another
        # build is then computed again, which costs time, never correctness.
        self._stored: set[tuple[str, str]] = set()
        # While a page is read (populateskip.py): the records it used, so a build that puts the page
        # back without reading it keeps them too, for the build that must read it again.
        self.trace: list[tuple[str, str]] | None = None
        self.db: Any = None
        self._open(retry=True)

    def _open(self, *, retry: bool) -> None:
        import sqlite3

        path = self.root / "cache.sqlite"
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(path, timeout=60, isolation_level=None)
            # A rollback journal, not WAL: WAL writes every page twice (the log, then the file), and a
            # full build writes about 34 KB per source here; a killed build still leaves the file as it was.
            self.db.execute("PRAGMA journal_mode=TRUNCATE")
            self.db.execute("PRAGMA synchronous=NORMAL")  # a cache: a power cut may cost it, never the site
            self.db.execute("CREATE TABLE IF NOT EXISTS entry (kind TEXT, key TEXT, value TEXT, PRIMARY KEY (kind, key))")
            self.db.execute("CREATE TABLE IF NOT EXISTS build (flavour TEXT PRIMARY KEY, used TEXT, at REAL)")
            self._stored = set(self.db.execute("SELECT kind, key FROM entry"))
        except sqlite3.Error as exc:
            if self.db is not None:
                self.db.close()
                self.db = None
            damaged = isinstance(exc, sqlite3.DatabaseError) and not isinstance(exc, sqlite3.OperationalError)  # not "locked"
            if retry and damaged and path.is_file():
                # Not a database, or a damaged one (a power cut, a truncated copy): it only held
                # what a build can make again, so it is replaced rather than switching the cache off for good.
                log.info(f"corpus: build cache {path} was unreadable ({exc}); starting it afresh")
                for suffix in ("", "-journal", "-wal", "-shm"):
                    with suppress(OSError):
                        os.unlink(f"{path}{suffix}")
                self._open(retry=False)
                return
            log.info(f"corpus: build cache off ({exc})")
        except OSError as exc:  # an unwritable cache costs speed, never the build
            log.info(f"corpus: build cache off ({exc})")
            self.db = None

    def get(self, kind: str, key: str) -> str | None:
        import sqlite3

        row = None
        if self.db is not None and (kind, key) in self._stored:
            try:
                row = self.db.execute("SELECT value FROM entry WHERE kind = ? AND key = ?", (kind, key)).fetchone()
            except sqlite3.DatabaseError as exc:  # damaged under us: this build goes on without the cache
                log.info(f"corpus: build cache off ({exc})")
                self._stored = set()
        if row is None:
            self.misses[kind] += 1
            return None
        self.used[kind].add(key)
        self.hits[kind] += 1
        if self.trace is not None:
            self.trace.append((kind, key))
        return str(row[0])

    def put(self, kind: str, key: str, text: str) -> None:
        self.used[kind].add(key)
        if self.trace is not None:
            self.trace.append((kind, key))
        self._pending.append((kind, key, text))
        self._pending_bytes += len(text)
        # Bounded memory, few transactions (each rewrites the tree's inner pages); an entry is
        # valid whether or not the build ends well.
        if self._pending_bytes >= FLUSH_BYTES:
            self._flush()

    def _flush(self) -> None:
        import sqlite3

        if self.db is None or not self._pending:
            return
        try:
            with self.db:
                self.db.execute("BEGIN IMMEDIATE")
                self.db.executemany("INSERT OR REPLACE INTO entry VALUES (?, ?, ?)", self._pending)
        except sqlite3.Error as exc:
            log.info(f"corpus: build cache not written ({exc})")
        self._pending = []
        self._pending_bytes = 0

    def close(self) -> None:
        if self.db is not None:
            self.db.close()
            self.db = None

    def prune(self, flavour: str) -> int:
        """Write this build's entries; delete those none of the last few builds used; returns how many.

        One `corpus-build build` can run several builds that share the cache (the
        site and its offline flavour): each flavour keeps the list of what it used,
        and an entry stays while any of the KEEP_FLAVOURS latest lists names it.
        """
        import sqlite3

        if self.db is None:
            return 0
        try:
            with self.db:
                self.db.execute("BEGIN IMMEDIATE")
                self.db.executemany("INSERT OR REPLACE INTO entry VALUES (?, ?, ?)", self._pending)
                self._pending, self._pending_bytes = [], 0
                used = json.dumps({kind: sorted(keys) for kind, keys in self.used.items()})
                self.db.execute("INSERT OR REPLACE INTO build VALUES (?, ?, ?)", (flavour, used, time.time()))
                rows = self.db.execute("SELECT flavour, used FROM build ORDER BY at DESC").fetchall()
                for old, _ in rows[KEEP_FLAVOURS:]:
                    self.db.execute("DELETE FROM build WHERE flavour = ?", (old,))
                keep = {(kind, key) for _, text in rows[:KEEP_FLAVOURS] for kind, keys in json.loads(text).items() for key in keys}
                stale = [(kind, key) for kind, key in self.db.execute("SELECT kind, key FROM entry") if (kind, key) not in keep]
                self.db.executemany("DELETE FROM entry WHERE kind = ? AND key = ?", stale)
            return len(stale)
        except sqlite3.Error as exc:
            log.info(f"corpus: build cache not written ({exc})")
            return 0
        finally:
            self.db.close()
            self.db = None

    def summary(self) -> str:
        return ", ".join(f"{kind} {self.hits[kind]} hit(s) {self.misses[kind]} miss(es)" for kind in KINDS)


# What else the next build reuses: the offline copy's last site (its unchanged pages are linked
# from there), the record of what the last offline.zip was made from (site/offline.py), and the
# stamp by which a build with nothing changed is not run at all (site/uptodate.py).
REUSED = (".corpus-build/offline-site", ".corpus-build/.offline-site.partial", ".corpus-build/.offline.zip.made-by.json",
          ".corpus-build/last-site.json")


def clean(project: Path) -> bool:
    """`corpus-build clean`: remove the build cache and what else the next build would reuse; True when there was any."""
    import shutil

    removed = False
    for name in (CACHE_DIR, *REUSED):
        path = Path(project) / name
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
            removed = True
        elif path.is_file() or path.is_symlink():
            path.unlink()
            removed = True
    return removed


class _RecordingFiles:
    """The page's view of the site's files: records every lookup its links make."""

    def __init__(self, files: Any):
        self._files = files
        self.lookups: dict[str, Any] = {}
        self.other_use = False

    def get_file_from_path(self, path: str) -> Any:
        found = self._files.get_file_from_path(path)
        self.lookups[path] = _resolution(found)
        return found

    def __getattr__(self, name: str) -> Any:
        self.other_use = True  # something we do not record: the render cannot be reused
        return getattr(self._files, name)


def _resolution(file: Any) -> Any:
    return None if file is None else [file.url, file.inclusion.is_excluded(), file.src_uri]


class _Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.records: dict[int, logging.LogRecord] = {}

    def emit(self, record: logging.LogRecord) -> None:
        self.records.setdefault(id(record), record)


@contextmanager
def _captured_logs() -> Iterator[_Capture]:
    handler = _Capture()
    loggers = [logging.getLogger(), logging.getLogger("mkdocs")]
    for logger in loggers:
        logger.addHandler(handler)
    try:
        yield handler
    finally:
        for logger in loggers:
            logger.removeHandler(handler)


class BuildCache:
    """One build's use of the cache, driven by the plugin's hooks (see plugin.py)."""

    def __init__(self, root: Path, config: Any, vocabulary: Path | None, load_vocabulary: Callable[[], None] = lambda: None,
                 finish_page: Callable[[str], str] | None = None):
        self.store = Store(root)
        self.md_key = self.twin_key = ""
        # What the plugin does to every built page (slim.html), done once and stored with the
        # page: a reused page is then not cut again (1 s at 5,000 sources), and smaller to read.
        self._finish_page = finish_page
        self.finished: str | None = None  # the page the template just made, already finished
        self.enabled = self.store.db is not None
        # The pages it converts share one Markdown converter, where that gives MkDocs' own output.
        self.markdown = mdshared.SharedMarkdown(config)
        if not self.markdown.shared:
            log.info(f"corpus: a Markdown converter for each page ({self.markdown.reason})")
        # Loading jieba and the corpus's words costs seconds: only when a page must be segmented.
        self._load_vocabulary: Callable[[], None] | None = load_vocabulary
        try:
            reading = [e for e in config.markdown_extensions if isinstance(e, str) and e.startswith(_READS_FILES)]
            if reading:
                raise Unstable(f"the Markdown extension {reading[0]} reads other files")
            self.versions = versions()
            self.md_key = digest(SCHEMA, self.versions, stable(config.markdown_extensions), stable(config.mdx_configs),
                                 config.use_directory_urls, stable(dict(config.validation)), _icons_read(config.mdx_configs))
            # The same but for the kind of URLs: the site and its offline copy convert alike (twinrender.py).
            self.twin_key = digest(SCHEMA, self.versions, stable(config.markdown_extensions), stable(config.mdx_configs),
                                   stable(dict(config.validation)), _icons_read(config.mdx_configs))
        except Unstable as exc:
            self._disable(exc)
        self.vocabulary = vocabulary
        self.segmenter: Any = None  # segment.Segmenter, once a page is segmented
        self._cuts_key = ""
        self._last_toc: tuple[Any, list[Any]] | None = None
        self._clean_bases: dict[Callable[[str], str], str] = {}
        # What each link target resolves to in this build's files, asked once per target: the pages
        # of a corpus link to the same few (home, sections, tags), and MkDocs' lookup parses a path
        # each time (two thirds of wrap_render at 1,000 sources, 14,000 lookups for 1,900 pages).
        self._resolved: tuple[Any, dict[str, Any]] | None = None
        self.page_key_base = ""
        self.search_key_base = ""
        self.last_page_key: str | None = None  # the page record _render_template last asked for
        self.last_lookups: dict[str, Any] | None = None  # the link lookups of the page render last made or reused
        self.nav_hash = ""

    def vocabulary_loaded(self) -> None:
        if self._load_vocabulary is not None:
            load, self._load_vocabulary = self._load_vocabulary, None
            load()

    def _disable(self, exc: Exception) -> None:
        self.enabled = False
        self.vocabulary_loaded()
        log.info(f"corpus: build cache off for this build: the configuration holds what a key cannot describe ({exc})")

    # --- Markdown -> HTML --------------------------------------------------------------

    def wrap_render(self, page: Any, files: Any, derive: Callable[[Any, Any, Any], list | None] | None = None) -> str | None:
        """Before MkDocs renders `page`: reuse its last render when nothing it depends on changed; the render record's key.

        `derive(page, config, files)`, when given, is tried before converting the page: it gives the page its
        render from another build's (twinrender.py) and returns the links it resolved, or None to convert."""
        if not self.enabled:
            return None
        key = digest(self.md_key, page.file.src_uri, page.file.dest_uri, page.file.url, page.markdown)
        original: Callable[..., None] = page.render
        text = self.store.get("render", key)
        record = json.loads(text) if text else None
        if record and all(self._resolution(files, p) == r for p, r in record["lookups"].items()):
            page.render = functools.partial(self._restore, page, record, files)
        else:
            page.render = functools.partial(self._record, page, key, original, derive)
        return key

    def render_record(self, key: str) -> dict[str, Any] | None:
        """A render record another build of this cache stored (twinrender.py), or None."""
        text = self.store.get("render", key) if self.enabled else None
        try:
            record = json.loads(text) if text else None
        except ValueError:
            return None
        return record if isinstance(record, dict) else None

    def forget_lookups(self) -> None:
        """Before a page is read: last_lookups is then that page's, or None (its render was not recorded)."""
        self.last_lookups = None

    def resolves_as(self, files: Any, lookups: Mapping[str, Any]) -> bool:
        """Every link target a page looked up still resolves as it did."""
        return all(self._resolution(files, p) == r for p, r in lookups.items())

    def _resolution(self, files: Any, path: str) -> Any:
        if self._resolved is None or self._resolved[0] is not files:  # (one Files object per build)
            self._resolved = (files, {})
        known = self._resolved[1]
        if path not in known:
            known[path] = _resolution(files.get_file_from_path(path))
        return known[path]

    def _record(self, page: Any, key: str, original: Callable[..., None], derive: Callable[[Any, Any, Any], list | None] | None,
                config: Any, files: Any) -> None:
        del page.render
        recorder = _RecordingFiles(files)
        calls = None
        with _captured_logs() as capture:
            if derive is not None:
                calls = derive(page, config, recorder)
            if calls is None:
                if self.markdown.render(page, config, recorder):
                    calls = self.markdown.last_calls
                else:
                    original(config, recorder)
        if recorder.other_use:
            return
        self.last_lookups = dict(recorder.lookups)
        record = {
            "content": page.content,
            "toc": toc_to_json(page.toc),
            "title": page._title_from_render,
            "anchors": sorted(page.present_anchor_ids or ()),
            "links_to_anchors": None if page.links_to_anchors is None else {f.src_uri: v for f, v in page.links_to_anchors.items()},
            "lookups": recorder.lookups,
            "logs": [[r.name, r.levelno, r.getMessage()] for r in capture.records.values()],
            # The links MkDocs resolved, as (written, resolved): the offline copy's build moves them (twinrender.py).
            "calls": None if calls is None else [list(call) for call in calls],
        }
        self.store.put("render", key, json.dumps(record, ensure_ascii=False))

    def _restore(self, page: Any, record: dict[str, Any], files: Any, config: Any, _files: Any) -> None:
        del page.render
        self.last_lookups = dict(record["lookups"])
        put_rendered(page, record, files)

    # --- the page template and search ---------------------------------------------------

    def prepare(self, config: Any, env: Any, files: Any, nav: Any | None) -> None:
        """After every page is read (on_env): the keys shared by all pages, and the hooks on templates and search."""
        if not self.enabled:
            self.vocabulary_loaded()
            return
        import jinja2

        # Material's templates compile in seconds at every build: keep their bytecode (Jinja checks the source).
        (self.store.root / "jinja").mkdir(parents=True, exist_ok=True)
        env.bytecode_cache = jinja2.FileSystemBytecodeCache(str(self.store.root / "jinja"))
        try:
            base = config_key(config)
            self.nav_hash = digest(nav_key(nav)) if nav is not None else ""
        except Unstable as exc:
            self._disable(exc)
            return
        self.page_key_base = digest(SCHEMA, self.versions, base, self.nav_hash, build_date_key(config.theme))
        vocabulary = self.vocabulary.read_bytes() if self.vocabulary and self.vocabulary.is_file() else b""
        search = config.plugins.get("search") or config.plugins.get("material/search")
        self.search_key_base = digest(SCHEMA, self.versions, stable(dict(search.config)) if search else None, hashlib.sha256(vocabulary).hexdigest())
        names = {page.meta.get("template", "main.html") for page in (f.page for f in files.documentation_pages()) if page is not None}
        for name in names:
            template = env.get_template(name)  # Jinja keeps it: _build_page gets this same object
            if not isinstance(getattr(template, "render", None), functools.partial):
                template.render = functools.partial(self._render_template, template, type(template).render, config)
        if search is None or not hasattr(search, "search_index"):
            self.vocabulary_loaded()
        else:
            from . import segment

            index = search.search_index
            index.add_entry_from_context = functools.partial(self._search_entries, index, type(index).add_entry_from_context)
            if segment.installable(index):
                self._cuts_key = digest(self.search_key_base, "cuts")  # jieba, its dictionaries, the vocabulary
                self.store.used["cuts"].add(self._cuts_key)  # kept by a build that segments nothing
                index._segment_chinese = self._segment

    def _segment(self, data: str) -> str:
        if self.segmenter is None:
            self.keep_cuts()
        return self.segmenter.segment(data)

    def keep_cuts(self) -> None:
        """The stored cuts, read now: while serving, the preview segments its pages after the store is closed.

        A served build whose pages all came from the cache segmented nothing, so it never
        read them; the first edit's pages then needed jieba's dictionary (1 s at 5,000 sources).
        """
        if self.segmenter is None and self._cuts_key:
            from .segment import Segmenter

            stored = self.store.get("cuts", self._cuts_key)
            self.segmenter = Segmenter(json.loads(stored) if stored else {}, self.vocabulary_loaded)

    def _toc(self, page: Any) -> list[Any]:
        """toc_to_json(page.toc), once for the page's search and template keys (both after every content hook)."""
        toc = page.toc
        if self._last_toc is None or self._last_toc[0] is not toc:
            self._last_toc = (toc, toc_to_json(toc))  # the object itself kept, so its id is never another's
        return self._last_toc[1]

    def _page_facts(self, page: Any) -> Any:
        def neighbour(p: Any) -> Any:
            return None if p is None else [p.url, p.title]

        return [page.url, page.canonical_url, page.abs_url, page.edit_url, page.title, page.file.src_uri, page.file.dest_uri,
                page.is_homepage, stable(page.meta), self._toc(page), neighbour(page.previous_page), neighbour(page.next_page),
                hashlib.sha256((page.content or "").encode("utf-8")).hexdigest()]

    def _render_template(self, template: Any, render: Callable[..., str], config: Any, *args: Any, **kwargs: Any) -> str:
        page = getattr(config, "_current_page", None)
        context = args[0] if args and isinstance(args[0], Mapping) else None
        self.finished = None
        self.last_page_key = None
        if page is None or context is None or context.get("page") is not page or kwargs or len(args) != 1:
            return render(template, *args, **kwargs)
        try:
            extras = {k: stable(v) for k, v in context.items() if k not in _STANDARD_CONTEXT}
            key = digest(self.page_key_base, template.name, self._page_facts(page), extras,
                         context.get("base_url"), stable(context.get("extra_css")), stable(context.get("extra_javascript")),
                         stable(self._finish_page))
        except Unstable:
            return render(template, *args, **kwargs)
        self.last_page_key = key  # (pageskip.py records it, and keeps the record while it links the page)
        cached = self.store.get("page", key)
        if cached is None:
            cached = render(template, *args, **kwargs)
            if self._finish_page is not None:
                cached = self._finish_page(cached)
            self.store.put("page", key, cached)
        self.finished = cached if self._finish_page is not None else None
        return cached

    def _search_entries(self, index: Any, add: Callable[..., None], page: Any) -> None:
        search = (page.meta.get("search") if isinstance(page.meta, dict) else None) or {}
        if isinstance(search, dict) and search.get("exclude"):
            # Material leaves the page out at once (its own first test): no key, no lookup. Nearly
            # half the pages (every mirror's text, the listings' later pages) are such pages.
            add(index, page)
            return
        try:
            # What Material's indexer reads (not the canonical URL: a served build has another site_url).
            key = digest(self.search_key_base, page.url, page.title, stable(page.meta), self._toc(page),
                         hashlib.sha256((page.content or "").encode("utf-8")).hexdigest())
        except Unstable:
            add(index, page)
            return
        cached = self.store.get("search", key)
        if cached is not None:
            index.entries.extend(json.loads(cached))
            return
        if not self._cuts_key:  # without the segmenter, Material's own cuts need jieba now
            self.vocabulary_loaded()
        before = len(index.entries)
        add(index, page)
        self.store.put("search", key, json.dumps(index.entries[before:], ensure_ascii=False))

    # --- the allow-list -------------------------------------------------------------------

    def _clean_base(self, clean: Callable[[str], str]) -> str:
        return self._clean_bases.get(clean) or self._clean_bases.setdefault(clean, digest(SCHEMA, self.versions, stable(clean)))

    def block(self, sha256: str, clean: Callable[[str], str]) -> tuple[str, list[str]] | None:
        """A mirror text block's `clean(html)` and its anchor ids, when a build stored them (site/mirrorblocks.py).
        The block is named by its sha256, which mirrorblocks made to name it anyway: its HTML (35 MB at
        1,000 sources) is not hashed a second time at every build."""
        try:
            key = digest(self._clean_base(clean), "block-sha256", sha256)
        except Unstable:
            return None
        text = self.store.get("clean", key)
        if text is None:
            return None
        cleaned, ids = json.loads(text)
        return str(cleaned), [str(i) for i in ids]

    def keep_block(self, sha256: str, clean: Callable[[str], str], cleaned: str, ids: list[str]) -> None:
        with suppress(Unstable):
            self.store.put("clean", digest(self._clean_base(clean), "block-sha256", sha256), json.dumps([cleaned, ids], ensure_ascii=False))

    def cleaned(self, html: str, clean: Callable[[str], str]) -> str:
        """`clean(html)`, reused when this exact HTML went through this same `clean` before."""
        if not self.enabled:
            return clean(html)
        try:
            base = self._clean_base(clean)
        except Unstable:
            return clean(html)
        key = digest(base, html)
        cached = self.store.get("clean", key)
        if cached is not None:
            return cached
        output = clean(html)
        self.store.put("clean", key, output)
        return output

    def keep(self, kind: str, key: Any) -> None:
        """A stored record this build did not ask for but the next may: not pruned with those no build used."""
        if isinstance(key, str) and (kind, key) in self.store._stored:
            self.store.used[kind].add(key)

    def abandon(self) -> None:
        """A failed build: keep what was written, prune nothing."""
        self.store._flush()
        self.store.close()

    def finish(self) -> None:
        """After a successful build: log the hits and keep only what this build used."""
        if not self.enabled:
            self.store.close()
            return
        cuts = self.segmenter
        if cuts is not None and cuts.new:
            # A build that segmented every page keeps the runs it used; one that segmented a few adds to the last.
            kept = cuts.used if self.store.hits["search"] == 0 else {**cuts.known, **cuts.used}
            self.store.put("cuts", self._cuts_key, json.dumps(kept, ensure_ascii=False, sort_keys=True))
        removed = self.store.prune(self.page_key_base)
        log.info(f"corpus: build cache {self.store.summary()}; {removed} stale entr(ies) removed")


# --- `corpus-build clean` -----------------------------------------------------------------


def register(sub: Any) -> None:
    from ..core.commands import add_command

    add_command(
        sub, "clean", cmd_clean,
        help="remove the build cache (.corpus-build/cache/, the offline copy's last site); the next build is a full build",
        description="Remove the build cache that makes rebuilds after small edits fast (.corpus-build/cache/ beside "
        "mkdocs.yml: rendered pages and search entries, keyed by their content). The next build renders every "
        "page again and fills the cache; the offline copy (corpus.yaml `offline: true`) is built whole again too. The site, "
        "docs/ and the registry are not touched.",
        example="corpus-build clean\ncorpus-build clean && corpus-build build",
    )


def cmd_clean(args: Any) -> int:
    from ..core.commands import EXIT_OK, project_dir

    project = project_dir(args)
    removed = clean(project)
    print(f"removed the build cache {project / CACHE_DIR}" if removed else f"no build cache at {project / CACHE_DIR}")
    return EXIT_OK
