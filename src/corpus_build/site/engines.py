"""Build the site: render the registry, then run a site generator that reads `mkdocs.yml`.

Three engines, tried in this order when none is named:

    mkdocs      MkDocs 1.x, in this process; the `corpus` plugin renders and supplies the nav
    properdocs  ProperDocs, the maintained MkDocs 1.x fork: same API under another name, so
                the same plugin runs (its `properdocs.replacement` maps `mkdocs.*` imports)
    zensical    Zensical, run as a command: it runs no MkDocs plugins, so `render_for_engines`
                writes what the plugin supplies (nav, site name, language) into
                `mkdocs.generated.yml`, a config that INHERITs mkdocs.yml

No engine is imported when this module is: `corpus-build check` and friends start
without MkDocs, and work where it is not installed. Every engine builds into a
staging folder; the site replaces the previous one only when every generated page
is in it (`SiteError` otherwise), so a build that silently dropped the corpus never
publishes a bare site.
"""

from __future__ import annotations

import filecmp
import hashlib
import importlib.util
import logging
import os
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import yaml

from ..core import filestamp, swapdir
from ..core.errors import SiteError
from ..core.model import Corpus
from ..core.provenance import write_atomic
from . import sitedir

ENGINES = ("mkdocs", "properdocs", "zensical")
GENERATED_CONFIG = "mkdocs.generated.yml"  # for engines without plugins (zensical)
# What a reader of a site built by an engine without plugins does not get (README, "Site engines").
LOSSES: dict[str, tuple[str, ...]] = {
    "zensical": (
        # build tunes search and runs the allow-list pass after Zensical (site/zensical.py); what is left:
        "search ranking (Zensical's search has no weights): metadata counts as much as an annotation, and listing pages "
        "or longer names (tilelang-ascend) may rank above the source a query names",
        "the tags index data (tags.json) and the error banner of a live preview",
    ),
}
# Template overrides shipped with the package (the feed links, the tag listing's fragment).
OVERRIDES_DIR = Path(__file__).parent / "overrides"


def installed_engines() -> list[str]:
    found = []
    for name in ENGINES:
        try:
            present = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):  # properdocs aliases `mkdocs` once imported
            present = name in sys.modules
        if present:
            found.append(name)
    return found


def pick_engine(name: str | None) -> str:
    installed = installed_engines()
    if name:
        if name not in installed:
            raise SiteError(f"the site engine '{name}' is not installed; `pip install {name}`, or choose one of: {', '.join(installed) or 'none installed'}")
        return name
    if not installed:
        raise SiteError(f"no site engine is installed; `pip install mkdocs-material` (or one of {', '.join(ENGINES)})")
    return installed[0]


def render_for_engines(project: Path, corpus: Corpus) -> Any:
    """`corpus-build render`: the pages into docs/, and what the plugin supplies into mkdocs.generated.yml."""
    from .. import render
    from ..render import mirrortext, reuse

    docs = Path(project) / "docs"
    for attempt in range(1, MIRROR_TRIES + 1):
        # A fetch swapping a mirror while render reads it pairs one capture's record with the other's
        # text (as in _build_from_still_mirrors): marked before, checked after, rendered again.
        marks = mirrortext.mirror_marks(corpus)
        with mirrortext.states_once() as read:
            result = render.render(corpus, docs)
        rewritten = mirrortext.moved_mirrors(marks)
        if rewritten:
            reuse.forget_inputs(docs)
        moved = mirrortext.recaptured(marks, rewritten, read)
        if not moved:
            break
        names = mirrortext.moved_names(moved)
        if attempt == MIRROR_TRIES:
            raise SiteError(
                f"the mirrors of {len(moved)} source(s) ({names}) changed while docs/ was rendered, {MIRROR_TRIES} times "
                "(a `corpus-build fetch` or `watch` running?): pages in docs/ may not match them (a record read before it was rewritten, or one capture's record beside another's text); "
                "render again once it is done")
        print(f"the mirrors of {len(moved)} source(s) ({names}) changed during the render: rendering again", file=sys.stderr)
    write_generated_config(project, corpus)
    return result


def theme_extra(corpus: Corpus) -> dict[str, Any]:
    """`extra` keys the theme's templates read (overrides/): their words in the reader's language."""
    from ..render.labels import Labels
    from ..render.sanitize import theme_text

    words = Labels(corpus.settings.ui_lang)
    return {"corpus_words": {key: theme_text(value) for key, value in words.theme_words().items()}}


def write_generated_config(project: Path, corpus: Corpus, *, site_dir: str | None = None) -> Path:
    """A config inheriting mkdocs.yml with the plugin's contributions, for engines that run no plugins."""
    from .. import render
    from ..render.sanitize import theme_text

    overrides: dict[str, Any] = {
        "INHERIT": "mkdocs.yml",
        # Escaped as the plugin escapes it: the theme prints the site name unescaped, and an
        # engine without plugins has no allow-list pass behind it.
        "site_name": theme_text(corpus.settings.site_name),
        "theme": {"language": corpus.settings.ui_lang},
        "nav": render.nav(corpus),
        # The theme's words (404 page, footer) in the reader's language, as the plugin gives them,
        # and the footer's credit: these engines build the site with their own theme code.
        "extra": {**theme_extra(corpus), "corpus_generator": {"name": "Zensical", "url": "https://zensical.org/"}},
    }
    # What the plugin adds to every build (site/plugin.py, _add_theme): the package's templates
    # and its stylesheet and scripts. INHERIT replaces lists, so mkdocs.yml's own entries are kept.
    mine = _read_config(project / "mkdocs.yml")
    theme = mine.get("theme")
    theme = theme if isinstance(theme, dict) else {}
    if not theme.get("custom_dir"):  # one custom_dir only: the project's wins
        overrides["theme"]["custom_dir"] = str(OVERRIDES_DIR)
    for key, ours in (("extra_css", render.STYLESHEETS), ("extra_javascript", render.SCRIPTS)):
        listed = [item for item in mine.get(key) or [] if isinstance(item, str)]
        overrides[key] = listed + [path for path in ours if path not in listed]
    if site_dir:
        overrides["site_dir"] = site_dir
    from .hosting import resolve_site_url

    # The plugin sets the site's address from corpus.yaml or CORPUS_BUILD_SITE_URL: without it
    # here, a Zensical site has an empty sitemap and no canonical links.
    site_url = resolve_site_url(corpus.settings.site_url, str(mine.get("site_url") or ""), os.environ)
    if site_url:
        overrides["site_url"] = site_url
    text = (
        "# Generated by `corpus-build render` from corpus/ for engines that run no MkDocs plugins\n"
        "# (Zensical): the navigation, site name and language the `corpus` plugin supplies.\n"
        "# Do not edit: change mkdocs.yml or the registry.\n"
        + yaml.safe_dump(overrides, allow_unicode=True, sort_keys=False)
    )
    target = Path(project) / GENERATED_CONFIG
    if not target.is_file() or target.is_symlink() or target.read_text(encoding="utf-8") != text:
        write_atomic(target, text)
    return target


def build(
    project: Path,
    *,
    strict: bool = False,
    site_dir: Path | None = None,
    quiet: bool = True,
    engine: str | None = None,
    corpus: Corpus | None = None,
    before_swap: Callable[[Path], None] | None = None,
) -> Path:
    """Build the project's site with an engine (default: the first installed); returns the site folder.

    The site is built into a staging folder beside it; `before_swap(staging)` adds to it
    (the offline zip), then it replaces the published site in one step.
    """
    project = Path(project).resolve()
    config_file = project / "mkdocs.yml"
    if not config_file.exists():
        raise SiteError(f"{config_file}: no mkdocs.yml; run corpus-build from the project root or pass --project DIR")
    if not config_file.is_file():  # a FIFO would hold the build forever, a device feed it without end
        raise SiteError(f"{config_file}: not a regular file (a folder, a named pipe or a device); mkdocs.yml must be an ordinary file")
    from .hosting import resolve_site_url

    resolve_site_url("", None, os.environ)  # a bad CORPUS_BUILD_SITE_URL: one clear error before the build starts
    name = pick_engine(engine)
    docs_dir = project / str(_read_config(config_file).get("docs_dir") or "docs")
    # docs/ holds only generated pages, so a new project or a fresh clone may not have it yet;
    # MkDocs refuses a config whose docs_dir is missing before any plugin runs.
    docs_dir.mkdir(parents=True, exist_ok=True)
    if site_dir:
        final, origin = Path(os.path.abspath(site_dir)), "--site-dir"
    else:
        final, origin = Path(os.path.abspath(project / _configured_site_dir(config_file))), "mkdocs.yml site_dir:"
    sitedir.check(final, project=project, docs_dir=docs_dir, corpus_dir=project / "corpus", origin=origin)
    staging = final.with_name(f".{final.name}.partial")
    spare = final.with_name(f".{final.name}.folders")  # the last old site's folders, emptied (core/swapdir.py)
    with sitedir.build_lock(project):
        # What a killed build left: a parked old site is put back, a staging folder removed.
        swapdir.recover(final)
        swapdir.remove(staging)
        try:
            if name == "zensical":
                swapdir.remove(spare)
                _build_zensical(project, staging, strict=strict, quiet=quiet, corpus=corpus)
            else:
                # The folders the last site had are made once, not at every build (swapdir.take_folders).
                folders = swapdir.take_folders(spare, staging)
                if folders is not None:
                    sitedir.mark(staging)  # a site's folder (the plugin's check of site_dir), as it is once built
                with _unchanged_files_linked(name, final, staging), _folders_kept(name, staging if folders is not None else None):
                    _build_mkdocs_api(name, config_file, staging, strict=strict, quiet=quiet)
                if folders:
                    swapdir.prune(staging, folders)  # those the new site has no file in: as a build from nothing
            _check_complete(project, staging, corpus)
            if before_swap is not None:
                before_swap(staging)
            sitedir.mark(staging)
            _relink_rewritten(final, staging)
            # The old site stays whole until the new one has taken its name (core/swapdir.py).
            swapdir.replace(staging, final, spare=None if name == "zensical" else spare)
        except BaseException:
            swapdir.remove(staging)
            swapdir.recover(final)
            raise
    return final


@contextmanager
def _unchanged_files_linked(name: str, published: Path, staging: Path) -> Iterator[None]:
    """While the engine writes the staging folder, a file byte-identical to the published one is linked, not written.

    After a one-note edit at 5,000 sources every page is still written afresh (the site
    is swapped whole, for atomicity) and the old site's 5,000 files deleted: that
    writing and deleting was a quarter of the rebuild's CPU, most of it in the kernel.
    A hard link of the published file costs neither: no data is written, and deleting
    the old site then frees nothing. The bytes are compared before linking, so the
    staging folder holds exactly what the engine wrote, and nothing is ever written
    through a link: a file written again is unlinked first. Only MkDocs' own writers
    are wrapped (`utils.write_file` for pages and the index, `utils.copy_file` for
    static files); a file written any other way is written as it always was. Linking
    needs both folders on one file system; anywhere it fails, the file is written.
    """
    global _BUILDING
    utils: Any = importlib.import_module(f"{name}.utils")
    write_file, copy_file = utils.write_file, utils.copy_file
    if not published.is_dir():
        yield
        return
    _BUILDING = (published, staging)
    root = str(staging) + os.sep

    def twin(output_path: str, size: int) -> str | None:
        """The published file at the same place with `size` bytes (a regular file, not a link's target)."""
        if not output_path.startswith(root):
            return None
        old = os.path.join(published, output_path[len(root):])
        return old if _shareable(old, size) is not None else None

    def linked(output_path: str, size: Callable[[], int], same: Callable[[str], bool]) -> bool:
        """Link the published file at output_path's place when `same` says it holds its bytes; True when linked."""
        try:
            old = None if os.path.lexists(output_path) else twin(output_path, size())
            if old is None or not same(old):
                return False
            os.makedirs(os.path.dirname(output_path), exist_ok=True)
            os.link(old, output_path, follow_symlinks=False)
            return True
        except OSError:
            return False

    def fresh(output_path: str) -> None:
        with suppress(FileNotFoundError, IsADirectoryError):
            os.unlink(output_path)  # never write through a link made earlier in this build

    def linked_write(content: bytes, output_path: str) -> None:
        if not linked(output_path, lambda: len(content), lambda old: Path(old).read_bytes() == content):
            fresh(output_path)
            write_file(content, output_path)

    def linked_copy(source_path: str, output_path: str) -> None:
        if not os.path.isdir(output_path):  # MkDocs' copy_file also takes a folder to copy into
            if linked(output_path, lambda: os.path.getsize(source_path), lambda old: filecmp.cmp(source_path, old, shallow=False)):
                return
            fresh(output_path)
        copy_file(source_path, output_path)

    utils.write_file, utils.copy_file = linked_write, linked_copy
    try:
        yield
    finally:
        utils.write_file, utils.copy_file = write_file, copy_file
        _BUILDING = None


@contextmanager
def _folders_kept(name: str, staging: Path | None) -> Iterator[None]:
    """MkDocs empties its site folder before it builds: not `staging` when it holds the last site's
    folders, emptied of every file (swapdir.take_folders), which are there to be built into."""
    if staging is None:
        yield
        return
    utils: Any = importlib.import_module(f"{name}.utils")
    clean_directory = utils.clean_directory
    kept = os.path.abspath(staging)

    def clean_unless_kept(directory: str) -> None:
        if os.path.abspath(directory) != kept:
            clean_directory(directory)

    utils.clean_directory = clean_unless_kept
    try:
        yield
    finally:
        utils.clean_directory = clean_directory


# (published site, staging folder) while `_unchanged_files_linked` wraps a build.
_BUILDING: tuple[Path, Path] | None = None


def _shareable(old: str | Path, size: int) -> os.stat_result | None:
    """A published file that may be hard-linked into the new site (its lstat), else None: a regular
    file of `size` bytes with one name only (a file linked from elsewhere, planted in the old site,
    is never shared)."""
    try:
        info = os.lstat(old)
    except OSError:
        return None
    return info if stat.S_ISREG(info.st_mode) and info.st_nlink == 1 and info.st_size == size else None


def link_published(path: Path, data: bytes) -> bool:
    """Hard-link the published site's file at `path`'s place (in the staging folder of the build
    under way) when it holds `data`, as MkDocs' own writes are linked above; False: write it."""
    twin = published_twin(path)
    if twin is None or _shareable(twin, len(data)) is None:
        return False
    try:
        if twin.read_bytes() != data:
            return False
        os.link(twin, path, follow_symlinks=False)
        return True
    except OSError:
        return False


def link_published_as(path: Path, size: int, sha1: str, twin: Path | None = None, stamp: Any = None) -> bool:
    """link_published for a file known by its size and sha1 (the full-text index's unchanged files,
    ftindex.py): the same check, without making the bytes first. `twin`: its published_twin, when known.
    `stamp`: [inode, mtime_ns, bytes] the last build recorded for the file it wrote with that sha1; a twin
    that still has them is that very file, untouched since, and is linked without reading it back (at
    1,000 sources, re-reading and hashing the ~5,000 unchanged passage files was a twentieth of a rebuild)."""
    twin = twin or published_twin(path)
    if twin is None:
        return False
    info = _shareable(twin, size)  # (one lstat: the test and the stamp's)
    if info is None:
        return False
    try:
        stamped = isinstance(stamp, (list, tuple)) and [info.st_ino, info.st_mtime_ns, info.st_size] == list(stamp)
        if not stamped and hashlib.sha1(twin.read_bytes()).hexdigest() != sha1:
            return False
        os.link(twin, path, follow_symlinks=False)
        return True
    except OSError:
        return False


def published_twin(path: Path) -> Path | None:
    """Where `path`, in the staging folder of the build under way, is in the published site (None outside such a build)."""
    if _BUILDING is None:
        return None
    published, staging = _BUILDING
    try:
        return published / Path(path).resolve().relative_to(staging)
    except ValueError:
        return None


class _TolerantLoader(yaml.SafeLoader):
    """mkdocs.yml's plain values; its `!!python/…` and `!ENV` tags read as nothing (never run)."""


_TolerantLoader.add_multi_constructor("", lambda loader, suffix, node: None)


def _read_config(config_file: Path) -> dict[str, Any]:
    if config_file.exists() and not config_file.is_file():  # read before build() checks it
        raise SiteError(f"{config_file}: not a regular file (a folder, a named pipe or a device); mkdocs.yml must be an ordinary file")
    try:
        data = yaml.load(config_file.read_text(encoding="utf-8"), Loader=_TolerantLoader)
    except (OSError, yaml.YAMLError):
        return {}  # the engine reads it next and says what is wrong, with the line
    except RecursionError:  # the engine's own reader would die the same way, with a traceback
        raise SiteError(f"{config_file}: nested too deeply for a YAML reader (thousands of levels of [ or {{); simplify the file") from None
    return data if isinstance(data, dict) else {}


def _configured_site_dir(config_file: Path) -> str:
    """mkdocs.yml's `site_dir` (its `!!python` tags read as nothing: see _TolerantLoader)."""
    return str(_read_config(config_file).get("site_dir") or "site")


def _build_mkdocs_api(name: str, config_file: Path, site_dir: Path, *, strict: bool, quiet: bool) -> None:
    """MkDocs or ProperDocs, in this process (the `corpus` plugin renders first)."""
    if name == "properdocs":
        import properdocs.replacement  # noqa: F401  (maps mkdocs.* to properdocs.* for the plugin and Material)
    build_module = importlib.import_module(f"{name}.commands.build")
    config_module = importlib.import_module(f"{name}.config")
    exceptions = importlib.import_module(f"{name}.exceptions")
    log = logging.getLogger(name)
    previous_level = log.level
    if quiet:
        log.setLevel(logging.WARNING)
    try:
        config = config_module.load_config(str(config_file), strict=strict, site_dir=str(site_dir))
        build_module.build(config)
    except exceptions.PluginError as exc:
        raise SiteError(str(exc)) from exc
    except (exceptions.ConfigurationError, exceptions.Abort) as exc:
        raise SiteError(f"{config_file}: the {name} build failed: {exc}") from exc
    finally:
        log.setLevel(previous_level)


def _build_zensical(project: Path, site_dir: Path, *, strict: bool, quiet: bool, corpus: Corpus | None) -> None:
    """Zensical runs no plugins: render here, then build from the generated config."""
    from .. import registry, render

    corpus = corpus or registry.load(project / "corpus")
    render.render(corpus, project / "docs")
    config = write_generated_config(project, corpus, site_dir=str(site_dir.relative_to(project)) if site_dir.is_relative_to(project) else str(site_dir))
    executable = Path(sys.executable).with_name("zensical")
    command = [str(executable) if executable.exists() else "zensical", "build", "--clean", "-f", str(config)]
    if strict:
        command.append("--strict")
    try:
        result = subprocess.run(command, cwd=project, capture_output=True, text=True, timeout=1800)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SiteError(f"zensical could not run: {exc}") from exc
    finally:
        # The published config must not pin the staging folder for the next manual `zensical build`.
        write_generated_config(project, corpus)
    if not quiet:
        sys.stderr.write(result.stdout + result.stderr)
    if result.returncode != 0:
        raise SiteError(f"the zensical build failed (exit {result.returncode}):\n{(result.stderr or result.stdout).strip()[-2000:]}")
    from . import zensical  # the plugin's steps that need no MkDocs: search tuning, the allow-list

    zensical.finish(project, site_dir, corpus, _read_config(project / "mkdocs.yml"))


# Files every build writes by other means than MkDocs' writers (so `_unchanged_files_linked` does not
# see them): the sitemap (gzip, by MkDocs), Material's tags.json, ours after the engine (the portable
# 404 page, search_config.json, the site's marker). Their bytes rarely change.
REWRITTEN = ("404.html", "sitemap.xml.gz", "tags.json", "search/search_config.json", sitedir.MARKER)


def _relink_rewritten(published: Path, staging: Path) -> None:
    """Each of REWRITTEN that the build wrote with the bytes the published site has: the published
    file linked in its place (what a site's reader or a sync tool sees as unchanged, as every other
    unchanged file is). Replaced under a new name, so the staging folder never lacks the file."""
    for name in REWRITTEN:
        mine, theirs = staging / name, published / name
        try:
            info = os.lstat(mine)
            if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1 or _shareable(theirs, info.st_size) is None:
                continue
            if mine.read_bytes() != theirs.read_bytes():
                continue
            spare = mine.with_name(f".{mine.name}.link")
            with suppress(FileNotFoundError):
                os.unlink(spare)
            os.link(theirs, spare, follow_symlinks=False)
        except OSError:
            continue  # written, as before: nothing lost
        try:
            os.replace(spare, mine)
        except OSError:
            with suppress(OSError):
                os.unlink(spare)


def _check_complete(project: Path, site_dir: Path, corpus: Corpus | None) -> None:
    """Refuse a site without the generated pages (an engine that ignored the registry)."""
    import json

    from ..render import MANIFEST

    try:  # what render wrote, without rendering again
        generated = json.loads((project / "docs" / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        from .. import registry
        from ..render import build_pages

        generated = list(build_pages(corpus or registry.load(project / "corpus")))
    expected = [p for p in generated if p.endswith(".md")]
    missing = []
    for page in expected:
        stem = page[: -len(".md")]
        html = "index.html" if stem == "index" else (f"{stem[: -len('/index')]}/index.html" if stem.endswith("/index") else f"{stem}/index.html")
        if not (site_dir / html).is_file() and not (site_dir / f"{stem}.html").is_file():
            missing.append(html)
    if missing:
        shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
        raise SiteError(
            f"the built site lacks {len(missing)} of the {len(expected)} generated pages ({shown}); "
            "nothing was published. Run `corpus-build render` first, or build with another --engine"
        )


MIRROR_TRIES = 3  # builds in a row that may find a mirror changed under them before `build` gives up
_GUARDED = False  # a build of _build_from_still_mirrors is running: it checks the mirrors itself


def mirrors_guarded() -> bool:
    """Whether the running build's mirrors are checked by `corpus-build build` (the plugin need not)."""
    return _GUARDED


class _MirrorsMoved(Exception):
    """A mirror the build read was replaced or re-recorded before the site was published."""

    def __init__(self, folders: list[str]):
        super().__init__(f"{len(folders)} mirror(s) changed during the build")
        self.folders = folders


def _build_from_still_mirrors(project: Path, corpus: Corpus, before_swap: Callable[[Path], None] | None,
                              options: dict[str, Any], since: int) -> tuple[Path, list, str]:
    """`build`, published only when no mirror changed while it read them; (site, warnings, inputs before).

    A fetch may swap a mirror while the build reads it: render reads its record, then its text
    and files, and would show one capture's record beside the other's text, or find a file of the
    old capture gone (the fetch removes it right after its swap). So the mirrors are marked before
    the build reads them and checked before the site is swapped in; a change builds again from
    what is there now, up to MIRROR_TRIES times, and then the old site stays.
    """
    from ..render import changes, mirrortext, reuse
    from . import uptodate

    global _GUARDED
    for attempt in range(1, MIRROR_TRIES + 1):
        inputs_before = uptodate.inputs_state(project, since)  # an edit saved during the build must not be stamped as built
        marks = mirrortext.mirror_marks(corpus)
        read: mirrortext.Read = {}  # each mirror's state as this build's render read it

        def moved_now(marks: dict = marks, read: mirrortext.Read = read) -> list[str]:
            rewritten = mirrortext.moved_mirrors(marks)
            if rewritten:  # pages the render made from a record before its change, keyed by its files after: not reused
                reuse.forget_inputs(project / str(_read_config(project / "mkdocs.yml").get("docs_dir") or "docs"))
            return mirrortext.recaptured(marks, rewritten, read)  # a record only re-checked (an unchanged fetch) is shown as read

        def publish(staging: Path) -> None:
            if before_swap is not None:
                before_swap(staging)
            moved = moved_now()
            if moved:
                raise _MirrorsMoved(moved)

        try:
            _GUARDED = True  # the plugin leaves the check to this loop (plugin._mirrors_still)
            with mirrortext.states_once(read):
                with uptodate.warnings_kept() as warnings:
                    site_dir = build(project, corpus=corpus, before_swap=publish, **options)
                changes.save(corpus)
            return site_dir, warnings, inputs_before
        except _MirrorsMoved as exc:
            moved = exc.folders
        except (OSError, SiteError):  # a file gone, say: the change's doing when a mirror changed
            moved = moved_now()
            if not moved:
                raise
        finally:
            _GUARDED = False
        names = mirrortext.moved_names(moved)
        if attempt == MIRROR_TRIES:
            raise SiteError(
                f"the mirrors of {len(moved)} source(s) ({names}) changed while the site was built, {MIRROR_TRIES} times "
                "(a `corpus-build fetch` or `watch` running?): the site was left as it was; build again once it is done"
            ) from None
        print(f"the mirrors of {len(moved)} source(s) ({names}) changed during the build: building again", file=sys.stderr)
    raise AssertionError("unreachable")


def put_back_site(project: Path, site_dir: Path | None = None) -> None:
    """The site a build killed mid-swap left parked, back under its name (sitedir.put_back): the
    folder `--site-dir` names, else mkdocs.yml's. First thing in `build` and `publish`, before the
    registry is read: one that stops on a registry error must not leave the site missing."""
    project = Path(project).resolve()
    config_file = project / "mkdocs.yml"
    if site_dir is None and not config_file.is_file():
        return
    target = Path(os.path.abspath(site_dir)) if site_dir else Path(os.path.abspath(project / _configured_site_dir(config_file)))
    sitedir.put_back(project, target)


def build_and_remember(project: Path, corpus: Corpus, **options: Any) -> Path:
    """`corpus-build build`: build, then save the snapshot the next build's home page compares with."""
    from ..render.offlinelink import enabled as offline_enabled
    from . import offline, uptodate

    def add_offline_zip(staging: Path) -> None:
        """corpus.yaml `offline: true`: the home page links offline.zip, so it is in the site before the site is published."""
        try:
            # The copy is kept and swapped as the site is, its unchanged files linked from the last copy.
            offline.publish_zip(project, staging, strict=bool(options.get("strict")), linking=_unchanged_files_linked)
        except SiteError as exc:
            if options.get("strict") or options.get("engine") != "zensical":
                raise
            # The site itself is built (by Zensical); without MkDocs there is no offline flavour to zip.
            print(f"warning: {exc}; the site was built without site/offline.zip", file=sys.stderr)

    project = Path(project).resolve()
    config_file = project / "mkdocs.yml"
    site_option = options.get("site_dir")
    target = Path(os.path.abspath(site_option)) if site_option else Path(os.path.abspath(project / _configured_site_dir(config_file)))
    # What decides the bytes built, besides the files (site/uptodate.py).
    stamp_options = {"engine": pick_engine(options.get("engine")), "strict": bool(options.get("strict"))}
    last = uptodate.unchanged(project, target, stamp_options) if config_file.is_file() else None
    if last is not None:
        uptodate.replay(last)
        print(f"nothing changed since the last build ({last.get('built_at', '?')} UTC): {target} is up to date", file=sys.stderr)
        return target
    uptodate.forget(project)  # a build that fails leaves no stamp: the next one builds
    since = filestamp.clock(project / ".corpus-build")  # inputs stamped from now on are known by their bytes
    zip_hook = add_offline_zip if offline_enabled(corpus) else None
    site_dir, warnings, inputs_before = _build_from_still_mirrors(project, corpus, zip_hook, options, since)
    # The home page's change list is the same on the next build when nothing changed (render/changes.py
    # keeps the snapshot before the last change), so a stamp never has to wait for the list to empty.
    uptodate.record(project, site_dir, stamp_options, corpus, home_unchanged=True, warnings=warnings, since=since,
                    inputs_before=inputs_before)
    return site_dir
