"""Build the site: render the registry, then run the MkDocs build in this process."""

from __future__ import annotations

import logging
from pathlib import Path

from mkdocs.commands.build import build as mkdocs_build
from mkdocs.config import load_config
from mkdocs.exceptions import Abort, ConfigurationError, PluginError

from .errors import SiteError


def build(project: Path, *, strict: bool = False, site_dir: Path | None = None, quiet: bool = True) -> Path:
    """Run `mkdocs build` for the project's mkdocs.yml (the corpus plugin renders first)."""
    config_file = Path(project) / "mkdocs.yml"
    if not config_file.exists():
        raise SiteError(f"{config_file}: no mkdocs.yml; run corpus-build from the project root or pass --project")
    mkdocs_log = logging.getLogger("mkdocs")
    previous_level = mkdocs_log.level
    if quiet:
        mkdocs_log.setLevel(logging.WARNING)
    try:
        options = {"strict": strict}
        if site_dir is not None:
            options["site_dir"] = str(site_dir)
        config = load_config(str(config_file), **options)
        mkdocs_build(config)
    except PluginError as exc:
        raise SiteError(str(exc)) from exc
    except (ConfigurationError, Abort) as exc:
        raise SiteError(f"{config_file}: the MkDocs build failed: {exc}") from exc
    finally:
        mkdocs_log.setLevel(previous_level)
    return Path(config.site_dir)


def build_and_remember(project: Path, corpus, **options) -> Path:
    """`corpus-build build`: build, then save the snapshot the next build's home page compares with."""
    from .render import changes

    site_dir = build(project, **options)
    from . import offline

    if offline.enabled(corpus):  # corpus.yaml `offline: true`: the home page links site/offline.zip
        offline.publish_zip(project, site_dir, strict=bool(options.get("strict")))
    changes.save(corpus)
    return site_dir
