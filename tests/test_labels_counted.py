"""English interface strings count their nouns: "1 file", "3 files", never "file(s)"."""

from __future__ import annotations

import pytest

from corpus_build.core.errors import fill_counted
from corpus_build.render.labels import _LABELS, Labels


@pytest.mark.parametrize(("n", "expected"), [(0, "0 files or folders with"), (1, "1 file or folder with"), (2, "2 files or folders with")])
def test_each_s_follows_the_count_before_it(n, expected):
    assert Labels("en")("repo_odd_names", n=n).startswith(expected)


def test_several_counts_in_one_string():
    assert Labels("en")("thread_counts", comments=1, reviews=2, review_comments=1) == "1 comment · 2 reviews · 1 line comment"
    assert fill_counted("{who} pushed {n} commit(s)", {"who": "@a", "n": 1}) == "@a pushed 1 commit"


def test_no_label_shows_a_bare_s_in_parentheses():
    for key, words in _LABELS.items():
        if "(s)" in words["en"]:
            names = {part.split("}")[0] for part in words["en"].split("{")[1:]}
            assert "(s)" not in Labels("en")(key, **{name: 2 for name in names}), key
