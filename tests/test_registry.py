"""Registry validation: every malformed input is reported with its exact file and line."""

from __future__ import annotations

import pytest

from corpus_build.core.errors import RegistryError
from corpus_build.registry import reader as registry  # the reader itself: these tests clear its section memo (_SECTIONS)
from tests.corpus_fixture import CHAPTERS, CORPUS_YAML, DIGEST, SOURCES_ASCEND, SOURCES_GPU, write_corpus

GPU = "corpus/01-gpu/sources.yaml"
ASCEND = "corpus/02-ascend/sources.yaml"


def replace(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


# (case id, files to override, expected file, expected line, words the message must contain)
CASES = [
    ("yaml-syntax-unclosed-flow", {"01-gpu/sources.yaml": replace(SOURCES_GPU, "chapters: [1]", "chapters: [1")}, GPU, 8, "YAML syntax error"),
    ("yaml-syntax-bad-indent", {"01-gpu/sources.yaml": replace(SOURCES_GPU, "  kind: docs", "    kind: docs")}, GPU, 5, "YAML syntax error"),
    ("yaml-tab-indent", {"02-ascend/section.yaml": "title: Ascend\n\ttitle_zh: x\n"}, "corpus/02-ascend/section.yaml", 2, "YAML syntax error"),
    ("unknown-field-typo", {"01-gpu/sources.yaml": replace(SOURCES_GPU, "  tags: [cuda]", "  tag: [cuda]")}, GPU, 8, "did you mean 'tags'"),
    ("unknown-field", {"02-ascend/sources.yaml": replace(SOURCES_ASCEND, "  lang: en\n  note: An in-flight PR.", "  lang: en\n  stars: 5\n  note: An in-flight PR.")}, ASCEND, 21, "unknown field 'stars'"),
    ("missing-title", {"01-gpu/sources.yaml": replace(SOURCES_GPU, "  title: TileLang\n", "")}, GPU, 11, "missing required field 'title'"),
    ("missing-id", {"02-ascend/sources.yaml": replace(SOURCES_ASCEND, "- id: zhihu-port\n  title:", "- title:")}, ASCEND, 9, "missing required field 'id'"),
    ("empty-title", {"01-gpu/sources.yaml": replace(SOURCES_GPU, "  title: TileLang", '  title: ""')}, GPU, 12, "'title' of source 'tilelang' is empty"),
    ("chapters-not-a-list", {"01-gpu/sources.yaml": replace(SOURCES_GPU, "chapters: [1]", 'chapters: "1"')}, GPU, 7, "must be a list of chapter numbers"),
    ("chapter-not-a-number", {"01-gpu/sources.yaml": replace(SOURCES_GPU, "chapters: [1]", "chapters: [one]")}, GPU, 7, "must be a whole number"),
    ("verified-not-bool", {"02-ascend/sources.yaml": replace(SOURCES_ASCEND, "verified: false", "verified: maybe")}, ASCEND, 13, "'verified'"),
    ("bad-id-uppercase", {"01-gpu/sources.yaml": replace(SOURCES_GPU, "id: tilelang", "id: TileLang")}, GPU, 11, "must match"),
    ("bad-id-space", {"01-gpu/sources.yaml": replace(SOURCES_GPU, "id: cuda-guide", "id: cuda guide")}, GPU, 2, "try 'cuda-guide'"),
    ("duplicate-id-across-files", {"02-ascend/sources.yaml": replace(SOURCES_ASCEND, "id: zhihu-port", "id: cuda-guide")}, ASCEND, 9, "already used at corpus/01-gpu/sources.yaml:2"),
    (
        "duplicate-url-normalised",
        {"02-ascend/sources.yaml": replace(SOURCES_ASCEND, "https://github.com/tile-ai/tilelang/pull/2900", "https://github.com/tile-ai/tilelang/pull/2900/").replace("id: tilelang-pr-2900", "id: pr-copy") + "- id: pr-copy-2\n  title: Same PR\n  url: https://www.github.com/Tile-AI/TileLang/pull/2900#top\n  kind: pull\n  lang: en\n  note: dup\n"},
        ASCEND,
        22,
        "cites the same page as 'pr-copy'",
    ),
    ("duplicate-key", {"01-gpu/sources.yaml": replace(SOURCES_GPU, "  kind: docs\n", "  kind: docs\n  kind: paper\n")}, GPU, 6, "duplicate key 'kind'"),
    ("url-not-http", {"01-gpu/sources.yaml": replace(SOURCES_GPU, "https://docs.nvidia.com/cuda/cuda-c-programming-guide/", "ftp://docs.nvidia.com/guide")}, GPU, 4, "not an http(s) URL"),
    ("url-no-scheme", {"01-gpu/sources.yaml": replace(SOURCES_GPU, "https://github.com/tile-ai/tilelang", "github.com/tile-ai/tilelang")}, GPU, 13, "not an http(s) URL"),
    ("url-bad-port", {"01-gpu/sources.yaml": replace(SOURCES_GPU, "https://docs.nvidia.com/cuda/", "https://docs.nvidia.com:abc/cuda/")}, GPU, 4, "not an http(s) URL"),
    ("url-missing-verified", {"01-gpu/sources.yaml": replace(SOURCES_GPU, "  url: https://github.com/tile-ai/tilelang\n", "")}, GPU, 11, "has no url"),
    ("kind-unknown", {"01-gpu/sources.yaml": replace(SOURCES_GPU, "kind: docs", "kind: doc")}, GPU, 5, "use `docs`"),
    ("kind-contradicts-url", {"01-gpu/sources.yaml": replace(SOURCES_GPU, "kind: repo", "kind: paper")}, GPU, 14, "contradicts its URL, which is a repo"),
    ("kind-pull-vs-issue", {"02-ascend/sources.yaml": replace(SOURCES_ASCEND, "kind: pull", "kind: issue")}, ASCEND, 19, "which is a pull"),
    ("lang-invalid", {"01-gpu/sources.yaml": replace(SOURCES_GPU, "  lang: en\n  chapters", "  lang: fr\n  chapters")}, GPU, 6, "lang 'fr'"),
    ("see-also-unknown", {"01-gpu/sources.yaml": replace(SOURCES_GPU, "see_also: [deepgemm-ascend]", "see_also: [deepgemm-ascnd]")}, GPU, 11, "did you mean 'deepgemm-ascend'"),
    ("chapter-undefined", {"01-gpu/sources.yaml": replace(SOURCES_GPU, "chapters: [1]", "chapters: [1, 99]")}, GPU, 2, "chapter 99"),
    ("reading-path-unknown-source", {"chapters.yaml": replace(CHAPTERS, "    - source: tilelang\n", "    - source: tilelnag\n")}, "corpus/chapters.yaml", 8, "unknown source 'tilelnag'"),
    ("chapter-duplicate-number", {"chapters.yaml": CHAPTERS.replace("- number: 2", "- number: 1")}, "corpus/chapters.yaml", 12, "chapter 1 is defined twice"),
    ("chapter-number-text", {"chapters.yaml": CHAPTERS.replace("- number: 2", "- number: two")}, "corpus/chapters.yaml", 12, "'number' of chapter #2 must be a whole number"),
    ("sources-not-a-list", {"01-gpu/sources.yaml": "id: x\ntitle: y\n"}, GPU, 1, "must be a list of sources"),
    ("source-not-a-mapping", {"01-gpu/sources.yaml": SOURCES_GPU + "- just a string\n"}, GPU, 22, "must be a mapping"),
    ("section-yaml-missing", {"02-ascend/section.yaml": None}, "corpus/02-ascend/section.yaml", 0, "missing"),
    ("corpus-yaml-unknown-field", {"corpus.yaml": CORPUS_YAML + "theme: dark\n"}, "corpus/corpus.yaml", 5, "unknown field 'theme'"),
    ("digest-unknown-wikilink", {"digests/2026-10-22.md": DIGEST.replace("[[deepgemm-ascend|", "[[deepgemm|")}, "corpus/digests/2026-10-22.md", 11, "[[deepgemm]]"),
    ("digest-bad-name", {"digests/22-10-2026.md": DIGEST}, "corpus/digests/22-10-2026.md", 0, "YYYY-MM-DD.md"),
    ("digest-date-mismatch", {"digests/2026-10-22.md": DIGEST.replace("date: 2026-10-22", "date: 2026-10-23")}, "corpus/digests/2026-10-22.md", 3, "differs from the file name"),
    ("digest-no-front-matter", {"digests/2026-10-22.md": "# Digest\n\nText.\n"}, "corpus/digests/2026-10-22.md", 1, "missing front matter"),
    ("digest-unknown-front-matter", {"digests/2026-10-22.md": DIGEST.replace("tz:", "timezone:")}, "corpus/digests/2026-10-22.md", 6, "unknown field 'timezone'"),
    ("not-utf8", {"02-ascend/section.yaml": None}, "corpus/02-ascend/section.yaml", 0, "not UTF-8"),
    # One broken file: its ids are cited in chapters, paths, digests and see_also, yet only the
    # syntax error is reported (no "unknown source" flood).
    ("yaml-syntax-colon-in-title", {"01-gpu/sources.yaml": replace(SOURCES_GPU, "  title: TileLang\n", '  title: BitBLAS: "x\n')}, GPU, 12, "YAML syntax error"),
    ("yaml-tab-in-sources", {"01-gpu/sources.yaml": replace(SOURCES_GPU, "  kind: repo", "\tkind: repo")}, GPU, 14, "YAML syntax error"),
    ("chapters-yaml-missing", {"chapters.yaml": None}, "corpus/chapters.yaml", 0, "missing, but 2 source(s) cite chapters 1, 2"),
    ("chapters-yaml-syntax", {"chapters.yaml": replace(CHAPTERS, "  title: 昇腾 GEMM", "  title: [昇腾 GEMM")}, "corpus/chapters.yaml", 14, "flow sequence started at line 13"),
    ("sources-yaml-not-utf8", {}, GPU, 0, "not UTF-8"),
]

# How many errors each case's single mistake causes: one, unless it really causes several.
COUNTS: dict[str, int] = {}


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_malformed_input_is_reported_at_its_exact_place(tmp_path, case):
    name, overrides, expected_path, expected_line, words = case
    corpus = write_corpus(tmp_path, overrides)
    if name == "not-utf8":
        (corpus / "02-ascend" / "section.yaml").write_bytes("title: 昇腾\n".encode("gbk"))
    if name == "sources-yaml-not-utf8":
        (corpus / "01-gpu" / "sources.yaml").write_bytes(SOURCES_GPU.replace("CUDA", "昇腾").encode("gbk"))
    problems = [p for p in registry.check(corpus) if p.severity == "error"]
    matching = [p for p in problems if p.path == expected_path and p.line == expected_line and words in p.message]
    assert matching, f"expected an error at {expected_path}:{expected_line} containing {words!r}; got:\n" + "\n".join(map(str, problems))
    assert len(problems) == COUNTS.get(name, 1), "one mistake, one error; got:\n" + "\n".join(map(str, problems))
    assert all(p.code and p.code != "invalid" for p in problems), [p.code for p in problems]


def test_enough_malformed_cases():
    assert len(CASES) >= 25


def test_fixture_corpus_is_clean(corpus_dir):
    problems = registry.check(corpus_dir)
    assert [p for p in problems if p.severity == "error"] == []
    corpus = registry.load(corpus_dir)
    assert [s.id for s in corpus.sources] == ["cuda-guide", "tilelang", "deepgemm-ascend", "zhihu-port", "tilelang-pr-2900"]
    tilelang = corpus.source("tilelang")
    assert tilelang.note == "The main repository.\nSecond line of the note."
    assert tilelang.mirror_depth == "full" and tilelang.line == 11
    assert corpus.source("zhihu-port").verified is False and corpus.source("zhihu-port").url == ""
    assert [c.number for c in corpus.chapters] == [1, 2]
    assert [d.date.isoformat() for d in corpus.digests] == ["2026-10-22"]


def test_all_problems_are_reported_not_only_the_first(tmp_path):
    overrides = {
        "01-gpu/sources.yaml": replace(replace(SOURCES_GPU, "kind: docs", "kind: doc"), "see_also: [deepgemm-ascend]", "see_also: [nope]"),
        "02-ascend/sources.yaml": replace(SOURCES_ASCEND, "lang: zh", "lang: de"),
    }
    problems = [p for p in registry.check(write_corpus(tmp_path, overrides)) if p.severity == "error"]
    assert {(p.path, p.line) for p in problems} >= {(GPU, 5), (GPU, 11), (ASCEND, 5)}


def test_load_raises_with_every_error(tmp_path):
    corpus = write_corpus(tmp_path, {"01-gpu/sources.yaml": replace(SOURCES_GPU, "kind: docs", "kind: doc")})
    with pytest.raises(RegistryError) as info:
        registry.load(corpus)
    assert "corpus/01-gpu/sources.yaml:5" in str(info.value)
    assert "1 error in the registry; fix it" in str(info.value)


def test_shared_placeholder_url_of_unverified_entries_is_a_warning(tmp_path):
    extra = "- id: a\n  title: A\n  url: https://www.hiascend.com/document\n  verified: false\n  verify_note: guess\n  note: x\n"
    extra += "- id: b\n  title: B\n  url: https://www.hiascend.com/document\n  verified: false\n  verify_note: guess\n  note: y\n"
    problems = registry.check(write_corpus(tmp_path, {"02-ascend/sources.yaml": SOURCES_ASCEND + extra}))
    dup = [p for p in problems if "duplicate URL" in p.message]
    assert len(dup) == 1 and dup[0].severity == "warning"


def test_source_citing_chapter_outside_its_path_is_a_warning(tmp_path):
    chapters = CHAPTERS.replace("    - source: deepgemm-ascend\n      why: The main subject.\n", "    - source: cuda-guide\n      why: x\n")
    problems = registry.check(write_corpus(tmp_path, {"chapters.yaml": chapters}))
    assert any(p.severity == "warning" and "'deepgemm-ascend' cites chapter 2" in p.message for p in problems)


def test_kind_is_detected_when_omitted(tmp_path):
    corpus = registry.load(write_corpus(tmp_path, {"01-gpu/sources.yaml": SOURCES_GPU.replace("  kind: repo\n", "")}))
    assert corpus.source("tilelang").kind == "repo"


def test_did_you_mean_only_for_near_misses(tmp_path):
    far = registry.check(write_corpus(tmp_path / "far", {"01-gpu/sources.yaml": replace(SOURCES_GPU, "see_also: [deepgemm-ascend]", "see_also: [bitblas-paper]")}))
    [problem] = [p for p in far if p.severity == "error"]
    assert "unknown source 'bitblas-paper'" in problem.message and "did you mean" not in problem.message
    near = registry.check(write_corpus(tmp_path / "near", {"01-gpu/sources.yaml": replace(SOURCES_GPU, "see_also: [deepgemm-ascend]", "see_also: [deepgem-ascend]")}))
    assert any("did you mean 'deepgemm-ascend'" in p.message for p in near)


def test_a_missing_corpus_folder_names_an_option_that_exists(tmp_path):
    from corpus_build.cli import make_parser

    [problem] = registry.check(tmp_path / "nowhere")
    assert "--project DIR" in problem.message and problem.code == "missing-corpus"
    options = {o for action in make_parser()._actions for o in action.option_strings}
    assert "--project" in options


def test_every_problem_code_is_documented_in_the_readme():
    import re

    from tests.corpus_fixture import PROJECT_ROOT

    source = "".join((PROJECT_ROOT / "src" / "corpus_build" / name).read_text(encoding="utf-8") for name in ("registry/reader.py", "registry/yamlfile.py"))
    codes = set(re.findall(r'code="([a-z0-9-]+)"', source))
    readme = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")
    block = readme[readme.index("### Problem codes") :]
    documented = set(re.findall(r"^\| `([a-z0-9-]+)` \|", block, re.M))
    assert len(codes) >= 25
    assert codes <= documented, sorted(codes - documented)


def test_files_that_cannot_be_read_have_stable_codes(tmp_path):
    import os

    from corpus_build.registry import yamlfile

    folder = tmp_path / "folder.yaml"
    folder.mkdir()
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    big = tmp_path / "big.yaml"
    big.write_text("- id: x\n" * 100, encoding="utf-8")
    problems: list = []
    assert yamlfile.read_text(folder, problems) is None
    assert yamlfile.read_text(fifo, problems) is None  # refused without blocking
    assert yamlfile.read_text(big, problems, max_bytes=100) is None
    assert yamlfile.read_text(tmp_path / "missing.yaml", problems) is None
    assert [p.code for p in problems] == ["not-a-file", "not-a-file", "file-too-large", "unreadable"]
    assert "a FIFO" in problems[1].message or "not a regular file" in problems[1].message


def test_a_reread_registry_reuses_unchanged_sections_and_sees_every_edit(tmp_path):
    """Reading the registry again in one process (build, then the plugin; serve at each edit)
    reuses the sections whose files did not change, and reports exactly what a fresh read would."""
    root = write_corpus(tmp_path)
    broken = replace(SOURCES_GPU, "  tags: [cuda]", "  tag: [cuda]")
    (root / "01-gpu" / "sources.yaml").write_text(broken, encoding="utf-8")
    first = registry.read(root)
    registry._SECTIONS.clear()
    fresh = registry.read(root)
    assert first[1] == fresh[1] and any("did you mean 'tags'" in p.message for p in first[1])
    assert registry.read(root)[1] == fresh[1]  # reused: the same problems, replayed
    # An edit of the same size in the same second is still seen (inode times, not whole seconds).
    ascend = root / "02-ascend" / "sources.yaml"
    text = ascend.read_text(encoding="utf-8")
    assert "An in-flight PR." in text
    ascend.write_text(text.replace("An in-flight PR.", "An in-flight PX."), encoding="utf-8")
    (root / "01-gpu" / "sources.yaml").write_text(SOURCES_GPU, encoding="utf-8")
    corpus, problems = registry.read(root)
    assert not any(p.severity == "error" for p in problems)
    assert corpus.by_id["tilelang-pr-2900"].note.startswith("An in-flight PX.")
    assert corpus == registry.read(root)[0]


def test_sections_cached_between_runs_read_back_exactly_and_follow_every_byte(tmp_path):
    """sectioncache.py: a later process reads unchanged sections from .corpus-build/cache/sections/
    and gets the same corpus and problems as a fresh parse; a changed byte or a damaged entry is read afresh."""
    from corpus_build.registry import sectioncache

    root = write_corpus(tmp_path)
    (root / "01-gpu" / "sources.yaml").write_text(replace(SOURCES_GPU, "  tags: [cuda]", "  tag: [cuda]"), encoding="utf-8")
    fresh = registry.read(root)  # parses, and writes the cache
    stored = tmp_path / sectioncache.FOLDER
    assert sorted(p.name for p in stored.iterdir()) == ["01-gpu.json", "02-ascend.json"]
    registry._SECTIONS.clear()  # as a new process
    assert registry.read(root) == fresh
    # A byte changed: read afresh, not from the cache.
    ascend = root / "02-ascend" / "sources.yaml"
    ascend.write_text(ascend.read_text(encoding="utf-8").replace("An in-flight PR.", "An in-flight PX."), encoding="utf-8")
    registry._SECTIONS.clear()
    assert registry.read(root)[0].by_id["tilelang-pr-2900"].note.startswith("An in-flight PX.")
    # A damaged or foreign cache entry costs a parse, never a wrong corpus.
    (stored / "01-gpu.json").write_text('{"key": "x", "section": {}}', encoding="utf-8")
    (stored / "02-ascend.json").write_text("not json", encoding="utf-8")
    registry._SECTIONS.clear()
    again = registry.read(root)
    registry._SECTIONS.clear()
    for entry in stored.iterdir():
        entry.unlink()
    assert again == registry.read(root)


def test_every_fetch_setting_the_registry_accepts_is_a_fetch_option():
    """registry/settings.py checks corpus.yaml's `fetch:` keys; fetch/options.py's FetchOptions holds their defaults."""
    import dataclasses

    from corpus_build.fetch.options import FetchOptions
    from corpus_build.registry.settings import FETCH_SETTINGS

    fields = {f.name: f.type for f in dataclasses.fields(FetchOptions)}
    assert set(FETCH_SETTINGS) <= set(fields), sorted(set(FETCH_SETTINGS) - set(fields))
    for key, kind in FETCH_SETTINGS.items():
        assert kind.__name__ in str(fields[key]), (key, kind, fields[key])
