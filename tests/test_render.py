"""Rendered Markdown for the fixture corpus: content, links, incremental writes, navigation."""

from __future__ import annotations

import json
import re

from corpus_build import registry, render


def rendered(corpus_dir, tmp_path):
    corpus = registry.load(corpus_dir)
    docs = tmp_path / "docs"
    result = render.render(corpus, docs)
    return corpus, docs, result


def test_every_page_is_generated(corpus_dir, tmp_path):
    corpus, docs, result = rendered(corpus_dir, tmp_path)
    expected = {
        "index.md", "sections/index.md", "sections/01-gpu.md", "sections/02-ascend.md", "sources/index.md",
        "chapters/index.md", "chapters/01.md", "chapters/02.md", "chapters/path-newcomer.md",
        "digests/index.md", "digests/2026-10-22.md", "tags.md", "status.md", "feed.xml", "sources.xml", "corpus.bib", "corpus.json", "corpus.ris",
        "sources-index.js", "assets/corpus.css", "assets/sources.js", "assets/cite.js",
    } | {f"sources/{s.id}.md" for s in corpus.sources} | {f"tags/{tag}.md" for s in corpus.sources for tag in s.tags} | {
        f"export/{group}.{ext}" for group in ("sections/01-gpu", "sections/02-ascend", "chapters/01", "chapters/02") for ext in ("bib", "json", "ris")
    }
    assert set(result.written) == expected
    assert result.unchanged == 0 and result.removed == ()


def test_section_page_is_an_annotated_bibliography(corpus_dir, tmp_path):
    _, docs, _ = rendered(corpus_dir, tmp_path)
    page = (docs / "sections" / "02-ascend.md").read_text(encoding="utf-8")
    assert "### [DeepGEMM-Ascend](<https://github.com/deepseek-ai/DeepGEMM-Ascend>) {#deepgemm-ascend}" in page
    assert "> DeepGEMM 的昇腾实现，支持 BF16/FP8 GEMM 算子。" in page
    assert "[Chapter 1](../chapters/01.md), [Chapter 2](../chapters/02.md)" in page
    # an unverified entry is marked, and its unknown address is not invented
    assert '### \\[Docs\\] Zhihu article on the Ascend 950 port {#zhihu-port}' in page
    assert '<span class="cb-badge cb-unverified">unverified</span>' in page
    assert "URL not found" in page


def test_source_page_lists_who_cites_it(corpus_dir, tmp_path):
    _, docs, _ = rendered(corpus_dir, tmp_path)
    page = (docs / "sources" / "deepgemm-ascend.md").read_text(encoding="utf-8")
    assert "tags:\n- ascend\n- gemm\n" in page
    assert "- [Chapter 1 · 硬件基础](../chapters/01.md) — Then a real Ascend kernel library." in page
    assert "- [新手路径](../chapters/path-newcomer.md)" in page
    assert "- [2026-10-22 · Daily digest 2026-10-22](../digests/2026-10-22.md)" in page
    # No source of this fixture has a mirror: the home page says so once, a source page has no mirror section.
    assert "Not mirrored yet" not in page and "## Mirror" not in page
    assert "This build of the site holds no archived copies" in (docs / "index.md").read_text(encoding="utf-8")
    tilelang = (docs / "sources" / "tilelang.md").read_text(encoding="utf-8")
    assert "## See also\n\n- [DeepGEMM-Ascend](deepgemm-ascend.md)" in tilelang
    assert "> The main repository.\n> Second line of the note." in tilelang


def test_chapter_page_keeps_the_reading_path_order(corpus_dir, tmp_path):
    _, docs, _ = rendered(corpus_dir, tmp_path)
    page = (docs / "chapters" / "01.md").read_text(encoding="utf-8")
    order = [page.index(f"(../sources/{i}.md)") for i in ("cuda-guide", "tilelang", "deepgemm-ascend")]
    assert order == sorted(order)
    assert "1. **[CUDA C++ Programming Guide](../sources/cuda-guide.md)**\n    — Start with the programming model." in page


def test_digest_wikilinks_resolve_to_source_pages(corpus_dir, tmp_path):
    _, docs, _ = rendered(corpus_dir, tmp_path)
    page = (docs / "digests" / "2026-10-22.md").read_text(encoding="utf-8")
    assert "[TileLang](../sources/tilelang.md) merged 8 PRs" in page
    assert "[the Ascend GEMM](../sources/deepgemm-ascend.md)" in page
    assert "[[" not in page
    feed = (docs / "feed.xml").read_text(encoding="utf-8")
    assert "<title>Daily digest 2026-10-22</title>" in feed and 'href="digests/2026-10-22/"' in feed


def test_second_render_writes_nothing_and_removed_sources_lose_their_pages(corpus_dir, tmp_path):
    corpus, docs, _ = rendered(corpus_dir, tmp_path)
    (docs / "notes.md").write_text("hand-written page", encoding="utf-8")
    again = render.render(corpus, docs)
    assert again.written == () and again.removed == ()
    sources = corpus_dir / "02-ascend" / "sources.yaml"
    text = sources.read_text(encoding="utf-8")
    sources.write_text(text[: text.index("- id: tilelang-pr-2900")], encoding="utf-8")
    third = render.render(registry.load(corpus_dir), docs)
    assert third.removed == ("sources/tilelang-pr-2900.md",)
    assert set(third.written) == {"index.md", "sections/index.md", "sources/index.md", "sources-index.js", "sections/02-ascend.md", "status.md", "corpus.bib", "corpus.json", "corpus.ris",
                                  "export/sections/02-ascend.bib", "export/sections/02-ascend.json", "export/sections/02-ascend.ris"}
    assert (docs / "notes.md").read_text(encoding="utf-8") == "hand-written page"


def test_navigation_keeps_source_pages_out(corpus_dir):
    corpus = registry.load(corpus_dir)
    nav = render.nav(corpus)
    flat = str(nav)
    assert "sources/cuda-guide.md" not in flat
    assert nav[1] == {"Sections": ["sections/index.md", {"GPU hardware": "sections/01-gpu.md"}, {"Ascend stack": "sections/02-ascend.md"}]}
    assert {"Chapter 1 · 硬件基础": "chapters/01.md"} in nav[2]["Chapters"]


def test_search_vocabulary_keeps_corpus_terms_whole(corpus_dir):
    corpus_yaml = corpus_dir / "corpus.yaml"
    corpus_dir.joinpath("01-gpu", "sources.yaml").write_text(
        corpus_dir.joinpath("01-gpu", "sources.yaml").read_text(encoding="utf-8").replace("tags: [cuda]", "tags: [cuda, 张量核心]"), encoding="utf-8"
    )
    words = render.search_vocabulary(registry.load(corpus_dir))
    assert words == ["昇腾", "算子", "张量核心"]
    assert "glossary: [昇腾, 算子]" in corpus_yaml.read_text(encoding="utf-8")


def test_navigation_size_is_bounded_for_many_sections(tmp_path):
    from tests.corpus_fixture import write_corpus

    overrides = {f"{n:02d}-s{n}/section.yaml": f"title: S{n}\n" for n in range(3, 3 + render.NAV_MAX_ITEMS)}
    corpus = registry.load(write_corpus(tmp_path, overrides))
    assert len(corpus.sections) > render.NAV_MAX_ITEMS
    assert render.nav(corpus)[1] == {"Sections": ["sections/index.md"]}


def test_home_lists_cited_prs_whose_state_changed(corpus_dir, tmp_path):
    import json

    state = corpus_dir / ".watch" / "state.json"
    state.parent.mkdir()
    state.write_text(json.dumps({"cited": {
        "tile-ai/tilelang#2900": {"state": "merged", "before": "open", "title": "Define backend architecture", "window": "w"},
        "tile-ai/tilelang#1": {"state": "open", "before": "open", "title": "unchanged", "window": "w"},
    }}), encoding="utf-8")
    _, docs, _ = rendered(corpus_dir, tmp_path)
    home = (docs / "index.md").read_text(encoding="utf-8")
    assert "## Cited PRs and issues that changed state" in home
    assert "- [tile-ai/tilelang#2900 Define backend architecture](sources/tilelang-pr-2900.md): open → **merged**" in home
    assert "unchanged" not in home


def test_bibliography_exports_for_reference_managers(corpus_dir, tmp_path):
    import json

    _, docs, _ = rendered(corpus_dir, tmp_path)
    bib = (docs / "corpus.bib").read_text(encoding="utf-8")
    assert "@software{tilelang,\n  author = {{tile-ai}},\n  title = {{TileLang}},\n  url = {https://github.com/tile-ai/tilelang}," in bib
    assert "annote = {[unverified: URL not found] 大智若愚关于昇腾 950 移植的文章。}" in bib
    assert "`cp.async`" in bib and "\\_" not in bib.split("tilelang,")[0]  # no stray escapes in plain notes
    items = {item["id"]: item for item in json.loads((docs / "corpus.json").read_text(encoding="utf-8"))}
    assert items["deepgemm-ascend"] == {
        "id": "deepgemm-ascend", "type": "software", "title": '<span class="nocase">DeepGEMM-Ascend</span>', "author": [{"literal": "deepseek-ai"}],
        "publisher": "GitHub", "URL": "https://github.com/deepseek-ai/DeepGEMM-Ascend", "keyword": "ascend, gemm", "note": "DeepGEMM 的昇腾实现，支持 BF16/FP8 GEMM 算子。",
    }
    assert "URL" not in items["zhihu-port"]
    sources_index = (docs / "sources" / "index.md").read_text(encoding="utf-8")
    assert "[BibTeX](../corpus.bib)" in sources_index


def test_home_lists_changes_since_the_previous_build(project):
    from corpus_build.cli import main

    assert main(["--project", str(project), "build"]) == 0
    home = (project / "docs" / "index.md").read_text(encoding="utf-8")
    assert "Changes since the previous build" not in home  # first build: nothing to compare with
    assert main(["--project", str(project), "add", "https://github.com/NVIDIA/cutlass", "--section", "01-gpu", "--note", "x"]) == 0
    ascend = project / "corpus" / "02-ascend" / "sources.yaml"
    text = ascend.read_text(encoding="utf-8")
    ascend.write_text(text[: text.index("- id: tilelang-pr-2900")], encoding="utf-8")
    assert main(["--project", str(project), "render"]) == 0
    home = (project / "docs" / "index.md").read_text(encoding="utf-8")
    assert "## Changes since the previous build (20" in home
    assert "- added: [NVIDIA/cutlass](sources/cutlass.md)" in home
    assert "- removed: Define backend architecture" in home
    assert main(["--project", str(project), "build"]) == 0  # the published home page shows them…
    assert 'href="sources/cutlass/"' in (project / "site" / "index.html").read_text(encoding="utf-8")
    published = (project / "site" / "index.html").read_bytes()
    # A build with nothing changed is the same site: the list still says what the last change was
    # (a rebuild, or a build killed after publishing and run again, never empties it).
    assert main(["--project", str(project), "build"]) == 0
    assert (project / "site" / "index.html").read_bytes() == published
    # The next change is compared with the build before it: only the new source is listed.
    assert main(["--project", str(project), "add", "https://github.com/NVIDIA/cccl", "--section", "01-gpu", "--note", "y"]) == 0
    assert main(["--project", str(project), "render"]) == 0
    home = (project / "docs" / "index.md").read_text(encoding="utf-8")
    assert "- added: [NVIDIA/cccl](sources/cccl.md)" in home and "cutlass" not in home.split("## Changes since the previous build")[1].split("##")[0]


def test_unknown_chinese_title_terms_join_the_search_vocabulary(corpus_dir):
    path = corpus_dir / "01-gpu" / "sources.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("title: CUDA C++ Programming Guide", "title: 毕昇编译器用户指南"), encoding="utf-8")
    words = render.search_vocabulary(registry.load(corpus_dir))
    assert "毕昇" in words  # jieba alone cuts it into 毕 / 昇
    assert not any(w in words for w in ("编译器", "用户指南", "用户"))  # words jieba knows are left to jieba


def test_render_never_overwrites_a_hand_written_file(corpus_dir, tmp_path):
    import pytest

    from corpus_build.core.errors import SiteError

    docs = tmp_path / "docs"
    (docs / "sources").mkdir(parents=True)
    mine = docs / "sources" / "tilelang.md"
    mine.write_text("my own notes", encoding="utf-8")
    with pytest.raises(SiteError, match="did not write"):
        render.render(registry.load(corpus_dir), docs)
    assert mine.read_text(encoding="utf-8") == "my own notes"


def test_render_recognises_its_own_pages_without_the_manifest(corpus_dir, tmp_path):
    corpus, docs, _ = rendered(corpus_dir, tmp_path)
    (docs / render.MANIFEST).unlink()
    page = docs / "sources" / "tilelang.md"
    page.write_text(page.read_text(encoding="utf-8").replace("The main repository.", "Old text."), encoding="utf-8")
    result = render.render(corpus, docs)
    assert "sources/tilelang.md" in result.written


def test_text_from_servers_cannot_add_html_attributes():
    from corpus_build.core import mdtext as md

    assert md.text('Gone {: onclick="alert(1)" }') == 'Gone \\{: onclick="alert(1)" \\}'


def test_provenance_cannot_point_the_site_outside_the_mirror(corpus_dir, tmp_path):
    from corpus_build.render.mirrortext import mirror_file

    corpus = registry.load(corpus_dir)
    source = corpus.source("tilelang")
    raw = corpus.raw_dir(source)
    raw.mkdir(parents=True)
    (raw / "text.md").write_text("ok", encoding="utf-8")
    secret = tmp_path / "secret.txt"
    secret.write_text("root:x:0", encoding="utf-8")
    (raw / "link.md").symlink_to(secret)
    assert mirror_file(corpus, source, "text.md") == raw / "text.md"
    for name in ("../../../../secret.txt", str(secret), "link.md", "", "missing.md"):
        assert mirror_file(corpus, source, name) is None, name


def test_change_list_names_failing_and_recovered_mirrors_but_not_rate_limit_skips():
    from corpus_build.render import changes

    before = {"sources": {"a": {"mirror": "ok"}, "b": {"mirror": "failed"}, "c": {"mirror": "ok", "state": "open"}, "d": {"mirror": "ok"}}, "digests": []}
    after = {"sources": {"a": {"mirror": "failed"}, "b": {"mirror": "unchanged"}, "c": {"mirror": "ok", "state": "merged"}, "d": {"mirror": "skipped"}}, "digests": ["2026-10-22"]}
    diff = changes.compare(before, after)
    assert diff["failing"] == ["a"] and diff["recovered"] == ["b"]
    assert diff["state"] == [("c", "open", "merged")] and diff["digests"] == ["2026-10-22"]


def _edit(corpus_dir, relative, old, new):
    path = corpus_dir / relative
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_all_sources_sorts_titles_without_leading_brackets_and_carries_filter_facts(corpus_dir, tmp_path):
    _, docs, _ = rendered(corpus_dir, tmp_path)
    page = (docs / "sources" / "index.md").read_text(encoding="utf-8")
    order = [page.index(f'href="{i}/"') for i in ("cuda-guide", "deepgemm-ascend", "tilelang-pr-2900", "zhihu-port", "tilelang")]
    assert order == sorted(order)  # "[Docs] Zhihu…" sorts under D, not before every letter
    row = next(line for line in page.splitlines() if 'href="deepgemm-ascend/"' in line)
    assert 'href="../sections/02-ascend/"' in row
    assert '<select data-key="kind">' in page and '<input type="search"' in page and "<div class=\"cb-filters\" hidden" in page
    assert 'data-cb-rows="../sources-index.js"' in page
    # The facts the script filters on come with the data file, in the same title order.
    data = _sources_data(docs / "sources-index.js")
    ids = [r["h"].rstrip("/") for r in data["rows"]]
    assert ids.index("cuda-guide") < ids.index("deepgemm-ascend") < ids.index("tilelang-pr-2900") < ids.index("zhihu-port") < ids.index("tilelang")
    row = data["rows"][ids.index("deepgemm-ascend")]
    assert {k: row[k] for k in ("k", "l", "g", "c", "m")} == {"k": "repo", "l": "zh", "g": ["ascend", "gemm"], "c": ["1", "2"], "m": "never"}
    assert data["sections"][row["s"]] == ["02-ascend", "Ascend stack", "../sections/02-ascend/"] and "v" not in row
    assert data["rows"][ids.index("zhihu-port")]["v"] == 0  # unverified
    kinds = next(f for f in data["filters"] if f["key"] == "kind")["options"]
    assert ["repo", "repository"] in kinds
    flat = render.build_pages(registry.load(corpus_dir), directory_urls=False)
    assert 'href="deepgemm-ascend.html"' in flat["sources/index.md"] and 'href="../sections/02-ascend.html"' in flat["sources/index.md"]
    assert '"h":"deepgemm-ascend.html"' in flat["sources-index.js"]


def _sources_data(path):
    text = path.read_text(encoding="utf-8")
    assert text.count("window.cbSources = ") == 1 and text.rstrip().endswith(";")
    return json.loads(text[text.index("= ") + 2 : text.rstrip().rindex(";")])


def test_home_counts_link_to_filtered_views_and_lists_recently_added(corpus_dir, tmp_path):
    _edit(corpus_dir, "01-gpu/sources.yaml", "  kind: docs\n", "  kind: docs\n  added: 2026-11-02\n")
    _edit(corpus_dir, "02-ascend/sources.yaml", "  kind: pull\n", "  kind: pull\n  added: 2026-11-20\n")
    corpus, docs, _ = rendered(corpus_dir, tmp_path)
    assert corpus.source("cuda-guide").added.isoformat() == "2026-11-02"
    home = (docs / "index.md").read_text(encoding="utf-8")
    assert "| repository | [2](sources/index.md?kind=repo) |" in home
    assert "| [Ascend stack](sections/02-ascend.md) | [3](sources/index.md?section=02-ascend) |" in home
    recent = home[home.index("## Recently added"):]
    assert recent.index("Define backend architecture") < recent.index("CUDA C++ Programming Guide")
    assert "- [Define backend architecture](sources/tilelang-pr-2900.md) — 2026-11-20 · pull request" in recent
    tags = (docs / "tags.md").read_text(encoding="utf-8")
    assert '<a class="cb-tag" href="ascend/">ascend <span class="cb-tag-n">1</span></a>' in tags  # the tag's own page
    ascend = (docs / "tags" / "ascend.md").read_text(encoding="utf-8")
    assert "in All sources](../sources/index.md?tag=ascend)" in ascend and "<!-- material/tags {\"include\": [\"ascend\"], \"toc\": false} -->" in ascend


def test_bad_added_date_and_time_zone_are_reported_with_their_line(corpus_dir):
    _edit(corpus_dir, "01-gpu/sources.yaml", "  kind: docs\n", "  kind: docs\n  added: 2026-13-01\n")
    _edit(corpus_dir, "corpus.yaml", "languages: [en, zh]\n", "languages: [en, zh]\ntimezone: Mars/Olympus\n")
    _corpus, problems = registry.read(corpus_dir)
    messages = [str(p) for p in problems]
    assert any("01-gpu/sources.yaml:6" in m and "added date '2026-13-01'" in m and "YYYY-MM-DD" in m for m in messages), messages
    assert any("corpus.yaml:4" in m and "timezone 'Mars/Olympus'" in m for m in messages), messages


def test_times_are_local_to_the_corpus_time_zone(corpus_dir, tmp_path):
    _edit(corpus_dir, "corpus.yaml", "languages: [en, zh]\n", 'languages: [en, zh]\ntimezone: "-05:00"\n')
    corpus, docs, _ = rendered(corpus_dir, tmp_path)
    assert corpus.settings.timezone == "-05:00"
    digest_index = (docs / "digests" / "index.md").read_text(encoding="utf-8")
    assert "- Window: 2026-10-20 18:00 → 2026-10-21 18:00" in digest_index  # 07:00 +08:00 is 18:00 the day before at -05:00
    assert "T07:00:00+08:00" not in digest_index


def test_untrusted_registry_text_stays_text(corpus_dir, tmp_path):
    evil = "</title><svg onload=alert(1)> {: onclick=alert(2) } *x*"
    _edit(corpus_dir, "01-gpu/sources.yaml", "title: TileLang\n", f"title: '{evil}'\n")
    _edit(corpus_dir, "01-gpu/sources.yaml", "  note: The grid/block/warp model and `cp.async`.",
          "  note: 'Text <script>alert(3)</script> {: onclick=alert(4) } and `<b>code</b>`.'")
    _corpus, docs, _ = rendered(corpus_dir, tmp_path)
    page = (docs / "sources" / "tilelang.md").read_text(encoding="utf-8")
    assert 'title: "&lt;/title&gt;&lt;svg onload=alert(1)&gt; {: onclick=alert(2) } *x*"' in page
    assert "# &lt;/title&gt;&lt;svg onload=alert(1)&gt; \\{: onclick=alert(2) \\} \\*x\\*" in page
    assert "<svg" not in page and "<script" not in page
    guide = (docs / "sources" / "cuda-guide.md").read_text(encoding="utf-8")
    assert "> Text &lt;script>alert(3)&lt;/script> \\{: onclick=alert(4) } and `<b>code</b>`." in guide
    assert "<svg" not in (docs / "sources" / "index.md").read_text(encoding="utf-8").replace("<svg xmlns", "")


def test_a_space_between_two_chinese_characters_in_a_note_is_dropped_on_the_page_only(corpus_dir, tmp_path):
    _edit(corpus_dir, "02-ascend/sources.yaml", "note: DeepGEMM 的昇腾实现，支持 BF16/FP8 GEMM 算子。",
          "note: DeepGEMM 的昇腾 实现， 支持 BF16/FP8 GEMM 算子。`代码 里的 空格` 保留")
    corpus, docs, _ = rendered(corpus_dir, tmp_path)
    assert "的昇腾 实现， 支持" in corpus.source("deepgemm-ascend").note  # the registry keeps the user's text
    page = (docs / "sources" / "deepgemm-ascend.md").read_text(encoding="utf-8")
    assert "> DeepGEMM 的昇腾实现，支持 BF16/FP8 GEMM 算子。`代码 里的 空格` 保留" in page


def test_reader_pages_carry_no_commands_codes_or_utc_stamps(corpus_dir, tmp_path):
    _corpus, docs, _ = rendered(corpus_dir, tmp_path)
    for path in docs.rglob("*.md"):
        text = path.read_text(encoding="utf-8").replace(render.GENERATED_MARK, "")
        assert "corpus-build" not in text and "mkdocs serve" not in text, path
        assert not re.search(r"\d{4}-\d\d-\d\dT\d\d:\d\d", text.split("---\n", 2)[-1]), path


def test_chinese_interface_uses_chinese_punctuation(corpus_dir, tmp_path):
    _edit(corpus_dir, "corpus.yaml", "languages: [en, zh]\n", "languages: [zh, en]\n")
    _, docs, _ = rendered(corpus_dir, tmp_path)
    zhihu = (docs / "sources" / "zhihu-port.md").read_text(encoding="utf-8")
    # An English note is quoted apart, marked English, not the end of a Chinese sentence.
    assert "本条目的标题或地址尚未核实。登记表中的说明（原文）：\n\n    > URL not found\n    > {: lang=\"en\" }" in zhihu
    assert "## 被以下内容引用" in zhihu
    assert "导出到文献管理器（Zotero 等）：[BibTeX]" in (docs / "sources" / "index.md").read_text(encoding="utf-8")
    assert "- 观察窗口：2026-10-21 07:00 → 2026-10-22 07:00" in (docs / "digests" / "index.md").read_text(encoding="utf-8")


def test_a_new_panel_or_front_matter_key_needs_no_layout_change(corpus_dir):
    from dataclasses import replace

    from markupsafe import Markup

    from corpus_build.render.pages import PageBuilder
    from corpus_build.render.views import render as render_template

    builder = PageBuilder(registry.load(corpus_dir))
    view = builder.source_view(builder.corpus.source("tilelang"))
    view = replace(view, meta={"search": {"boost": 2}}, panels=(("Cite", Markup("```bibtex\n@software{tilelang}\n```")),))
    page = render_template("source.md.j2", view=view, t=builder.t)
    assert "search:\n  boost: 2\n" in page.split("---")[1]
    assert page.index("## Annotation") < page.index("## Cite\n\n```bibtex\n@software{tilelang}\n```") < page.index("## Cited by")


def test_unchanged_views_are_read_back_and_a_hand_edit_is_not(corpus_dir, tmp_path):
    """render/reuse.py: a page whose view record is unchanged comes back from docs/, byte for byte
    what a fresh layout gives; a hand-edited or corrupted page, or a lost key index, is laid out again."""
    from corpus_build.render.reuse import INDEX, Reuse

    corpus = registry.load(corpus_dir)
    docs = tmp_path / "docs"
    render.render(corpus, docs)
    fresh = render.build_pages(corpus)  # no reuse at all
    reuse = Reuse(docs)
    again = render.build_pages(corpus, reuse=reuse)
    assert again == fresh
    assert reuse.reused >= len(corpus.sources)  # every source page came back from docs/
    page = docs / "sources" / "tilelang.md"
    original = page.read_bytes()
    page.write_bytes(original.replace(b"TileLang", b"TileLung"))
    result = render.render(corpus, docs)
    assert "sources/tilelang.md" in result.written and page.read_bytes() == original
    (docs / INDEX).write_text("{not json", encoding="utf-8")
    assert render.build_pages(corpus, reuse=Reuse(docs)) == fresh


def test_a_page_read_back_untouched_is_neither_hashed_nor_read_again_and_a_touched_one_is(corpus_dir, tmp_path, monkeypatch):
    """render/reuse.py: a page whose file still has the inode, times and size recorded when it was
    written is read back once and known unchanged (no sha256 of it, no second read to compare); a
    same-size hand edit whose mtime is set back still changes the ctime, and is laid out again."""
    import hashlib
    import os
    import types
    from collections import Counter
    from pathlib import Path

    from corpus_build.render import reuse as reuse_module

    corpus = registry.load(corpus_dir)
    docs = tmp_path / "docs"
    render.render(corpus, docs)
    render.render(corpus, docs)  # (the first render's index had no page read back yet: all stamped now)
    pages = {p.read_bytes() for p in docs.rglob("*.md")}
    hashed: list[bytes] = []

    def sha256(data: bytes = b"", **kwargs):
        hashed.append(data)
        return hashlib.sha256(data, **kwargs)

    reads: Counter = Counter()
    real_read = Path.read_bytes

    def read_bytes(self):
        reads[str(self)] += 1
        return real_read(self)

    monkeypatch.setattr(reuse_module, "hashlib", types.SimpleNamespace(sha256=sha256))
    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    result = render.render(corpus, docs)
    assert result.written == ()
    assert [data[:60] for data in hashed if data in pages] == []
    assert [path for path, n in reads.items() if n > 1 and path.startswith(str(docs))] == []

    page = docs / "sources" / "tilelang.md"
    original = page.read_bytes()
    before = os.stat(page)
    page.write_bytes(original.replace(b"TileLang", b"TileLung"))
    os.utime(page, ns=(before.st_atime_ns, before.st_mtime_ns))  # the same size and mtime: only the ctime tells
    result = render.render(corpus, docs)
    assert "sources/tilelang.md" in result.written and page.read_bytes() == original


def test_links_planted_in_docs_are_never_written_through(corpus_dir, tmp_path_factory):
    """A link in docs/ where render writes its manifest, or under the name of a page's temporary copy
    (a committed docs/ holds what a clone brings): render wrote through both, onto files outside
    the project. It replaces them, and writes what a render into an empty folder writes."""
    corpus, docs, _ = rendered(corpus_dir, corpus_dir.parent)
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    outside = {name: elsewhere / name for name in ("manifest.json", "page.md")}
    for path in outside.values():
        path.write_text("mine", encoding="utf-8")
    (docs / render.MANIFEST).unlink()
    (docs / render.MANIFEST).symlink_to(outside["manifest.json"])
    (docs / "sources" / "tilelang.md").unlink()  # written again, through its temporary copy
    (docs / "sources" / ".tilelang.md.tmp").symlink_to(outside["page.md"])
    render.render(corpus, docs)
    assert [path.read_text(encoding="utf-8") for path in outside.values()] == ["mine", "mine"]
    clean = docs.with_name("clean")
    render.render(corpus, clean)

    def tree(folder):
        # (the reuse state files name inodes and times: not the same in two folders)
        return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
                if p.is_file() and not p.is_symlink() and (p.name == render.MANIFEST or not p.name.startswith("."))}

    assert render.MANIFEST in tree(docs) and tree(docs) == tree(clean)


def test_render_resolves_no_folder_below_docs_one_by_one(corpus_dir, tmp_path, monkeypatch):
    """Issue 38: every folder render writes into was resolved whole (an lstat per level of its
    path, a folder per source: a tenth of a one-note rebuild's render at 1,000 sources). A folder
    right inside one already known to stay in docs/ is known by its own lstat."""
    import os
    from pathlib import Path

    corpus, docs, _ = rendered(corpus_dir, tmp_path)
    folders = {p for p in docs.rglob("*") if p.is_dir()}
    assert docs / "export" / "sections" in folders
    resolved: list[Path] = []
    real = os.path.realpath
    monkeypatch.setattr(os.path, "realpath", lambda path, *args, **kwargs: resolved.append(Path(path)) or real(path, *args, **kwargs))
    render.render(corpus, docs)
    assert not [p for p in resolved if p in folders]


def test_a_linked_folder_deep_in_docs_is_refused(corpus_dir, tmp_path):
    """Known by its lstat or resolved, a folder that is a link out of docs/ is never written through."""
    import pytest

    from corpus_build.core.errors import UnsafePathError

    corpus, docs, _ = rendered(corpus_dir, tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    sections = docs / "export" / "sections"
    for page in sections.iterdir():
        page.unlink()
    sections.rmdir()
    sections.symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(UnsafePathError, match="symlink"):
        render.render(corpus, docs)
    assert list(elsewhere.iterdir()) == []
