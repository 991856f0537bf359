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
    assert "contains spaces" in err and "nothing imported" in err
    assert sources.read_bytes() == before  # rolled back


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
