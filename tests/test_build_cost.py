"""What makes a full build cheap must not change what it builds.

- The search vocabulary is computed with jieba's stock dictionary whether the
  process-wide tokenizer has learned the corpus's words or not (render/stockcut.py
  shares that tokenizer only while it is stock).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from tests.corpus_fixture import write_corpus

ROOT = Path(__file__).resolve().parents[1]

# Runs in a fresh interpreter: jieba's process-wide tokenizer is not loaded yet.
_VOCABULARY = r"""
import json, sys
import jieba
from corpus_build import registry, render
from corpus_build.render import stockcut

corpus = registry.load(sys.argv[1])
out = {}
if sys.argv[2] == "taught-first":  # someone taught jieba before our first question
    jieba.add_word("毕昇编译器", 10**6)
    jieba.add_word("流水线调度", 10**6)
out["first"] = render.search_vocabulary(corpus)
out["first_shared"] = stockcut.tokenizer() is jieba.dt
# What the plugin does next: teach jieba the corpus's words (and more that would change a cut).
for word in out["first"] + ["毕昇编译器", "流水线调度"]:
    jieba.add_word(word, 10**6)
jieba.del_word("用户")
out["after"] = render.search_vocabulary(corpus)
out["other"] = render.search_vocabulary(registry.load(sys.argv[3]))  # titles not cut before
out["after_shared"] = stockcut.tokenizer() is jieba.dt
print(json.dumps(out, ensure_ascii=False))
"""


def _vocabulary(corpus_dir: Path, mode: str, other: Path) -> dict:
    result = subprocess.run([sys.executable, "-c", _VOCABULARY, str(corpus_dir), mode, str(other)], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_search_vocabulary_is_the_same_whether_jieba_learned_the_corpus_words_or_not(tmp_path):
    def corpus(name: str, title: str) -> Path:
        corpus_dir = write_corpus(tmp_path / name)
        path = corpus_dir / "01-gpu" / "sources.yaml"
        path.write_text(path.read_text(encoding="utf-8").replace("title: CUDA C++ Programming Guide", f"title: {title}"), encoding="utf-8")
        return corpus_dir

    one = corpus("one", "毕昇编译器用户指南与流水线调度")
    two = corpus("two", "用户指南：毕昇编译器与流水线调度器")
    fresh = _vocabulary(one, "fresh", two)
    assert "毕昇" in fresh["first"]  # stock jieba cuts it into 毕 / 昇
    assert fresh["first_shared"] is True  # one dictionary loaded, shared with search
    assert fresh["after_shared"] is False  # once taught, the stock cut comes from a tokenizer of its own
    assert fresh["after"] == fresh["first"]

    taught = _vocabulary(one, "taught-first", two)
    assert taught["first_shared"] is False  # loaded by someone else: not known to be stock
    assert taught["first"] == taught["after"] == fresh["first"]
    # The other corpus's titles were first cut after jieba learned words: the same as in a fresh process.
    assert fresh["other"] == taught["other"] == _vocabulary(two, "fresh", two)["first"]
    assert "毕昇" in fresh["other"]


# --- the command line starts without the stage modules ----------------------------------------


def test_a_core_command_line_parses_the_same_without_the_stage_commands():
    from corpus_build.cli import CORE_COMMANDS, _command_on_line, make_parser

    lines = [
        ["build"], ["build", "--strict", "--engine", "mkdocs"], ["--project", "build", "check", "--json"], ["--proj", "fetch", "build"],
        ["-q", "--project=x", "render"], ["add", "https://example.org/x", "--section", "01", "--note", "fetch"], ["check", "-v"],
    ]
    full, core = make_parser(), make_parser(stage_commands=False)
    for argv in lines:
        assert _command_on_line(argv) in CORE_COMMANDS, argv
        assert vars(core.parse_args(argv)) == vars(full.parse_args(argv)), argv
    # Other lines get the whole parser: a stage command, help before any command, no command.
    for argv in (["fetch"], ["--project", "check", "fetch"], ["--help", "build"], ["-h"], [], ["--version"], ["-q"]):
        assert _command_on_line(argv) not in CORE_COMMANDS, argv


def test_help_still_lists_every_command(capsys):
    from corpus_build.cli import main, make_parser

    names = next(a for a in make_parser()._actions if a.dest == "command").choices
    assert {"fetch", "watch", "links", "clean"} <= set(names)
    assert main(["--help"]) == 0
    listing = capsys.readouterr().out
    for name, parser in names.items():
        assert f"    {name} " in listing, name
    assert main(["build", "--help"]) == 0
    assert "example:\n  corpus-build build" in capsys.readouterr().out


def test_a_core_command_does_not_import_the_stage_modules():
    code = ("import sys; from corpus_build import cli; cli.main(['check', '--help']); "
            "print(sorted(m for m in sys.modules if m.startswith(('corpus_build.fetch', 'corpus_build.watch', 'httpx'))))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "[]"


# --- slim.html: the faster patterns cut exactly what the plain ones did --------------------------


def _slim_reference(page: str) -> str:
    """slim.html as first written: a lazy `.*?` for kept elements, every line break replaced."""
    import re

    kept_re = re.compile(r"<(?P<tag>pre|textarea|script|style|code|kbd)\b[^>]*>.*?</(?P=tag)\s*>|<!--.*?-->", re.S | re.I)
    out, start = [], 0
    for kept in kept_re.finditer(page):
        out.append(re.sub(r"\n[ \t\n\r\f]*", "\n", page[start : kept.start()]))
        out.append(kept.group(0))
        start = kept.end()
    out.append(re.sub(r"\n[ \t\n\r\f]*", "\n", page[start:]))
    return "".join(out)


def test_slimming_matches_the_reference_on_awkward_markup():
    import random

    from corpus_build.site import slim

    pieces = ["<pre>", "</pre>", "</PRE >", "<Pre class='x'>", "<code>", "</code>", "<script>", "</script>", "</scripts>", "<!--", "-->",
              "<kbd>", "</kbd >", "<textarea>", "</textarea>", "<style>", "</style>", "<p>", "</p>", "<", ">", "\n", "\n  \n\t", " ", "\u3000\n",
              "\n\u00a0 ", "text", "算子", "<pres>", "</pre", "<codex>"]
    rng = random.Random(11)
    for _ in range(3000):
        page = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 40)))
        assert slim.html(page) == _slim_reference(page), page


# --- changes.take: sources without a mirror are known from one listing per section ------------


def test_the_build_snapshot_is_what_mirror_state_says_of_every_source(tmp_path):
    from corpus_build import registry
    from corpus_build.core.provenance import Provenance, Status, mirror_state, write_failure, write_provenance
    from corpus_build.render import changes

    corpus = registry.load(write_corpus(tmp_path))
    ids = [s.id for s in corpus.sources]
    assert len(ids) >= 4
    ok = Provenance(id=ids[0], kind="article", cited_url="", status=Status.OK, checked_at="2026-12-01T08:00:00Z", fetched_at="2026-12-01T08:00:00Z")
    write_provenance(corpus.raw_dir(corpus.source(ids[0])), ok)
    failed = Provenance(id=ids[1], kind="article", cited_url="", status=Status.FAILED, checked_at="2026-12-01T08:00:00Z", error="gone")
    write_failure(corpus.raw_dir(corpus.source(ids[1])), failed)
    corpus.raw_dir(corpus.source(ids[2])).mkdir(parents=True)  # a folder without a record

    def expected() -> dict:
        return {s.id: mirror_state(corpus.raw_dir(s), corpus.settings.stale_after_days)[0] for s in corpus.sources}

    states = {i: entry["mirror"] for i, entry in changes.take(corpus)["sources"].items()}
    assert states == expected()
    assert states[ids[0]] in ("ok", "stale") and states[ids[1]] == "failed" and states[ids[3]] == "never fetched"


# --- the allow-list's output, cached by content -----------------------------------------------

INJECT_HOOK = '''
import os

def on_page_content(html, page, config, files):  # runs before the corpus plugin's allow-list (priority -50)
    if page.file.src_uri == "sources/tilelang.md" and os.environ.get("INJECT_MARKUP"):
        return html + os.environ["INJECT_MARKUP"]
    return html
'''


def test_a_page_changed_after_its_cleaning_was_cached_is_cleaned_again(tmp_path, monkeypatch, caplog):
    import logging

    from corpus_build import site
    from corpus_build.render.sanitize import clean_page
    from tests.corpus_fixture import write_project

    caplog.set_level(logging.INFO, logger="mkdocs.plugins.corpus")
    project = write_project(tmp_path)
    (project / "inject.py").write_text(INJECT_HOOK, encoding="utf-8")
    config = project / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8") + "\nhooks:\n  - inject.py\n", encoding="utf-8")
    page = project / "site" / "sources" / "tilelang" / "index.html"

    monkeypatch.delenv("INJECT_MARKUP", raising=False)
    site.build(project, quiet=False)
    clean = page.read_text(encoding="utf-8")
    assert "build cache" in caplog.text and "clean 0 hit(s)" in caplog.text  # the first build filled the cache

    hostile = '<p id="x1">added</p><script>alert(1)</script><img src="https://evil.example/t.png" onerror="alert(2)"><a href="javascript:alert(3)">x</a>'
    for attempt in ("first", "again"):  # cleaned afresh, then reused: the reused output is the clean one
        monkeypatch.setenv("INJECT_MARKUP", hostile)
        caplog.clear()
        site.build(project, quiet=False)
        built = page.read_text(encoding="utf-8")
        assert '<p id="x1">added</p>' in built, attempt
        for gone in ("<script>alert", "evil.example", "javascript:"):
            assert gone not in built, (attempt, gone)
        assert not re.search(r"\sonerror\s*=", built), attempt  # (the site's own script sets `worker.onerror`)
        assert clean_page(hostile) in built
    assert re.search(r"clean [1-9]\d* hit\(s\) 0 miss\(es\)", caplog.text)  # the second time, every page's cleaning came from the cache

    monkeypatch.delenv("INJECT_MARKUP")
    site.build(project)
    assert page.read_text(encoding="utf-8") == clean


_WITH_MEMO = r"""
import json, sys
import jieba
from pathlib import Path
from corpus_build import registry, render

words = render.search_vocabulary(registry.load(sys.argv[1]), cuts_memo=Path(sys.argv[2]))
print(json.dumps({"words": words, "loaded": jieba.dt.initialized}, ensure_ascii=False))
"""


def test_a_rebuild_whose_titles_were_cut_before_loads_no_jieba_dictionary(tmp_path):
    corpus_dir = write_corpus(tmp_path)
    path = corpus_dir / "01-gpu" / "sources.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("title: CUDA C++ Programming Guide", "title: 毕昇编译器用户指南"), encoding="utf-8")
    memo = tmp_path / ".corpus-build" / "jieba_user_dict.cuts.json"

    def run() -> dict:
        result = subprocess.run([sys.executable, "-c", _WITH_MEMO, str(corpus_dir), str(memo)], capture_output=True, text=True, cwd=ROOT, timeout=300)
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout.strip().splitlines()[-1])

    first = run()
    assert "毕昇" in first["words"] and first["loaded"] and memo.is_file()
    again = run()
    assert again == {"words": first["words"], "loaded": False}  # every title's cut came from the memo
    for broken in ("{not json", json.dumps({"stamp": {"jieba": "0.0"}, "cuts": {"毕昇编译器用户指南": ["毕昇编译器用户指南"]}}, ensure_ascii=False)):
        memo.write_text(broken, encoding="utf-8")  # unreadable, or made by another jieba: cut again
        assert run() == first
    saved = json.loads(memo.read_text(encoding="utf-8"))
    saved["cuts"]["毕昇编译器用户指南"] = ["毕昇", "编译器", "用户指南", "多余"]  # not a cut of its text: the memo is not used
    memo.write_text(json.dumps(saved, ensure_ascii=False), encoding="utf-8")
    assert run() == first
