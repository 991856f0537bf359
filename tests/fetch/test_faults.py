"""Real conditions: bombs, resets, trickles, caps, kills, concurrent runs, frozen pins, WARC, CLI."""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import threading
import time
import zlib
from dataclasses import replace
from pathlib import Path

import pytest

from corpus_build import registry
from corpus_build.core.errors import UsageError
from corpus_build.core.provenance import Status, read_failure, read_provenance
from corpus_build.fetch import fetch_corpus
from corpus_build.fetch.lockfile import run_lock

from .conftest import write_corpus
from .server import Reply
from .test_html import page


def _mirrored(corpus, server, options, source_id="doc"):
    [first] = fetch_corpus(corpus, replace(options, ids=(source_id,)))
    assert first.status is Status.OK, first.error
    raw = corpus.raw_dir(corpus.source(source_id))
    return raw, {p.relative_to(raw): p.read_bytes() for p in raw.rglob("*") if p.is_file()}


def _snapshot(raw: Path):
    return {p.relative_to(raw): p.read_bytes() for p in raw.rglob("*") if p.is_file()}


def test_gzip_bomb_is_stopped_and_previous_mirror_kept(server, make_corpus, options):
    server.add("/doc", page())
    corpus = make_corpus([{"id": "doc", "url": server.url("/doc")}])
    raw, before = _mirrored(corpus, server, options)
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    bomb = compressor.compress(b"\0" * (64 * 1024 * 1024)) + compressor.flush()  # 64 MB of zeros in ~64 KB
    server.routes["/doc"] = lambda r: Reply(200, bomb, {"Content-Type": "text/html", "Content-Encoding": "gzip"})
    [result] = fetch_corpus(corpus, replace(options, force=True, max_decoded_bytes=8 * 1024 * 1024))
    assert result.status is Status.FAILED and "compression bomb" in result.error
    assert _snapshot(raw) == before
    assert read_failure(raw).error == result.error
    assert not [p for p in raw.parent.iterdir() if ".tmp-" in p.name]


def test_gzip_body_is_decoded_and_warc_keeps_the_transfer(server, make_corpus, options):
    body = page().encode()
    server.routes["/gz"] = lambda r: Reply(200, gzip.compress(body), {"Content-Type": "text/html", "Content-Encoding": "gzip"})
    corpus = make_corpus([{"id": "gz", "url": server.url("/gz")}])
    [result] = fetch_corpus(corpus, options)
    assert result.status is Status.OK, result.error
    raw = corpus.raw_dir(corpus.source("gz"))
    assert (raw / "page.html").read_bytes() == body
    from warcio.archiveiterator import ArchiveIterator

    with open(raw / "capture.warc.gz", "rb") as handle:
        records = [(r.rec_type, r.rec_headers.get_header("WARC-Target-URI"), r.content_stream().read()) for r in ArchiveIterator(handle)]
    assert [r[0] for r in records] == ["response", "request"]  # warcio's pair order
    assert records[0][1] == server.url("/gz") and records[0][2] == body  # warcio decodes the gzip on read
    assert not [p for p in raw.iterdir() if p.name.endswith(".raw")]


def test_oversized_body_trickle_and_reset(server, make_corpus, options):
    server.routes["/big"] = lambda r: Reply(200, b"x" * 300_000, {"Content-Type": "text/html"})
    server.routes["/big-unannounced"] = lambda r: Reply(200, iter([b"x" * 100_000] * 3), {"Content-Type": "text/html"})
    server.routes["/slow"] = lambda r: Reply(200, iter([b"<p>drip</p>"] * 50), {"Content-Type": "text/html"}, pause=0.1)
    server.routes["/reset"] = lambda r: Reply(200, page().encode(), {"Content-Type": "text/html"}, reset_after=100)
    corpus = make_corpus([{"id": i, "url": server.url(f"/{i}")} for i in ("big", "big-unannounced", "slow", "reset")])
    started = time.monotonic()
    big, unannounced, slow, reset = fetch_corpus(corpus, replace(options, max_bytes=200_000, total_timeout=1.0, read_timeout=0.5))
    assert time.monotonic() - started < 8
    assert big.status is Status.FAILED and "size cap" in big.error and server.count("/big") == 1
    assert unannounced.status is Status.FAILED and "size cap" in unannounced.error
    assert slow.status is Status.FAILED and ("timeout" in slow.error or "timed out" in slow.error)
    assert reset.status is Status.FAILED and server.count("/reset") == 3  # retried, then given up
    assert [a.outcome for a in read_failure(corpus.raw_dir(corpus.source("reset"))).attempts] == ["transport"] * 3


def test_second_run_is_refused_while_one_runs(make_corpus, options, server):
    server.add("/doc", page())
    corpus = make_corpus([{"id": "doc", "url": server.url("/doc")}])
    with run_lock(corpus.root):
        with pytest.raises(UsageError, match="already running"):
            fetch_corpus(corpus, options)
    assert fetch_corpus(corpus, options)[0].status is Status.OK


def test_frozen_fails_loudly_when_content_moved(server, make_corpus, options):
    server.add("/doc", page())
    corpus = make_corpus([{"id": "doc", "url": server.url("/doc")}])
    raw, before = _mirrored(corpus, server, options)
    lock = (corpus.root / "corpus.lock").read_text()
    assert fetch_corpus(corpus, replace(options, frozen=True))[0].status is Status.UNCHANGED
    before = _snapshot(raw)
    server.add("/doc", page(title="Changed"))
    [result] = fetch_corpus(corpus, replace(options, frozen=True))
    assert result.status is Status.FAILED and "no longer matches corpus.lock" in result.error
    assert _snapshot(raw) == before and (corpus.root / "corpus.lock").read_text() == lock


def _cli(project: Path, *args: str, env=None) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if "proxy" not in k.lower() and k not in ("GITHUB_TOKEN", "HF_ENDPOINT", "GITHUB_API_URL")}
    return subprocess.run([sys.executable, "-m", "corpus_build", "--project", str(project), *args], capture_output=True, text=True, env={**clean, **(env or {})}, timeout=120)


def test_cli_fetch_json_status_and_exit_codes(server, make_corpus, tmp_path):
    server.add("/doc", page())
    corpus = make_corpus([{"id": "doc", "url": server.url("/doc")}, {"id": "gone", "url": server.url("/gone")}],
                         fetch={"retries": 0, "extract_workers": 1})
    ok = _cli(tmp_path, "fetch", "doc", "--json")
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["status"] == "ok" and ok.stderr == ""
    both = _cli(tmp_path, "fetch", "--json")
    assert both.returncode == 1
    assert [json.loads(line)["status"] for line in both.stdout.splitlines()] == ["unchanged", "failed"]
    table = _cli(tmp_path, "fetch", "doc")
    assert table.returncode == 0 and "unchanged" in table.stdout
    assert _cli(tmp_path, "fetch", "nope").returncode == 2
    bad = _cli(tmp_path, "fetch", "--rewrite", "nonsense")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and "FROM=TO" in bad.stderr
    status = _cli(tmp_path, "status", "--json")
    states = {json.loads(line)["id"]: json.loads(line) for line in status.stdout.splitlines()}
    assert states["doc"]["state"] == "unchanged" and states["gone"]["state"] == "failed" and "404" in states["gone"]["error"]


@pytest.mark.slow
def test_sigkill_mid_download_keeps_previous_mirror_and_rerun_succeeds(server, make_corpus, tmp_path):
    server.add("/doc", page())
    corpus = make_corpus([{"id": "doc", "url": server.url("/doc")}], fetch={"extract_workers": 0})
    assert _cli(tmp_path, "fetch").returncode == 0
    raw = corpus.raw_dir(corpus.source("doc"))
    before = _snapshot(raw)
    started = []

    def trickle(request):
        started.append(time.monotonic())
        return Reply(200, iter([b"<p>" + b"x" * 1000 + b"</p>"] * 200), {"Content-Type": "text/html"}, pause=0.05)

    server.routes["/doc"] = trickle
    clean = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    process = subprocess.Popen([sys.executable, "-m", "corpus_build", "--project", str(tmp_path), "fetch", "--force"], env=clean,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while not [p for p in raw.parent.iterdir() if ".tmp-" in p.name and any(p.iterdir())] and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert _snapshot(raw) == before  # the previous mirror and provenance, byte for byte
    server.add("/doc", page(title="After the kill"))
    rerun = _cli(tmp_path, "fetch")
    assert rerun.returncode == 0, rerun.stderr
    assert read_provenance(raw).document.title == "After the kill"
    assert not [p for p in raw.parent.iterdir() if ".tmp-" in p.name or ".old-" in p.name]


def test_recently_checked_sources_cost_no_request(server, make_corpus, options):
    server.add("/doc", page(), etag='"e"')
    corpus = make_corpus([{"id": "doc", "url": server.url("/doc")}])
    opts = replace(options, recheck_after=600)
    assert fetch_corpus(corpus, opts)[0].status is Status.OK
    assert fetch_corpus(corpus, opts)[0].status is Status.UNCHANGED
    assert server.count("/doc") == 1
    assert fetch_corpus(corpus, replace(opts, force=True))[0].status is Status.OK and server.count("/doc") == 2


def test_full_run_drops_pins_of_removed_sources(server, make_corpus, options, tmp_path):
    server.add("/a", page(title="A"))
    server.add("/b", page(title="B"))
    both = [{"id": "a", "url": server.url("/a")}, {"id": "b", "url": server.url("/b")}]
    corpus = make_corpus(both)
    assert [r.status for r in fetch_corpus(corpus, options)] == [Status.OK, Status.OK]

    def pinned() -> set[str]:
        return set(json.loads((corpus.root / "corpus.lock").read_text())["sources"])

    assert pinned() == {"a", "b"}
    corpus = registry.load(write_corpus(tmp_path, both[:1]))  # "b" removed from sources.yaml
    fetch_corpus(corpus, replace(options, ids=("a",)))
    assert pinned() == {"a", "b"}  # a filtered run speaks only for what it selected
    fetch_corpus(corpus, options)
    assert pinned() == {"a"}


def _hold(root: Path, command: str, seconds: float) -> threading.Thread:
    """`command`'s hold of the run lock, for `seconds`, in a thread (flock locks conflict within one process too)."""
    taken = threading.Event()

    def hold() -> None:
        with run_lock(root, command):
            taken.set()
            time.sleep(seconds)

    thread = threading.Thread(target=hold)
    thread.start()
    assert taken.wait(10)
    return thread


def test_a_fetch_waits_for_a_watch_writing_a_record_and_names_the_command_that_holds_the_lock(make_corpus, options, server):
    server.add("/doc", page())
    corpus = make_corpus([{"id": "doc", "url": server.url("/doc")}])
    brief = _hold(corpus.root, "watch", 0.5)  # watch holds the lock only while it writes one record
    assert fetch_corpus(corpus, options)[0].status is Status.OK
    brief.join()
    stuck = _hold(corpus.root, "watch", 8)
    with pytest.raises(UsageError) as caught:
        fetch_corpus(corpus, options)
    stuck.join()
    message = str(caught.value)
    assert "`corpus-build watch` (pid " in message and "still did after 5 s" in message and "fetch is already running" not in message
    other = _hold(corpus.root, "attach", 1)
    started = time.monotonic()
    with pytest.raises(UsageError, match=r"`corpus-build attach` is already running on .* \(pid \d+, started "):
        fetch_corpus(corpus, options)
    assert time.monotonic() - started < 1  # a long holder is not waited for
    other.join()
