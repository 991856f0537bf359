"""Fixtures of the outside hostile suite: one tiny project made with `corpus-build init` + `add` and
built once per session, copied for each test beside a sibling file and an outside folder that
nothing may touch; a loopback HTTP server.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.hostile_outside.harness import assert_ok, cb, snapshot
from tests.hostile_outside.server import LocalServer

GOOD_WORDS = "the tile scheduler splits work across warps"


def good_article(title: str = "Tiles explained") -> str:
    """A page a reader values: 40 paragraphs of real text in <main>."""
    paras = "".join(f"<p>Paragraph {i}: {GOOD_WORDS} and keeps shared memory busy while the pipeline overlaps loads with math.</p>" for i in range(40))
    return f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{title}</title></head><body><main><h1>{title}</h1>{paras}</main></body></html>"


@dataclass
class Project:
    root: Path  # the project (mkdocs.yml, corpus/, docs/, site/)
    work: Path  # its parent, which also holds sibling.txt
    outside: Path  # a folder elsewhere that holds a user's file

    @property
    def sources(self) -> Path:
        return self.root / "corpus" / "01-example" / "sources.yaml"

    @property
    def corpus_yaml(self) -> Path:
        return self.root / "corpus" / "corpus.yaml"

    @property
    def site(self) -> Path:
        return self.root / "site"

    def raw(self, source_id: str) -> Path:
        return self.root / "corpus" / "01-example" / "raw" / source_id

    def append_source(self, source_id: str, url: str, title: str = "A page", kind: str = "article") -> None:
        with self.sources.open("a", encoding="utf-8") as f:
            f.write(f"- id: {source_id}\n  title: {title}\n  url: {url}\n  kind: {kind}\n  lang: en\n  note: Kept for its text.\n")

    def outside_state(self) -> dict[str, dict[str, str]]:
        """What must never change: the parent folder's other files and the outside folder."""
        return {"work": snapshot(self.work, skip=(self.root.name,)), "outside": snapshot(self.outside)}

    def registry_state(self) -> dict[str, str]:
        return snapshot(self.root / "corpus")


@pytest.fixture(scope="session")
def template(tmp_path_factory) -> Path:
    """`corpus-build init` + one `add` + `build`, once per session."""
    base = tmp_path_factory.mktemp("outside-template")
    assert_ok(cb("init", "tpl", "--title", "外部测试语料", cwd=base, timeout=60))
    root = base / "tpl"
    assert_ok(cb("add", "https://example.org/articles/tiles", "--section", "01", "--title", "Tiles explained", "--note", "Why tiles matter.", "--id", "tiles", "--offline", cwd=root, timeout=60))
    assert_ok(cb("build", cwd=root, timeout=120))
    assert (root / "site" / "index.html").is_file()
    return root


def _copy_project(src: Path, tmp_path: Path) -> Project:
    """A copy of `src` in tmp_path/work/proj, with work/sibling.txt and tmp_path/outside/keep.txt."""
    work = tmp_path / "work"
    work.mkdir()
    root = work / "proj"
    shutil.copytree(src, root, symlinks=True)
    (work / "sibling.txt").write_text("a file of the user's, beside the project\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("a file of the user's, elsewhere\n")
    return Project(root, work, outside)


FETCH_SETTINGS = "fetch:\n  browser: never\n  retries: 0\n  backoff: 0\n  read_timeout: 5\n  total_timeout: 20\n  max_decoded_bytes: 30000000\n  warc: false\nlinks:\n  delay: 0\n"


@pytest.fixture
def proj(template, tmp_path) -> Project:
    """A fresh copy of the built template."""
    return _copy_project(template, tmp_path)


@pytest.fixture
def fetch_proj(proj) -> Project:
    """The project with fetch settings for loopback pages: no browser, no retries, short timeouts."""
    with proj.corpus_yaml.open("a", encoding="utf-8") as f:
        f.write(FETCH_SETTINGS)
    return proj


SHARED_PAGE = "/shared/page"


@pytest.fixture(scope="session")
def mirrored_template(template, server, tmp_path_factory) -> Path:
    """The template with fetch settings and source `page` (a good article on the loopback server) fetched once."""
    base = tmp_path_factory.mktemp("outside-mirrored")
    root = base / "tpl"
    shutil.copytree(template, root, symlinks=True)
    p = Project(root, base, base)
    with p.corpus_yaml.open("a", encoding="utf-8") as f:
        f.write(FETCH_SETTINGS)
    server.set(SHARED_PAGE, good_article())
    p.append_source("page", server.url(SHARED_PAGE), "Tiles explained")
    r = cb("fetch", "page", cwd=root, timeout=120)
    assert_ok(r)
    assert GOOD_WORDS in mirror_text(p), f"the good page was not mirrored: {r.describe()}"
    return root


@pytest.fixture
def good_proj(mirrored_template, server, tmp_path) -> Project:
    """A copy of a project whose source `page` has a good mirror; its URL (SHARED_PAGE) serves the good article again."""
    server.set(SHARED_PAGE, good_article())
    return _copy_project(mirrored_template, tmp_path)


@pytest.fixture(scope="session")
def server():
    s = LocalServer()
    yield s
    s.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """With HOSTILE_OUTSIDE_REPORT=path, one JSON line per test: outcome, seconds, the failure's first line."""
    outcome = yield
    report = outcome.get_result()
    path = os.environ.get("HOSTILE_OUTSIDE_REPORT")
    if not path or report.when != "call":
        return
    message = ""
    if report.failed and call.excinfo is not None:
        message = str(call.excinfo.value).strip().splitlines()[0][:600] if str(call.excinfo.value).strip() else call.excinfo.typename
    with open(path, "a", encoding="utf-8") as f:
        f.write(
            json.dumps({"test": item.nodeid, "doc": (item.function.__doc__ or "").strip(), "outcome": report.outcome, "seconds": round(report.duration, 1), "message": message}, ensure_ascii=False)
            + "\n"
        )


def mirror_text(proj: Project, source_id: str = "page") -> str:
    path = proj.raw(source_id) / "text.md"
    return path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """With HOSTILE_OUTSIDE_REPORT, also the CPU seconds of each test (its commands and this process)."""
    path = os.environ.get("HOSTILE_OUTSIDE_REPORT")
    before = [resource.getrusage(w) for w in (resource.RUSAGE_CHILDREN, resource.RUSAGE_SELF)]
    yield
    if path:
        after = [resource.getrusage(w) for w in (resource.RUSAGE_CHILDREN, resource.RUSAGE_SELF)]
        cpu = sum((a.ru_utime - b.ru_utime) + (a.ru_stime - b.ru_stime) for a, b in zip(after, before, strict=True))
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps({"test": item.nodeid, "cpu": round(cpu, 2)}) + "\n")
