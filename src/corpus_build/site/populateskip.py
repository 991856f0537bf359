"""Unchanged pages skip MkDocs' reading step too: what it leaves on the page is put back from the cache.

Before its template, MkDocs reads every page (`_populate_page`): the file, its front matter, the
plugins' Markdown hooks (Material's tags plugin collects the page's tags; ours takes the mirror
text blocks out), the Markdown conversion (the build cache's render record) and the content hooks
(ours: the allow-list). After one note edit at 1,000 mirrored sources that is a sixth of the
rebuild, for 1,900 pages of which one changed.

What the step leaves on a page is its Markdown as the hooks left it, its meta, content, table of
contents, title, anchors, links to other pages' anchors, and the warnings it logged. Those are
kept in the build cache ("read" records, keyed by the file's bytes, the page's place, the Markdown
extensions' configuration, the configuration of every plugin with a hook in the step and the
versions), and the file's inode, times and size are kept beside them, by page (like pageskip.py's
record of the published files), so that an untouched file is known without reading it. The file
is read once, by this module, and MkDocs is given those bytes: the record is keyed by the bytes
built, never by a later read that an editor's save could have changed. A file whose stat was
taken in the tick it was last written (racily clean, core/filestamp.py) is known by its bytes
instead: they are hashed and compared before the record is put back. A page
whose file is untouched and whose links all lead where they did gets the record back, Material's
tags plugin is shown its Markdown and meta as before (the tags it collects), and the warnings are
logged again. A page Material's tags plugin finds a listing on (the tags' own pages) is always
read: its listing is filled after every page is read. A page whose mirror text blocks were taken
out gets them again, from its file, only if its template is built (pageskip.py), since only the
template's output needs them.

Any other plugin with a hook in the step (`on_pre_page`, `on_page_read_source`,
`on_page_markdown`, `on_page_content`), a draft, a served build or a build showing registry errors
reads every page.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import sys
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import Any

from ..core import filestamp
from ..core.cachekeys import digest
from ..core.provenance import write_atomic
from . import buildcache

log = logging.getLogger("mkdocs.plugins.corpus")

SCHEMA = 1
_TAGS = ("material.plugins.tags.plugin",)
_OURS = (__name__.rsplit(".", 1)[0] + ".plugin",)
_EVENTS = ("pre_page", "page_read_source", "page_markdown", "page_content")


class PageChanged(Exception):
    """A page put back from the cache was rewritten before its template was built (take_blocks)."""


class PopulateSkip:
    """One build's skipping of the reading step: install() before MkDocs reads its pages (on_nav)."""

    def __init__(self, cache: buildcache.BuildCache, record: Path, config: Any, taken: Callable[[str], bool]):
        self.cache = cache
        self.record = record
        self.config = config
        self.taken = taken  # whether the plugin took mirror text blocks out of a page (mirrorblocks.py)
        # src_uri -> [inode, mtime_ns, ctime_ns, size, sha256 of the bytes built, racy when recorded (core/filestamp.py)]
        self.last: dict[str, list[Any]] = {}
        self.now: dict[str, list[Any]] = {}
        self.skipped = self.read = 0
        self.blocks_left: dict[str, str] = {}  # pages put back whose mirror text blocks are still in their file: its sha256 (take_blocks)
        self._tags: list[Any] = []
        self._module: Any = None
        self._original: Any = None
        self.base = ""
        self.reason = ""
        self.since = 0  # the file system's clock as this build began reading pages (core/filestamp.py)

    def install(self) -> bool:
        if not self.cache.enabled:
            self.reason = "the build cache is off"
            return False
        plugins: list[Any] = []
        for event in _EVENTS:
            for method in self.config.plugins.events.get(event, ()):
                owner = getattr(method, "__self__", None)
                if type(owner).__module__ not in _TAGS + _OURS:
                    self.reason = f"the plugin {type(owner).__module__} has an on_{event} hook"
                    return False
                if owner not in plugins:
                    plugins.append(owner)
        self._tags = [p for p in plugins if type(p).__module__ in _TAGS]
        try:
            self.base = digest(SCHEMA, self.cache.versions, self.cache.md_key,
                               [[type(p).__module__, buildcache.stable(dict(getattr(p, "config", {})))] for p in plugins])
        except buildcache.Unstable as exc:
            self.reason = f"a plugin's configuration holds what a key cannot describe ({exc})"
            return False
        with suppress(OSError, ValueError):
            data = json.loads(self.record.read_text(encoding="utf-8"))
            if isinstance(data, dict):
                self.last = {str(k): v for k, v in data.items() if isinstance(v, list) and len(v) == 6}
        module: Any = sys.modules.get(f"{type(self.config).__module__.split('.')[0]}.commands.build")
        if module is None or not callable(getattr(module, "_populate_page", None)):
            self.reason = "this engine has no page reader to wrap"
            return False
        self.since = filestamp.clock(self.record.parent)
        self._module, self._original = module, module._populate_page
        module._populate_page = functools.partial(self._populate, self._original)
        return True

    def uninstall(self) -> None:
        if self._module is not None:
            self._module._populate_page = self._original
            self._module = None

    def _key(self, page: Any, sha: str) -> str:
        return digest(self.base, page.file.src_uri, page.file.dest_uri, page.file.url, sha)

    def _populate(self, original: Callable[..., None], page: Any, config: Any, files: Any, dirty: bool = False) -> None:
        path = page.file.abs_src_path
        info = _stat(path) if path and not dirty and not page.file.inclusion.is_excluded() else None
        stamp = None if info is None else filestamp.key(info)
        last = self.last.get(page.file.src_uri)
        data: bytes | None = None
        if stamp is not None and last is not None and last[:4] == stamp:
            sha: str | None = last[4]
            if last[5]:  # racily clean when recorded (core/filestamp.py): the stat cannot tell, the bytes can
                data = _read(path)
                sha = sha if data is not None and hashlib.sha256(data).hexdigest() == sha else None
            if sha is not None and self._replay(page, config, files, sha):
                # Bytes compared now, after this stat: racy only if the stat is still within this build's tick.
                self.now[page.file.src_uri] = [*stamp, sha, int(bool(last[5]) and filestamp.racy(stamp, self.since))]
                self.skipped += 1
                return
        if stamp is not None and data is None:
            data = _read(path)  # after the stat: a write in between gives a new stat next time, and a new read
        # MkDocs reads these very bytes (File's content, MkDocs 1.6), so the record is keyed by what was built.
        fed = data is not None and getattr(page.file, "_content", False) is None
        if fed:
            page.file._content = data
        self.cache.forget_lookups()
        listings = self._listings()
        store = self.cache.store
        store.trace = []
        try:
            with buildcache._captured_logs() as capture:
                original(page, config, files, dirty)
        finally:
            used, store.trace = store.trace, None
            if fed:
                page.file._content = None
        self.read += 1
        if stamp is None or not fed or self.cache.last_lookups is None or self._listings() != listings:
            return  # (a page the tags plugin found a listing on is read at every build)
        assert data is not None
        sha = hashlib.sha256(data).hexdigest()
        record = {
            "markdown": page.markdown,
            "meta": page.meta,
            "content": page.content,
            "toc": buildcache.toc_to_json(page.toc),
            "title": page._title_from_render,
            "anchors": sorted(page.present_anchor_ids or ()),
            "links_to_anchors": None if page.links_to_anchors is None else {f.src_uri: v for f, v in page.links_to_anchors.items()},
            "lookups": self.cache.last_lookups,
            "logs": [[r.name, r.levelno, r.getMessage()] for r in capture.records.values()],
            "blocks": self.taken(page.file.src_uri),
            "used": used,  # the render, allow-list and mirror block records reading it used: kept while it is put back
        }
        try:
            text = json.dumps(record, ensure_ascii=False)
        except (TypeError, ValueError):  # a meta value JSON cannot hold (a date): read at every build
            return
        self.cache.store.put("read", self._key(page, sha), text)
        self.now[page.file.src_uri] = [*stamp, sha, int(filestamp.racy(stamp, self.since))]

    def _listings(self) -> int:
        return sum(len(getattr(getattr(p, "listings", None), "data", ())) for p in self._tags)

    def _replay(self, page: Any, config: Any, files: Any, sha: str) -> bool:
        text = self.cache.store.get("read", self._key(page, sha))
        if text is None:
            return False
        record = json.loads(text)
        if not self.cache.resolves_as(files, record["lookups"]):
            return False
        page.markdown = record["markdown"]
        page.meta = record["meta"]
        config._current_page = page
        try:
            for plugin in self._tags:  # the tags it collects from the page's meta
                plugin.on_page_markdown(page.markdown, page=page, config=config, files=files)
        finally:
            config._current_page = None
        buildcache.put_rendered(page, record, files)
        if record["blocks"]:
            self.blocks_left[page.file.src_uri] = sha
        for kind, key in record["used"]:
            self.cache.keep(kind, key)
        return True

    def take_blocks(self, page: Any, take: Callable[[str, str], str]) -> None:
        """Before a page read from the cache is built: its mirror text blocks, from its file, for on_post_page."""
        sha = self.blocks_left.pop(page.file.src_uri, None)
        if sha is None:
            return
        # Read now, long after the page was put back for the bytes `sha`: a `corpus-build render` may
        # have written another capture's page meanwhile, whose blocks do not fit the places the cached
        # page keeps for them (a page without its text, or no place for a block). Held from the read
        # step instead, every mirror page's text would sit in memory at once (mirrorblocks.py spools it).
        path = Path(page.file.abs_src_path)
        data = _read(str(path))
        if data is None or hashlib.sha256(data).hexdigest() != sha:
            raise PageChanged(f"{path}: the page was rewritten while the site was built (a `corpus-build render` running?); "
                              "its text may no longer fit what was built: build again once it is done")
        take(data.decode("utf-8", "surrogateescape"), page.file.src_uri)

    def save(self) -> None:
        with suppress(OSError):
            write_atomic(self.record, json.dumps(self.now, sort_keys=True, separators=(",", ":")))


def _stat(path: str) -> os.stat_result | None:
    try:
        # The file MkDocs reads: a page may be a symbolic link (docs/changelog.md -> ../CHANGELOG.md),
        # whose own stamp stays the same while the file it leads to is edited.
        return os.stat(path)
    except OSError:
        return None


def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError:
        return None
