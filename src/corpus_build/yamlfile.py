"""YAML loading that remembers where every key and list item stands, for `file:line` errors.

PyYAML throws positions away once it builds Python objects, so we walk its node
tree ourselves: mappings become `LocatedMap` (a dict that knows each key's line),
sequences become `LocatedList` (a list that knows each item's line). Scalars are
built by PyYAML's own constructor, so `17`, `true` and `2026-10-22` keep their
usual types. Duplicate keys, which PyYAML silently lets win, are reported.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from .errors import Problem

try:  # libyaml is several times faster on large registries and keeps marks too
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on how PyYAML was built
    _Loader = yaml.SafeLoader


class LocatedMap(dict):
    line: int = 0
    column: int = 0
    key_lines: dict[Any, int]

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
    return _build(node, loader, path, problems)


def load(path: Path, problems: list[Problem], display: str | None = None) -> Any:
    display = display or str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        problems.append(Problem(display, 0, 0, f"not UTF-8 text ({exc.reason}); save the file as UTF-8", code="not-utf8"))
        return None
    return parse(text, display, problems)


def _build(node: yaml.Node, loader: Any, path: str, problems: list[Problem]) -> Any:
    if isinstance(node, yaml.MappingNode):
        result = LocatedMap()
        result.line, result.column = node.start_mark.line + 1, node.start_mark.column + 1
        result.key_lines = {}
        for key_node, value_node in node.value:
            key = _build(key_node, loader, path, problems)
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
            result.key_lines[key] = key_node.start_mark.line + 1
            result[key] = _build(value_node, loader, path, problems)
        return result
    if isinstance(node, yaml.SequenceNode):
        result_list = LocatedList()
        result_list.line, result_list.column = node.start_mark.line + 1, node.start_mark.column + 1
        result_list.item_lines = [item.start_mark.line + 1 for item in node.value]
        result_list.extend(_build(item, loader, path, problems) for item in node.value)
        return result_list
    try:
        return loader.construct_object(node, deep=True)
    except yaml.constructor.ConstructorError as exc:
        problems.append(Problem(path, node.start_mark.line + 1, node.start_mark.column + 1, f"cannot read value: {exc.problem}", code="bad-value"))
        return None
    except ValueError:  # a date-shaped scalar that is no date (2026-13-01): kept as text, for the field's own check
        return node.value
