"""YAML loading that remembers where every key and list item stands, for `file:line` errors.

PyYAML throws positions away once it builds Python objects, so we walk its node
tree ourselves: mappings become `LocatedMap` (a dict that knows each key's line),
sequences become `LocatedList` (a list that knows each item's line). Scalars are
built by PyYAML's own constructor, so `17`, `true` and `2026-10-22` keep their
usual types. Duplicate keys, which PyYAML silently lets win, are reported.

Registry files are contributions, so reading is bounded (corpus_build.core.limits): only
regular files are opened (a FIFO or /dev/zero would block or never end), their size is
checked before reading, and building stops at a node budget, an alias budget (a
"billion laughs" bomb is a few hundred bytes of aliases) and a nesting depth; an alias
that contains itself is reported instead of recursing forever.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import yaml

from ..core.errors import Problem
from ..core.limits import LIMITS


class _Stop(Exception):
    """A bound was hit while building: the problem is recorded, the document abandoned."""

try:  # libyaml is several times faster on large registries and keeps marks too
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on how PyYAML was built
    _Loader = yaml.SafeLoader


class LocatedMap(dict):
    line: int = 0
    column: int = 0
    key_lines: dict[Any, int]
    # Keys written twice (already reported as duplicate-key): their value's own checks are noise.
    duplicate_keys: frozenset = frozenset()

    def line_of(self, key: Any) -> int:
        return self.key_lines.get(key, self.line)


class LocatedList(list):
    line: int = 0
    column: int = 0
    item_lines: list[int]

    def line_of(self, index: int) -> int:
        return self.item_lines[index] if index < len(self.item_lines) else self.line


def parse(text: str, path: str, problems: list[Problem]) -> Any:
    """Parse one YAML document; syntax errors and duplicate keys go to `problems`.

    Returns None when the text cannot be parsed at all.
    """
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark else (0, 0)
        what = exc.problem or exc.context or "invalid YAML"
        start = exc.context_mark
        if exc.problem and exc.context and start and mark and start.line != mark.line:
            # e.g. "did not find expected ',' or ']' (while parsing a flow sequence started at line 13)"
            what += f" ({exc.context} started at line {start.line + 1})"
        problems.append(Problem(path, line, column, f"YAML syntax error: {what}; check indentation and quoting", code="yaml-syntax"))
        return None
    except yaml.YAMLError as exc:
        problems.append(Problem(path, 0, 0, f"YAML error: {exc}", code="yaml-syntax"))
        return None
    finally:
        loader.dispose()
    if node is None:
        return None
    budget = _Budget()
    try:
        return _build(node, loader, path, problems, budget)
    except _Stop:
        return None


def _kind_of_file(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def read_text(path: Path, problems: list[Problem], display: str | None = None, *, max_bytes: int | None = None) -> str | None:
    """A registry file's text, or None with a problem: not a regular file, too large, not UTF-8, unreadable.

    Opened with O_NONBLOCK so that a FIFO cannot block, and checked with fstat before a
    single byte is read, so /dev/zero or a folder is refused without reading.
    """
    display = display or str(path)
    cap = LIMITS.file_bytes if max_bytes is None else max_bytes
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except IsADirectoryError:
        problems.append(Problem(display, 0, 0, "is a folder, not a YAML file; remove or rename the folder", code="not-a-file"))
        return None
    except OSError as exc:
        problems.append(Problem(display, 0, 0, f"cannot be read ({exc.strerror or exc}); check the file and its permissions", code="unreadable"))
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            problems.append(Problem(display, 0, 0, f"is {_kind_of_file(info.st_mode)}, not a regular file; replace it with a YAML file", code="not-a-file"))
            return None
        if info.st_size > cap:
            problems.append(Problem(display, 0, 0, f"is {info.st_size:,} bytes, over the limit of {cap:,} bytes for a registry file; split it", code="file-too-large"))
            return None
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, 1024 * 1024)
            if not chunk:
                break
            total += len(chunk)
            if total > cap:  # grew while being read
                problems.append(Problem(display, 0, 0, f"is over the limit of {cap:,} bytes for a registry file; split it", code="file-too-large"))
                return None
            chunks.append(chunk)
    except OSError as exc:
        problems.append(Problem(display, 0, 0, f"cannot be read ({exc.strerror or exc}); check the file and its permissions", code="unreadable"))
        return None
    finally:
        os.close(fd)
    try:
        return b"".join(chunks).decode("utf-8")
    except UnicodeDecodeError as exc:
        problems.append(Problem(display, 0, 0, f"not UTF-8 text ({exc.reason}); save the file as UTF-8", code="not-utf8"))
        return None


def load(path: Path, problems: list[Problem], display: str | None = None) -> Any:
    display = display or str(path)
    text = read_text(path, problems, display)
    if text is None:
        return None
    return parse(text, display, problems)


class _Budget:
    def __init__(self) -> None:
        self.nodes = 0
        self.alias_nodes = 0
        self.seen: set[int] = set()  # nodes built once already: reaching one again is an alias
        self.open: set[int] = set()  # collections being built (an alias to one is a cycle)


def _at(node: yaml.Node) -> tuple[int, int]:
    return node.start_mark.line + 1, node.start_mark.column + 1


def _build(node: yaml.Node, loader: Any, path: str, problems: list[Problem], budget: _Budget, depth: int = 0) -> Any:
    line, column = _at(node)
    key = id(node)
    if key in budget.open:
        problems.append(Problem(path, line, column, "an alias refers to the collection that contains it (a loop); write the values out"))
        raise _Stop
    budget.nodes += 1
    if key in budget.seen:
        budget.alias_nodes += 1
    if budget.alias_nodes > LIMITS.yaml_alias_nodes:
        problems.append(Problem(path, line, column, f"aliases expand to more than {LIMITS.yaml_alias_nodes:,} values (a YAML alias bomb?); write the values out instead of repeating *aliases"))
        raise _Stop
    if budget.nodes > LIMITS.yaml_nodes:
        problems.append(Problem(path, line, column, f"more than {LIMITS.yaml_nodes:,} YAML values in one file; split it"))
        raise _Stop
    if depth > LIMITS.yaml_depth:
        problems.append(Problem(path, line, column, f"nested more than {LIMITS.yaml_depth} levels deep; flatten the structure"))
        raise _Stop
    budget.seen.add(key)
    if isinstance(node, (yaml.MappingNode, yaml.SequenceNode)):
        budget.open.add(key)
        try:
            return _build_collection(node, loader, path, problems, budget, depth)
        finally:
            budget.open.discard(key)
    try:
        return loader.construct_object(node, deep=True)
    except yaml.constructor.ConstructorError as exc:
        problems.append(Problem(path, line, column, f"cannot read value: {exc.problem}", code="bad-value"))
        return None
    except (ValueError, OverflowError) as exc:
        if node.tag == "tag:yaml.org,2002:timestamp":  # a date-shaped scalar that is no date (2026-13-01):
            return node.value  # kept as text, for the field's own check to report
        # int('9' * 5000) exceeds Python's digit limit; a date like 2026-13-45 does not exist.
        value = str(getattr(node, "value", ""))
        shown = value if len(value) <= 40 else f"{value[:20]}… ({len(value):,} characters)"
        problems.append(Problem(path, line, column, f"cannot read value '{shown}': {str(exc).split(';')[0]}; quote it to keep it as text, or fix it"))
        return None


_PLAIN_TAGS = ("tag:yaml.org,2002:map", "tag:yaml.org,2002:seq", "tag:yaml.org,2002:omap")


def _build_collection(node: yaml.Node, loader: Any, path: str, problems: list[Problem], budget: _Budget, depth: int) -> Any:
    if node.tag not in _PLAIN_TAGS:  # e.g. !!python/object/apply: never constructed, and said so
        line, column = _at(node)
        problems.append(Problem(path, line, column, f"cannot read value: unsupported YAML tag '{node.tag}'; remove the tag"))
        return None
    if isinstance(node, yaml.MappingNode):
        result = LocatedMap()
        result.line, result.column = node.start_mark.line + 1, node.start_mark.column + 1
        result.key_lines = {}
        for key_node, value_node in node.value:
            key = _build(key_node, loader, path, problems, budget, depth + 1)
            if not isinstance(key, (str, int, float, bool)) and key is not None:
                problems.append(Problem(path, key_node.start_mark.line + 1, key_node.start_mark.column + 1, "a mapping key must be a plain word", code="bad-key"))
                continue
            if key in result:
                problems.append(
                    Problem(
                        path,
                        key_node.start_mark.line + 1,
                        key_node.start_mark.column + 1,
                        f"duplicate key '{key}' (first at line {result.key_lines[key]}); keep only one",
                        code="duplicate-key",
                    )
                )
                result.duplicate_keys = result.duplicate_keys | {key}
            result.key_lines[key] = key_node.start_mark.line + 1
            result[key] = _build(value_node, loader, path, problems, budget, depth + 1)
        return result
    if isinstance(node, yaml.SequenceNode):
        result_list = LocatedList()
        result_list.line, result_list.column = node.start_mark.line + 1, node.start_mark.column + 1
        result_list.item_lines = [item.start_mark.line + 1 for item in node.value]
        if len(node.value) > LIMITS.entries:
            problems.append(Problem(path, result_list.line, result_list.column, f"a list of {len(node.value):,} items, over the limit of {LIMITS.entries:,}; split it"))
            raise _Stop
        result_list.extend(_build(item, loader, path, problems, budget, depth + 1) for item in node.value)
        return result_list
    raise AssertionError(f"not a collection: {node!r}")


def ready_to_append(body: str) -> str:
    """A sources.yaml's text ready for entries appended at its end, comments kept.

    A file holding no entry — empty, comments only, or an empty list `[]` (with comments
    around it, as `corpus-build init` writes) — cannot take `- id: …` lines after `[]`: the
    `[]` line goes and the comments stay. Any other text gets a final newline.
    """
    lines = body.splitlines(keepends=True)
    content = [i for i, line in enumerate(lines) if line.strip() and not line.lstrip().startswith("#")]
    if not content:
        return "".join(lines).rstrip() + "\n" if body.strip() else ""
    if len(content) == 1 and lines[content[0]].split("#", 1)[0].strip() == "[]":
        kept = lines[: content[0]] + lines[content[0] + 1 :]
        return "".join(kept).rstrip() + "\n" if "".join(kept).strip() else ""
    return body if body.endswith("\n") else body + "\n"
