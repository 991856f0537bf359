"""`corpus-build init DIR`: a new project that builds a complete site from the installed package.

Writes the files a project owns — a commented corpus.yaml, one example section, mkdocs.yml,
the two GitHub workflows and .gitignore files (corpus/.gitignore keeps large mirror files out
of git, as this repository's does) — from `scaffold/` in the package. Nothing else is
needed: the `corpus` plugin brings the stylesheet, scripts and template overrides (render
writes the assets into docs/, the plugin adds the templates), so a project's own docs/ and
overrides/ stay optional. The scaffold's mkdocs.yml and workflows are this repository's own
(tests/test_init.py keeps them equal).

Nothing is overwritten: when any file it would write exists, init writes nothing and names them.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path

from .core.commands import EXIT_OK, add_command
from .core.errors import UsageError

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
    return out


def init(target: Path, project: Project) -> list[str]:
    """Write a new project into `target` (made if missing); returns the paths written."""
    target = Path(target)
    if target.exists() and not target.is_dir():
        raise UsageError(f"{target}: exists and is not a folder; name a new folder or an existing one")
    planned = files(project)
    taken = sorted(path for path in planned if (target / path).exists())
    if taken:
        raise UsageError(
            f"{target}: already has {', '.join(taken)}; nothing was written. "
            "Run init in a new folder, or move those files away first"
        )
    for path, text in planned.items():
        destination = target / path
        destination.parent.mkdir(parents=True, exist_ok=True)
        destination.write_text(text, encoding="utf-8")
    return list(planned)


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
