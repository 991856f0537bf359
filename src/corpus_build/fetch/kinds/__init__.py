"""The kinds of source the fetch stage knows, in the order they are tried (first match wins).

Order matters: the specific kinds (GitHub threads, Hugging Face, repositories,
papers) must come before HTML, which takes anything a server sends as a page
(docs, articles, courses, video landing pages, discussions).
"""

from __future__ import annotations

from ...core.model import Source
from ..base import Kind
from .git import RepoKind
from .github import GitHubThreadKind
from .hf import HuggingFaceKind
from .html import HtmlKind
from .pdf import PaperKind

KINDS: tuple[Kind, ...] = (GitHubThreadKind(), HuggingFaceKind(), RepoKind(), PaperKind(), HtmlKind())


def kind_for(source: Source) -> Kind:
    for kind in KINDS:
        if kind.matches(source):
            return kind
    raise AssertionError("HtmlKind matches everything")
