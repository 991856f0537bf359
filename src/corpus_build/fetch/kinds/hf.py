"""Hugging Face models and datasets: the card (README.md) and config.json, through HF_ENDPOINT."""

from __future__ import annotations

import asyncio
import hashlib
from urllib.parse import urlsplit

from ...core import jsondata
from ...core.errors import ContentError, HTTPStatusError
from ...core.model import Source
from ...core.provenance import Document, Extractor
from ..base import Context, Outcome, package_version

CARD = "README.md"
CONFIG = "config.json"
HF_HOSTS = ("huggingface.co", "hf-mirror.com")


def repo_path(source: Source) -> str | None:
    """`org/name` or `datasets/org/name` for a Hugging Face URL."""
    parts = urlsplit(source.url)
    if (parts.hostname or "").lower().removeprefix("www.") not in HF_HOSTS:
        return None
    segments = [s for s in parts.path.split("/") if s]
    if segments[:1] == ["datasets"] and len(segments) >= 3:
        return "/".join(segments[:3])
    if len(segments) >= 2 and segments[0] not in ("docs", "blog", "papers", "spaces", "learn", "datasets"):
        return "/".join(segments[:2])
    return None


def _front_matter(card: str) -> dict:
    """The YAML header of a card (license, language, tags…), {} when absent or broken."""
    import yaml

    if not card.startswith("---"):
        return {}
    end = card.find("\n---", 3)
    try:
        data = yaml.safe_load(card[3:end]) if end > 0 else None
    except yaml.YAMLError:
        return {}
    return data if isinstance(data, dict) else {}


class HuggingFaceKind:
    name = "huggingface"

    def matches(self, source: Source) -> bool:
        return source.kind in ("model", "dataset") and repo_path(source) is not None

    async def fetch(self, ctx: Context) -> Outcome:
        path = repo_path(ctx.source)
        if path is None:  # matches() let only Hugging Face repository URLs through
            raise ContentError("not a Hugging Face model or dataset URL (expected huggingface.co/ORG/NAME or huggingface.co/datasets/ORG/NAME)", url=ctx.source.url)
        base = f"{ctx.options.hf_endpoint}/{path}"
        card = await ctx.http.download(f"{base}/raw/main/README.md", ctx.stage / CARD, ctx.log, accept="text/markdown,text/plain,*/*", on_bytes=ctx.on_bytes)
        exchanges = card.exchanges
        config_sha = ""
        if not path.startswith("datasets/"):
            try:
                config = await ctx.http.download(f"{base}/raw/main/config.json", ctx.stage / CONFIG, ctx.log, accept="application/json")
                exchanges += config.exchanges
                config_sha = config.sha256
                try:
                    jsondata.loads(await asyncio.to_thread((ctx.stage / CONFIG).read_text, encoding="utf-8"))
                except ValueError as exc:
                    raise ContentError("config.json is not valid JSON", url=config.final_url) from exc
            except HTTPStatusError as exc:
                if exc.status != 404:  # many models (GGUF, adapters) have no config.json
                    raise
        combined = hashlib.sha256(f"{card.sha256} {config_sha}".encode()).hexdigest()
        if ctx.same_as_before(combined):
            return Outcome(unchanged=True, exchanges=exchanges)
        text = await asyncio.to_thread((ctx.stage / CARD).read_text, encoding="utf-8", errors="replace")
        if text.lstrip()[:20].lower().startswith(("<!doctype html", "<html")):
            # A sign-in, consent or error page answered with 200 (a gated model, a mirror's HF_ENDPOINT):
            # taken as the card, it would replace the real one.
            raise ContentError("the card came back as an HTML page, not the model's card (a sign-in or error page?); the previous mirror is kept",
                               url=card.final_url)
        meta = _front_matter(text)
        language = meta.get("language")
        if isinstance(language, str):
            language = [language]
        # (the card's author writes the front matter: a number or a mapping there is no language)
        languages = [x for x in language if isinstance(x, str)] if isinstance(language, list) else []
        return Outcome.from_download(
            card, CARD, text_file=CARD, sha256=combined, exchanges=exchanges,
            document=Document(title=path, language=", ".join(languages)),
            extractor=Extractor("huggingface", {"httpx": package_version("httpx")}),
        )
