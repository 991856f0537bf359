"""`corpus-build import` of files real tools wrote: Zotero-shaped CSL-JSON, pandoc's BibTeX/biblatex, rispy's RIS."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import rispy
import yaml

from corpus_build import registry
from corpus_build.cli import main

EXISTING = """\
# Section 01: hand-written, with comments that must survive.
- id: flashattention
  title: FlashAttention   # arXiv paper already cited
  url: https://arxiv.org/abs/2205.14135v2
  kind: paper
  lang: en
  note: Already here.

- id: cutlass
  title: CUTLASS
  url: https://github.com/NVIDIA/cutlass
  note: 已经在了。
"""

# Shaped like Zotero's "Export Collection… > CSL JSON": Zotero item URIs as ids, `note` is
# the Extra field (with Zotero's own `arXiv:` line), dates as date-parts with strings.
ZOTERO = [
    {"id": "http://zotero.org/users/1234/items/AAAA1111", "type": "article-journal", "title": "FlashAttention: Fast and Memory-Efficient Exact Attention with IO-Awareness",
     "container-title": "NeurIPS", "author": [{"family": "Dao", "given": "Tri"}], "issued": {"date-parts": [["2022", 5, 27]]},
     "URL": "http://arxiv.org/abs/2205.14135", "note": "arXiv: 2205.14135"},
    {"id": "http://zotero.org/users/1234/items/BBBB2222", "type": "paper-conference", "title": "Ansor: Generating High-Performance Tensor Programs for Deep Learning",
     "container-title": "OSDI", "author": [{"family": "Zheng", "given": "Lianmin"}, {"family": "Jia", "given": "Chengfei"}],
     "issued": {"date-parts": [["2020", 11]]}, "DOI": "10.5555/3488766.3488815", "abstract": "Not an annotation.",
     "note": "调度搜索空间的经典论文，读第 4 节。", "keyword": "compiler, autotuning"},
    {"id": "http://zotero.org/users/1234/items/CCCC3333", "type": "webpage", "title": "Triton language reference",
     "URL": "https://triton-lang.org/main/python-api/triton.language.html", "author": [{"literal": "OpenAI"}],
     "issued": {"date-parts": [["2024"]]}, "accessed": {"date-parts": [["2026", 1, 2]]}, "note": "<p>The <strong>API</strong> we compare against.</p>"},
    {"id": "http://zotero.org/users/1234/items/DDDD4444", "type": "software", "title": "tilelang", "URL": "https://github.com/tile-ai/tilelang"},
    {"id": "http://zotero.org/users/1234/items/EEEE5555", "type": "book", "title": "A book with no address"},
    {"id": "http://zotero.org/users/1234/items/FFFF6666", "type": "webpage", "title": "Triton again", "URL": "https://triton-lang.org/main/python-api/triton.language.html/"},
    {"id": "http://zotero.org/users/1234/items/GGGG7777", "type": "article-journal", "title": "Same DOI, other URL",
     "DOI": "https://doi.org/10.5555/3488766.3488815", "URL": "https://dl.acm.org/doi/10.5555/3488766.3488815"},
]


def make_project(root: Path) -> Path:
    corpus = root / "corpus"
    for folder in ("01-main", "02-more"):
        (corpus / folder).mkdir(parents=True)
        (corpus / folder / "section.yaml").write_text(f"title: {folder}\n", encoding="utf-8")
    (corpus / "corpus.yaml").write_text("title: Import test\nlanguages: [zh, en]\n", encoding="utf-8")
    (corpus / "01-main" / "sources.yaml").write_text(EXISTING, encoding="utf-8")
    (corpus / "02-more" / "sources.yaml").write_text("[]\n", encoding="utf-8")
    return root


def entries(project: Path, folder: str = "01-main") -> dict[str, dict]:
    return {e["id"]: e for e in yaml.safe_load((project / "corpus" / folder / "sources.yaml").read_text(encoding="utf-8"))}


def test_zotero_csl_json(tmp_path, capsys):
    project = make_project(tmp_path)
    export = tmp_path / "My Library.json"
    export.write_text(json.dumps(ZOTERO, ensure_ascii=False, indent=2), encoding="utf-8")
    sources = project / "corpus" / "01-main" / "sources.yaml"
    before = sources.read_text(encoding="utf-8")

    assert main(["--project", str(project), "import", str(export), "--section", "01"]) == 1  # one entry had no address
    captured = capsys.readouterr()
    after = sources.read_text(encoding="utf-8")
    assert after.startswith(before)  # every existing byte, comments included
    assert "My Library.json: item 1: skipped" in captured.out and "'flashattention' (01-main/sources.yaml:2)" in captured.out
    assert "My Library.json: item 6: skipped" in captured.out and "earlier in this file" in captured.out
    assert "My Library.json: item 7: skipped" in captured.out  # same DOI as item 2
    assert "item 5: skipped 'A book with no address': no URL, DOI or arXiv id" in captured.err

    got = entries(project)
    ansor = next(e for e in got.values() if e["title"].startswith("Ansor"))
    assert ansor["url"] == "https://doi.org/10.5555/3488766.3488815" and ansor["kind"] == "paper"
    assert ansor["authors"] == ["Zheng, Lianmin", "Jia, Chengfei"] and ansor["date"] == "2020-11" and ansor["venue"] == "OSDI"
    assert ansor["doi"] == "10.5555/3488766.3488815" and ansor["tags"] == ["compiler", "autotuning"]
    assert ansor["note"] == "调度搜索空间的经典论文，读第 4 节。" and ansor["lang"] == "zh"
    triton = next(e for e in got.values() if e["title"] == "Triton language reference")
    assert triton["note"] == "The API we compare against." and triton["kind"] == "article" and triton["date"] == "2024"
    repo = got["tilelang"]
    assert repo["kind"] == "repo" and repo["url"] == "https://github.com/tile-ai/tilelang"
    assert len(got) == 2 + 3
    corpus = registry.load(project / "corpus")  # the result validates
    assert "date: '2024'" in after  # quoted: YAML would read a bare 2024 as a number

    # Importing again finds everything already there.
    assert main(["--project", str(project), "import", str(export), "--section", "01"]) == 1
    assert sources.read_text(encoding="utf-8") == after
    assert len(registry.load(project / "corpus").sources) == len(corpus.sources)


def test_dry_run_changes_nothing(tmp_path, capsys):
    project = make_project(tmp_path)
    export = tmp_path / "zotero.json"
    export.write_text(json.dumps(ZOTERO[1:4]), encoding="utf-8")
    sources = project / "corpus" / "02-more" / "sources.yaml"
    assert main(["--project", str(project), "import", str(export), "--section", "02-more", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "would add 3 entries to corpus/02-more/sources.yaml" in out and "- id: tilelang" in out
    assert sources.read_text(encoding="utf-8") == "[]\n"
    assert main(["--project", str(project), "import", str(export), "--section", "02-more"]) == 0
    assert len(entries(project, "02-more")) == 3  # an empty `[]` file becomes a list of entries


@pytest.mark.skipif(not shutil.which("pandoc"), reason="pandoc is not installed (apt-get install pandoc); it writes the BibTeX under test")
@pytest.mark.parametrize("flavour", ["biblatex", "bibtex"])
def test_bibtex_written_by_pandoc(tmp_path, capsys, flavour):
    project = make_project(tmp_path)
    csl = [dict(item) for item in ZOTERO[1:4]]
    for item in csl:
        item["id"] = item["title"].split(":")[0].split()[0].lower() + "2020"  # citation keys, as Better BibTeX makes them
    csl[0]["annote"] = "My own reading note on Ansor."
    source = tmp_path / "refs.json"
    source.write_text(json.dumps(csl, ensure_ascii=False), encoding="utf-8")
    bib = tmp_path / "refs.bib"
    subprocess.run(["pandoc", "-f", "csljson", "-t", flavour, "-s", str(source), "-o", str(bib)], check=True)
    code = main(["--project", str(project), "import", str(bib), "--section", "02"])
    got = entries(project, "02-more")
    if flavour == "bibtex":
        # pandoc's plain BibTeX keeps no url or doi: every entry is reported, none invented.
        assert code == 1 and got == {}
        err = capsys.readouterr().err
        assert err.count("no URL, DOI or arXiv id") == 3 and "refs.bib:1: skipped" in err
        return
    assert code == 0, capsys.readouterr()
    ansor = got["ansor2020"]
    assert ansor["title"] == "Ansor: Generating High-Performance Tensor Programs for Deep Learning"  # braces undone
    assert ansor["note"] == "My own reading note on Ansor."  # `annote` is the annotation
    assert ansor["authors"] == ["Zheng, Lianmin", "Jia, Chengfei"] and ansor["date"] == "2020-11"
    assert ansor["doi"] == "10.5555/3488766.3488815" and ansor["kind"] == "paper" and ansor["venue"] == "OSDI"
    assert got["tilelang"]["kind"] == "repo"  # a GitHub URL names it better than a citation key
    assert got["triton2020"]["url"] == "https://triton-lang.org/main/python-api/triton.language.html"
    registry.load(project / "corpus")


def test_ris_written_by_rispy(tmp_path, capsys):
    project = make_project(tmp_path)
    ris = tmp_path / "export.ris"
    ris.write_text(rispy.dumps([
        {"type_of_reference": "JOUR", "title": "TVM: An Automated End-to-End Optimizing Compiler", "authors": ["Chen, Tianqi", "Moreau, Thierry"],
         "year": "2018", "date": "2018/10/08/", "doi": "10.5555/3291168.3291211", "urls": ["https://www.usenix.org/conference/osdi18/presentation/chen"],
         "notes": ["The compiler TileLang grew out of."], "keywords": ["compiler", "tvm"], "journal_name": "OSDI"},
        {"type_of_reference": "ELEC", "title": "Same as existing", "urls": ["https://github.com/NVIDIA/cutlass/"]},
        {"type_of_reference": "RPRT", "title": "TileLang paper", "urls": ["https://arxiv.org/pdf/2504.17577v1.pdf"]},
    ]), encoding="utf-8")
    assert main(["--project", str(project), "import", str(ris), "--section", "01"]) == 0
    out = capsys.readouterr().out
    assert "export.ris:" in out and "skipped 'Same as existing': already in the registry as 'cutlass'" in out
    got = entries(project)
    tvm = next(e for e in got.values() if e["title"].startswith("TVM"))
    assert tvm["date"] == "2018-10-08" and tvm["authors"] == ["Chen, Tianqi", "Moreau, Thierry"] and tvm["note"] == "The compiler TileLang grew out of."
    assert tvm["tags"] == ["compiler", "tvm"] and tvm["kind"] == "paper" and tvm["venue"] == "OSDI"
    assert got["arxiv-2504.17577"]["arxiv"] == "2504.17577" and got["arxiv-2504.17577"]["kind"] == "paper"


def test_url_list_and_rollback(tmp_path, capsys):
    project = make_project(tmp_path)
    listing = tmp_path / "urls.txt"
    listing.write_text("# reading list\nhttps://github.com/tile-ai/tilelang\nhttps://arxiv.org/abs/2205.14135\n\nhttps://example.org/post Some post\n", encoding="utf-8")
    assert main(["--project", str(project), "import", str(listing), "--section", "02"]) == 0
    got = entries(project, "02-more")
    assert set(got) == {"tilelang", "some-post"} and got["some-post"]["title"] == "Some post"
    assert "urls.txt:3: skipped" in capsys.readouterr().out

    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"type": "webpage", "title": "Fine", "URL": "https://example.org/a%20b"},
                               {"type": "webpage", "title": "Spaced", "URL": "https://example.org/with space"}]), encoding="utf-8")
    sources = project / "corpus" / "02-more" / "sources.yaml"
    before = sources.read_bytes()
    assert main(["--project", str(project), "import", str(bad), "--section", "02"]) == 1
    err = capsys.readouterr().err
    # The bad reference is refused alone, named by its place in bad.json (issue 36); the good one is imported.
    assert "bad.json: item 2: skipped 'Spaced': its URL contains spaces" in err and "sources.yaml:" not in err.split("error:", 1)[1]
    assert sources.read_bytes().startswith(before)
    assert set(entries(project, "02-more")) == {"tilelang", "some-post", "fine"}


def test_bad_files_get_one_clear_message(tmp_path, capsys):
    project = make_project(tmp_path)
    broken = tmp_path / "broken.json"
    broken.write_text('[{"title": "x",}', encoding="utf-8")
    assert main(["--project", str(project), "import", str(broken), "--section", "01"]) == 2
    assert "broken.json:1: not valid JSON" in capsys.readouterr().err
    bib = tmp_path / "broken.bib"
    bib.write_text("@article{ok, title={Fine}, url={https://example.org/a}}\n\n@article{bad, title = {Unclosed\n", encoding="utf-8")
    assert main(["--project", str(project), "import", str(bib), "--section", "01"]) == 2
    assert "broken.bib:3: BibTeX that cannot be parsed" in capsys.readouterr().err
    assert main(["--project", str(project), "import", str(tmp_path / "missing.bib"), "--section", "01"]) == 2
    assert main(["--project", str(project), "import", str(bib), "--section", "99"]) == 1
    assert "no section '99'" in capsys.readouterr().err


needs_pandoc = pytest.mark.skipif(not shutil.which("pandoc"), reason="pandoc is not installed (apt-get install pandoc); it writes the files under test")


def pandoc(source: Path, target: Path, src: str, dst: str) -> Path:
    subprocess.run(["pandoc", "-f", src, "-t", dst, "-s", str(source), "-o", str(target)], check=True)
    return target


@needs_pandoc
def test_percent_in_a_bibtex_url_is_not_a_comment(tmp_path, capsys):
    # pandoc writes `url = {https://example.org/a%20b}`: a `%` in a braced value is text, not a LaTeX comment.
    project = make_project(tmp_path)
    csl = tmp_path / "refs.json"
    csl.write_text(json.dumps([
        {"id": "spaced2024", "type": "webpage", "title": "Spaced path", "URL": "https://example.org/docs/a%20b"},
        {"id": "other2024", "type": "webpage", "title": "Another spaced path", "URL": "https://example.org/docs/a%20c?q=50%25"},
        {"id": "share2024", "type": "article-journal", "title": "100% of the tiles", "DOI": "10.5555/100%25tiles"},
    ]), encoding="utf-8")
    bib = pandoc(csl, tmp_path / "refs.bib", "csljson", "biblatex")
    assert "%20b" in bib.read_text(encoding="utf-8")
    assert main(["--project", str(project), "import", str(bib), "--section", "02"]) == 0, capsys.readouterr()
    got = entries(project, "02-more")
    assert got["spaced2024"]["url"] == "https://example.org/docs/a%20b"
    assert got["other2024"]["url"] == "https://example.org/docs/a%20c?q=50%25"  # not dropped as a duplicate of the first
    assert got["share2024"]["title"] == "100% of the Tiles"  # pandoc title-cases English titles for biblatex
    assert ": skipped" not in capsys.readouterr().out
    assert got["share2024"]["doi"] == "10.5555/100%25tiles"


def test_bibtex_escapes_and_comments_around_values(tmp_path, capsys):
    project = make_project(tmp_path)
    bib = tmp_path / "hand.bib"
    bib.write_text(
        "% a comment line before the entries\n"
        "@misc{tilde, title = {Caf{\\'e} \\textit{tiles}: 50\\% faster}, url = {https://example.org/~user/a\\_b%2Fc#part}} % after\n"
        "@misc{quoted, title = \"Quoted 20% value\", howpublished = {\\url{https://example.org/q%3Dx}}}\n",
        encoding="utf-8",
    )
    assert main(["--project", str(project), "import", str(bib), "--section", "02"]) == 0, capsys.readouterr()
    got = entries(project, "02-more")
    assert (got["tilde"]["title"], got["tilde"]["url"]) == ("Café tiles: 50% faster", "https://example.org/~user/a_b%2Fc#part")
    assert (got["quoted"]["title"], got["quoted"]["url"]) == ("Quoted 20% value", "https://example.org/q%3Dx")


@needs_pandoc
def test_csl_json_title_markup_becomes_plain_text(tmp_path, capsys):
    # pandoc turns LaTeX markup into CSL-JSON's rich-text tags, as Zotero and citation-js do.
    project = make_project(tmp_path)
    bib = tmp_path / "marked.bib"
    bib.write_text(
        "@article{marked, title = {The \\emph{tile} model of {H}\\textsubscript{2}{O} at n\\textsuperscript{2} scale on \\textsc{Ascend}},"
        " journal = {\\emph{Journal} of Tiles}, url = {https://example.org/marked}}\n"
        "@article{bold, title = {A \\textbf{bold} claim}, url = {https://example.org/bold}}\n",
        encoding="utf-8",
    )
    export = pandoc(bib, tmp_path / "marked.json", "biblatex", "csljson")
    titles = [item["title"] for item in json.loads(export.read_text(encoding="utf-8"))]
    assert any("<i>" in t for t in titles) and any("<b>" in t for t in titles) and any("small-caps" in t for t in titles)
    extra = tmp_path / "zotero.json"  # Zotero's own forms: nocase spans, entities, and a title that only looks like markup
    extra.write_text(json.dumps([
        {"type": "webpage", "title": "<span class=\"nocase\">iPhone</span> kernels &amp; <i>tiles</i>", "URL": "https://example.org/nocase"},
        {"type": "webpage", "title": "When a < b and <script> is text", "URL": "https://example.org/lt"},
    ]), encoding="utf-8")
    assert main(["--project", str(project), "import", str(export), "--section", "02"]) == 0, capsys.readouterr()
    assert main(["--project", str(project), "import", str(extra), "--section", "02"]) == 0, capsys.readouterr()
    got = {e["url"]: e for e in entries(project, "02-more").values()}
    assert got["https://example.org/marked"]["title"] == "The tile model of H₂O at n² scale on Ascend"
    assert got["https://example.org/marked"]["venue"] == "Journal of Tiles"
    assert got["https://example.org/bold"]["title"] == "A bold claim"
    assert got["https://example.org/nocase"]["title"] == "iPhone kernels & tiles"
    assert got["https://example.org/lt"]["title"] == "When a < b and <script> is text"  # no CSL tag: kept as written
    written = (project / "corpus" / "02-more" / "sources.yaml").read_text(encoding="utf-8")
    assert not any(tag in written for tag in ("<i>", "<b>", "<sub>", "<sup>", "<span", "&amp;"))


@pytest.mark.parametrize(
    "name, body, expected",
    [
        ("empty.ris", rispy.dumps([]), "RIS records"),
        ("wrong.ris", "@article{a, title = {Not RIS}, url = {https://example.org/a}}\n", "pass --format bibtex"),
        ("empty.json", "[]", "CSL-JSON items"),
        ("comments.bib", "% nothing here\n@comment{just a comment}\n", "BibTeX entries"),
        ("list.txt", "# a reading list with no URL yet\n", "one http(s) address per line"),
    ],
)
def test_a_file_without_references_is_an_error(tmp_path, capsys, name, body, expected):
    project = make_project(tmp_path)
    export = tmp_path / name
    export.write_text(body, encoding="utf-8")
    before = (project / "corpus" / "01-main" / "sources.yaml").read_bytes()
    assert main(["--project", str(project), "import", str(export), "--section", "01"]) == 2
    err = capsys.readouterr().err
    assert f"{export}: no references found; expected" in err and expected in err and "Traceback" not in err
    assert (project / "corpus" / "01-main" / "sources.yaml").read_bytes() == before


@needs_pandoc
def test_unverified_imports_references_without_an_address(tmp_path, capsys):
    # pandoc's plain BibTeX keeps no url or doi (see test_bibtex_written_by_pandoc): a thesis .bib looks like this.
    project = make_project(tmp_path)
    csl = [dict(item) for item in ZOTERO[1:4]]
    for item in csl:
        item["id"] = item["title"].split(":")[0].split()[0].lower() + "2020"
    source = tmp_path / "refs.json"
    source.write_text(json.dumps(csl, ensure_ascii=False), encoding="utf-8")
    bib = pandoc(source, tmp_path / "thesis.bib", "csljson", "bibtex")
    assert main(["--project", str(project), "import", str(bib), "--section", "02"]) == 1
    err = capsys.readouterr().err
    assert err.count("--unverified") == 3  # the refusal says how to import them anyway

    assert main(["--project", str(project), "import", str(bib), "--section", "02", "--unverified"]) == 0, capsys.readouterr()
    out = capsys.readouterr().out
    assert "imported 3 entries (3 unverified, without an address)" in out
    got = entries(project, "02-more")
    ansor = got["ansor2020"]
    assert "url" not in ansor and ansor["verified"] is False and "thesis.bib:" in ansor["verify_note"]
    assert ansor["title"].startswith("Ansor") and ansor["authors"] == ["Zheng, Lianmin", "Jia, Chengfei"] and ansor["kind"] == "paper"
    corpus = registry.load(project / "corpus")
    assert corpus.source("ansor2020").verified is False and corpus.source("ansor2020").url == ""

    # Importing again adds nothing: known by title while they have no address.
    sources = project / "corpus" / "02-more" / "sources.yaml"
    after = sources.read_text(encoding="utf-8")
    assert main(["--project", str(project), "import", str(bib), "--section", "02", "--unverified"]) == 0
    assert sources.read_text(encoding="utf-8") == after
    assert capsys.readouterr().out.count("which has no address yet") == 3

    # The same reference, now with its address: not a second entry, but a hint where to put it.
    found = tmp_path / "found.json"
    found.write_text(json.dumps([{"type": "paper-conference", "title": ansor["title"], "URL": "https://example.org/ansor.pdf"}]), encoding="utf-8")
    assert main(["--project", str(project), "import", str(found), "--section", "02"]) == 0
    assert "add https://example.org/ansor.pdf to that entry" in capsys.readouterr().out
    assert sources.read_text(encoding="utf-8") == after


def test_an_edit_saved_while_import_checks_the_registry_is_never_overwritten(tmp_path, capsys, monkeypatch):
    """As for add (tests/test_add.py): the put-back after a refused entry, and the second try
    written over it, must not overwrite what the user saved during the check."""
    from corpus_build.registry import reader

    project = make_project(tmp_path)
    sources = project / "corpus" / "02-more" / "sources.yaml"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"type": "webpage", "title": "Fine", "URL": "https://example.org/fine"}]), encoding="utf-8")
    real_check = reader.check

    def check_while_the_user_saves(corpus_root, **kwargs):  # the user saves a half-done edit, then the real check runs
        text = sources.read_text(encoding="utf-8")
        if "# saved by the user" not in text:
            # an entry the user is still typing (its kind not yet right) above what import wrote
            sources.write_text("# saved by the user during the check\n- id: draft\n  title: Draft\n  url: https://example.org/draft\n  kind: not-yet\n" + text, encoding="utf-8")
        return real_check(corpus_root, **kwargs)

    monkeypatch.setattr(reader, "check", check_while_the_user_saves)
    assert main(["--project", str(project), "import", str(bad), "--section", "02"]) == 1
    err = capsys.readouterr().err
    assert "# saved by the user during the check" in sources.read_text(encoding="utf-8")
    assert "changed while it was checked" in err and "remove them by hand" in err, err
