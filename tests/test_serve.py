"""`mkdocs serve` on the registry: never a stuck request, the errors on every page, one build per edit."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
BIN = Path(sys.executable).parent
# MkDocs' executable, or ProperDocs' where MkDocs is not installed (tests/test_engines.py runs this file there).
SERVE = BIN / "mkdocs" if (BIN / "mkdocs").exists() else BIN / "properdocs"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _get(url: str, timeout: float = 5) -> tuple[int, str, float]:
    started = time.monotonic()
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, response.read().decode("utf-8"), time.monotonic() - started
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode("utf-8", "replace"), time.monotonic() - started
    except Exception as exc:  # noqa: BLE001 - a server still starting answers in many ways
        return 0, str(exc), time.monotonic() - started


def _wait_for(predicate, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.3)
    return False


class Log:
    """The server's output, read by a thread so that the pipe never fills."""

    def __init__(self, process: subprocess.Popen):
        import threading

        self.lines: list[str] = []
        self._thread = threading.Thread(target=self._read, args=(process,), daemon=True)
        self._thread.start()

    def _read(self, process: subprocess.Popen) -> None:
        for raw in process.stdout:
            self.lines.append(raw.decode("utf-8", "replace"))

    def count(self, words: str) -> int:
        return sum(words in line for line in self.lines)

    def text(self) -> str:
        return "".join(self.lines)


def start_serve(project: Path, *, startup: str = "") -> tuple[subprocess.Popen, Log, str]:
    """`mkdocs serve` (or `properdocs serve`) of the project on a free port: the process, its log, the base URL.

    `startup`: Python run in the server before anything else (a sitecustomize), to change a setting or slow a step.
    """
    port = _free_port()
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    if startup:
        folder = project.parent / f"startup-{port}"
        folder.mkdir()
        (folder / "sitecustomize.py").write_text(startup, encoding="utf-8")
        env["PYTHONPATH"] = os.pathsep.join([str(folder), env.get("PYTHONPATH", "")])
    server = subprocess.Popen(
        [str(SERVE), "serve", "-a", f"127.0.0.1:{port}"],
        cwd=project, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
    )
    return server, Log(server), f"http://127.0.0.1:{port}/"


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Reloads:
    """Every reload the live server asks the browsers for, seen through MkDocs' own protocol: the
    page's epoch, then long polls of /livereload/<epoch>/<id>, each answering with a newer one.
    It polls again at once with the epoch it got (a browser still reloading may miss one)."""

    def __init__(self, base: str, page: str):
        import threading

        self.base, self.page = base, page
        self.seen: list[int] = []
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        import re

        while (found := re.search(r"livereload\((\d+), (\d+)\)", _get(self.base + self.page, timeout=30)[1])) is None:
            time.sleep(0.2)
        epoch = int(found[1])
        while True:
            try:
                with urllib.request.urlopen(f"{self.base}livereload/{epoch}/{found[2]}", timeout=120) as response:
                    newer = int(response.read())
            except OSError:
                return  # the server stopped
            if newer > epoch:
                self.seen.append(newer)
                epoch = newer


def test_serve_shows_registry_errors_at_once_and_builds_once_per_edit(project):
    server, log, base = start_serve(project)
    path = project / "corpus" / "01-gpu" / "sources.yaml"
    good = path.read_text(encoding="utf-8")
    try:
        assert _wait_for(lambda: _get(base + "sources/tilelang/")[0] == 200, 90), "mkdocs serve did not start:\n" + log.text()
        time.sleep(2)  # let the watchers settle
        # A build is MkDocs' full build or the preview's rebuild of the pages an edit changed (preview.py).
        builds, reloads = log.count("Building documentation") + log.count("page(s) rebuilt in"), log.count("Reloading browsers")
        browser = Reloads(base, "sources/tilelang/")
        time.sleep(1)  # its first long poll is waiting

        # One valid edit: one build, one reload (the plugin's own writes into docs/ trigger nothing,
        # and the preview's pages are not shown on their own before the rest: preview.SHOW_EARLY_AFTER).
        path.write_text(good.replace("Second line of the note.", "Second line, edited."), encoding="utf-8")
        assert _wait_for(lambda: "Second line, edited." in _get(base + "sources/tilelang/")[1], 60), log.text()
        time.sleep(4)  # a second build would start within the watcher's poll interval
        assert len(browser.seen) == 1, f"the server had the browsers reload {len(browser.seen)} times:\n" + log.text()
        assert log.count("Building documentation") + log.count("page(s) rebuilt in") - builds == 1, log.text()
        assert log.count("page(s) shown in") == 0, log.text()
        assert log.count("Reloading browsers") - reloads == 1, log.text()

        # A registry mistake: the last good site, with the error list on every page.
        path.write_text(good.replace("kind: docs", "kind: doc"), encoding="utf-8")
        assert _wait_for(lambda: "cb-serve-errors" in _get(base)[1], 60), "no error banner:\n" + log.text()
        for page in ("", "sources/tilelang/", "sources/cuda-guide/", "chapters/01/", "no-such-page/"):
            status, body, seconds = _get(base + page, timeout=5)
            assert seconds < 1, (page, seconds)
            assert status == (404 if page == "no-such-page/" else 200), (page, status)
            assert "corpus/01-gpu/sources.yaml:5" in body and "kind &#x27;doc&#x27;" in body, (page, body[:300])
        assert "Second line, edited." in _get(base + "sources/tilelang/")[1]  # still the last good page

        # Fixed: the banner goes, the new content comes.
        path.write_text(good.replace("Second line of the note.", "Fixed again."), encoding="utf-8")
        assert _wait_for(lambda: "Fixed again." in _get(base + "sources/tilelang/")[1], 60), log.text()
        assert "cb-serve-errors" not in _get(base)[1]
    finally:
        server.terminate()
        server.wait(timeout=30)
    text = log.text()
    assert "appear stuck" not in text and "Traceback" not in text, text


def test_serve_started_on_a_broken_registry_answers_with_the_errors(project):
    path = project / "corpus" / "01-gpu" / "sources.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("kind: docs", "kind: doc"), encoding="utf-8")
    server, log, base = start_serve(project)
    try:
        assert _wait_for(lambda: _get(base)[0] == 200, 90), "mkdocs serve did not start:\n" + log.text()
        status, body, seconds = _get(base + "sources/tilelang/")
        assert status == 200 and seconds < 1
        assert "cb-serve-errors" in body and "corpus/01-gpu/sources.yaml:5" in body
    finally:
        server.terminate()
        server.wait(timeout=30)


# A machine so busy that rendering the registry takes over a second (issue 37: a 0.62 s rebuild of a
# 5-source corpus once took the two-reload path meant for thousands of sources).
SLOW_RENDER = """
import time
import corpus_build.render as render

_real = render.render


def slow(*args, **kwargs):
    time.sleep(1.2)
    return _real(*args, **kwargs)


render.render = slow
"""


def _one_edit(project: Path, startup: str, text: str) -> tuple[list[int], Log, str]:
    """Serve, save one edit of a note, wait until it shows and the server is done: (reloads, log, page)."""
    server, log, base = start_serve(project, startup=startup)
    path = project / "corpus" / "01-gpu" / "sources.yaml"
    try:
        assert _wait_for(lambda: _get(base + "sources/tilelang/")[0] == 200, 120), "mkdocs serve did not start:\n" + log.text()
        time.sleep(2)
        browser = Reloads(base, "sources/tilelang/")
        time.sleep(1)
        path.write_text(path.read_text(encoding="utf-8").replace("Second line of the note.", text), encoding="utf-8")
        assert _wait_for(lambda: log.count("page(s) rebuilt in") == 1, 90), log.text()
        time.sleep(3)
        page = _get(base + "sources/tilelang/")[1]
        return browser.seen, log, page
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_a_small_corpus_reloads_once_per_edit_however_slow_the_machine(project):
    seen, log, page = _one_edit(project, SLOW_RENDER, "Edited on a slow machine.")
    assert "Edited on a slow machine." in page
    assert log.count("page(s) shown in") == 0 and len(seen) == 1, f"{len(seen)} reload(s):\n" + log.text()


def test_a_large_corpus_shows_the_edited_page_first_then_the_rest(project):
    """SHOW_FIRST_FROM sources or more: the edited source's page reloads at once, the rest after."""
    startup = SLOW_RENDER + "\nimport corpus_build.site.preview as preview\npreview.SHOW_FIRST_FROM = 1\n"
    seen, log, page = _one_edit(project, startup, "Edited in a large corpus.")
    assert "Edited in a large corpus." in page
    assert log.count("page(s) shown in") == 1 and len(seen) == 2, f"{len(seen)} reload(s):\n" + log.text()
    assert "Traceback" not in log.text()


def test_an_idle_server_does_not_scan_the_files_it_watches(project):
    """An idle server costs nothing, however many files corpus/ holds (file events, not polling).

    Its CPU while idle is compared with a baseline measured here, in the same run: what one scan
    of corpus/ costs (watchdog's snapshot, which MkDocs' polling observer takes every 0.5 s).
    A file written beside mkdocs.yml then is no change: no build."""
    from watchdog.utils.dirsnapshot import DirectorySnapshot

    junk = project / "corpus" / "01-gpu" / "raw" / "tilelang" / "checkout"
    for i in range(100):
        folder = junk / f"d{i:03d}"
        folder.mkdir(parents=True)
        for j in range(50):
            (folder / f"f{j:02d}.txt").write_text("x", encoding="utf-8")
    server, log, base = start_serve(project)
    try:
        assert _wait_for(lambda: _get(base + "sources/tilelang/")[0] == 200, 120), "mkdocs serve did not start:\n" + log.text()
        time.sleep(3)
        builds = log.count("Building documentation") + log.count("page(s) rebuilt in")
        scans = []
        for _ in range(3):
            started_scan = time.process_time()
            DirectorySnapshot(str(project / "corpus"))
            scans.append(time.process_time() - started_scan)
        scan = sorted(scans)[1]
        before, started = _cpu_seconds(server.pid), time.monotonic()
        time.sleep(8)
        used, idle = _cpu_seconds(server.pid) - before, time.monotonic() - started
        # Polling would cost two scans a second; events cost next to nothing (measured: 0.002 core).
        assert used < scan * idle / 2, f"the idle server used {used:.3f} s of CPU in {idle:.1f} s; one scan of the 5,000 files costs {scan:.3f} s"
        for i in range(10):  # a file beside mkdocs.yml (a log, an editor's swap file) is no change of mkdocs.yml
            with open(project / "notes.log", "a", encoding="utf-8") as log_file:
                log_file.write(f"line {i}\n")
            time.sleep(0.5)
        time.sleep(2)
        assert log.count("Building documentation") + log.count("page(s) rebuilt in") == builds, "a build started with nothing changed:\n" + log.text()
        # And a change is still seen, at once.
        path = project / "corpus" / "01-gpu" / "sources.yaml"
        path.write_text(path.read_text(encoding="utf-8").replace("Second line of the note.", "Seen by events."), encoding="utf-8")
        assert _wait_for(lambda: "Seen by events." in _get(base + "sources/tilelang/")[1], 60), log.text()
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_a_broken_mkdocs_yml_while_serving_is_one_message_and_the_last_good_site(project):
    server, log, base = start_serve(project)
    config = project / "mkdocs.yml"
    good = config.read_text(encoding="utf-8")
    try:
        assert _wait_for(lambda: _get(base + "sources/tilelang/")[0] == 200, 120), "mkdocs serve did not start:\n" + log.text()
        time.sleep(2)
        before = _get(base + "sources/tilelang/")[1]
        config.write_text(good + "\nnav: [\n", encoding="utf-8")  # unparsable YAML
        assert _wait_for(lambda: log.count("the site served is still the last good one") == 1, 60), log.text()
        for page in ("", "sources/tilelang/", "sections/01-gpu/"):
            status, _body, seconds = _get(base + page, timeout=10)
            assert status == 200 and seconds < 2, (page, status, seconds)
        same = re.compile(r"livereload\((\d+), \d+\)")  # the epoch, and a number for the request
        assert same.sub(r"\1", _get(base + "sources/tilelang/")[1]) == same.sub(r"\1", before)  # the same site, no reload
        config.write_text(good.replace("theme:\n  name: material", "theme:\n  name: no-such-theme"), encoding="utf-8")  # a theme not installed
        assert _wait_for(lambda: log.count("the site served is still the last good one") == 2, 60), log.text()
        assert _get(base + "sources/tilelang/", timeout=10)[0] == 200
        config.write_text(good, encoding="utf-8")  # fixed: a full build, the banner-free site
        assert _wait_for(lambda: log.count("Reloading browsers") >= 1 and _get(base + "sources/tilelang/")[0] == 200
                         and log.text().rfind("Building documentation") > log.text().rfind("still the last good one"), 120), log.text()
    finally:
        server.terminate()
        server.wait(timeout=30)
    text = log.text()
    assert "Traceback" not in text and "appear stuck" not in text, text
    assert str(config) in text


# A fetch swapping cuda-guide's mirror while the first build reads it: its text rewritten and its record
# put back by a rename (a new file, as fetch and watch write it), at the build's first read of its files.
SWAP_DURING_FIRST_BUILD = '''
import os
import shutil
import corpus_build.render.mirror as mirror
import corpus_build.render.mirrortext as mirrortext

_real = mirrortext.mirror_file
_done = []


def _swapping(corpus, source, name):
    if source.id == "cuda-guide" and not _done:
        _done.append(1)
        # As fetch installs a new capture: a staged copy of the folder swapped in whole (a record
        # only rewritten in place, the folder kept, is an unchanged fetch: no change to the pages).
        raw = corpus.raw_dir(source)
        stage, old = raw.with_name(".cuda-guide.tmp-sim"), raw.with_name(".cuda-guide.old-sim")
        shutil.copytree(raw, stage)
        (stage / "text.md").write_text("# Archived words\\n\\nWhat the second capture said.", encoding="utf-8")
        os.rename(raw, old)
        os.rename(stage, raw)
        shutil.rmtree(old)
    return _real(corpus, source, name)


mirrortext.mirror_file = _swapping
mirror.mirror_file = _swapping
'''


def test_serve_builds_again_when_a_mirror_changed_during_its_build(project):
    """`mkdocs serve` beside a fetch: the plugin cannot run MkDocs' build again from inside it, so it
    asks the live server for another full build, which shows one capture throughout."""
    from tests.test_mirror_pages import write_mirrors

    write_mirrors(project, "http://127.0.0.1:9")
    server, log, base = start_serve(project, startup=SWAP_DURING_FIRST_BUILD)
    try:
        assert _wait_for(lambda: _get(base + "sources/cuda-guide/")[0] == 200, 90), "mkdocs serve did not start:\n" + log.text()
        assert _wait_for(lambda: log.count("Building documentation") >= 2 and log.count("Reloading browsers") >= 1, 90), log.text()
        assert "changed during the build: building again" in log.text(), log.text()
        assert "second capture" in _get(base + "sources/cuda-guide/text/")[1]
    finally:
        server.terminate()
        server.wait(timeout=30)
    text = log.text()
    assert "Traceback" not in text, text
