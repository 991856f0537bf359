"""core/mdinline.py: the inline step skips text no pattern can match, and converts as Python-Markdown does."""

from __future__ import annotations

import random

import markdown
import pytest

from corpus_build.core import mdinline, mdtext
from corpus_build.render.mirrortext import _converter

# Pieces that reach every inline pattern, alone and next to plain prose; a trigger at a run's
# very edge; delimiter runs that stay unpaired across runs (the emphasis processor keeps state).
PIECES = [
    "plain prose with no markup at all, only words and a full stop.", "中文段落，没有任何标记。", "# Title", "## Same",
    "*em* and **strong** and ***both***", "_under_ and __double__ and snake_case_name", "a * lone star and a lone _ underscore",
    "**unclosed strong", "closing** only", "`code` and ``double `tick``", "\\`not code\\` and \\\\`code after escapes`",
    "\\*escaped\\* \\[x\\]", "[link](http://x.org) and [ref][r]\n\n[r]: http://y.org", "![img](images/abc.png)", "[short] ref",
    "<http://auto.link/x> and <me@example.org>", "text with &amp; and &lt; and &#169; and &#x1F600;", "line one  \nline two",
    "trailing two spaces  ", "term\n:   definition *em*", "| a | *b* |\n|---|---|\n| `1` | 2 |", "```python\nx = 1 < 2 * 3\n```",
    "    indented *code*", "> quote with _em_", "1. one\n2. two **bold**", "- a\n- [b](c)", "Setext *x*\n======", "<div>raw</div>",
    "!bang and ! [not an image]", "x*y*z and x_y_z", "***", "* * *", "emoji 😀 and combining é",
]


def _texts(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    return ["\n\n".join(rng.choice(PIECES) for _ in range(rng.randint(1, 10))) for _ in range(count)]


def _new(extensions: list, configs: dict, *, skipping: bool) -> markdown.Markdown:
    md = markdown.Markdown(extensions=extensions, extension_configs=configs, output_format="html")
    if skipping:
        assert mdinline.install(md)
    return md


@pytest.mark.parametrize("escaped", [True, False])
def test_skipping_converts_every_text_as_python_markdown_does(escaped):
    plain = _new(mdtext.TEXT_EXTENSIONS, mdtext.TEXT_EXTENSION_CONFIGS, skipping=False)
    skipping = _new(mdtext.TEXT_EXTENSIONS, mdtext.TEXT_EXTENSION_CONFIGS, skipping=True)
    for text in _texts(11, 400):
        source = mdtext.escape_markup(text) if escaped else text
        assert skipping.reset().convert(source) == plain.reset().convert(source), source


def test_the_mirror_text_converter_scans_plain_prose_with_no_inline_pattern():
    converter = _converter()
    scans = []
    for pattern in converter.inlinePatterns:
        compiled = pattern.getCompiledRegExp()

        class Counting:
            def __init__(self, compiled):
                self.compiled = compiled

            def finditer(self, *args):
                scans.append(1)
                return self.compiled.finditer(*args)

        pattern.compiled_re = Counting(compiled)
    try:
        html = converter.convert("Words and more words, in English.\n\n中文的段落。\n\n## A heading")
        assert scans == []
        assert "<p>Words and more words, in English.</p>" in html
        converter.reset().convert("one *em* here")
        assert scans  # a run with a trigger goes through the patterns
    finally:
        for pattern in converter.inlinePatterns:
            pattern.compiled_re = pattern.compiled_re.compiled
        converter.reset()


def test_a_converter_with_an_inline_pattern_not_known_here_is_left_as_it_is():
    md = markdown.Markdown(extensions=["smarty", "footnotes"])
    step = md.treeprocessors["inline"]
    assert not mdinline.install(md)
    assert md.treeprocessors["inline"] is step
