"""A read-only corpus and a full disk (issue 10 item 8): a clear error, no traceback, nothing left behind.

Both need a real file system that refuses writes. Root ignores permission bits, so the
tests mount a small tmpfs (read-only, or too small) where they can; where mounting is
not allowed (not root, no CAP_SYS_ADMIN) they skip with the reason.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import write_corpus
from .test_html import page


def _mount(target: Path, options: str) -> str | None:
    """None when mounted, else why not."""
    if os.geteuid() != 0 or not shutil.which("mount"):
        return "mounting a tmpfs needs root and mount(8)"
    target.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(target)], capture_output=True, text=True)
    return None if done.returncode == 0 else f"mount -t tmpfs failed: {done.stderr.strip()}"


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[Path]:
    where = tmp_path / "fs"
    why = _mount(where, "size=1m,mode=0755")
    if why:
        print(f"skipped: {why}")
        pytest.skip(why)
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def _cli(project: Path, *args: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if "proxy" not in k.lower() and k not in ("GITHUB_TOKEN", "GITHUB_API_URL")}
    return subprocess.run([sys.executable, "-m", "corpus_build", "--project", str(project), *args], capture_output=True, text=True, env=clean, timeout=120)


def _files(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


def _remount_ro(where: Path) -> None:
    subprocess.run(["mount", "-o", "remount,ro", str(where)], check=True)


def test_read_only_corpus_fetch_watch_build_give_clear_errors(tmpfs: Path, server) -> None:
    server.add("/doc", page())
    write_corpus(tmpfs, [{"id": "doc", "url": server.url("/doc")}], fetch={"extract_workers": 0})
    before = _files(tmpfs)
    _remount_ro(tmpfs)
    for command in (["fetch"], ["watch", "--since", "2026-10-21T07:00+08:00", "--until", "2026-10-22T07:00+08:00"], ["render"]):
        done = _cli(tmpfs, *command)
        assert done.returncode != 0, command
        assert "Traceback" not in done.stderr, done.stderr
        assert "writable" in done.stderr or "Read-only" in done.stderr, done.stderr
    assert server.count("/doc") == 0  # fetch stopped before any request
    assert _files(tmpfs) == before


def test_full_disk_fetch_keeps_going_reports_and_leaves_no_temp_files(tmp_path: Path, server) -> None:
    where = tmp_path / "small"
    why = _mount(where, "size=256k")
    if why:
        print(f"skipped: {why}")
        pytest.skip(why)
    try:
        big = page(para="x" * 600_000)  # larger than the whole file system
        server.add("/big", big)
        server.add("/small", page(title="Small"))
        write_corpus(where, [{"id": "big", "url": server.url("/big")}, {"id": "small", "url": server.url("/small")}],
                     fetch={"extract_workers": 0, "retries": 0})
        done = _cli(where, "fetch")
        assert done.returncode != 0
        assert "Traceback" not in done.stderr, done.stderr
        assert "No space left" in done.stderr or "No space left" in done.stdout, (done.stdout, done.stderr)
        leftovers = [p for p in _files(where) if ".tmp" in p]
        assert leftovers == [], leftovers
        # Fill the disk completely: even the failure record and corpus.lock cannot be written.
        with open(where / "filler", "wb") as filler:
            try:
                while True:
                    filler.write(b"\0" * 65536)
            except OSError:
                pass
        done = _cli(where, "fetch")
        assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr
        assert [p for p in _files(where) if ".tmp" in p] == []
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)
