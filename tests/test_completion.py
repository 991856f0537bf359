"""`corpus-build completion`: the script, loaded into a real bash, completes as a user types."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from corpus_build.cli import main

pytestmark = pytest.mark.skipif(not shutil.which("bash"), reason="bash is not installed")


def _complete(script: str, line: str, cwd) -> list[str]:
    """What bash offers after `line` (the last word is the one being completed)."""
    words = line.split(" ")
    program = (
        script
        + "\nCOMP_WORDS=(" + " ".join(f"'{w}'" for w in words) + ")"
        + f"\nCOMP_CWORD={len(words) - 1}\n_corpus_build\nprintf '%s\\n' \"${{COMPREPLY[@]}}\"\n"
    )
    result = subprocess.run(["bash", "--norc", "-c", program], cwd=cwd, capture_output=True, text=True, check=True)
    return sorted(result.stdout.split())


@pytest.fixture
def script(capsys):
    assert main(["completion", "bash"]) == 0
    return capsys.readouterr().out


def test_commands_options_values_and_sections_complete(script, project):
    assert "import" in _complete(script, "corpus-build im", project) and "init" in _complete(script, "corpus-build i", project)
    assert _complete(script, "corpus-build build --eng", project) == ["--engine"]
    assert _complete(script, "corpus-build build --engine ", project) == ["mkdocs", "properdocs", "zensical"]
    # section folders of the project on the line, or of the current folder
    sections = sorted(p.name for p in (project / "corpus").iterdir() if p.is_dir() and p.name[0].isdigit())
    assert _complete(script, "corpus-build add https://x.org --section ", project) == sections
    assert _complete(script, f"corpus-build --project {project} fetch --section 0", project.parent) == sections
    assert _complete(script, "corpus-build completion ", project) == ["bash", "zsh"]
    # global options complete after any command
    assert "--verbose" in _complete(script, "corpus-build check --", project)


def test_zsh_gets_the_same_script_through_bashcompinit(script, capsys):
    assert main(["completion", "zsh"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("autoload -U +X bashcompinit && bashcompinit\n") and out.endswith(script)
