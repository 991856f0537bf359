"""The command-line registry every stage's `register(sub)` uses, and the exit codes of every command.

The commands themselves live with their stages (fetch/cli.py, links/cli.py, watch/cli.py,
registry/importer.py, site/buildcache.py, publish.py); corpus_build/cli.py imports each stage
and calls its `register`, so no stage imports cli.py. Its docstring says how to add a command.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

EXIT_OK = 0
EXIT_PROBLEMS = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130

Command = Callable[[argparse.Namespace], int]


def project_dir(args: argparse.Namespace) -> Path:
    return Path(args.project).resolve()


def corpus_dir(args: argparse.Namespace) -> Path:
    return project_dir(args) / "corpus"


def add_command(
    sub: argparse._SubParsersAction,
    name: str,
    func: Command,
    *,
    help: str,
    description: str,
    example: str,
) -> argparse.ArgumentParser:
    """Register `corpus-build NAME`: its one-line help, a description and an example for --help."""
    examples = "\n".join(f"  {line}" for line in example.strip().splitlines())
    parser: argparse.ArgumentParser = sub.add_parser(
        name,
        help=help,
        description=description,
        epilog=f"example:\n{examples}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.set_defaults(func=func)
    return parser
