"""`mkdocs serve` in headless Chromium: a saved edit reloads the open page once, with the edit on it."""

from __future__ import annotations

import time

import pytest

from tests.site_helpers import chromium, playwright_or_skip
from tests.test_serve import _get, _wait_for, start_serve

pytestmark = [pytest.mark.browser, pytest.mark.slow]

sync_api = playwright_or_skip(module=True)


def test_one_edit_reloads_the_open_pages_once(project):
    server, log, base = start_serve(project)
    path = project / "corpus" / "01-gpu" / "sources.yaml"
    try:
        assert _wait_for(lambda: _get(base + "sources/tilelang/")[0] == 200, 90), "mkdocs serve did not start:\n" + log.text()
        time.sleep(2)
        with chromium(sync_api) as browser:
            pages = {}
            for where in ("sources/tilelang/", "sections/01-gpu/"):  # the edited source's page, and its section's
                page = browser.new_page()
                # Each load of the page (the first, and every live reload) counts itself; sessionStorage outlives reloads.
                page.add_init_script("sessionStorage.setItem('loads', String(Number(sessionStorage.getItem('loads') || 0) + 1))")
                page.goto(base + where, wait_until="load")
                pages[where] = page

            def loads() -> dict[str, int]:
                found = {}
                for where, page in pages.items():
                    try:
                        found[where] = int(page.evaluate("Number(sessionStorage.getItem('loads'))"))
                    except sync_api.Error:  # reloading just now
                        found[where] = -1
                return found

            assert loads() == {"sources/tilelang/": 1, "sections/01-gpu/": 1}
            pages["sources/tilelang/"].wait_for_timeout(1000)  # the pages' live-reload polls are waiting
            path.write_text(path.read_text(encoding="utf-8").replace("Second line of the note.", "Seen in Chromium."), encoding="utf-8")
            assert _wait_for(lambda: min(loads().values()) >= 2, 60), (loads(), log.text())
            pages["sources/tilelang/"].wait_for_timeout(4000)  # a second reload would come within this
            assert loads() == {"sources/tilelang/": 2, "sections/01-gpu/": 2}, log.text()
            for where, page in pages.items():
                assert "Seen in Chromium." in page.content(), where
    finally:
        server.terminate()
        server.wait(timeout=30)
