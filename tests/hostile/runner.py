"""Run one hostile-input case: a minimal project, one mutation, one command, checked outcome.

A case file (YAML, one per case, in cases/) says:

    name, class        what it is and which class of defect it guards (for the report)
    command            argv after `corpus-build --project P` (e.g. [check]); "@project" stands for P
    mutate             a list of steps applied to the base project:
                         {write: PATH, text: TEXT}       TEXT may contain {fill:N:C} (N copies of C)
                         {delete: PATH} {mkdir: PATH} {fifo: PATH}
                         {symlink: PATH, to: TARGET}     TARGET "@outside[/name]" = the sentinel folder
    expect             exit (code), message (a regex the output must match), and optionally
                       raw_escape: false (no ESC byte may reach the terminal)
    isolate            run in a subprocess with a memory cap (bombs, huge inputs)

Every case also asserts: no traceback, and nothing outside the project changed (a sentinel
folder beside it, with a file, is compared byte for byte before and after).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import resource
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

CASES = Path(__file__).parent / "cases"
TIMEOUT = int(os.environ.get("HOSTILE_TIMEOUT", "30"))  # seconds per case; a hang is a failure
MEMORY = 1536 * 1024 * 1024  # address-space cap of an isolated case

BASE = {
    "corpus/corpus.yaml": "title: Hostile base\nlanguages: [en]\n",
    "corpus/01-main/section.yaml": "title: Main\n",
    "corpus/01-main/sources.yaml": (
        "- id: good\n  title: A good source\n  url: http://127.0.0.1:9/good\n  lang: en\n  note: Why it matters.\n  chapters: [1]\n"
    ),
    "corpus/chapters.yaml": "- number: 1\n  title: One\n  path:\n    - {source: good, why: because}\n",
    "corpus/digests/.keep": "",
}
# fetch settings that keep a fetch case fast: the cited URL is a closed local port.
FETCH_FAST = "fetch: {retries: 0, extract_workers: 0, connect_timeout: 1, total_timeout: 5}\n"


@dataclass
class Outcome:
    name: str
    klass: str
    exit: int
    output: str
    traceback: bool
    outside_changed: bool
    seconds: float
    positioned: bool = False
    problems: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in ("name", "klass", "exit", "traceback", "outside_changed", "seconds", "positioned", "problems")}


def load_cases() -> list[dict]:
    return [dict(yaml.safe_load(p.read_text(encoding="utf-8")), file=p.name) for p in sorted(CASES.glob("*.yaml"))]


def _fill(text: str) -> str:
    return re.sub(r"\{fill:(\d+):(.)\}", lambda m: m.group(2) * int(m.group(1)), text)


def make_project(tmp: Path, case: dict) -> tuple[Path, Path]:
    project, outside = tmp / "project", tmp / "outside"
    outside.mkdir(parents=True)
    (outside / "keep.txt").write_text("precious bytes outside the project\n", encoding="utf-8")
    for rel, text in BASE.items():
        path = project / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    for step in case.get("mutate", []):
        if "write" in step:
            path = project / step["write"]
            path.parent.mkdir(parents=True, exist_ok=True)
            data = step["text"] if "text" in step else ""
            if step.get("bytes_hex"):
                path.write_bytes(bytes.fromhex(step["bytes_hex"]))
            else:
                path.write_text(_fill(data), encoding="utf-8")
        elif "delete" in step:
            path = project / step["delete"]
            if path.is_dir() and not path.is_symlink():
                import shutil

                shutil.rmtree(path)
            else:
                path.unlink()
        elif "mkdir" in step:
            path = project / step["mkdir"]
            if path.exists() and not path.is_dir():
                path.unlink()
            path.mkdir(parents=True, exist_ok=True)
        elif "fifo" in step:
            path = project / step["fifo"]
            path.unlink(missing_ok=True)
            path.parent.mkdir(parents=True, exist_ok=True)
            os.mkfifo(path)
        elif "symlink" in step:
            path = project / step["symlink"]
            target = step["to"].replace("@outside", str(outside))
            if path.exists() or path.is_symlink():
                if path.is_dir() and not path.is_symlink():
                    import shutil

                    shutil.rmtree(path)
                else:
                    path.unlink()
            path.parent.mkdir(parents=True, exist_ok=True)
            if step.get("make_target_dir"):
                Path(target).mkdir(parents=True, exist_ok=True)
            os.symlink(target, path)
        else:
            raise ValueError(f"unknown mutation step {step!r} in {case['file']}")
    return project, outside


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file() and not p.is_symlink()}


class _Timeout(Exception):
    pass


def _in_process(argv: list[str]) -> tuple[int, str, bool]:
    from corpus_build import cli

    out, err = io.StringIO(), io.StringIO()
    traceback = False

    def alarm(signum: int, frame: object) -> None:
        raise _Timeout

    old = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(TIMEOUT)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = cli.main(argv)
            except SystemExit as exc:  # argparse
                code = exc.code if isinstance(exc.code, int) else 2
            except _Timeout:
                code, traceback = -1, True
                err.write(f"\nTIMEOUT after {TIMEOUT} s\n")
            except BaseException as exc:  # noqa: BLE001 - an uncaught exception is exactly what we count
                import traceback as tb

                err.write("Traceback (most recent call last):\n" + "".join(tb.format_exception(exc)))
                code, traceback = -1, True
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    text = out.getvalue() + err.getvalue()
    return code, text, traceback or "Traceback (most recent call last)" in text


def _isolated(argv: list[str]) -> tuple[int, str, bool]:
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))

    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower() and not k.startswith("GITHUB")}
    try:
        done = subprocess.run([sys.executable, "-m", "corpus_build", *argv], capture_output=True, timeout=TIMEOUT, preexec_fn=limit, env=env)
    except subprocess.TimeoutExpired as exc:
        text = (exc.stdout or b"").decode("utf-8", "replace") + (exc.stderr or b"").decode("utf-8", "replace")
        return -1, text + f"\nTIMEOUT after {TIMEOUT} s\n", True
    text = done.stdout.decode("utf-8", "replace") + done.stderr.decode("utf-8", "replace")
    return done.returncode, text, "Traceback (most recent call last)" in text or "MemoryError" in text


# A file (registry path with its line, or any absolute path) or a URL named in the output.
POSITION = re.compile(r"(corpus|docs)/[^\s:]+(:\d+)?|https?://\S+|\.(fetch\.lock|cache)|/[^\s:]+/[^\s:]+")


def run_case(case: dict, tmp: Path) -> Outcome:
    project, outside = make_project(tmp, case)
    before = _snapshot(outside)
    argv = ["--project", str(project), *(arg.replace("@project", str(project)) for arg in case["command"])]
    started = time.monotonic()
    code, text, traceback = (_isolated if case.get("isolate") else _in_process)(argv)
    seconds = time.monotonic() - started
    outside_changed = _snapshot(outside) != before or sorted(p.name for p in tmp.iterdir()) != ["outside", "project"]
    expect = case.get("expect", {})
    problems = []
    if "exit" in expect and code != expect["exit"]:
        problems.append(f"exit {code}, expected {expect['exit']}")
    if "message" in expect and not re.search(expect["message"], text, re.S):
        problems.append(f"output does not match /{expect['message']}/")
    if expect.get("raw_escape") is False and ("\x1b" in text or "\u202e" in text):
        problems.append("a raw terminal escape reached the output")
    if traceback:
        problems.append("traceback")
    if outside_changed:
        problems.append("something outside the project changed")
    positioned = bool(POSITION.search(text))
    if expect.get("positioned", True) and code != 0 and not positioned:
        problems.append("the message names no file, line or URL")
    return Outcome(case["name"], case.get("class", "?"), code, text, traceback, outside_changed, seconds, positioned, problems)


def write_report(outcomes: list[Outcome], path: Path) -> None:
    path.write_text(json.dumps([o.to_dict() for o in outcomes], indent=1), encoding="utf-8")
