"""scripts/check_layers.py: the package passes it, and it finds each kind of mistake in a package made here."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

from tests.corpus_fixture import PROJECT_ROOT

SCRIPT = PROJECT_ROOT / "scripts" / "check_layers.py"


def _checker():
    spec = importlib.util.spec_from_file_location("check_layers", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["check_layers"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def _package(root: Path, files: dict[str, str]) -> Path:
    """A corpus_build package under root/ with these modules (path -> source); every folder gets an __init__."""
    for name, text in {"__init__.py": "", **files}.items():
        path = root / "corpus_build" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        for folder in path.relative_to(root / "corpus_build").parents:
            init = root / "corpus_build" / folder / "__init__.py"
            if not init.exists():
                init.write_text("", encoding="utf-8")
        path.write_text(text, encoding="utf-8")
    return root


def test_the_package_is_laid_out_as_its_floors_say():
    result = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, cwd=PROJECT_ROOT, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no upward import, no import between rooms of one floor, no cycle" in result.stdout
    # What the issue asked for: no stage imports the command line, watch knows no site, the registry no network.
    checker = _checker()
    found = checker.imports(checker.modules(PROJECT_ROOT / "src"))
    assert not [i for i in found if i.target == "corpus_build.cli" and i.source != "corpus_build.__main__"]
    assert not [i for i in found if i.source.startswith("corpus_build.watch") and i.target.startswith("corpus_build.render")]
    assert not [i for i in found if i.source.startswith("corpus_build.registry") and i.target.startswith(("corpus_build.fetch", "corpus_build.core.github_api"))]


def test_a_clean_package_passes(tmp_path):
    checker = _checker()
    root = _package(tmp_path, {
        "core/errors.py": "class E(Exception): ...\n",
        "registry/reader.py": "from ..core.errors import E\n",
        "fetch/engine.py": "from ..registry import reader\nfrom ..core import errors\n",
        "render/pages.py": "from .listing import paged\n",
        # A type-only import back is no cycle: it never runs.
        "render/listing.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .pages import PageBuilder\ndef paged(): ...\n",
        "cli.py": "def main():\n    from .fetch import engine\n    from . import publish\n",
        "publish.py": "from .site import engines\n",
        "site/engines.py": "from ..render import pages\n",
    })
    lines, _, _ = checker.problems(root)
    assert lines == []


def test_each_kind_of_mistake_is_named_with_its_file_and_line(tmp_path):
    checker = _checker()
    root = _package(tmp_path, {
        "core/errors.py": "class E(Exception): ...\n",
        "core/model.py": "\n\nfrom ..registry import reader  # up from the ground floor\n",
        "registry/reader.py": "def load():\n    from ..fetch import http  # lazy, still a dependency\n",
        "fetch/http.py": "from ..watch import gather  # a neighbour on the same floor\n",
        "watch/gather.py": "",
        "render/a.py": "def f():\n    from . import b\n",
        "render/b.py": "from .a import f\n",
        "stray.py": "",
        "__init__.py": "from .core import errors\n",
    })
    lines, _, _ = checker.problems(root)
    text = "\n".join(lines)
    assert "corpus_build/core/model.py:3: corpus_build.core.model (ground floor) imports corpus_build.registry.reader from a higher floor (registry)" in text
    assert "corpus_build/registry/reader.py:2: corpus_build.registry.reader (registry) imports corpus_build.fetch.http from a higher floor" in text
    assert "corpus_build/fetch/http.py:1: corpus_build.fetch.http imports corpus_build.watch.gather, another room on its floor (fetch and watch)" in text
    assert "import cycle: 2 modules import each other (render.a, render.b)" in text
    assert "corpus_build.stray is in no room on any floor" in text
    assert "corpus_build/__init__.py:1: the package's __init__ imports corpus_build.core.errors" in text
    # The command fails on them.
    result = subprocess.run([sys.executable, str(SCRIPT), "--root", str(root)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 1 and f"{len(lines)} problem(s)" in result.stdout


def test_importing_a_module_counts_its_packages_too(tmp_path):
    """A cycle through a package's __init__ (importing site.x runs site/__init__.py) is a cycle."""
    checker = _checker()
    root = _package(tmp_path, {
        "site/__init__.py": "from .engines import build\n",
        "site/engines.py": "def build():\n    from ..cli import main\n",  # also an upward import
        "site/cache.py": "",
        "cli.py": "from .site import cache\ndef main(): ...\n",
    })
    lines, _, _ = checker.problems(root)
    assert any(line.startswith("import cycle: 3 modules import each other (cli, site, site.engines)") for line in lines), lines
