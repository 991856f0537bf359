"""Whole-site builds: strict builds of the fixture and the default corpus, plain `mkdocs build`, live reload."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from corpus_build.cli import main

pytestmark = pytest.mark.slow
BIN = Path(sys.executable).parent


def test_fixture_site_builds_strict(project, capsys):
    assert main(["--project", str(project), "build", "--strict"]) == 0
    site = project / "site"
    for page in ("index.html", "sources/deepgemm-ascend/index.html", "chapters/01/index.html", "digests/2026-10-22/index.html", "tags/index.html", "feed.xml"):
        assert (site / page).is_file(), page
    source = (site / "sources" / "deepgemm-ascend" / "index.html").read_text(encoding="utf-8")
    assert "DeepGEMM 的昇腾实现" in source
    # per-source pages are not in the global navigation
    home = (site / "index.html").read_text(encoding="utf-8")
    assert "sources/deepgemm-ascend/" not in home
    assert '<link rel="alternate" type="application/atom+xml"' in home
    assert '<html lang="en"' in home and "<title>Fixture corpus</title>" in home  # from corpus.yaml


def test_default_corpus_builds_strict_and_complete(default_site):
    site, corpus = default_site
    assert len(corpus.sources) == 121
    pages = list((site / "sources").glob("*/index.html"))
    assert len(pages) == 121
    for chapter in corpus.chapters:
        assert (site / "chapters" / f"{chapter.number:02d}" / "index.html").is_file()
    digest = (site / "digests" / "2026-10-22" / "index.html").read_text(encoding="utf-8")
    assert 'href="../../sources/tilelang/"' in digest
    unverified = [s for s in corpus.sources if not s.verified]
    assert len(unverified) == 15  # bisheng-compiler-guide's page was located (corpus/04-ascend-cann-pto/sources.yaml)
    page = (site / "sources" / unverified[0].id / "index.html").read_text(encoding="utf-8")
    assert "cb-unverified" in page
    # the corpus's vocabulary is indexed as whole words (jieba user dictionary), not single characters
    index = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    texts = " ".join(doc["text"] for doc in index["docs"])
    assert texts.count("\u200b昇腾\u200b") >= 9 and "昇\u200b腾" not in texts


def test_site_loads_nothing_from_other_origins(default_site):
    site, _ = default_site
    offenders = []
    pattern = re.compile(r"""<(?:script|link|img|iframe)[^>]+(?:src|href)=["'](?:https?:)?//""", re.I)
    for path in site.rglob("*.html"):
        for match in pattern.finditer(path.read_text(encoding="utf-8")):
            tag = match.group(0)
            if "<link" in tag.lower() and not re.search(r"rel=[\"'](?:stylesheet|preconnect|icon|modulepreload|preload)", tag, re.I):
                continue  # <link rel="canonical"> and friends load nothing
            offenders.append(f"{path.relative_to(site)}: {tag}")
    assert offenders == []
    css = "".join(p.read_text(encoding="utf-8") for p in site.rglob("*.css"))
    assert "fonts.googleapis" not in css and "fonts.gstatic" not in css


def test_plain_mkdocs_build_regenerates_from_the_registry(project):
    result = subprocess.run([str(BIN / "mkdocs"), "build", "--strict"], cwd=project, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert (project / "docs" / "sources" / "tilelang.md").is_file()
    assert (project / "site" / "sources" / "tilelang" / "index.html").is_file()


def test_build_reports_registry_errors_without_traceback(project, capsys):
    path = project / "corpus" / "01-gpu" / "sources.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("kind: docs", "kind: doc"), encoding="utf-8")
    assert main(["--project", str(project), "build"]) == 1
    err = capsys.readouterr().err
    assert "corpus/01-gpu/sources.yaml:5" in err and "Traceback" not in err


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, response.read().decode("utf-8")
    except Exception as exc:  # noqa: BLE001 - a server still starting answers in many ways
        return 0, str(exc)


def _wait_for(predicate, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.3)
    return False


def test_mkdocs_serve_rebuilds_when_a_source_is_added(project):
    port = _free_port()
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    server = subprocess.Popen(
        [str(BIN / "mkdocs"), "serve", "-a", f"127.0.0.1:{port}"],
        cwd=project, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
    )
    try:
        base = f"http://127.0.0.1:{port}/"
        assert _wait_for(lambda: _get(base + "sources/tilelang/")[0] == 200, 90), "mkdocs serve did not start"
        assert _get(base + "sources/cutlass/")[0] != 200
        assert main(["--project", str(project), "add", "https://github.com/NVIDIA/cutlass", "--section", "01-gpu", "--note", "CUTLASS 注释"]) == 0
        assert _wait_for(lambda: "CUTLASS 注释" in _get(base + "sources/cutlass/")[1], 60), "the new source never appeared"
        # A registry mistake while serving is reported with its place; fixing it rebuilds.
        path = project / "corpus" / "01-gpu" / "sources.yaml"
        good = path.read_text(encoding="utf-8")
        path.write_text(good.replace("CUTLASS 注释", "CUTLASS 注释 v2").replace("kind: docs", "kind: doc"), encoding="utf-8")
        time.sleep(3)
        path.write_text(good.replace("CUTLASS 注释", "CUTLASS 注释 v2"), encoding="utf-8")
        assert _wait_for(lambda: "CUTLASS 注释 v2" in _get(base + "sources/cutlass/")[1], 60), "no rebuild after the fix"
    finally:
        server.terminate()
        log = server.communicate(timeout=30)[0].decode("utf-8", "replace")
    assert "corpus/01-gpu/sources.yaml:5: error: kind 'doc'" in log


def test_seed_digest_keeps_its_structure_and_every_link_works(default_site):
    from html.parser import HTMLParser
    from urllib.parse import urljoin, urlsplit

    site, corpus = default_site
    page = site / "digests" / "2026-10-22" / "index.html"
    html = page.read_text(encoding="utf-8")
    for heading in ("本期索引", "今日重點", "一、核心專案進展", "五、趨勢觀察", "附錄：素材與核查說明"):
        assert heading in html, heading
    assert "<table>" in html  # the source-check table

    class Links(HTMLParser):
        def __init__(self):
            super().__init__()
            self.hrefs, self.ids = [], set()

        def handle_starttag(self, tag, attrs):
            attrs = dict(attrs)
            if "id" in attrs:
                self.ids.add(attrs["id"])
            if tag == "a" and attrs.get("href"):
                self.hrefs.append(attrs["href"])

    parser = Links()
    parser.feed(html)
    external = [h for h in parser.hrefs if h.startswith(("http://", "https://"))]
    assert len([h for h in external if "來源" not in h]) >= 30
    for href in external:
        parts = urlsplit(href)
        assert parts.hostname and "." in parts.hostname and " " not in href, href
    base = "http://x/digests/2026-10-22/"
    for href in parser.hrefs:
        if href.startswith(("http://", "https://", "mailto:")):
            continue
        target = urlsplit(urljoin(base, href))
        if target.path == "/digests/2026-10-22/":
            assert target.fragment == "" or target.fragment in parser.ids, href  # the index's anchors exist
            continue
        path = site / target.path.lstrip("/")
        assert (path / "index.html").is_file() or path.is_file(), href
    registry_links = {h for h in parser.hrefs if "/sources/" in h}
    assert len(registry_links) >= 15  # repositories and PRs linked to their registry entries


def test_hostile_titles_stay_text_in_the_built_site_and_the_short_name_heads_every_page(project):
    from tests.corpus_fixture import CORPUS_YAML

    corpus_yaml = project / "corpus" / "corpus.yaml"
    corpus_yaml.write_text(CORPUS_YAML.replace("languages: [en, zh]", "languages: [zh, en]\nshort_title: 短名"), encoding="utf-8")
    sources = project / "corpus" / "01-gpu" / "sources.yaml"
    sources.write_text(sources.read_text(encoding="utf-8").replace("title: TileLang\n", "title: '</title><svg onload=alert(1)><b>bold</b>'\n")
                       .replace("tags: [tilelang]", "tags: ['<img src=x onerror=alert(5)>']"), encoding="utf-8")
    section = project / "corpus" / "01-gpu" / "section.yaml"
    section.write_text(section.read_text(encoding="utf-8").replace("title_zh: GPU 硬件", "title_zh: '<img src=y onerror=alert(6)>'"), encoding="utf-8")
    assert main(["--project", str(project), "build", "--strict"]) == 0
    page = (project / "site" / "sources" / "tilelang" / "index.html").read_text(encoding="utf-8")
    assert "<svg onload" not in page and "<b>bold</b>" not in page and "<img src" not in page
    assert "&lt;img src=x onerror=alert(5)&gt;" in page and "&lt;img src=y onerror=alert(6)&gt;" in page  # tag chip, nav and breadcrumb
    assert "<title>&lt;/title&gt;&lt;svg onload=alert(1)&gt;&lt;b&gt;bold&lt;/b&gt; - 短名</title>" in page
    assert re.search(r"<h1[^>]*>&lt;/title&gt;&lt;svg onload=alert\(1\)&gt;&lt;b&gt;bold&lt;/b&gt;", page)
    assert 'class="cb-breadcrumb"' in page and 'title="本节链接"' in page and "Permanent link" not in page
    for built in (project / "site").rglob("*.html"):  # tags page, nav of every page, search-free pages alike
        assert not re.search(r"<(?:img|svg)[^>]*\son(?:error|load)=", built.read_text(encoding="utf-8")), built
    home = (project / "site" / "index.html").read_text(encoding="utf-8")
    assert "<title>短名</title>" in home and re.search(r"<h1[^>]*>Fixture corpus", home)
    assert "切换到深色模式" in home
