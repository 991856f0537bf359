"""The offline copy: the whole site as a zip that works opened from file://, linked from the home page.

A second MkDocs build of the same project, with plain `page.html` URLs (a file://
browser shows no index.html for a folder) and two additions that do what Material's
`offline` plugin does, without its one request to a CDN: the search index is also
written as a script (`search/search_index.js`, which Material's bundle loads itself
when opened from file://), and a small Web Worker stand-in of ours
(templates/offline-worker.js) lets the search worker run where browsers refuse
workers. It is switched on by `offline: true` in corpus.yaml (the home page then
links the zip); `corpus-build build` and `publish` then write `site/offline.zip`.
"""

from __future__ import annotations

import logging
import os
import shutil
import zipfile
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, nullcontext
from importlib import resources
from pathlib import Path

import yaml

from ..core.errors import SiteError
from ..render.offlinelink import COPY_FLAG, SITE_URLS_FLAG, ZIP_NAME, reveal
from . import offlinezip

_SHIM = "assets/javascripts/corpus-offline-worker.js"
_CHILD = ".corpus-build-offline.yml"  # beside mkdocs.yml, so relative paths resolve alike

_KEPT = "offline-site"  # the last copy's site, beside the zip: what the next build links from
_ZIP_TIME = (2000, 1, 1, 0, 0, 0)  # ZipInfo's epoch is 1980; any fixed time will do


# engines._unchanged_files_linked (engine name, published folder, staging folder), passed in: engines imports this module.
Linking = Callable[[str, Path, Path], AbstractContextManager[None]]


def build_offline(project: Path, target: Path, *, strict: bool = False, folder: str = "site", linking: Linking | None = None) -> Path:
    """Build the offline flavour of the project's site and zip it to `target` (files under `folder/`).

    The copy's site is kept beside the zip (`.corpus-build/offline-site`), built into a staging
    folder and swapped in whole, as the site is (engines.build): its unchanged files are then
    linked from the last copy, and its unchanged pages not built at all (pageskip.py), as the
    site's are. A killed build leaves the last copy, or none, never half of one."""
    engine = _mkdocs_api()
    from mkdocs.commands.build import build as mkdocs_build
    from mkdocs.config import load_config
    from mkdocs.exceptions import Abort, ConfigurationError, PluginError

    from ..core import swapdir

    project = Path(project)
    if not (project / "mkdocs.yml").exists():
        raise SiteError(f"{project / 'mkdocs.yml'}: no mkdocs.yml; run corpus-build from the project root or pass --project")
    child = project / _CHILD
    mkdocs_log = logging.getLogger("mkdocs")
    previous_level = mkdocs_log.level
    mkdocs_log.setLevel(logging.WARNING)
    kept = Path(os.path.abspath(target.parent / _KEPT))
    site_dir = kept.with_name(f".{kept.name}.partial")
    kept.parent.mkdir(parents=True, exist_ok=True)
    swapdir.recover(kept)
    swapdir.remove(site_dir)
    try:
        # INHERIT deep-merges mappings: `extra` keeps the project's keys and gains polyfills.
        child.write_text(yaml.safe_dump({
            "INHERIT": "mkdocs.yml", "use_directory_urls": False, "site_dir": str(site_dir),
            # The copy's home page links no zip it lacks; its other pages are the site's, links moved (site/relink.py).
            "extra": {"polyfills": [_SHIM], COPY_FLAG: True, SITE_URLS_FLAG: _site_directory_urls(project)},
        }), encoding="utf-8")
        try:
            config = load_config(str(child), strict=strict)
            with linking(engine, kept, site_dir) if linking is not None else nullcontext():
                mkdocs_build(config)
        except PluginError as exc:
            raise SiteError(str(exc)) from exc
        except (ConfigurationError, Abort) as exc:
            raise SiteError(f"the offline build failed: {exc}") from exc
        finally:
            child.unlink(missing_ok=True)
            mkdocs_log.setLevel(previous_level)
        index = site_dir / "search" / "search_index.json"
        if index.exists():
            (site_dir / "search" / "search_index.js").write_text("var __index = " + index.read_text(encoding="utf-8"), encoding="utf-8")
        shim = site_dir / _SHIM
        shim.parent.mkdir(parents=True, exist_ok=True)
        shim.write_text(resources.files("corpus_build.site").joinpath("templates/offline-worker.js").read_text(encoding="utf-8"), encoding="utf-8")
        partial = target.with_name(f".{target.name}.tmp")

        def entries() -> Iterator[tuple[zipfile.ZipInfo, Path]]:
            for path in sorted(site_dir.rglob("*")):
                if path.is_file() and not path.name.endswith(".zip"):
                    # A fixed time stamp: the same site gives the same zip, byte for byte
                    # (incremental and full builds are compared that way).
                    entry = zipfile.ZipInfo(f"{folder}/{path.relative_to(site_dir).as_posix()}", date_time=_ZIP_TIME)
                    entry.compress_type = zipfile.ZIP_DEFLATED
                    entry.external_attr = 0o644 << 16
                    yield entry, path  # read only when the last zip does not hold it from this very file (offlinezip.py)

        # What the last zip holds already is copied from it, not deflated again (offlinezip.py).
        _reused, stamps = offlinezip.write(target, partial, entries())
        os.replace(partial, target)
        offlinezip.made(target, stamps)
        swapdir.replace(site_dir, kept)
    except BaseException:
        swapdir.remove(site_dir)
        swapdir.recover(kept)
        raise
    return target


def _site_directory_urls(project: Path) -> bool | None:
    """The site's `use_directory_urls` (MkDocs' default: true), as its mkdocs.yml says; None when it cannot be read
    (the copy then renders its own pages, as the site's build will say what is wrong with the file)."""
    try:
        from mkdocs.utils.yaml import yaml_load

        with open(project / "mkdocs.yml", encoding="utf-8") as handle:
            data = yaml_load(handle)
    except Exception:  # noqa: BLE001  (any YAML or INHERIT error: the main build reports it)
        return None
    value = data.get("use_directory_urls", True) if isinstance(data, dict) else None
    return value if isinstance(value, bool) else None


def _mkdocs_api() -> str:
    """MkDocs' build API, or ProperDocs' under its name (returned); a SiteError when neither is installed (Zensical alone)."""
    try:
        import mkdocs  # noqa: F401
        return "mkdocs"
    except ImportError:
        try:
            import properdocs.replacement  # noqa: F401  (maps mkdocs.* to properdocs.*)
            return "properdocs"
        except ImportError:
            raise SiteError(
                "the offline copy (offline: true in corpus.yaml) is built with MkDocs or ProperDocs, and neither is "
                "installed here; `pip install mkdocs-material` (or properdocs), or set offline: false"
            ) from None


def publish_zip(project: Path, site_dir: Path, *, strict: bool = False, linking: Linking | None = None) -> Path:
    """Build the zip beside the project, then place it in the built site (after the main build,
    which empties site_dir)."""
    staging = Path(project) / ".corpus-build" / ZIP_NAME
    build_offline(project, staging, strict=strict, linking=linking)
    shutil.copy2(staging, Path(site_dir) / ZIP_NAME)
    reveal(site_dir)  # the home page's link, hidden while there was no zip (render/offlinelink.py)
    return Path(site_dir) / ZIP_NAME
