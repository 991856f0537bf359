"""`corpus-build fetch` and `corpus-build status`: parse options, call the library, report.

Exit codes: 0 every selected source ok or unchanged; 1 some failed or were skipped
(after finishing the others); 2 usage or registry errors.
"""

from __future__ import annotations

import datetime as dt
import json
import sys
from pathlib import Path

from .. import registry
from ..errors import CorpusBuildError, RegistryError, UsageError, printable
from ..model import KINDS, Corpus, Source
from ..provenance import Provenance, Status, mirror_state, now_utc, parse_time
from .engine import FetchResult, fetch_corpus
from .options import from_corpus, parse_rewrite


def register(sub) -> None:
    p = sub.add_parser("fetch", help="mirror sources into corpus/<section>/raw/<id>/ with provenance")
    p.add_argument("ids", nargs="*", metavar="ID", help="source ids (default: every source with a URL)")
    p.add_argument("--section", action="append", default=[], help="only this section (folder or number); repeatable")
    p.add_argument("--kind", action="append", default=[], choices=KINDS, help="only this kind; repeatable")
    p.add_argument("--force", action="store_true", help="download again even when the server says nothing changed")
    p.add_argument("--frozen", action="store_true", help="re-fetch and fail where content differs from corpus/corpus.lock")
    p.add_argument("--jobs", type=int, help="sources fetched at once (default 8, or corpus.yaml fetch.jobs)")
    p.add_argument("--rewrite", action="append", default=[], metavar="FROM=TO", help="rewrite URL prefix FROM to TO for this run")
    p.add_argument("--max-bytes", type=int, help="size cap per download in bytes (default 200 MB)")
    p.add_argument("--json", action="store_true", help="print one JSON record per source instead of the table")
    p.set_defaults(func=_guard(cmd_fetch))

    p = sub.add_parser("status", help="every source's mirror state: ok, unchanged, stale, failed, never fetched")
    p.add_argument("--json", action="store_true", help="one JSON record per source")
    p.set_defaults(func=_guard(cmd_status))


def _guard(command):
    """Registry and usage problems exit 2, as the fetch contract says (not the registry's usual 1)."""

    def run(args) -> int:
        try:
            return command(args)
        except RegistryError as exc:
            print(printable(str(exc)), file=sys.stderr)
            return 2
        except UsageError as exc:
            print(printable(f"error: {exc}"), file=sys.stderr)
            return 2
        except CorpusBuildError as exc:
            print(printable(f"error: {exc}"), file=sys.stderr)
            return 1

    return run


def _load(args) -> Corpus:
    return registry.load(Path(args.project).resolve() / "corpus")


def cmd_fetch(args) -> int:
    corpus = _load(args)
    if args.jobs is not None and args.jobs < 1:
        raise UsageError(f"--jobs must be at least 1, got {args.jobs}")
    options = from_corpus(
        corpus,
        ids=tuple(args.ids),
        sections=tuple(args.section),
        kinds=tuple(args.kind),
        force=args.force,
        frozen=args.frozen,
        jobs=args.jobs,
        max_bytes=args.max_bytes,
        rewrites=tuple(parse_rewrite(r) for r in args.rewrite),
    ).with_env()
    from .progress import LiveProgress

    interactive = sys.stderr.isatty() and not args.json
    with LiveProgress(enabled=interactive) as progress:
        results = fetch_corpus(corpus, options, progress=progress)
    if args.json:
        for result in results:
            print(json.dumps(result.to_dict(), ensure_ascii=False, sort_keys=True))
    else:
        _summary(results)
    return 0 if all(r.ok for r in results) else 1


def _summary(results: list[FetchResult]) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console(highlight=False)
    table = Table(title=None, show_edge=False)
    for column in ("id", "kind", "status", "bytes", "time", "error"):
        table.add_column(column, overflow="fold")
    styles = {"ok": "green", "unchanged": "dim", "failed": "red", "skipped": "yellow"}
    # Unchanged sources are only counted (last line; --json lists every source): a refresh of
    # 1,000 unchanged sources spent half its time drawing 1,000 identical rows.
    shown = [r for r in results if r.status is not Status.UNCHANGED]
    for r in shown:
        # Text, not markup strings: no markup or emoji parsing per cell (a fifth of the table's
        # cost), and an id or error containing "[" prints as written.
        cells = (r.id, r.kind, r.status.value, f"{r.bytes:,}" if r.bytes else "", f"{r.seconds:.1f}s", r.error)
        table.add_row(*(Text(printable(cell), style=styles[r.status.value] if i == 2 else "") for i, cell in enumerate(cells)))
    if shown:
        console.print(table)
    counts = {s: sum(1 for r in results if r.status is s) for s in Status}
    console.print(", ".join(f"{n} {s.value}" for s, n in counts.items() if n) or "nothing to fetch")


def source_state(corpus: Corpus, source: Source, now: dt.datetime | None = None) -> tuple[str, Provenance | None, Provenance | None]:
    """(state, mirror record, failure record); state is ok, unchanged, stale, failed, skipped or never fetched."""
    return mirror_state(corpus.raw_dir(source), corpus.settings.stale_after_days, now)


def _age(when: str) -> str:
    moment = parse_time(when)
    if not moment:
        return ""
    seconds = int((now_utc() - moment).total_seconds())
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def cmd_status(args) -> int:
    corpus = _load(args)
    rows = []
    for source in corpus.sources:
        state, record, failure = source_state(corpus, source)
        when = (record.checked_at or record.fetched_at) if record else ""
        rows.append({"id": source.id, "kind": source.kind, "state": state, "checked_at": when, "age": _age(when),
                     "error": failure.error if failure else "", "last_attempt": failure.checked_at if failure else ""})
    if args.json:
        for row in rows:
            print(json.dumps(row, ensure_ascii=False, sort_keys=True))
        return 0
    from rich.console import Console
    from rich.table import Table

    table = Table(show_edge=False)
    for column in ("id", "kind", "state", "age", "last error"):
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(row["id"], row["kind"], row["state"], row["age"], row["error"])
    console = Console(highlight=False)
    console.print(table)
    counts: dict[str, int] = {}
    for row in rows:
        counts[row["state"]] = counts.get(row["state"], 0) + 1
    console.print(", ".join(f"{n} {state}" for state, n in sorted(counts.items())))
    return 0
