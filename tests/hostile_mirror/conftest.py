"""Fixtures of the mirror suite: a project made with `corpus-build init` once per session and copied
for each test, sources appended to its registry as a user writes them, loopback servers, and the
checks of what a mirror on disk must be (complete: every file its provenance lists, with that
sha256). Nothing here imports corpus_build: the suite knows the tool from README.md and `--help`.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.hostile_mirror.server import LocalServer
from tests.hostile_outside.harness import Run, assert_no_traceback, assert_ok, cb, snapshot

SECTION = "01-example"

# Fetch settings for loopback pages: no browser, no retries, short timeouts; WARC kept (it is part
# of the mirror that must survive byte for byte).
FETCH_SETTINGS = "fetch:\n  browser: never\n  retries: 0\n  backoff: 0\n  connect_timeout: 3\n  read_timeout: 4\n  total_timeout: 20\n"


def sentence(marker: str, i: int) -> str:
    return f"Paragraph {i} of the {marker} notes: the tile scheduler splits work across warps and keeps shared memory busy while the pipeline overlaps loads with math."


def article(marker: str, paragraphs: int = 40, title: str = "Tiles explained", extra_head: str = "") -> str:
    """A page a reader values: `paragraphs` paragraphs of prose in <main>, each naming `marker`."""
    paras = "".join(f"<p>{sentence(marker, i)}</p>" for i in range(paragraphs))
    return f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{title}</title>{extra_head}</head><body><nav><a href='/'>Home</a> <a href='/about'>About</a></nav><main><h1>{title}</h1>{paras}</main><footer>© Tiles blog</footer></body></html>"


ZH_SENTENCE = "昇腾算子开发需要理解分块调度与片上缓存的数据搬运，流水线把搬运与计算重叠起来以提高利用率。"


def zh_article(paragraphs: int = 40) -> str:
    paras = "".join(f"<p>第{i}段：{ZH_SENTENCE}</p>" for i in range(paragraphs))
    return f"<!doctype html><html lang=zh><head><meta charset=utf-8><title>昇腾算子入门</title></head><body><main><h1>昇腾算子入门</h1>{paras}</main></body></html>"


def pdf_bytes(marker: str, pages: int = 3) -> bytes:
    """A real PDF with `pages` pages of prose naming `marker` (PyMuPDF, which the fetch extra installs)."""
    import pymupdf

    doc = pymupdf.open()
    for p in range(pages):
        page = doc.new_page()
        text = "\n".join(sentence(marker, p * 100 + i)[:90] for i in range(40))
        page.insert_text((36, 48), text, fontsize=8)
    data = doc.tobytes()
    doc.close()
    return data


@dataclass
class Project:
    root: Path

    @property
    def corpus(self) -> Path:
        return self.root / "corpus"

    @property
    def sources_yaml(self) -> Path:
        return self.corpus / SECTION / "sources.yaml"

    @property
    def raw_root(self) -> Path:
        return self.corpus / SECTION / "raw"

    def raw(self, source_id: str) -> Path:
        return self.raw_root / source_id

    def add(self, source_id: str, url: str, kind: str = "article", lang: str = "en", title: str = "A source") -> None:
        """Append an entry as a user writes one (faster than `corpus-build add`, one process per source)."""
        with self.sources_yaml.open("a", encoding="utf-8") as f:
            f.write(f"- id: {source_id}\n  title: {title}\n  url: {url}\n  kind: {kind}\n  lang: {lang}\n  note: Kept for its text.\n")

    def cb(self, *args: str, timeout: float = 90, **kw) -> Run:
        return cb(*args, cwd=self.root, timeout=timeout, **kw)

    def text(self, source_id: str) -> str:
        path = self.raw(source_id) / "text.md"
        return path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""

    def mirror(self, source_id: str) -> dict[str, str]:
        return snapshot(self.raw(source_id))

    def status(self) -> dict[str, dict]:
        r = self.cb("status", "--json", timeout=60)
        assert_ok(r)
        return {rec["id"]: rec for rec in (json.loads(line) for line in r.out.splitlines() if line.strip())}


def mirror_problems(raw: Path) -> list[str]:
    """Why `raw` is not a complete mirror: provenance.json missing or unreadable, a file it lists
    missing or with another sha256. Empty when complete."""
    prov = raw / "provenance.json"
    if not prov.is_file():
        return [f"{raw.name}: no provenance.json (files: {sorted(p.name for p in raw.iterdir()) if raw.is_dir() else 'no folder'})"]
    try:
        record = json.loads(prov.read_text(encoding="utf-8"))
    except ValueError as exc:
        return [f"{raw.name}: provenance.json is not JSON ({exc})"]
    problems = []
    for entry in record.get("files") or []:
        path = raw / entry["path"]
        if not path.is_file():
            problems.append(f"{raw.name}: provenance lists {entry['path']}, which is missing")
        elif hashlib.sha256(path.read_bytes()).hexdigest() != entry.get("sha256"):
            problems.append(f"{raw.name}: {entry['path']} does not have the sha256 its provenance lists")
    if not record.get("files"):
        problems.append(f"{raw.name}: provenance lists no files")
    return problems


@pytest.fixture(scope="session")
def template(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("mirror-template")
    r = cb("init", "tpl", "--title", "Mirror tests", "--lang", "en", cwd=base, timeout=60)
    assert_ok(r)
    root = base / "tpl"
    with (root / "corpus" / "corpus.yaml").open("a", encoding="utf-8") as f:
        f.write(FETCH_SETTINGS)
    return root


@pytest.fixture
def proj(template, tmp_path) -> Project:
    root = tmp_path / "proj"
    shutil.copytree(template, root, symlinks=True)
    return Project(root)


@pytest.fixture(scope="session")
def server():
    s = LocalServer()
    yield s
    s.close()


@pytest.fixture(scope="session")
def other_site():
    """Another site: a second loopback address, so its host differs from the cited one."""
    s = LocalServer("127.0.0.2")
    yield s
    s.close()


__all__ = ["Project", "assert_no_traceback", "mirror_problems"]
