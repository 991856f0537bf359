"""Check that the package is laid out as the pipeline it is: floors, rooms, no import cycle.

    python scripts/check_layers.py            # the package under src/corpus_build
    python scripts/check_layers.py --graph    # also print every module's imports, by floor

Each top-level package of corpus_build is a room, and each room stands on a floor (FLOORS
below). A module may import from its own room and from rooms on lower floors, never from a
higher floor, nor from another room on its own floor (fetch and watch know nothing of each
other). No module may be in no room: a new top-level module needs a floor here first.

Imports are read from the code with `ast`, those inside functions too (a lazy import is still
a dependency). Importing `a.b.c` also runs the packages `a.b` and `a`, so those count as
imported as well. The floor rules apply to every import, `if TYPE_CHECKING:` ones included;
cycles are looked for among the imports that run (a type-only import never executes).

Exit 0 when every rule holds; 1 with one line per broken rule. CI runs it (scripts/lint.sh),
and tests/test_layers.py checks that it finds each kind of mistake.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

PACKAGE = "corpus_build"
# Lowest first, each floor with its rooms: a room is a package of corpus_build, or a few
# top-level modules named together. The ground floor holds the records and helpers every
# stage shares (errors, model, provenance, the command-line registry…) and imports no stage;
# the top floor (cli.py, publish.py) is the only one that sees every stage.
FLOORS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("ground floor", ("core",)),
    ("registry", ("registry",)),
    ("fetch and watch", ("fetch", "watch")),
    ("links", ("links",)),
    ("render", ("render",)),
    ("site engine", ("site",)),
    ("command line", ("cli+publish+init+completion+__main__",)),
)


@dataclass(frozen=True)
class Import:
    source: str  # the importing module, dotted
    target: str  # the imported module or package, dotted
    line: int
    runs: bool  # False for an import under `if TYPE_CHECKING:`
    implied: bool = False  # a package run because a module in it was imported


def modules(root: Path) -> dict[str, Path]:
    """Every module of the package under `root` (the folder holding the package), by dotted name."""
    found = {}
    for path in sorted((root / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _import_nodes(tree: ast.AST) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement, with whether it runs (False under `if TYPE_CHECKING:`)."""

    def walk(nodes: Iterable[ast.AST], runs: bool) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
        for node in nodes:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                yield node, runs
            elif isinstance(node, ast.If) and _type_checking(node.test):
                yield from walk(node.body, False)
                yield from walk(node.orelse, runs)
            else:
                yield from walk(ast.iter_child_nodes(node), runs)

    yield from walk(ast.iter_child_nodes(tree), True)


def _owner(name: str, known: dict[str, Path]) -> str | None:
    """The module `name` is, or the one it is a name in (corpus_build.core.errors.UsageError -> …errors)."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def imports(known: dict[str, Path]) -> list[Import]:
    found = []
    for module, path in known.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node, runs in _import_nodes(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                if node.level:
                    base = package.split(".")
                    base = base[: len(base) - (node.level - 1)]
                    stem = ".".join(base + ([node.module] if node.module else []))
                else:
                    stem = node.module or ""
                targets = [f"{stem}.{alias.name}" for alias in node.names]
            for target in targets:
                if target != PACKAGE and not target.startswith(PACKAGE + "."):
                    continue
                owner = _owner(target, known)
                if owner is None or owner == module:
                    continue
                # Importing a.b.c runs a.b and a first; the importer's own packages are already running.
                parts = owner.split(".")
                for depth in range(2, len(parts) + 1):
                    name = ".".join(parts[:depth])
                    if name in known and name != module and not module.startswith(name + "."):
                        found.append(Import(module, name, node.lineno, runs, implied=depth < len(parts)))
    return list(dict.fromkeys(found))  # `from x import a, b` is one import of x


def room(module: str) -> str | None:
    """The room of a module: its top-level package, or the group of top-level modules it is named in."""
    parts = module.split(".")
    if len(parts) < 2:
        return None  # the package's own __init__ is in no room
    for _, rooms in FLOORS:
        for name in rooms:
            if parts[1] in name.split("+"):
                return name
    return parts[1]


def floor_of(name: str | None) -> int | None:
    for number, (_, rooms) in enumerate(FLOORS):
        if name in rooms:
            return number
    return None


def cycles(edges: dict[str, set[str]]) -> list[tuple[list[str], list[str]]]:
    """The import cycles: each group of two or more modules that import each other (round and
    round), with one path round it."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[tuple[list[str], list[str]]] = []
    counter = 0

    def visit(start: str) -> None:  # Tarjan's algorithm, iterative (deep import chains)
        nonlocal counter
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append((sorted(group), _round(sorted(group), edges)))

    for name in sorted(edges):
        if name not in index:
            visit(name)
    return groups


def _round(group: list[str], edges: dict[str, set[str]]) -> list[str]:
    """One cycle through the group's first module, found breadth-first inside the group."""
    members = set(group)
    start = group[0]
    paths = {start: [start]}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for child in sorted(edges.get(node, ())):
            if child == start:
                return paths[node] + [start]
            if child in members and child not in paths:
                paths[child] = paths[node] + [child]
                queue.append(child)
    return group


def problems(root: Path) -> tuple[list[str], list[Import], dict[str, Path]]:
    known = modules(root)
    found = imports(known)
    lines = []
    for module in sorted(known):
        if module != PACKAGE and floor_of(room(module)) is None:
            lines.append(f"{known[module].relative_to(root)}: {module} is in no room on any floor: move it into a stage package, or give it a floor in FLOORS ({Path(__file__).name})")
    for imp in found:
        here, there = room(imp.source), room(imp.target)
        if imp.target == PACKAGE or here == there or imp.implied:  # an implied package is in its module's room
            continue
        if imp.source == PACKAGE:
            lines.append(f"{known[imp.source].relative_to(root)}:{imp.line}: the package's __init__ imports {imp.target}: keep it free of imports, so every floor can import it")
            continue
        low, high = floor_of(here), floor_of(there)
        if low is None or high is None:
            continue  # reported above
        if high > low:
            lines.append(f"{known[imp.source].relative_to(root)}:{imp.line}: {imp.source} ({FLOORS[low][0]}) imports {imp.target} from a higher floor ({FLOORS[high][0]}): "
                         "move what it needs down, or pass it in")
        elif high == low:
            lines.append(f"{known[imp.source].relative_to(root)}:{imp.line}: {imp.source} imports {imp.target}, another room on its floor ({FLOORS[low][0]}): "
                         "move what both need to a lower floor")
    edges: dict[str, set[str]] = {}
    for imp in found:
        if imp.runs:
            edges.setdefault(imp.source, set()).add(imp.target)
    for group, path in cycles(edges):
        lines.append(f"import cycle: {len(group)} modules import each other ({', '.join(m.removeprefix(PACKAGE + '.') for m in group)}); one way round: {' -> '.join(path)}")
    return lines, found, known


def _graph(found: Iterable[Import], known: dict[str, Path]) -> None:
    targets: dict[str, set[str]] = {}
    for imp in found:
        if not imp.implied:
            targets.setdefault(imp.source, set()).add(imp.target + ("" if imp.runs else " (type only)"))
    for number, (name, rooms) in reversed(list(enumerate(FLOORS))):
        print(f"{number} {name}: {', '.join(rooms)}")
        for module in sorted(m for m in known if room(m) in rooms):
            short = sorted(t.removeprefix(PACKAGE + ".") for t in targets.get(module, ()))
            print(f"    {module.removeprefix(PACKAGE + '.')}: {', '.join(short) or '-'}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1] / "src", help="the folder holding the corpus_build package (default: src/)")
    parser.add_argument("--graph", action="store_true", help="print each module's imports, floor by floor")
    args = parser.parse_args(argv)
    lines, found, known = problems(args.root)
    if args.graph:
        _graph(found, known)
    for line in lines:
        print(line)
    rooms = sum(len(r) for _, r in FLOORS)
    print(f"{len(known)} modules in {rooms} rooms on {len(FLOORS)} floors, {len({(i.source, i.target) for i in found})} imports between them: "
          + (f"{len(lines)} problem(s)" if lines else "no upward import, no import between rooms of one floor, no cycle"))
    return 1 if lines else 0


if __name__ == "__main__":
    sys.exit(main())
