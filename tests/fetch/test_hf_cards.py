"""Hugging Face cards from outside: a sign-in or error page answered with status 200 in place of
the README never replaces a good mirror of the card, and a card's front matter of odd types is
read as no value, never "a bug in corpus-build"."""

from __future__ import annotations

from dataclasses import replace

import pytest

from corpus_build.core.provenance import Status, read_failure, read_provenance
from corpus_build.fetch import fetch_corpus

BASE = "/hf/Qwen/Qwen2.5-7B/raw/main"
CARD = "---\nlicense: apache-2.0\nlanguage: [en, zh]\n---\n# Qwen2.5-7B\n\n" + "Qwen2.5 is a series of large language models, with base and instruction-tuned models. " * 30
SIGN_IN = ("<!DOCTYPE html><html><head><title>Sign in</title></head><body>"
           + "<p>Sign in to access this model: you need to agree to share your contact information first.</p>" * 30 + "</body></html>")


def _corpus(server, make_corpus, card: str):
    server.add(f"{BASE}/README.md", card, content_type="text/plain; charset=utf-8")
    server.add(f"{BASE}/config.json", '{"hidden_size": 3584}', content_type="application/json")
    return make_corpus([{"id": "qwen", "url": "https://huggingface.co/Qwen/Qwen2.5-7B", "kind": "model"}])


@pytest.mark.parametrize("content_type", ["text/html; charset=utf-8", "text/plain"])
def test_a_sign_in_page_in_place_of_the_card_keeps_the_mirror(server, make_corpus, options, content_type):
    corpus = _corpus(server, make_corpus, CARD)
    [first] = fetch_corpus(corpus, options)
    assert first.status is Status.OK, first.error
    raw = corpus.raw_dir(corpus.source("qwen"))
    good = read_provenance(raw)
    card = (raw / "README.md").read_bytes()

    server.add(f"{BASE}/README.md", SIGN_IN, content_type=content_type)
    [again] = fetch_corpus(corpus, replace(options, force=True))
    assert again.status is Status.FAILED
    assert again.error.startswith(server.url(f"{BASE}/README.md") + ": ") and "an HTML page, not the model's card" in again.error, again.error
    assert read_provenance(raw) == good and (raw / "README.md").read_bytes() == card
    assert read_failure(raw).status is Status.FAILED


def test_a_card_whose_language_is_not_text_is_mirrored(server, make_corpus, options):
    corpus = _corpus(server, make_corpus, CARD.replace("[en, zh]", "[en, 1, null, {a: b}]"))
    [result] = fetch_corpus(corpus, options)
    assert result.status is Status.OK, result.error
    assert read_provenance(corpus.raw_dir(corpus.source("qwen"))).document.language == "en"
