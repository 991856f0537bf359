"""A core install builds the site; a curating command without the `fetch` extra says what to install.

Each test runs corpus-build in a fresh interpreter where the `fetch` extra's libraries cannot be
imported (a meta-path finder refuses them, as if they were never installed), so it sees what a
`pip install corpus-build` without `[fetch]` sees.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from corpus_build.core.extras import EXTRA_OF
from tests.corpus_fixture import write_project

ROOT = Path(__file__).resolve().parents[1]

WITHOUT_FETCH = """
import sys
blocked = {blocked!r}

class Refuse:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in blocked:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None

sys.meta_path.insert(0, Refuse())
from corpus_build.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    blocked = sorted(name for name, extra in EXTRA_OF.items() if extra == "fetch")
    code = WITHOUT_FETCH.format(blocked=blocked)
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, capture_output=True, text=True, timeout=600)


def test_the_site_builds_without_the_fetch_extra(tmp_path):
    project = write_project(tmp_path / "project")
    result = _run("--project", str(project), "build", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (project / "site" / "index.html").is_file()
    assert "Traceback" not in result.stderr


def test_import_without_the_fetch_extra_names_the_extra_in_one_line(tmp_path):
    project = write_project(tmp_path / "project")
    bib = tmp_path / "refs.bib"
    bib.write_text("@article{a, title={A}, url={https://example.org/a}}\n", encoding="utf-8")
    before = sorted(p.read_bytes() for p in (project / "corpus").rglob("*.yaml"))
    result = _run("--project", str(project), "import", str(bib), "--section", "01", cwd=tmp_path)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert lines == ["error: this command needs the `fetch` extra (bibtexparser is not installed): pip install 'corpus-build[fetch]'"]
    assert sorted(p.read_bytes() for p in (project / "corpus").rglob("*.yaml")) == before


def test_help_lists_every_command_without_the_fetch_extra(tmp_path):
    result = _run("--help", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    for command in ("fetch", "links", "import", "attach", "build"):
        assert command in result.stdout
