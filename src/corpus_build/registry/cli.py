"""How every command reads the registry: `load_corpus(args)`."""

from __future__ import annotations

import argparse

from ..core.commands import corpus_dir, print_problems
from ..core.model import Corpus
from .reader import load_with_problems


def load_corpus(args: argparse.Namespace) -> Corpus:
    """The validated registry; its warnings are printed (unless --quiet), its errors raised."""
    corpus, problems = load_with_problems(corpus_dir(args))
    print_problems(problems, args)
    return corpus
