"""How every command reads the registry: `load_corpus(args)`."""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Sequence

from ..core.commands import corpus_dir
from ..core.errors import Problem, printable
from ..core.model import Corpus
from .reader import load_with_problems


def load_corpus(args: argparse.Namespace) -> Corpus:
    """The validated registry; its warnings are printed (unless --quiet), its errors raised."""
    corpus, problems = load_with_problems(corpus_dir(args))
    print_problems(problems, args)
    return corpus


# More warnings of one kind than this, and every command but `check` says them in one line:
# a corpus imported with 200 placeholder titles does not repeat 200 lines at each build.
SUMMARY_AFTER = 3


def print_problems(problems: Sequence[Problem], args: argparse.Namespace) -> None:
    """The registry's warnings (and any errors) on stderr; `--quiet` keeps only the errors."""
    for line in problem_lines(problems, quiet=args.quiet):
        print(line, file=sys.stderr)


def problem_lines(problems: Sequence[Problem], *, quiet: bool = False) -> list[str]:
    """Every error; warnings one a line, or one line for a kind that has more than SUMMARY_AFTER."""
    by_code = Counter(p.code for p in problems if p.severity == "warning")
    lines, said = [], set()
    for problem in problems:
        if problem.severity == "error":
            lines.append(str(problem))
        elif quiet:
            continue
        elif by_code[problem.code] <= SUMMARY_AFTER:
            lines.append(str(problem))
        elif problem.code not in said:
            said.add(problem.code)
            lines.append(_summary(problem, by_code[problem.code]))
    return lines


def _summary(first: Problem, count: int) -> str:
    if first.code == "placeholder-title":
        what = f"{count} sources have a placeholder title, the first here; replace them, or fetch them and run `corpus-build adopt`"
    else:
        what = f"{count} warnings '{first.code}', the first here: {first.message}"
    where = f"{first.path}:{first.line}" if first.line else first.path
    return printable(f"{where}: warning: {what}; `corpus-build check` lists them all")
