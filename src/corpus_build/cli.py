"""The `corpus-build` command: a thin layer that parses options and calls one library function per stage.

Exit codes, the same for every command (the README has the table; tests/test_cli.py checks it):

    0    EXIT_OK           done
    1    EXIT_PROBLEMS     the registry has errors, some sources failed, or the work was refused
    2    EXIT_USAGE        the command line cannot work (unknown option, bad value)
    130  EXIT_INTERRUPTED  stopped with Ctrl-C

Global options (`--project DIR`, `--quiet`, `--verbose`) are accepted anywhere on the
line, before or after the command's name.

Adding a command
----------------
A stage module defines `register(sub)` and calls `add_command` (core/commands.py, with the
EXIT_* codes) once per command; no stage imports this module::

    from ..core.commands import EXIT_OK, add_command

    def register(sub) -> None:
        p = add_command(
            sub, "links", cmd_links,
            help="check every cited URL",                      # one line in `corpus-build --help`
            description="What the command does, a paragraph.",  # top of `corpus-build links --help`
            example="corpus-build links --section 08",          # shown under "example:"
        )
        p.add_argument("--section")

    def cmd_links(args: argparse.Namespace) -> int:   # returns an EXIT_* code
        ...                                            # or raises a CorpusBuildError

then add its `register` to `_register_stage_commands` below. The command reads the
global options as `args.project`, `args.quiet` and `args.verbose` (do not define them
again); `project_dir(args)` resolves the project folder and `load_corpus(args)`
(registry/cli.py) reads the registry, printing its warnings. Raising a CorpusBuildError
prints its message (no traceback) and exits with its `exit_code`; tests/test_cli.py
checks that every registered command has a description and an example.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import __version__, registry
from .core.commands import EXIT_INTERRUPTED, EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, add_command, corpus_dir, project_dir
from .core.errors import CorpusBuildError, RegistryError, UsageError, printable
from .core.extras import missing_extra
from .core.runlock import registry_read
from .registry.cli import load_corpus

if TYPE_CHECKING:
    from .core.model import Corpus
    from .registry.add import PageFacts

# --- the commands -----------------------------------------------------------------------


def cmd_check(args: argparse.Namespace) -> int:
    import json

    corpus, problems = registry.read(corpus_dir(args))
    errors = [p for p in problems if p.severity == "error"]
    shown = [p for p in problems if p.severity == "error" or not args.quiet]
    if args.json:
        for problem in shown:
            print(json.dumps(problem.to_dict(), ensure_ascii=False, sort_keys=True))
        return EXIT_PROBLEMS if errors else EXIT_OK
    for problem in shown:
        print(problem, file=sys.stderr if problem.severity == "error" else sys.stdout)
    warnings = len(problems) - len(errors)
    if errors:
        if any(p.code != "missing-corpus" for p in errors):  # no corpus folder: its one line says it all
            print(f"{_count(len(errors), 'error')}, {_count(warnings, 'warning')}", file=sys.stderr)
        return EXIT_PROBLEMS
    print(
        f"ok: {_count(len(corpus.sources), 'source')} in {_count(len(corpus.sections), 'section')}, "
        f"{_count(len(corpus.chapters), 'chapter')}, {_count(len(corpus.paths), 'learning path')}, "
        f"{_count(len(corpus.digests), 'digest')}; {_count(warnings, 'warning')}"
    )
    return EXIT_OK


def _count(number: int, noun: str) -> str:
    """`1 digest`, `2 digests`, `0 warnings`: the summary's nouns all take -s."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _int_list(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise UsageError(f"--chapters takes numbers separated by commas, e.g. 17,18; got '{text}'") from None


def cmd_add(args: argparse.Namespace) -> int:
    from .registry.add import NewSource, add_source

    note = args.note or ""
    if args.note_file:
        from .core.limits import LIMITS
        from .registry import yamlfile

        # Bounded like a registry file: a FIFO, /dev/zero or a huge file is refused unread.
        problems: list = []
        text = yamlfile.read_text(Path(args.note_file), problems, args.note_file, max_bytes=LIMITS.text_chars * 4)
        if text is None:
            raise UsageError(f"the note file {problems[0]}".replace(": error: ", ": "))
        note = text
    added = add_source(
        corpus_dir(args),
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
            # CORPUS_BUILD_OFFLINE=1: scripts, CI and the tests never reach the network from add.
            offline=args.offline or os.environ.get("CORPUS_BUILD_OFFLINE", "") not in ("", "0"),
            dry_run=args.dry_run,
        ),
        look_up=_page_facts,
    )
    if not added.written:
        print(f"would add '{added.id}' ({added.kind}) to {added.file}:{added.line} (nothing written):")
        print(added.entry.rstrip("\n"))
        for warning in added.warnings if not args.quiet else ():
            print(warning, file=sys.stderr)
        return EXIT_OK
    print(f"added '{added.id}' ({added.kind}) to {added.file}:{added.line}")
    if not args.quiet:
        for warning in added.warnings:
            print(warning, file=sys.stderr)
        if added.older_warnings:
            print(f"the registry has {_count(added.older_warnings, 'other warning')}: `corpus-build check` lists {'it' if added.older_warnings == 1 else 'them'}", file=sys.stderr)
        print("next: corpus-build build   (or keep `mkdocs serve` running: it reloads on its own)")
    return EXIT_OK


def _page_facts(corpus: Corpus, url: str) -> PageFacts:
    """add's look at the new page, through the fetch stage's client (imported only when add reads a page)."""
    from .fetch.pagefacts import for_add

    return for_add(corpus, url)


def cmd_render(args: argparse.Namespace) -> int:
    from . import site

    corpus = load_corpus(args)
    result = site.render_for_engines(project_dir(args), corpus)
    print(f"rendered {_count(len(corpus.sources), 'source')}: {result}")
    return EXIT_OK


def cmd_build(args: argparse.Namespace) -> int:
    from . import site

    site.engines.put_back_site(project_dir(args), Path(args.site_dir) if args.site_dir else None)
    with registry_read(corpus_dir(args)):  # not in the middle of an `add`'s check and put-back
        corpus = load_corpus(args)  # fail early with the registry's own messages
    from .core.console import progress_on_terminal

    with progress_on_terminal() if not args.quiet else contextlib.nullcontext():
        site_dir = site.build_and_remember(
            project_dir(args),
            corpus,
            strict=args.strict,
            site_dir=Path(args.site_dir) if args.site_dir else None,
            engine=args.engine,
            quiet=not args.verbose,
        )
    print(f"built {_count(len(corpus.sources), 'source')} into {site_dir}")
    losses = site.engines.LOSSES.get(site.pick_engine(args.engine), ())
    if losses and not args.quiet:
        print(f"warning: {site.pick_engine(args.engine)} runs no MkDocs plugins; readers of this site do without:", file=sys.stderr)
        for loss in losses:
            print(f"  - {loss}", file=sys.stderr)
    return EXIT_OK


def cmd_completion(args: argparse.Namespace) -> int:
    from .completion import bash_script

    script = bash_script(make_parser(), __version__)  # every command's options, stages' included
    print(("autoload -U +X bashcompinit && bashcompinit\n" if args.shell == "zsh" else "") + script, end="")
    return EXIT_OK


# --- the parser -------------------------------------------------------------------------


def _global_options(parser: argparse.ArgumentParser, *, on_command: bool) -> None:
    # On a command's parser the defaults are SUPPRESS, so that `--project X check` is not
    # reset by the command's parser: the value given anywhere on the line wins.
    default: Any = argparse.SUPPRESS if on_command else None
    group = parser.add_argument_group("global options (anywhere on the line)")
    taken = set(parser._option_string_actions)

    def option(*names: str, **kwargs: Any) -> None:
        free = [n for n in names if n not in taken]
        if names[-1] in free:  # a command that defines the long option itself keeps its own
            group.add_argument(*free, **kwargs)

    option("--project", metavar="DIR", default=default if on_command else ".", help="project folder holding mkdocs.yml and corpus/ (default: .)")
    option("-q", "--quiet", action="store_true", default=default if on_command else False, help="print errors and results only: no warnings, no progress")
    option("-v", "--verbose", action="store_true", default=default if on_command else False, help="also print what each stage does (the site generator's log…)")


def make_parser(*, stage_commands: bool = True) -> argparse.ArgumentParser:
    """The whole command line; without `stage_commands`, only check, add, render and build (see `main`)."""
    parser = argparse.ArgumentParser(
        prog="corpus-build",
        description="Registry of annotated sources -> mirrored corpus -> static site.",
        epilog="example:\n  corpus-build check\n  corpus-build build --strict\n\n`corpus-build COMMAND --help` describes each command.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"corpus-build {__version__}")
    _global_options(parser, on_command=False)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = add_command(
        sub, "check", cmd_check,
        help="validate the registry and list every problem with file:line",
        description="Validate the whole registry under corpus/ and list every problem as `file:line: error: what; how to fix`. "
        "Warnings do not fail the check.",
        example="corpus-build check\ncorpus-build check --json | grep '\"severity\": \"error\"'",
    )
    p.add_argument("--json", action="store_true", help="one JSON object per problem: file, line, column, severity, code, message")

    from .core.model import KINDS

    p = add_command(
        sub, "add", cmd_add,
        help="add a source to a section's sources.yaml, keeping the file's comments",
        description="Append a new source to a section's sources.yaml without touching what is already there. "
        "The kind is detected from the URL and a readable unique id derived from it; the whole registry is "
        "validated afterwards and the file put back if it does not validate.\n\nkinds: " + ", ".join(KINDS),
        example='corpus-build add https://github.com/NVIDIA/cccl --section 01 --note "CUDA 核心库。" --tags cuda',
    )
    p.add_argument("url", help="the source's http(s) address")
    p.add_argument("--section", required=True, help="section folder (e.g. 14-deepseek-ascend-stack) or its number (14)")
    p.add_argument("--title", help="the title (default: derived from the URL)")
    notes = p.add_mutually_exclusive_group()
    notes.add_argument("--note", help="the annotation")
    notes.add_argument("--note-file", metavar="FILE", help="read the annotation from a file")
    p.add_argument("--lang", choices=["zh", "en"], help="language of the annotation (guessed from the note)")
    p.add_argument("--kind", metavar="KIND", help="override the kind detected from the URL (one of the kinds above)")
    p.add_argument("--chapters", help="chapters citing it, e.g. 17,18")
    p.add_argument("--tags", help="tags, e.g. ascend,gemm")
    p.add_argument("--id", help="choose the id instead of deriving it from the URL")
    p.add_argument("--offline", action="store_true", help="do not read the page for its title, authors and date (also CORPUS_BUILD_OFFLINE=1)")
    p.add_argument("--dry-run", action="store_true", help="print the entry and where it would go, validated; write nothing")

    add_command(
        sub, "render", cmd_render,
        help="write the generated Markdown pages into docs/ (changed files only)",
        description="Write the generated Markdown pages into docs/ (only files whose content changed; pages of removed "
        "sources are deleted; hand-written files are never touched), and the navigation, site name, language and "
        "search vocabulary into the configuration of engines without plugins.",
        example="corpus-build render",
    )

    from .site import ENGINES

    p = add_command(
        sub, "build", cmd_build,
        help="render, then build the site into site/",
        description="Render the registry, then build the static site with the first installed engine "
        f"({', '.join(ENGINES)}) or the one named by --engine.",
        example="corpus-build build --strict\ncorpus-build build --engine properdocs --site-dir public",
    )
    p.add_argument("--strict", action="store_true", help="fail on any build warning (broken links…)")
    p.add_argument("--site-dir", metavar="DIR", help="where to write the site (default: site/)")
    p.add_argument("--engine", choices=ENGINES, help="the site generator (default: the first installed, in this order)")

    p = add_command(
        sub, "completion", cmd_completion,
        help="print a tab-completion script for bash or zsh",
        description="Print a script that completes corpus-build's commands, options, option values and section "
        "folders in bash or zsh. Load it from your shell's start-up file.",
        example="corpus-build completion bash | tee ~/.local/share/bash-completion/completions/corpus-build\n"
        'corpus-build completion zsh | tee ~/.zfunc/corpus-build.zsh   # then source it from ~/.zshrc',
    )
    p.add_argument("shell", choices=["bash", "zsh"], help="the shell to complete in")

    # Later stages register their commands here.
    if stage_commands:
        _register_stage_commands(sub)
    seen: set[int] = set()
    for command in sub.choices.values():
        if id(command) not in seen:
            seen.add(id(command))
            _global_options(command, on_command=True)
    return parser


def _register_stage_commands(sub: argparse._SubParsersAction) -> None:
    from .fetch.cli import register as register_fetch
    from .watch.cli import register as register_watch

    register_fetch(sub)
    register_watch(sub)
    _register_links_commands(sub)
    from .site.buildcache import register as register_clean

    register_clean(sub)
    from .init import register as register_init

    register_init(sub)


def _register_links_commands(sub) -> None:
    """links, import, publish: each module owns its argparse setup."""
    from .links.cli import register as register_links
    from .publish import register as register_publish
    from .registry.adopt import register as register_adopt
    from .registry.importer import register as register_import

    register_links(sub)
    register_import(sub)
    register_adopt(sub)
    register_publish(sub)


CORE_COMMANDS = ("check", "add", "render", "build")  # `completion` needs every command: it is not one of them  # defined above; the others come from their stage modules


def _command_on_line(argv: Sequence[str]) -> str | None:
    """The command's name, found without a parser: the first word that is neither a global option nor its value.

    None when a help option comes first (the full list of commands is asked for).
    """
    words = iter(argv)
    for word in words:
        if word in ("-h", "--help"):
            return None
        if len(word) > 2 and "--project".startswith(word):  # --project DIR, or an abbreviation argparse accepts
            next(words, None)
        elif not word.startswith("-"):
            return word
    return None


def _unknown_command(parser: argparse.ArgumentParser, word: str) -> str:
    """What to say about a command that does not exist ("" when it does): the near misses, else the list."""
    import difflib

    names = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    if word in names:
        return ""
    near = difflib.get_close_matches(word, list(names), n=2, cutoff=0.6)
    hint = f"did you mean {' or '.join(repr(n) for n in near)}?" if near else "the commands are " + ", ".join(names)
    return f"unknown command '{printable(word)}'; {hint} (`corpus-build --help` describes them)"


def _configure_logging(args: argparse.Namespace) -> None:
    if args.verbose:
        logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")


def _silence_stdout() -> None:
    """The reader of our output went away (`| head`): drop what is still buffered, quietly."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # stdout is not a real file (tests)
        pass


def main(argv: list[str] | None = None) -> int:
    # The stage modules (fetch, watch, links…) cost 0.4 s to import: a core command's line is
    # parsed without them. Any other line, `--help` included, gets the whole parser.
    line = sys.argv[1:] if argv is None else argv
    command = _command_on_line(line)
    parser = make_parser(stage_commands=command not in CORE_COMMANDS)
    if command is not None and (unknown := _unknown_command(parser, command)):
        parser.print_usage(sys.stderr)
        print(f"corpus-build: error: {unknown}", file=sys.stderr)
        return EXIT_USAGE
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a usage error argparse already printed
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    if args.quiet and args.verbose:
        print("error: --quiet and --verbose cannot be used together", file=sys.stderr)
        return EXIT_USAGE
    _configure_logging(args)
    try:
        code = args.func(args)
        sys.stdout.flush()  # a closed pipe is noticed here, not at interpreter exit
        return code
    except RegistryError as exc:
        print(printable(str(exc)), file=sys.stderr)
        return exc.exit_code
    except CorpusBuildError as exc:
        print(printable(f"error: {exc}"), file=sys.stderr)
        return exc.exit_code
    except ModuleNotFoundError as exc:
        advice = missing_extra(exc)
        if advice is None:
            raise
        print(f"error: {advice}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_PROBLEMS
    except OSError as exc:  # a full disk, a read-only file system: the file and the cause, no traceback
        where = f"{exc.filename}: " if exc.filename else ""
        print(printable(f"error: {where}{exc.strerror or exc}; free space or make the folder writable, then run again"), file=sys.stderr)
        return EXIT_PROBLEMS


if __name__ == "__main__":
    sys.exit(main())
