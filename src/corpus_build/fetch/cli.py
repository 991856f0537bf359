"""`corpus-build fetch` and `corpus-build status`: parse options, call the library, report.

Exit codes (the table in cli.py): 0 every selected source ok or unchanged; 1 some
failed, were skipped or are partial (e.g. a JavaScript page no browser rendered), after
finishing the others, or the registry has errors; 2 usage errors; 130 interrupted.
"""

from __future__ import annotations

import datetime as dt
import json
import sys
from pathlib import Path

from ..core.commands import add_command
from ..core.console import is_terminal, print_table
from ..core.errors import UsageError, printable
from ..core.model import KINDS, Corpus, Source
from ..core.provenance import Provenance, Status, mirror_state, now_utc, parse_time
from ..registry.cli import load_corpus
from .engine import FetchResult, fetch_corpus
from .options import from_corpus, parse_rewrite


def register(sub) -> None:
    p = add_command(
        sub, "fetch", cmd_fetch,
        help="mirror sources into corpus/<section>/raw/<id>/ with provenance",
        description="Mirror the selected sources (default: every source with a URL) into corpus/<section>/raw/<id>/: "
        "extracted text, a WARC capture and provenance.json. Incremental and conditional; a failed source is recorded "
        "and the others finish.",
        example="corpus-build fetch\ncorpus-build fetch tilelang --force\ncorpus-build fetch --section 08 --kind pull --json",
    )
    p.add_argument("ids", nargs="*", metavar="ID", help="source ids (default: every source with a URL)")
    p.add_argument("--section", action="append", default=[], help="only this section (folder or number); repeatable")
    p.add_argument("--kind", action="append", default=[], choices=KINDS, help="only this kind; repeatable")
    p.add_argument("--force", action="store_true", help="download again even when the server says nothing changed")
    p.add_argument("--frozen", action="store_true", help="re-fetch and fail where content differs from corpus/corpus.lock")
    p.add_argument("--accept-worse", action="append", default=[], metavar="ID",
                   help="fetch ID and let its new capture replace the mirror even when it holds less text or no text "
                        "(by default such a capture is kept aside and the mirror stays); repeatable")
    p.add_argument("--jobs", type=int, help="sources fetched at once (default 8, or corpus.yaml fetch.jobs)")
    p.add_argument("--rewrite", action="append", default=[], metavar="FROM=TO", help="rewrite URL prefix FROM to TO for this run")
    p.add_argument("--max-bytes", type=int, help="size cap per download in bytes (default 200 MB)")
    p.add_argument("--cluster", metavar="ADDRESS", help="run the downloads and extraction on a Dask cluster, e.g. tcp://10.0.0.5:8786 "
                   "(needs the `cluster` extra; default corpus.yaml fetch.cluster); `local` fetches here")
    p.add_argument("--json", action="store_true", help="print one JSON record per source instead of the table")

    p = add_command(
        sub, "attach", cmd_attach,
        help="use a copy you saved in your browser (PDF, HTML, saved-page folder, MHTML, image) as a source's mirror",
        description="Store FILE as the mirror of source ID, extracted like a fetched copy. `fetch` keeps it until "
        "`fetch --force`. For sources whose server refuses automated clients (login walls, CAPTCHAs, 401/403).",
        example="corpus-build attach <id> ~/Downloads/paper.pdf --note \"saved from the publisher's page\"",
    )
    p.add_argument("id", metavar="ID", help="the source's id (its `id:` in sources.yaml; `corpus-build status` lists them)")
    p.add_argument("file", metavar="FILE", help="the saved file, or the folder a browser's 'save page, complete' wrote")
    p.add_argument("--note", default="", help="where and how you saved it (kept in provenance)")
    p.add_argument("--accept-worse", action="store_true", help="replace the mirror even when this copy holds less text or no text")

    p = add_command(
        sub, "status", cmd_status,
        help="every source's mirror state: ok, unchanged, partial, stale, failed, never fetched",
        description="List every source's mirror state (ok, unchanged, partial, stale, failed, skipped, never fetched), its age "
        "and last error. Piped or redirected, each source is one tab-separated line.",
        example="corpus-build status\ncorpus-build status --json | head -2\ncorpus-build status | grep failed",
    )
    p.add_argument("--json", action="store_true", help="one JSON record per source")


def _load(args) -> Corpus:
    return load_corpus(args)


def cmd_fetch(args) -> int:
    corpus = _load(args)
    if args.jobs is not None and args.jobs < 1:
        raise UsageError(f"--jobs must be at least 1, got {args.jobs}")
    accept = tuple(dict.fromkeys(i for value in args.accept_worse for i in value.split(",") if i))
    options = from_corpus(
        corpus,
        ids=tuple(dict.fromkeys([*args.ids, *accept])),
        accept_worse=accept,
        sections=tuple(args.section),
        kinds=tuple(args.kind),
        force=args.force,
        frozen=args.frozen,
        jobs=args.jobs,
        max_bytes=args.max_bytes,
        cluster=args.cluster,
        rewrites=tuple(parse_rewrite(r) for r in args.rewrite),
    ).with_env()
    from .progress import LiveProgress

    interactive = is_terminal(sys.stderr) and not args.json and not args.quiet
    with LiveProgress(enabled=interactive) as progress:
        results = fetch_corpus(corpus, options, progress=progress)
    if args.json:
        for result in results:
            print(json.dumps(result.to_dict(), ensure_ascii=False, sort_keys=True))
    else:
        _summary(results)
    return 0 if all(r.ok for r in results) else 1


def cmd_attach(args) -> int:
    from .attach import attach

    corpus = _load(args)
    record = attach(corpus, args.id, Path(args.file), note=args.note, accept_worse=args.accept_worse)
    where = corpus.raw_dir(corpus.source(args.id))
    facts = [record.content_type or "file", f"{record.bytes:,} bytes"]
    if record.document.page_count:
        facts.append(f"{record.document.page_count} pages")
    if record.text_file:
        facts.append(f"text in {record.text_file}")
    print(f"attached {args.file} as the mirror of '{args.id}' ({', '.join(facts)}) in {where}")
    return 0


def _summary(results: list[FetchResult]) -> None:
    styles = {"ok": "green", "unchanged": "dim", "failed": "red", "skipped": "yellow", "partial": "yellow"}
    # Unchanged sources are only counted (last line; --json lists every source): a refresh of
    # 1,000 unchanged sources spent half its time drawing 1,000 identical rows.
    shown = [r for r in results if r.status is not Status.UNCHANGED]
    # printable: an id or error with terminal escapes prints them as text
    rows = [tuple(printable(c) for c in (r.id, r.kind, r.status.value, f"{r.bytes:,}" if r.bytes else "", f"{r.seconds:.1f}s", r.error)) for r in shown]
    if rows:
        print_table(("id", "kind", "status", "bytes", "time", "error"), rows, styles=styles, style_column=2)
    counts = {s: sum(1 for r in results if r.status is s) for s in Status}
    print(", ".join(f"{n} {s.value}" for s, n in counts.items() if n) or "nothing to fetch")


def source_state(corpus: Corpus, source: Source, now: dt.datetime | None = None) -> tuple[str, Provenance | None, Provenance | None]:
    """(state, mirror record, failure record); state is ok, unchanged, partial, stale, failed, skipped or never fetched."""
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
                     "error": failure.error if failure else (record.document.partial_reason if record else ""),
                     "last_attempt": failure.checked_at if failure else "",
                     "supplied": record.supplied.file_name if record is not None and record.supplied is not None else ""})
    from ..core.linkrecords import status_report  # the link stage's last verdicts

    link_states, link_lines = status_report(corpus)
    for row in rows:
        row["link"] = link_states.get(row["id"], "")
    if args.json:
        for row in rows:
            print(json.dumps(row, ensure_ascii=False, sort_keys=True))
        return 0
    # a copy from `corpus-build attach` says so
    print_table(("id", "kind", "state", "age", "last error"),
                [(r["id"], r["kind"], r["state"] + (" (supplied)" if r["supplied"] else ""), r["age"], r["error"]) for r in rows])
    counts: dict[str, int] = {}
    for row in rows:
        counts[row["state"]] = counts.get(row["state"], 0) + 1
    print(", ".join(f"{n} {state}" for state, n in sorted(counts.items())))
    for line in link_lines:
        print(line)
    return 0
