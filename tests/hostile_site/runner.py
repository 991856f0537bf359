"""Run the site-injection cases: every case's payload in its field, one build, every page checked.

A case file (YAML, one per case, in cases/) says:

    name, class   what it is (class: site-injection, for the reliability report)
    field         where the payload goes: source.title, source.note, source.tag, source.url,
                  source.author, source.venue, source.verify_note, section.title, section.intro,
                  chapter.title, chapter.summary, chapter.why, path.title, path.summary,
                  digest.title, digest.body, digest.tag, corpus.title, corpus.short_title
    payload       the text; `{m}` becomes the case's own marker (hs001, hs002, …)
    why           what the payload tries

All cases go into one project (each in its own source, section, chapter, path or digest, so
no payload hides another), the site is built once with MkDocs and Material, and every HTML
page is parsed: a case fails if its marker is in live markup (an `on…` attribute, a
`data-md-component="source"` Material's script fetches for, a
`javascript:`/`data:`/`vbscript:` URL, a `srcdoc`, or in a script, style, frame, object,
embed, base or form element), or if it reached no page at all (then the check proves
nothing). tests/test_injection_browser.py checks the same kind of site in Chromium.
"""

from __future__ import annotations

import datetime as dt
import re
import shutil
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import yaml

from tests.corpus_fixture import PROJECT_ROOT

CASES = Path(__file__).parent / "cases"
_LIVE_URL = re.compile(r"^(javascript|vbscript|data):", re.IGNORECASE)
_URL_ATTRIBUTES = {"href", "src", "action", "formaction", "xlink:href", "data", "poster", "background"}
# An element of these kinds that carries a marker in any attribute came from a payload (text in the
# title of a <link> or the content of a <meta> is only text, and is not counted).
_DANGEROUS_ELEMENTS = {"script", "style", "iframe", "frame", "object", "embed", "base", "form"}
_MARKER = re.compile(r"hs\d{3}")


@dataclass(frozen=True)
class Case:
    number: int
    name: str
    field: str
    payload: str
    why: str

    @property
    def marker(self) -> str:
        return f"hs{self.number:03d}"

    @property
    def text(self) -> str:
        return self.payload.replace("{m}", self.marker)


def load_cases() -> list[Case]:
    cases = []
    for path in sorted(CASES.glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        cases.append(Case(int(path.name[:3]), data["name"], data["field"], data["payload"], data.get("why", "")))
    return cases


def _dump(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=10_000), encoding="utf-8")


def write_project(root: Path, cases: list[Case]) -> Path:
    """One project holding every case (see the module docstring)."""
    corpus = root / "corpus"
    by_field: dict[str, list[Case]] = {}
    for case in cases:
        by_field.setdefault(case.field, []).append(case)
    settings = {"title": "Cases " + " ".join(c.text for c in by_field.get("corpus.title", [])),
                "short_title": "Cases " + " ".join(c.text for c in by_field.get("corpus.short_title", [])),
                "languages": ["zh", "en"], "timezone": "+08:00"}
    _dump(corpus / "corpus.yaml", settings)
    plain = {"id": "plain", "title": "Plain", "url": "https://example.org/plain", "kind": "article", "lang": "en", "note": "Plain.", "chapters": [1]}
    sources = [plain]
    for case in cases:
        part = case.field.partition(".")[2]
        if case.field.startswith("source."):
            entry = {"id": f"case-{case.number:03d}", "title": f"Case {case.marker}", "url": f"https://example.org/{case.marker}", "kind": "article",
                     "lang": "en", "note": f"Case {case.marker}."}
            if part == "tag":
                entry["tags"] = [case.text]
            elif part == "author":
                entry["authors"] = [case.text]
            elif part == "verify_note":
                entry.update(verified=False, verify_note=case.text)
                del entry["url"]
            else:
                entry[part] = case.text
            sources.append(entry)
    _dump(corpus / "01-cases" / "section.yaml", {"title": "Cases", "intro": "The cases."})
    _dump(corpus / "01-cases" / "sources.yaml", sources)
    for case in by_field.get("section.title", []) + by_field.get("section.intro", []):
        meta = {"title": f"Section {case.marker}"} | {case.field.partition(".")[2]: case.text}
        _dump(corpus / f"{case.number + 10:02d}-section-{case.marker}" / "section.yaml", meta)
        _dump(corpus / f"{case.number + 10:02d}-section-{case.marker}" / "sources.yaml",
              [{"id": f"in-{case.marker}", "title": "In", "url": f"https://example.org/in/{case.marker}", "kind": "article", "lang": "en", "note": "In."}])
    chapters = [{"number": 1, "title": "One", "path": [{"source": "plain", "why": "Plain."}]}]
    for case in [c for c in cases if c.field.startswith("chapter.")]:
        chapter = {"number": case.number + 1, "title": f"Chapter {case.marker}", "path": [{"source": "plain", "why": "Plain."}]}
        if case.field == "chapter.why":
            chapter["path"] = [{"source": "plain", "why": case.text}]
        else:
            chapter[case.field.partition(".")[2]] = case.text
        chapters.append(chapter)
    _dump(corpus / "chapters.yaml", chapters)
    paths = [{"id": f"path-{case.marker}", "title": f"Path {case.marker}", "path": [{"source": "plain", "why": "Plain."}]}
             | {case.field.partition(".")[2]: case.text} for case in cases if case.field.startswith("path.")]
    if paths:
        _dump(corpus / "paths.yaml", paths)
    (corpus / "digests").mkdir(parents=True, exist_ok=True)
    for case in [c for c in cases if c.field.startswith("digest.")]:
        day = dt.date(2026, 1, 1) + dt.timedelta(days=case.number)
        meta: dict = {"title": f"Digest {case.marker}", "date": day.isoformat(), "tz": "+08:00"}
        body = f"Digest {case.marker}.\n"
        if case.field == "digest.title":
            meta["title"] = case.text
        elif case.field == "digest.tag":
            meta["tags"] = [case.text]
        else:
            body = case.text + "\n"
        (corpus / "digests" / f"{day.isoformat()}.md").write_text("---\n" + yaml.safe_dump(meta, allow_unicode=True, sort_keys=False) + "---\n\n" + body,
                                                                   encoding="utf-8")
    shutil.copy(PROJECT_ROOT / "mkdocs.yml", root / "mkdocs.yml")
    return root


class _Live(HTMLParser):
    """Markers found in live markup, and markers found at all (text or attribute)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.live: dict[str, list[str]] = {}
        self.seen: set[str] = set()
        self._inside: list[str] = []
        self._reserved: tuple[str, int] | None = None  # inside an element with one of Material's ids: (tag, depth)

    def _mark(self, text: str, why: str) -> None:
        for marker in _MARKER.findall(text):
            self.live.setdefault(marker, []).append(why)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if ("data-md-component", "source") in attrs:  # Material's script then asks api.github.com about the link
            self._mark(" ".join(v or "" for _, v in attrs), f"<{tag} data-md-component=source>")
        for name, value in attrs:
            value = value or ""
            self.seen.update(_MARKER.findall(value))
            if name.startswith("on"):
                self._mark(value, f"<{tag} {name}>")
            elif name in _URL_ATTRIBUTES and _LIVE_URL.match(re.sub(r"[\s\x00-\x1f]", "", value)):
                self._mark(value, f"<{tag} {name}={value[:40]}>")
            elif name == "srcdoc":
                self._mark(value, f"<{tag} srcdoc>")
            elif tag in _DANGEROUS_ELEMENTS:
                self._mark(value, f"<{tag} {name}>")
        if tag in ("script", "style"):
            self._inside.append(tag)
        # Material reads its configuration from the first #__config and its toggles from __ ids:
        # a payload's text inside such an element is the theme's input.
        reserved = next((value or "" for name, value in attrs if name == "id" and (value or "").startswith("__")), "")
        # Material's own elements with __ ids are inputs, labels, navs, lists and divs (and the config script).
        if reserved and tag != "script" and (reserved.startswith("__config") or tag not in ("input", "label", "nav", "div", "ul")):
            self._reserved = (tag, 1)
        elif self._reserved and tag == self._reserved[0]:
            self._reserved = (tag, self._reserved[1] + 1)

    def handle_endtag(self, tag: str) -> None:
        if self._reserved and tag == self._reserved[0]:
            self._reserved = (tag, self._reserved[1] - 1) if self._reserved[1] > 1 else None
        if self._inside and self._inside[-1] == tag:
            self._inside.pop()

    def handle_data(self, data: str) -> None:
        self.seen.update(_MARKER.findall(data))
        if self._inside:
            self._mark(data, f"inside <{self._inside[-1]}>")
        if self._reserved:
            self._mark(data, f"inside <{self._reserved[0]} id=__…> (Material's own id)")


@dataclass
class Result:
    pages: int = 0
    live: dict[str, list[str]] = field(default_factory=dict)  # marker -> where it was live
    seen: set[str] = field(default_factory=set)


def check_site(site_dir: Path) -> Result:
    result = Result()
    for page in sorted(site_dir.rglob("*.html")):
        parser = _Live()
        parser.feed(page.read_text(encoding="utf-8"))
        result.pages += 1
        result.seen |= parser.seen
        for marker, whys in parser.live.items():
            result.live.setdefault(marker, []).extend(f"{page.relative_to(site_dir)}: {w}" for w in whys)
    return result


def summary(workdir: Path) -> dict[str, int]:
    """Every case built and checked once, as numbers (for scripts/reliability_report.py)."""
    from corpus_build import site

    cases = load_cases()
    result = check_site(site.build(write_project(workdir, cases), strict=False))
    return {
        "site cases": len(cases),
        "pages parsed": result.pages,
        "payloads live (must be 0)": sum(c.marker in result.live for c in cases),
        "payloads that reached no page": sum(c.marker not in result.seen for c in cases),
    }
