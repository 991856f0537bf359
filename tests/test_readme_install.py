"""The README's "Starting a new corpus" works as written on a fresh machine (issue 37): the package
is built as a wheel, installed into a new environment, and the README's own commands run there.

Fast on purpose: the wheel goes in with --no-deps, and the environment borrows this one's
installed libraries (a path line; this environment's own corpus_build, an editable install, is
not on it), so nothing is downloaded. Offline: `add` reads no page (CORPUS_BUILD_OFFLINE=1, which
the README documents).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.corpus_fixture import PROJECT_ROOT

README = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")
# The README's two install lines, which this test stands in for: it installs the wheel it built.
VENV_LINE = "python3 -m venv --upgrade-deps ~/.venvs/corpus-build && . ~/.venvs/corpus-build/bin/activate"
INSTALL_LINE = "pip install './corpus-build[fetch]'"


def readme_new_corpus_commands() -> list[str]:
    """The commands of the README's "Starting a new corpus" block, comments dropped."""
    section = README[README.index("## Starting a new corpus") :]
    block = section[section.index("```bash\n") + len("```bash\n") : section.index("\n```", section.index("```bash\n"))]
    return [line.split("  #", 1)[0].strip() for line in block.splitlines() if line.strip()]


def _run(argv: list[str], **kwargs) -> subprocess.CompletedProcess:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, **kwargs)
    assert done.returncode == 0, f"{argv}\n{done.stdout}\n{done.stderr}"
    return done


def _wheel(out: Path) -> Path:
    """This checkout as a wheel (`pip wheel . --no-deps`), without build isolation when setuptools allows it.

    Built from a copy of the files a wheel is made of: an in-tree build would leave
    src/corpus_build.egg-info in the checkout, a second copy of the package's metadata.
    """
    import setuptools

    tree = out.parent / "source"
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        tree.mkdir(exist_ok=True)
        shutil.copy2(PROJECT_ROOT / name, tree / name)
    shutil.copytree(PROJECT_ROOT / "src", tree / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    # pyproject.toml asks for setuptools>=77: this environment's, when it has one (seconds), else pip's isolated build.
    flags = ["--no-build-isolation"] if int(setuptools.__version__.split(".")[0]) >= 77 else []
    _run([sys.executable, "-m", "pip", "wheel", str(tree), "--no-deps", "-q", "-w", str(out), *flags])
    [wheel] = out.glob("corpus_build-*.whl")
    return wheel


def test_the_readme_new_corpus_commands_run_from_the_built_wheel(tmp_path):
    commands = readme_new_corpus_commands()
    assert commands[:2] == [VENV_LINE, INSTALL_LINE], commands  # the lines stood in for, exactly as the README has them
    wheel = _wheel(tmp_path / "dist")
    env_dir = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(env_dir)])
    python = env_dir / "bin" / "python"
    _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", "-q", str(wheel)])
    # This environment's libraries, after the new one's own site-packages (which hold the wheel).
    purelib = Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip())
    (purelib / "_test_borrowed_libraries.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env.update(PATH=f"{env_dir / 'bin'}{os.pathsep}{env['PATH']}", HOME=str(tmp_path), CORPUS_BUILD_OFFLINE="1")
    where = _run([str(python), "-c", "import corpus_build; print(corpus_build.__file__)"], env=env).stdout.strip()
    assert Path(where).is_relative_to(purelib), where  # the wheel's copy, not this checkout's
    work = tmp_path / "work"
    work.mkdir()
    script = "set -e\n" + "\n".join(commands[2:]) + "\n"
    done = subprocess.run(["bash", "-c", script], cwd=work, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{script}\n{done.stdout}\n{done.stderr}"
    assert "Traceback" not in done.stderr
    site = work / "mysite" / "site"
    home = (site / "index.html").read_text(encoding="utf-8")
    assert "我的阅读语料" in home and (site / "sources" / "tilelang" / "index.html").is_file()
    assert re.search(r"^built 1 source into ", done.stdout, re.M), done.stdout


@pytest.mark.skipif(shutil.which("python3") is None, reason="no python3 on PATH to run the README's venv line")
def test_the_readme_venv_line_gives_a_pip_that_reads_lxml_extras(tmp_path):
    """The README's own venv line, run as written (it reaches the package index, as installing does):
    its pip resolves jusText's `lxml[html_clean]` without "lxml … does not provide the extra"."""
    line = next(c for c in readme_new_corpus_commands() if c.startswith("python3 -m venv"))
    create = line.split(" && ", 1)[0].replace("~/.venvs/corpus-build", shlex.quote(str(tmp_path / "env")))
    _run(["bash", "-c", create], env={**os.environ, "HOME": str(tmp_path)})
    done = _run([str(tmp_path / "env" / "bin" / "pip"), "install", "--dry-run", "lxml[html_clean]"])
    assert "does not provide the extra" not in done.stdout + done.stderr, done.stderr
