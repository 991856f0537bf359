"""GitHub threads in full: a paginated PR with reviews, line comments, commits, files and timeline,
mirrored from the local server and rendered as one conversation."""

from __future__ import annotations

import json
import re
from dataclasses import replace

from corpus_build.core.provenance import Status, read_failure, read_provenance
from corpus_build.core.threads import conversation
from corpus_build.fetch import fetch_corpus
from corpus_build.render import build_pages

from .github_threads import FakeThread, sample_pull, user

PR_URL = "https://github.com/tile-ai/tilelang/pull/42"


def test_pull_request_is_mirrored_in_full_across_pages(server, make_corpus, options):
    fake = sample_pull().serve(server)
    corpus = make_corpus([{"id": "tl-pr-42", "url": PR_URL, "kind": "pull"}])
    [result] = fetch_corpus(corpus, options)
    assert result.status is Status.OK, result.error
    raw = corpus.raw_dir(corpus.source("tl-pr-42"))
    data = json.loads((raw / "thread.json").read_text())
    # Every page of every list arrived (page size 2: comments, review comments, commits, files span pages).
    assert [c["body"] for c in data["comments"]] == ["Does this need CANN 8?", "Yes, CANN 8.0 or newer.", "Thanks, merging soon."]
    assert [r["state"] for r in data["reviews"]] == ["CHANGES_REQUESTED", "COMMENTED", "APPROVED"]
    assert [c["id"] for c in data["review_comments"]] == [500, 501, 502, 503, 504]
    assert data["review_comments"][0]["path"] == "src/backend/ascend.py" and data["review_comments"][0]["line"] == 12
    assert "+    b = tile(2)" in data["review_comments"][0]["diff_hunk"]
    assert [c["sha"] for c in data["commits"]] == ["1111111aaaa", "2222222bbbb", "3333333cccc"]
    assert [(f["filename"], f["status"], f["additions"], f["deletions"]) for f in data["files"]][2] == ("src/backend/npu.py", "renamed", 5, 25)
    assert [e["event"] for e in data["timeline"]] == ["cross-referenced", "labeled", "merged", "closed"]  # "commented" duplicates a comment
    assert any("page=2" in hit for hit in fake.billed) and any("page=3" in hit for hit in fake.billed)
    # API links are not kept; logins are.
    assert data["reviews"][0]["user"] == {"login": "bob", "type": "User"} and "avatar_url" not in json.dumps(data)
    thread = read_provenance(raw).thread
    assert thread.merged and thread.reviews == 2 and thread.review_comments == 5 and thread.commits == 3 and thread.changed_files == 3
    assert (thread.additions, thread.deletions) == (120, 30)
    text = (raw / "text.md").read_text()
    assert "#### `src/backend/ascend.py`" in text and "```diff" in text and "The NPU wants tiles of 2." in text
    assert text.index("Does this need CANN 8?") < text.index("A few things to fix first.") < text.index("mentioned this") < text.index("LGTM now.")
    # counted nouns agree with their numbers (no "commit(s)")
    assert "3 commits · 3 files changed · +120 −30 · 2 reviews · 5 review comments" in text and "(s)" not in text

    # A refresh is conditional everywhere: every request answered 304 and nothing was billed.
    fake.billed.clear()
    [again] = fetch_corpus(corpus, options)
    assert again.status is Status.UNCHANGED
    assert fake.billed == [] and len(fake.not_modified) >= 12


def test_quota_running_out_mid_thread_resumes_without_paying_twice(server, make_corpus, options):
    fake = sample_pull().serve(server)
    fake.quota = 5  # the thread needs 15 requests
    corpus = make_corpus([{"id": "tl-pr-42", "url": PR_URL, "kind": "pull"}])
    [first] = fetch_corpus(corpus, options)
    assert first.status is Status.SKIPPED and "rate limit" in first.error and "GITHUB_TOKEN" in first.error
    raw = corpus.raw_dir(corpus.source("tl-pr-42"))
    assert read_failure(raw) is not None and not raw.exists()
    paid = list(fake.billed)
    assert len(paid) == 5
    fake.quota = None
    [second] = fetch_corpus(corpus, options)
    assert second.status is Status.OK, second.error
    # The five pages answered before the quota ran out came back as 304s, not as billed requests.
    assert set(paid) <= set(fake.not_modified)
    assert not set(paid) & set(fake.billed[5:])
    assert read_failure(raw) is None


def test_issue_has_comments_and_cross_references(server, make_corpus, options):
    issue = {"number": 5, "title": "sm_50 fallback", "state": "open", "user": user("zed"), "labels": [], "created_at": "2026-03-01T00:00:00Z",
             "body": "It breaks.", "html_url": "https://github.com/o/r/issues/5"}
    timeline = [{"event": "cross-referenced", "created_at": "2026-03-02T00:00:00Z", "actor": user("amy"),
                 "source": {"type": "issue", "issue": {"number": 9, "title": "Fix sm_50", "html_url": "https://github.com/o/r/pull/9", "pull_request": {"url": "x"}, "repository": {"full_name": "o/r"}}}}]
    FakeThread("o", "r", 5, issue, None, {"comments": [{"user": user("amy"), "body": f"c{i}", "created_at": f"2026-03-0{i + 1}T01:00:00Z"} for i in range(5)], "timeline": timeline}).serve(server)
    corpus = make_corpus([{"id": "o-issue-5", "url": "https://github.com/o/r/issues/5", "kind": "issue"}])
    [result] = fetch_corpus(corpus, options)
    assert result.status is Status.OK, result.error
    data = json.loads((corpus.raw_dir(corpus.source("o-issue-5")) / "thread.json").read_text())
    assert [c["body"] for c in data["comments"]] == [f"c{i}" for i in range(5)]
    assert "reviews" not in data and data["timeline"][0]["source"]["issue"]["number"] == 9
    events = conversation(data).events
    assert [e.kind for e in events] == ["opened", "comment", "xref", "comment", "comment", "comment", "comment"]
    assert events[2].ref_is_pull and events[2].ref_repo == "o/r" and events[2].ref_number == 9


def test_missing_parts_are_recorded_not_fatal(server, make_corpus, options):
    fake = sample_pull(number=43)
    fake.serve(server)
    del server.routes["/api/repos/tile-ai/tilelang/issues/43/timeline"]
    corpus = make_corpus([{"id": "pr-43", "url": "https://github.com/tile-ai/tilelang/pull/43", "kind": "pull"}])
    [result] = fetch_corpus(corpus, options)
    assert result.status is Status.OK, result.error
    data = json.loads((corpus.raw_dir(corpus.source("pr-43")) / "thread.json").read_text())
    assert data["unavailable"] == ["timeline"]
    # Said in the reader's words, naming the part, never the internal name alone (issue 22).
    assert "GitHub did not provide this thread's timeline of events" in build_pages(corpus)["sources/pr-43/text.md"]


def test_conversation_groups_review_comments_under_file_and_threads_replies():
    fake = sample_pull()
    data = {"issue": fake.issue, "pull": fake.pull, **fake.lists}
    conv = conversation(data)
    kinds = [e.kind for e in conv.events]
    assert kinds[0] == "opened"
    reviews = [e for e in conv.events if e.kind == "review"]
    assert [r.state for r in reviews] == ["CHANGES_REQUESTED", "APPROVED"]  # the reply-only review is folded into its thread
    first = reviews[0]
    assert [g.path for g in first.files] == ["src/backend/ascend.py", "docs/ascend.md"]
    thread = first.files[0].threads[0]
    assert [c.id for c in thread.comments] == [500, 503, 504]  # replies follow their root, in time order
    assert first.files[0].threads[1].root.line == 0 and first.files[0].threads[1].root.original_line == 40  # outdated
    pushes = [e for e in conv.events if e.kind == "commits"]
    assert [len(p.commits) for p in pushes] == [1, 2]  # the two later commits, with nothing between them, are one push
    times = [e.at for e in conv.events[1:]]
    assert times == sorted(times)
    assert {f.path: f.threads for f in conv.files}["src/backend/ascend.py"] == 2


def test_thread_page_on_the_site(server, make_corpus, options):
    sample_pull().serve(server)
    corpus = make_corpus([{"id": "tl-pr-42", "url": PR_URL, "kind": "pull"}], languages=["zh", "en"])
    [result] = fetch_corpus(corpus, replace(options))
    assert result.status is Status.OK, result.error
    pages = build_pages(corpus)
    page = pages["sources/tl-pr-42/text.md"]
    body = page.split("---", 2)[2]
    # Merged facts at the top, before the conversation.
    assert body.index("已合并") < body.index("讨论（按时间顺序）")
    assert "<code>abcdef123456</code>" in page and "@bob" in page
    assert "2026-02-01 18:00" in page and "UTC+08:00" in page  # local time, not an ISO stamp in the text
    assert not re.search(r">\s*2026-\d\d-\d\dT", page)
    # Review comments sit under their file, with the hunk and the reply.
    review = page.index("要求修改")
    assert review < page.index("<code>src/backend/ascend.py</code>", review) < page.index("+    b = tile(2)") < page.index("The NPU wants tiles of 2.")
    assert "第 12 行" in page and "代码已变动" in page
    # Changed files with +/- and status in the reader's language.
    assert "| `src/backend/old.py` → `src/backend/npu.py` | 重命名 | +5 | −25 |" in page
    # Untrusted text stays text.
    assert "<script>" not in page and not re.search(r"<[^>]*\son\w+\s*=", page)
    assert "&lt;script&gt;alert(3)&lt;/script&gt;" in page and "&lt;/code&gt;&lt;/pre&gt;" in page
    # Each file's diff, folded.
    assert '<details class="cb-diff"><summary><code>src/backend/ascend.py</code> +100 −0</summary>' in page and "@@ +1 @@" in page
    source_page = pages["sources/tl-pr-42.md"]
    assert "讨论全文 →" in source_page
    excerpt = source_page.split("**摘录**")[1]
    assert "This adds the Ascend backend." in excerpt and "2026-01-10T" not in excerpt and "onerror" not in excerpt


def test_state_recorded_by_watch_after_the_fetch_wins_on_the_page(server, make_corpus, options):
    fake = sample_pull(number=44)
    fake.pull.update(state="open", merged=False, merged_at=None, merged_by=None)
    fake.issue.update(state="open", closed_at=None)
    fake.serve(server)
    corpus = make_corpus([{"id": "pr-44", "url": "https://github.com/tile-ai/tilelang/pull/44", "kind": "pull"}])
    [result] = fetch_corpus(corpus, options)
    assert result.status is Status.OK, result.error
    raw = corpus.raw_dir(corpus.source("pr-44"))
    assert "cb-state-open" in build_pages(corpus)["sources/pr-44/text.md"]
    # As watch/run.py records a merge it saw later: provenance changes, thread.json does not.
    from corpus_build.core.provenance import write_provenance

    record = read_provenance(raw)
    write_provenance(raw, replace(record, thread=replace(record.thread, state="closed", merged=True, merged_at="2026-03-01T00:00:00Z")))
    page = build_pages(corpus)["sources/pr-44/text.md"]
    facts = page.split('<div class="cb-thread-facts">')[1].split("</div>")[0]
    assert "cb-state-merged" in facts and "2026-03-01 00:00" in facts


def test_a_very_long_thread_is_cut_and_kept_out_of_search(make_corpus):
    from corpus_build.core.provenance import Provenance, ThreadFacts
    from corpus_build.render.labels import Labels
    from corpus_build.render.thread import ThreadPage

    corpus = make_corpus([{"id": "x", "url": PR_URL, "kind": "pull"}])
    fake = sample_pull()
    # 500 comments of 3,600 characters: far past the 400,000 characters a text page shows.
    comments = [{"user": user("bot"), "body": "benchmark numbers " * 200, "created_at": f"2026-01-{1 + i % 28:02d}T00:00:00Z"} for i in range(500)]
    data = {"issue": fake.issue, "pull": fake.pull, **fake.lists, "comments": comments}
    record = Provenance(id="x", kind="pull", cited_url=PR_URL, status=Status.OK, thread=ThreadFacts(state="closed", merged=True))
    text = ThreadPage(corpus, Labels("en")).page(corpus.source("x"), record, data, "../x.md")
    assert "search:\n  exclude: true" in text
    assert re.search(r"its last \d+ entries are not shown here", text)
    assert len(text) < 600_000
