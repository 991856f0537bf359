"""The preview's fast path (preview.py) in a real `mkdocs serve`: an edit of corpus/ rebuilds only
the pages it changed, and the served site is then the same, byte for byte, as MkDocs' full build."""

from __future__ import annotations

import json
import re
import time

import pytest

from tests.test_serve import _get, _wait_for, start_serve

pytestmark = pytest.mark.slow
_LIVERELOAD = re.compile(r"livereload\(\d+, \d+\)")


def _served(base: str, docs) -> dict[str, str]:
    """Every generated page and file as served, and the search index: Material's, the file the
    pages read instead, and the sharded index's manifest (it names every shard by its content)."""
    manifest = json.loads((docs / ".corpus-build-manifest.json").read_text(encoding="utf-8"))
    urls = ["search/search_index.json", "search/search_config.json", "search/fulltext/index.js"]
    for path in manifest:
        if path.endswith(".md"):
            stem = path[: -len(".md")]
            urls.append(stem[: -len("index")] if stem == "index" or stem.endswith("/index") else stem + "/")
        elif "/archive/" not in path:
            urls.append(path)
    found = {}
    for url in urls:
        status, body, _ = _get(base + url)
        assert status == 200, (url, status)
        found[url] = _LIVERELOAD.sub("livereload(…)", body)  # the server's build counter, in every page it serves
    return found


def test_an_edit_rebuilds_its_pages_and_the_site_equals_a_full_build(project):
    server, log, base = start_serve(project)
    sources = project / "corpus" / "01-gpu" / "sources.yaml"
    chapters = project / "corpus" / "chapters.yaml"
    try:
        assert _wait_for(lambda: _get(base + "sources/tilelang/")[0] == 200, 90), "mkdocs serve did not start:\n" + log.text()
        time.sleep(2)
        full_builds = log.count("Building documentation")

        # A note: the source's page first, then its section page and the listing.
        sources.write_text(sources.read_text(encoding="utf-8").replace("Second line of the note.", "Edited in preview."), encoding="utf-8")
        assert _wait_for(lambda: "Edited in preview." in _get(base + "sources/tilelang/")[1], 60), log.text()
        assert _wait_for(lambda: log.count("page(s) rebuilt in") == 1, 30), log.text()
        assert "Edited in preview." in _get(base + "sections/01-gpu/")[1]
        index = json.loads(_get(base + "search/search_index.json")[1])
        assert any("Edited in preview." in doc.get("text", "") for doc in index["docs"]), "the search index lacks the edit"
        assert any(doc["location"] == "sources/cuda-guide/" for doc in index["docs"]), "the search index lost a page"

        # A reading path's step: no source changed, the chapter page did.
        text = chapters.read_text(encoding="utf-8")
        step = next(line for line in text.splitlines() if line.strip().startswith("why:"))
        chapters.write_text(text.replace(step, step.split("why:")[0] + "why: Read this one in the preview."), encoding="utf-8")
        assert _wait_for(lambda: log.count("page(s) rebuilt in") == 2, 60), log.text()
        assert log.count("Building documentation") == full_builds, "an edit of corpus/ took a full build:\n" + log.text()
        fast = _served(base, project / "docs")
        assert any("Read this one in the preview." in body for body in fast.values())

        # mkdocs.yml changed: MkDocs' own full build, which must give the same site.
        reloads = log.count("Reloading browsers")
        config = project / "mkdocs.yml"
        config.write_text(config.read_text(encoding="utf-8") + "\n# touched\n", encoding="utf-8")
        assert _wait_for(lambda: log.count("Reloading browsers") > reloads and log.count("Building documentation") > full_builds, 90), log.text()
        full = _served(base, project / "docs")
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert "Traceback" not in log.text(), log.text()
    assert sorted(fast) == sorted(full)
    different = [url for url in fast if fast[url] != full[url]]
    assert not different, f"{len(different)} of {len(fast)} served files differ after the fast path, e.g. {different[:5]}"
