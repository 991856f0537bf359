"""Publishing: where the site lives (site_url), and a 404 page that works wherever it is served.

`site_url` decides the sitemap's and the canonical links' addresses and the
feeds' absolute IRIs. It comes, first found, from the CORPUS_BUILD_SITE_URL
environment variable (the Pages workflow sets it from the repository), from
`site_url` in corpus.yaml, or from mkdocs.yml.

Without a site_url, MkDocs writes 404.html with root-relative addresses
(`/assets/…`), because a 404 page is served at any depth. On a project site
(`user.github.io/repo/`) those miss, and a missing page shows unstyled.
`make_404_portable` rewrites them relative to a `<base>` that a few lines of
script at the top of the page find: the longest prefix of the address under
which `404.html` itself exists (one same-origin HEAD request per level).

Two things ignore that `<base>`, so the page also hands them the root it found:
the browser's preload scanner, which fetches the page's stylesheets and scripts
against the missing page's own folder before any script has run (so those tags
are written by script, after the `<base>`); and Material, which resolves its
`base` (where the search index lives) against the address, not the document's
base (so its configuration is given the root as an absolute path).
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from collections.abc import Mapping
from pathlib import Path

from ..core import urls
from ..core.errors import SiteError
from ..core.model import Corpus
from ..core.provenance import write_atomic

SITE_URL_ENV = "CORPUS_BUILD_SITE_URL"

# Runs before any stylesheet: find the site's root, then set <base> to it.
_FIND_BASE = """<script>(function(){try{var p=location.pathname.replace(/[^\\/]*$/,"");
for(;;){var x=new XMLHttpRequest();x.open("HEAD",p+"404.html",false);x.send();
if(x.status===200||p==="/")break;p=p.replace(/[^\\/]*\\/$/,"")}
window.__corpus_root=p;document.write('<base href="'+p.replace(/"/g,"%22")+'">')}catch(e){}})();</script>"""
_ROOTED = re.compile(r'(\s(?:href|src|action)=")/(?!/)')
# Tags a preload scanner fetches: stylesheets, icons and preloads, scripts with a src, images.
_FETCHED_TAG = re.compile(
    r'<link\b[^>]*\brel="(?:stylesheet|icon|preload|modulepreload)"[^>]*>|<script\b[^>]*\bsrc="[^"]*"[^>]*></script>|<img\b[^>]*>'
)
_RELATIVE_URL = re.compile(r'\s(?:href|src)="(?![a-z][a-z0-9+.-]*:|//|#|/)[^"]')
# Material's configuration, given the root the finder script found (Material resolves `base`
# against the address: "." would put search/search_index.json below the missing page).
_CONFIG_ROOT = """<script>(function(){try{var c=document.getElementById("__config"),j=JSON.parse(c.textContent);
if(window.__corpus_root){j.base=window.__corpus_root;c.textContent=JSON.stringify(j)}}catch(e){}})();</script>"""


def resolve_site_url(corpus_value: str, mkdocs_value: str | None, environ: Mapping[str, str], *, where: str = "corpus.yaml") -> str:
    """The site's address with a trailing slash, or "" when it is not known."""
    for value, origin in ((environ.get(SITE_URL_ENV, ""), f"the {SITE_URL_ENV} environment variable"), (corpus_value, where), (mkdocs_value or "", "mkdocs.yml")):
        value = value.strip()
        if not value:
            continue
        if not urls.is_http_url(value) or re.search(r"\s", value):
            raise SiteError(f"site_url '{value}' from {origin} is not an http(s) address; write it in full, e.g. https://user.github.io/repo/, or leave it empty")
        return value.rstrip("/") + "/"
    return ""


def with_site_url(corpus: Corpus, mkdocs_value: str | None) -> Corpus:
    """The corpus with the one address the site is built for (resolve_site_url), as the plugin renders it."""
    site_url = resolve_site_url(corpus.settings.site_url, mkdocs_value, os.environ)
    if not site_url:
        return corpus
    return dataclasses.replace(corpus, settings=dataclasses.replace(corpus.settings, site_url=site_url))


def make_404_portable(site_dir: Path) -> bool:
    """Rewrite site/404.html to work under any sub-path (only needed without site_url)."""
    page = Path(site_dir) / "404.html"
    if not page.is_file():
        return False
    html = page.read_text(encoding="utf-8")
    if _FIND_BASE in html:
        return False
    html = _ROOTED.sub(r"\1", html)
    # Material's own settings: the base of search and links, and the search worker.
    html = html.replace('"base": "/"', '"base": "."').replace('"search": "/assets/', '"search": "assets/')
    html = html.replace('new URL("/",location)', 'new URL(".",document.baseURI)')  # its storage scope
    html = _FETCHED_TAG.sub(_written_after_base, html)
    html = re.sub(r'(<script id="__config"[^>]*>.*?</script>)', lambda m: m.group(1) + _CONFIG_ROOT, html, count=1, flags=re.S)
    html = re.sub(r"<head>", "<head>" + _FIND_BASE, html, count=1)
    write_atomic(page, html)  # a new file: site.build may have linked the old one from the published site
    return True


def _written_after_base(match: re.Match[str]) -> str:
    """A tag with a relative address, written by script so that only the `<base>` resolves it.

    A stylesheet also stays in a <noscript>, for a reader without script at the site's root.
    """
    tag = match.group(0)
    if not _RELATIVE_URL.search(tag):
        return tag
    written = json.dumps(tag).replace("</", "<\\/")  # no "</script>" inside the script
    fallback = f"<noscript>{tag}</noscript>" if 'rel="stylesheet"' in tag else ""
    return f"<script>document.write({written})</script>{fallback}"
