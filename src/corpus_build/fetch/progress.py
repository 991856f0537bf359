"""The live progress display of `corpus-build fetch` (rich), silent when stderr is not a terminal."""

from __future__ import annotations

from rich.console import Console
from rich.progress import BarColumn, DownloadColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn
from rich.text import Text

from ..core.errors import printable
from ..core.model import Source
from .engine import FetchResult


class LiveProgress:
    """One overall bar plus one line per source in flight (status and bytes)."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self._progress = Progress(
            TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), DownloadColumn(), TimeElapsedColumn(),
            console=Console(stderr=True), transient=True, disable=not enabled,
        )
        self._overall: TaskID | None = None
        self._tasks: dict[str, TaskID] = {}

    def __enter__(self) -> LiveProgress:
        if self.enabled:
            self._progress.start()
            self._overall = self._progress.add_task("all sources", total=None)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.enabled:
            self._progress.stop()

    def start(self, source: Source) -> None:
        if self.enabled:
            self._tasks[source.id] = self._progress.add_task(f"{source.id} ({source.kind})", total=None)

    def advance(self, source: Source, nbytes: int) -> None:
        if self.enabled and source.id in self._tasks:
            self._progress.advance(self._tasks[source.id], nbytes)

    def finish(self, source: Source, result: FetchResult) -> None:
        if not self.enabled:
            return
        task = self._tasks.pop(source.id, None)
        if task is not None:
            self._progress.remove_task(task)
        # Text, not markup: a server's error text with "[" or an ESC sequence prints as written, harmlessly.
        self._progress.console.print(Text(printable(f"{result.status.value:>9}  {source.id}" + (f"  {result.error}" if result.error else ""))))
        if self._overall is not None:
            self._progress.advance(self._overall, 1)
