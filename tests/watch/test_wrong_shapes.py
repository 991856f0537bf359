"""`corpus-build watch` against GitHub answers of the wrong shape, served by the fake GitHub on
127.0.0.1 after a first good run the editor has written into.

A field of the wrong type (a string where the user object belongs, a number where a time or a
title belongs) is read as no value; a part missing (a release without its tag, a commit that is
a string) fails that repository, which the digest lists as "could not be checked". Never a
traceback, and the editor's words stay in the digest either way.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus_build.cli import main

from .conftest import SINCE, UNTIL
from .fakegithub import FakeGitHub

EDITOR = "The main repository cleaned up silent bugs."


def _odd_pull(github: FakeGitHub, **fields) -> None:
    shaped = github.pull_json
    github.pull_json = lambda repo, pr: {**shaped(repo, pr), **fields}  # type: ignore[method-assign]


def _odd_release(github: FakeGitHub, drop: str) -> None:
    shaped = github.release_json
    github.release_json = lambda repo, r: {k: v for k, v in shaped(repo, r).items() if k != drop}  # type: ignore[method-assign]


def _odd_commit(github: FakeGitHub) -> None:
    shaped = github.commit_json
    github.commit_json = lambda repo, c: {**shaped(repo, c), "commit": "a string"}  # type: ignore[method-assign]


CASES = {
    "pull-user-a-string": (lambda g: _odd_pull(g, user="bob"), ""),
    "pull-counts-words": (lambda g: _odd_pull(g, additions="many", changed_files=None), ""),
    "pull-title-and-url-objects": (lambda g: _odd_pull(g, title=12, body=["x"], html_url={"a": 1}), ""),
    "pull-times-numbers": (lambda g: _odd_pull(g, merged_at=5, created_at=7, updated_at="yesterday"), ""),
    "release-without-its-tag": (lambda g: _odd_release(g, "tag_name"), "tile-ai/TileFoundry"),
    "commit-a-string": (_odd_commit, "tile-ai/tilelang"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_wrong_shapes_never_make_a_traceback_and_keep_the_editors_words(github: FakeGitHub, corpus_dir: Path, monkeypatch, capsys, case: str) -> None:
    monkeypatch.setenv("GITHUB_API_URL", github.url)
    argv = ["--project", str(corpus_dir.parent), "watch", "--since", SINCE, "--until", UNTIL, "--tz", "+08:00", "--quiet"]
    assert main(argv) == 0
    path = corpus_dir / "digests" / "2026-10-22.md"
    path.write_text(path.read_text(encoding="utf-8").replace("<!-- Editor: write about tile-ai/tilelang here. -->", EDITOR), encoding="utf-8")
    capsys.readouterr()

    spoil, failed_repo = CASES[case]
    spoil(github)
    code = main(argv)  # an exception here is the traceback a user would see
    err = capsys.readouterr().err
    text = path.read_text(encoding="utf-8")
    assert EDITOR in text
    if failed_repo:
        assert code == 1 and f"error: {failed_repo}: " in err and "unexpected shape" in err, err
        assert any(failed_repo in line and "could not be checked; " in line for line in text.splitlines()), text
    else:
        assert code == 0, err
    assert "## tile-ai/tilelang-hygon" in text  # the other repositories are still drafted
