"""The offline copy's pages from the site's Markdown: raw HTML links moved to `page.html` URLs.

The site's pages (source, tag, listing pages…) carry links MkDocs does not rewrite: raw HTML
(`places.site_rel`), written for one kind of URL. The offline copy is a second MkDocs build with
`page.html` URLs (site/offline.py); rendering its pages with links of that kind made docs/ differ
between the two builds, so each build laid out every such page twice and wrote it twice (a note
edit of the default corpus laid out 131 source pages and 70 tag pages).

So render writes those pages once, with the site's links, for both builds (render's `links_as`),
and the copy's build moves each raw HTML link here, before its Markdown step: the link is
resolved against the page's URL with directory URLs, and written again relative to its URL
as a file, exactly as `site_rel` writes it for that kind (an `index.md` page keeps its folder
URL, as `places.site_url` gives it). Only links that lead to a file of the build (a page or
any other file) are moved, and only in pages render names (its `relinked`); a link that leads
nowhere, a fragment or a query alone, and an absolute address are left as they are.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable

from ..render.places import site_url, url_rel

# An attribute MkDocs would leave as written. Markdown's own link syntax has no `href="`: MkDocs resolves those.
_ATTRIBUTE = re.compile(r'(\s(?:href|src)=")([^"<>]*)(")')
_ADDRESS = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:|/")  # a scheme, or a path from the root


def to_file_urls(markdown: str, src_uri: str, exists: Callable[[str], bool]) -> str:
    """`markdown` (the page at docs/`src_uri`, linked for directory URLs) with its raw HTML links for `page.html` URLs.

    `exists(path)` tells whether docs/`path` is a file of the build."""
    if 'href="' not in markdown and 'src="' not in markdown:
        return markdown
    from_dir = _folder(site_url(src_uri, True))
    page_url = site_url(src_uri, False)

    def move(match: re.Match[str]) -> str:
        moved = _move(match.group(2), from_dir, page_url, exists)
        return match.group(0) if moved is None else match.group(1) + moved + match.group(3)

    return _ATTRIBUTE.sub(move, markdown)


def _folder(url: str) -> str:
    return url.rstrip("/") if url.endswith("/") or not url else posixpath.dirname(url)


def _move(href: str, from_dir: str, page_url: str, exists: Callable[[str], bool]) -> str | None:
    cut = min((i for i in (href.find("?"), href.find("#")) if i != -1), default=len(href))
    path, rest = href[:cut], href[cut:]
    if not path or _ADDRESS.match(path):
        return None
    folder_url = path.endswith("/") or posixpath.basename(path) in (".", "..")
    target = posixpath.normpath(posixpath.join(from_dir or ".", path))
    if target.startswith("../") or target == "..":
        return None
    target = "" if target == "." else target
    if folder_url:  # a page: its file with directory URLs was <target>.md or <target>/index.md
        if target and exists(target + ".md"):
            target += ".html"
        elif exists(posixpath.join(target, "index.md")):
            target = target + "/" if target else ""
        else:
            return None
    elif not exists(target):
        return None
    return url_rel(page_url, target) + rest  # as places.site_rel writes it for page.html URLs
