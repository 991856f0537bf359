"""Every error corpus-build raises on purpose.

    CorpusBuildError            base: a user-facing message, no traceback needed
    ├── RegistryError           the registry under corpus/ has problems (carries them all)
    ├── UsageError              a command was called with arguments that cannot work
    │   └── RefusedError        …or the corpus's state refuses the work: another run holds
    │                           its lock, corpus.lock cannot be read (exit 1, not 2)
    ├── AddError                `corpus-build add` refused (duplicate, unknown section…)
    ├── SiteError               rendering or the MkDocs build failed
    ├── UnsafePathError         a write or a published read would leave corpus/ or docs/ (safepath)
    └── FetchError              one source could not be mirrored (recorded, not fatal)
        ├── HTTPStatusError     the server answered with an error status
        ├── TransportError      connection, timeout, TLS… (retryable)
        ├── ContentError        body too large, bomb, unparsable PDF, bad redirect
        ├── RateLimitError      an API quota is exhausted (carries the reset time)
        └── GitError            a git command failed

The CLI prints `str(error)` and exits with `error.exit_code`. Third-party exceptions
are translated once, where they are raised (``raise FetchError(...) from exc``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal


def printable(text: str) -> str:
    """`text` with terminal control characters shown as escapes (\\x1b…), newlines and tabs kept.

    Ids, URLs and file contents end up in error messages; printed raw, an ESC sequence in
    them could rewrite the user's terminal (move the cursor, hide lines, set the title).
    """
    if text.isprintable() or all(ch.isprintable() or ch in "\n\t" for ch in text):
        return text
    return "".join(ch if ch.isprintable() or ch in "\n\t" else ascii(ch)[1:-1] for ch in text)


def plural(number: int, noun: str) -> str:
    """`1 error`, `2 errors`, `0 warnings`: the counted nouns of our messages all take -s."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


_COUNT_OR_S = re.compile(r"\{(\w+)\}|\(s\)")


def fill_counted(template: str, values: dict[str, object]) -> str:
    """`template.format(**values)`, each `(s)` made "s" or nothing by the count before it.

    English interface strings are written with `(s)` after a counted noun ("{n} file(s) or
    folder(s)"); a reader sees "1 file or folder", "3 files or folders". The count is the
    nearest `{placeholder}` before the `(s)`: an int other than 1 takes "s" (a value that is
    not a number leaves the plural, as "(s)" meant).
    """
    last: list[object] = [None]

    def step(match: re.Match[str]) -> str:
        if match.group(1):
            last[0] = values.get(match.group(1))
            return match.group(0)
        return "" if last[0] == 1 else "s"

    return _COUNT_OR_S.sub(step, template).format(**values) if "(s)" in template else template.format(**values)


def repositories(number: int) -> str:
    """`1 repository`, `2 repositories` (the one counted noun of our messages not made with -s)."""
    return f"{number} repository" if number == 1 else f"{number} repositories"


class CorpusBuildError(Exception):
    exit_code = 1


@dataclass(frozen=True, order=True)
class Problem:
    """One finding of `corpus-build check`, pointing at a file and line.

    `code` names the kind of problem, stable across releases so that scripts can
    match on it (`check --json`); the README lists every code.
    """

    path: str
    line: int
    column: int
    message: str
    severity: Literal["error", "warning"] = "error"
    code: str = "invalid"

    def to_dict(self) -> dict[str, object]:
        return {
            "file": self.path,
            "line": self.line,
            "column": self.column,
            "severity": self.severity,
            "code": self.code,
            "message": self.message,
        }

    def __str__(self) -> str:
        where = self.path
        if self.line:
            where += f":{self.line}"
            if self.column:
                where += f":{self.column}"
        return printable(f"{where}: {self.severity}: {self.message}")


class RegistryError(CorpusBuildError):
    exit_code = 1

    def __init__(self, problems: list[Problem], summary: str | None = None):
        """`summary`: the last line (default: how many errors, and to run `check` again)."""
        self.problems = sorted(problems)
        errors = [p for p in self.problems if p.severity == "error"]
        if summary is None and all(p.code == "missing-corpus" for p in errors):
            summary = ""  # no registry at all: its one line says what to do, there is nothing to count
        elif summary is None:
            summary = f"{plural(len(errors), 'error')} in the registry; fix {'it' if len(errors) == 1 else 'them'} and run `corpus-build check` again"
        super().__init__("\n".join([*(str(p) for p in errors), *([summary] if summary else [])]))

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "warning"]


class UsageError(CorpusBuildError):
    exit_code = 2


class RefusedError(UsageError):
    """The work is refused for the corpus's state, not for the command line: another run holds
    its lock, a lock file cannot be opened, corpus.lock cannot be read. Exit 1 (README, "Exit
    codes": 2 is for a command line that cannot work). A UsageError still, so the places that
    let a busy lock pass (`except UsageError`) keep doing so."""

    exit_code = 1


class AddError(CorpusBuildError):
    exit_code = 1


class SiteError(CorpusBuildError):
    exit_code = 1


class FetchError(CorpusBuildError):
    """A source could not be mirrored. `url` names what was being fetched."""

    def __init__(self, message: str, *, url: str = ""):
        self.url = url
        super().__init__(f"{url}: {message}" if url else message)


class HTTPStatusError(FetchError):
    def __init__(self, message: str, *, url: str = "", status: int = 0):
        self.status = status
        super().__init__(message, url=url)


class TransportError(FetchError):
    pass


class ContentError(FetchError):
    pass


class RateLimitError(FetchError):
    def __init__(self, message: str, *, url: str = "", reset_at: str = ""):
        self.reset_at = reset_at
        super().__init__(message, url=url)


class GitError(FetchError):
    pass


class UnsafePathError(CorpusBuildError):
    """A write or a published read would leave its folder (a symlink out of corpus/ or docs/)."""

    exit_code = 1
