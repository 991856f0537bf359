"""What the outside suite uses to drive corpus-build as a user does: the console script in a
subprocess with a hard timeout, bounded output, and checks of what a demanding user is promised.

Nothing here imports corpus_build: the suite knows the tool only from README.md, `--help` and
what the commands do.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

BIN = Path(sys.executable).parent
CORPUS_BUILD = [str(BIN / "corpus-build")] if (BIN / "corpus-build").exists() else [sys.executable, "-m", "corpus_build"]
MKDOCS = [str(BIN / "mkdocs")] if (BIN / "mkdocs").exists() else [sys.executable, "-m", "mkdocs"]

# Read at most this much of each stream; anything longer is itself a failure of "bounded output".
OUTPUT_CAP = 256 * 1024
TRACEBACK = "Traceback (most recent call last)"


@dataclass
class Run:
    args: list[str]
    rc: int | None  # None: killed by our timeout
    out: str
    err: str
    seconds: float
    out_bytes: int
    err_bytes: int
    cpu: float = 0.0  # user + system seconds of the command and the children it waited for

    @property
    def timed_out(self) -> bool:
        return self.rc is None

    def both(self) -> str:
        return self.out + "\n" + self.err

    def describe(self) -> str:
        tail = (self.err.strip().splitlines() or self.out.strip().splitlines() or ["(no output)"])[-1]
        return f"{' '.join(self.args[:6])} -> rc={self.rc} in {self.seconds:.1f}s ({self.cpu:.1f}s CPU); last line: {tail[:300]}"


def env(**extra: str) -> dict[str, str]:
    """The test process's environment (tests/conftest.py already made it hermetic) plus `extra`."""
    e = {k: v for k, v in os.environ.items() if k.lower() not in ("http_proxy", "https_proxy", "all_proxy", "github_token")}
    e.setdefault("CORPUS_BUILD_OFFLINE", "1")
    e["NO_PROXY"] = "127.0.0.1,localhost"
    e["PYTHONUNBUFFERED"] = "1"
    e.update(extra)
    return e


def _limit_memory(mb: int):
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (mb * 1024 * 1024, mb * 1024 * 1024))

    return apply


def run(cmd: list[str], cwd: Path, timeout: float = 60, extra_env: dict[str, str] | None = None, stdin: bytes | None = None, max_memory_mb: int | None = None) -> Run:
    """Run `cmd` in its own process group; on timeout the whole group is killed (the suite never hangs).

    `max_memory_mb` caps the address space, so a command reading an endless input fails instead of
    taking the machine's memory with it (a MemoryError then fails the test, as it should)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.monotonic()
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        proc = subprocess.Popen(
            cmd,
            cwd=cwd,
            stdout=out,
            stderr=err,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            env=env(**(extra_env or {})),
            start_new_session=True,
            preexec_fn=_limit_memory(max_memory_mb) if max_memory_mb else None,
        )
        try:
            proc.communicate(stdin, timeout=timeout)
            rc: int | None = proc.returncode
        except subprocess.TimeoutExpired:
            kill_group(proc)
            rc = None
        seconds = time.monotonic() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - usage.ru_utime) + (after.ru_stime - usage.ru_stime)
        texts = []
        sizes = []
        for f in (out, err):
            sizes.append(f.seek(0, os.SEEK_END))
            f.seek(0)
            texts.append(f.read(OUTPUT_CAP).decode("utf-8", "replace"))
    return Run(cmd, rc, texts[0], texts[1], seconds, sizes[0], sizes[1], cpu)


def kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL the process group we started for `proc` (and only it), then reap it."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)


def cb(*args: str, cwd: Path, timeout: float = 60, extra_env: dict[str, str] | None = None, stdin: bytes | None = None, max_memory_mb: int | None = None) -> Run:
    return run([*CORPUS_BUILD, *args], cwd, timeout, extra_env, stdin, max_memory_mb)


def mkdocs(*args: str, cwd: Path, timeout: float = 60) -> Run:
    return run([*MKDOCS, *args], cwd, timeout)


# --- what every run promises -------------------------------------------------------------------


def assert_no_traceback(r: Run, max_output: int = OUTPUT_CAP) -> None:
    assert not r.timed_out, f"did not finish within its time bound: {r.describe()}"
    text = r.both()
    assert TRACEBACK not in text, f"a Python traceback reached the user: {r.describe()}\n{text[-3000:]}"
    assert "Task exception was never retrieved" not in text, f"asyncio task traceback: {r.describe()}"
    assert r.out_bytes + r.err_bytes < max_output, f"unbounded output ({r.out_bytes}+{r.err_bytes} bytes): {r.describe()}"


def error_lines(r: Run) -> list[str]:
    """stderr lines that are not warnings (a registry's warnings may precede the error) nor
    argparse's usage block (`usage: …` and its indented continuation lines) before its error line."""
    return [line for line in r.err.splitlines() if line.strip() and "warning" not in line.lower() and not line.startswith(("usage:", " "))]


def assert_refused(r: Run, codes: tuple[int, ...] = (1, 2)) -> str:
    """Refused input: a non-zero exit code, one clear line on stderr, never a traceback."""
    assert_no_traceback(r)
    assert r.rc in codes, f"expected a refusal with exit code in {codes}: {r.describe()}\nstdout: {r.out[-1500:]}\nstderr: {r.err[-1500:]}"
    lines = error_lines(r)
    assert lines, f"refused without saying why on stderr: {r.describe()}"
    assert len(lines) <= 3, f"expected one clear line on stderr, got {len(lines)}: {lines[:6]}"
    assert all(len(line) <= 600 for line in lines), f"an error line too long to read: {lines[0][:200]}…"
    return lines[0]


def assert_ok(r: Run) -> None:
    assert_no_traceback(r)
    assert r.rc == 0, f"expected success: {r.describe()}\nstderr: {r.err[-2000:]}"


# --- what is on disk ---------------------------------------------------------------------------


def snapshot(root: Path, skip: tuple[str, ...] = ()) -> dict[str, str]:
    """Every entry under `root` (symlinks not followed) -> its kind and content hash."""
    result: dict[str, str] = {}
    if not root.exists() and not root.is_symlink():
        return result
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        rel_dir = os.path.relpath(dirpath, root)
        dirnames[:] = [d for d in dirnames if os.path.normpath(os.path.join(rel_dir, d)) not in skip]
        for name in dirnames + filenames:
            path = Path(dirpath, name)
            rel = os.path.normpath(os.path.join(rel_dir, name))
            if rel in skip:
                continue
            if path.is_symlink():
                result[rel] = "link:" + os.readlink(path)
            elif path.is_dir():
                result[rel] = "dir"
            elif path.is_file():
                result[rel] = "file:" + hashlib.sha256(path.read_bytes()).hexdigest()
            else:
                result[rel] = "special"
    return result


def file_set(root: Path) -> frozenset[str]:
    """Relative paths of the regular files under `root` (what a static server would serve)."""
    if not root.is_dir():
        return frozenset()
    return frozenset(os.path.relpath(Path(d, f), root) for d, _, files in os.walk(root) for f in files)


def tree_bytes(root: Path) -> int:
    return sum(Path(d, f).stat().st_size for d, _, files in os.walk(root) for f in files if not Path(d, f).is_symlink())


def read_yaml(path: Path):
    """Parse a YAML file as data; `!!python/…` tags (mkdocs.yml's slugify) become None."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)
    return yaml.load(path.read_text(encoding="utf-8"), Loader=Loader)
