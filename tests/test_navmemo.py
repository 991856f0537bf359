"""The navigation sidebar drawn once per folder for unlisted pages (navmemo.py): the same bytes as drawn per page.

Built twice from one registry, with the memo (the build cache on) and without it
(`build_cache: false`); the sites must be identical. The second project's own nav
makes it hard: it lists one source page (a listed page is drawn for itself), and
links to an address under another source's path (a page whose path a nav address
runs through is drawn for itself too). Both projects hold two pages of the user's own
under docs/assets/, where the config block's search worker lives.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest

from corpus_build import site
from tests.corpus_fixture import write_project

pytestmark = pytest.mark.slow

USER_NAV = """
nav:
  - Home: index.md
  - Sections: sections/index.md
  - TileLang: sources/tilelang.md
  - A link under a source: sources/cuda-guide/notes/
  - Tags: tags.md
"""


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _build(root: Path, caplog: pytest.LogCaptureFixture, *, memo: bool, nav: str = "") -> tuple[dict[str, bytes], str]:
    project = write_project(root)
    config = project / "mkdocs.yml"
    text = config.read_text(encoding="utf-8") + nav
    if not memo:
        text = re.sub(r"^  - corpus\b.*$", "  - corpus:\n      build_cache: false", text, count=1, flags=re.M)
    config.write_text(text, encoding="utf-8")
    for name in ("javascripts/index.md", "guide.md"):  # user pages in the folder the config block links into
        (project / "docs" / "assets" / name).parent.mkdir(parents=True, exist_ok=True)
        (project / "docs" / "assets" / name).write_text(f"# {name}\n\nA page of the user's own.\n", encoding="utf-8")
    caplog.clear()
    site.build(project, quiet=False)
    return _tree(project / "site"), "\n".join(r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("nav", ["", USER_NAV], ids=["plugin-nav", "user-nav"])
def test_the_memo_draws_the_very_sidebar_each_page_would_get(tmp_path, caplog, nav):
    caplog.set_level(logging.INFO, logger="mkdocs.plugins.corpus")
    with_memo, log = _build(tmp_path / "memo", caplog, memo=True, nav=nav)
    without, _ = _build(tmp_path / "plain", caplog, memo=False, nav=nav)
    drawn, pages = (int(n) for n in re.search(r"navigation sidebar drawn (\d+) time\(s\) for (\d+) unlisted page\(s\)", log).groups())
    assert pages > drawn >= 1  # the memo was really used
    assert sorted(with_memo) == sorted(without)
    differ = [path for path in with_memo if with_memo[path] != without[path]]
    assert not differ, f"{len(differ)} page(s) differ: {differ[:5]}"
    if nav:
        tilelang = with_memo["sources/tilelang/index.html"].decode("utf-8")
        assert "md-nav__link--active" in tilelang  # the listed source page marks itself in its sidebar
