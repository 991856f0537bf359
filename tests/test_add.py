"""`corpus-build add`: appends without disturbing the file, refuses duplicates, validates."""

from __future__ import annotations

import pytest

from corpus_build import registry
from corpus_build.cli import main
from tests.corpus_fixture import SOURCES_GPU, write_project


def run(project, *args) -> int:
    return main(["--project", str(project), *args])


def test_add_appends_and_preserves_every_existing_byte(project, capsys):
    path = project / "corpus" / "01-gpu" / "sources.yaml"
    before = path.read_text(encoding="utf-8")
    code = run(project, "add", "https://github.com/NVIDIA/cutlass", "--section", "01-gpu", "--note", "The C++ tile library.\nSecond line.", "--chapters", "1", "--tags", "cuda,gemm")
    assert code == 0, capsys.readouterr()
    after = path.read_text(encoding="utf-8")
    assert after.startswith(before)  # comments, order, quoting: untouched
    assert "# GPU sources — this comment must survive" in after
    corpus = registry.load(project / "corpus")
    added = corpus.source("cutlass")
    assert (added.kind, added.title, added.lang, added.chapters, added.tags) == ("repo", "NVIDIA/cutlass", "en", (1,), ("cuda", "gemm"))
    assert added.note == "The C++ tile library.\nSecond line."
    out = capsys.readouterr().out
    assert "added 'cutlass' (repo)" in out and "corpus-build build" in out


def test_add_detects_kind_and_derives_ids(project):
    assert run(project, "add", "https://github.com/tile-ai/tilelang/issues/2115", "--section", "2", "--title", "Ascend roadmap") == 0
    assert run(project, "add", "https://arxiv.org/abs/2504.17577v2", "--section", "02-ascend", "--note", "TileLang 论文。") == 0
    corpus = registry.load(project / "corpus")
    issue = corpus.source("tilelang-issue-2115")
    assert issue.kind == "issue" and issue.section == "02-ascend"
    paper = corpus.source("arxiv-2504.17577")
    assert paper.kind == "paper" and paper.lang == "zh"


def test_add_refuses_a_duplicate_url_naming_the_existing_entry(project, capsys):
    path = project / "corpus" / "02-ascend" / "sources.yaml"
    before = path.read_text(encoding="utf-8")
    code = run(project, "add", "https://www.github.com/Tile-AI/TileLang/", "--section", "02-ascend")
    err = capsys.readouterr().err
    assert code == 1
    assert "already in the registry as 'tilelang' (corpus/01-gpu/sources.yaml:11)" in err
    assert path.read_text(encoding="utf-8") == before


def test_add_refuses_a_duplicate_id(project, capsys):
    code = run(project, "add", "https://example.org/other", "--section", "01-gpu", "--id", "cuda-guide")
    assert code == 1
    assert "id 'cuda-guide' is already used" in capsys.readouterr().err


def test_add_makes_the_id_unique_when_the_name_is_taken(project):
    assert run(project, "add", "https://github.com/someone/tilelang", "--section", "01-gpu") == 0
    assert registry.load(project / "corpus").source("someone-tilelang").url == "https://github.com/someone/tilelang"


def test_add_to_an_unknown_section_lists_the_known_ones(project, capsys):
    assert run(project, "add", "https://example.org/x", "--section", "99-nope") == 1
    assert "known sections: 01-gpu, 02-ascend" in capsys.readouterr().err


def test_add_restores_the_file_when_the_result_does_not_validate(project, capsys):
    path = project / "corpus" / "01-gpu" / "sources.yaml"
    before = path.read_text(encoding="utf-8")
    code = run(project, "add", "https://example.org/page", "--section", "01-gpu", "--chapters", "42")
    assert code == 1
    assert "chapter 42" in capsys.readouterr().err
    assert path.read_text(encoding="utf-8") == before


def test_add_rejects_non_http_urls(project, capsys):
    assert run(project, "add", "file:///etc/passwd", "--section", "01-gpu") == 2
    assert "not an http(s) URL" in capsys.readouterr().err


@pytest.mark.parametrize("body", ["", "[]\n", "# only a comment\n"])
def test_add_into_an_empty_sources_file(project, body):
    path = project / "corpus" / "02-ascend" / "sources.yaml"
    path.write_text(body, encoding="utf-8")
    # the chapters and the digest cite sources that were in this file; drop them
    (project / "corpus" / "chapters.yaml").write_text("[]\n", encoding="utf-8")
    (project / "corpus" / "paths.yaml").write_text("[]\n", encoding="utf-8")
    (project / "corpus" / "digests" / "2026-10-22.md").unlink()
    (project / "corpus" / "01-gpu" / "sources.yaml").write_text(SOURCES_GPU.replace("  chapters: [1]\n", "").replace("  see_also: [deepgemm-ascend]\n", ""), encoding="utf-8")
    assert run(project, "add", "https://example.org/a", "--section", "02-ascend", "--note", "x") == 0
    text = path.read_text(encoding="utf-8")
    assert text.startswith(body.replace("[]\n", ""))
    assert [s.id for s in registry.load(project / "corpus").section("02-ascend").sources] == ["example-a"]


def test_check_command_exit_codes(project, capsys):
    assert run(project, "check") == 0
    assert "ok: 5 sources in 2 sections" in capsys.readouterr().out
    bad = project / "corpus" / "01-gpu" / "sources.yaml"
    bad.write_text(bad.read_text(encoding="utf-8").replace("kind: docs", "kind: doc"), encoding="utf-8")
    assert run(project, "check") == 1
    err = capsys.readouterr().err
    assert "corpus/01-gpu/sources.yaml:5: error: kind 'doc'" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "url, expected",
    [
        ("https://docs.python.org/3/library/json.html", "python-library-json"),  # not docs-library-json.html
        ("https://www.example.com/blog/index.php?page=2&utm_source=feed", "example-blog"),
        ("https://example.org/Default.aspx", "example"),
        ("https://tile-ai.github.io/tilelang/docs/latest/index.htm", "tile-ai-tilelang-docs"),
        ("https://zhuanlan.zhihu.com/p/680212402", "zhihu-p-680212402"),
        ("https://github.com/deepseek-ai/FlashMLA/blob/main/docs/20250930-ascend-prefill-deep-dive-and-tuning-notes.md", "flashmla-20250930-ascend-prefill-deep"),
        ("https://example.org/news/2024/05/why-tiles-beat-threads-for-every-kernel-you-will-ever-write.html", "example-news-why-tiles-beat-threads-for"),
    ],
)
def test_add_derives_a_short_readable_id_from_the_url(project, url, expected):
    assert run(project, "add", url, "--section", "01-gpu", "--offline") == 0
    [source] = [s for s in registry.load(project / "corpus").sources if s.url == url]
    assert source.id == expected
    assert len(source.id) <= 40


def test_ids_from_similar_urls_stay_unique(project):
    assert run(project, "add", "https://example.org/guide/index.html", "--section", "01-gpu", "--offline") == 0
    assert run(project, "add", "https://example.org/guide/default.htm", "--section", "01-gpu", "--offline") == 0
    ids = {s.url: s.id for s in registry.load(project / "corpus").sources}
    assert ids["https://example.org/guide/index.html"] == "example-guide"
    assert ids["https://example.org/guide/default.htm"] == "example-guide-2"


def test_an_id_from_a_page_title_leaves_out_the_site_name_and_stays_short(project):
    url = "https://docs.python.org/3/library/json.html"
    assert run(project, "add", url, "--section", "01-gpu", "--title", "json — JSON encoder and decoder — Python 3.14.0 documentation") == 0
    assert registry.load(project / "corpus").source("json-json-encoder-and-decoder").url == url


@pytest.mark.parametrize(
    "existing, new",
    [
        ("https://example.org/post?source=rss", "https://example.org/post?source=atom"),
        ("https://example.org/compare?ref=main", "https://example.org/compare?ref=dev"),
        ("https://example.org/list?from=2024", "https://example.org/list?from=2025"),
        ("https://example.org/list?from=2024", "https://example.org/list"),
        ("https://app.example.org/#/docs/a", "https://app.example.org/#/docs/b"),
        ("https://app.example.org/#!/docs/a", "https://app.example.org/#!/docs/b"),
    ],
)
def test_add_accepts_urls_that_differ_in_a_real_parameter_or_a_route(project, existing, new):
    assert run(project, "add", existing, "--section", "01-gpu", "--offline") == 0
    assert run(project, "add", new, "--section", "01-gpu", "--offline") == 0
    urls = {s.url for s in registry.load(project / "corpus").sources}
    assert {existing, new} <= urls


@pytest.mark.parametrize(
    "new",
    [
        "https://example.org/post?utm_source=x&utm_medium=email&utm_campaign=launch",
        "https://example.org/post?fbclid=IwAR0abc",
        "https://example.org/post?gclid=abc&mc_cid=1&mc_eid=2",
        "https://example.org/post?igshid=abc",
        "https://www.example.org/post/#comments",  # an anchor in the same document
    ],
)
def test_add_still_refuses_the_same_url_with_tracking_parameters_or_an_anchor(project, capsys, new):
    assert run(project, "add", "https://example.org/post", "--section", "01-gpu", "--offline", "--id", "the-post") == 0
    capsys.readouterr()
    assert run(project, "add", new, "--section", "01-gpu", "--offline") == 1
    assert "already in the registry as 'the-post'" in capsys.readouterr().err


def test_check_summary_counts_in_singular_and_plural(project, capsys):
    assert run(project, "check") == 0
    assert capsys.readouterr().out.splitlines()[-1] == "ok: 5 sources in 2 sections, 2 chapters, 1 learning path, 1 digest; 0 warnings"
    (project / "corpus" / "02-ascend" / "sources.yaml").write_text("[]\n", encoding="utf-8")  # the chapters' and digest's ids are gone
    assert run(project, "check") == 1
    last = capsys.readouterr().err.splitlines()[-1]
    assert last.endswith(" errors, 0 warnings") and "(s)" not in last


def test_add_appends_to_an_empty_list_with_comments_around_it(project, capsys):
    """`corpus-build init` writes a commented sources.yaml; `[]` after comments used to make add fail."""
    (project / "corpus" / "03-new").mkdir()
    (project / "corpus" / "03-new" / "section.yaml").write_text("title: New\n", encoding="utf-8")
    sources = project / "corpus" / "03-new" / "sources.yaml"
    sources.write_text("# My sources, in reading order.\n#\n# - id: example\n[]  # none yet\n", encoding="utf-8")
    assert main(["--project", str(project), "add", "https://example.org/notes/tiles", "--section", "03", "--offline", "--note", "Tiles."]) == 0
    text = sources.read_text(encoding="utf-8")
    assert text.startswith("# My sources, in reading order.\n#\n# - id: example\n") and "[]" not in text
    assert len([s for s in registry.load(project / "corpus").sources if s.section == "03-new"]) == 1


def test_add_dry_run_shows_the_validated_entry_and_writes_nothing(project, capsys):
    sources = project / "corpus" / "01-gpu" / "sources.yaml"
    before = {p: p.read_bytes() for p in (project / "corpus").rglob("*") if p.is_file()}
    assert main(["--project", str(project), "add", "https://example.org/notes/tiles", "--section", "01", "--offline",
                 "--note", "Tiles and warps.", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("would add '") and "(nothing written)" in out and "url: https://example.org/notes/tiles" in out
    assert {p: p.read_bytes() for p in (project / "corpus").rglob("*") if p.is_file()} == before
    # An entry that would not validate is refused as without --dry-run, and still nothing is written.
    assert main(["--project", str(project), "add", "https://example.org/x", "--section", "01", "--offline",
                 "--chapters", "99", "--dry-run"]) == 1
    assert "would not validate" in capsys.readouterr().err
    assert sources.read_bytes() == before[sources]


def test_an_edit_saved_while_add_checks_the_registry_is_never_overwritten(project, capsys, monkeypatch):
    """add writes the entry, checks the whole registry, and on an error puts the file back as it
    read it. An edit saved in between (an editor, another command) was overwritten by that
    put-back: the user's line was lost. Now the file is put back only if it still holds what
    add wrote; otherwise the edit stays, and add says where its own entry is."""
    from corpus_build.registry import add as add_module

    path = project / "corpus" / "01-gpu" / "sources.yaml"
    real_check = add_module.reader.check

    def check_while_the_user_saves(corpus_root, **kwargs):  # the real check; the user saves during it
        problems = real_check(corpus_root, **kwargs)
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace("# GPU sources — this comment must survive", "# GPU sources — edited while add was checking"), encoding="utf-8")
        return problems

    monkeypatch.setattr(add_module.reader, "check", check_while_the_user_saves)
    assert run(project, "add", "https://example.org/x", "--section", "01", "--offline", "--chapters", "99") == 1
    err = capsys.readouterr().err
    text = path.read_text(encoding="utf-8")
    assert "# GPU sources — edited while add was checking" in text  # the user's edit is kept
    assert "url: https://example.org/x" in text and "changed while" in err and "remove it" in err, err


def test_adds_run_at_the_same_time_all_land(project):
    """Two `add`s at once (a script adding in parallel, two terminals) each appended to the file
    as they had read it: an entry was lost though both said "added". corpus/.registry.lock now
    makes them write one after the other."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    runs = [subprocess.Popen([sys.executable, "-m", "corpus_build", "--project", str(project), "add", f"https://example.org/parallel/{n}",
                              "--section", "01", "--offline", "--title", f"Parallel {n}", "--note", "Why."],
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for n in range(8)]
    for process in runs:
        _out, err = process.communicate(timeout=120)
        assert process.returncode == 0, err
    urls = {source.url for source in registry.load(project / "corpus").sources}
    assert {f"https://example.org/parallel/{n}" for n in range(8)} <= urls


@pytest.mark.slow
def test_a_build_never_reads_the_registry_in_the_middle_of_an_adds_check(tmp_path):
    """`add` appends its entry, checks the registry and puts the file back when the check fails,
    all under corpus/.registry.lock. A build starting in that window must wait for the writer, not
    read the entry that is about to go (it failed on it, though the registry was never wrong)."""
    import subprocess
    import sys
    import time

    from corpus_build.core.runlock import registry_lock

    project = write_project(tmp_path / "p")
    sources = project / "corpus" / "01-gpu" / "sources.yaml"
    good = sources.read_text(encoding="utf-8")
    with registry_lock(project / "corpus", "add"):
        sources.write_text(good + "\n- id: other\n  title: Other\n  url: https://example.org/other\n  chapters: [99]\n", encoding="utf-8")
        build = subprocess.Popen([sys.executable, "-m", "corpus_build", "--project", str(project), "--quiet", "build"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(4)  # the build has started and, without the shared hold, read the entry by now
        sources.write_text(good, encoding="utf-8")  # the check failed: put back, as add does
    out, err = build.communicate(timeout=600)
    assert build.returncode == 0, err[-2000:]
    assert "other" not in err
