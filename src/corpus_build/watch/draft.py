"""Write a digest draft from `DigestFacts`: facts in marked blocks, placeholders for commentary.

The layout follows the user's hand-written digests: a window line, an index, the
highlights the editor writes, cited PRs/issues whose state moved, one section per
active repository (merged PRs as linked items, releases, PRs in review), the quiet
repositories each on a "no activity in the window" line, and a source-check table
like the seed's appendix. Repositories and PRs that have an entry in the registry
are linked with `[[id|label]]`, which the renderer turns into links to their pages.
"""

from __future__ import annotations

import datetime as dt
import re

from ..core import mdtext as md
from ..core.errors import fill_counted
from ..core.model import Corpus
from ..core.urls import normalize, slugify
from .merge import commentary_block, facts_block
from .records import DigestFacts, PullRequest, RepoFacts, parse_time
from .window import parse_tz

MAX_UPDATED = 30  # PRs in review listed per repository; the rest are counted

# --- GitHub data into Markdown: the one place it is made safe -----------------------------
# Everything below comes from the GitHub API (or an emulator, or a compromised proxy) and is
# untrusted: a tag may legally be named v9`<svg/onload=…>`, an html_url or a login can
# carry anything. Each kind of value has one writer here; DraftWriter uses nothing else.
_PLAIN_TAG = re.compile(r"[A-Za-z0-9._/+@-]{1,200}")
_LOGIN = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?")
_SAFE_URL = re.compile(r"https?://[A-Za-z0-9.-]+(?::\d{1,5})?(?:/[A-Za-z0-9._~!$&()*+,;=:@%/?#-]*)?")


def gh_text(value: object) -> str:
    """Free text (titles, names, errors): Markdown-escaped, never markup."""
    text = md.text(str(value))
    return "\\" + text if text.startswith("#") else text  # a list item's "#7 …" is no heading


def gh_code(value: object) -> str:
    """A tag or branch name: a code span when its characters cannot leave one, else escaped text."""
    text = str(value)
    return f"`{text}`" if _PLAIN_TAG.fullmatch(text) else gh_text(text)


def gh_login(value: object) -> str:
    """`@login` for a well-formed GitHub login; anything else is shown as escaped text."""
    text = str(value or "")
    if not text:
        return ""
    return f"@{text}" if _LOGIN.fullmatch(text) else "@" + gh_text(text)


def gh_url(value: object, fallback: str = "") -> str:
    """An http(s) URL whose characters cannot leave `[..](<url>)`, else `fallback` (which may be '')."""
    text = str(value or "")
    if _SAFE_URL.fullmatch(text):
        return text
    return fallback if fallback and _SAFE_URL.fullmatch(fallback) else ""


def gh_link(label: str, url: object, fallback: str = "") -> str:
    """A link with an escaped label; escaped text alone when no safe URL is left."""
    target = gh_url(url, fallback)
    return md.url_link(label, target) if target else gh_text(label)


def comment_text(value: object) -> str:
    """Text inside an HTML comment (editor hints): `--` and `>` cannot close it."""
    return str(value).replace("--", "- -").replace(">", "›").replace("<", "‹")

_L: dict[str, dict[str, str]] = {
    "title": {"zh": "观察日报 {date}", "en": "Watch digest {date}"},
    "window": {
        "zh": "观察窗口：{start} ~ {end}（UTC{tz}，{hours} 小时）。仓库 {repos} 个，其中 {active} 个有动态：合入 {merged} 笔，提交 {commits} 次，发布 {releases} 个，新 tag {tags} 个。",
        "en": "Window: {start} to {end} (UTC{tz}, {hours} h). {repos} repositories, {active} active: {merged} merged PR(s), {commits} commit(s), {releases} release(s), {tags} new tag(s).",
    },
    "index": {"zh": "本期索引", "en": "Index"},
    "highlights": {"zh": "今日重点", "en": "Highlights"},
    "highlights_hint": {"zh": "编辑：在此写本期重点（本提示不会显示在网站上）。", "en": "Editor: write the highlights here (this hint is not shown on the site)."},
    "repo_hint": {"zh": "编辑：在此写 {repo} 的解读。", "en": "Editor: write about {repo} here."},
    "trends": {"zh": "趋势观察", "en": "Trends"},
    "trends_hint": {"zh": "编辑：在此写趋势观察。", "en": "Editor: write the trends here."},
    "changes": {"zh": "引用条目状态变化", "en": "Cited PRs and issues that changed state"},
    "no_changes": {"zh": "语料引用的 PR 与 issue 在本窗口内状态均无变化。", "en": "No PR or issue cited by the corpus changed state."},
    "quiet": {"zh": "无动态的仓库", "en": "Quiet repositories"},
    "no_activity": {"zh": "窗口内无动态", "en": "no activity in the window"},
    "failed": {"zh": "未能核查", "en": "could not be checked"},
    "latest_push": {"zh": "最新推送", "en": "latest push"},
    "merged_n": {"zh": "合入（{n}）", "en": "Merged ({n})"},
    "merged_at": {"zh": "合于 {when}", "en": "merged {when}"},
    "files": {"zh": "{n} 个文件 +{a}/-{d}", "en": "{n} files +{a}/-{d}"},
    "fixes": {"zh": "关联 {issues}", "en": "fixes {issues}"},
    "releases": {"zh": "发布", "en": "Releases"},
    "new_tags": {"zh": "新 tag", "en": "New tags"},
    "in_review": {"zh": "在审更新（{n}，在审共 {total} 笔）", "en": "In review, updated ({n} of {total} open)"},
    "opened": {"zh": "开于 {when}", "en": "opened {when}"},
    "updated_at": {"zh": "更新于 {when}", "en": "updated {when}"},
    "more": {"zh": "……另有 {n} 笔", "en": "…and {n} more"},
    "commits": {"zh": "{branch} 分支 {n} 次提交", "en": "{n} commit(s) on {branch}"},
    "summary": {"zh": "合入 {merged} 笔 · 在审 {open} 笔（窗口内更新 {updated} 笔）", "en": "{merged} merged · {open} open ({updated} updated in the window)"},
    "corpus_entry": {"zh": "语料条目", "en": "corpus entry"},
    "source_check": {"zh": "信源核查表", "en": "Source check"},
    "col_repo": {"zh": "仓库（分支）", "en": "Repository (branches)"},
    "col_commits": {"zh": "提交", "en": "Commits"},
    "col_merged": {"zh": "合入", "en": "Merged"},
    "col_open": {"zh": "在审", "en": "Open PRs"},
    "col_updated": {"zh": "窗口内更新", "en": "Updated in window"},
    "col_push": {"zh": "最新推送", "en": "Latest push"},
    "col_tags": {"zh": "新 tag", "en": "New tags"},
    "state_open": {"zh": "在审", "en": "open"},
    "state_merged": {"zh": "已合入", "en": "merged"},
    "state_closed": {"zh": "已关闭", "en": "closed"},
    "state_deleted": {"zh": "已删除", "en": "deleted"},
}


class DraftWriter:
    def __init__(self, corpus: Corpus, facts: DigestFacts):
        self.corpus = corpus
        self.facts = facts
        self.lang = corpus.settings.ui_lang if corpus.settings.ui_lang in ("zh", "en") else "en"
        self.zone = parse_tz(facts.tz)
        self.by_url = {normalize(s.url): s.id for s in corpus.sources if s.url}

    @property
    def colon(self) -> str:
        return "：" if self.lang == "zh" else ": "

    @property
    def comma(self) -> str:
        return "，" if self.lang == "zh" else ", "

    def paren(self, text: str) -> str:
        return f"（{text}）" if self.lang == "zh" else f" ({text})"

    def t(self, key: str, **values: object) -> str:
        text = _L[key][self.lang]
        return fill_counted(text, values) if values else text

    # --- pieces -------------------------------------------------------------------------

    def when(self, stamp: str | dt.datetime) -> str:
        """Month-day and time in the digest's zone, as the seed writes them (10-21 10:26)."""
        moment = parse_time(stamp) if isinstance(stamp, str) else stamp
        return moment.astimezone(self.zone).strftime("%m-%d %H:%M")

    def repo_label(self, repo: RepoFacts) -> str:
        source_id = repo.source_id or self.by_url.get(normalize(repo.url))
        if source_id:
            return f"[[{source_id}|{repo.repo}]]"
        return gh_link(repo.repo, repo.url, f"https://github.com/{repo.repo}")

    def pr_label(self, url: str, label: str, fallback: str = "") -> str:
        """A registry PR/issue links to its page; any other to GitHub."""
        source_id = self.by_url.get(normalize(url))
        return f"[[{source_id}|{label}]]" if source_id else gh_link(label, url, fallback)

    def issue_link(self, repo: str, ref: str) -> str:
        target_repo, number = (ref.split("#", 1) if not ref.startswith("#") else (repo, ref[1:]))
        label = ref if target_repo != repo else f"#{number}"
        return self.pr_label(f"https://github.com/{target_repo}/issues/{number}", label)

    def pull_item(self, pr: PullRequest) -> str:
        bits = [gh_login(pr.author), self.t("merged_at", when=self.when(pr.merged_at))]
        bits.append(self.t("files", n=pr.changed_files, a=pr.additions, d=pr.deletions))
        if pr.linked_issues:
            bits.append(self.t("fixes", issues=", ".join(self.issue_link(pr.repo, i) for i in pr.linked_issues)))
        return f"- {self.pr_label(pr.url, f'#{pr.number}', f'https://github.com/{pr.repo}/pull/{pr.number}')} {gh_text(pr.title)} — " + self.comma.join(b for b in bits if b)

    def anchor(self, repo: RepoFacts) -> str:
        return "repo-" + slugify(repo.repo.replace("/", "-"))

    def branches(self, repo: RepoFacts) -> str:
        return " / ".join(b.branch for b in repo.branches) or repo.default_branch

    # --- blocks -------------------------------------------------------------------------

    def window_facts(self) -> str:
        f, counts = self.facts, self.facts.counts()
        hours = (f.end - f.start).total_seconds() / 3600
        start, end = f.start.astimezone(self.zone), f.end.astimezone(self.zone)
        return self.t(
            "window",
            start=start.strftime("%Y-%m-%d %H:%M"),
            end=end.strftime("%Y-%m-%d %H:%M"),
            tz=f.tz,
            hours=f"{hours:g}",
            repos=counts["repos"],
            active=counts["active"],
            merged=counts["merged"],
            commits=counts["commits"],
            releases=counts["releases"],
            tags=counts["new_tags"],
        )

    def index_facts(self) -> str:
        lines = [f"- [{self.t('highlights')}](#highlights)"]
        if self.facts.changes:
            lines.append(f"- [{self.t('changes')}](#cited-changes)" + self.paren(str(len(self.facts.changes))))
        for repo in self.active:
            summary = self.t("summary", merged=len(repo.merged), open=repo.open_count, updated=len(repo.updated))
            lines.append(f"- [{gh_text(repo.repo)}](#{self.anchor(repo)}){self.colon}{summary}")
        if self.quiet or any(r.error for r in self.facts.repos):
            lines.append(f"- [{self.t('quiet')}](#quiet)" + self.paren(str(len(self.quiet))))
        lines.append(f"- [{self.t('source_check')}](#source-check)")
        return "\n".join(lines)

    def changes_facts(self) -> str:
        if not self.facts.changes:
            return self.t("no_changes")
        lines = []
        for change in self.facts.changes:
            ref = change.ref
            label = f"{ref.repo}#{ref.number}"
            link = f"[[{ref.source_id}|{label}]]" if ref.source_id else self.pr_label(ref.url, label)
            when = self.paren(self.when(change.changed_at)) if change.changed_at else ""
            lines.append(f"- {link} {gh_text(change.title)}{self.colon}{self.state(change.before)} → {self.state(change.after)}{when}")
        return "\n".join(lines)

    def state(self, state: str) -> str:
        key = f"state_{state}"
        return self.t(key) if key in _L else state

    def repo_facts(self, repo: RepoFacts) -> str:
        sep = "；" if self.lang == "zh" else "; "
        head = [self.t("commits", branch=b.branch, n=b.count) for b in repo.branches]
        head.append(self.t("summary", merged=len(repo.merged), open=repo.open_count, updated=len(repo.updated)))
        if repo.pushed_at:
            head.append(f"{self.t('latest_push')} {self.when(repo.pushed_at)}")
        out = [self.repo_label(repo) + self.colon + sep.join(head)]
        if repo.quiet:
            return out[0] + sep + self.t("no_activity")
        if repo.merged:
            out += ["", f"**{self.t('merged_n', n=len(repo.merged))}**", ""]
            out += [self.pull_item(pr) for pr in repo.merged]
        if repo.releases or repo.new_tags:
            out += ["", f"**{self.t('releases')}**", ""]
            out += [f"- {gh_link(r.name, r.url)} ({gh_code(r.tag)}) — {self.when(r.published_at)}" for r in repo.releases]
            released = {r.tag for r in repo.releases}
            extra = [t for t in repo.new_tags if t not in released]
            if extra:
                out.append(f"- {self.t('new_tags')}: " + ", ".join(gh_code(t) for t in extra))
        if repo.updated:
            out += ["", f"**{self.t('in_review', n=len(repo.updated), total=repo.open_count)}**", ""]
            for pr in repo.updated[:MAX_UPDATED]:
                bits = [gh_login(pr.author)]
                if pr.created_at and self.facts.start <= parse_time(pr.created_at) < self.facts.end:
                    bits.append(self.t("opened", when=self.when(pr.created_at)))
                bits.append(self.t("updated_at", when=self.when(pr.updated_at)))
                out.append(f"- {self.pr_label(pr.url, f'#{pr.number}', f'https://github.com/{pr.repo}/pull/{pr.number}')} {gh_text(pr.title)} — " + self.comma.join(b for b in bits if b))
            if len(repo.updated) > MAX_UPDATED:
                out.append(f"- {self.t('more', n=len(repo.updated) - MAX_UPDATED)}")
        return "\n".join(out)

    def quiet_facts(self) -> str:
        sep = "；" if self.lang == "zh" else "; "
        failed = [f"- {self.repo_label(r)}{self.colon}{self.t('failed')}{sep}{gh_text(r.error)}" for r in self.facts.repos if r.error]
        push = {r.repo: f"{sep}{self.t('latest_push')} {self.when(r.pushed_at)}" if r.pushed_at else "" for r in self.quiet}
        return "\n".join([*(f"- {self.repo_label(r)}{self.paren(self.branches(r))}{self.colon}{self.t('no_activity')}{push[r.repo]}" for r in self.quiet), *failed])

    def source_check(self) -> str:
        header = [self.t(k) for k in ("col_repo", "col_commits", "col_merged", "col_open", "col_updated", "col_push", "col_tags")]
        rows = []
        for r in self.facts.repos:
            if r.error:
                rows.append([gh_link(r.repo, r.url, f"https://github.com/{r.repo}"), *(["?"] * 5), self.t("failed")])
                continue
            rows.append(
                [
                    gh_link(r.repo, r.url, f"https://github.com/{r.repo}") + self.paren(gh_text(self.branches(r))),
                    " / ".join(str(b.count) for b in r.branches) or "0",
                    str(len(r.merged)),
                    str(r.open_count),
                    str(len(r.updated)),
                    self.when(r.pushed_at) if r.pushed_at else "—",
                    ", ".join(gh_code(t) for t in r.new_tags) or "—",
                ]
            )
        return md.table(header, rows).rstrip("\n")

    @property
    def active(self) -> list[RepoFacts]:
        return [r for r in self.facts.repos if not r.quiet and not r.error]

    @property
    def quiet(self) -> list[RepoFacts]:
        return [r for r in self.facts.repos if r.quiet and not r.error]

    # --- the whole draft ------------------------------------------------------------------

    def render(self) -> str:
        f = self.facts
        date = f.end.astimezone(self.zone).date()
        front = md.front_matter(
            title=self.t("title", date=date.isoformat()),
            date=date,
            window_start=f.start.astimezone(self.zone).isoformat(timespec="seconds"),
            window_end=f.end.astimezone(self.zone).isoformat(timespec="seconds"),
            tz=f.tz,
            repos=[r.repo for r in f.repos],
            counts=f.counts(),
        )
        parts = [facts_block("window", self.window_facts())]
        parts.append(f"## {self.t('index')} {{#index}}\n\n" + facts_block("index", self.index_facts()))
        parts.append(f"## {self.t('highlights')} {{#highlights}}\n\n" + commentary_block("highlights", self.t("highlights_hint")))
        parts.append(f"## {self.t('changes')} {{#cited-changes}}\n\n" + facts_block("cited", self.changes_facts()))
        for repo in self.active:
            parts.append(
                f"## {gh_text(repo.repo)} {{#{self.anchor(repo)}}}\n\n"
                + facts_block(f"repo:{repo.repo}", self.repo_facts(repo))
                + "\n"
                + commentary_block(f"repo:{repo.repo}", comment_text(self.t("repo_hint", repo=repo.repo)))
            )
        parts.append(f"## {self.t('quiet')} {{#quiet}}\n\n" + facts_block("quiet", self.quiet_facts() or "—"))
        parts.append(f"## {self.t('trends')} {{#trends}}\n\n" + commentary_block("trends", self.t("trends_hint")))
        parts.append(f"## {self.t('source_check')} {{#source-check}}\n\n" + facts_block("source-check", self.source_check()))
        return front + "\n".join(parts)

    def blocks(self) -> dict[str, str]:
        """Facts for every repository, active or not, so a re-run can refresh any section."""
        # A repository that failed this time keeps the facts an earlier run wrote.
        return {f"repo:{r.repo}": self.repo_facts(r) for r in self.facts.repos if not r.error}

