"""Interface words of the generated pages, in the corpus's first language (corpus.yaml `languages`)."""

from __future__ import annotations

_LABELS: dict[str, dict[str, str]] = {
    "home": {"zh": "首页", "en": "Home"},
    "sections": {"zh": "分区", "en": "Sections"},
    "section": {"zh": "分区", "en": "Section"},
    "chapters": {"zh": "章节阅读路径", "en": "Chapter reading paths"},
    "chapters_short": {"zh": "章节", "en": "Chapters"},
    "chapter": {"zh": "第 {n} 章", "en": "Chapter {n}"},
    "learning_paths": {"zh": "学习路径", "en": "Learning paths"},
    "digests": {"zh": "观察日报", "en": "Watch digests"},
    "all_digests": {"zh": "全部日报", "en": "All digests"},
    "latest_digest": {"zh": "最新日报", "en": "Latest digest"},
    "since_last_build": {"zh": "自上次构建（{when}）以来的变化", "en": "Changes since the previous build ({when})"},
    "change_added": {"zh": "新增", "en": "added"},
    "change_removed": {"zh": "移除", "en": "removed"},
    "change_failing": {"zh": "镜像失败", "en": "mirror failing"},
    "change_recovered": {"zh": "镜像恢复", "en": "mirror recovered"},
    "change_digest": {"zh": "新日报", "en": "new digest"},
    "recent_changes": {"zh": "引用的 PR 与 issue 状态变化", "en": "Cited PRs and issues that changed state"},
    "tags": {"zh": "标签", "en": "Tags"},
    "status": {"zh": "镜像状态", "en": "Mirror status"},
    "all_sources": {"zh": "全部条目", "en": "All sources"},
    "export": {"zh": "导出到文献管理器（Zotero 等）", "en": "Export to a reference manager (Zotero…)"},
    "kind": {"zh": "类型", "en": "Kind"},
    "lang": {"zh": "注释语言", "en": "Annotation language"},
    "lang_zh": {"zh": "中文", "en": "Chinese"},
    "lang_en": {"zh": "英文", "en": "English"},
    "original": {"zh": "原文", "en": "Original"},
    "no_url": {"zh": "（地址未知）", "en": "(address unknown)"},
    "annotation": {"zh": "注释", "en": "Annotation"},
    "details": {"zh": "详情", "en": "Details"},
    "cited_by": {"zh": "引用本条目", "en": "Cited by"},
    "not_cited": {"zh": "尚无章节、学习路径或日报引用本条目。", "en": "No chapter, learning path or digest cites this source yet."},
    "see_also": {"zh": "另见", "en": "See also"},
    "mirror": {"zh": "镜像", "en": "Mirror"},
    "not_mirrored": {"zh": "尚未镜像", "en": "Not mirrored yet"},
    "not_mirrored_body": {
        "zh": "运行 `corpus-build fetch {id}` 后，这里会显示抓取时间、来源、哈希与提取的正文。",
        "en": "Run `corpus-build fetch {id}` to mirror it; its fetch time, origin, hash and extracted text will appear here.",
    },
    "unverified": {"zh": "未核实", "en": "unverified"},
    "unverified_body": {
        "zh": "本条目的标题或地址尚未核实",
        "en": "The title or address of this entry is not verified",
    },
    "counts": {"zh": "规模", "en": "At a glance"},
    "sources_n": {"zh": "{n} 个条目", "en": "{n} sources"},
    "by_kind": {"zh": "按类型", "en": "By kind"},
    "by_section": {"zh": "按分区", "en": "By section"},
    "count": {"zh": "数量", "en": "Count"},
    "how_to_use": {"zh": "使用方法", "en": "How to use"},
    "why": {"zh": "为什么读", "en": "Why"},
    "step": {"zh": "步骤", "en": "Step"},
    "reading_path": {"zh": "阅读路径", "en": "Reading path"},
    "window": {"zh": "观察窗口", "en": "Window"},
    "repos": {"zh": "仓库", "en": "Repositories"},
    "feed": {"zh": "订阅（Atom）", "en": "Subscribe (Atom)"},
    "new_sources": {"zh": "新增条目", "en": "Newly added sources"},
    "state": {"zh": "状态", "en": "State"},
    "never_fetched": {"zh": "从未抓取", "en": "never fetched"},
    "summary": {"zh": "汇总", "en": "Summary"},
    "title": {"zh": "标题", "en": "Title"},
    "id": {"zh": "编号", "en": "Id"},
    # --- mirror panel, extracted text and status page (fetch stage) ---
    "mirror_state": {"zh": "镜像状态", "en": "Mirror state"},
    "fresh": {"zh": "最新", "en": "fresh"},
    "stale": {"zh": "过期", "en": "stale"},
    "failed": {"zh": "失败", "en": "failed"},
    "skipped": {"zh": "推迟", "en": "skipped"},
    "fetched_at": {"zh": "抓取时间", "en": "Fetched"},
    "checked_at": {"zh": "最近检查", "en": "Last checked"},
    "fetched_from": {"zh": "实际来源", "en": "Fetched from"},
    "http_status": {"zh": "HTTP 状态", "en": "HTTP status"},
    "content_type": {"zh": "内容类型", "en": "Content type"},
    "size": {"zh": "大小", "en": "Size"},
    "sha256": {"zh": "SHA-256", "en": "SHA-256"},
    "commit": {"zh": "提交", "en": "Commit"},
    "branch": {"zh": "分支", "en": "Branch"},
    "latest_tag": {"zh": "最新标签", "en": "Latest tag"},
    "swhid": {"zh": "SWHID", "en": "SWHID"},
    "pages": {"zh": "页数", "en": "Pages"},
    "pr_state": {"zh": "状态", "en": "State"},
    "extracted_text": {"zh": "提取的正文", "en": "Extracted text"},
    "readme_excerpt": {"zh": "README 摘录", "en": "README excerpt"},
    "excerpt": {"zh": "摘录", "en": "Excerpt"},
    "error": {"zh": "错误", "en": "Error"},
    "age": {"zh": "距今", "en": "Age"},
    "last_attempt": {"zh": "最近尝试", "en": "Last attempt"},
    "fetch_failed_body": {"zh": "最近一次抓取失败；下面是上一次成功的镜像（如有）。", "en": "The last fetch failed; the last good mirror (if any) is shown below."},
    "stale_body": {"zh": "镜像已超过 {days} 天未检查；运行 `corpus-build fetch {id}` 刷新。", "en": "Not checked for more than {days} days; run `corpus-build fetch {id}` to refresh it."},
    "failures": {"zh": "抓取失败", "en": "Failures"},
    "stale_mirrors": {"zh": "过期镜像", "en": "Stale mirrors"},
    "none": {"zh": "无", "en": "none"},
    "back_to_source": {"zh": "返回条目", "en": "Back to the source"},
    "text_not_indexed": {"zh": "正文超过 {n} 个字符，未编入站内搜索。", "en": "This text is longer than {n} characters and is kept out of the site search."},
    "text_truncated": {"zh": "仅显示前 {n} 个字符；完整正文见 `{path}`。", "en": "Only the first {n} characters are shown; the full text is in `{path}`."},
    "mirrored_copy": {"zh": "以下为镜像副本的提取正文（已净化，不执行任何脚本）。", "en": "Text extracted from the mirrored copy (sanitised: nothing in it runs)."},
    "thread_open": {"zh": "开放", "en": "open"},
    "thread_draft": {"zh": "草稿", "en": "draft"},
    "thread_closed": {"zh": "已关闭", "en": "closed"},
    "thread_merged": {"zh": "已合并 {date}", "en": "merged {date}"},
}

KIND_LABELS: dict[str, dict[str, str]] = {
    "repo": {"zh": "代码仓库", "en": "repository"},
    "paper": {"zh": "论文", "en": "paper"},
    "docs": {"zh": "文档", "en": "documentation"},
    "article": {"zh": "文章", "en": "article"},
    "issue": {"zh": "Issue", "en": "issue"},
    "pull": {"zh": "PR", "en": "pull request"},
    "model": {"zh": "模型", "en": "model"},
    "dataset": {"zh": "数据集", "en": "dataset"},
    "course": {"zh": "课程", "en": "course"},
    "video": {"zh": "视频", "en": "video"},
    "discussion": {"zh": "讨论", "en": "discussion"},
}


class Labels:
    def __init__(self, lang: str):
        self.lang = lang if lang in ("zh", "en") else "en"

    def __call__(self, key: str, **values: object) -> str:
        text = _LABELS[key][self.lang]
        return text.format(**values) if values else text

    def kind(self, kind: str) -> str:
        return KIND_LABELS.get(kind, {}).get(self.lang, kind)

    def chapter(self, number: int) -> str:
        return self("chapter", n=number)
