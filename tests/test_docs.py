"""The README's registry reference and command list cannot drift from the code."""

from __future__ import annotations

import re

import pytest

from corpus_build import registry
from corpus_build.cli import make_parser
from tests.corpus_fixture import PROJECT_ROOT

README = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")


def table_fields(heading: str) -> set[str]:
    start = README.index(heading)
    end = README.find("\n### ", start + 1)
    block = README[start : end if end != -1 else None]
    return set(re.findall(r"^\| `([a-z_]+)` \|", block, re.M))


@pytest.mark.parametrize(
    "heading, spec",
    [
        ("### `corpus.yaml`", registry.SETTINGS_FIELDS),
        ("### `section.yaml`", registry.SECTION_FIELDS),
        ("### `sources.yaml`", registry.SOURCE_FIELDS),
    ],
)
def test_registry_reference_lists_exactly_the_fields_the_code_accepts(heading, spec):
    assert table_fields(heading) == set(spec)


def test_required_marks_match_the_code():
    block = README[README.index("### `sources.yaml`") :]
    for name, (required, _, _) in registry.SOURCE_FIELDS.items():
        row = re.search(rf"^\| `{name}` \| ([^|]+) \|", block, re.M).group(1)
        assert (row.strip() == "yes") == required, name


def test_chapter_path_and_digest_fields_are_documented():
    for name in [*registry.CHAPTER_FIELDS, *registry.PATH_FIELDS, *registry.STEP_FIELDS, *registry.DIGEST_FIELDS]:
        assert f"`{name}`" in README, name


def test_every_command_is_documented_and_has_help():
    parser = make_parser()
    subparsers = next(a for a in parser._actions if a.dest == "command")
    for name, sub in subparsers.choices.items():
        assert f"corpus-build {name}" in README, name
        assert sub.format_help().strip()
