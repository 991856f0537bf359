"""Files the tool rewrites (memos, snapshots, the home page, the GitHub cache, a PDF's structure)
are replaced whole through a temporary file made anew: a link planted at the temporary's name, or
at the file's own name (the cache folder and docs/ can come from outside: a CI cache, a
contribution), is never written through onto a file outside the project."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from corpus_build.core import github_api, pdf_structure
from corpus_build.render import offlinelink, stockcut


def _plant(folder: Path, names: list[str], outside: Path) -> None:
    for name in names:
        (folder / name).unlink(missing_ok=True)
        os.symlink(outside, folder / name)


def _outside(tmp_path: Path) -> Path:
    outside = tmp_path / "outside" / "precious.txt"
    outside.parent.mkdir()
    outside.write_text("mine", encoding="utf-8")
    return outside


def _temporaries(path: Path, *extra: str) -> list[str]:
    """The names a writer of `path` takes for its temporary copy (ours, and older ones)."""
    return [f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp", f".{path.name}.{os.getpid()}.tmp", path.name + ".tmp", *extra]


def test_the_word_cuts_memo_is_never_written_through_a_link(tmp_path):
    outside = _outside(tmp_path)
    memo = tmp_path / "cache" / "words.cuts.json"
    memo.parent.mkdir()
    _plant(memo.parent, _temporaries(memo), outside)
    stockcut._write_memo(memo, {"算子融合": ["算子", "融合"]})
    assert outside.read_text(encoding="utf-8") == "mine"
    assert memo.is_file() and not memo.is_symlink()

    _plant(memo.parent, [memo.name], outside)  # the memo itself a link: replaced, not written through
    stockcut._write_memo(memo, {"昇腾": ["昇腾"]})
    assert outside.read_text(encoding="utf-8") == "mine"
    assert not memo.is_symlink() and "昇腾" in memo.read_text(encoding="utf-8")


def test_the_home_pages_offline_link_is_shown_without_writing_through_a_link(tmp_path):
    outside = _outside(tmp_path)
    site = tmp_path / "site"
    site.mkdir()
    home = site / "index.html"
    home.write_text('<main><p class="cb-offline" data-cb-offline hidden><a href="offline.zip">…</a></p></main>', encoding="utf-8")
    _plant(site, _temporaries(home, ".index.html.offline-link"), outside)
    assert offlinelink.reveal(site)
    assert outside.read_text(encoding="utf-8") == "mine"
    assert '<p class="cb-offline">' in home.read_text(encoding="utf-8")


def test_the_github_answer_cache_is_never_written_through_a_link(tmp_path):
    outside = _outside(tmp_path)
    cache = tmp_path / "github"
    cache.mkdir()
    core = github_api._Core(github_api.GitHubConfig(cache_dir=cache))
    url = core.url("repos/tile-ai/tilelang")
    path = core._cache_path(url)
    assert path is not None
    _plant(cache, [f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp"], outside)
    core.store(url, github_api.GitHubResponse(url, 200, {"name": "tilelang"}, {"etag": '"abc"'}))
    assert outside.read_text(encoding="utf-8") == "mine"
    assert core.cached(url)["data"] == {"name": "tilelang"}


def test_a_pdfs_structure_files_are_never_written_through_a_link(tmp_path):
    import pymupdf

    outside = _outside(tmp_path)
    folder = tmp_path / "raw"
    folder.mkdir()
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "Tile programming model", fontsize=11)
    _plant(folder, [pdf_structure.STRUCTURE, pdf_structure.STRUCTURE_MD], outside)
    pdf_structure.write(doc, folder)
    assert outside.read_text(encoding="utf-8") == "mine"
    assert "Tile programming model" in (folder / pdf_structure.STRUCTURE_MD).read_text(encoding="utf-8")
    assert not (folder / pdf_structure.STRUCTURE).is_symlink()


def test_add_never_writes_the_registry_through_a_link_planted_beside_it(project, tmp_path):
    """A contribution may hold a link named as the registry writer's temporary copy (`add`,
    `adopt` and `links --fix` share it): the entry is added, the file outside untouched."""
    from corpus_build import registry
    from corpus_build.cli import main

    outside = _outside(tmp_path)
    path = project / "corpus" / "01-gpu" / "sources.yaml"
    _plant(path.parent, _temporaries(path, ".sources.yaml.tmp"), outside)
    assert main(["--project", str(project), "add", "https://github.com/NVIDIA/cutlass", "--section", "01-gpu"]) == 0
    assert outside.read_text(encoding="utf-8") == "mine"
    assert registry.load(project / "corpus").source("cutlass").title == "NVIDIA/cutlass"
    assert not path.is_symlink()


def test_the_watch_state_is_never_written_through_a_link(tmp_path):
    from corpus_build.watch import run

    outside = _outside(tmp_path)
    folder = tmp_path / "watch"
    folder.mkdir()
    memo = folder / "memo.json"
    _plant(folder, _temporaries(memo), outside)
    run._write(memo, "{}")
    assert outside.read_text(encoding="utf-8") == "mine" and memo.read_text(encoding="utf-8") == "{}"
