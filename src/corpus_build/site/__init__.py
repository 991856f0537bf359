"""The site engine's side: the `corpus` plugin and everything a build runs through.

    engines.py    render + site build with one of the engines (mkdocs, properdocs, zensical): the API below
    plugin.py     the `corpus` MkDocs plugin (entry point `corpus`)
    buildcache.py the build cache (Markdown, template, search, allow-list); segment.py (jieba's cuts
                  remembered), navmemo.py (one sidebar per folder of unlisted pages), mdshared.py (one
                  Markdown converter for the build's pages), slim.py (Material's indentation cut)
    search.py     Material's search index tuned for the corpus (see README, "Search")
    preview.py    live preview at scale: an edit of corpus/ rebuilds only the pages it changed
    serve.py      `mkdocs serve`: the error banner and the docs/ watch
    hosting.py    site_url resolution and the portable 404 page
    offline.py    the offline zip (second build + templates/offline-worker.js)

No engine is imported here: `corpus-build check` and friends start without MkDocs.
"""

from .engines import (
    ENGINES,
    build,
    build_and_remember,
    installed_engines,
    pick_engine,
    render_for_engines,
    write_generated_config,
)

__all__ = ["ENGINES", "build", "build_and_remember", "installed_engines", "pick_engine", "render_for_engines", "write_generated_config"]
