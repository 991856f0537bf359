"""A real `corpus-build fetch --force` in a loop beside `corpus-build build` in a loop; every built site checked.

    python scripts/stress_build_beside_fetch.py WORKDIR [BUILDS] [--mkdocs]

With --mkdocs the builds are plain `mkdocs build` (the `corpus` plugin renders and builds): a build
that finds a mirror changed under it fails with one error (it cannot build again, and MkDocs wrote
the site as it went); only the builds that succeed are checked, as the published ones.

A local HTTP server (tests/fetch/server.py) gives every request a capture of its own, with its own
word (cap00017x). A source page shows its record's sha256, which names the capture; the page and
its text page must hold that capture's word and no other's. Prints the counts of builds published,
failed and retried ("building again"), and of source pages that mixed two captures. WORKDIR is
emptied first. Nothing leaves this machine.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tests.fetch.server import FixtureServer, Reply, Request  # noqa: E402

SOURCES = 8
WORD = re.compile(r"cap\d{5}x")


class Captures:
    """Every page the server sent, by its sha256 (what a record names): its word."""

    def __init__(self) -> None:
        self.words: dict[str, str] = {}
        self.count = 0
        self.lock = threading.Lock()

    def page(self, request: Request) -> Reply:
        with self.lock:
            self.count += 1
            word = f"cap{self.count:05d}x"
        paragraphs = "".join(f"<p>The {word} paragraph number {i} says enough for the extractor to keep it as text.</p>" for i in range(12))
        body = f"<html><head><title>Capture {word}</title></head><body><article><h1>Capture {word}</h1>{paragraphs}</article></body></html>".encode()
        self.words[hashlib.sha256(body).hexdigest()] = word
        return Reply(200, body, {"Content-Type": "text/html; charset=utf-8"})


def make_project(work: Path, server: FixtureServer) -> None:
    section = work / "corpus" / "01-main"
    section.mkdir(parents=True)
    (work / "corpus" / "corpus.yaml").write_text(yaml.safe_dump({"title": "Stress", "languages": ["en"], "fetch": {"recheck_after": 0}}))
    (section / "section.yaml").write_text("title: Main\n")
    entries = [{"id": f"p{i}", "url": server.url(f"/p{i}"), "kind": "article", "title": f"P{i}", "lang": "en", "note": "why"} for i in range(SOURCES)]
    (section / "sources.yaml").write_text(yaml.safe_dump(entries))
    shutil.copy(ROOT / "mkdocs.yml", work / "mkdocs.yml")
    (work / "docs").mkdir()


def mixed_pages(site: Path, captures: Captures) -> list[str]:
    """Source pages whose record (its sha256) and shown text (excerpt, text page) are of different captures."""
    found = []
    for i in range(SOURCES):
        page = (site / "sources" / f"p{i}" / "index.html").read_text(encoding="utf-8")
        text_page = site / "sources" / f"p{i}" / "text" / "index.html"
        text = text_page.read_text(encoding="utf-8") if text_page.exists() else ""
        named = [captures.words[sha] for sha in re.findall(r"[0-9a-f]{64}", page) if sha in captures.words]
        shown = set(WORD.findall(page)) | set(WORD.findall(text))
        if not named or shown != {named[0]}:
            found.append(f"p{i}: record of {named[0] if named else '?'}, text of {sorted(shown)}")
    return found


def main() -> int:
    args = [a for a in sys.argv[1:] if a != "--mkdocs"]
    plain = "--mkdocs" in sys.argv[1:]
    work = Path(args[0])
    builds = int(args[1]) if len(args) > 1 else 12
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    captures = Captures()
    server = FixtureServer().start()
    for i in range(SOURCES):
        server.routes[f"/p{i}"] = captures.page
    make_project(work, server)
    command = [str(Path(sys.executable).with_name("corpus-build")), "--project", str(work)]
    env = {**os.environ, "CORPUS_BUILD_OFFLINE": "1"}
    subprocess.run([*command, "fetch", "-q"], check=True, env=env, capture_output=True)
    stop = threading.Event()
    fetches = {"ok": 0, "failed": 0}

    def fetch_loop() -> None:
        while not stop.is_set():
            done = subprocess.run([*command, "fetch", "--force", "-q"], env=env, capture_output=True, text=True)
            fetches["ok" if done.returncode == 0 else "failed"] += 1

    fetcher = threading.Thread(target=fetch_loop)
    fetcher.start()
    counts = {"published": 0, "failed": 0, "retried": 0, "tracebacks": 0, "mixed_pages": 0}
    notes: list[str] = []
    try:
        for n in range(builds):
            build = [str(Path(sys.executable).with_name("mkdocs")), "build", "-q", "-f", str(work / "mkdocs.yml")] if plain else [*command, "build"]
            done = subprocess.run(build, env=env, capture_output=True, text=True, cwd=work)
            counts["tracebacks"] += "Traceback" in done.stderr
            counts["retried"] += "building again" in done.stderr
            if done.returncode != 0:
                counts["failed"] += 1
                notes.append(f"build {n}: {(done.stderr.strip().splitlines() or ['?'])[-1][:300]}")
                continue
            counts["published"] += 1
            mixed = mixed_pages(work / "site", captures)
            counts["mixed_pages"] += len(mixed)
            notes += [f"build {n} {line}" for line in mixed]
    finally:
        stop.set()
        fetcher.join()
        server.stop()
    print(json.dumps({"builds": "mkdocs build" if plain else "corpus-build build", **counts, "pages_checked": counts["published"] * SOURCES,
                      "fetches": fetches}))
    for line in notes[:10]:
        print(" ", line)
    return 1 if counts["mixed_pages"] or counts["tracebacks"] else 0


if __name__ == "__main__":
    sys.exit(main())
