"""A paper's structure: its text in reading blocks, with its headings and the page each is on.

Written by fetch/kinds/pdf.py, read by the site and by `check`. Headings come from the PDF's own outline (bookmarks,
which LaTeX's hyperref writes for nearly every arXiv paper) when it has one, else
from PyMuPDF's font information: blocks set larger than the body text, or bold and
numbered ("4.3 Tile scheduling"). Each heading gets a stable anchor: `sec-4-3` for a
numbered one, `sec-<words>` otherwise; each page is `page-N`. The site's text page and
`[[paper-id#page-12]]` / `[[paper-id#sec-4-3]]` links use these anchors, and
`corpus-build check` validates links against structure.json.

pymupdf4llm could write such Markdown too, but its current release pulls in an ONNX
layout model (onnxruntime, numpy, networkx) for every worker, and it is absent from
pymupdf-lite; the font rules here need nothing beyond PyMuPDF's get_text("dict").
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from collections import Counter
from pathlib import Path
from typing import Any

from . import jsondata, safepath
from .provenance import write_atomic

STRUCTURE = "structure.json"
STRUCTURE_MD = "structure.md"
VERSION = 1
_NUMBERED = re.compile(r"^(\d{1,2}(?:\.\d{1,2}){0,3}|[A-Z](?:\.\d{1,2}){1,3})\.?\s+(\S.{0,150})$")
_NAMED = re.compile(r"^(abstract|introduction|background|related work|conclusions?|discussion|references|bibliography|acknowledge?ments?|appendix|摘要|引言|绪论|结论|参考文献|致谢|附录)\b", re.IGNORECASE)
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
PAGE_ANCHOR = re.compile(r"^page-([1-9]\d{0,5})$")
_CHAPTER = re.compile(r"^(?:chapter|part|appendix|第)\s*(\d{1,3}|[A-Z])\s*[章部篇]?\s*(\S.{0,150})?$", re.I)
_NUMBER_ONLY = re.compile(r"^(?:\d{1,2}(?:\.\d{1,2}){0,3}\.?|(?:chapter|part|appendix)\s+(?:\d{1,3}|[A-Z])|第\s*\d{1,3}\s*[章部篇节])$", re.I)


def split_number(title: str) -> tuple[str, str]:
    """("4.3", "Tile scheduling") for "4.3 Tile scheduling"; ("2", "第一步") for "Chapter 2 第一步"; ("", title) otherwise."""
    title = title.strip()
    match = _NUMBERED.match(title)
    if match:
        return match.group(1), match.group(2)
    match = _CHAPTER.match(title)
    if match and match.group(2):
        return match.group(1), match.group(2)
    return "", title


def anchor_for(title: str, taken: set[str]) -> str:
    """`sec-4-3` for "4.3 Tile scheduling", `sec-tile-scheduling` or `sec-引言` otherwise; unique in `taken`."""
    number, _rest = split_number(title)
    if number:
        base = "sec-" + number.lower().replace(".", "-")
    else:
        words = unicodedata.normalize("NFKC", title).lower()
        slug = re.sub(r"[^0-9a-z\u3400-\u9fff]+", "-", words).strip("-")[:48].strip("-")
        base = "sec-" + (slug or "heading")
    anchor, n = base, 2
    while anchor in taken:
        anchor, n = f"{base}-{n}", n + 1
    taken.add(anchor)
    return anchor


def _join(lines: list[str]) -> str:
    """A block's lines as one paragraph: hyphenation undone, no space between CJK characters."""
    out = ""
    for line in (line.strip() for line in lines):
        if not line:
            continue
        if not out:
            out = line
        elif out.endswith("-") and line[:1].islower():
            out = out[:-1] + line
        elif _CJK.match(out[-1]) and _CJK.match(line[0]):
            out += line
        else:
            out += " " + line
    return out


def _line_style(spans: list) -> tuple[float, bool, int]:
    sizes: Counter = Counter()
    bold = True
    for span in spans:
        chars = len(span.get("text", "").strip())
        if chars:
            sizes[round(float(span.get("size", 0)) * 2) / 2] += chars
            bold = bold and (bool(int(span.get("flags", 0)) & 16) or "bold" in str(span.get("font", "")).lower())
    return (sizes.most_common(1)[0][0] if sizes else 0.0), bold and bool(sizes), sum(sizes.values())


def _blocks(page: Any, number: int) -> list[dict]:
    """Text blocks of one page: text, dominant font size, whether every span is bold, line count.

    A block whose first line is bold and the rest is not ("Abstract" set above its paragraph,
    which PyMuPDF often puts in one block) is split after that line.
    """
    found: list[dict[str, Any]] = []

    def emit(lines: list[tuple[str, float, bool, int]]) -> None:
        text = _join([line[0] for line in lines])
        if not text:
            return
        sizes: Counter = Counter()
        for _text, size, _bold, chars in lines:
            sizes[size] += chars
        found.append({"page": number, "text": text, "size": sizes.most_common(1)[0][0] if sizes else 0.0,
                      "bold": all(line[2] for line in lines), "lines": len(lines)})

    for block in page.get_text("dict", flags=0).get("blocks", []):
        if block.get("type", 0) != 0:
            continue
        lines = []
        for line in block.get("lines", []):
            spans = line.get("spans", [])
            text = "".join(s.get("text", "") for s in spans)
            if text.strip():
                lines.append((text, *_line_style(spans)))
        if len(lines) > 1 and lines[0][2] and not lines[1][2]:
            emit(lines[:1])
            lines = lines[1:]
        emit(lines)
    # A heading's number set as a block of its own ("2.1" above "Debian 软件包制作流程", "Chapter 2"
    # above "第一步") joins its title, so the heading reads, and is anchored, as numbered.
    merged: list[dict[str, Any]] = []
    for block in found:
        if merged and _NUMBER_ONLY.match(merged[-1]["text"]) and len(block["text"]) <= 150 and not _NUMBER_ONLY.match(block["text"]) \
                and not split_number(block["text"])[0]:  # "5" (a page number) above "3 Utilities" stays apart
            head = merged.pop()  # not `number`: that is the page number emit() records
            block = {**block, "text": f"{head['text']} {block['text']}", "size": max(head["size"], block["size"]),
                     "bold": head["bold"] or block["bold"], "lines": head["lines"] + block["lines"]}
        merged.append(block)
    return merged


def _is_heading_by_font(block: dict, body: float) -> bool:
    text = block["text"]
    if not 2 <= len(text) <= 160 or block["lines"] > 3 or not re.search(r"[^\W\d_]", text):
        return False
    numbered = bool(_NUMBERED.match(text))
    if text[-1] in ".,;:" and not numbered:
        return False
    if block["size"] >= body + 1.0 and block["size"] >= body * 1.1:
        return True
    return block["bold"] and (numbered or bool(_NAMED.match(text))) and block["size"] >= body - 0.5 and len(text) <= 100


def _norm(text: str) -> str:
    return re.sub(r"\W+", "", unicodedata.normalize("NFKC", text).lower())


def structure(doc: Any) -> dict:
    """The paper's blocks and headings (see the module docstring); plain data for structure.json."""
    pages = [_blocks(page, number) for number, page in enumerate(doc, start=1)]
    flat = [b for page in pages for b in page]
    weights: Counter = Counter()
    for block in flat:
        weights[block["size"]] += len(block["text"])
    body = weights.most_common(1)[0][0] if weights else 10.0
    taken: set[str] = set()
    try:
        outline = [(int(level), str(title).strip(), int(page)) for level, title, page, *_ in doc.get_toc(simple=True)]
    except Exception:  # noqa: BLE001 - a damaged outline is no reason to lose the text
        outline = []
    outline = [(level, title, page) for level, title, page in outline if title and 1 <= page <= len(pages)]
    blocks: list[dict] = []
    if outline:
        method = "outline"
        wanted: dict[int, list[tuple[int, str]]] = {}
        for level, title, page in outline:
            wanted.setdefault(page, []).append((level, title))
        for number, page_blocks in enumerate(pages, start=1):
            pending = list(wanted.get(number, []))
            placed = []
            for block in page_blocks:
                names = {_norm(block["text"]), _norm(split_number(block["text"])[1])} - {""}
                # An outline entry often leaves out the number the page prints ("Introduction" / "1 Introduction").
                match = next((item for item in pending if _norm(item[1]) in names), None) if len(block["text"]) <= 200 else None
                if match is not None:
                    pending.remove(match)
                    placed.append({"page": number, "kind": "heading", "level": min(match[0] + 1, 4), "text": block["text"]})
                else:
                    placed.append({"page": number, "kind": "text", "text": block["text"]})
            # Outline entries whose text is not a block of its own (a heading run into its paragraph)
            # still get their anchor, at the top of their page.
            blocks += [{"page": number, "kind": "heading", "level": min(level + 1, 4), "text": title} for level, title in pending] + placed
    else:
        method = "fonts"
        heading_sizes = sorted({b["size"] for b in flat if _is_heading_by_font(b, body) and b["size"] > body}, reverse=True)
        title_size = max((b["size"] for b in pages[0]), default=0.0) if pages else 0.0
        title_done = False
        for block in flat:
            if not _is_heading_by_font(block, body):
                blocks.append({"page": block["page"], "kind": "text", "text": block["text"]})
                continue
            numbered_head = _NUMBERED.match(block["text"]) or _CHAPTER.match(block["text"])
            if not title_done and block["page"] == 1 and block["size"] == title_size and block["size"] >= body * 1.3 and not numbered_head:
                level, title_done = 1, True
            elif numbered_head:
                level = min(2 + numbered_head.group(1).count("."), 4)
            elif _NAMED.match(block["text"]):
                level = 2  # Abstract, References…: sections, whatever size the template sets them in
            else:
                level = min(2 + heading_sizes.index(block["size"]), 4) if block["size"] in heading_sizes else 3
            blocks.append({"page": block["page"], "kind": "heading", "level": level, "text": block["text"]})
    headings = []
    for block in blocks:
        if block["kind"] == "heading":
            block["anchor"] = anchor_for(block["text"], taken)
            headings.append({"level": block["level"], "text": block["text"], "page": block["page"], "anchor": block["anchor"]})
    return {"version": VERSION, "pages": len(pages), "method": method, "body_size": body, "headings": headings, "blocks": blocks}


def to_markdown(data: dict) -> str:
    """structure.json as Markdown: the paper's headings as Markdown headings, a marker line per page."""
    out, page = [], 0
    for block in data["blocks"]:
        while block["page"] > page:
            page += 1
            out.append(f"<!-- page {page} -->\n")
        if block["kind"] == "heading":
            out.append(f"{'#' * block['level']} {block['text']} {{#{block['anchor']}}}\n")
        else:
            out.append(block["text"] + "\n")
    return "\n".join(out)


def write(doc: Any, folder: Path) -> dict:
    data = structure(doc)
    write_atomic(folder / STRUCTURE, json.dumps(data, ensure_ascii=False, indent=1) + "\n")
    write_atomic(folder / STRUCTURE_MD, to_markdown(data))
    return data


def read(path: Path | None) -> dict | None:
    """structure.json, or None when missing or not one (it is a mirror file: treated as untrusted)."""
    if path is None:
        return None
    try:
        data = jsondata.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("blocks"), list) or not isinstance(data.get("headings"), list):
        return None
    return data


def _mirror_structure(raw_dir: Path) -> dict | None:
    path = Path(raw_dir) / STRUCTURE
    return None if path.is_symlink() else read(path)


def heading_text(raw_dir: Path, anchor: str) -> str:
    """The heading an anchor names in a mirrored paper ("4.3 Tile scheduling"), or ""."""
    data = _mirror_structure(raw_dir)
    for heading in (data or {}).get("headings", []):
        if isinstance(heading, dict) and heading.get("anchor") == anchor:
            return str(heading.get("text") or "")
    return ""


def check_anchor(raw_dir: Path, source_id: str, fragment: str, kind: str = "") -> tuple[str, str] | None:
    """("error" | "warning", message) when `[[source_id#fragment]]` cannot be followed, None when it can.

    For a repository (`kind` "repo") a fragment other than `sec-…` / `page-N` names a file of its
    checkout and lines of it (`[[deepep#csrc/kernels/internode.cu:120-160]]`): core/repofiles.check_link.

    The anchors live on the text page of a mirrored paper: `page-N` for every page the
    mirror has, `sec-…` for every heading in its structure.json. Without a mirror the
    link cannot be checked yet: a warning, not an error (mirrors are often not committed).
    """
    from . import repofiles
    from .provenance import read_provenance

    if repofiles.file_fragment(kind, fragment):
        return repofiles.check_link(raw_dir, source_id, fragment)
    record = read_provenance(raw_dir)
    data = _mirror_structure(raw_dir)
    page = PAGE_ANCHOR.match(fragment)
    if page is None and not fragment.startswith("sec-"):
        return "error", f"link [[{source_id}#{fragment}]] names an anchor no text page has; use #page-N (a page of the paper) or a heading's #sec-… anchor"
    if record is None or (record.document.page_count == 0 and data is None):
        if record is not None and record.text_file and page is None:  # a heading of a mirrored page's text
            return _check_section([a for a, _h in text_sections_of(raw_dir, record.text_file)], source_id, fragment, "page")
        if record is not None and record.text_file:
            return "error", f"link [[{source_id}#{fragment}]]: '{source_id}' is not a paper (its mirror has no pages); link [[{source_id}]] or one of its headings' #sec-… anchors instead"
        return "warning", f"link [[{source_id}#{fragment}]] cannot be checked yet: '{source_id}' has no mirrored PDF; run `corpus-build fetch {source_id}`"
    if page is not None:
        count = record.document.page_count or int((data or {}).get("pages") or 0)
        if int(page.group(1)) > count:
            return "error", f"link [[{source_id}#{fragment}]] names page {page.group(1)}, but the paper has {count} page(s)"
        return None
    if data is None:
        return "warning", f"link [[{source_id}#{fragment}]] cannot be checked: the mirror of '{source_id}' has no heading list yet; run `corpus-build fetch {source_id} --force`"
    anchors = [str(h.get("anchor")) for h in data.get("headings", []) if isinstance(h, dict)]
    return _check_section(anchors, source_id, fragment, "paper")


def _check_section(anchors: list[str], source_id: str, fragment: str, kind: str) -> tuple[str, str] | None:
    if fragment in anchors:
        return None
    import difflib

    close = difflib.get_close_matches(fragment, anchors, n=1)
    fallback = "; the paper has no headings, link a #page-N" if kind == "paper" else f"; the page has no headings, link [[{source_id}]]"
    hint = f"; did you mean #{close[0]}?" if close else (f"; its headings are {', '.join('#' + a for a in anchors[:6])}" if anchors else fallback)
    return "error", f"link [[{source_id}#{fragment}]] names no heading of the {kind}{hint}"


def text_sections_of(raw_dir: Path, name: str) -> list[tuple[str, str]]:
    """(anchor, heading) of a mirrored page's text, as its text page has them ([] when unreadable).

    Only a regular file inside the mirror is read (safepath.mirror_member). Each link to a
    heading asks again, so the answer is kept per file version: a big text is converted once.
    """
    path = safepath.mirror_member(Path(raw_dir), name)
    try:
        stat = path.stat() if path is not None else None
    except OSError:
        return []
    return list(_text_sections(str(path), stat.st_mtime_ns, stat.st_size)) if path is not None and stat is not None else []


@functools.lru_cache(maxsize=64)
def _text_sections(path: str, _mtime_ns: int, _size: int) -> tuple[tuple[str, str], ...]:
    from . import mdtext

    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read(mdtext.DISPLAY_LIMIT)
    except OSError:
        return ()
    return tuple(mdtext.text_sections(text))
