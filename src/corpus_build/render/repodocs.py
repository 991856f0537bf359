"""A mirrored repository's own docs on the site, and the files notes cite with `[[repo-id#path:lines]]`.

Pages live below the source, each file's page at its path with `.md` added (the page's
address then reads as the path: `sources/deepep/repo/docs/deep-dive.md/`,
`sources/deepep/repo/csrc/kernels/internode.cu/#L120`). Adding the suffix, rather than
reusing a doc's own name, is what keeps MkDocs from taking a repository's `README.md` or
`index.md` for a folder's index page (two of those in one folder fail a strict build), and
keeps `foo` and `foo.md` apart. Files named `index` or `README` with no extension would still
be such an index page: they get none (a link to one goes to the original).

- `sources/<id>/repo/index.md`: the repository's docs index (what was built, what was left out and why);
- `sources/<id>/repo/<path>.md`: a Markdown file, rendered through mirrortext.sanitize_markdown
  like every mirror, its relative links and images resolved (`_Resolver`);
- the same for a cited file, shown line by line (`#L120` on every line, the cited lines marked
  `cb-hl` on the page itself: no script needed);
- `sources/<id>/repo-images/<path>`: the raster images the docs show (a sibling of repo/, so no
  image can take the place of a page's folder).

Everything comes from core/repofiles (plain names only, no symlink followed, nothing outside
the checkout). The site stays bounded: at most MAX_PAGES doc pages and MAX_MARKDOWN_BYTES of
Markdown per repository, no doc over MAX_DOC_FILE; cited files are always shown, each up to
MAX_CODE_LINES lines / MAX_CODE_BYTES; the docs index and the mirror panel say what was left out.
"""

from __future__ import annotations

import html
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, unquote

from markupsafe import Markup

from ..core import mdtext as md
from ..core import repofiles, safepath, urls
from ..core.model import Corpus, Source
from ..core.provenance import Provenance, read_provenance
from ..registry import WIKILINK
from .labels import Labels
from .mirrortext import sanitize_markdown
from .places import rel, site_rel, site_url
from .reuse import Reuse
from .views import Fact, Link, Piece, RepoIndexPage, TextPage, render, safe_url

MAX_PAGES = 200  # Markdown pages per repository (cited files come on top)
MAX_MARKDOWN_BYTES = 4 * 1024 * 1024  # of Markdown rendered per repository
MAX_DOC_FILE = 512 * 1024  # a longer doc is left out (it is most often generated: a changelog, an API dump)
MAX_CODE_BYTES = 1024 * 1024  # of a cited file shown on its page
MAX_CODE_LINES = 10_000
MAX_IMAGES = 100  # images published per repository
MAX_IMAGE_BYTES = 5 * 1024 * 1024
_DOC = re.compile(r"\.(?:md|markdown)$", re.I)
_INDEX_STEM = re.compile(r"^(?:index|readme)$", re.I)  # MkDocs would make `<name>.md` a folder's index page
_IMAGE = re.compile(r"\.(?:png|jpe?g|gif|webp|avif|bmp)$", re.I)
_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)
# Image targets in Markdown: inline `![alt](path "title")` and reference definitions `[ref]: path`.
_IMAGE_REFS = re.compile(r"!\[[^\]]*\]\(\s*<?([^)\s>]+)|^\s{0,3}\[[^\]]+\]:\s*<?([^\s>]+)", re.M)
_GITHUB_LINES = re.compile(r"^L(\d+)(?:-L?\d+)?$")


@dataclass(frozen=True)
class LeftOut:
    """What a repository's docs pages do not include, and why (said on the page in the reader's words)."""

    over_pages: int = 0
    over_bytes: int = 0
    too_large: int = 0
    vendored: tuple[str, ...] = ()
    odd_names: int = 0
    symlinks: int = 0
    truncated: bool = False


@dataclass(frozen=True)
class CitedFile:
    """A file notes cite, shown line by line: its first `shown` lines (`cut`: the file has more), the cited ranges marked."""

    path: str
    shown: int
    ranges: tuple[tuple[int, int], ...]
    cut: bool = False


@dataclass(frozen=True)
class Plan:
    """The pages and files of one mirrored repository."""

    source_id: str
    commit: str
    github: str  # https://github.com/<owner>/<repo>, or "" for another host
    docs: tuple[str, ...]  # Markdown files rendered as pages, README first
    code: tuple[CitedFile, ...]
    images: tuple[str, ...]
    left_out: LeftOut

    def has_page(self, path: str) -> bool:
        return path in self.docs or any(path == c.path for c in self.code)

    def shown_lines(self, path: str) -> int:
        return next((c.shown for c in self.code if c.path == path), 0)

    def blob(self, path: str, kind: str = "blob") -> str:
        """The file (or folder, `kind` "tree") on GitHub at the pinned commit, "" for a repository elsewhere."""
        return f"{self.github}/{kind}/{self.commit}/{quote(path)}" if self.github else ""


def index_page(source_id: str) -> str:
    return f"sources/{source_id}/repo/index.md"


def file_page(source_id: str, path: str) -> str:
    return f"sources/{source_id}/repo/{path}.md"


def image_file(source_id: str, path: str) -> str:
    return f"sources/{source_id}/repo-images/{path}"


# --- which files ---------------------------------------------------------------------


def cited(corpus: Corpus) -> dict[str, dict[str, tuple[tuple[int, int], ...]]]:
    """Every repository file the notes, digests and reading steps link to: source id -> path -> cited line ranges."""
    memo = _CITED.get(id(corpus))
    if memo is not None and memo[0] is corpus:
        return memo[1]
    repos = {s.id for s in corpus.sources if s.kind == "repo"}
    found: dict[str, dict[str, list[tuple[int, int]]]] = {}
    steps = [step for chapter in corpus.chapters for step in chapter.path] + [step for path in corpus.paths for step in path.path]
    texts = [s.note or "" for s in corpus.sources] + [d.body for d in corpus.digests] + [step.why or "" for step in steps]
    for text in texts:
        for match in WIKILINK.finditer(text):
            target, _, fragment = match.group(1).partition("#")
            target, fragment = target.strip(), fragment.strip()
            if target in repos and repofiles.file_fragment("repo", fragment):
                link = repofiles.parse_fragment(fragment)
                ranges = found.setdefault(target, {}).setdefault(link.path, [])
                if link.start and link.start <= link.end:
                    ranges.append((link.start, link.end))
    result = {sid: {p: tuple(sorted(set(r))) for p, r in files.items()} for sid, files in found.items()}
    _CITED.clear()  # one corpus at a time: a render, or a preview's rebuild
    _CITED[id(corpus)] = (corpus, result)
    return result


_CITED: dict[int, tuple[Corpus, dict]] = {}


def plan(corpus: Corpus, source: Source, record: Provenance | None = None) -> Plan | None:
    """The repository's pages, or None when it has no mirrored checkout."""
    if source.kind != "repo":
        return None
    raw = corpus.raw_dir(source)
    if not safepath.is_inside(raw, corpus.root):  # raw/<id> itself a symlink out of the corpus (mirrortext.mirror_file)
        return None
    record = record if record is not None else read_provenance(raw)
    checkout = repofiles.checkout_dir(raw) if record is not None and record.repo is not None else None
    if checkout is None or record is None or record.repo is None:
        return None
    wanted = tuple(sorted(cited(corpus).get(source.id, {}).items()))
    parts = urls.github_parts(source.url) if source.url else None
    github = f"https://github.com/{parts[0]}/{parts[1]}" if parts and not parts[2] else ""
    try:
        stamp = checkout.stat().st_mtime_ns
    except OSError:
        return None
    return _plan(str(checkout), stamp, source.id, record.repo.commit, github, wanted)


def _publishable(path: str) -> bool:
    return repofiles.plain_path(path) and not _INDEX_STEM.match(path.rsplit("/", 1)[-1])


def _size(path: Path | None) -> int:
    try:
        return path.stat().st_size if path is not None else -1
    except OSError:
        return -1


def _plan(folder: str, stamp: int, source_id: str, commit: str, github: str,
          wanted: tuple[tuple[str, tuple[tuple[int, int], ...]], ...]) -> Plan:
    """The plan of one checkout version (`stamp`) and one set of citations; kept while they last (mkdocs serve)."""
    key = (folder, stamp, source_id, commit, github, wanted)
    if key in _PLANS:
        return _PLANS[key]
    checkout = Path(folder)
    tree = repofiles.tree(checkout)
    code: list[CitedFile] = []
    cited_docs: list[str] = []
    for path, ranges in wanted:
        found = repofiles.member(checkout, path) if _publishable(path) else None
        data = repofiles.read_member(found, MAX_CODE_BYTES) if found is not None else None
        if data is None or repofiles.is_binary(data):
            continue  # no page: a link to it goes to the original
        if _DOC.search(path) and not ranges:
            cited_docs.append(path)
        else:
            lines = repofiles.line_count(data[:MAX_CODE_BYTES])
            cut = len(data) > MAX_CODE_BYTES or lines > MAX_CODE_LINES
            code.append(CitedFile(path, min(lines, MAX_CODE_LINES), ranges, cut))
    coded = {c.path for c in code}
    candidates = [p for p in tree.files if _DOC.search(p) and _publishable(p) and p not in coded and p not in cited_docs]
    # The README first, then the shallowest docs: the overview before the details.
    candidates.sort(key=lambda p: (p.lower() not in ("readme.md", "readme.markdown"), p.count("/"), p.lower()))
    docs, total, over_pages, over_bytes, too_large = [], 0, 0, 0, 0
    for path in cited_docs:  # always built, counted against the byte cap
        total += max(0, min(_size(checkout / path), MAX_DOC_FILE))
        docs.append(path)
    for path in candidates:
        size = _size(repofiles.member(checkout, path))
        if size < 0:
            continue
        if size > MAX_DOC_FILE:
            too_large += 1
        elif len(docs) >= MAX_PAGES + len(cited_docs):
            over_pages += 1
        elif total + size > MAX_MARKDOWN_BYTES:
            over_bytes += 1
        else:
            docs.append(path)
            total += size
    docs, code = _without_clashes(docs, code)
    images = _images(checkout, docs)
    left_out = LeftOut(over_pages, over_bytes, too_large, tree.vendored, tree.odd_names, tree.symlinks, tree.truncated)
    result = Plan(source_id, commit, github, tuple(docs), tuple(code), images, left_out)
    if len(_PLANS) > 64:
        _PLANS.clear()
    _PLANS[key] = result
    return result


_PLANS: dict[tuple, Plan] = {}


def _without_clashes(docs: list[str], code: list[CitedFile]) -> tuple[list[str], list[CitedFile]]:
    """Drop a page whose docs/ path is also a folder of another page (file `x` beside folder `x.md/`)."""
    pages = [d + ".md" for d in docs] + [c.path + ".md" for c in code]
    folders = {"/".join(p.split("/")[:n]) for p in pages for n in range(1, p.count("/") + 1)}
    return [d for d in docs if d + ".md" not in folders], [c for c in code if c.path + ".md" not in folders]


def _images(checkout: Path, docs: list[str]) -> tuple[str, ...]:
    """The raster images the docs point at that are files of the checkout (at most MAX_IMAGES)."""
    found: dict[str, None] = {}
    for doc in docs:
        data = repofiles.read_member(checkout / doc, MAX_DOC_FILE) if repofiles.member(checkout, doc) else None
        for match in _IMAGE_REFS.finditer((data or b"").decode("utf-8", "replace")):
            target = _resolve_path(doc, match.group(1) or match.group(2))
            if target and _IMAGE.search(target) and target not in found and _raster(checkout, target):
                found[target] = None
                if len(found) >= MAX_IMAGES:
                    return tuple(found)
    return tuple(found)


def _raster(checkout: Path, path: str) -> bool:
    """A file of the checkout whose bytes are a raster image, small enough to publish (an SVG can carry script)."""
    if not repofiles.plain_path(path):
        return False
    found = repofiles.member(checkout, path)
    if found is None or _size(found) > MAX_IMAGE_BYTES:
        return False
    head = (repofiles.read_member(found, 16) or b"")[:16]
    return head.startswith((b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF87a", b"GIF89a", b"BM")) or (
        head[:4] == b"RIFF" and head[8:12] == b"WEBP") or head[4:12] in (b"ftypavif", b"ftypavis")


def _resolve_path(doc: str, target: str) -> str:
    """A link target written in `doc`, as a path from the repository's top ("" when it leaves the repository)."""
    path = unquote(target.split("#", 1)[0].split("?", 1)[0]).strip()
    if not path or _SCHEME.match(path) or path.startswith("//"):
        return ""
    joined = path.lstrip("/") if path.startswith("/") else posixpath.join(posixpath.dirname(doc), path)
    normal = posixpath.normpath(joined) if joined else "."
    return "" if normal == ".." or normal.startswith(("../", "/")) else normal


# --- pages ---------------------------------------------------------------------------


class _Resolver:
    """A doc's links and images as the site has them: a page of ours, a published image, or the original."""

    def __init__(self, plan: Plan, checkout: Path, doc: str, page: str, directory_urls: bool):
        self.plan, self.checkout, self.doc, self.page, self.directory_urls = plan, checkout, doc, page, directory_urls

    def __call__(self, tag: str, value: str) -> str | None:
        value = value.strip()
        if not value:
            return None
        if _SCHEME.match(value) or value.startswith("//"):
            # Another site: a link stays (nh3 allows http(s) and mailto only); an image would be a request to it.
            return None if tag == "img" or not value.lower().startswith(("http://", "https://", "mailto:")) else value
        if value.startswith("#"):
            return "#" + _heading_anchor(value[1:])
        target = _resolve_path(self.doc, value)
        fragment = value.partition("#")[2]
        if not target:
            return None  # out of the repository: nothing of the build machine is linked or published
        if tag == "img":
            return _file_rel(self.page, image_file(self.plan.source_id, target), self.directory_urls) if target in self.plan.images else None
        if target == ".":
            return site_rel(self.page, index_page(self.plan.source_id), self.directory_urls)
        if self.plan.has_page(target):
            anchor = _line_anchor(fragment) if target not in self.plan.docs else (_heading_anchor(fragment) if fragment else "")
            return site_rel(self.page, file_page(self.plan.source_id, target), self.directory_urls) + (f"#{anchor}" if anchor else "")
        if not self.plan.github:
            return None
        kind = "tree" if repofiles.folder(self.checkout, target) else "blob"
        return self.plan.blob(target, kind) + (f"#{fragment}" if re.fullmatch(r"[\w.-]+", fragment) else "")


def _file_rel(page: str, target: str, directory_urls: bool) -> str:
    """A published file (not a page) as raw HTML on `page` must address it: from the page's URL."""
    url = site_url(page, directory_urls)
    base = url if url.endswith("/") else posixpath.dirname(url)
    return posixpath.relpath(target, base.rstrip("/") or ".")


def _heading_anchor(fragment: str) -> str:
    """A GitHub heading anchor (`#getting-started`) as this site's heading id (`#sec-getting-started`)."""
    words = unquote(fragment)
    return words if words.startswith(md.SECTION_PREFIX) else md.section_id(words.replace("-", " "))


def _line_anchor(fragment: str) -> str:
    match = _GITHUB_LINES.match(fragment)
    return f"L{match.group(1)}" if match else ""


_EXTERNAL = re.compile(r'<a href="(?=https?://)')
# A link whose target had no place (out of the repository, another scheme): its words stay, as text.
# Links do not nest, so an <a> without href ends at the next </a>.
_NO_HREF = re.compile(r'<a rel="noopener noreferrer nofollow">(.*?)</a>', re.S)


def _doc_body(plan: Plan, checkout: Path, doc: str, page: str, directory_urls: bool) -> Markup:
    found = repofiles.member(checkout, doc)
    data = repofiles.read_member(found, MAX_DOC_FILE) if found is not None else None
    text = (data or b"")[:MAX_DOC_FILE].decode("utf-8", "replace")
    cleaned = sanitize_markdown(text, resolve=_Resolver(plan, checkout, doc, page, directory_urls))
    # Links that leave the site are marked (corpus.css adds the ↗): nh3 writes every href in double quotes.
    return Markup(_NO_HREF.sub(r"<span>\1</span>", _EXTERNAL.sub('<a class="cb-external" href="', cleaned)))


def _code_body(checkout: Path, path: str, shown: int, ranges: tuple[tuple[int, int], ...]) -> Markup:
    found = repofiles.member(checkout, path)
    data = (repofiles.read_member(found, MAX_CODE_BYTES) or b"") if found is not None else b""
    lines = data[:MAX_CODE_BYTES].decode("utf-8", "replace").splitlines()[:shown]
    marked = {n for start, end in ranges for n in range(start, min(end, shown) + 1)}
    out = []
    for number, line in enumerate(lines, start=1):
        css = "cb-line cb-hl" if number in marked else "cb-line"
        out.append(f'<span class="{css}" id="L{number}"><a class="cb-ln" href="#L{number}" data-cb-n="{number}" aria-label="{number}"></a>{html.escape(line)}</span>')
    # The number is drawn by corpus.css from data-cb-n, so copying the code (Material's copy button
    # takes the text) gives the code alone. One source line a line, none blank: a raw HTML block python-markdown passes through whole. The first
    # line starts right after <code> (a line end there would show as an empty first line).
    return Markup('<div class="cb-code"><pre><code>' + "\n".join(out) + "</code></pre></div>")


def _links(source: Source, plan: Plan, page: str, t: Labels, path: str = "") -> tuple[Piece, ...]:
    links: list[Piece] = [Link(t("back_to_source"), rel(page, f"sources/{source.id}.md"))]
    if path:
        links.append(Link(t("repo_docs_index"), rel(page, index_page(source.id))))
    original = plan.blob(path) if path else (f"{plan.github}/tree/{plan.commit}" if plan.github else "")
    if original and safe_url(original):
        links.append(Link(f"{t('original')} ↗", original, external=True))
    links.append(f"{t('pinned_commit')}{t.colon}{plan.commit[:12]}")
    return tuple(links)


def pages(corpus: Corpus, t: Labels, directory_urls: bool = True, lookup: Callable | None = None, reuse: Reuse | None = None, mark: str = "") -> dict[str, str]:
    """Every repository's docs index, doc pages and cited-file pages (path under docs/ -> Markdown).

    With `reuse` (reuse.py) and the mark build_pages ends each page with, an unchanged file of an
    unchanged repository is read back from docs/ instead of rendered again.
    """
    out: dict[str, str] = {}
    for source in corpus.sources:
        if source.kind != "repo":
            continue
        record = lookup(source).record if lookup is not None else read_provenance(corpus.raw_dir(source))
        found = plan(corpus, source, record)
        checkout = repofiles.checkout_dir(corpus.raw_dir(source)) if found is not None else None
        if found is None or checkout is None:
            continue
        out[index_page(source.id)] = _index(source, found, t)
        pages = _Pages(source, found, checkout, t, directory_urls, reuse if mark else None, mark)
        for doc in found.docs:
            out[file_page(source.id, doc)] = pages.doc(doc)
        for cited_file in found.code:
            out[file_page(source.id, cited_file.path)] = pages.code(cited_file)
    return out


@dataclass(frozen=True)
class _Pages:
    """One repository's file pages; an unchanged file of an unchanged plan is read back from docs/ (reuse.py)."""

    source: Source
    plan: Plan
    checkout: Path
    t: Labels
    directory_urls: bool
    reuse: Reuse | None = None
    mark: str = ""

    def _laid_out(self, path: str, make: Callable[[], str], extra: object = ()) -> str:
        reuse = self.reuse
        if reuse is None:
            return make()
        found = repofiles.member(self.checkout, path)
        try:
            stamp = (found.stat().st_size, found.stat().st_mtime_ns) if found is not None else ()
        except OSError:
            stamp = ()
        view = (self.source.id, self.source.title, self.plan, path, stamp, self.directory_urls, extra)
        key = reuse.key("repodocs", self.t.lang, view)
        kept = reuse.get(key, self.mark)
        return reuse.made(key, kept if kept is not None else make())

    def doc(self, doc: str) -> str:
        def make() -> str:
            page, t = file_page(self.source.id, doc), self.t
            body = _doc_body(self.plan, self.checkout, doc, page, self.directory_urls)
            # Out of Material's search index, as every mirror page: their passages are in the full-text
            # index (site/fulltext.py), which a query reads only in part.
            notes = [t("repo_doc_note", commit=self.plan.commit[:12])]
            if _size(repofiles.member(self.checkout, doc)) > MAX_DOC_FILE:  # a cited doc: always shown, cut at the cap
                notes.append(t("repo_doc_cut", kb=MAX_DOC_FILE // 1024))
            view = TextPage(f"{doc} · {self.source.title}", True, _links(self.source, self.plan, page, t, doc), tuple(notes), body)
            return render("text.md.j2", view=view, t=t)

        return self._laid_out(doc, make)

    def code(self, cited: CitedFile) -> str:
        def make() -> str:
            page, t = file_page(self.source.id, cited.path), self.t
            notes = [t("repo_file_note", commit=self.plan.commit[:12], n=cited.shown)]
            if cited.cut:
                notes.append(t("repo_file_cut", n=f"{cited.shown:,}"))
            if cited.ranges:
                notes.append(t("repo_cited_lines", lines=t.join([f"{a}–{b}" if a != b else str(a) for a, b in cited.ranges])))
            view = TextPage(f"{cited.path} · {self.source.title}", True, _links(self.source, self.plan, page, t, cited.path), tuple(notes),
                            _code_body(self.checkout, cited.path, cited.shown, cited.ranges))
            return render("text.md.j2", view=view, t=t)

        return self._laid_out(cited.path, make, cited)


def files(corpus: Corpus, lookup: Callable | None = None) -> dict[str, Path]:
    """The images the docs pages show, published beside them (path under docs/ -> file in the checkout)."""
    out: dict[str, Path] = {}
    for source in corpus.sources:
        if source.kind != "repo":
            continue
        record = lookup(source).record if lookup is not None else None
        found = plan(corpus, source, record)
        checkout = repofiles.checkout_dir(corpus.raw_dir(source)) if found is not None else None
        for image in found.images if found is not None and checkout is not None else ():
            member = repofiles.member(checkout, image)  # type: ignore[arg-type]
            if member is not None:
                out[image_file(source.id, image)] = member
    return out


def left_out_text(left: LeftOut, t: Labels) -> tuple[str, ...]:
    """Why some of the repository has no page, one sentence a reason, in the reader's language."""
    lines = []
    if left.over_pages:
        lines.append(t("repo_over_pages", n=left.over_pages, cap=MAX_PAGES))
    if left.over_bytes:
        lines.append(t("repo_over_bytes", n=left.over_bytes, mb=MAX_MARKDOWN_BYTES // (1024 * 1024)))
    if left.too_large:
        lines.append(t("repo_too_large", n=left.too_large, kb=MAX_DOC_FILE // 1024))
    if left.vendored:
        shown = t.join(list(left.vendored[:5])) + ("…" if len(left.vendored) > 5 else "")
        lines.append(t("repo_vendored", n=len(left.vendored), names=shown))
    if left.odd_names:
        lines.append(t("repo_odd_names", n=left.odd_names))
    if left.symlinks:
        lines.append(t("repo_symlinks", n=left.symlinks))
    if left.truncated:
        lines.append(t("repo_truncated", n=f"{repofiles.MAX_WALK:,}"))
    return tuple(lines)


def _index(source: Source, plan: Plan, t: Labels) -> str:
    page = index_page(source.id)
    docs = tuple(Link(doc, rel(page, file_page(source.id, doc))) for doc in plan.docs)
    code = tuple(Link(c.path, rel(page, file_page(source.id, c.path))) for c in plan.code)
    view = RepoIndexPage(f"{source.title} · {t('repo_docs')}", _links(source, plan, page, t), t("repo_docs_n", n=len(plan.docs)),
                         docs, code, left_out_text(plan.left_out, t))
    return render("repo_index.md.j2", view=view, t=t)


def panel_facts(corpus: Corpus, source: Source, record: Provenance, t: Labels, page: str) -> tuple[Fact, ...]:
    """The mirror panel's lines about the docs pages: how many, a link to their index, what was left out."""
    found = plan(corpus, source, record)
    if found is None:
        return ()
    count = t("repo_docs_n", n=len(found.docs)) + (t("repo_files_n", n=len(found.code)) if found.code else "")
    facts = [Fact(t("repo_docs"), (Link(count + " →", rel(page, index_page(source.id))),))]
    reasons = left_out_text(found.left_out, t)
    if reasons:
        facts.append(Fact(t("repo_left_out"), reasons, " "))
    return tuple(facts)


def file_link(corpus: Corpus, source: Source, fragment: str, label: str | None, t: Labels, page: str) -> str:
    """`[[repo-id#path:120-160]]` -> a Markdown link to that file's page at `#L120` (or to the original).

    Where the file has no page (no mirror yet, a binary file, a name the site does not publish;
    `check` reports what is wrong) the link goes to the original at the pinned commit, else to
    the source page: a strict site build must not fail on a missing page.
    """
    link = repofiles.parse_fragment(fragment)
    label = label or f"{source.title} · {link.path}{link.lines}"
    found = plan(corpus, source)
    if found is not None and found.has_page(link.path):
        in_docs = link.path in found.docs
        if in_docs or not link.start or link.start <= found.shown_lines(link.path):
            anchor = f"#L{link.start}" if link.start and not in_docs else ""
            return md.link(label, rel(page, file_page(source.id, link.path)) + anchor)
    if found is not None and found.github and repofiles.member(Path(corpus.raw_dir(source)) / repofiles.CHECKOUT, link.path):
        lines = f"#L{link.start}" + (f"-L{link.end}" if link.end != link.start else "") if link.start else ""
        return md.url_link(f"{label} ↗", found.blob(link.path) + lines)
    return md.link(label, rel(page, f"sources/{source.id}.md"))
