"""Fixtures for the watch tests: a fake GitHub on 127.0.0.1, a small registry, a hermetic env.

The scenario mirrors the seed digest on a small scale. Window: 2026-10-21 07:00 to
10-22 07:00 Beijing time (2026-10-20T23:00Z .. 2026-10-21T23:00Z).
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from corpus_build.core.github_api import GitHubClient, GitHubConfig

from .fakegithub import FakeGitHub, FakeRepo

SINCE = "2026-10-21T07:00+08:00"
UNTIL = "2026-10-22T07:00+08:00"


@pytest.fixture(autouse=True)
def hermetic(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GITHUB_TOKEN", "GITHUB_API_URL", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy", "NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    server = FakeGitHub().start()
    try:
        yield server
    finally:
        server.stop()


def populate(fake: FakeGitHub) -> FakeGitHub:
    fake.add(
        FakeRepo(
            "tile-ai/tilelang",
            pushed_at="2026-10-21T17:23:00Z",
            commits={
                "main": [
                    {"sha": "a0", "date": "2026-10-20T22:00:00Z"},  # before the window
                    {"sha": "a1", "date": "2026-10-21T02:20:00Z"},
                    {"sha": "a2", "date": "2026-10-21T11:28:00Z"},
                    {"sha": "a3", "date": "2026-10-21T17:16:00Z"},
                    {"sha": "a4", "date": "2026-10-21T23:00:00Z"},  # the window's end belongs to the next one
                ]
            },
            pulls=[
                {"number": 3000, "title": "Old merge", "user": "alice", "created_at": "2026-10-19T01:00:00Z", "updated_at": "2026-10-20T10:00:00Z", "merged_at": "2026-10-20T10:00:00Z"},
                {"number": 3070, "title": "Batch finalize_reducer only reduced the first block", "user": "bob", "body": "Fixes #2623.", "created_at": "2026-10-01T01:00:00Z", "updated_at": "2026-10-21T17:16:00Z", "merged_at": "2026-10-21T17:16:00Z", "additions": 29, "deletions": 5, "changed_files": 2},
                {"number": 3577, "title": "[Ascend] DeepGEMM heuristics", "user": "carol", "created_at": "2026-10-10T01:00:00Z", "updated_at": "2026-10-21T02:20:00Z", "merged_at": "2026-10-21T02:20:00Z", "additions": 1392, "deletions": 1036, "changed_files": 29},
                {"number": 3595, "title": "BF16 to FP32 via *inline* PTX", "user": "dave", "created_at": "2026-10-20T01:00:00Z", "updated_at": "2026-10-21T11:28:00Z", "merged_at": "2026-10-21T11:28:00Z", "additions": 19, "deletions": 7, "changed_files": 4},
                {"number": 3597, "title": "Keep shift signedness", "user": "erin", "state": "open", "created_at": "2026-10-21T05:00:00Z", "updated_at": "2026-10-21T06:00:00Z"},
                {"number": 3100, "title": "Stale draft", "user": "frank", "state": "open", "created_at": "2026-09-01T01:00:00Z", "updated_at": "2026-10-01T01:00:00Z"},
            ],
            issues=[{"number": 1049, "title": "sm_50 fallback", "state": "open", "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-10-01T00:00:00Z"}],
            tags=[{"name": "v0.1.15", "sha": "t115", "date": "2026-09-30T03:00:00Z"}],
        )
    )
    fake.add(
        FakeRepo(
            "tile-ai/TileFoundry",
            pushed_at="2026-10-21T02:26:00Z",
            commits={"main": [{"sha": "f1", "date": "2026-10-18T00:00:00Z"}]},
            releases=[
                {"tag_name": "v0.0.3", "name": "TileFoundry 0.0.3", "published_at": "2026-10-21T02:26:00Z"},
                {"tag_name": "v0.0.2", "name": "TileFoundry 0.0.2", "published_at": "2026-09-01T00:00:00Z"},
            ],
            tags=[{"name": "v0.0.3", "sha": "f3", "date": "2026-10-21T02:20:00Z"}, {"name": "v0.0.2", "sha": "f2", "date": "2026-09-01T00:00:00Z"}],
            pulls=[{"number": 240, "title": "Pack CUDA headers", "user": "gina", "state": "open", "created_at": "2026-10-15T00:00:00Z", "updated_at": "2026-10-16T00:00:00Z"}],
        )
    )
    fake.add(
        FakeRepo(
            "tile-ai/tilelang-hygon",
            pushed_at="2026-10-21T07:27:00Z",
            commits={
                "main": [{"sha": "h0", "date": "2026-10-20T04:00:00Z"}],
                "feat-hcu-smls-b-vgpr": [
                    {"sha": "h1", "date": "2026-10-21T03:04:00Z"},
                    {"sha": "h2", "date": "2026-10-21T03:05:00Z"},
                    {"sha": "h3", "date": "2026-10-21T07:27:00Z"},
                ],
            },
        )
    )
    fake.add(FakeRepo("tile-ai/tilelang-metax", pushed_at="2026-10-16T00:00:00Z", default_branch="dev", commits={"dev": []}))
    fake.add(FakeRepo("tile-ai/old-archived", pushed_at="2024-01-01T00:00:00Z", archived=True))
    fake.add(FakeRepo("deepseek-ai/TileKernels", pushed_at="2026-10-14T00:00:00Z", commits={"main": []}))
    fake.orgs["tile-ai"] = ["tile-ai/tilelang", "tile-ai/TileFoundry", "tile-ai/tilelang-hygon", "tile-ai/tilelang-metax", "tile-ai/old-archived"]
    return fake


@pytest.fixture
def github(fake: FakeGitHub) -> FakeGitHub:
    return populate(fake)


CORPUS_YAML = """\
title: Test corpus
languages: [{lang}]
watch:
  repos:
    - tile-ai/TileFoundry
    - {{repo: tile-ai/tilelang-hygon, branches: [main, feat-hcu-smls-b-vgpr]}}
  orgs: [tile-ai]
"""

SOURCES_YAML = """\
- id: tilelang
  title: TileLang
  url: https://github.com/tile-ai/tilelang
  kind: repo
  lang: en
  note: The main repository; the sm_50 trap is https://github.com/tile-ai/tilelang/issues/1049 .
- id: tilekernels
  title: TileKernels
  url: https://github.com/deepseek-ai/TileKernels
  kind: repo
  lang: en
  note: An adopter.
- id: tilelang-pr-3577
  title: DeepGEMM heuristics for Ascend
  url: https://github.com/tile-ai/tilelang/pull/3577
  kind: pull
  lang: en
  note: In review when cited.
"""


def make_corpus(root: Path, lang: str = "en") -> Path:
    corpus = root / "corpus"
    (corpus / "01-x").mkdir(parents=True)
    (corpus / "corpus.yaml").write_text(CORPUS_YAML.format(lang=lang), encoding="utf-8")
    (corpus / "01-x" / "section.yaml").write_text("title: X\n", encoding="utf-8")
    (corpus / "01-x" / "sources.yaml").write_text(textwrap.dedent(SOURCES_YAML), encoding="utf-8")
    return corpus


def write_thread_provenance(corpus: Path, source_id: str, state: str = "open") -> Path:
    raw = corpus / "01-x" / "raw" / source_id
    raw.mkdir(parents=True)
    record = {
        "id": source_id,
        "kind": "pull",
        "cited_url": "https://github.com/tile-ai/tilelang/pull/3577",
        "status": "ok",
        "fetched_at": "2026-10-15T00:00:00Z",
        "checked_at": "2026-10-15T00:00:00Z",
        "thread": {"number": 3577, "state": state, "merged": False},
        "schema_version": 1,
    }
    (raw / "provenance.json").write_text(json.dumps(record), encoding="utf-8")
    return raw / "provenance.json"


@pytest.fixture
def corpus_dir(tmp_path: Path) -> Path:
    return make_corpus(tmp_path)


@pytest.fixture
def client(fake: FakeGitHub, tmp_path: Path) -> Iterator[GitHubClient]:
    config = GitHubConfig(api_url=fake.url, cache_dir=tmp_path / "etag-cache")
    with GitHubClient(config) as gh:
        yield gh
