"""Material's navigation sidebar, drawn once for all the pages the navigation does not list.

Every page of the site carries the global navigation (`partials/nav.html`). For a
page the nav lists, it marks where the reader is; for the thousands it does not list
(each source's page, each tag's page) nothing in it is marked, and its links are
relative to the page's folder. So those pages' sidebars are the same text for every
page in one folder: drawn once per folder, not once per page (at 1,000 sources that
was 0.5 s of every full build).

When it is the same, exactly: `nav.html` reads the page only to ask whether it is a
nav item or under one (never, for these pages) and through the `url` filter, which
writes each link relative to the page's URL. Two pages in one folder get the same
relative link to every address that does not run through the page's own URL path,
so a page is served from the memo only when no address in the navigation (pages,
links, the home page) starts with its path. Everything else the sidebar shows (the
nav, the theme's features and language, the site's name) is one per build: the
memo lives for one build.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import suppress
from typing import Any

import jinja2

TEMPLATE = "partials/nav.html"


def _parts(url: str) -> tuple[str, ...]:
    return tuple(p for p in url.split("/") if p and p != ".")


def _addresses(nav: Any) -> set[tuple[str, ...]]:
    found: set[tuple[str, ...]] = set()

    def walk(items: Any) -> None:
        for item in items or ():
            url = getattr(item, "url", None)
            if isinstance(url, str):
                found.add(_parts(url))
            walk(getattr(item, "children", None))

    walk(getattr(nav, "items", ()))
    homepage = getattr(nav, "homepage", None)
    if homepage is not None:
        found.add(_parts(homepage.url))
    return found


class NavMemo:
    """Installed on one build's Jinja environment (the plugin's on_env).

    Besides the sidebar, two smaller pieces of every page are drawn once per folder the
    same way: Material's footer when the page has no previous or next page (unlisted
    pages never have), and its `config` block (the site's base address and the search
    worker's, relative to the page, with the theme's features and words): the same for
    every page of a folder, listed or not.
    """

    def __init__(self, env: Any, nav: Any):
        self.nav = nav
        self.listed = {id(page) for page in getattr(nav, "pages", ())}
        self.prefixes = {parts[:n] for parts in _addresses(nav) for n in range(1, len(parts) + 1)}
        self.drawn: dict[tuple[str, ...], str] = {}
        self.reused = 0
        template = env.get_template(TEMPLATE)
        template.root_render_func = self._memo(template.root_render_func, "nav", self._unlisted)
        with suppress(jinja2.TemplateNotFound):
            footer = env.get_template("partials/footer.html")
            footer.root_render_func = self._memo(footer.root_render_func, "footer", self._alone)
        with suppress(jinja2.TemplateNotFound):
            base = env.get_template("base.html")
            if callable(base.blocks.get("config")):
                # Its one address is the search worker's, under assets/: a page there is drawn alone.
                base.blocks["config"] = self._memo(base.blocks["config"], "config", lambda context: ("assets",))

    def _memo(self, draw: Callable[..., Iterator[str]], name: str, through: Callable[[Any], tuple[str, ...] | None]) -> Callable[..., Iterator[str]]:
        def memo(context: Any, *args: Any, **kwargs: Any) -> Iterator[str]:
            key = self._folder(context, through(context))
            if key is None:
                yield from draw(context, *args, **kwargs)
                return
            key = (name, *key)
            drawn = self.drawn.get(key)
            if drawn is None:
                drawn = self.drawn[key] = "".join(draw(context, *args, **kwargs))
            elif name == "nav":
                self.reused += 1
            yield drawn

        return memo

    def _unlisted(self, context: Any) -> tuple[str, ...] | None:
        """For the sidebar: the page is no nav item (it marks nothing); None otherwise."""
        page = context.get("page")
        if id(page) in self.listed or context.get("nav") is not self.nav or getattr(page, "parent", None) is not None:
            return None
        return ()

    def _alone(self, context: Any) -> tuple[str, ...] | None:
        """For the footer: the page has no previous or next page (the footer then links nothing of it)."""
        page = context.get("page")
        if getattr(page, "previous_page", None) is not None or getattr(page, "next_page", None) is not None:
            return None
        return ()

    def _folder(self, context: Any, through: tuple[str, ...] | None) -> tuple[str, ...] | None:
        """The key of the page's piece, or None when it must be drawn for this page alone.

        `through`: () for the nav's own addresses, or a folder the piece links into (the
        config block's assets/, whose full address is not known here: every page under it
        is drawn alone), or None when the piece is not the same for this page.
        """
        page = context.get("page")
        if through is None or page is None:
            return None
        url = getattr(page, "url", None)
        if not isinstance(url, str):
            return None
        folder, _, name = url.rpartition("/")
        if "." in name:  # `page.html` URLs: links are relative to the folder alone, as mkdocs.utils.get_relative_url does
            return ("file", *_parts(folder))
        parts = _parts(url)
        if not parts or parts in self.prefixes or (through and (parts[: len(through)] == through or parts == through[: len(parts)])):
            return None  # an address the piece links runs through this page's own path
        return ("dir", *parts[:-1])
