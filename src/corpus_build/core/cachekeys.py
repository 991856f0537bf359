"""What a cache key is made of: a digest of stable parts, our own code's hash, the versions involved.

Every cache that keys by our output uses these: the build cache (site/buildcache.py), the
render's reuse of unchanged layouts (render/reuse.py) and the parsed sections
(registry/sectioncache.py). Nothing in a key is a path or a time, so CI may restore a cache.
"""

from __future__ import annotations

import functools
import hashlib
import json
import sys
from contextlib import suppress
from importlib import metadata
from pathlib import Path
from typing import Any

# The distributions whose code turns Markdown into the site's HTML.
VERSIONED = (
    "mkdocs", "properdocs", "mkdocs-material", "mkdocs-material-extensions", "Markdown",
    "pymdown-extensions", "Pygments", "Jinja2", "MarkupSafe", "jieba", "babel", "nh3",
)


def digest(*parts: Any) -> str:
    h = hashlib.sha256()
    for part in parts:
        if isinstance(part, str):  # most parts, some long (a page's Markdown): hashed as they are, length first
            data = part.encode("utf-8", "surrogatepass")
            h.update(b"s%d:" % len(data))
            h.update(data)
        else:  # JSON holds no raw NUL: the terminator is unambiguous
            h.update(b"j")
            h.update(json.dumps(part, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass"))
            h.update(b"\0")
    return h.hexdigest()


@functools.lru_cache(maxsize=1)
def code_version() -> str:
    """A hash of corpus-build's own code and templates.

    An editable install keeps its version while its code changes, so the code is hashed.
    Once per process: a key describes the code that runs, which a process does not reload.
    Every cache keyed by our output (site/buildcache.py, render/reuse.py, registry/sectioncache.py) uses it.
    """
    package = Path(__file__).parents[1]  # corpus_build/, every floor of it
    h = hashlib.sha256()
    for path in sorted(package.rglob("*")):
        if path.is_file() and path.suffix in (".py", ".html", ".md", ".j2", ".jinja"):
            h.update(str(path.relative_to(package)).encode())
            h.update(path.read_bytes())
    return h.hexdigest()


@functools.lru_cache(maxsize=1)
def versions() -> dict[str, str]:
    """The versions involved: Python, the rendering libraries, and corpus-build's own code."""
    found = {"python": sys.version}
    for name in VERSIONED:
        with suppress(metadata.PackageNotFoundError):
            found[name] = metadata.version(name)
    found["corpus_build"] = code_version()
    return found
