"""`corpus-build links`: check every cited URL; `--fix-moved ID` follows a permanent redirect.

Exit codes are the CLI's table (0 no dead link; 1 dead or soft-404 links found, or registry
problems; 2 usage; 130 interrupted): errors are raised and mapped by `corpus_build.cli.main`.
Moved links are reported with the command that fixes them, and do not fail.
"""

from __future__ import annotations

import argparse
import json

from ..core.errors import UsageError
from ..core.linkrecords import LinkState, problem_line


def register(sub: argparse._SubParsersAction) -> None:
    from ..core.commands import add_command

    p = add_command(
        sub, "links", cmd_links,
        help="check that every cited URL still answers (dead, moved, soft 404); results feed the site",
        description=(
            "Check every cited URL: robots.txt honoured, HEAD then a ranged GET, a polite pace per host. "
            "Results are kept in corpus/.links/results.json and reused until links.recheck_after "
            "(corpus.yaml, default 3d) has passed. Exit 1 when a link is dead or a soft 404; moved links "
            "are reported with the command that fixes them and do not fail."
        ),
        example="corpus-build links --section 08\ncorpus-build links --fix-moved cutlass",
    )
    p.add_argument("ids", nargs="*", metavar="ID", help="source ids (default: every source with a URL)")
    p.add_argument("--section", action="append", default=[], help="only this section (folder or number); repeatable")
    p.add_argument("--force", action="store_true", help="ask again even when a result is recent")
    p.add_argument("--jobs", type=int, help="URLs checked at once (default 8, or corpus.yaml links.jobs)")
    p.add_argument("--fix-moved", action="append", default=[], metavar="ID", help="set this moved source's url to its redirect target (repeatable)")
    p.add_argument("--json", action="store_true", help="one JSON record per source instead of the summary")
    p.add_argument("--dry-run", action="store_true", help="with --fix-moved: print the changes, write nothing")


def cmd_links(args: argparse.Namespace) -> int:
    from ..registry.cli import load_corpus
    from .check import check_links, fix_moved
    from .options import from_corpus

    corpus = load_corpus(args)
    if args.fix_moved:
        if args.ids or args.force:
            raise UsageError("--fix-moved takes the ids itself; run it without other ids or --force")
        for source_id, old, new in fix_moved(corpus, args.fix_moved, dry_run=args.dry_run):
            print(f"{'would fix' if args.dry_run else 'fixed'} '{source_id}': {old} -> {new}")
        if not args.dry_run:
            print("next: corpus-build links " + " ".join(args.fix_moved) + "   (checks the new address)")
        return 0
    if args.dry_run:
        raise UsageError("--dry-run goes with --fix-moved (a link check writes no registry file)")
    if args.jobs is not None and args.jobs < 1:
        raise UsageError(f"--jobs must be at least 1, got {args.jobs}")
    options = from_corpus(corpus, ids=tuple(args.ids), sections=tuple(args.section), force=args.force, jobs=args.jobs)
    from ..core.console import progress_on_terminal

    with progress_on_terminal():
        run = check_links(corpus, options)
    if args.json:
        for result in run.results:
            print(json.dumps(result.to_dict(), ensure_ascii=False, sort_keys=True))
    else:
        for result in run.results:
            line = problem_line(result)
            if line:
                print(line)
        counts = ", ".join(f"{run.count(s)} {s.value}" for s in LinkState if run.count(s))
        print(f"{len(run.results)} links: {counts or 'none'}; {run.checked} checked ({run.requests} requests), {run.cached} from the cache")
    return 1 if any(r.state.broken for r in run.results) else 0
