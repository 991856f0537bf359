"""Terminal output of the commands: tables and lines that stay greppable when piped.

On a terminal, tables are drawn by rich (colour, folded cells). Anywhere else (a
pipe, a file, CI logs) rich would wrap long ids across lines at 80 columns, so a
`grep` over the output misses them: there each row is one plain line, cells
separated by tabs (`cut -f1` works), with a header line first.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TextIO


def is_terminal(stream: TextIO | None = None) -> bool:
    stream = stream or sys.stdout
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or replaced stream
        return False


def print_table(columns: Sequence[str], rows: Sequence[Sequence[str]], *, styles: dict[str, str] | None = None, style_column: int = -1) -> None:
    """Print rows under column names; `styles` colours cell `style_column` by its value (terminal only)."""
    if not is_terminal():
        print("\t".join(columns))
        for row in rows:
            print("\t".join(_one_line(cell) for cell in row))
        return
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    table = Table(show_edge=False)
    for column in columns:
        table.add_column(column, overflow="fold")
    for row in rows:
        # Text, not markup strings: an id or error containing "[" prints as written.
        table.add_row(*(Text(cell, style=(styles or {}).get(cell, "") if i == style_column else "") for i, cell in enumerate(row)))
    Console(highlight=False).print(table)


def print_line(text: str) -> None:
    """A summary line: never wrapped, whatever the output is."""
    print(text)


def _one_line(cell: str) -> str:
    return " ".join(str(cell).split()) if ("\n" in str(cell) or "\t" in str(cell)) else str(cell)


# --- progress of long work (build at thousands of sources) ------------------------------
# The stages report through `progress(step, done, total)`; a command that wants it shown
# wraps its work in `progress_on_terminal()`. Nothing is drawn anywhere but a terminal, so
# logs, pipes and tests see only the usual lines.
_reporter: Callable[[str, int, int], None] | None = None


def progress(step: str, done: int, total: int) -> None:
    """Report `done` of `total` units of `step` (e.g. "building pages"); free when nobody listens."""
    if _reporter is not None:
        _reporter(step, done, total)


@contextmanager
def progress_on_terminal(stream: TextIO | None = None, *, every: float = 0.1) -> Iterator[None]:
    """Draw reported progress as one line rewritten in place on a terminal's stream (stderr)."""
    global _reporter
    out = stream or sys.stderr
    if not is_terminal(out):
        yield
        return
    drawn_at, width = 0.0, 0

    def draw(step: str, done: int, total: int) -> None:
        nonlocal drawn_at, width
        now = time.monotonic()
        if done < total and now - drawn_at < every:
            return  # at most ten redraws a second
        drawn_at = now
        text = f"{step} {done}/{total}" if total else step
        out.write("\r" + text.ljust(width))
        out.flush()
        width = len(text)

    previous, _reporter = _reporter, draw
    try:
        yield
    finally:
        _reporter = previous
        if width:
            out.write("\r" + " " * width + "\r")  # leave the terminal as it was
            out.flush()

