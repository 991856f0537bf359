"""The `corpus-build` command: a thin layer that parses options and calls one library function per stage."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import __version__, registry
from .errors import CorpusBuildError, RegistryError, UsageError, printable


def _project(args) -> Path:
    return Path(args.project).resolve()


def _corpus_dir(args) -> Path:
    return _project(args) / "corpus"


def cmd_check(args) -> int:
    corpus, problems = registry.read(_corpus_dir(args))
    errors = [p for p in problems if p.severity == "error"]
    for problem in problems:
        if problem.severity == "error" or not args.quiet:
            print(problem, file=sys.stderr if problem.severity == "error" else sys.stdout)
    if errors:
        print(f"{len(errors)} error(s), {len(problems) - len(errors)} warning(s)", file=sys.stderr)
        return 1
    print(
        f"ok: {len(corpus.sources)} sources in {len(corpus.sections)} sections, {len(corpus.chapters)} chapters, "
        f"{len(corpus.paths)} learning paths, {len(corpus.digests)} digests; {len(problems)} warning(s)"
    )
    return 0


def _int_list(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise UsageError(f"--chapters takes numbers separated by commas, e.g. 17,18; got '{text}'") from None


def cmd_add(args) -> int:
    from .add import NewSource, add_source

    note = args.note or ""
    if args.note_file:
        from . import yamlfile
        from .limits import LIMITS

        # Bounded like a registry file: a FIFO, /dev/zero or a huge file is refused unread.
        problems: list = []
        text = yamlfile.read_text(Path(args.note_file), problems, args.note_file, max_bytes=LIMITS.text_chars * 4)
        if text is None:
            raise UsageError(f"the note file {problems[0]}".replace(": error: ", ": "))
        note = text
    added = add_source(
        _corpus_dir(args),
        NewSource(
            url=args.url,
            section=args.section,
            title=args.title or "",
            note=note,
            lang=args.lang or "",
            kind=args.kind or "",
            chapters=_int_list(args.chapters) if args.chapters else (),
            tags=tuple(t.strip() for t in (args.tags or "").split(",") if t.strip()),
            source_id=args.id or "",
        ),
    )
    print(f"added '{added.id}' ({added.kind}) to {added.file}:{added.line}")
    for warning in added.warnings:
        print(warning)
    print("next: corpus-build build   (or keep `mkdocs serve` running: it reloads on its own)")
    return 0


def cmd_render(args) -> int:
    from . import render

    corpus = registry.load(_corpus_dir(args))
    result = render.render(corpus, _project(args) / "docs")
    print(f"rendered {len(corpus.sources)} sources: {result}")
    return 0


def cmd_build(args) -> int:
    from . import site

    corpus = registry.load(_corpus_dir(args))  # fail early with the registry's own messages
    site_dir = site.build_and_remember(_project(args), corpus, strict=args.strict, site_dir=Path(args.site_dir) if args.site_dir else None)
    print(f"built {len(corpus.sources)} sources into {site_dir}")
    return 0


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="corpus-build", description="Registry of annotated sources -> mirrored corpus -> Material for MkDocs site.")
    parser.add_argument("--version", action="version", version=f"corpus-build {__version__}")
    parser.add_argument("--project", default=".", help="project folder holding mkdocs.yml and corpus/ (default: .)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("check", help="validate the registry and list every problem with file:line")
    p.add_argument("--quiet", action="store_true", help="print errors only, not warnings")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("add", help="add a source to a section's sources.yaml, keeping the file's comments")
    p.add_argument("url")
    p.add_argument("--section", required=True, help="section folder (e.g. 14-deepseek-ascend-stack) or its number (14)")
    p.add_argument("--title")
    notes = p.add_mutually_exclusive_group()
    notes.add_argument("--note", help="the annotation")
    notes.add_argument("--note-file", help="read the annotation from a file")
    p.add_argument("--lang", choices=["zh", "en"], help="language of the annotation (guessed from the note)")
    p.add_argument("--kind", help="override the kind detected from the URL")
    p.add_argument("--chapters", help="chapters citing it, e.g. 17,18")
    p.add_argument("--tags", help="tags, e.g. ascend,gemm")
    p.add_argument("--id", help="choose the id instead of deriving it from the URL")
    p.set_defaults(func=cmd_add)

    p = sub.add_parser("render", help="write the generated Markdown pages into docs/ (changed files only)")
    p.set_defaults(func=cmd_render)

    p = sub.add_parser("build", help="render, then build the site into site/")
    p.add_argument("--strict", action="store_true", help="fail on any MkDocs warning (broken links…)")
    p.add_argument("--site-dir", help="where to write the site (default: site/)")
    p.set_defaults(func=cmd_build)

    # Later stages register their commands here.
    _register_stage_commands(sub)
    return parser


def _register_stage_commands(sub) -> None:
    from .fetch.cli import register as register_fetch
    from .watch.cli import register as register_watch

    register_fetch(sub)
    register_watch(sub)


def main(argv: list[str] | None = None) -> int:
    parser = make_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except RegistryError as exc:
        print(printable(str(exc)), file=sys.stderr)
        return exc.exit_code
    except CorpusBuildError as exc:
        print(printable(f"error: {exc}"), file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except OSError as exc:  # a full disk, a read-only file system: the file and the cause, no traceback
        where = f"{exc.filename}: " if exc.filename else ""
        print(printable(f"error: {where}{exc.strerror or exc}; free space or make the folder writable, then run again"), file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
