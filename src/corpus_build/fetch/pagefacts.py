"""What `corpus-build add` can learn from a new source's page: title, authors, date.

One request through the fetch stage's own HTTP client (so `rewrites:`, `fallbacks:`,
size caps and the user agent of corpus.yaml apply), or one GitHub API call for an
issue or PR (GITHUB_API_URL, GITHUB_TOKEN). Nothing is kept: the mirror is
`corpus-build fetch`'s job. A page that cannot be reached is not an error for `add`;
the reason comes back in `PageFacts.error` for a warning.
"""

from __future__ import annotations

import asyncio
import html as html_lib
import re
import tempfile
from dataclasses import replace
from pathlib import Path

from ..core.bibfacts import normal_date
from ..core.errors import FetchError
from ..core.model import Corpus
from ..core.urls import github_parts
from ..registry.add import PageFacts
from .http import AttemptLog, HttpClient
from .options import FetchOptions, from_corpus

_THREAD = re.compile(r"^(issues|pull|discussions)/(\d+)")
_OG_TITLE = re.compile(r"""<meta\s+[^>]*?property\s*=\s*["']og:title["'][^>]*?content\s*=\s*["']([^"']*)["']""", re.IGNORECASE)
# add waits for a person at a terminal: a slow page must not hold them for the fetch stage's 10 minutes.
LOOKUP_TIMEOUT = 20.0


def for_add(corpus: Corpus, url: str) -> PageFacts:
    """add's page lookup (registry/add.py `LookUp`): corpus.yaml's fetch settings and the environment's token."""
    return look_up(url, from_corpus(corpus).with_env())


def look_up(url: str, options: FetchOptions) -> PageFacts:
    """The page's facts, or PageFacts(error=…) when it cannot be reached or read."""
    options = replace(options, total_timeout=min(options.total_timeout, LOOKUP_TIMEOUT), retries=min(options.retries, 1), warc=False)
    try:
        gh = github_parts(url)
        match = _THREAD.match(gh[2]) if gh else None
        if gh and match:
            return _github_thread(gh[0], gh[1], match.group(1), int(match.group(2)), options)
        if gh:
            return PageFacts()  # a repository: its name is its title; its date is the pinned commit's (fetch)
        return asyncio.run(_page(url, options))
    except FetchError as exc:
        return PageFacts(error=str(exc))


def _github_thread(owner: str, repo: str, what: str, number: int, options: FetchOptions) -> PageFacts:
    from ..core.github_api import GitHubClient, GitHubConfig

    path = f"/repos/{owner}/{repo}/{'discussions' if what == 'discussions' else 'issues'}/{number}"
    config = GitHubConfig(api_url=options.github_api_url, token=options.github_token, timeout=LOOKUP_TIMEOUT)
    with GitHubClient(config) as client:
        data = client.get_json(path) or {}
    login = (data.get("user") or {}).get("login") or ""
    return PageFacts(title=str(data.get("title") or "").strip(), authors=(login,) if login else (), date=normal_date(str(data.get("created_at") or "")))


async def _page(url: str, options: FetchOptions) -> PageFacts:
    client = HttpClient(options)
    try:
        with tempfile.TemporaryDirectory(prefix="corpus-build-add-") as folder:
            dest = Path(folder) / "page"
            download = await client.download(url, dest, AttemptLog(), accept="text/html,application/xhtml+xml;q=0.9,application/pdf;q=0.8,*/*;q=0.5", keep_raw=False)
            data = await asyncio.to_thread(_read_if_any, dest)  # file I/O off the event loop
            if data.startswith(b"%PDF-"):
                return _pdf_facts(data)
            return _html_facts(data, download.content_type, download.final_url)
    finally:
        await client.aclose()


def _read_if_any(path: Path) -> bytes:
    return path.read_bytes() if path.exists() else b""


def _html_facts(data: bytes, content_type: str, url: str) -> PageFacts:
    import trafilatura

    from .citemeta import citation_meta
    from .extract import work_title
    from .kinds.html import decode_html

    text = decode_html(data, content_type)[0]
    cited = citation_meta(text)
    meta = None
    tree = trafilatura.load_html(text)
    if tree is not None:
        # extensive=False: dates from the page's own markup only, never guessed from its text.
        meta = trafilatura.extract_metadata(tree, default_url=url, extensive=False)
    og = _OG_TITLE.search(text)
    page_title = (tree.findtext(".//title") or "").strip() if tree is not None else ""
    # The work's own title as the page agrees on it, without the site's name (extract.work_title), as fetch records it.
    own = work_title(tree, " ".join(page_title.split())) if tree is not None else ""
    title = (cited.get("title") or [""])[0] or own or (og.group(1) if og else "") or (meta.title if meta and meta.title else "") or page_title
    authors = tuple(a for a in cited.get("author", []) if a) or (tuple(a.strip() for a in (meta.author or "").split(";") if a.strip()) if meta else ())
    date = (cited.get("publication_date") or cited.get("date") or [(meta.date or "") if meta else ""])[0]
    return PageFacts(title=" ".join(html_lib.unescape(title).split()), authors=authors, date=normal_date(date))


def _pdf_facts(data: bytes) -> PageFacts:
    from .kinds.pdf import _import_pymupdf

    pymupdf = _import_pymupdf()
    try:
        meta = pymupdf.open(stream=data, filetype="pdf").metadata or {}
    except Exception as exc:  # noqa: BLE001 - PyMuPDF raises several unrelated types
        return PageFacts(error=f"the PDF cannot be read ({type(exc).__name__})")
    authors = tuple(a.strip() for a in re.split(r";| and ", meta.get("author") or "") if a.strip())
    return PageFacts(title=(meta.get("title") or "").strip(), authors=authors)
