"""Our search worker in the offline copy: opened from file://, Material's worker runs in the
offline stand-in's iframe (site/templates/offline-worker.js), where importScripts returns a
promise; ours must load it there too and still answer a typo."""

from __future__ import annotations

import zipfile
from urllib.parse import urlsplit

import pytest

from corpus_build.cli import main
from tests.corpus_fixture import write_project
from tests.site_helpers import chromium, playwright_or_skip

pytestmark = [pytest.mark.slow, pytest.mark.browser]


def test_the_offline_copy_answers_a_typo_from_file_url(tmp_path):
    sync_api = playwright_or_skip()
    project = write_project(tmp_path / "project")
    corpus_yaml = project / "corpus" / "corpus.yaml"
    corpus_yaml.write_text(corpus_yaml.read_text(encoding="utf-8") + "offline: true\n", encoding="utf-8")
    assert main(["--project", str(project), "build", "--strict"]) == 0
    with zipfile.ZipFile(project / "site" / "offline.zip") as zf:
        zf.extractall(tmp_path / "copy")
    home = (tmp_path / "copy" / "site" / "index.html").as_uri()
    with chromium(sync_api) as browser:
        page = browser.new_page()
        errors, foreign = [], []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: m.type == "error" and errors.append(m.text))
        page.on("request", lambda r: urlsplit(r.url).scheme not in ("file", "data", "blob", "about") and foreign.append(r.url))
        page.goto(home)
        box = page.locator("input.md-search__input")
        box.click()
        box.fill("tilelnag")  # TileLang, two letters swapped
        box.press("End")
        page.wait_for_selector(".md-search-result__item", timeout=15_000)
        hrefs = [a.get_attribute("href") or "" for a in page.locator(".md-search-result__item a").all()]
        assert "sources/tilelang.html" in hrefs[0], hrefs
        assert errors == [] and foreign == []
