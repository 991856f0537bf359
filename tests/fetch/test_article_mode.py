"""Article mode (issue 35, fetch/article.py): a page that declares itself an article keeps the run
of its prose and leaves out what lies before and after it; a page that does not is read as before.

Every page is written here; each test named below failed before fetch/article.py.
"""

from __future__ import annotations

import lxml.html

from corpus_build.fetch.article import declares_article
from corpus_build.fetch.extract import to_markdown
from tests.fetch.test_extract_web import SENTENCES as STORY
from tests.fetch.test_extract_web import URL

SENTENCES = STORY[:4]  # the same harbour story as the extraction tests, four paragraphs of it
OG = '<meta property="og:type" content="article">'
# What news and blog pages set around a story, none of it named by a class word: a kicker and a
# reading time over the title, a prompt and a call to action under the text.
BEFORE = "<div><p>Coast and harbours</p><p>4 min read</p></div>"
AFTER = "<div><h3>Did you like this story?</h3><p>Tell us what you think of our harbour coverage!</p><p>Share it with a friend who sails.</p></div>"


def page(head: str, before: str = BEFORE, after: str = AFTER, story: str = "") -> str:
    story = story or "".join(f"<p>{s}</p>" for s in SENTENCES)
    return f"<html><head>{head}</head><body><div>{before}<div class='x'><h1>Breakwater approved</h1>{story}</div>{after}</div></body></html>"


def markdown(html: str) -> str:
    return to_markdown(lxml.html.fromstring(html), URL).markdown


def test_an_article_leaves_out_what_lies_before_and_after_its_prose():
    out = markdown(page(OG))
    assert all(s in out for s in SENTENCES) and "Breakwater approved" in out, out
    for chrome in ("4 min read", "Did you like this story?", "Tell us what you think", "Share it with a friend"):
        assert chrome not in out, (chrome, out)


def test_a_page_that_declares_no_article_is_read_as_before():
    # (a manual's last lines after its last paragraph are its text: the mode is the page's to decide)
    out = markdown(page(""))
    assert "Tell us what you think" in out and "Share it with a friend" in out, out


def test_the_article_keeps_its_lede_its_lists_its_code_and_its_last_short_line():
    lede = f"<div class='standfirst'><p>{SENTENCES[3]} A lede in a box of its own, before the text's box.</p></div>"
    story = (
        "".join(f"<p>{s}</p>" for s in SENTENCES[:3])
        + "<ul><li>two thirds paid by the region</li><li>a third by the port</li></ul>"
        + "<pre>length = 1.2 km</pre><p>Work starts soon.</p>"
    )
    out = markdown(page(OG, before=BEFORE + lede, story=story))
    for kept in ("A lede in a box of its own", "two thirds paid by the region", "length = 1.2 km", "Work starts soon."):
        assert kept in out, (kept, out)
    assert "4 min read" not in out and "Did you like this story?" not in out, out


def test_what_declares_an_article():
    def declares(head: str, body: str = "<p>text</p>") -> bool:
        return declares_article(lxml.html.fromstring(f"<html><head>{head}</head><body>{body}</body></html>"))

    assert declares(OG)
    assert declares('<meta property="article:published_time" content="2024-05-05T10:00:00Z">')
    assert declares('<script type="application/ld+json">{"@context": "https://schema.org", "@type": "NewsArticle"}</script>')
    assert declares('<script type="application/ld+json">{"@type": ["BlogPosting"]}</script>')
    assert declares("", '<div itemprop="articleBody"><p>text</p></div>')
    assert declares("", '<div itemscope itemtype="https://schema.org/Article"><p>text</p></div>')
    # A manual page: a website, a bare <article> (MkDocs Material, Docusaurus), JSON-LD of another type.
    assert not declares('<meta property="og:type" content="website">', "<article><p>text</p></article>")
    assert not declares('<script type="application/ld+json">{"@type": "TechArticleCollection"}</script>')


def test_a_short_line_over_the_text_inside_its_box_stays():
    # (an original title, a dateline sentence: over the paragraphs' own box, inside the text's)
    story = "<div id='text'><p>(Original title: the port's new breakwater is approved.)</p><div>" + "".join(f"<p>{s}</p>" for s in SENTENCES) + "</div></div>"
    out = markdown(page(OG, story=story))
    assert "Original title: the port" in out and "4 min read" not in out, out


def test_pictures_before_and_after_the_prose_go_those_between_its_paragraphs_stay():
    # (the picture between the paragraphs stays; its caption, a line, goes: see the captions' test)
    def figure(caption: str) -> str:
        return f'<figure><img src="/img/{len(caption)}.jpg" alt=""><figcaption>{caption}</figcaption></figure>'

    story = (
        figure("Archive picture of the old pier, courtesy of the port")
        + "".join(f"<p>{s}</p>" for s in SENTENCES[:2])
        + figure("The planned breakwater seen from the lighthouse")
        + "".join(f"<p>{s}</p>" for s in SENTENCES[2:])
        + figure("Sponsored picture gallery of sailing holidays")
    )
    out = markdown(page(OG, story=story))
    assert f"img/{len('The planned breakwater seen from the lighthouse')}.jpg" in out and all(s in out for s in SENTENCES), out
    assert "courtesy of the port" not in out and "Sponsored picture gallery" not in out, out


def test_loose_inline_chrome_at_the_ends_goes_inline_text_holders_stay():
    # Spans and links standing loose among the blocks (no block holds them), and an unknown element
    # of a web framework wrapping the text's last paragraph.
    story = (
        '<span class="upd">Updated:</span> <span>03.04.2024</span>'
        + "".join(f"<p>{s}</p>" for s in SENTENCES[:3])
        + f"<paragraph><p>{SENTENCES[3]}</p></paragraph>"
        + '<a href="/print">Print this story</a>'
    )
    out = markdown(page(OG, story=story))
    assert all(s in out for s in SENTENCES), out
    assert "Updated:" not in out and "03.04.2024" not in out and "Print this story" not in out, out


def test_a_core_holding_little_of_the_prose_cuts_nothing():
    # The scores may place the core on an author's box its class lifts (`entry-content`), far from
    # the story: a run holding less than half the page's sentence prose is not the article.
    more = [
        "The ferry operators welcomed the plan, saying calmer water would let them keep to the timetable in winter.",
        "A study by the university found that the new wall will change how sand moves along the beaches to the north.",
        "The town council asked for a monitoring programme, which the authority promised to publish every year, online.",
    ]
    text = "".join(f"<section><div><p>{s}</p></div></section>" for s in SENTENCES + more)
    bio = (
        "<div class='entry-content'><p>Ana Ruiz writes about harbours, ships and coasts, and has lived by the sea, in three countries, "
        "for twenty years.</p><p>She edits, among others, the coast pages, and reads, writes and sails.</p></div>"
    )
    topics = "".join(f"<h3>{w}</h3>" for w in ("Coast", "Harbours", "Ports", "Ferries", "Beaches"))
    out = markdown(f"<html><head>{OG}</head><body>{bio}{topics}<div><h1>Breakwater approved</h1>{text}</div></body></html>")
    assert all(s in out for s in SENTENCES + more), out


def test_a_gallery_whose_text_is_its_captions_keeps_them():
    slides = "".join(
        f'<figure><img src="/img/{i}.jpg" alt=""><figcaption>Slide {i}: {s}</figcaption></figure>' for i, s in enumerate(SENTENCES * 2)
    )
    story = f"<p>{SENTENCES[0]} An introduction to the pictures.</p>{slides}"
    out = markdown(page(OG, story=story))
    assert "Slide 7:" in out and "Slide 3:" in out, out


def test_a_run_holding_under_three_quarters_of_the_prose_cuts_nothing():
    # A page builder's columns: the text goes on in a box of its own after a row of headings, beyond
    # the core; cutting after the core's last paragraph would lose a third of the article.
    more = [
        "The ferry operators welcomed the plan, saying calmer water would let them keep to the timetable in winter.",
        "A study by the university found that the new wall will change how sand moves along the beaches to the north.",
        "The town council asked for a monitoring programme, which the authority promised to publish every year, online.",
    ]
    heads = "".join(f"<h4>{w}</h4>" for w in ("Costs", "Timetable", "Studies", "Council"))
    story = "".join(f"<p>{s} ({i})</p>" for i, s in enumerate(SENTENCES + SENTENCES[:2]))
    second = "<div class='col'>" + "".join(f"<p>{s}</p>" for s in more) + "</div>"
    out = markdown(page(OG, story=story, after=heads + second))
    assert all(s in out for s in more), out


def test_a_short_line_with_a_link_at_the_texts_end_is_no_part_of_it():
    story = (
        "".join(f"<p>{s}</p>" for s in SENTENCES)
        + "<p>That is all, for now.</p>"
        + '<p>Subscribe to <a href="/edition">our edition</a> today for all the news of the harbour and its new breakwater.</p>'
    )
    out = markdown(page(OG, story=story))
    assert "That is all, for now." in out and "our edition" not in out, out


ZH = [
    "港口管理局在历时三年的公开听证和两次修改设计之后，终于批准了新的防波堤工程，工程将于今年九月开工。",
    "工程师预计，这一结构将在冬季风暴期间使港内的波浪高度降低一半，渔民和渡轮公司都对此表示欢迎。",
    "地方政府承担三分之二的费用，其余部分由港口在今后二十年的收入中支付，批评者认为这笔钱应该用于铁路。",
]


def test_a_short_chinese_line_over_the_text_stays():
    # (a Chinese line says in fourteen characters what takes twenty-five in English)
    story = "<p>（原标题：港口新防波堤获批）</p>" + "".join(f"<p>{s}</p>" for s in ZH)
    out = markdown(page(OG, story=story))
    assert "原标题：港口新防波堤获批" in out and all(s in out for s in ZH), out


def test_among_the_paragraphs_a_few_words_that_are_no_sentence_go_bold_subheadings_stay():
    story = (
        f"<p>{SENTENCES[0]}</p><div class='x1'>Advertisement</div><p>{SENTENCES[1]}</p>"
        f"<p><strong>What comes next</strong></p><p>{SENTENCES[2]}</p><p>To the shop</p>"
        f"<p>Ana Ruiz, Port Authority</p><p>{SENTENCES[3]}</p>"
    )
    out = markdown(page(OG, story=story))
    assert all(s in out for s in SENTENCES) and "What comes next" in out and "Ana Ruiz, Port Authority" in out, out
    assert "Advertisement" not in out and "To the shop" not in out, out


def test_the_standfirst_under_the_title_stays_a_dateline_there_goes():
    # (a standfirst has no full stop, so it is no dense paragraph; it is the text's own summary)
    dek = "<p class='dek'>After three years of hearings the port gets the breakwater its fishing crews asked for</p>"
    story = dek + "<p>Ana Ruiz, 12 May 2024, 10:42</p>" + "".join(f"<p>{s}</p>" for s in SENTENCES)
    out = markdown(page(OG, story=story))
    assert "the breakwater its fishing crews asked for" in out and all(s in out for s in SENTENCES), out
    assert "12 May 2024" not in out and "4 min read" not in out, out


def test_a_short_last_line_in_a_page_builders_box_of_its_own_stays():
    # (a page builder wraps every paragraph in a box of its own: the text's box is the one above)
    story = "<div class='text'>" + "".join(f"<div class='par'><p>{s}</p></div>" for s in SENTENCES) + "<div class='par'><p>The port will publish the timetable.</p></div></div>"
    out = markdown(page(OG, story=story))
    assert "The port will publish the timetable." in out and all(s in out for s in SENTENCES), out
    assert "Did you like this story?" not in out and "Share it with a friend" not in out, out


def test_a_lead_picture_between_a_lede_outside_the_text_and_the_text_goes():
    # (the lede in a box of its own opens the run; the picture after it, outside the text's box, is
    # the page's lead picture, its caption a credit; a picture between the text's paragraphs stays)
    lede = "<div class='standfirst'><p>Three years of hearings are over, and the port finally gets the breakwater its fishing crews asked for.</p></div>"
    lead = "<figure><img src='/img/lead.jpg' alt=''><figcaption>The pier at dawn, photo courtesy of the port</figcaption></figure>"
    inline = "<figure><img src='/img/plan.jpg' alt=''><figcaption>The planned breakwater seen from the lighthouse</figcaption></figure>"
    story = "".join(f"<p>{s}</p>" for s in SENTENCES[:2]) + inline + "".join(f"<p>{s}</p>" for s in SENTENCES[2:])
    out = markdown(page(OG, before=BEFORE + lede + lead, story=story))
    assert "the port finally gets the breakwater" in out and "img/plan.jpg" in out, out
    assert "photo courtesy of the port" not in out and "4 min read" not in out and all(s in out for s in SENTENCES), out


def _figure(caption: str, name: str = "pier") -> str:
    return f'<figure><img src="/img/{name}.jpg" alt=""><figcaption>{caption}</figcaption></figure>'


LINE = "The old pier seen from the lighthouse. (Photo: Harbour archive / A. Berg)"
TOLD = ("Two fishing boats wait at the old pier for the storm to pass, as they did every winter for forty years; the crews say the "
        "new breakwater will let them stay out a day longer in January, and the harbour master agrees with them.")


def test_an_articles_short_picture_captions_go_a_told_caption_and_a_gallerys_stay():
    # Failed before picture_lines: a caption of a line (a label, a credit) is the picture's, not the
    # text's; a caption of a paragraph's length tells the story under it.
    story = "".join(f"<p>{s}</p>" for s in SENTENCES[:2]) + _figure(LINE) + "".join(f"<p>{s}</p>" for s in SENTENCES[2:])
    out = markdown(page(OG, story=story))
    assert "The old pier seen from the lighthouse" not in out and "img/pier.jpg" in out and all(s in out for s in SENTENCES), out
    told = "".join(f"<p>{s}</p>" for s in STORY[:3]) + _figure(TOLD, "boats") + "".join(f"<p>{s}</p>" for s in STORY[3:])
    out = markdown(page(OG, story=told))
    assert "the crews say the new breakwater" in out and all(s in out for s in STORY), out
    # (a gallery: its text is its captions, short ones too)
    gallery = "<p>" + SENTENCES[0] + "</p>" + "".join(_figure(f"Boat number {n} at the pier, before the storm of the winter.", f"b{n}") for n in range(6))
    out = markdown(page(OG, story=gallery))
    assert "Boat number 5 at the pier" in out, out
    # (a page that declares no article keeps its captions: a manual's figure titles)
    out = markdown(page("", story=story))
    assert "The old pier seen from the lighthouse" in out, out
