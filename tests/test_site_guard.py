"""Issue 36, guarded output: a build never deletes a folder that is not a site it built.

Each case names a site folder a build must refuse (the project, a parent, corpus/, docs/,
.git, a file, a symlink, a stranger's folder) and checks: exit 1, one line saying why,
and every file that was there is still there. Then the folders it may replace: a new
one, its own last site, a site built before the marker existed.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from corpus_build.cli import main
from corpus_build.core.errors import SiteError
from corpus_build.site import sitedir, uptodate


def tree(root: Path) -> dict[str, str]:
    """Every file under root (symlinks as their target), by relative path: what must survive."""
    found = {}
    for path in sorted(root.rglob("*")):
        name = str(path.relative_to(root))
        if path.is_symlink():
            found[name] = "-> " + os.readlink(path)
        elif path.is_file():
            found[name] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def kept(before: dict[str, str], root: Path) -> bool:
    """Every file that was under root is still there, unchanged (the registry's cache may be added)."""
    after = tree(root)
    return all(after.get(name) == digest for name, digest in before.items())


def build(project: Path, *args: str) -> int:
    return main(["--project", str(project), "--quiet", "build", *args])


@pytest.fixture
def outer(tmp_path, project):
    """The project inside a parent folder that holds a file of someone else's."""
    (tmp_path / "someone-elses.txt").write_text("keep me", encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(
    ("site_dir", "why"),
    [
        (".", "this is the project folder"),
        ("..", "this folder holds the project folder"),
        ("corpus", "this is the registry folder"),
        ("corpus/01-gpu", "lies inside the registry folder"),
        ("docs", "this is the generated pages' folder"),
        ("docs/sub", "lies inside the generated pages' folder"),
        (".git", "this is the project's git repository"),
    ],
)
def test_a_folder_holding_the_project_its_registry_or_pages_is_refused(outer, project, capsys, site_dir, why):
    (project / ".git").mkdir()
    (project / ".git" / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    (project / "docs").mkdir(exist_ok=True)
    (project / "docs" / "hand-written.md").write_text("# mine\n", encoding="utf-8")
    before = tree(outer)
    assert build(project, "--site-dir", str(project / site_dir)) == 1
    err = capsys.readouterr().err
    assert why in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    assert kept(before, outer)
    assert not list(outer.glob(".*.partial")) and not list(project.glob(".*.partial"))


def test_site_dir_in_mkdocs_yml_pointing_at_the_parent_is_refused(outer, project, capsys):
    config = project / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8") + "\nsite_dir: ..\n", encoding="utf-8")
    before = tree(outer)
    assert build(project) == 1
    err = capsys.readouterr().err
    assert "mkdocs.yml site_dir:" in err and "holds the project folder" in err
    assert kept(before, outer)


def test_a_file_a_symlink_and_a_strangers_folder_are_refused(tmp_path, project, capsys):
    a_file = tmp_path / "notes.txt"
    a_file.write_text("not a site", encoding="utf-8")
    assert build(project, "--site-dir", str(a_file)) == 1
    assert "this is a file, not a folder" in capsys.readouterr().err
    assert a_file.read_text(encoding="utf-8") == "not a site"

    real = tmp_path / "real-site"
    real.mkdir()
    link = tmp_path / "link-site"
    link.symlink_to(real)
    assert build(project, "--site-dir", str(link)) == 1
    assert "is a symbolic link" in capsys.readouterr().err
    assert link.is_symlink()

    stranger = tmp_path / "photos"
    stranger.mkdir()
    (stranger / "holiday.jpg").write_bytes(b"\xff\xd8 a photo")
    assert build(project, "--site-dir", str(stranger)) == 1
    assert "holds files corpus-build did not build (holiday.jpg)" in capsys.readouterr().err
    assert (stranger / "holiday.jpg").read_bytes() == b"\xff\xd8 a photo"


@pytest.mark.slow
def test_its_own_site_a_legacy_site_and_a_new_folder_are_replaced_and_a_git_checkout_is_kept(tmp_path, project, capsys):
    site = tmp_path / "out"
    assert build(project, "--site-dir", str(site)) == 0
    assert (site / sitedir.MARKER).is_file() and (site / "index.html").is_file()
    assert build(project, "--site-dir", str(site)) == 0  # its own site: replaced
    # A site an older corpus-build (or plain `mkdocs build`) made, without the marker.
    (site / sitedir.MARKER).unlink()
    assert build(project, "--site-dir", str(site)) == 0
    assert (site / sitedir.MARKER).is_file()
    # A gh-pages checkout inside the site folder: a build would delete its .git; refused.
    (site / ".git").mkdir()
    # (Nothing changed, the build would not touch the folder: site/uptodate.py. A real one is refused.)
    assert build(project, "--site-dir", str(site)) == 0 and (site / ".git").is_dir()
    (project / uptodate.STAMP).unlink()
    assert build(project, "--site-dir", str(site)) == 1
    assert "(.git)" in capsys.readouterr().err
    assert (site / ".git").is_dir()
    assert not list(tmp_path.glob(".*.partial")) and not list(tmp_path.glob(".out.old-*"))


def test_the_check_alone_names_each_refusal(tmp_path):
    project = tmp_path / "p"
    (project / "corpus").mkdir(parents=True)
    for site, expected in [
        (project, "the project folder"),
        (project / "corpus", "registry"),
        (tmp_path, "holds the project folder"),
    ]:
        with pytest.raises(SiteError, match=expected):
            sitedir.check(site, project=project, docs_dir=project / "docs", corpus_dir=project / "corpus", origin="--site-dir")
    sitedir.check(project / "site", project=project, docs_dir=project / "docs", corpus_dir=project / "corpus", origin="--site-dir")


def test_a_mkdocs_yml_nested_100000_deep_is_one_clear_error(project, capsys):
    """The engine's YAML reader recurses once per level: the build says so before it runs."""
    config = project / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8") + "extra: {deep: " + "[" * 100_000 + "]" * 100_000 + "}\n", encoding="utf-8")
    assert build(project) == 1
    err = capsys.readouterr().err
    assert "nested too deeply" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_a_second_build_waits_for_the_first_and_says_so(project):
    """Two builds would share the staging folder: the second waits on the build lock (the kernel
    frees it if the first dies), says why it waits, and then builds."""
    import fcntl
    import subprocess
    import sys
    import time

    lock = project / sitedir.LOCK
    lock.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)  # a build under way
    second = subprocess.Popen([sys.executable, "-m", "corpus_build", "--project", str(project), "build"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(5)  # a build of this project takes about two seconds: five seconds in, it must still be waiting
        assert second.poll() is None and not (project / "site" / "index.html").exists()
    finally:
        os.close(fd)  # the first build ends
    _out, err = second.communicate(timeout=300)
    assert second.returncode == 0, err
    assert "another build of" in err and "is running; waiting for it to finish" in err
    assert (project / "site" / "index.html").is_file()
