"""What a newcomer's first commands print (issue 37): one reason per mistake, the reason first,
proper plurals, a suggestion for a mistyped command, and warnings of one kind said once."""

from __future__ import annotations

import re

import pytest

from corpus_build.cli import main
from corpus_build.core.commands import EXIT_PROBLEMS, EXIT_USAGE
from corpus_build.registry.cli import SUMMARY_AFTER

PLURAL_PLACEHOLDER = "(s)"  # "error(s)": the counts are known, so the nouns can agree with them


@pytest.mark.parametrize("command", [["build"], ["render"], ["check"], ["add", "https://example.org/x", "--section", "01"]])
def test_outside_a_project_each_command_gives_the_one_reason(tmp_path, capsys, command):
    assert main(["--project", str(tmp_path), *command]) == EXIT_PROBLEMS
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err  # not also "1 error(s) in the registry…" or "nothing was added…"
    assert err[0] == f"{tmp_path / 'corpus'}: error: no corpus folder here; run corpus-build from the project root or pass --project DIR"


def test_add_to_a_broken_registry_names_the_error_before_what_it_did(project, capsys):
    path = project / "corpus" / "01-gpu" / "sources.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("kind: docs", "kind: doc"), encoding="utf-8")
    assert main(["--project", str(project), "add", "https://example.org/x", "--section", "01"]) == EXIT_PROBLEMS
    err = capsys.readouterr().err.strip().splitlines()
    assert err[0].startswith("corpus/01-gpu/sources.yaml:5: error: kind 'doc'"), err
    assert err[-1] == "nothing was added: fix the registry's 1 error first (`corpus-build check` lists it)", err
    assert len(err) == 2 and PLURAL_PLACEHOLDER not in "".join(err)


@pytest.mark.parametrize("second", ["paper", "docs", "bogus", "repo"])
def test_a_key_written_twice_is_one_error(project, capsys, second):
    path = project / "corpus" / "01-gpu" / "sources.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("  kind: repo\n", f"  kind: repo\n  kind: {second}\n", 1), encoding="utf-8")
    assert main(["--project", str(project), "-q", "check"]) == EXIT_PROBLEMS
    err = capsys.readouterr().err.strip().splitlines()
    assert err[0].endswith("error: duplicate key 'kind' (first at line 14); keep only one"), err
    assert err[1:] == ["1 error, 0 warnings"], err  # not also "kind 'paper' … contradicts its URL"


def test_error_counts_agree_with_their_nouns(project, capsys):
    path = project / "corpus" / "01-gpu" / "sources.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("kind: docs", "kind: doc"), encoding="utf-8")
    assert main(["--project", str(project), "build"]) == EXIT_PROBLEMS
    err = capsys.readouterr().err
    assert "1 error in the registry; fix it and run `corpus-build check` again" in err and PLURAL_PLACEHOLDER not in err
    path.write_text(path.read_text(encoding="utf-8").replace("kind: repo", "kind: rep"), encoding="utf-8")
    assert main(["--project", str(project), "build"]) == EXIT_PROBLEMS
    assert "2 errors in the registry; fix them and run" in capsys.readouterr().err


@pytest.mark.parametrize(("typed", "meant"), [("biuld", "build"), ("chek", "check"), ("fecth", "fetch"), ("stauts", "status")])
def test_a_mistyped_command_gets_a_suggestion(project, capsys, typed, meant):
    assert main(["--project", str(project), typed]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert f"unknown command '{typed}'; did you mean '{meant}'?" in err and "Traceback" not in err


def test_an_unknown_command_with_no_near_miss_lists_the_commands(project, capsys):
    assert main(["--project", str(project), "zzzz"]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "unknown command 'zzzz'; the commands are check, add, render, build" in err and "did you mean" not in err


def _placeholders(project, count: int) -> None:
    path = project / "corpus" / "01-gpu" / "sources.yaml"
    extra = "".join(f"\n- id: page-{i}\n  title: example.org/page-{i}\n  url: https://example.org/page-{i}\n  note: x\n" for i in range(count))
    path.write_text(path.read_text(encoding="utf-8") + extra, encoding="utf-8")


def test_many_placeholder_warnings_are_one_line_except_in_check(project, capsys):
    _placeholders(project, SUMMARY_AFTER + 2)
    assert main(["--project", str(project), "render"]) == 0
    err = [line for line in capsys.readouterr().err.splitlines() if "placeholder" in line]
    assert len(err) == 1, err
    assert f"{SUMMARY_AFTER + 2} sources have a placeholder title" in err[0] and "`corpus-build check` lists them all" in err[0]
    assert main(["--project", str(project), "check"]) == 0
    assert sum("is a placeholder" in line for line in capsys.readouterr().out.splitlines()) == SUMMARY_AFTER + 2


def test_a_few_placeholder_warnings_are_each_said(project, capsys):
    _placeholders(project, 2)
    assert main(["--project", str(project), "render"]) == 0
    assert sum("is a placeholder" in line for line in capsys.readouterr().err.splitlines()) == 2


def test_the_default_corpus_checks_without_a_warning(tmp_path, capsys):
    """Its first build warned: two unverified entries cited the hiascend document root."""
    from tests.site_helpers import copy_default_project

    project = copy_default_project(tmp_path / "project")
    assert main(["--project", str(project), "check"]) == 0
    out = capsys.readouterr()
    assert "duplicate URL" not in out.out + out.err and out.out.rstrip().endswith("; 0 warnings"), out.out[-300:]


def test_the_serve_error_banner_says_its_messages_are_the_checks_english(tmp_path):
    from corpus_build.core.errors import Problem
    from corpus_build.site import serve

    block = serve.banner([Problem("corpus/01-x/sources.yaml", 5, 0, "kind 'doc' of source 'a' is unknown")], "zh")
    assert "英文原文" in block and '<ul lang="en"' in block  # not a Chinese heading over unmarked English


def test_render_counts_agree_with_their_nouns(project, capsys):
    assert main(["--project", str(project), "render"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"rendered \d+ sources?: \d+ files written, 0 unchanged, 0 removed", out) and PLURAL_PLACEHOLDER not in out, out
