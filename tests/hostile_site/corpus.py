"""A project whose registry, mirrors and link results are full of injection payloads.

Every text a reader's page shows from the registry (titles, notes, intros, tags,
chapter and path titles, digests) or from the fetch stage (provenance.json,
thread.json, structure.json, text.md, link-check results) carries every payload of
payloads.txt; every `url:` carries the URL payloads of urls.txt that `check` accepts
(the others are refused before any page is built, which is also a pass).
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from corpus_build import registry
from corpus_build.core import urls
from corpus_build.core.linkrecords import LinkResult, LinkState, save_results
from corpus_build.core.provenance import Document, Provenance, RepoFacts, Status, ThreadFacts, write_failure, write_provenance
from tests.corpus_fixture import PROJECT_ROOT
from tests.site_helpers import recorded_files

HERE = Path(__file__).parent


def _lines(name: str) -> list[str]:
    return [line.replace("\\n", "\n") for line in (HERE / name).read_text(encoding="utf-8").splitlines() if line.strip() and not line.startswith("#")]


PAYLOADS = _lines("payloads.txt")
URL_PAYLOADS = _lines("urls.txt")


def inline(key: str) -> str:
    """Every payload on one line, for a one-line field (a title, a tag, a login)."""
    return "Payload " + " ".join(p.replace("{k}", key).replace("\n", " ") for p in PAYLOADS)


def block(key: str) -> str:
    """Every payload as a paragraph of its own and once more inline, for a Markdown field."""
    return "Payload text.\n\n" + "\n\n".join(p.replace("{k}", key) for p in PAYLOADS) + "\n\nInline: " + inline(key) + "\n"


def accepted_urls(key: str) -> tuple[list[str], list[str]]:
    """(URL payloads `check` accepts, those it refuses) for one field."""
    kept, refused = [], []
    for template in URL_PAYLOADS:
        url = template.replace("{k}", key)
        ok = urls.is_http_url(url) and not re.search(r"\s", url) and urls.url_problem(url) is None
        (kept if ok else refused).append(url)
    return kept, refused


@dataclass
class Hostile:
    project: Path
    payloads: int = 0  # payload strings placed (payload templates × fields)
    fields: list[str] = field(default_factory=list)
    urls_kept: list[str] = field(default_factory=list)
    urls_refused: list[str] = field(default_factory=list)


def _dump(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=10_000), encoding="utf-8")


def write_hostile_project(root: Path) -> Hostile:
    out = Hostile(root)

    def one(key: str) -> str:
        out.fields.append(key)
        out.payloads += len(PAYLOADS)
        return inline(key)

    def many(key: str) -> str:
        out.fields.append(key)
        out.payloads += 2 * len(PAYLOADS)
        return block(key)

    corpus = root / "corpus"
    _dump(corpus / "corpus.yaml", {
        "title": one("corpus.title"), "short_title": one("corpus.short_title"), "description": one("corpus.description"),
        "languages": ["zh", "en"], "timezone": "+08:00", "stale_after_days": 36500, "glossary": ["昇腾"],
    })
    _dump(corpus / "01-hostile" / "section.yaml", {"title": one("section.title"), "title_zh": one("section.title_zh"), "intro": many("section.intro")})
    sources = [
        {"id": "evil-article", "title": one("source.title"), "url": "https://example.org/article", "kind": "article", "lang": "en",
         "chapters": [1], "tags": [one("source.tag"), "plain"], "note": many("source.note"), "added": "2026-11-30",
         "authors": [one("source.author")], "venue": one("source.venue"), "version": one("source.version"), "date": "2026"},
        {"id": "evil-repo", "title": one("repo.title"), "url": "https://github.com/evil-org/evil-repo", "kind": "repo", "lang": "en",
         "tags": [one("repo.tag")], "note": many("repo.note"), "see_also": ["evil-article"], "added": "2026-11-29"},
        {"id": "evil-pull", "title": one("pull.title"), "url": "https://github.com/evil-org/evil-repo/pull/7", "kind": "pull", "lang": "en",
         "note": many("pull.note")},
        {"id": "evil-paper", "title": one("paper.title"), "url": "https://example.org/paper.pdf", "kind": "paper", "lang": "en",
         "note": many("paper.note"), "chapters": [1]},
        {"id": "evil-unverified", "title": one("unverified.title"), "kind": "article", "lang": "zh", "verified": False,
         "verify_note": one("unverified.verify_note"), "note": many("unverified.note")},
        {"id": "evil-failed", "title": one("failed.title"), "url": "https://example.org/failed", "kind": "article", "lang": "en", "note": "Failed."},
        {"id": "evil-moved", "title": one("moved.title"), "url": "https://example.org/moved", "kind": "article", "lang": "en", "note": "Moved."},
    ]
    kept, refused = accepted_urls("source.url")
    out.urls_kept, out.urls_refused = kept, refused
    for index, url in enumerate(kept):
        sources.append({"id": f"evil-url-{index}", "title": f"URL payload {index}", "url": url, "kind": "article", "lang": "en", "note": "A hostile URL."})
        out.payloads += 1
    _dump(corpus / "01-hostile" / "sources.yaml", sources)
    _dump(corpus / "chapters.yaml", [{"number": 1, "title": one("chapter.title"), "title_en": one("chapter.title_en"), "summary": many("chapter.summary"),
                                      "path": [{"source": "evil-article", "why": one("chapter.why")}, {"source": "evil-paper", "why": one("chapter.why2")}]}])
    _dump(corpus / "paths.yaml", [{"id": "evil-path", "title": one("path.title"), "title_en": one("path.title_en"), "summary": many("path.summary"),
                                   "path": [{"source": "evil-article", "why": one("path.why")}]}])
    meta = {"title": one("digest.title"), "date": "2026-11-30", "window_start": "2026-11-29T07:00:00+08:00", "window_end": "2026-11-30T07:00:00+08:00",
            "tz": "+08:00", "repos": ["evil-org/evil-repo"], "tags": [one("digest.tag")]}
    body = many("digest.body") + f"\n\nSee [[evil-article|{one('digest.link_label')}]] and [[evil-paper#page-1]].\n\n## {one('digest.heading')} {{#h1}}\n\nEnd.\n"
    (corpus / "digests").mkdir(parents=True)
    (corpus / "digests" / "2026-11-30.md").write_text("---\n" + yaml.safe_dump(meta, allow_unicode=True, sort_keys=False, width=10_000) + "---\n\n" + body, encoding="utf-8")
    shutil.copy(PROJECT_ROOT / "mkdocs.yml", root / "mkdocs.yml")
    (root / "docs").mkdir(exist_ok=True)  # the plugin brings the assets and templates
    _write_mirrors(root, one, many)
    return out


def _record(corpus, source_id: str, files: dict[str, str], **facts) -> None:
    source = corpus.source(source_id)
    raw = corpus.raw_dir(source)
    raw.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (raw / name).write_text(text, encoding="utf-8")
    facts.setdefault("fetched_url", source.url)
    record = Provenance(id=source.id, kind=source.kind, cited_url=source.url, status=Status.OK, fetched_at="2026-11-30T08:05:28Z",
                        checked_at="2026-11-30T08:05:28Z", http_status=200, files=recorded_files(raw, list(files)), **facts)
    write_provenance(raw, record)


def _user(login: str) -> dict:
    return {"login": login, "html_url": f"https://github.com/{login}"}


def _write_mirrors(root: Path, one, many) -> None:
    corpus = registry.load(root / "corpus")
    evil_url = accepted_urls("mirror.url")[0] or ["https://example.org/x"]
    hostile_url = evil_url[0] if evil_url else "https://example.org/x"
    _record(corpus, "evil-article", {"text.md": "# " + one("text.heading") + "\n\n" + many("text.md")}, text_file="text.md",
            content_type="text/html; charset=utf-8", bytes=100)
    _record(corpus, "evil-repo", {}, repo=RepoFacts(remote_url=hostile_url, branch=one("repo.branch"), commit="0123456789abcdef0123456789abcdef01234567",
                                                    commit_date="2026-11-29T16:30:00Z", latest_tag=one("repo.latest_tag"),
                                                    swhid="swh:1:rev:0123456789abcdef0123456789abcdef01234567"))
    comment = {"user": _user(one("thread.login")), "created_at": "2026-11-29T03:00:00Z", "body": many("thread.comment"), "html_url": hostile_url}
    thread = {
        "schema": 2,
        "issue": {"number": 7, "title": one("thread.title"), "state": "open", "user": _user(one("thread.author")), "body": many("thread.body"),
                  "created_at": "2026-11-28T02:00:00Z", "html_url": hostile_url, "pull_request": {"html_url": hostile_url},
                  "labels": [{"name": one("thread.label")}]},
        "pull": {"number": 7, "title": one("thread.pull_title"), "state": "open", "base": {"ref": one("thread.base")}, "head": {"ref": one("thread.head")},
                 "merged": False, "additions": 3, "deletions": 1, "changed_files": 1, "commits": 1, "html_url": hostile_url},
        "comments": [comment],
        "reviews": [{"id": 11, "user": _user(one("review.login")), "state": "COMMENTED", "body": many("review.body"), "submitted_at": "2026-11-29T04:00:00Z",
                     "html_url": hostile_url}],
        "review_comments": [{"id": 21, "pull_request_review_id": 11, "user": _user(one("rc.login")), "created_at": "2026-11-29T04:00:00Z",
                             "body": many("rc.body"), "path": one("rc.path"), "line": 2, "diff_hunk": "@@ -1 +1 @@\n-" + one("rc.hunk") + "\n+x",
                             "html_url": hostile_url}],
        "commits": [{"sha": "0123456789abcdef0123456789abcdef01234567", "author": _user(one("commit.login")),
                     "commit": {"message": one("commit.message"), "author": {"name": one("commit.name"), "date": "2026-11-29T05:00:00Z"}}}],
        "files": [{"filename": one("file.name"), "status": "modified", "additions": 3, "deletions": 1, "patch": "@@ -1 +1 @@\n-" + one("file.patch") + "\n+y"}],
        "timeline": [
            {"event": "labeled", "created_at": "2026-11-29T06:00:00Z", "actor": _user(one("tl.actor")), "label": {"name": one("tl.label")}},
            {"event": "renamed", "created_at": "2026-11-29T06:01:00Z", "actor": _user("octo"), "rename": {"to": one("tl.rename")}},
            {"event": "cross-referenced", "created_at": "2026-11-29T06:02:00Z", "actor": _user("octo"),
             "source": {"issue": {"number": 9, "title": one("tl.xref_title"), "html_url": hostile_url, "state": "open",
                                  "repository": {"full_name": one("tl.xref_repo")}}}},
        ],
    }
    _record(corpus, "evil-pull", {"thread.json": json.dumps(thread, ensure_ascii=False), "text.md": one("thread.text")}, body_file="thread.json",
            text_file="text.md", content_type="application/json",
            thread=ThreadFacts(number=7, state="open", author=one("facts.author"), labels=(one("facts.label"),), base=one("facts.base"),
                               head=one("facts.head"), created_at="2026-11-28T02:00:00Z", comments=1))
    structure = {"version": 1, "pages": 2, "method": "outline", "body_size": 10.0,
                 "headings": [{"level": 1, "text": one("paper.heading"), "page": 1, "anchor": "sec-1\"><svg/onload=__xss='paper.anchor'>"}],
                 "blocks": [{"page": 1, "kind": "heading", "level": 1, "text": one("paper.heading_block"), "anchor": "sec-1\"><svg/onload=__xss='paper.anchor'>"},
                            {"page": 2, "kind": "text", "text": one("paper.block")}]}
    _record(corpus, "evil-paper", {"text.md": one("paper.text"), "structure.json": json.dumps(structure, ensure_ascii=False)}, text_file="text.md",
            content_type="application/pdf", bytes=100, document=Document(page_count=2))
    failure = Provenance(id="evil-failed", kind="article", cited_url="https://example.org/failed", status=Status.FAILED, checked_at="2026-11-30T08:00:00Z",
                         error=one("failure.error"), http_status=500)
    write_failure(corpus.raw_dir(corpus.source("evil-failed")), failure)
    moved_to = accepted_urls("links.target")[0]
    results = {
        "evil-article": LinkResult("evil-article", "https://example.org/article", LinkState.DEAD, "2026-11-30T08:00:00Z", "2026-11-20T08:00:00Z",
                                   status=404, reason=one("links.reason")),
        "evil-moved": LinkResult("evil-moved", "https://example.org/moved", LinkState.MOVED, "2026-11-30T08:00:00Z", "2026-11-20T08:00:00Z",
                                 status=301, target=moved_to[0] if moved_to else "https://example.org/new", reason=one("links.moved_reason")),
    }
    save_results(root / "corpus", results, "2026-11-30T08:00:00Z")
