"""A digest drafted from hostile GitHub data, built into the real site and opened in headless
Chromium: no script runs (alert/confirm/prompt trapped, dialogs counted), no request leaves
127.0.0.1, and the payloads are shown as text (issue 10 item 1).
"""

from __future__ import annotations

import json
import os
from urllib.parse import urlsplit

import pytest

from corpus_build import registry, site
from corpus_build.watch.draft import DraftWriter
from tests.corpus_fixture import write_project
from tests.site_helpers import CHROMIUM, playwright_or_skip, serve
from tests.test_hardening_watch import hostile_facts

pytestmark = [pytest.mark.browser, pytest.mark.slow]

sync_api = playwright_or_skip(module=True)

TRAP = """
window.__hits = [];
for (const name of ["alert", "confirm", "prompt", "print"]) {
  window[name] = (...args) => { window.__hits.push(name + ":" + args.join(",")); };
}
"""


def test_hostile_github_data_runs_no_script_in_the_built_digest(tmp_path) -> None:
    project = write_project(tmp_path)
    corpus = registry.load(project / "corpus")
    facts = hostile_facts()
    (project / "corpus" / "digests").mkdir(exist_ok=True)
    (project / "corpus" / "digests" / "2026-10-22.md").write_text(DraftWriter(corpus, facts).render(), encoding="utf-8")
    built = site.build(project)
    with sync_api.sync_playwright() as playwright, serve(built) as base:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu", "--no-first-run"])
        try:
            context = browser.new_context()
            context.add_init_script(TRAP)
            page = context.new_page()
            dialogs, foreign = [], []
            page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
            page.on("request", lambda r: None if r.url.startswith(("data:", "blob:", "about:")) or urlsplit(r.url).hostname == "127.0.0.1" else foreign.append(r.url))
            hits: dict[str, list] = {}
            for path in ("digests/2026-10-22/", "digests/", ""):
                page.goto(base + path)
                page.wait_for_load_state("load")
                page.wait_for_timeout(300)  # onload/onerror handlers fire after load
                hits[path] = page.evaluate("window.__hits")
            report = os.environ.get("HARDEN_BROWSER_REPORT")
            if report:  # scripts/reliability_report.py counts them
                with open(report, "w", encoding="utf-8") as handle:
                    json.dump({"pages": len(hits), "scripts": sum(len(v) for v in hits.values()) + len(dialogs), "foreign": len(foreign)}, handle)
            for path in hits:
                page.goto(base + path)
                assert hits[path] == [], path
                assert page.locator("svg[onload], img[onerror], [onmouseover]").count() == 0, path
            page.goto(base + "digests/2026-10-22/")
            body = page.locator("article").inner_text()
            assert "<svg/onload=alert(1)>" in body  # shown as text, not run
            assert dialogs == [] and foreign == []
        finally:
            browser.close()
