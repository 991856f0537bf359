"""CSS from outside: what a stylesheet asks to load, and the same sheet made safe to publish.

The fetch stage reads `references` to download what a page's stylesheets use; render
publishes every sheet through `sanitize` (or `sanitize_declarations` for a `style=`
attribute). Both read CSS with tinycss2, which tokenises as the CSS Syntax spec, and so a
browser, does: escapes (`u\\rl(`, `\\75 rl(`, `e\\xpression(`), comments, strings and nested
blocks are decoded once, and the sheet is written back from its tokens, so what the browser
reads is what was checked. A regex sees the text, not the tokens, and misses those forms.

What `sanitize` leaves: rules and declarations whose every address (url(), @import,
image-set() strings, src()) `resolve` turned into a local copy. An address it cannot turn is
replaced by `none` (an entry of a `src`/`cursor` list is dropped), never kept: no off-site or
fetch-time address survives. Gone entirely: `expression()`, `behavior`, `-moz-binding` and
the like (script in CSS in old browsers), `@namespace` and `@document` (addresses that are
not loads), `@charset` (the output is UTF-8), and anything tinycss2 reports as a parse error.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import tinycss2
from tinycss2 import ast
from tinycss2.serializer import serialize_url

# resolve(address as written, kind) -> the local copy's address, or None to drop it.
Resolve = Callable[[str, str], "str | None"]

IMPORT, IMAGE, FONT = "import", "image", "font"
# Properties that ran script or bound behaviour in some browser (IE, old Firefox, Opera).
_SCRIPTED = frozenset({"behavior", "-ms-behavior", "-moz-binding", "binding", "-o-link", "-o-link-source"})
# Rules whose block holds rules; those that hold declarations (and maybe nested rules) are the rest.
_GROUPS = frozenset({"media", "supports", "layer", "container", "scope", "starting-style", "keyframes", "-webkit-keyframes", "-moz-keyframes"})
_DECLARATIONS = frozenset({"font-face", "page", "property", "counter-style", "font-feature-values", "font-palette-values", "viewport", "-ms-viewport",
                           "top-left", "top-center", "top-right", "bottom-left", "bottom-center", "bottom-right", "left-top", "left-middle",
                           "left-bottom", "right-top", "right-middle", "right-bottom", "top-left-corner", "top-right-corner",
                           "bottom-left-corner", "bottom-right-corner", "swash", "annotation", "ornaments", "stylistic", "styleset",
                           "character-variant", "position-try", "view-transition"})
_IMAGE_SETS = frozenset({"image-set", "-webkit-image-set", "image"})  # their strings are addresses too
_LISTS = frozenset({"src", "cursor"})  # comma lists where one lost entry must not sink the rest
_MAX_DEPTH = 32  # blocks inside blocks; real sheets nest a few levels
_CHARSET = re.compile(rb'^@charset "([A-Za-z0-9_.:-]{1,40})";')
_SURROGATE = re.compile("[\ud800-\udfff]")
_HEADER_CHARSET = re.compile(r"charset\s*=\s*[\"']?([A-Za-z0-9_.:-]+)", re.IGNORECASE)


@dataclass(frozen=True)
class Reference:
    """An address a stylesheet loads: an @import, an image, or a font of an @font-face rule."""

    url: str  # as written in the sheet (resolve it against the sheet's address)
    kind: str  # IMPORT, IMAGE or FONT


class _Drop(Exception):
    """The declaration or rule at hand goes: it holds something that cannot be made safe."""


def decode(data: bytes, content_type: str = "") -> str:
    """A stylesheet's text: its BOM, else the HTTP charset, else its @charset, else UTF-8 (CSS Syntax §3.2)."""
    for bom, name in ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16")):
        if data.startswith(bom):
            return data.decode(name, errors="replace").lstrip("\ufeff")
    labels = [m.group(1) for m in [_HEADER_CHARSET.search(content_type or "")] if m]
    labels += [m.group(1).decode("ascii") for m in [_CHARSET.match(data)] if m]
    for label in labels:
        try:
            codec = codecs.lookup(label.strip().lower()).name
        except LookupError:
            continue
        if codec.startswith("utf-16"):  # a sheet labelled UTF-16 without a BOM is UTF-8 to a browser
            continue
        return data.decode(codec, errors="replace")
    return data.decode("utf-8", errors="replace")


# --- what a sheet loads ------------------------------------------------------------------------


def references(text: str, *, declarations: bool = False) -> tuple[Reference, ...]:
    """Every address `text` (a sheet, or with `declarations` a style= attribute) would load, in order,
    each once (fragment-only and data: addresses left out)."""
    found: dict[tuple[str, str], Reference] = {}

    def note(url: str, kind: str) -> str | None:
        url = url.strip()
        if url and not url.startswith("#") and not url.lower().startswith("data:"):
            found.setdefault((url, kind), Reference(url, kind))
        return None  # nothing is written: the sanitised text is thrown away

    if declarations:
        sanitize_declarations(text, note)
    else:
        sanitize(text, note)
    return tuple(found.values())


# --- the sheet made safe -------------------------------------------------------------------------


def sanitize(text: str, resolve: Resolve) -> str:
    """`text` with every address turned local by `resolve` (or dropped) and everything scripted removed."""
    try:
        rules = tinycss2.parse_stylesheet(text, skip_comments=True, skip_whitespace=True)
        return _text("\n".join(out for out in (_rule(node, resolve, 0, top=True) for node in rules) if out))
    except RecursionError:  # nesting deeper than Python's stack: nothing of it is kept
        return ""


def sanitize_declarations(text: str, resolve: Resolve, *, important: bool = False) -> str:
    """The declarations of a `style=` attribute, made safe as `sanitize` does; `important` marks each !important."""
    try:
        nodes = tinycss2.parse_blocks_contents(text, skip_comments=True, skip_whitespace=True)
        return _text(";".join(out for out in (_declaration(n, resolve, important=important) for n in nodes if isinstance(n, ast.Declaration)) if out))
    except RecursionError:
        return ""


def _text(out: str) -> str:
    """`out` as UTF-8 can hold it: tinycss2 decodes an escape such as `\\D800` to a lone surrogate,
    which CSS Syntax says is U+FFFD (and which would fail the file's encoding)."""
    return _SURROGATE.sub("\ufffd", out)


def _rule(node: Any, resolve: Resolve, depth: int, *, top: bool = False) -> str:
    if depth > _MAX_DEPTH:
        return ""
    try:
        if isinstance(node, ast.QualifiedRule):
            block = _block(node.content, resolve, depth + 1)
            return _plain(node.prelude).strip() + "{" + block + "}" if block else ""  # an emptied rule does nothing
        if isinstance(node, ast.AtRule):
            return _at_rule(node, resolve, depth, top)
    except _Drop:
        return ""
    return ""  # a parse error, a stray token


def _at_rule(node: ast.AtRule, resolve: Resolve, depth: int, top: bool) -> str:
    name = node.lower_at_keyword
    head = "@" + tinycss2.serialize([ast.IdentToken(0, 0, node.at_keyword)])
    prelude = " " + _plain(node.prelude).strip() if name != "import" else ""
    if name == "import":
        return _import(node, resolve) if top and node.content is None else ""
    if node.content is None:  # `@layer a, b;` and the like: kept when it names no address
        return head + prelude + ";" if name == "layer" else ""
    if name in _GROUPS:
        inner = tinycss2.parse_rule_list(node.content, skip_comments=True, skip_whitespace=True)
        return head + prelude.rstrip() + "{" + "\n".join(o for o in (_rule(n, resolve, depth + 1) for n in inner) if o) + "}"
    if name in _DECLARATIONS:
        return head + prelude.rstrip() + "{" + _block(node.content, resolve, depth + 1, font=name == "font-face") + "}"
    return ""  # charset, namespace, document and every at-rule not known to be safe


def _import(node: ast.AtRule, resolve: Resolve) -> str:
    """`@import url("local") <media>;`, or "" when the sheet it names has no local copy."""
    prelude = list(node.prelude)
    while prelude and prelude[0].type == "whitespace":
        prelude.pop(0)
    if not prelude:
        return ""
    first = prelude[0]
    address = _address(first)
    if address is None:
        return ""
    local = resolve(address, IMPORT)
    if not local:
        return ""
    rest = prelude[1:]
    return "@import " + _url_token(local).representation + _plain(rest) + ";"


def _address(token: Any) -> str | None:
    """The address a url token, url("…") / src("…") function or string names, else None."""
    if isinstance(token, (ast.URLToken, ast.StringToken)):
        return str(token.value)
    if isinstance(token, ast.FunctionBlock) and token.lower_name in ("url", "src"):
        args = [a for a in token.arguments if a.type not in ("whitespace", "comment")]
        if len(args) >= 1 and isinstance(args[0], ast.StringToken):
            return str(args[0].value)
    return None


def _block(content: Iterable[Any] | None, resolve: Resolve, depth: int, *, font: bool = False) -> str:
    """A declaration block (with the rules CSS nesting puts in it)."""
    if depth > _MAX_DEPTH or content is None:
        return ""
    out = []
    for node in tinycss2.parse_blocks_contents(content, skip_comments=True, skip_whitespace=True):
        if isinstance(node, ast.Declaration):
            out.append(_declaration(node, resolve, font=font))
        elif isinstance(node, (ast.QualifiedRule, ast.AtRule)):
            out.append(_rule(node, resolve, depth))
    return ";".join(o for o in out if o)


def _declaration(node: ast.Declaration, resolve: Resolve, *, font: bool = False, important: bool = False) -> str:
    name = node.lower_name
    if name in _SCRIPTED:
        return ""
    kind = FONT if font and name == "src" else IMAGE
    try:
        if name in _LISTS:
            entries = [_values(entry, resolve, kind, strict=True) for entry in _split_commas(node.value)]
            value = _join_commas([e for e in entries if e is not None and tinycss2.serialize(e).strip()])
            if not value:
                return ""
        else:
            value = _values(node.value, resolve, kind) or []
    except _Drop:
        return ""
    text = tinycss2.serialize([ast.IdentToken(0, 0, node.name)]) + ":" + tinycss2.serialize(value).strip()
    return text + ("!important" if node.important or important else "")


def _join_commas(entries: list[list[Any]]) -> list[Any]:
    return [t for n, entry in enumerate(entries) for t in ([ast.LiteralToken(0, 0, ","), ast.WhitespaceToken(0, 0, " ")] if n else []) + _trim(entry)]


def _trim(tokens: list[Any]) -> list[Any]:
    start, end = 0, len(tokens)
    while start < end and tokens[start].type == "whitespace":
        start += 1
    while end > start and tokens[end - 1].type == "whitespace":
        end -= 1
    return tokens[start:end]


def _split_commas(values: list[Any]) -> list[list[Any]]:
    entries: list[list[Any]] = [[]]
    for token in values:
        if token == ",":
            entries.append([])
        else:
            entries[-1].append(token)
    return entries


def _values(values: Iterable[Any], resolve: Resolve, kind: str, *, strict: bool = False, depth: int = 0) -> list[Any] | None:
    """The component values with every address made local. An address with no local copy becomes
    `none`, or, when `strict`, sinks the whole list (None): a lost entry of `src: a, b`."""
    if depth > _MAX_DEPTH:
        raise _Drop
    out: list[Any] = []
    for token in values:
        if token.type in ("error", "comment"):
            raise _Drop  # a bad url, an unclosed string: a browser drops the declaration too
        if token.type == "at-keyword" or isinstance(token, ast.CurlyBracketsBlock) or (token.type == "literal" and token.value in "{};"):
            raise _Drop  # not a value: broken CSS, or an attempt to close our rule and open one of its own
        if isinstance(token, ast.URLToken) or (isinstance(token, ast.FunctionBlock) and token.lower_name in ("url", "src")):
            address = _address(token)
            local = _local(address, resolve, kind)
            if local is None and strict:
                return None
            out.append(_url_token(local) if local else ast.IdentToken(0, 0, "none"))
        elif isinstance(token, ast.FunctionBlock):
            if "expression" in token.lower_name:
                raise _Drop
            inner = token.lower_name in _IMAGE_SETS
            arguments = _image_set(token.arguments, resolve, depth) if inner else _values(token.arguments, resolve, kind, depth=depth + 1)
            out.append(ast.FunctionBlock(0, 0, token.name, arguments or []))
        elif isinstance(token, (ast.ParenthesesBlock, ast.SquareBracketsBlock)):
            content = _values(token.content, resolve, kind, depth=depth + 1) or []
            out.append(type(token)(0, 0, content))
        else:
            out.append(token)
    return out


def _image_set(arguments: list[Any], resolve: Resolve, depth: int) -> list[Any]:
    """image-set("a.png" 1x, url(b.png) 2x): its strings are addresses, and an option without a
    local copy is left out (a `none` there would void the whole value); var() could make one up."""
    options = []
    for option in _split_commas(arguments):
        kept = _image_option(option, resolve, depth)
        if kept is not None and tinycss2.serialize(kept).strip():
            options.append(kept)
    if not options:
        raise _Drop  # no option left: the declaration goes, as a browser drops an empty image-set()
    return _join_commas(options)


def _image_option(option: list[Any], resolve: Resolve, depth: int) -> list[Any] | None:
    """One option of an image-set(), or None when its image has no local copy."""
    kept: list[Any] = []
    for token in option:
        if isinstance(token, ast.StringToken):
            local = _local(str(token.value), resolve, IMAGE)
            if not local:
                return None
            kept.append(_url_token(local))
        elif isinstance(token, ast.FunctionBlock) and token.lower_name in ("var", "env", "attr"):
            raise _Drop  # an address assembled at run time cannot be checked here
        else:
            found = _values([token], resolve, IMAGE, strict=True, depth=depth + 1)
            if found is None:
                return None
            kept.extend(found)
    return kept


def _local(address: str | None, resolve: Resolve, kind: str) -> str | None:
    if address is None:
        return None  # src(var(--x)): an address made at run time
    if address.strip().startswith("#"):
        return "#" + address.strip()[1:]  # an element of the page (an SVG filter, a mask): no request
    local = resolve(address, kind)
    return local or None


def _url_token(local: str) -> ast.URLToken:
    return ast.URLToken(0, 0, local, "url(" + serialize_url(local) + ")")


def _plain(tokens: Iterable[Any]) -> str:
    """A prelude (selectors, a media query) that must load nothing, written back; raises _Drop when it would."""
    tokens = list(tokens)
    for token in _walk(tokens):
        if isinstance(token, (ast.URLToken, ast.CurlyBracketsBlock, ast.ParseError)) or token.type in ("error", "at-keyword"):
            raise _Drop
        if isinstance(token, ast.FunctionBlock) and (token.lower_name in ("url", "src") or "expression" in token.lower_name):
            raise _Drop
    return tinycss2.serialize(tokens)


def _walk(tokens: Iterable[Any]) -> Iterable[Any]:
    for token in tokens:
        yield token
        if isinstance(token, ast.FunctionBlock):
            yield from _walk(token.arguments)
        elif hasattr(token, "content") and isinstance(token.content, list):
            yield from _walk(token.content)
