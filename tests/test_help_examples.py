"""Every `--help` example is a command that parses, and names only sources that exist (or a placeholder)."""

from __future__ import annotations

import shlex

import pytest

from corpus_build import registry
from corpus_build.cli import make_parser
from tests.corpus_fixture import PROJECT_ROOT

# The parsed arguments that name a source of the registry.
ID_DESTS = ("id", "ids", "fix_moved")


def _examples() -> list[tuple[str, str]]:
    parser = make_parser()
    subparsers = next(a for a in parser._actions if a.dest == "command")
    found = []
    for name, sub in subparsers.choices.items():
        epilog = sub.epilog or ""
        for line in epilog.split("example:", 1)[-1].splitlines():
            command = line.strip().split(" | ")[0].split(" && ")[0]
            if command.startswith(f"corpus-build {name}"):
                found.append((name, command))
    return found


def test_every_command_has_an_example():
    parser = make_parser()
    subparsers = next(a for a in parser._actions if a.dest == "command")
    assert {name for name, _ in _examples()} == set(subparsers.choices)


@pytest.mark.parametrize("name, command", _examples())
def test_an_example_names_a_real_source_or_a_placeholder(name, command):
    ids = set(registry.load(PROJECT_ROOT / "corpus").by_id)
    args = make_parser().parse_args(shlex.split(command)[1:])
    for dest in ID_DESTS:
        value = getattr(args, dest, None)
        for given in [value] if isinstance(value, str) else value or []:
            assert given in ids or (given.startswith("<") and given.endswith(">")), f"`{command}`: no source '{given}' in corpus/"
