"""Unchanged pages skip MkDocs' template step: their published file is linked, what plugins collect replayed.

After one note edit at 1,000 mirrored sources, MkDocs still builds all 1,900 pages: for each
it makes the template context, runs every plugin's `on_page_context` (Material's tags plugin
ranks its listings for every tagged page), asks the build cache for the page's HTML, runs
`on_post_page` (the mirror text blocks put back) and compares the result with the published
file to link it (engines.py): a fifth of such a rebuild, for pages that come out as they were.

What a page's HTML is made of is what the build cache's page key already names (buildcache.py:
the configuration, theme and navigation, the page's own facts: its URL, title, meta, table of
contents, neighbours and content after every content hook), plus what the plugins add to its
context. This module keys each page by those, with the plugins' additions known by what they
are made of instead of made:

- Material's tags plugin adds the page's tag references: they follow from the page's tags
  (its meta) and the listings (each listing's page and configuration), one digest per build;
- Material's search plugin adds nothing to the context: it collects the page's search
  entries, and that is replayed (it reads the page, not the context; the build cache keeps
  its entries);
- our own plugin's `on_post_page` puts back the mirror text blocks, named by their content's
  hash in the page's content, and the page's `lang` from its meta.

Any other plugin with an `on_page_context` or `on_post_page` (what it adds is unknown), a
draft page, a served build or a build that shows registry errors skips nothing.

A page whose key is the last build's, and whose published file is still the very file that
build wrote (its inode, modification time and size, recorded after the write, as for the
full-text index in stepoutput.py), is hard-linked into the staging folder and not built; the
others are built as always and recorded. The record lives under the build cache, one per
flavour (the offline copy builds elsewhere), replaced whole after a successful build: a
failed or killed build leaves the last one, whose files are then still the published ones.
Outside `corpus-build build` there is no published site to link from, and every page is built.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import sys
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import Any

from ..core.cachekeys import digest
from ..core.provenance import write_atomic
from . import buildcache, engines

log = logging.getLogger("mkdocs.plugins.corpus")

SCHEMA = 1
# Plugins whose page-context and post-page work is known (module docstring), by their class's module.
_SEARCH = ("material.plugins.search.plugin",)
_TAGS = ("material.plugins.tags.plugin",)
_OURS = (__name__.rsplit(".", 1)[0] + ".plugin",)


class PageSkip:
    """One build's skipping: install() before MkDocs builds its pages, save() after a successful build."""

    def __init__(self, cache: buildcache.BuildCache, record: Path, config: Any, collected: Callable[[Any], None]):
        self.cache = cache
        self.record = record
        self.config = config
        self.collected = collected  # called for each page skipped (the plugin's progress line)
        self.last: dict[str, list[Any]] = {}
        self.now: dict[str, list[Any]] = {}
        self.skipped = self.built = 0
        self._module: Any = None
        self._original: Any = None
        self._search: list[Any] = []  # the search plugins' on_page_context, replayed for a skipped page
        self._tags_key: Any = None
        self._tags: list[Any] = []  # the tags plugins (a page they map to no tags has no references from them)
        self.reason = ""
        self._folders: set[str] = set()  # staging folders made for linked pages

    def install(self, env: Any, files: Any) -> bool:
        """Wrap the engine's page builder when every plugin's page work is known; False (and `reason`) if not."""
        self.reason = self._known_plugins()
        if self.reason:
            return False
        try:
            self._tags_key = self._listings()
        except buildcache.Unstable as exc:
            self.reason = f"the tags listings hold what a key cannot describe ({exc})"
            return False
        with suppress(OSError, ValueError):
            data = json.loads(self.record.read_text(encoding="utf-8"))
            if isinstance(data, dict):
                self.last = {str(k): v for k, v in data.items() if isinstance(v, list) and len(v) == 5}
        module: Any = sys.modules.get(f"{type(self.config).__module__.split('.')[0]}.commands.build")
        if module is None or not callable(getattr(module, "_build_page", None)):
            self.reason = "this engine has no page builder to wrap"
            return False
        self._module, self._original = module, module._build_page
        module._build_page = functools.partial(self._build_page, self._original)
        return True

    def uninstall(self) -> None:
        if self._module is not None:
            self._module._build_page = self._original
            self._module = None

    def _known_plugins(self) -> str:
        events = self.config.plugins.events
        for event in ("page_context", "post_page"):
            for method in events.get(event, ()):
                owner = type(getattr(method, "__self__", None)).__module__
                if owner in _SEARCH and event == "page_context":
                    self._search.append(method)
                elif owner not in _SEARCH + _TAGS + _OURS:
                    return f"the plugin {owner} has an on_{event} hook"
        return ""

    def _listings(self) -> Any:
        """What the tags plugin's references on any page are made of besides the page's tags."""
        found = []
        for name, plugin in self.config.plugins.items():
            if type(plugin).__module__ not in _TAGS:
                continue
            listings = getattr(plugin, "listings", None)
            self._tags.append(plugin)
            # Sorted: the plugin keeps its listings in a set, whose order changes from process to process
            # (it orders a tag's links by closeness, and ties only arise between listings of one tag).
            found.append([name, sorted([listing.page.url, listing.page.title, listing.page.file.src_uri, buildcache.stable(dict(listing.config))]
                                       for listing in (listings or ()))])
        return found

    def key(self, page: Any, template_name: str) -> str | None:
        cache = self.cache
        if not cache.enabled or not cache.page_key_base:
            return None
        mapped = any(getattr(plugin, "mappings", None) is None or plugin.mappings.get(page) for plugin in self._tags)
        try:
            return digest(SCHEMA, cache.page_key_base, template_name, cache._page_facts(page), self._tags_key if mapped else None,
                          buildcache.stable(cache._finish_page))
        except buildcache.Unstable:
            return None

    def _build_page(self, original: Callable[..., None], page: Any, config: Any, doc_files: Any, nav: Any, env: Any,
                    dirty: bool = False, excluded: bool = False) -> None:
        key = None if excluded or dirty else self.key(page, page.meta.get("template", "main.html"))
        dest = page.file.abs_dest_path
        if key is not None and self._link(page.file.dest_uri, dest, key):
            config._current_page = page
            try:
                for collect in self._search:  # Material's search reads the page itself, never the context
                    collect({}, page=page, config=config, nav=nav)
            finally:
                config._current_page = None
            self.skipped += 1
            self.collected(page)
            return
        self.cache.last_page_key = None
        original(page, config, doc_files, nav, env, dirty, excluded)
        self.built += 1
        if key is not None:
            with suppress(OSError):
                info = os.lstat(dest)
                self.now[page.file.dest_uri] = [key, info.st_ino, info.st_mtime_ns, info.st_size, self.cache.last_page_key]

    def _link(self, dest_uri: str, dest: str, key: str) -> bool:
        last = self.last.get(dest_uri)
        if last is None or last[0] != key:
            return False
        twin = self._twin(dest)
        if twin is None or os.path.lexists(dest):
            return False
        info = engines._shareable(twin, last[3])
        if info is None or [info.st_ino, info.st_mtime_ns, info.st_size] != last[1:4]:
            return False
        folder = os.path.dirname(dest)
        try:
            if folder not in self._folders:
                os.makedirs(folder, exist_ok=True)
                self._folders.add(folder)
            os.link(twin, dest, follow_symlinks=False)
        except OSError:
            return False
        self.now[dest_uri] = last
        self.cache.keep("page", last[4])  # the template's output stays cached, for a build that must make the page
        return True

    def _twin(self, dest: str) -> str | None:
        """The published file at `dest`'s place (engines.published_twin by the staging folder's name: MkDocs
        makes `dest` from the site folder and the page's own path, so no link or `..` needs resolving)."""
        building = engines._BUILDING
        if building is None:
            return None
        published, staging = building
        root = os.path.join(staging, "")
        if not dest.startswith(root) or ".." in dest[len(root):].split(os.sep):
            return None
        return os.path.join(published, dest[len(root):])

    def save(self) -> None:
        """After a successful build: what its pages' published files are, for the next build."""
        with suppress(OSError):
            write_atomic(self.record, json.dumps(self.now, sort_keys=True, separators=(",", ":")))
