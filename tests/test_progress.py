"""Long commands show their progress on a terminal, and nothing of it anywhere else (issue 23)."""

from __future__ import annotations

import os
import pty
import subprocess
import sys

from tests.corpus_fixture import write_project

BUILD = [sys.executable, "-m", "corpus_build", "build"]


def _on_a_terminal(command: list[str], cwd, expect: int = 0) -> str:
    """Run with stderr on a pseudo-terminal (as in a shell); returns what the terminal received."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(command, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=follower)
    os.close(follower)
    received = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        received += chunk
    out = process.stdout.read()
    assert process.wait(timeout=600) == expect, out + received
    os.close(leader)
    return received.decode("utf-8", errors="replace")


def test_build_counts_its_pages_on_a_terminal_and_clears_the_line(tmp_path):
    project = write_project(tmp_path / "project")
    shown = _on_a_terminal(BUILD, project)
    frames = [frame.strip() for frame in shown.replace("\r\n", "\n").split("\r") if frame.strip()]
    rendering = [f for f in frames if f.startswith("rendering pages ")]
    building = [f for f in frames if f.startswith("building pages ")]
    assert rendering and building, frames
    done, total = building[-1].removeprefix("building pages ").split("/")
    assert done == total and int(total) > 10  # the last frame is the whole build
    assert shown.rstrip(" ").endswith("\r")  # the line is wiped once the build is done


def test_a_pipe_gets_no_progress(tmp_path):
    project = write_project(tmp_path / "project")
    result = subprocess.run(BUILD, cwd=project, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    assert "pages " not in result.stderr and "\r" not in result.stderr + result.stdout


def test_links_counts_the_urls_it_checks_on_a_terminal(tmp_path):
    from tests.fetch.server import FixtureServer

    server = FixtureServer().start()
    try:
        entries = []
        for n in range(5):
            server.add(f"/page-{n}", f"<!doctype html><title>Page {n}</title><h1>Page {n}</h1><p>Text.</p>")
            entries.append(f"- id: page-{n}\n  title: Page {n}\n  url: {server.url(f'/page-{n}')}\n  kind: article\n  note: A page.\n")
        project = write_project(tmp_path / "project", {"01-gpu/sources.yaml": "\n".join(entries), "02-ascend/sources.yaml": "[]\n", "chapters.yaml": None, "paths.yaml": None, "digests/2026-10-22.md": None})
        shown = _on_a_terminal([sys.executable, "-m", "corpus_build", "links"], project)
    finally:
        server.stop()
    frames = [frame.strip() for frame in shown.replace("\r\n", "\n").split("\r") if frame.strip()]
    assert "checking links 5/5" in frames, frames
