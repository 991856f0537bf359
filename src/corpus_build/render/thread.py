"""The site's page of a mirrored GitHub issue or pull request: one conversation in time order.

At the top, the facts a reader wants first (merged or closed, when, by whom, into
which branch, the merge commit, the size of the change). Then every comment,
review, push, cross-reference and state change in time order; a review carries
its line comments grouped under their file, each with its diff hunk and replies.
Last, the changed files with their +/- counts.

Everything on this page comes from GitHub and is untrusted: names, titles, paths
and hunks are HTML-escaped; comment bodies (the authors' Markdown) go through
mirrortext.sanitize_markdown (escaped markup, nh3 allow-list); only http(s) links
survive. Times are shown in the corpus's display zone, never as raw ISO stamps.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import html
import re

from ..core import jsondata
from ..core import mdtext as md
from ..core.model import Corpus, Source
from ..core.provenance import Provenance, parse_time
from ..core.threads import CommentThread, Commit, Conversation, Event, conversation
from .labels import Labels
from .mirrortext import DISPLAY_LIMIT, mirror_file, opaque, sanitize_markdown
from .reuse import plain_text as reuse_words
from .views import CODE_SPAN, plain_title, title_md
from .views import safe_url as _safe_url

PATCH_LIMIT = 300_000  # characters of diff shown on one thread page (the full patches stay in thread.json)
_ZONE = re.compile(r"^([+-])(\d{1,2}):?(\d{2})?$")
_EVENT_CSS = {"review": "cb-ev-review", "comment": "cb-ev-comment", "opened": "cb-ev-comment", "commits": "cb-ev-commits"}
_REVIEW_CSS = {"APPROVED": "state-open", "CHANGES_REQUESTED": "state-closed", "DISMISSED": "stale"}


def display_zone(corpus: Corpus) -> dt.timezone:
    """The zone times are shown in: the latest digest's `tz`, else UTC+8 for a Chinese site, else UTC."""
    for digest in corpus.digests:
        match = _ZONE.match(str(digest.meta.get("tz") or "").strip())
        if match:
            sign = -1 if match.group(1) == "-" else 1
            return dt.timezone(sign * dt.timedelta(hours=int(match.group(2)), minutes=int(match.group(3) or 0)))
    return dt.timezone(dt.timedelta(hours=8)) if corpus.settings.ui_lang == "zh" else dt.UTC


def zone_name(zone: dt.timezone) -> str:
    offset = zone.utcoffset(None)
    minutes = int(offset.total_seconds() // 60)
    sign = "-" if minutes < 0 else "+"
    return f"UTC{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def local_time(value: str, zone: dt.timezone) -> str:
    """`<time>` with the moment in the display zone ("2026-02-01 18:00"); "" when unparsable."""
    moment = parse_time(value)
    if moment is None:
        return ""
    shown = moment.astimezone(zone).strftime("%Y-%m-%d %H:%M")
    return f'<time datetime="{html.escape(moment.astimezone(dt.UTC).isoformat())}">{shown}</time>'


def _code_html(value: str) -> str:
    """A GitHub title as HTML: its `code` spans as <code>, everything escaped."""
    parts = CODE_SPAN.split(str(value))  # text, code, text, code, …, text
    return "".join(f"<code>{_e(part)}</code>" if i % 2 else _e(part) for i, part in enumerate(parts))


def _e(value: str) -> str:
    return html.escape(value or "", quote=True)


def _href(url: str) -> str:
    return _e(_safe_url(url))


def _who(login: str) -> str:
    return f'<strong class="cb-who">@{_e(login)}</strong>' if login else ""


def _body(text: str) -> str:
    return f'<div class="cb-body">{sanitize_markdown(text)}</div>' if text.strip() else ""


class ThreadPage:
    def __init__(self, corpus: Corpus, t: Labels):
        self.t = t
        self.zone = display_zone(corpus)

    def when(self, value: str) -> str:
        return local_time(value, self.zone)

    # --- the top ----------------------------------------------------------------------

    def facts(self, conv: Conversation) -> str:
        t, f = self.t, conv.facts
        state = f.display_state
        css = {"merged": "state-merged", "closed": "state-closed"}.get(state, "state-open")
        label = t(f"thread_{state}", date="").strip() if state in ("open", "draft", "closed", "merged") else state
        lines = [md.badge(label, css)]
        if f.merged:
            lines.append(t("thread_merged_line", who=_who(f.merged_by) or t("someone"), when=self.when(f.merged_at), base=f"<code>{_e(f.base)}</code>", head=f"<code>{_e(f.head)}</code>"))
        elif f.state == "closed":
            lines.append(t("thread_closed_line", when=self.when(f.closed_at)))
        lines.append(t("thread_opened_line", who=_who(f.author), when=self.when(f.created_at)))
        out = '<div class="cb-thread-facts">\n<p>' + " · ".join(lines) + "</p>\n"
        rows = []
        if f.merge_commit:
            rows.append((t("thread_merge_commit"), f"<code>{_e(f.merge_commit[:12])}</code>"))
        if f.is_pull and not f.merged and f.base:
            rows.append((t("branch"), f"<code>{_e(f.head)}</code> → <code>{_e(f.base)}</code>"))
        if f.labels:
            rows.append((t("thread_labels"), " ".join(f'<span class="cb-badge">{_e(label)}</span>' for label in f.labels)))
        if f.is_pull:
            rows.append((t("thread_size"), t("thread_stats", commits=f.commits, files=f.changed_files, add=f.additions, dele=f.deletions)))
        rows.append((t("thread_discussion"), t("thread_counts", comments=f.comments, reviews=f.reviews, review_comments=f.review_comments)))
        if rows:
            out += "<dl>\n" + "".join(f"<dt>{k}</dt><dd>{v}</dd>\n" for k, v in rows) + "</dl>\n"
        return out + "</div>\n"

    # --- the timeline -----------------------------------------------------------------

    def event(self, event: Event, index: int) -> str:
        t = self.t
        css = _EVENT_CSS.get(event.kind, "cb-ev-state")
        head, inner = self._event_parts(event)
        when = self.when(event.at)
        head += f' · <a class="cb-when" href="#event-{index}">{when}</a>' if when else ""
        if event.url and event.kind in ("comment", "review", "opened"):
            head += f' · <a href="{_href(event.url)}" rel="noopener noreferrer nofollow">{t("on_github")} ↗</a>' if _href(event.url) else ""
        return f'<li class="cb-event {css}" id="event-{index}">\n<div class="cb-event-head">{head}</div>\n{inner}</li>\n'

    def _event_parts(self, event: Event) -> tuple[str, str]:
        t = self.t
        who = _who(event.author) or t("someone")
        if event.kind == "opened":
            return t("ev_opened", who=who), _body(event.body)
        if event.kind == "comment":
            return t("ev_commented", who=who), _body(event.body)
        if event.kind == "review":
            state = event.state if event.state in ("APPROVED", "CHANGES_REQUESTED", "DISMISSED") else "COMMENTED"
            badge = md.badge(t(f"review_{state.lower()}"), _REVIEW_CSS.get(state, "fresh"))
            inner = _body(event.body) + "".join(self.file_group(group.path, group.threads) for group in event.files)
            return t("ev_reviewed", who=who) + " " + badge, inner
        if event.kind == "commits":
            return t("ev_pushed", who=who, n=len(event.commits)), self.commits(event.commits)
        if event.kind == "xref":
            what = t("kind_pull") if event.ref_is_pull else t("kind_issue")
            ref = f"{_e(event.ref_repo)}#{event.ref_number}"
            href = _href(event.url)
            target = f'<a href="{href}" rel="noopener noreferrer nofollow">{ref}</a>' if href else ref
            title = f" <em>{_e(event.ref_title)}</em>" if event.ref_title else ""
            return t("ev_xref", who=who, what=what, ref=target) + title, ""
        key = f"ev_{event.kind}"
        detail = f" <code>{_e(event.detail[:12] if event.kind in ('referenced', 'closed', 'merged') else event.detail)}</code>" if event.detail else ""
        return (t(key, who=who) if t.has(key) else t("ev_other", who=who, event=_e(event.kind.replace("_", " ")))) + detail, ""

    def file_group(self, path: str, threads: tuple[CommentThread, ...]) -> str:
        out = f'<div class="cb-review-file">\n<p class="cb-file"><code>{_e(path)}</code></p>\n'
        for thread in threads:
            if thread.root.diff_hunk:
                out += f'<pre class="cb-hunk"><code>{_e(_tail(thread.root.diff_hunk))}</code></pre>\n'
            for comment in thread.comments:
                line = comment.line or comment.original_line
                where = self.t("line_n", n=line) if line else ""
                if not comment.line and comment.original_line:
                    where += f" ({self.t('outdated')})"
                head = _who(comment.author) + (f" · {where}" if where else "") + (f" · {self.when(comment.at)}" if self.when(comment.at) else "")
                reply = " cb-reply" if comment is not thread.root else ""
                out += f'<div class="cb-review-comment{reply}">\n<div class="cb-event-head">{head}</div>\n{_body(comment.body)}</div>\n'
        return out + "</div>\n"

    def commits(self, commits: tuple[Commit, ...]) -> str:
        items = "".join(f"<li><code>{_e(c.sha[:7])}</code> {_e(c.subject)}</li>\n" for c in commits)
        return f'<ul class="cb-commits">\n{items}</ul>\n'

    # --- the page ---------------------------------------------------------------------

    def page(self, source: Source, record: Provenance, data: dict, back: str) -> str:
        t = self.t
        conv = _with_newer_state(conversation(data), record)
        f = conv.facts
        title = f"{plain_title(source.title)} · {t('thread_page')}"
        # Out of Material's index: a thread is searched comment by comment (site/fulltext.py).
        meta: dict = {"title": title, "search": {"exclude": True}}
        out = md.front_matter(**meta) + f"# {title_md(source.title)} · {md.text(t('thread_page'))}\n\n"
        links = [md.link(t("back_to_source"), back)]
        if _safe_url(source.url):
            links.append(md.url_link(f"{t('original')} ↗", _safe_url(source.url)))
        out += " · ".join(links) + f" · {t('fetched_at')}{t.colon}{self.when(record.fetched_at) or md.text(record.fetched_at)}\n\n"
        out += f"*{t('mirrored_copy')} {t('times_in_zone', zone=zone_name(self.zone))}*\n\n"
        out += f'<div class="cb-thread" markdown="0">\n<p class="cb-thread-title"><strong>{_code_html(f.title)}</strong> #{f.number}</p>\n'
        out += self.facts(conv) + "</div>\n\n"
        out += f"## {t('thread_conversation')}\n\n"
        shown, items, cut = 0, [], 0
        for i, e in enumerate(conv.events, start=1):
            if shown > DISPLAY_LIMIT:
                cut += 1  # the rest is in thread.json; a page this long would not load well
                continue
            item = self.event(e, i)
            shown += len(item)
            items.append(item)
        out += opaque('<ol class="cb-timeline">\n' + "".join(items) + "</ol>") + "\n\n"
        if cut:
            out += f"*{md.text(t('thread_events_cut', n=cut))}*\n\n"
        unavailable = [str(x) for x in data.get("unavailable") or () if isinstance(x, str)]
        notes = []
        if unavailable:
            # The parts by what they are to a reader, never the API's names for them (`timeline`).
            names = [t(f"thread_part_{x}") if t.has(f"thread_part_{x}") else t("thread_part_other") for x in dict.fromkeys(unavailable)]
            notes.append(t("thread_unavailable", parts=t.join(list(dict.fromkeys(names)))))
        if f.is_pull and f.commits > f.commits_shown:
            notes.append(t("thread_truncated", what=t("commits_word"), shown=f.commits_shown, total=f.commits))
        if f.is_pull and f.changed_files > f.files_shown:
            notes.append(t("thread_truncated", what=t("files_word"), shown=f.files_shown, total=f.changed_files))
        out += "".join(f"*{md.text(n)}*\n\n" for n in notes)
        if conv.files:
            out += f"## {t('thread_changed_files')}\n\n"
            rows = []
            for changed in conv.files:
                name = f"`{md.text(changed.previous_path)}` → `{md.text(changed.path)}`" if changed.previous_path else f"`{md.text(changed.path)}`"
                status = t(f"file_{changed.status}") if t.has(f"file_{changed.status}") else md.text(changed.status)
                rows.append([name, status, f"+{changed.additions}", f"−{changed.deletions}", str(changed.threads or "")])
            out += md.table([t("file"), t("state"), "+", "−", t("thread_review_threads")], rows) + "\n"
            out += self.diffs(conv)
        return out

    def diffs(self, conv: Conversation) -> str:
        """Each file's diff, folded (a <details> per file), within PATCH_LIMIT characters for the page."""
        t, budget, parts, cut = self.t, PATCH_LIMIT, [], False
        for item in conv.files:
            if not item.patch:
                continue
            if len(item.patch) > budget:
                cut = True
                continue
            budget -= len(item.patch)
            summary = f"<code>{_e(item.path)}</code> +{item.additions} −{item.deletions}"
            parts.append(f'<details class="cb-diff"><summary>{summary}</summary>\n<pre class="cb-hunk"><code>{_e(item.patch)}</code></pre>\n</details>\n')
        if not parts and not cut:
            return ""
        out = f"## {t('thread_diff')}\n\n" + opaque('<div class="cb-diffs">\n' + "".join(parts) + "</div>") + "\n\n"
        if cut:
            out += f"*{t('thread_diff_cut', n=f'{PATCH_LIMIT:,}')}*\n\n"
        return out


def _with_newer_state(conv: Conversation, record: Provenance) -> Conversation:
    """The state `watch` recorded since the fetch (open → merged), over the one in thread.json.

    watch re-checks every cited PR and updates provenance, not thread.json; without this the
    page would say "open" under a "merged" badge.
    """
    thread, f = record.thread, conv.facts
    if thread is None or (thread.state, thread.merged) == (f.state, f.merged) or not thread.state:
        return conv
    facts = dataclasses.replace(
        f, state=thread.state, merged=thread.merged, merged_at=thread.merged_at or f.merged_at, closed_at=thread.closed_at or f.closed_at,
        merge_commit=thread.merge_commit or f.merge_commit,
    )
    return dataclasses.replace(conv, facts=facts)


def _tail(hunk: str, lines: int = 12) -> str:
    """A diff hunk's last lines: the ones the comment is on (GitHub ends the hunk at the commented line)."""
    parts = hunk.split("\n")
    head = parts[0] if parts and parts[0].startswith("@@") else ""
    body = parts[1:] if head else parts
    return "\n".join(([head] if head else []) + body[-lines:])


def read_thread(path) -> dict | None:
    """thread.json as a dict, or None when it is unreadable or not a thread (an edited or foreign file)."""
    try:
        data = jsondata.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("issue"), dict) else None


def thread_excerpt(corpus: Corpus, source: Source, record: Provenance, limit: int) -> str:
    """The start of the thread's description as plain words, for the source page ("" when none)."""
    path = mirror_file(corpus, source, record.body_file)
    data = read_thread(path) if path is not None else None
    body = data["issue"].get("body") if data is not None else ""
    text = reuse_words(body if isinstance(body, str) else "")  # GitHub Markdown as the words it shows (kept between renders)
    return text[:limit] + ("…" if len(text) > limit else "")


def thread_page(corpus: Corpus, source: Source, record: Provenance, t: Labels, page: str, back: str) -> str | None:
    """The conversation page for a thread mirror, or None when its thread.json is missing or unreadable."""
    path = mirror_file(corpus, source, record.body_file)
    data = read_thread(path) if path is not None else None
    if data is None:
        return None
    return ThreadPage(corpus, t).page(source, record, data, back)
