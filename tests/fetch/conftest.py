"""Fixtures for the fetch tests: a real local HTTP server, small corpora under tmp_path, git repos."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import yaml

from corpus_build import registry
from corpus_build.fetch import FetchOptions

from .server import FixtureServer

_ENV = ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY",
        "GITHUB_TOKEN", "GITHUB_API_URL", "HF_ENDPOINT")


@pytest.fixture(autouse=True)
def hermetic(monkeypatch):
    for name in _ENV:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def server():
    srv = FixtureServer().start()
    yield srv
    srv.stop()


@pytest.fixture
def options(server) -> FetchOptions:
    """Fast, local options: threads instead of processes, short backoff and timeouts."""
    return FetchOptions(
        jobs=4, per_host=4, backoff=0.01, max_backoff=0.1, retries=2, total_timeout=10, read_timeout=5,
        extract_workers=0, recheck_after=0, github_api_url=server.url("/api"), hf_endpoint=server.url("/hf"),
    )


def write_corpus(root: Path, sources: list[dict], **settings) -> Path:
    corpus = root / "corpus"
    section = corpus / "01-main"
    section.mkdir(parents=True, exist_ok=True)
    settings.setdefault("fetch", {}).setdefault("recheck_after", 0)
    (corpus / "corpus.yaml").write_text(yaml.safe_dump({"title": "Test corpus", "languages": ["en"], **settings}), encoding="utf-8")
    (section / "section.yaml").write_text("title: Main\n", encoding="utf-8")
    entries = [{"lang": "en", "note": "why it matters", "title": s["id"], **s} for s in sources]
    (section / "sources.yaml").write_text(yaml.safe_dump(entries, allow_unicode=True), encoding="utf-8")
    return corpus


@pytest.fixture
def make_corpus(tmp_path):
    def make(sources: list[dict], **settings):
        return registry.load(write_corpus(tmp_path, sources, **settings))

    return make


def git(*args: str, cwd: Path) -> str:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.org",
           "GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@example.org"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def git_remote(tmp_path, server):
    """A bare repo served at /git/demo.git (smart HTTP); returns (url, work tree to commit from)."""
    root = tmp_path / "git-root"
    work = tmp_path / "git-work"
    root.mkdir()
    work.mkdir()
    git("init", "-q", "-b", "main", cwd=work)
    (work / "README.md").write_text("# Demo\n\nA demo repository.\n", encoding="utf-8")
    os.symlink("/etc/passwd", work / "evil-link")
    git("add", "-A", cwd=work)
    git("commit", "-q", "-m", "first", cwd=work)
    git("tag", "v0.1.0", cwd=work)
    git("clone", "-q", "--bare", str(work), str(root / "demo.git"), cwd=tmp_path)
    git("remote", "add", "origin", str(root / "demo.git"), cwd=work)
    server.git_root = root
    return server.url("/git/demo.git"), work
