"""`mkdocs serve` that never hangs: the last good site plus the error list, and one build per edit.

MkDocs' live server holds every request while a build is failing ("The server will
appear stuck until build errors are resolved"): a registry mistake left the browser
spinning. Instead, while the registry has errors the plugin keeps docs/ as the last
good render, lets the build succeed, and `banner` puts the list of problems
(file:line and message) at the top of every page, including the 404 page. The
browser reloads as usual and shows it at once; fixing the registry rebuilds the
site without the banner.

MkDocs' live server finds changes by scanning every watched file twice a second (a polling
observer): at thousands of sources a busy core while nothing happens. `use_events` gives it
the platform's file events instead (inotify on Linux, FSEvents, ReadDirectoryChangesW), with
only changes counted (our own build opening and reading corpus/ is no event); where those are
not available, polling goes on as before.

The plugin writes into docs/, which MkDocs watches: each edit of corpus/ used to be
two builds and two reloads (the second one caused by our own writes). `DocsWatch`
replaces MkDocs' watch of docs/ with one that ignores files exactly as the last
render left them, so only the user's own changes there trigger a build.
"""

from __future__ import annotations

import contextlib
import html
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ..core.errors import Problem

BANNER_ID = "cb-serve-errors"
_HEADINGS = {
    # The messages are corpus-build check's own, in English: said so, not left under a Chinese heading as if translated.
    "zh": "语料注册表有错误，这里显示的是上次正确版本的站点，修正后会自动刷新。错误信息为命令行检查给出的英文原文：",
    "en": "The registry has errors: this is the last good version of the site. It reloads once they are fixed.",
}


def banner(problems: Sequence[Problem], lang: str) -> str:
    """The error list as an HTML block (escaped: registry text is untrusted)."""
    items = "".join(f"<li><code>{html.escape(_where(p))}</code> {html.escape(p.message)}</li>" for p in problems)
    style = (
        "position:relative;z-index:10;margin:0;padding:.8em 1.2em;background:#b71c1c;color:#fff;"
        "font:14px/1.5 system-ui,sans-serif"
    )
    return (
        f'<div id="{BANNER_ID}" role="alert" style="{style}">'
        f"<strong>{html.escape(_HEADINGS.get(lang, _HEADINGS['en']))}</strong>"
        f'<ul lang="en" style="margin:.4em 0 0;padding-left:1.4em">{items}</ul></div>'
    )


def inject(page_html: str, block: str) -> str:
    """`block` right after the opening <body> tag (or first, when there is none)."""
    start = page_html.find("<body")
    if start == -1:
        return block + page_html
    end = page_html.find(">", start)
    return page_html[: end + 1] + block + page_html[end + 1 :]


def use_events(server: Any) -> bool:
    """Replace the live server's polling observer by an event-based one, before it starts; True when done.

    Every path already watched moves over (MkDocs watches docs/ and mkdocs.yml before the
    plugins' on_serve); later `server.watch` calls schedule on the new observer.
    """
    try:
        import watchdog.events as ev
        import watchdog.observers
        import watchdog.observers.polling
    except ImportError:
        return False
    old = getattr(server, "observer", None)
    if not isinstance(old, watchdog.observers.polling.PollingObserver) or old.is_alive() or watchdog.observers.Observer is watchdog.observers.polling.PollingObserver:
        return False
    changes = [ev.FileCreatedEvent, ev.FileModifiedEvent, ev.FileDeletedEvent, ev.FileMovedEvent, ev.FileClosedEvent, ev.FileAttribEvent,
               ev.DirCreatedEvent, ev.DirDeletedEvent, ev.DirMovedEvent, ev.DirModifiedEvent]

    class Events(watchdog.observers.Observer):  # type: ignore[misc,valid-type]
        def schedule(self, event_handler: Any, path: Any, *, recursive: bool = False, event_filter: Any = None, follow_symlink: bool = False) -> Any:
            # Changes only: inotify also reports every open and read, and the build reads corpus/.
            return super().schedule(event_handler, path, recursive=recursive, event_filter=event_filter or changes, follow_symlink=follow_symlink)

        def start(self) -> None:  # started here already; the server's own start() finds it running
            if not self.is_alive():
                super().start()

    new = Events()
    refs = getattr(server, "_watch_refs", {})
    try:
        moved = {}
        for watch in list(old.emitters):
            for handler in list(old._handlers.get(watch.watch, ())):
                # raw_path: for a file (mkdocs.yml) `path` is its folder, and only the file's own events count
                moved[watch.watch] = new.schedule(handler, watch.watch.raw_path, recursive=watch.watch.is_recursive)
        new.start()  # here, where a failure (no inotify instance or watch left) can still fall back to polling
    except (OSError, AttributeError, RuntimeError):
        with contextlib.suppress(Exception):
            new.stop()
        return False
    for path, ref in list(refs.items()):
        if ref in moved:
            refs[path] = moved[ref]
    server.observer = new
    return True


def _where(problem: Problem) -> str:
    return f"{problem.path}:{problem.line}" if problem.line else problem.path


def _stamp(path: str) -> tuple[int, int] | None:
    """(mtime_ns, size) of the file, or None when it is gone."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_mtime_ns, info.st_size)


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file under `folder` as (mtime_ns, size): what the last render left there."""
    state: dict[str, tuple[int, int]] = {}
    for root, _dirs, files in os.walk(folder):
        for name in files:
            path = os.path.abspath(os.path.join(root, name))
            if (stamp := _stamp(path)) is not None:
                state[path] = stamp
    return state


class DocsWatch:
    """Watch docs/ for the user's changes, not for the ones the plugin's render made."""

    def __init__(self, server: Any, docs_dir: str):
        self.server = server
        self.docs_dir = os.path.abspath(docs_dir)
        self.known: dict[str, tuple[int, int]] = snapshot(Path(self.docs_dir))
        # A user's own change in docs/ since the last full build: the preview's fast path (preview.py)
        # leaves such changes to MkDocs' full build.
        self.user_changed = False
        # While the plugin writes into docs/, events are held and checked once it is done:
        # compared with the snapshot from before the writes, every one of them looked like a
        # user's change and asked for a second build.
        self._writing = False
        self._held: list[str] = []

    def begin(self) -> None:
        """Call before the plugin writes into docs/ (then `remember`)."""
        self._writing = True

    def remember(self, written: Iterable[Path] | None = None) -> None:
        """Call after each render: the files as they are now are the plugin's own.

        `written`: the only files the plugin wrote since `begin` (the preview's first
        step writes one page: no walk of 5,000 files for it).
        """
        if written is None:
            self.known = snapshot(Path(self.docs_dir))
        else:
            for file in written:
                path = os.path.abspath(file)
                if (stamp := _stamp(path)) is None:
                    self.known.pop(path, None)
                else:
                    self.known[path] = stamp
        self._writing = False
        held, self._held = self._held, []
        if any(self._changed_by_user(path) for path in held):  # changed again since: a user's edit
            self._request_build()

    def install(self) -> None:
        import watchdog.events

        server = self.server
        if self.docs_dir in getattr(server, "_watched_paths", {}):
            server.unwatch(self.docs_dir)
        handler = watchdog.events.FileSystemEventHandler()
        handler.on_any_event = self._on_event  # type: ignore[method-assign]
        server.observer.schedule(handler, self.docs_dir, recursive=True)

    def _changed_by_user(self, path: str) -> bool:
        path = os.path.abspath(path)
        stamp = _stamp(path)
        if stamp is None:  # gone: ours if the last render did not leave it there either
            return path in self.known
        return self.known.get(path) != stamp

    def _on_event(self, event: Any) -> None:
        if event.is_directory:
            return
        paths = [os.fsdecode(p) for p in [event.src_path] + ([event.dest_path] if getattr(event, "dest_path", "") else [])]
        if self._writing:
            self._held.extend(paths)
            return
        if any(self._changed_by_user(p) for p in paths):
            self._request_build()

    def _request_build(self) -> None:
        self.user_changed = True
        request_build(self.server)


def request_build(server: Any) -> None:
    """Ask MkDocs' live server for another build, as a watched file's change does (its private
    condition, MkDocs 1.6): one made during a build runs once that build is done."""
    with server._rebuild_cond:
        server._want_rebuild = True
        server._rebuild_cond.notify_all()
