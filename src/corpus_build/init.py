"""`corpus-build init DIR`: a new project that builds a complete site from the installed package.

Writes the files a project owns — a commented corpus.yaml, one example section, mkdocs.yml,
the two GitHub workflows, requirements.txt (the corpus-build the workflows install: the one
running init) and .gitignore files (corpus/.gitignore keeps large mirror files out of git, as
this repository's does) — from `scaffold/` in the package. Nothing else is
needed: the `corpus` plugin brings the stylesheet, scripts and template overrides (render
writes the assets into docs/, the plugin adds the templates), so a project's own docs/ and
overrides/ stay optional. The scaffold's mkdocs.yml and workflows are this repository's own
(tests/test_init.py keeps them equal).

Nothing is overwritten: when any file it would write exists, init writes nothing and names them.
Nothing outside DIR is written either: a symbolic link anywhere below DIR on the way to a file
it writes (a linked corpus/ or .github/, a dangling mkdocs.yml) is refused before anything is
written, and each file is created with O_EXCL|O_NOFOLLOW, so a link made in the meantime is
not followed. The readers' time zone is checked as corpus.yaml's is (registry/settings.py):
the project init writes passes `check`.
"""

from __future__ import annotations

import argparse
import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from .core.commands import EXIT_OK, add_command
from .core.errors import UsageError, printable
from .core.limits import text_problem
from .registry.settings import timezone_problem

SCAFFOLD = Path(__file__).parent / "scaffold"


@dataclass(frozen=True)
class Project:
    """What init asks for; everything else has a default the user edits afterwards."""

    title: str
    description: str = ""
    lang: str = "zh"  # the interface's language: zh or en
    timezone: str = "+08:00"


def files(project: Project) -> dict[str, str]:
    """Every file init writes: path relative to the project -> text."""

    def scalar(text: str) -> str:
        return json.dumps(text, ensure_ascii=False)  # a JSON string is a YAML double-quoted scalar

    languages = "[zh, en]" if project.lang == "zh" else "[en, zh]"
    corpus_yaml = (SCAFFOLD / "corpus" / "corpus.yaml").read_text(encoding="utf-8")
    corpus_yaml = corpus_yaml.format(
        title=scalar(project.title), description=scalar(project.description), languages=languages, timezone=project.timezone
    )
    mkdocs_yml = (SCAFFOLD / "mkdocs.yml").read_text(encoding="utf-8").replace("{site_name}", scalar(project.title))
    out = {
        "corpus/corpus.yaml": corpus_yaml,
        "mkdocs.yml": mkdocs_yml,
        ".gitignore": (SCAFFOLD / "gitignore").read_text(encoding="utf-8"),
        "corpus/.gitignore": (SCAFFOLD / "corpus" / "gitignore").read_text(encoding="utf-8"),
        "docs/.gitkeep": "",
    }
    for name in ("section.yaml", "sources.yaml"):
        out[f"corpus/01-example/{name}"] = (SCAFFOLD / "corpus" / "01-example" / name).read_text(encoding="utf-8")
    for workflow in sorted((SCAFFOLD / "workflows").glob("*.yml")):
        out[f".github/workflows/{workflow.name}"] = workflow.read_text(encoding="utf-8")
    out["requirements.txt"] = requirements()
    return out


def requirements() -> str:
    """requirements.txt for the project's workflows: the corpus-build running now, as pip can fetch it on a CI machine.

    The workflows install corpus-build from it (a project has no pyproject.toml of its own). An
    install from a git or https address (PEP 610's direct_url.json) is named by that address
    and commit; one from a package index by its version; one from a local folder or file cannot
    be fetched elsewhere, so the version is named and a comment says what to change.
    """
    from importlib import metadata

    head = "# The corpus-build the GitHub workflows install (.github/workflows/*.yml), with what `fetch` needs.\n"
    try:
        dist = metadata.distribution("corpus-build")
    except metadata.PackageNotFoundError:  # running from a source tree without an install
        return head + "corpus-build[fetch]\n"
    try:
        origin = json.loads(dist.read_text("direct_url.json") or "{}")
    except ValueError:
        origin = {}
    url = origin.get("url", "") if isinstance(origin, dict) else ""
    vcs = origin.get("vcs_info") if isinstance(origin, dict) else None
    if isinstance(vcs, dict) and vcs.get("vcs") == "git" and url.startswith("https://"):
        return head + f"corpus-build[fetch] @ git+{url}@{vcs.get('commit_id', '')}\n"
    if url.startswith("https://") and not isinstance(vcs, dict):
        return head + f"corpus-build[fetch] @ {url}\n"
    if url:
        head += (f"# init ran with corpus-build {dist.version} installed from {url}, which a CI machine cannot reach:\n"
                 "# change the line below to where it can install it from, e.g. corpus-build[fetch] @ git+https://…\n")
    return head + f"corpus-build[fetch]=={dist.version}\n"


def init(target: Path, project: Project) -> list[str]:
    """Write a new project into `target` (made if missing); returns the paths written."""
    target = Path(target)
    problem = timezone_problem(project.timezone)
    if problem:
        raise UsageError(f"--timezone: {problem}; nothing was written")
    # What `check` would refuse in corpus.yaml is refused here, before anything is written.
    for option, key, value in (("--title", "title", project.title), ("--description", "description", project.description or "")):
        too_long = text_problem(key, value)
        if too_long:
            raise UsageError(f"{option}: {too_long}; nothing was written")
    if target.exists() and not target.is_dir():
        raise UsageError(f"{target}: exists and is not a folder; name a new folder or an existing one")
    planned = files(project)
    linked = sorted(_linked_on_the_way(target, planned))
    if linked:
        raise UsageError(
            f"{printable(str(target))}: {', '.join(linked)} {'is a symbolic link' if len(linked) == 1 else 'are symbolic links'}; "
            "init writes only inside the folder it is given and never through a link, so nothing was written. "
            "Remove the link or run init in a new folder"
        )
    taken = sorted(path for path in planned if os.path.lexists(target / path))
    if taken:
        raise UsageError(
            f"{target}: already has {', '.join(taken)}; nothing was written. "
            "Run init in a new folder, or move those files away first"
        )
    target.mkdir(parents=True, exist_ok=True)
    for path, text in planned.items():
        _write_new(target, path, text)
    return list(planned)


def _linked_on_the_way(target: Path, planned: dict[str, str]) -> set[str]:
    """Every path below `target` (a folder or the file itself) on the way to a planned file that is a symbolic link."""
    found = set()
    for path in planned:
        parts = Path(path).parts
        for depth in range(1, len(parts) + 1):
            step = "/".join(parts[:depth])
            if (target / step).is_symlink():
                found.add(step + ("/" if depth < len(parts) else ""))
                break
    return found


def _write_new(target: Path, path: str, text: str) -> None:
    """Create target/path as a new regular file, its folders as real folders: never through a link, never over a file."""
    folder = target
    for part in Path(path).parts[:-1]:
        folder = folder / part
        try:
            folder.mkdir()
        except FileExistsError:
            if not stat.S_ISDIR(os.lstat(folder).st_mode):  # a link or a file appeared since the check
                raise UsageError(f"{folder}: is not a folder (a link or a file); init writes only real folders inside {target}") from None
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(folder / Path(path).name, flags, 0o666)
    except FileExistsError:
        raise UsageError(f"{target / path}: appeared while init was writing; nothing there was overwritten") from None
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub, "init", cmd_init,
        help="start a new corpus: corpus.yaml, an example section, mkdocs.yml, workflows",
        description="Create a new project in DIR (made if missing): a commented corpus/corpus.yaml, one example "
        "section (corpus/01-example/), mkdocs.yml, the GitHub workflows that build, mirror and deploy it "
        "(.github/workflows/pages.yml, daily.yml) and a .gitignore. Writes nothing when any of these files "
        "already exists.",
        example='corpus-build init mysite --title "My reading corpus"\ncd mysite && corpus-build build',
    )
    p.add_argument("dir", metavar="DIR", help="the new project's folder")
    p.add_argument("--title", help="the corpus's title (default: the folder's name)")
    p.add_argument("--description", default="", help="a paragraph for the home page")
    p.add_argument("--lang", choices=["zh", "en"], default="zh", help="the language of the site's interface (default: zh)")
    p.add_argument("--timezone", default="+08:00", help="the readers' time zone, an offset or a zone name (default: +08:00)")


def cmd_init(args: argparse.Namespace) -> int:
    target = Path(args.dir)
    title = args.title or target.resolve().name
    written = init(target, Project(title=title, description=args.description, lang=args.lang, timezone=args.timezone))
    if not args.quiet:
        print(f"created {target}: {len(written)} files")
        print(f"next: cd {target} && corpus-build add URL --section 01 --note \"…\" && corpus-build build")
    return EXIT_OK
