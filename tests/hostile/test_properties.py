"""Property-based hostile input: generated YAML, unicode and structures thrown at `check`, `add`
and the page build. Each example must end in problems or success — never an exception other
than the tool's own errors — within a time and memory bound.

A fixed, derandomised example budget keeps CI well inside its time (about 10 s here).
"""

from __future__ import annotations

import resource
import shutil
import time
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corpus_build import registry
from corpus_build.core.errors import CorpusBuildError
from corpus_build.registry.add import NewSource, add_source
from corpus_build.render import build_pages

from .runner import BASE

BUDGET = settings(max_examples=25, deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
SECONDS = 5.0  # per example
GROWTH = 300 * 1024  # KiB of peak RSS growth allowed per example

_scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text(max_size=40))
_values = st.recursive(_scalars, lambda inner: st.one_of(st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=12), inner, max_size=5)), max_leaves=25)
_hostile_text = st.text(alphabet=st.characters(codec="utf-8"), max_size=60) | st.sampled_from(
    ["\x1b[31m", "\u202e", "a\n", "<svg/onload=alert(1)>", "*a", "&a", "!!python/object:os.system", "{{x}}", "[[x]]", "---", "9" * 50]
)


def _project(tmp: Path) -> Path:
    root = tmp / "project"
    if root.exists():
        shutil.rmtree(root)
    for rel, text in BASE.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root / "corpus"


class _Bound:
    def __enter__(self) -> "_Bound":
        self.rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        self.started = time.monotonic()
        return self

    def __exit__(self, *exc: object) -> None:
        assert time.monotonic() - self.started < SECONDS, "an example took too long"
        assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - self.rss < GROWTH, "an example used too much memory"


def _check_is_clean_of_exceptions(corpus: Path) -> list:
    problems = registry.check(corpus)
    for problem in problems:
        assert problem.path and isinstance(problem.message, str) and problem.message
        str(problem)  # printable
    return problems


@BUDGET
@given(text=st.text(max_size=300) | st.binary(max_size=200).map(lambda b: b.decode("latin-1")))
def test_check_survives_any_text_as_sources_yaml(tmp_path_factory, text: str) -> None:
    corpus = _project(tmp_path_factory.mktemp("p"))
    (corpus / "01-main" / "sources.yaml").write_text(text, encoding="utf-8")
    with _Bound():
        _check_is_clean_of_exceptions(corpus)


@BUDGET
@given(data=_values)
def test_check_survives_any_structure_in_every_registry_file(tmp_path_factory, data: object) -> None:
    corpus = _project(tmp_path_factory.mktemp("p"))
    dumped = yaml.safe_dump(data, allow_unicode=True)
    for rel in ("corpus.yaml", "01-main/section.yaml", "01-main/sources.yaml", "chapters.yaml", "paths.yaml"):
        (corpus / rel).write_text(dumped, encoding="utf-8")
    with _Bound():
        assert any(p.severity == "error" for p in _check_is_clean_of_exceptions(corpus)) or data is None or isinstance(data, (list, dict))


@BUDGET
@given(source_id=_hostile_text, title=_hostile_text, url=_hostile_text | st.just("https://example.org/x"), tags=st.lists(_hostile_text, max_size=3), note=_hostile_text)
def test_check_then_build_pages_on_hostile_fields(tmp_path_factory, source_id: str, title: str, url: str, tags: list, note: str) -> None:
    corpus = _project(tmp_path_factory.mktemp("p"))
    entry = {"id": source_id, "title": title, "url": url, "tags": tags, "note": note, "lang": "en"}
    (corpus / "01-main" / "sources.yaml").write_text(yaml.safe_dump([entry], allow_unicode=True), encoding="utf-8")
    (corpus / "chapters.yaml").unlink()
    with _Bound():
        problems = _check_is_clean_of_exceptions(corpus)
        if not any(p.severity == "error" for p in problems):
            pages = build_pages(registry.load(corpus))  # a registry that passes check renders
            assert all("\x1b" not in path and "\n" not in path for path in pages)


@BUDGET
@given(url=_hostile_text | st.builds(lambda host, path: f"https://{host}/{path}", _hostile_text, _hostile_text), title=_hostile_text, note=_hostile_text)
def test_add_either_adds_a_valid_entry_or_changes_nothing(tmp_path_factory, url: str, title: str, note: str) -> None:
    corpus = _project(tmp_path_factory.mktemp("p"))
    sources = corpus / "01-main" / "sources.yaml"
    before = sources.read_bytes()
    with _Bound():
        try:
            add_source(corpus, NewSource(url=url, section="01", title=title, note=note))
        except CorpusBuildError:
            assert sources.read_bytes() == before  # refused: the file is exactly as it was
            return
    assert not [p for p in registry.check(corpus) if p.severity == "error"]  # added: still valid
