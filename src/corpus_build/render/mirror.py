"""What the site says about each source's mirror (the fetch stage's output under corpus/<section>/raw/<id>/)."""

from __future__ import annotations

from ..model import Corpus, Source
from . import markdown as md
from .labels import Labels


def panel(corpus: Corpus, source: Source, t: Labels, page: str) -> str:
    """The mirror section of a source page."""
    return f'!!! info "{t("not_mirrored")}"\n\n    {t("not_mirrored_body", id=source.id)}\n\n'


def status_page(corpus: Corpus, t: Labels) -> str:
    """Every source's mirror state."""
    rows = [[md.link(s.title, f"sources/{s.id}.md"), f"`{s.id}`", t("never_fetched")] for s in corpus.sources]
    out = md.front_matter(title=t("status")) + f"# {t('status')}\n\n"
    out += f"{t('never_fetched')}: {len(rows)}\n\n"
    return out + md.table([t("title"), t("id"), t("state")], rows)


def extra_pages(corpus: Corpus, t: Labels) -> dict[str, str]:
    """Pages beyond the source page, such as extracted text (path under docs/ -> Markdown)."""
    return {}
