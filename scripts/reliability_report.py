"""Run the hostile-input and fault suites and print one reliability table (issue 10).

    python scripts/reliability_report.py [--quick]

Rows, each measured in this run:

- inputs tried, positioned errors, tracebacks: every case of tests/hostile/cases (run by
  tests/hostile/test_hostile.py with HOSTILE_REPORT) plus the property-based examples;
- faults survived: fault scenarios run here against the real local test server (bombs,
  resets, caps, error statuses, a redirect into this machine, symlinks out of the corpus,
  SIGTERM/SIGHUP/SIGKILL mid-download) plus the fault test files' passing tests;
- bytes of good mirrors lost: after every scenario here, the bytes of the good mirror that
  changed or vanished (compared with a snapshot taken before the fault);
- writes outside the corpus: files changed in a sentinel folder next to the project;
- scripts run: markup found in digests drafted from hostile GitHub data (tags, logins,
  html_urls, release names), after conversion with the site's Markdown extensions.

Exit status 1 when a must-be-zero row is not zero.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
from tests.fetch.conftest import write_corpus  # noqa: E402
from tests.fetch.server import FixtureServer, Reply  # noqa: E402
from tests.fetch.test_html import page  # noqa: E402

from corpus_build import registry  # noqa: E402
from corpus_build.core.errors import CorpusBuildError  # noqa: E402
from corpus_build.core.provenance import Status  # noqa: E402
from corpus_build.fetch import FetchOptions, fetch_corpus  # noqa: E402


def _pytest(paths: list[str], env: dict[str, str], junit: Path) -> dict[str, int]:
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={junit}", *paths], cwd=ROOT, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    suite = ET.parse(junit).getroot()
    suite = suite if suite.tag == "testsuite" else suite[0]
    counts = {k: int(suite.get(k, 0)) for k in ("tests", "failures", "errors", "skipped")}
    for case in suite.iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            print(f"  failed: {case.get('classname')}::{case.get('name')}", file=sys.stderr)
    counts["passed"] = counts["tests"] - counts["failures"] - counts["errors"] - counts["skipped"]
    return counts


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file() and not p.is_symlink()} if folder.is_dir() else {}


def _lost(before: dict[str, bytes], after: dict[str, bytes]) -> int:
    """Bytes of the good mirror that changed or vanished, unless a complete newer mirror replaced it.

    provenance.json is rewritten on purpose (checked_at) and not counted. A signal that
    arrives after a download finished may let the new mirror be installed: that is an
    update, not a loss, when every file the new record lists is there with its sha256.
    """
    changed = sum(len(data) for name, data in before.items() if name != "provenance.json" and after.get(name) != data)
    if changed and _complete(after):
        return 0
    return changed


def _complete(files: dict[str, bytes]) -> bool:
    import hashlib

    try:
        record = json.loads(files["provenance.json"])
    except (KeyError, ValueError):
        return False
    listed = record.get("files") or []
    return bool(listed) and all(f.get("path") in files and hashlib.sha256(files[f["path"]]).hexdigest() == f.get("sha256") for f in listed)


def fault_scenarios() -> list[tuple[str, bool, int, int]]:
    """(scenario, survived, bytes lost, outside writes) for each fault, against the real local server."""
    results = []
    server = FixtureServer()
    server.httpd.handle_error = lambda *args: None  # resets are the point here, not news
    server.start()
    options = FetchOptions(jobs=2, per_host=2, backoff=0.01, max_backoff=0.05, retries=1, total_timeout=5, read_timeout=2,
                           extract_workers=0, recheck_after=0, max_bytes=200_000, max_decoded_bytes=400_000)
    try:
        def scenario(name: str, reply, *, mutate=None, transport=None, url_path="/doc") -> None:
            with tempfile.TemporaryDirectory() as tmp:
                tmp_path = Path(tmp)
                outside = tmp_path / "outside"
                outside.mkdir()
                (outside / "keep.txt").write_text("outside", encoding="utf-8")
                server.add("/doc", page(title="Good"))
                root = write_corpus(tmp_path, [{"id": "doc", "url": server.url(url_path) if transport is None else "https://public.example/doc"}])
                if transport is None:
                    [first] = fetch_corpus(registry.load(root), options)
                else:
                    server.add("/doc", page(title="Good"))
                    direct = write_corpus(tmp_path, [{"id": "doc", "url": server.url("/doc")}])
                    [first] = fetch_corpus(registry.load(direct), options)
                    write_corpus(tmp_path, [{"id": "doc", "url": "https://public.example/doc"}])
                raw = root / "01-main" / "raw" / "doc"
                good = _snapshot(raw)
                outside_before = _snapshot(outside)
                server.routes["/doc"] = reply
                survived = first.status is Status.OK
                try:
                    if mutate:
                        mutate(root, outside)
                    [result] = fetch_corpus(registry.load(root), replace(options, force=True), transport=transport)
                    survived = survived and result.status is Status.FAILED
                except CorpusBuildError:
                    pass  # refused before writing: survived
                except Exception as exc:  # noqa: BLE001 - counted as not survived
                    print(f"  {name}: {type(exc).__name__}: {exc}", file=sys.stderr)
                    survived = False
                lost = _lost(good, _snapshot(raw))
                outside_writes = sum(1 for k, v in _snapshot(outside).items() if outside_before.get(k) != v)
                results.append((name, survived and lost == 0, lost, outside_writes))

        import gzip

        bomb = gzip.compress(b"\0" * 5_000_000)
        scenario("gzip bomb", lambda r: Reply(200, bomb, {"Content-Type": "text/html", "Content-Encoding": "gzip"}))
        scenario("oversized body", lambda r: Reply(200, b"x" * 300_000, {"Content-Type": "text/html"}))
        scenario("reset mid-body", lambda r: Reply(200, b"<p>" + b"y" * 50_000, {"Content-Type": "text/html"}, reset_after=1000))
        scenario("HTTP 500", lambda r: Reply(500, b"boom"))
        scenario("HTTP 404", lambda r: Reply(404, b"gone"))
        scenario("trickle past the timeout", lambda r: Reply(200, iter([b"z" * 100] * 100), {"Content-Type": "text/html"}, pause=0.2))
        scenario("corrupt gzip", lambda r: Reply(200, b"\x1f\x8b\x08\x00garbage", {"Content-Type": "text/html", "Content-Encoding": "gzip"}))
        scenario("redirect loop", lambda r: Reply(302, b"", {"Location": server.url("/doc")}))
        for link in ("01-main/raw/.failed", ".cache"):
            def mutate(root: Path, outside: Path, link: str = link) -> None:
                (root / link).parent.mkdir(parents=True, exist_ok=True)
                os.symlink(outside, root / link)

            scenario(f"symlink {link} out of the corpus", lambda r: Reply(500, b"boom"), mutate=mutate)

        def public(request: httpx.Request) -> httpx.Response:
            return httpx.Response(302, headers={"Location": server.url("/doc")})

        scenario("public host redirecting to 127.0.0.1", lambda r: Reply(200, page(title="Internal").encode(), {"Content-Type": "text/html"}),
                 transport=httpx.MockTransport(public))
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGKILL, signal.SIGINT):
            results.append(_signal_scenario(server, sig))
    finally:
        server.stop()
    return results


def _signal_scenario(server: FixtureServer, sig: signal.Signals) -> tuple[str, bool, int, int]:
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        server.add("/doc", page(title="Good"))
        root = write_corpus(tmp_path, [{"id": "doc", "url": server.url("/doc")}], fetch={"extract_workers": 1, "recheck_after": 0})
        env = {**{k: v for k, v in os.environ.items() if "proxy" not in k.lower()}, "PYTHONFAULTHANDLER": "1"}
        subprocess.run([sys.executable, "-m", "corpus_build", "--project", str(tmp_path), "fetch"], env=env, capture_output=True, check=False)
        raw = root / "01-main" / "raw" / "doc"
        good = _snapshot(raw)
        server.routes["/doc"] = lambda r: Reply(200, iter([b"<p>" + b"x" * 1000 + b"</p>"] * 300), {"Content-Type": "text/html"}, pause=0.1)
        with open(tmp_path / "err.txt", "wb") as err:
            process = subprocess.Popen([sys.executable, "-m", "corpus_build", "--project", str(tmp_path), "fetch", "--force"], env=env,
                                       stdout=subprocess.DEVNULL, stderr=err, preexec_fn=_terminal)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not [p for p in raw.parent.iterdir() if ".tmp-" in p.name and any(p.iterdir())]:
            time.sleep(0.05)
        family = _descendants(process.pid)
        process.send_signal(sig)
        hung = False
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:  # not survived; faulthandler prints where it hangs
            hung = True
            process.send_signal(signal.SIGABRT)
            process.wait(timeout=10)
            print(f"  {sig.name}: the fetch did not exit within 30 s:\n" + (tmp_path / "err.txt").read_text(errors="replace")[-4000:], file=sys.stderr)
        time.sleep(5)
        left = [pid for pid in family if _alive(pid)]
        for pid in left:
            os.kill(pid, signal.SIGKILL)
        staging = [p for p in raw.parent.iterdir() if ".tmp-" in p.name]
        traceback = "Traceback" in (tmp_path / "err.txt").read_text(errors="replace") and not hung
        lost = _lost(good, _snapshot(raw))
        survived = not hung and not left and not traceback and lost == 0 and (sig == signal.SIGKILL or not staging)
        if not survived:
            print(f"  {sig.name}: left={left} staging={staging} traceback={traceback} lost={lost}", file=sys.stderr)
        return (f"{sig.name} mid-download (workers running)", survived, lost, 0)


def _terminal() -> None:
    """The fetch as started from a terminal: default SIGINT/SIGHUP even when this report runs under nohup or `&`."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


def _descendants(pid: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                ppid = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def digest_markup() -> tuple[int, int]:
    """(payloads, markup elements found) in a digest drafted from hostile GitHub data."""
    from tests.test_hardening_watch import PAYLOAD, hostile_facts, markup_problems  # noqa: F401

    from corpus_build.watch.draft import DraftWriter

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "corpus"
        (root / "01-x").mkdir(parents=True)
        (root / "corpus.yaml").write_text("title: T\nlanguages: [en]\n", encoding="utf-8")
        (root / "01-x" / "section.yaml").write_text("title: X\n", encoding="utf-8")
        (root / "01-x" / "sources.yaml").write_text("[]\n", encoding="utf-8")
        text = DraftWriter(registry.load(root), hostile_facts()).render()
    payloads = text.count("svg/onload") + text.count("onerror") + text.count("javascript") + text.count("onmouseover")
    return payloads, len(markup_problems(text))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="skip the fault test files (the scenarios here still run)")
    args = parser.parse_args()
    started = time.monotonic()
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "hostile.jsonl"
        hostile = _pytest(["tests/hostile"], {**env, "HOSTILE_REPORT": str(report)}, Path(tmp) / "hostile.xml")
        outcomes = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()] if report.exists() else []
        faults_files = {"passed": 0, "tests": 0}
        if not args.quick:
            faults_files = _pytest(["tests/fetch/test_faults.py", "tests/fetch/test_hardening_fetch.py", "tests/fetch/test_hardening_disk.py", "tests/test_hardening_watch.py", "tests/watch/test_hardening_resume.py"],
                                   env, Path(tmp) / "faults.xml")
        browser_file = Path(tmp) / "browser.json"
        browser_run = _pytest(["tests/test_hardening_browser.py"], {**env, "HARDEN_BROWSER_REPORT": str(browser_file)}, Path(tmp) / "browser.xml")
        browser = json.loads(browser_file.read_text()) if browser_file.exists() else None
    scenarios = fault_scenarios()
    payloads, markup = digest_markup()
    property_examples = 4 * 25  # tests/hostile/test_properties.py: four properties, 25 examples each
    errors = [o for o in outcomes if o["exit"] != 0]
    rows = [
        ("hostile inputs tried (cases + property examples)", f"{len(outcomes)} + {property_examples}"),
        ("  cases refused with a positioned error", f"{sum(1 for o in errors if o['positioned'])} of {len(errors)} refused"),
        ("  cases failing their expectation", str(sum(1 for o in outcomes if o["problems"]))),
        ("  hostile suite tests passed (incl. properties)", f"{hostile['passed']} of {hostile['tests']}"),
        ("tracebacks (must be 0)", str(sum(1 for o in outcomes if o["traceback"]) + hostile["errors"])),
        ("fault scenarios survived (here)", f"{sum(1 for s in scenarios if s[1])} of {len(scenarios)}"),
        ("fault test files passed", f"{faults_files['passed']} of {faults_files['tests']}" if not args.quick else "skipped (--quick)"),
        ("bytes of good mirrors lost (must be 0)", str(sum(s[2] for s in scenarios))),
        ("scripts run: markup from hostile GitHub data in digests (must be 0)", f"{markup} (of {payloads} payloads)"),
        ("scripts run in Chromium on the built digest pages (must be 0)",
         f"{browser['scripts']} on {browser['pages']} pages, {browser['foreign']} foreign requests" if browser else f"not measured (browser test: {browser_run})"),
        ("writes outside the corpus (must be 0)", str(sum(s[3] for s in scenarios) + sum(1 for o in outcomes if o["outside_changed"]))),
    ]
    width = max(len(r[0]) for r in rows)
    print(f"{'measure':<{width}}  value")
    print(f"{'-' * width}  {'-' * 12}")
    for label, value in rows:
        print(f"{label:<{width}}  {value}")
    print()
    for name, survived, lost, outside in scenarios:
        print(f"  {'ok  ' if survived else 'FAIL'} {name}: {lost} bytes lost, {outside} outside writes")
    by_class: dict[str, int] = {}
    for o in outcomes:
        by_class[o["klass"]] = by_class.get(o["klass"], 0) + 1
    print("  cases by class: " + ", ".join(f"{k} {v}" for k, v in sorted(by_class.items())))
    print(f"  ({time.monotonic() - started:.0f} s)")
    zero = [rows[4][1], rows[7][1], rows[10][1]]
    bad = any(v != "0" for v in zero) or markup or (browser is not None and (browser["scripts"] or browser["foreign"])) or any(not s[1] for s in scenarios) or any(o["problems"] for o in outcomes)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
