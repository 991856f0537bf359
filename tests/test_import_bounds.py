"""`corpus-build import` on hostile and large exports (issue 36, items 6, 7 and 9).

A file that is no file (a FIFO, a link to /dev/zero, a device) is refused before a byte is
read; a large export is imported in time linear in its size, with progress on a terminal;
one bad reference (a line that is no URL, a NUL, a 300,000-character note) is refused
alone, named by its place in the export, and a dry run refuses exactly what the real run
refuses, in the same words.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

from corpus_build import registry
from corpus_build.cli import main
from corpus_build.registry import import_formats, importer
from corpus_build.registry.add import _entry_yaml
from tests.test_import import entries, make_project
from tests.test_progress import _on_a_terminal

CLI = [sys.executable, "-m", "corpus_build"]


def _limited() -> None:
    """The child's address space capped at 1 GB: a reader of /dev/zero fails fast instead of filling the machine."""
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def _import(project: Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, "--project", str(project), "import", *args], capture_output=True, text=True, timeout=timeout, preexec_fn=_limited)


# --- item 6: files that are not files, bounded reads, progress ------------------------------------------


@pytest.mark.parametrize("kind", ["fifo", "dev-zero-link", "device", "folder"])
def test_import_refuses_what_is_not_a_regular_file_in_one_line(tmp_path, kind):
    project = make_project(tmp_path / "p")
    export = tmp_path / "refs.bib"
    if kind == "fifo":
        os.mkfifo(export)
    elif kind == "dev-zero-link":
        export.symlink_to("/dev/zero")
    elif kind == "device":
        export = Path("/dev/null")
    else:
        export.mkdir()
    before = (project / "corpus" / "01-main" / "sources.yaml").read_bytes()
    started = time.monotonic()
    result = _import(project, str(export), "--section", "01", "--dry-run")
    assert time.monotonic() - started < 30
    assert result.returncode == 2, result.stderr[-2000:]
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1, result.stderr[-2000:]
    expected = {"fifo": "is a named pipe (FIFO), not a regular file", "dev-zero-link": "is a device, not a regular file",
                "device": "is a device, not a regular file", "folder": "is a folder"}[kind]
    assert expected in result.stderr
    assert (project / "corpus" / "01-main" / "sources.yaml").read_bytes() == before


def test_an_export_over_the_size_limit_is_refused_before_it_is_read(tmp_path):
    project = make_project(tmp_path / "p")
    export = tmp_path / "huge.json"
    with open(export, "wb") as handle:  # sparse: no disk used
        handle.truncate(import_formats.MAX_IMPORT_BYTES + 1)
    result = _import(project, str(export), "--section", "01")
    assert result.returncode == 2 and "over the limit of 67,108,864 for an export" in result.stderr, result.stderr[-2000:]
    assert "Traceback" not in result.stderr


def test_import_shows_its_progress_on_a_terminal(tmp_path):
    project = make_project(tmp_path / "p")
    listing = tmp_path / "urls.txt"
    listing.write_text("".join(f"https://example.org/page/{i} Page {i}\n" for i in range(300)), encoding="utf-8")
    shown = _on_a_terminal([*CLI, "--project", str(project), "import", str(listing), "--section", "02", "--dry-run"], tmp_path)
    frames = [frame.strip() for frame in shown.replace("\r\n", "\n").split("\r") if frame.strip()]
    assert "planning entries 300/300" in frames, frames
    assert any(f.startswith("checking the registry") for f in frames), frames


def test_an_upper_case_scheme_is_normalised_and_a_bad_line_refuses_only_itself(tmp_path, capsys):
    project = make_project(tmp_path / "p")
    listing = tmp_path / "urls.txt"
    listing.write_text("# list\nHTTPS://Example.ORG/Some/Page A page\nftp://example.org/file\nnot a url at all\nHttp://WWW.Example.net/x?Q=1\n"
                       "https://example.org/\x1b[2Jpage\nhttps:///no-host\n", encoding="utf-8")
    assert main(["--project", str(project), "import", str(listing), "--section", "02"]) == 1
    err = capsys.readouterr().err
    for number, shown in ((3, "ftp://example.org/file"), (4, "not"), (7, "https:///no-host")):
        assert f"error: urls.txt:{number}: skipped '{shown}': not an http(s) URL" in err, err
    assert "urls.txt:6: skipped" in err and "\x1b" not in err  # an escape sequence is refused, and shown escaped
    got = entries(project, "02-more")
    assert {e["url"] for e in got.values()} == {"https://example.org/Some/Page", "http://www.example.net/x?Q=1"}


def _same_page_list(path: Path, count: int) -> Path:
    path.write_text("".join(f"https://example.org/item?id={i}\n" for i in range(count)), encoding="utf-8")
    return path


class _CountingSet(set):
    lookups = 0

    def __contains__(self, item: object) -> bool:
        _CountingSet.lookups += 1
        return super().__contains__(item)


def test_numbering_ids_that_share_a_base_is_linear(tmp_path, monkeypatch):
    """URLs of one page, without titles, all derive the id `example-item`: numbering them must not
    count from 2 again for each (30,000 such lines were 450 million lookups, minutes)."""
    corpus = registry.load(make_project(tmp_path / "p") / "corpus")
    monkeypatch.setattr(importer, "set", _CountingSet, raising=False)  # the module's `set(...)` of taken ids counts its lookups
    _CountingSet.lookups = 0
    plan = importer.plan_import(corpus, _same_page_list(tmp_path / "same.txt", 2000), "02")
    assert [e["id"] for e in plan.entries[:3]] == ["example-item", "example-item-2", "example-item-3"]
    assert plan.entries[-1]["id"] == "example-item-2000"
    print(f"{_CountingSet.lookups:,} lookups of taken ids for 2,000 entries")
    assert _CountingSet.lookups <= 3 * 2000  # quadratic: ~2,000,000


def test_a_bibtex_import_costs_about_what_parsing_the_file_costs(tmp_path):
    """The LaTeX decoder runs only on values with LaTeX in them, and the YAML is written by libyaml: planning
    2,000 entries costs a few times bibtexparser's own parse (it was ~29 times)."""
    import bibtexparser

    corpus = registry.load(make_project(tmp_path / "p") / "corpus")
    export = tmp_path / "refs.bib"
    export.write_text("\n".join(
        f"@article{{key{i},\n  title = {{Tiled matrix multiply on {{GPU}}s, part {i}}},\n  author = {{Lovelace, Ada and Babbage, Charles}},\n"
        f"  journal = {{Journal of Things}},\n  year = {{2020}},\n  doi = {{10.1234/abc.{i}}},\n  url = {{https://example.org/papers/{i}}},\n}}\n"
        for i in range(2000)), encoding="utf-8")
    text = export.read_text(encoding="utf-8")
    parse = plan = 1e9
    for _ in range(2):
        started = time.process_time()
        bibtexparser.parse_string(text)
        parse = min(parse, time.process_time() - started)
        started = time.process_time()
        result = importer.plan_import(corpus, export, "02")
        plan = min(plan, time.process_time() - started)
    assert len(result.entries) == 2000 and result.entries[7]["title"] == "Tiled matrix multiply on GPUs, part 7"
    print(f"bibtexparser.parse_string {parse:.2f} s, plan_import {plan:.2f} s, ratio {plan / parse:.1f}")
    assert plan < 10 * parse  # 28.9 before (pylatexenc on every value, PyYAML's pure-Python emitter one entry at a time), 5.5 after


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("abcXYZ 019.,;:!?'\"()[]<>@*+=|/-\n\t{}é中\u00a0")), max_size=24))
def test_the_latex_fast_path_gives_what_the_decoder_gives(value):
    decoder = import_formats._latex_decoder()
    try:
        expected = str(decoder.latex_to_text(import_formats._BARE_PERCENT.sub(r"\\%", value)))
    except Exception:  # noqa: BLE001 - the reader keeps the value as written then
        expected = value
    assert import_formats._bib_text(value) == expected


# --- item 7: a CSL-JSON file nested 100,000 deep ------------------------------------------------------------


def test_csl_json_nested_100000_deep_is_a_clean_error(tmp_path):
    project = make_project(tmp_path / "p")
    export = tmp_path / "deep.json"
    export.write_text('[{"title": "x", "note": "[[[ in a string is text"}, ' + "[" * 100_000 + "]" * 100_000 + "]", encoding="utf-8")
    result = _import(project, str(export), "--section", "01", "--dry-run")
    assert result.returncode == 2 and "Traceback" not in result.stderr and "RecursionError" not in result.stderr, result.stderr[-3000:]
    assert "deep.json:1: not a CSL-JSON export: nested more than 64 levels deep" in result.stderr
    assert import_formats.json_depth_problem('[{"a": "[[[[[["}]', limit=2) is None  # brackets in strings are text


# --- item 9: a dry run refuses what the real run refuses, in the same words -----------------------------------


HOSTILE_CSL = [
    {"type": "webpage", "title": "Fine page", "URL": "https://example.org/fine"},
    {"type": "webpage", "title": "A\u0000B title", "URL": "https://example.org/nul"},
    {"type": "webpage", "title": "Huge note", "URL": "https://example.org/huge", "note": "x" * 300_000},
    {"type": "webpage", "title": "Lone \ud800 surrogate", "URL": "https://example.org/surrogate"},
    {"type": "webpage", "title": "Line\u2028separator and \u0085 next line", "URL": "https://example.org/breaks", "note": "one\ntwo\u2028three\n"},
    {"type": "webpage", "title": "T" * 2_500, "URL": "https://example.org/long-title"},
    {"type": "webpage", "title": "Also fine", "URL": "https://example.org/also-fine", "note": "<p>A note</p>\r\n<p>typed on Windows</p>"},
]


def _errors(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("error:")]


def test_a_dry_run_refuses_what_the_real_run_refuses_with_the_same_message(tmp_path):
    project = make_project(tmp_path / "p")
    export = tmp_path / "zotero.json"
    export.write_text(json.dumps(HOSTILE_CSL), encoding="utf-8")  # ensure_ascii: "\ud800" stays a JSON escape
    sources = project / "corpus" / "02-more" / "sources.yaml"
    before = sources.read_bytes()

    dry = _import(project, str(export), "--section", "02", "--dry-run")
    assert sources.read_bytes() == before
    real = _import(project, str(export), "--section", "02")
    for result in (dry, real):
        assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr[-3000:]
    assert _errors(dry.stderr) == _errors(real.stderr) and len(_errors(real.stderr)) == 4, real.stderr[-3000:]
    said = "\n".join(_errors(real.stderr))
    assert "zotero.json: item 2: skipped 'A\\x00B title': field 'title' holds the character U+0000" in said
    assert "zotero.json: item 3: skipped 'Huge note': field 'note' is 300,000 characters long" in said
    assert "zotero.json: item 4: skipped" in said and "U+D800" in said
    assert "zotero.json: item 6: skipped" in said and "field 'title' is 2,500 characters long" in said
    assert "sources.yaml" not in said  # the importer never blames the user's file for its own output
    # What the dry run showed is what the real run appended, and it reads back as it was meant.
    written = sources.read_text(encoding="utf-8")  # before was `[]`: the file is now only what the import wrote
    assert dry.stdout.endswith(written) and written.count("- id: ") == 3
    got = entries(project, "02-more")
    assert set(got) == {"fine-page", "also-fine", "line-separator-and-next-line"}
    breaks = got["line-separator-and-next-line"]  # a title is one line (its breaks are spaces); a note's lines are lines
    assert breaks["title"] == "Line separator and next line" and breaks["note"] == "one\ntwo\nthree"
    assert got["also-fine"]["note"] == "A note\n\ntyped on Windows"
    assert registry.check(project / "corpus") is not None and not [p for p in registry.check(project / "corpus") if p.severity == "error"]


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(["title", "note", "venue", "verify_note"]),
                       st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\ufffe\uffff"), max_size=40), min_size=1),
       st.lists(st.text(st.characters(blacklist_categories=("Cs",)), max_size=12), max_size=3))
@example({"note": "a\n\n\x85"}, [])  # PyYAML wrote `|+` … `...`: a document end in the middle of sources.yaml
@example({"note": "x\x85y\nz"}, [])  # as a `|` block, NEL came back as a newline
@example({"title": "a\u2028b"}, [])  # single-quoted, U+2028 came back as a space
@example({"note": "two lines\nand a newline at the end\n"}, [])
def test_every_entry_the_importer_writes_reads_back_as_it_was(fields, tags):
    entry = {"id": "x", **fields, "tags": tags}
    text = _entry_yaml(entry)
    assert "\n...\n" not in text  # no document end in the middle of a list
    assert yaml.load(text, Loader=yaml.CSafeLoader) == [entry]


# --- item 9: adopt --dry-run ----------------------------------------------------------------------------------


def _placeholder(source_id: str) -> str:
    return f"- id: {source_id}\n  title: example.org/{source_id}\n  url: https://example.org/{source_id}\n  kind: article\n  lang: en\n  note: A page.\n"


def _adopt_project(tmp_path: Path, titles: dict[str, str]) -> Path:
    from corpus_build.core.provenance import Document, Extractor, Provenance, Status, write_provenance

    project = make_project(tmp_path / "p")
    (project / "corpus" / "02-more" / "sources.yaml").write_text("".join(_placeholder(i) for i in titles), encoding="utf-8")
    corpus = registry.load(project / "corpus")
    for source_id, title in titles.items():
        source = corpus.source(source_id)
        write_provenance(corpus.raw_dir(source), Provenance(
            id=source_id, kind="article", cited_url=source.url, status=Status.OK, fetched_at="2026-11-30T02:00:00Z",
            document=Document(title=title, facts_from="citation-meta"), extractor=Extractor("corpus-build-html")))
    return project


def test_adopt_dry_run_says_what_the_real_run_does_for_a_hostile_mirror_title(tmp_path):
    titles = {"nul": "A\x00B", "long": "T" * 3000, "c1": "x\x80y", "good": "Tiles: A Study"}
    project = _adopt_project(tmp_path, titles)
    sources = project / "corpus" / "02-more" / "sources.yaml"
    before = sources.read_bytes()
    adopt = [*CLI, "--project", str(project), "adopt"]
    dry = subprocess.run([*adopt, "--dry-run"], capture_output=True, text=True, timeout=120)
    assert sources.read_bytes() == before
    real = subprocess.run(adopt, capture_output=True, text=True, timeout=120)
    for result in (dry, real):
        assert result.returncode == 0 and "Traceback" not in result.stderr, result.stdout + result.stderr
    assert dry.stdout.replace("would write", "wrote") == real.stdout
    assert "nul: nothing to adopt: the mirror's title holds the character U+0000, which a registry file cannot keep; write the title yourself" in real.stdout
    assert "long: nothing to adopt: the mirror's title field 'title' is 3,000 characters long" in real.stdout
    assert "c1: nothing to adopt: the mirror's title holds the character U+0080" in real.stdout
    assert "good: wrote title 'Tiles: A Study'" in real.stdout
    assert registry.load(project / "corpus").source("good").title == "Tiles: A Study"


def test_adopt_dry_run_runs_the_real_run_s_registry_check(tmp_path, monkeypatch):
    """What the per-source test misses, the registry's check catches, in a dry run as in a real one, in the same words."""
    from corpus_build.core.errors import AddError
    from corpus_build.registry import adopt, yamlfile

    project = _adopt_project(tmp_path, {"c1": "x\x80y", "good": "Tiles: A Study"})
    monkeypatch.setattr(yamlfile, "unwritable", lambda text: None, raising=False)  # as if the per-source test did not know U+0080
    sources = project / "corpus" / "02-more" / "sources.yaml"
    before = sources.read_bytes()
    said = []
    for dry_run in (True, False):
        with pytest.raises(AddError) as refused:
            adopt.adopt(project / "corpus", dry_run=dry_run)
        said.append(str(refused.value))
        assert sources.read_bytes() == before
    assert said[0] == said[1] and "nothing was adopted: the registry would not validate" in said[0], said


def test_add_refuses_a_note_that_is_not_utf8_in_one_line(tmp_path):
    """A command-line byte that is not UTF-8 reaches Python as a lone surrogate: refused, never a traceback nor a broken file."""
    project = make_project(tmp_path / "p")
    sources = project / "corpus" / "02-more" / "sources.yaml"
    before = sources.read_bytes()
    for note in (b"bad \xff byte", b"bell \x07 character"):
        result = subprocess.run([*CLI, "--project", str(project), "add", "https://example.org/x", "--section", "02", "--offline", "--note", note],
                                capture_output=True, text=True, timeout=120)
        assert result.returncode == 2 and "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1, result.stderr[-2000:]
        assert "the note holds the character U+" in result.stderr
    assert sources.read_bytes() == before


def test_adopt_never_overwrites_an_edit_saved_while_it_checks_the_registry(tmp_path, monkeypatch):
    """As for add and import: the put-back of a refused adoption must not overwrite what the user saved during the check."""
    from corpus_build.core.errors import AddError
    from corpus_build.registry import adopt, reader, yamlfile

    project = _adopt_project(tmp_path, {"c1": "x\x80y", "good": "Tiles: A Study"})
    monkeypatch.setattr(yamlfile, "unwritable", lambda text: None, raising=False)  # as in the test above: the check refuses U+0080
    sources = project / "corpus" / "02-more" / "sources.yaml"
    real_check = reader.check

    def check_while_the_user_saves(corpus_root, **kwargs):  # the real check; the user saves during it
        problems = real_check(corpus_root, **kwargs)
        sources.write_text(sources.read_text(encoding="utf-8") + "# saved by the user during the check\n", encoding="utf-8")
        return problems

    monkeypatch.setattr(reader, "check", check_while_the_user_saves)
    with pytest.raises(AddError) as refused:
        adopt.adopt(project / "corpus")
    assert "# saved by the user during the check" in sources.read_text(encoding="utf-8")
    assert "changed while checked" in str(refused.value) and "by hand" in str(refused.value)
