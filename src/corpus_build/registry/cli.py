"""How every command reads the registry: `load_corpus(args)`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ..core.commands import corpus_dir
from ..core.errors import Problem
from ..core.model import Corpus
from .reader import load_with_problems


def load_corpus(args: argparse.Namespace) -> Corpus:
    """The validated registry; its warnings are printed (unless --quiet), its errors raised."""
    corpus, problems = load_with_problems(corpus_dir(args))
    print_problems(problems, args)
    return corpus


def print_problems(problems: Sequence[Problem], args: argparse.Namespace) -> None:
    """The registry's warnings (and any errors) on stderr; `--quiet` keeps only the errors."""
    for problem in problems:
        if problem.severity == "error" or not args.quiet:
            print(problem, file=sys.stderr)
