"""Articles, blogs and portals (issue 35): the rules that lost an article's text or kept its chrome.

Every page is written here; each test failed before the rule it names was fixed.
"""

from __future__ import annotations

import lxml.html

from corpus_build.fetch.extract import to_markdown

URL = "https://news.example.org/2024/05/story.html"
SENTENCES = [
    "The harbour authority approved the new breakwater after three years of public hearings and two revised designs.",
    "Engineers expect the structure to cut wave heights inside the port by half during the winter storms.",
    "Fishing crews, who lost a week of work last January, said the decision came too late for some of them.",
    "Construction starts in September and should end before the autumn of the following year, weather permitting.",
    "The regional government pays two thirds of the cost; the port's own revenue covers the rest over twenty years.",
    "Critics argue the money would have done more good in the rail link that still ends ten kilometres inland.",
]


def article(n: int = 6) -> str:
    return "".join(f"<p>{SENTENCES[i % len(SENTENCES)]} ({i})</p>" for i in range(n))


def markdown(html: str) -> str:
    return to_markdown(lxml.html.fromstring(html), URL).markdown


NAV = '<div class="nav"><a href="/">Home</a> <a href="/world">World</a> <a href="/sport">Sport</a> <a href="/about">About us</a></div>'
SIDEBAR = '<div class="sidebar"><ul>' + "".join(f'<li><a href="/tag/{i}">Topic number {i}</a></li>' for i in range(8)) + "</ul></div>"


def test_a_class_word_does_not_veto_the_element_holding_the_text():
    # "sidebar" inside a compound class on the column that holds the whole article (a page marking no region).
    html = f'<html><body>{NAV}<div class="content-with-sidebar-wrp"><h1>Breakwater approved</h1>{article()}</div>{SIDEBAR}</body></html>'
    out = markdown(html)
    assert all(s in out for s in SENTENCES), out
    assert "Topic number 3" not in out and "About us" not in out


def test_a_class_word_on_the_marked_region_does_not_send_the_walk_back_to_body():
    for region in ('<article class="post url-breadcrumb">', '<main class="container js-social-anchor-start">',
                   '<div itemprop="articleBody" class="article-body pagination-first">'):
        tag = region[1 : region.index(" ")]
        html = f"<html><body>{NAV}{region}<h1>Breakwater approved</h1>{article()}</{tag}>{SIDEBAR}</body></html>"
        out = markdown(html)
        assert all(s in out for s in SENTENCES), (region, out)


def test_a_class_word_still_demotes_small_chrome():
    share = '<div class="social-share"><span>Share this story with friends and family today</span></div>'
    html = f"<html><body>{NAV}<main><h1>Breakwater approved</h1>{share}{article()}</main>{SIDEBAR}</body></html>"
    out = markdown(html)
    assert SENTENCES[0] in out and "Share this story" not in out


def test_of_several_marked_regions_the_article_wins_not_the_largest():
    feed = "".join(f'<li><a href="/2024/05/other-{i}.html">Another story about the coast and its harbours, number {i}</a></li>' for i in range(30))
    html = (f'<html><body>{NAV}<section role="main" class="feed"><h2>Related stories</h2><ul>{feed}</ul></section>'
            f'<section role="main"><h1>Breakwater approved</h1>{article(8)}</section></body></html>')
    out = markdown(html)
    assert all(s in out for s in SENTENCES), out
    assert "number 17" not in out


def test_the_edge_navigation_guess_never_claims_the_main_text():
    # A page marking no region, its menu written twice at the top (desktop and mobile, a tagline
    # between): the second copy closes the "repeated bar" scan, and the article after it holds a
    # script (an embed), as the widgets a script fills after a closing bar do.
    menu = '<ul><li><a href="/world">World</a></li><li><a href="/sport">Sport</a></li><li><a href="/culture">Culture</a></li></ul>'
    html = (f'<html><body><div class="top">{menu}</div><p>Daily news</p><div class="mobile">{menu}</div>'
            f'<div class="story"><h1>Breakwater approved</h1>{article()}<script>embed()</script></div></body></html>')
    out = markdown(html)
    assert all(s in out for s in SENTENCES), out
