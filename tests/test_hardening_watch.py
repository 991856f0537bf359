"""watch: GitHub data cannot become markup in a digest; a broken marker never costs editor text.

Issue 10 items 1 and 6. The draft is converted with the site's Markdown extensions and
the resulting HTML is walked: no element outside what a digest legitimately uses, no
event-handler attribute, no link that is not http(s).
"""

from __future__ import annotations

import datetime as dt
from html.parser import HTMLParser
from pathlib import Path

import markdown
import pytest

from corpus_build import registry
from corpus_build.core.errors import UsageError
from corpus_build.watch.draft import DraftWriter
from corpus_build.watch.merge import facts_block, merge
from corpus_build.watch.records import BranchCommits, DigestFacts, PullRequest, Release, RepoFacts

PAYLOAD = "<svg/onload=alert(1)>"
TAG = "v9`<svg/onload=alert(1)>`"
ALLOWED = {"p", "a", "code", "strong", "em", "ul", "li", "h2", "table", "thead", "tbody", "tr", "th", "td", "span", "div", "br"}


class _Walker(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.bad: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in ALLOWED:
            self.bad.append(f"<{tag}>")
        for name, value in attrs:
            if name.startswith("on"):
                self.bad.append(f"{tag}[{name}]")
            if name == "href" and value and not value.startswith(("http://", "https://", "#", "../", "./")):
                self.bad.append(f"href={value}")


def markup_problems(text: str) -> list[str]:
    text = registry.split_front_matter(text)[1]
    html = markdown.markdown(text, extensions=["attr_list", "md_in_html", "tables", "admonition"])
    walker = _Walker()
    walker.feed(html)
    return walker.bad


def hostile_facts() -> DigestFacts:
    start = dt.datetime(2026, 10, 20, 23, tzinfo=dt.timezone.utc)
    when = "2026-10-21T02:20:00Z"
    evil_url = 'https://github.com/x/y/pull/1"><img src=x onerror=alert(1)>'
    pr = PullRequest(
        repo="evil/repo", number=7, title=f"title {PAYLOAD}", author=f"bob{PAYLOAD}", url=f"javascript:alert(1)//{PAYLOAD}",
        state="merged", created_at=when, updated_at=when, merged_at=when, linked_issues=("#3",),
    )
    review = PullRequest(repo="evil/repo", number=8, title="ok", author="<b onmouseover=x>", url=evil_url, state="open", created_at=when, updated_at=when)
    repo = RepoFacts(
        repo="evil/repo", url=f"https://github.com/evil/repo>{PAYLOAD}", default_branch="main", pushed_at=when,
        branches=(BranchCommits("main", 1, when, "a1"),), merged=(pr,), updated=(review,), open_count=1,
        releases=(Release(tag=TAG, name=f"rel {PAYLOAD}", url=f"https://github.com/evil/repo/releases/tag/x>{PAYLOAD}", published_at=when),),
        new_tags=(TAG, f"plain{PAYLOAD}"), all_tags=(TAG,),
    )
    failed = RepoFacts(repo="evil/gone", url=f"<{PAYLOAD}", default_branch="", pushed_at="", error=f"HTTP 500 {PAYLOAD}")
    return DigestFacts(start=start, end=start + dt.timedelta(days=1), tz="+08:00", repos=(repo, failed))


@pytest.fixture
def corpus(tmp_path: Path):
    root = tmp_path / "corpus"
    (root / "01-x").mkdir(parents=True)
    (root / "corpus.yaml").write_text("title: T\nlanguages: [en]\n", encoding="utf-8")
    (root / "01-x" / "section.yaml").write_text("title: X\n", encoding="utf-8")
    (root / "01-x" / "sources.yaml").write_text("[]\n", encoding="utf-8")
    return registry.load(root)


def test_github_payloads_stay_text_in_the_digest(corpus) -> None:
    text = DraftWriter(corpus, hostile_facts()).render()
    assert markup_problems(text) == []
    # The tag is still shown, as text: the reader sees what GitHub calls it.
    html = markdown.markdown(text, extensions=["attr_list", "md_in_html", "tables"])
    assert "v9" in html and "&lt;svg/onload=alert(1)&gt;" in html
    assert "javascript:" not in html


def test_without_the_escaping_layer_the_tag_would_be_markup() -> None:
    # What the old writer produced for the same tag: proves the check above can fail.
    assert markup_problems(f"- New tags: `{TAG}`") != []


def test_hint_with_comment_closer_cannot_leave_its_comment(corpus) -> None:
    facts = hostile_facts()
    repo = facts.repos[0]
    sneaky = RepoFacts(**{**repo.__dict__, "repo": "evil/repo-->" + PAYLOAD})
    text = DraftWriter(corpus, DigestFacts(facts.start, facts.end, facts.tz, (sneaky,))).render()
    assert markup_problems(text) == []


# --- item 6: a missing marker must never delete the editor's words -------------------------------


def test_missing_close_marker_refuses_instead_of_deleting_text() -> None:
    old = (
        "---\ntitle: T\n---\n"
        "<!-- corpus-build:facts id=window -->\nold window\n"  # its close marker was deleted by hand
        "## Highlights\n\nEDITOR WROTE THIS\n\n"
        + facts_block("quiet", "old quiet")
    )
    new = "---\ntitle: T\n---\n" + facts_block("window", "new window") + facts_block("quiet", "new quiet")
    with pytest.raises(UsageError) as info:
        merge(old, new, where="corpus/digests/2026-10-22.md")
    message = str(info.value)
    assert "corpus/digests/2026-10-22.md" in message and "line 4" in message and "window" in message


def test_stray_close_marker_refuses() -> None:
    old = "---\ntitle: T\n---\nEDITOR\n<!-- /corpus-build:facts -->\n" + facts_block("quiet", "q")
    new = "---\ntitle: T\n---\n" + facts_block("quiet", "new")
    with pytest.raises(UsageError, match="line 5"):
        merge(old, new, where="d.md")


def test_well_formed_markers_merge_and_keep_editor_text() -> None:
    old = "---\ntitle: T\n---\n" + facts_block("window", "old") + "\nEDITOR\n\n" + facts_block("quiet", "q")
    new = "---\ntitle: T\n---\n" + facts_block("window", "new") + facts_block("quiet", "q2")
    merged = merge(old, new, where="d.md")
    assert "EDITOR" in merged and "new" in merged and "q2" in merged and "old" not in merged
