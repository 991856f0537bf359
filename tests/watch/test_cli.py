"""`corpus-build watch` through its argparse wiring (`register(sub)`), env read at the CLI only."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus_build.cli import make_parser
from corpus_build.core.errors import UsageError

from .conftest import SINCE, UNTIL
from .fakegithub import FakeGitHub


def run_cli(argv: list[str]) -> int:
    # The real parser (global options such as --quiet come from it), without main()'s error handling.
    args = make_parser().parse_args(argv)
    return args.func(args)


def test_watch_command_drafts_the_digest(github: FakeGitHub, corpus_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("GITHUB_API_URL", github.url)
    project = corpus_dir.parent
    code = run_cli(["--project", str(project), "watch", "--since", SINCE, "--until", UNTIL, "--tz", "+08:00", "--quiet"])
    out = capsys.readouterr().out
    assert code == 0
    assert out.splitlines()[0] == "drafted corpus/digests/2026-10-22.md: 5 repositories (3 active), 3 merged PRs, 1 release, 1 cited state change"
    assert (project / ".corpus-build" / "github").is_dir()  # the shared ETag cache
    code = run_cli(["--project", str(project), "watch", "--since", SINCE, "--until", UNTIL, "--quiet"])
    assert code == 0 and capsys.readouterr().out.startswith("refreshed corpus/digests/2026-10-22.md")


def test_a_missing_repository_is_recorded_and_the_rest_still_drafted(github: FakeGitHub, corpus_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("GITHUB_API_URL", github.url)
    code = run_cli(["--project", str(corpus_dir.parent), "watch", "--since", SINCE, "--until", UNTIL, "--tz", "+08:00", "--repo", "tile-ai/gone", "--repo", "tile-ai/tilelang", "--quiet"])
    captured = capsys.readouterr()
    assert code == 1
    assert "error: tile-ai/gone: " in captured.err and "HTTP 404" in captured.err
    text = (corpus_dir / "digests" / "2026-10-22.md").read_text(encoding="utf-8")
    assert "## tile-ai/tilelang {#repo-tile-ai-tilelang}" in text
    assert "- [tile-ai/gone](<https://github.com/tile-ai/gone>): could not be checked; " in text


def test_a_time_without_offset_is_a_usage_error(corpus_dir: Path) -> None:
    with pytest.raises(UsageError, match="has no offset"):
        run_cli(["--project", str(corpus_dir.parent), "watch", "--since", "2026-10-21T07:00"])
