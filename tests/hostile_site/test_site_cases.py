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


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case(checked, case):
    assert case.marker in checked.seen, f"{case.name}: the payload reached no page, so this case proves nothing"
    assert case.marker not in checked.live, f"{case.name} ({case.why}) is live markup: {checked.live[case.marker][:5]}"


def test_serve_error_banner_shows_registry_text_as_text(tmp_path):
    """`mkdocs serve` on a broken registry shows its errors on every page: registry text there is text too."""
    from corpus_build import registry
    from corpus_build.core.errors import RegistryError
    from corpus_build.site import serve
    from tests.hostile_site.runner import _Live

    payload = "<img src=x onerror=__xss=/hs900/>"
    write_project(tmp_path, [])
    sources = tmp_path / "corpus" / "01-cases" / "sources.yaml"
    sources.write_text(sources.read_text(encoding="utf-8") + f"- id: bad\n  title: Bad\n  url: https://example.org/bad\n  kind: '{payload}'\n  note: x\n"
                       f"- id: '{payload}'\n  title: Bad\n  url: https://example.org/bad2\n  note: x\n", encoding="utf-8")
    with pytest.raises(RegistryError) as caught:
        registry.load(tmp_path / "corpus")
    assert any("hs900" in p.message for p in caught.value.errors), [p.message for p in caught.value.errors]
    parser = _Live()
    parser.feed(serve.inject("<html><body><p>page</p></body></html>", serve.banner(caught.value.errors, "zh")))
    assert "hs900" in parser.seen and parser.live == {}
