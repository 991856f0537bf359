"""Terminal output of the commands: tables and lines that stay greppable when piped.

On a terminal, tables are drawn by rich (colour, folded cells). Anywhere else (a
pipe, a file, CI logs) rich would wrap long ids across lines at 80 columns, so a
`grep` over the output misses them: there each row is one plain line, cells
separated by tabs (`cut -f1` works), with a header line first.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
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
