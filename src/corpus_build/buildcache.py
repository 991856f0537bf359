"""A content-keyed build cache for the MkDocs build: an edit costs what it changes.

A full MkDocs build converts every page's Markdown, renders every page's template
and segments every page for search, though one note changed. The `corpus` plugin
keeps three caches under `.corpus-build/cache/` (`corpus-build clean` removes it;
CI may restore it: nothing in a key is a path or a time):

    render/  a page's Markdown -> HTML (content, toc, title, anchors, the warnings
             MkDocs logged), keyed by the Markdown, the page's location, the
             Markdown extensions' configuration and the versions involved; valid
             only while every link the page made resolves as it did (the lookups
             are recorded and checked, so adding or removing a page re-renders
             exactly the pages that link to it)
    page/    a page's HTML from the theme template, keyed by everything the
             template is given: the page (content, toc, meta, neighbours), the
             whole navigation, the effective configuration, the theme's files
             and the versions
    search/  the search entries Material makes of a page (jieba segmentation),
             keyed by the page's text and the search vocabulary

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
import types
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from enum import Enum
from importlib import metadata
from pathlib import Path
from typing import Any

log = logging.getLogger("mkdocs.plugins.corpus")

CACHE_DIR = ".corpus-build/cache"
SCHEMA = 1  # bump when the records change shape
KINDS = ("render", "page", "search")
KEEP_FLAVOURS = 4  # builds of other configurations whose entries are kept (the offline flavour…)
# The distributions whose code turns Markdown into the site's HTML.
VERSIONED = (
    "mkdocs", "properdocs", "mkdocs-material", "mkdocs-material-extensions", "Markdown",
    "pymdown-extensions", "Pygments", "Jinja2", "MarkupSafe", "jieba", "babel",
)
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
    text = repr(value)
    if " at 0x" in text or text.startswith("<"):
        raise Unstable(f"{type(value).__module__}.{type(value).__qualname__}")
    return f"{type(value).__qualname__}:{text}"


def digest(*parts: Any) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(json.dumps(part, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
        h.update(b"\0")
    return h.hexdigest()


def versions() -> dict[str, str]:
    """The versions involved: Python, the rendering libraries, and corpus-build's own code."""
    found = {"python": sys.version}
    for name in VERSIONED:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    # An editable install keeps its version while its code changes: hash the code too.
    package = Path(__file__).parent
    h = hashlib.sha256()
    for path in sorted(package.rglob("*")):
        if path.is_file() and path.suffix in (".py", ".html", ".md", ".j2", ".jinja"):
            h.update(str(path.relative_to(package)).encode())
            h.update(path.read_bytes())
    found["corpus_build"] = h.hexdigest()
    return found


def _tree_hash(folder: str) -> str:
    h = hashlib.sha256()
    for root, dirs, files in os.walk(folder):
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


def config_key(config: Any) -> Any:
    """Everything in the effective configuration that can change a page's HTML."""
    options = {k: stable(v) for k, v in config.items() if k not in _NOT_OUTPUT}
    plugins = {name: stable(dict(plugin.config)) for name, plugin in config.plugins.items()}
    return {"options": options, "plugins": plugins, "theme": theme_key(config.theme)}


def nav_key(nav: Any) -> Any:
    def item(node: Any) -> Any:
        return {
            "type": type(node).__name__,
            "title": node.title,
            "url": getattr(node, "url", None),
            "children": [item(c) for c in (node.children or [])] if getattr(node, "children", None) else [],
        }

    return [item(n) for n in nav.items]


def toc_to_json(toc: Any) -> list[Any]:
    return [{"title": a.title, "id": a.id, "level": a.level, "children": toc_to_json(a.children)} for a in toc]


def toc_from_json(items: list[Any]) -> Any:
    from mkdocs.structure.toc import AnchorLink, TableOfContents

    def link(d: dict[str, Any]) -> Any:
        a = AnchorLink(d["title"], d["id"], d["level"])
        a.children = [link(c) for c in d["children"]]
        return a

    return TableOfContents([link(d) for d in items])


class Store:
    """Records by kind and key under the cache folder; remembers which keys this build used."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.used: dict[str, set[str]] = {kind: set() for kind in KINDS}
        self.hits = dict.fromkeys(KINDS, 0)
        self.misses = dict.fromkeys(KINDS, 0)

    def _path(self, kind: str, key: str) -> Path:
        return self.root / kind / key[:2] / key

    def get(self, kind: str, key: str) -> str | None:
        try:
            text = self._path(kind, key).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            self.misses[kind] += 1
            return None
        self.used[kind].add(key)
        self.hits[kind] += 1
        return text

    def put(self, kind: str, key: str, text: str) -> None:
        path = self._path(kind, key)
        self.used[kind].add(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f".{key}.{os.getpid()}.tmp")
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, path)
        except OSError as exc:  # a full disk or a read-only cache costs speed, never the build
            log.info(f"corpus: build cache not written ({exc})")

    def prune(self, flavour: str) -> int:
        """Delete the entries that none of the last few builds used; returns how many.

        One `corpus-build build` can run several builds that share the cache (the
        site and its offline flavour): each flavour keeps a list of what it used,
        and an entry stays while any of the KEEP_FLAVOURS latest lists names it.
        """
        builds = self.root / "builds"
        builds.mkdir(parents=True, exist_ok=True)
        mine = builds / f"{flavour}.json"
        tmp = mine.with_name(f".{mine.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps({kind: sorted(keys) for kind, keys in self.used.items()}), encoding="utf-8")
        os.replace(tmp, mine)
        lists = sorted(builds.glob("*.json"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
        keep = {kind: set(keys) for kind, keys in self.used.items()}
        for old in lists:
            if old == mine:
                continue
            if lists.index(old) >= KEEP_FLAVOURS:
                old.unlink(missing_ok=True)
                continue
            try:
                for kind, keys in json.loads(old.read_text(encoding="utf-8")).items():
                    keep.setdefault(kind, set()).update(keys)
            except (OSError, ValueError, AttributeError):
                old.unlink(missing_ok=True)
        removed = 0
        for kind in KINDS:
            folder = self.root / kind
            if not folder.is_dir():
                continue
            for shard in folder.iterdir():
                for entry in shard.iterdir() if shard.is_dir() else ():
                    if entry.name not in keep[kind]:
                        entry.unlink(missing_ok=True)
                        removed += 1
        return removed

    def summary(self) -> str:
        return ", ".join(f"{kind} {self.hits[kind]} hit(s) {self.misses[kind]} miss(es)" for kind in KINDS)


def clean(project: Path) -> bool:
    """`corpus-build clean`: remove the build cache; True when there was one."""
    import shutil

    folder = Path(project) / CACHE_DIR
    if not folder.exists():
        return False
    shutil.rmtree(folder)
    return True


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
    """One build's use of the cache, driven by the plugin's hooks (see mkdocs_plugin.py)."""

    def __init__(self, root: Path, config: Any, vocabulary: Path | None):
        self.store = Store(root)
        self.enabled = True
        try:
            self.versions = versions()
            self.md_key = digest(SCHEMA, self.versions, stable(config.markdown_extensions), stable(config.mdx_configs),
                                 config.use_directory_urls, stable(dict(config.validation)))
        except Unstable as exc:
            self._disable(exc)
        self.vocabulary = vocabulary
        self.page_key_base = ""
        self.search_key_base = ""
        self.nav_hash = ""

    def _disable(self, exc: Exception) -> None:
        self.enabled = False
        log.info(f"corpus: build cache off for this build: the configuration holds a value with no stable description ({exc})")

    # --- Markdown -> HTML --------------------------------------------------------------

    def wrap_render(self, page: Any, files: Any) -> None:
        """Before MkDocs renders `page`: reuse its last render when nothing it depends on changed."""
        if not self.enabled:
            return
        key = digest(self.md_key, page.file.src_uri, page.file.dest_uri, page.file.url, page.markdown)
        original: Callable[..., None] = page.render
        text = self.store.get("render", key)
        record = json.loads(text) if text else None
        if record and all(_resolution(files.get_file_from_path(p)) == r for p, r in record["lookups"].items()):
            page.render = functools.partial(self._restore, page, record, files)
        else:
            page.render = functools.partial(self._record, page, key, original)

    def _record(self, page: Any, key: str, original: Callable[..., None], config: Any, files: Any) -> None:
        del page.render
        recorder = _RecordingFiles(files)
        with _captured_logs() as capture:
            original(config, recorder)
        if recorder.other_use:
            return
        record = {
            "content": page.content,
            "toc": toc_to_json(page.toc),
            "title": page._title_from_render,
            "anchors": sorted(page.present_anchor_ids or ()),
            "links_to_anchors": None if page.links_to_anchors is None else {f.src_uri: v for f, v in page.links_to_anchors.items()},
            "lookups": recorder.lookups,
            "logs": [[r.name, r.levelno, r.getMessage()] for r in capture.records.values()],
        }
        self.store.put("render", key, json.dumps(record, ensure_ascii=False))

    def _restore(self, page: Any, record: dict[str, Any], files: Any, config: Any, _files: Any) -> None:
        del page.render
        page.content = record["content"]
        page.toc = toc_from_json(record["toc"])
        page._title_from_render = record["title"]
        page.present_anchor_ids = set(record["anchors"])
        links = record["links_to_anchors"]
        if links is not None and logging.getLogger("mkdocs.structure.pages").getEffectiveLevel() > logging.DEBUG:
            page.links_to_anchors = {files.get_file_from_path(uri): v for uri, v in links.items()}
        for name, level, message in record["logs"]:
            logging.getLogger(name).log(level, message)

    # --- the page template and search ---------------------------------------------------

    def prepare(self, config: Any, env: Any, files: Any, nav: Any | None) -> None:
        """After every page is read (on_env): the keys shared by all pages, and the hooks on templates and search."""
        if not self.enabled:
            return
        try:
            base = config_key(config)
            self.nav_hash = digest(nav_key(nav)) if nav is not None else ""
        except Unstable as exc:
            self._disable(exc)
            return
        self.page_key_base = digest(SCHEMA, self.versions, base, self.nav_hash)
        vocabulary = self.vocabulary.read_bytes() if self.vocabulary and self.vocabulary.is_file() else b""
        search = config.plugins.get("search") or config.plugins.get("material/search")
        self.search_key_base = digest(SCHEMA, self.versions, stable(dict(search.config)) if search else None, hashlib.sha256(vocabulary).hexdigest())
        names = {page.meta.get("template", "main.html") for page in (f.page for f in files.documentation_pages()) if page is not None}
        for name in names:
            template = env.get_template(name)  # Jinja keeps it: _build_page gets this same object
            if not isinstance(getattr(template, "render", None), functools.partial):
                template.render = functools.partial(self._render_template, template, type(template).render, config)
        if search is not None and hasattr(search, "search_index"):
            index = search.search_index
            index.add_entry_from_context = functools.partial(self._search_entries, index, type(index).add_entry_from_context)

    def _page_facts(self, page: Any) -> Any:
        def neighbour(p: Any) -> Any:
            return None if p is None else [p.url, p.title]

        return [page.url, page.canonical_url, page.abs_url, page.edit_url, page.title, page.file.src_uri, page.file.dest_uri,
                page.is_homepage, stable(page.meta), toc_to_json(page.toc), neighbour(page.previous_page), neighbour(page.next_page),
                hashlib.sha256((page.content or "").encode("utf-8")).hexdigest()]

    def _render_template(self, template: Any, render: Callable[..., str], config: Any, *args: Any, **kwargs: Any) -> str:
        page = getattr(config, "_current_page", None)
        context = args[0] if args and isinstance(args[0], Mapping) else None
        if page is None or context is None or context.get("page") is not page or kwargs or len(args) != 1:
            return render(template, *args, **kwargs)
        try:
            extras = {k: stable(v) for k, v in context.items() if k not in _STANDARD_CONTEXT}
            key = digest(self.page_key_base, template.name, self._page_facts(page), extras,
                         context.get("base_url"), stable(context.get("extra_css")), stable(context.get("extra_javascript")))
        except Unstable:
            return render(template, *args, **kwargs)
        cached = self.store.get("page", key)
        if cached is not None:
            return cached
        output = render(template, *args, **kwargs)
        self.store.put("page", key, output)
        return output

    def _search_entries(self, index: Any, add: Callable[..., None], page: Any) -> None:
        try:
            key = digest(self.search_key_base, self._page_facts(page))
        except Unstable:
            add(index, page)
            return
        cached = self.store.get("search", key)
        if cached is not None:
            index.entries.extend(json.loads(cached))
            return
        before = len(index.entries)
        add(index, page)
        self.store.put("search", key, json.dumps(index.entries[before:], ensure_ascii=False))

    def finish(self) -> None:
        """After a successful build: log the hits and keep only what this build used."""
        if not self.enabled:
            return
        removed = self.store.prune(self.page_key_base)
        log.info(f"corpus: build cache {self.store.summary()}; {removed} stale entr(ies) removed")
