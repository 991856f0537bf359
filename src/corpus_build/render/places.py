"""Where each generated page lives under docs/, and the links between pages.

Page builders (pages.py), the bounded listings (listing.py, tagpages.py) and the search
tuning (site/search.py) all place pages with `paths` and link them with `rel` (Markdown,
which MkDocs rewrites) or `site_rel` (raw HTML, which it does not).
"""

from __future__ import annotations

import posixpath
import re

from ..core.model import Digest, Section


class paths:
    """Where each generated page lives, relative to docs/."""

    home = "index.md"
    sections = "sections/index.md"
    sources = "sources/index.md"
    chapters = "chapters/index.md"
    digests = "digests/index.md"
    tags = "tags.md"
    status = "status.md"
    feed = "feed.xml"
    bibtex = "corpus.bib"
    csl_json = "corpus.json"

    @staticmethod
    def sections_page(number: int) -> str:
        """Page `number` (from 1) of the sections index; no section folder is named `page` (NN-slug)."""
        return "sections/index.md" if number == 1 else f"sections/page/{number}.md"

    @staticmethod
    def digests_page(number: int) -> str:
        """Page `number` (from 1) of the digests index; digests are named by date, never `page`."""
        return "digests/index.md" if number == 1 else f"digests/page/{number}.md"

    @staticmethod
    def section(section: Section) -> str:
        return f"sections/{section.folder}.md"

    @staticmethod
    def source(source_id: str) -> str:
        return f"sources/{source_id}.md"

    @staticmethod
    def chapter(number: int) -> str:
        return f"chapters/{number:02d}.md"

    @staticmethod
    def learning_path(path_id: str) -> str:
        return f"chapters/path-{path_id}.md"

    @staticmethod
    def digest(digest: Digest) -> str:
        return f"digests/{digest.date.isoformat()}.md"


def rel(from_page: str, to_page: str) -> str:
    """A relative link from one generated page to another (both relative to docs/).

    As posixpath.relpath, without its abspath/getcwd calls (thousands per render).
    """
    folders = from_page.split("/")[:-1]
    target = to_page.split("/")
    common = 0
    while common < len(folders) and common < len(target) - 1 and folders[common] == target[common]:
        common += 1
    return "../" * (len(folders) - common) + "/".join(target[common:])


def site_url(page: str, directory_urls: bool) -> str:
    """Where MkDocs publishes a docs/ page, relative to the site root (sources/x.md -> sources/x/)."""
    stem = page[: -len(".md")]
    if stem == "index" or stem.endswith("/index"):
        return stem[: -len("index")]
    return stem + "/" if directory_urls else stem + ".html"


def site_rel(from_page: str, to_page: str, directory_urls: bool) -> str:
    """A link for raw HTML (which MkDocs does not rewrite) from one page's URL to another's."""
    return url_rel(site_url(from_page, directory_urls), site_url(to_page, directory_urls))


def url_rel(source: str, target: str) -> str:
    """A link from one URL to another, both relative to the site root (site_rel's, and the offline copy's: site/relink.py)."""
    base = source if source.endswith("/") or not source else posixpath.dirname(source)
    relative = _relpath(target or ".", base.rstrip("/") or ".")
    return relative + "/" if target.endswith("/") and relative != "." else ("./" if relative == "." else relative)


def _relpath(target: str, base: str) -> str:
    """posixpath.relpath for two paths relative to the site root, without its abspath/getcwd calls."""
    to = [p for p in target.split("/") if p not in ("", ".")]
    start = [p for p in base.split("/") if p not in ("", ".")]
    common = 0
    while common < len(to) and common < len(start) and to[common] == start[common]:
        common += 1
    parts = [".."] * (len(start) - common) + to[common:]
    return "/".join(parts) or "."


# Brackets, quotes and leading punctuation do not decide where a title sorts ("[Ascend] X" sorts as "Ascend X").
_SORT_SKIP = re.compile(r"^[\W_]+")
_BRACKETS = re.compile(r"[\[\](){}<>【】「」『』《》（）\"'“”‘’]")


def sort_key(title: str) -> str:
    return _SORT_SKIP.sub("", _BRACKETS.sub("", title)).casefold() or title.casefold()
