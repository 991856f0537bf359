"""The site-injection cases of tests/hostile_site/cases/: no payload is live markup on any page."""

from __future__ import annotations

import pytest

from tests.hostile_site.runner import check_site, load_cases, write_project

CASES = load_cases()


@pytest.fixture(scope="module")
def checked(tmp_path_factory):
    from corpus_build import site

    project = write_project(tmp_path_factory.mktemp("site-cases"), CASES)
    result = check_site(site.build(project, strict=False))
    live = sum(c.marker in result.live for c in CASES)
    print(f"\nsite-injection cases: {len(CASES)}, pages parsed: {result.pages}, live payloads: {live}")
    return result


def test_there_are_enough_cases():
    assert len(CASES) >= 80
    assert len({c.marker for c in CASES}) == len(CASES)  # file names are numbered once


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case(checked, case):
    assert case.marker in checked.seen, f"{case.name}: the payload reached no page, so this case proves nothing"
    assert case.marker not in checked.live, f"{case.name} ({case.why}) is live markup: {checked.live[case.marker][:5]}"
