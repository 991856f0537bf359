"""The registry: corpus/ as the user edits it, read and validated with file:line problems.

    reader.py        reads and validates corpus/ (every problem, with file:line): the API below
    yamlfile.py      YAML loading that keeps line numbers for every key and item
    settings.py      corpus.yaml's settings for later stages (fetch:, rewrites:, fallbacks:, watch:)
    checks.py        those settings' problems, for `check` and every load
    sectioncache.py  parsed sections kept between runs, keyed by their files' bytes
    add.py           corpus-build add: a new entry appended as text, rolled back if it does not validate
    importer.py      corpus-build import (import_formats.py: CSL-JSON, BibTeX, RIS, URL lists)
    cli.py           load_corpus(args): how every command reads the registry

The registry knows no network and no site: `add` is handed its page lookup (fetch/pagefacts.py).
"""

from .reader import (
    CHAPTER_FIELDS,
    DIGEST_FIELDS,
    PATH_FIELDS,
    SECTION_FIELDS,
    SETTINGS_FIELDS,
    SOURCE_FIELDS,
    STEP_FIELDS,
    WIKILINK,
    check,
    guess_lang,
    load,
    load_with_problems,
    read,
    split_front_matter,
)

__all__ = [
    "CHAPTER_FIELDS", "DIGEST_FIELDS", "PATH_FIELDS", "SECTION_FIELDS", "SETTINGS_FIELDS", "SOURCE_FIELDS", "STEP_FIELDS",
    "WIKILINK", "check", "guess_lang", "load", "load_with_problems", "read", "split_front_matter",
]
