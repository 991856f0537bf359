"""Write failures produced for real: a file-size limit the kernel enforces (EFBIG, as a full disk
refuses a write), an immutable mirror folder or file (chattr +i, which even root cannot write
through), a folder where fetch writes a file. Each time: no traceback, a clear line, a non-zero
exit, the old mirror complete, and once the obstacle is gone the next fetch completes and leaves
no stray entry."""

from __future__ import annotations

import os
import resource
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

from tests.hostile_mirror.conftest import Project, article, mirror_problems, sentence
from tests.hostile_mirror.server import LocalServer
from tests.hostile_outside.harness import CORPUS_BUILD, Run, assert_no_traceback, assert_ok, error_lines, snapshot

KEPT_NAMES = (".failed", ".declined")


BASE = "/disk"
IDS = ["plain", "gone", "shrinks"]


@pytest.fixture(scope="module")
def mirrored(template, server, tmp_path_factory) -> Path:
    """The template with three sources mirrored once (each test copies it)."""
    root = tmp_path_factory.mktemp("disk") / "proj"
    shutil.copytree(template, root, symlinks=True)
    proj = Project(root)
    for source_id in IDS:
        proj.add(source_id, server.set(f"{BASE}/{source_id}", article(source_id, paragraphs=20)))
    assert_ok(proj.cb("fetch", timeout=120))
    return root


@pytest.fixture
def disk_proj(mirrored, server, tmp_path) -> Project:
    """A copy of the mirrored project whose pages all grew (150 paragraphs, new words)."""
    root = tmp_path / "proj"
    shutil.copytree(mirrored, root, symlinks=True)
    for source_id in IDS:
        server.set(f"{BASE}/{source_id}", article(source_id + "-v2", paragraphs=150))
    return Project(root)


def _assert_clear_failure(r: Run) -> None:
    assert_no_traceback(r)
    assert r.rc == 1, f"a fetch that could not write must exit 1: {r.describe()}\n{r.err[-1500:]}"
    lines = error_lines(r) or [line for line in r.out.splitlines() if "error" in line.lower() or "fail" in line.lower()]
    assert lines, f"no line says what went wrong: {r.describe()}\n{r.out[-1500:]}"


def _stray(proj: Project, ids: list[str]) -> list[str]:
    return sorted(p.name for p in proj.raw_root.iterdir() if p.name not in ids and p.name not in KEPT_NAMES)


def _limited_fsize(limit: int):
    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG instead of killing
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


def test_file_size_limit_keeps_old_mirror(disk_proj: Project):
    """fetch --force under a 16 KB file-size limit (the new pages are 30 KB): exit 1 in clear words, the old mirrors byte for byte, then a normal fetch completes."""
    proj = disk_proj
    before = {source_id: proj.mirror(source_id) for source_id in IDS}
    with open(os.devnull, "rb") as devnull:
        proc = subprocess.run([*CORPUS_BUILD, "fetch", "--force"], cwd=proj.root, stdin=devnull, capture_output=True, timeout=120, preexec_fn=_limited_fsize(16 * 1024), env=_env())
    r = Run(proc.args, proc.returncode, proc.stdout.decode(errors="replace"), proc.stderr.decode(errors="replace"), 0.0, len(proc.stdout), len(proc.stderr))
    _assert_clear_failure(r)
    assert {source_id: proj.mirror(source_id) for source_id in IDS} == before, f"a write that failed changed a mirror: {r.out[-800:]}"
    again = proj.cb("fetch", "--force", timeout=120)
    assert_ok(again)
    assert sentence("plain-v2", 100) in proj.text("plain")
    assert not _stray(proj, IDS), _stray(proj, IDS)


def _env():
    from tests.hostile_outside.harness import env

    return env()


def _unlock(root: Path) -> None:
    """chattr -i on everything under `root` (a swap may have moved a marked file elsewhere)."""
    for dirpath, dirnames, filenames in os.walk(root):
        for name in [*dirnames, *filenames]:
            subprocess.run(["chattr", "-i", os.path.join(dirpath, name)], capture_output=True, timeout=10)
    subprocess.run(["chattr", "-i", str(root)], capture_output=True, timeout=10)


@pytest.fixture
def immutable(disk_proj):
    """chattr +i on paths; always undone, so pytest can remove the folder."""
    if not shutil.which("chattr"):
        pytest.skip("chattr is not installed")
    yield lambda path: subprocess.run(["chattr", "+i", str(path)], check=True, timeout=10)
    _unlock(disk_proj.corpus)


def _can_chattr(tmp) -> bool:
    probe = tmp / "probe"
    probe.write_text("x")
    ok = subprocess.run(["chattr", "+i", str(probe)], capture_output=True, timeout=10).returncode == 0
    subprocess.run(["chattr", "-i", str(probe)], capture_output=True, timeout=10)
    probe.unlink()
    return ok


@pytest.mark.parametrize("what", ["the mirror folder", "a file of the mirror"])
def test_immutable_mirror(disk_proj: Project, immutable, tmp_path, what):
    """An immutable raw/<id>/, or text.md in it: no traceback, the mirror complete (old or new), the other sources fetched; once writable again the next fetch completes and leaves no stray entry."""
    if not _can_chattr(tmp_path):
        pytest.skip("this file system or user cannot set the immutable attribute")
    proj = disk_proj
    before = proj.mirror("plain")
    target = proj.raw("plain") if what == "the mirror folder" else proj.raw("plain") / "text.md"
    immutable(target)
    r = proj.cb("fetch", "--force", timeout=120)
    assert_no_traceback(r)
    problems = mirror_problems(proj.raw("plain"))
    now = proj.mirror("plain")
    _unlock(proj.corpus)
    assert not problems, f"with {what} immutable the mirror is no longer complete: {problems}; {r.describe()}"
    if what == "the mirror folder":
        assert r.rc == 1, f"a fetch that could not replace the mirror must exit 1: {r.describe()}"
        assert now == before, f"with {what} immutable the mirror changed: {r.describe()}"
    assert sentence("gone-v2", 100) in proj.text("gone"), "another source's fetch suffered from one immutable mirror"
    again = proj.cb("fetch", "--force", timeout=120)
    assert_ok(again)
    for source_id in IDS:
        assert sentence(source_id + "-v2", 100) in proj.text(source_id)
        assert not mirror_problems(proj.raw(source_id))
    assert not _stray(proj, IDS), f"entries left beside the mirrors: {_stray(proj, IDS)}"


@pytest.mark.parametrize("where", ["corpus/corpus.lock", "raw/.failed and raw/.declined", "raw/<id>/text.md"])
def test_folder_where_a_file_is_written(disk_proj: Project, server: LocalServer, where):
    """A folder (holding a file of the user's) where fetch writes a file, or a file where it writes a folder: no traceback, clear words, mirrors complete, the user's file kept."""
    proj = disk_proj
    server.set(f"{BASE}/gone", "<html><body>gone</body></html>", status=404)
    server.set(f"{BASE}/shrinks", article("shrinks", paragraphs=3))
    if where == "corpus/corpus.lock":
        target = proj.corpus / "corpus.lock"
        target.unlink()
        target.mkdir()
        (target / "mine.txt").write_text("mine\n")
    elif where == "raw/<id>/text.md":
        target = proj.raw("plain") / "text.md"
        target.unlink()
        target.mkdir()
        (target / "mine.txt").write_text("mine\n")
    else:
        for name in (".failed", ".declined"):
            shutil.rmtree(proj.raw_root / name, ignore_errors=True)
            (proj.raw_root / name).write_text("mine\n")
        target = proj.raw_root / ".failed"
    mine = snapshot(target) if target.is_dir() else {"": target.read_text()}
    r = proj.cb("fetch", "--force", timeout=120)
    assert_no_traceback(r)
    if where == "corpus/corpus.lock":
        # Refused before any download is fine too (the lock cannot be read), in one clear line, with
        # exit 1: refused work (README, "Exit codes"); 2 is for a command line that cannot work.
        assert r.rc == 1 and error_lines(r), r.describe()
    else:
        assert r.rc == 1, f"404 and a declined capture must exit 1: {r.describe()}"
    for source_id in ("gone", "shrinks"):
        assert not mirror_problems(proj.raw(source_id)), mirror_problems(proj.raw(source_id))
        assert sentence(source_id, 10) in proj.text(source_id), f"{source_id}'s good text was lost with {where} in the way"
    now = snapshot(target) if target.is_dir() else {"": target.read_text()} if target.is_file() else {}
    if where != "raw/<id>/text.md":
        assert now == mine, f"fetch removed or changed the user's {where}: {r.describe()}"
    assert not _stray(proj, IDS), f"entries left beside the mirrors: {_stray(proj, IDS)}"
