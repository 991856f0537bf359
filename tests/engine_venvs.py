"""Virtual environments with another site engine and no `mkdocs` package, made once and cached.

Each holds this checkout (editable, so code changes need no reinstall), every runtime
dependency except MkDocs, and the engine: ProperDocs with Material for MkDocs (installed
without its `mkdocs` requirement), or Zensical. They live under
$CORPUS_BUILD_TEST_CACHE (default ~/.cache/corpus-build-tests), keyed by the engine, this
checkout's path, its dependencies and its entry points, so later sessions reuse them. When pip cannot
install them (no registry), `engine_venv` says why and the tests skip with that reason.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

from tests.corpus_fixture import PROJECT_ROOT

ZENSICAL_VERSION = "0.0.73"  # the release that installs on this machine's Python
_MKDOCS = {"mkdocs", "mkdocs-material"}


def _is_mkdocs(requirement: str) -> bool:
    match = re.match(r"[A-Za-z0-9._-]+", requirement.strip())
    return bool(match) and match.group(0).lower().replace("_", "-") in _MKDOCS


def cache_root() -> Path:
    return Path(os.environ.get("CORPUS_BUILD_TEST_CACHE", Path.home() / ".cache" / "corpus-build-tests"))


def _requirements(engine: str) -> list[list[str]]:
    """pip install steps (each a list of arguments) for the engine's environment."""
    project = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    ours = [r for r in project["dependencies"] if not _is_mkdocs(r)]
    # ProperDocs runs the site and browser tests in its environment; Zensical only builds.
    extras = project["optional-dependencies"]

    def expand(requirements: list[str]) -> list[str]:
        """`corpus-build[fetch]` in an extra stands for that extra's own requirements."""
        out = []
        for requirement in requirements:
            own = re.fullmatch(r"corpus-build\[([\w,-]+)\]", requirement.strip())
            out += [r for name in own.group(1).split(",") for r in expand(extras[name])] if own else [requirement]
        return out

    tests = expand(extras["test"]) if engine == "properdocs" else []
    steps = [[*ours, *tests]]
    if engine == "properdocs":
        material = importlib.metadata.version("mkdocs-material")
        needs = [r.split(";")[0].strip() for r in importlib.metadata.requires("mkdocs-material") or [] if "extra ==" not in r]
        steps.append(["properdocs", *(r for r in needs if not _is_mkdocs(r))])
        steps.append(["--no-deps", f"mkdocs-material=={material}"])
    elif engine == "zensical":
        steps.append([f"zensical=={ZENSICAL_VERSION}"])
    steps.append(["--no-deps", "-e", str(PROJECT_ROOT)])
    return steps


def engine_venv(engine: str) -> tuple[Path | None, str]:
    """(the venv folder, "") or (None, why it could not be made)."""
    steps = _requirements(engine)
    # The entry points too: an editable install records them at install time (the `corpus` plugin's module).
    entry_points = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"].get("entry-points", {})
    key = hashlib.sha256(repr((engine, str(PROJECT_ROOT), steps, sys.version, entry_points)).encode()).hexdigest()[:12]
    venv = cache_root() / f"{engine}-{key}"
    ready = venv / ".ready"
    if ready.exists():
        return venv, ""
    shutil.rmtree(venv, ignore_errors=True)
    venv.parent.mkdir(parents=True, exist_ok=True)
    python = venv / "bin" / "python"
    try:
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True, timeout=300)
        for step in steps:
            result = subprocess.run([str(python), "-m", "pip", "install", "-q", *step], capture_output=True, text=True, timeout=1200)
            if result.returncode != 0:
                tail = [line for line in (result.stderr or result.stdout).splitlines() if not line.startswith("WARNING: Location")][-3:]
                return None, f"pip could not install {' '.join(step)[:120]}: {' / '.join(tail)}"
    except (OSError, subprocess.SubprocessError) as exc:
        return None, f"could not make the {engine} environment: {exc}"
    probe = subprocess.run([str(python), "-c", "import importlib.util, sys; sys.exit(importlib.util.find_spec('mkdocs') is not None)"], capture_output=True)
    if probe.returncode != 0:
        return None, f"the {engine} environment has a mkdocs package after all"
    ready.write_text("ok\n", encoding="utf-8")
    return venv, ""
