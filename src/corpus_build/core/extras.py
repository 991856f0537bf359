"""Which optional extra a missing library belongs to, so a command can say what to install.

Building and serving the site need only the core install. Fetching, link checks, `attach`,
`import` and reading a page for `add` need the `fetch` extra (PyMuPDF, trafilatura, lxml,
warcio…, about 90 MB), which a site-only install such as the Pages workflow leaves out.
The libraries are imported where they are used, so a missing one surfaces as a
ModuleNotFoundError at that point; the CLI turns it into one line naming the extra.
"""

from __future__ import annotations

# Top-level module name -> the extra of pyproject.toml that installs it.
EXTRA_OF: dict[str, str] = {
    "pymupdf": "fetch",
    "fitz": "fetch",
    "trafilatura": "fetch",
    "lxml": "fetch",
    "lxml_html_clean": "fetch",
    "warcio": "fetch",
    "charset_normalizer": "fetch",
    "protego": "fetch",
    "bibtexparser": "fetch",
    "rispy": "fetch",
    "pylatexenc": "fetch",
    "playwright": "browser",
    "distributed": "cluster",
    "dask": "cluster",
}


def missing_extra(exc: ModuleNotFoundError) -> str | None:
    """The one-line advice for a library an extra would have installed, or None."""
    top = (exc.name or "").split(".")[0]
    extra = EXTRA_OF.get(top)
    if extra is None:
        return None
    return f"this command needs the `{extra}` extra ({top} is not installed): pip install 'corpus-build[{extra}]'"
