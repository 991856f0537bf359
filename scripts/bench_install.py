"""Install weight: a fresh venv with the built wheel, core alone and with the `fetch` extra.

    .venv/bin/python scripts/bench_install.py [--ref GIT_REF]

Builds the wheel of this tree (and of GIT_REF, default HEAD, for the baseline) and installs
each into new venvs under a temporary folder, then prints the venvs' sizes as `du` counts them
(blocks on disk, with the bytecode pip compiles). An empty venv (Python + pip) is measured in
the same run: the package's own weight is the difference. Issue 23's goal: core ≤ 230 MB.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def du_mb(path: Path) -> float:
    out = subprocess.run(["du", "-sk", str(path)], capture_output=True, text=True, check=True).stdout
    return int(out.split()[0]) / 1024


def venv(path: Path, *requirements: str) -> float:
    subprocess.run([sys.executable, "-m", "venv", str(path)], check=True)
    if requirements:
        subprocess.run([str(path / "bin" / "pip"), "install", "-q", *requirements], check=True)
    return du_mb(path)


def wheel(tree: Path, out: Path) -> Path:
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(tree)], check=True)
    return next(out.glob("corpus_build-*.whl"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ref", default="HEAD", help="the baseline commit (default: HEAD)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        base_tree = t / "base-tree"
        subprocess.run(["git", "worktree", "add", "-q", "--detach", str(base_tree), args.ref], cwd=ROOT, check=True)
        try:
            base_wheel = wheel(base_tree, t / "base-wheel")
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(base_tree)], cwd=ROOT, check=True)
        this_wheel = wheel(ROOT, t / "this-wheel")
        empty = venv(t / "empty")
        rows = [
            (f"baseline ({args.ref})", venv(t / "base", str(base_wheel))),
            ("this tree, core", venv(t / "core", str(this_wheel))),
            ("this tree, core + [fetch]", venv(t / "fetch", f"{this_wheel}[fetch]")),
        ]
    base = rows[0][1]
    print(f"{'install':<32} {'MB':>7} {'package':>8} {'vs baseline':>12}")
    print(f"{'empty venv (python, pip)':<32} {empty:7.1f}")
    for name, size in rows:
        print(f"{name:<32} {size:7.1f} {size - empty:8.1f} {size / base:11.2f}x")


if __name__ == "__main__":
    main()
