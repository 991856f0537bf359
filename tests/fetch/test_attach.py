"""`corpus-build attach`: copies the user saved become mirrors; fetch leaves them alone until --force;
servers that refuse automated clients produce an error that points to `attach`."""

from __future__ import annotations

import email.message
import json
import os
from dataclasses import replace

import pymupdf
import pytest

from corpus_build.cli import main
from corpus_build.core.provenance import Status, mirror_state, read_failure, read_provenance
from corpus_build.fetch import fetch_corpus
from corpus_build.fetch.lockfile import read_lock
from corpus_build.render import build_pages

PAGE = """<!DOCTYPE html><html lang="zh"><head><meta charset="utf-8"><title>昇腾算子开发：向量化</title></head><body>
<nav>首页 · 登录</nav><article><h1>昇腾算子开发：向量化</h1>
<p>这篇回答解释了 Ascend C 的向量化编程模型，以及如何把数据从全局内存搬到统一缓冲区，再交给向量单元计算。</p>
<p><img src="answer_files/figure.png" alt="流水线示意图"></p>
<p>第二段说明双缓冲如何让搬运与计算重叠，从而隐藏访存延迟，这是性能调优中最重要的一步。</p></article></body></html>"""


def make_pdf(pages: int = 2, words: str = "Triton: an intermediate language") -> bytes:
    doc = pymupdf.open()
    for number in range(pages):
        doc.new_page().insert_text((72, 72), f"{words}, page {number + 1}")
    doc.set_metadata({"title": "Triton", "author": "Philippe Tillet"})
    return doc.tobytes()


def run(project, *argv: str) -> int:
    return main(["--project", str(project), *argv])


@pytest.fixture
def blocked_corpus(tmp_path, server, make_corpus):
    """A paper and an article whose servers refuse automated clients (403)."""
    server.add("/acm/triton.pdf", "<html><body>Please verify you are human</body></html>", status=403)
    server.add("/zhihu/answer", "", status=302, headers={"Location": "/signin?next=%2Fzhihu%2Fanswer"})
    return make_corpus([
        {"id": "triton", "url": server.url("/acm/triton.pdf"), "kind": "paper"},
        {"id": "zhihu-answer", "url": server.url("/zhihu/answer"), "kind": "article"},
    ])


def test_403_and_login_wall_errors_say_attach_exists(blocked_corpus, options, server):
    corpus = blocked_corpus
    paper, article = fetch_corpus(corpus, options)
    assert paper.status is Status.FAILED and "HTTP 403" in paper.error
    assert "corpus-build attach triton FILE" in paper.error
    assert article.status is Status.FAILED and "login page" in article.error
    assert "corpus-build attach zhihu-answer FILE" in article.error
    assert "attach" in read_failure(corpus.raw_dir(corpus.source("triton"))).error


def test_429_with_captcha_mentions_attach_but_a_plain_404_does_not(server, make_corpus, options):
    server.add("/captcha", "<html><body><div class='g-recaptcha'></div> unusual traffic</body></html>", status=429)
    server.add("/missing", "not here", status=404)
    corpus = make_corpus([{"id": "cap", "url": server.url("/captcha"), "kind": "article"}, {"id": "gone", "url": server.url("/missing"), "kind": "article"}])
    cap, gone = fetch_corpus(corpus, replace(options, retries=1))
    assert cap.status is Status.FAILED and "CAPTCHA" in cap.error and "corpus-build attach cap FILE" in cap.error
    assert gone.status is Status.FAILED and "attach" not in gone.error


def test_attach_pdf_then_fetch_keeps_it_and_force_replaces_it(blocked_corpus, options, server, tmp_path, capsys):
    corpus = blocked_corpus
    saved = tmp_path / "Downloads" / "triton (1).pdf"
    saved.parent.mkdir()
    pdf = make_pdf()
    saved.write_bytes(pdf)
    project = corpus.root.parent
    assert run(project, "attach", "triton", str(saved), "--note", "saved from the ACM DL") == 0
    assert "attached" in capsys.readouterr().out
    raw = corpus.raw_dir(corpus.source("triton"))
    record = read_provenance(raw)
    assert record.status is Status.OK and record.supplied is not None
    assert record.supplied.by == "user" and record.supplied.file_name == "triton (1).pdf" and record.supplied.note == "saved from the ACM DL"
    import hashlib

    assert record.supplied.sha256 == hashlib.sha256(pdf).hexdigest() == record.sha256
    assert (raw / "paper.pdf").read_bytes() == pdf
    assert "page 2" in (raw / "text.md").read_text() and record.document.page_count == 2
    assert record.extractor.name == "pymupdf" and record.extractor.versions["pymupdf"]
    assert {f.path for f in record.files} >= {"paper.pdf", "text.md"}
    assert read_lock(corpus.root)["triton"]["sha256"] == record.sha256
    # The site says where the copy came from.
    assert "a copy the user saved and supplied (triton (1).pdf)" in build_pages(corpus)["sources/triton.md"]

    # fetch leaves a supplied mirror alone: no request, same bytes, still supplied.
    hits = server.count("/acm/triton.pdf")
    [kept] = fetch_corpus(corpus, replace(options, ids=("triton",)))
    assert kept.status is Status.UNCHANGED and server.count("/acm/triton.pdf") == hits
    assert read_provenance(raw).supplied is not None and (raw / "paper.pdf").read_bytes() == pdf
    assert mirror_state(raw, 0)[0] == "ok"  # a supplied copy never turns stale
    capsys.readouterr()
    assert run(project, "status", "--json") == 0
    rows = {r["id"]: r for r in map(json.loads, capsys.readouterr().out.splitlines())}
    assert rows["triton"]["supplied"] == "triton (1).pdf" and rows["triton"]["state"] == "ok" and rows["zhihu-answer"]["supplied"] == ""

    # --force while the server still refuses: the attempt fails, the supplied mirror stays.
    [refused] = fetch_corpus(corpus, replace(options, ids=("triton",), force=True))
    assert refused.status is Status.FAILED and (raw / "paper.pdf").read_bytes() == pdf
    # --force once the server answers: the fetched copy replaces the supplied one.
    fresh = make_pdf(3, "Fetched for real")
    server.add("/acm/triton.pdf", fresh, content_type="application/pdf")
    [replaced] = fetch_corpus(corpus, replace(options, ids=("triton",), force=True))
    assert replaced.status is Status.OK, replaced.error
    record = read_provenance(raw)
    assert record.supplied is None and (raw / "paper.pdf").read_bytes() == fresh and record.document.page_count == 3


def test_attach_saved_page_folder(blocked_corpus, options, server, tmp_path):
    corpus = blocked_corpus
    folder = tmp_path / "saved"
    (folder / "answer_files").mkdir(parents=True)
    (folder / "answer.html").write_text(PAGE, encoding="utf-8")
    png = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64
    (folder / "answer_files" / "figure.png").write_bytes(png)
    (folder / "answer_files" / "style.css").write_text("body{}", encoding="utf-8")
    os.symlink("/etc/passwd", folder / "answer_files" / "passwd")  # a saved page is untrusted: never followed
    assert run(corpus.root.parent, "attach", "zhihu-answer", str(folder)) == 0
    raw = corpus.raw_dir(corpus.source("zhihu-answer"))
    record = read_provenance(raw)
    assert record.body_file == "supplied/answer.html" and record.supplied.file_name == "saved"
    assert (raw / "supplied" / "answer_files" / "figure.png").read_bytes() == png
    assert not (raw / "supplied" / "answer_files" / "passwd").exists()
    text = (raw / "text.md").read_text()
    assert "统一缓冲区" in text and "隐藏访存延迟" in text
    assert record.document.title == "昇腾算子开发：向量化"
    assert {"supplied/answer.html", "supplied/answer_files/figure.png", "text.md"} <= {f.path for f in record.files}
    [kept] = fetch_corpus(corpus, replace(options, ids=("zhihu-answer",)))
    assert kept.status is Status.UNCHANGED and server.count("/zhihu/answer") == 0
    # The page's own .html, with its _files folder beside it, is the same saved page.
    assert run(corpus.root.parent, "attach", "zhihu-answer", str(folder / "answer.html")) == 0
    again = read_provenance(raw)
    assert again.body_file == "supplied/answer.html" and again.supplied.file_name == "answer.html"
    assert (raw / "supplied" / "answer_files" / "figure.png").exists()


def test_attach_mhtml_single_html_and_image(make_corpus, tmp_path):
    corpus = make_corpus([{"id": "a", "url": "https://example.org/a", "kind": "article"}, {"id": "b", "url": "https://example.org/b", "kind": "article"},
                          {"id": "c", "url": "https://example.org/c.png", "kind": "article"}])
    message = email.message.EmailMessage()
    message["MIME-Version"] = "1.0"
    message["Subject"] = "saved"
    message.make_related()
    html_part = email.message.EmailMessage()
    html_part.set_content(PAGE, subtype="html", charset="utf-8")
    html_part["Content-Location"] = "https://example.org/a"
    message.attach(html_part)
    image = email.message.EmailMessage()
    image.set_content(b"\x89PNG\r\n\x1a\nxx", maintype="image", subtype="png")
    image["Content-Location"] = "https://example.org/answer_files/figure.png"
    message.attach(image)
    mhtml = tmp_path / "page.mhtml"
    mhtml.write_bytes(message.as_bytes())
    assert run(corpus.root.parent, "attach", "a", str(mhtml)) == 0
    raw = corpus.raw_dir(corpus.source("a"))
    record = read_provenance(raw)
    assert record.body_file == "page.html" and (raw / "page.mhtml").exists()
    assert "统一缓冲区" in (raw / "text.md").read_text()
    assert any(f.path.startswith("page_files/") and f.path.endswith("figure.png") for f in record.files)
    single = tmp_path / "single.html"
    single.write_text(PAGE.replace("answer_files/figure.png", "data:image/png;base64,iVBORw0KGgo="), encoding="utf-8")
    assert run(corpus.root.parent, "attach", "b", str(single)) == 0
    assert read_provenance(corpus.raw_dir(corpus.source("b"))).body_file == "page.html"
    picture = tmp_path / "shot"
    picture.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x01" * 10)
    assert run(corpus.root.parent, "attach", "c", str(picture)) == 0
    record = read_provenance(corpus.raw_dir(corpus.source("c")))
    assert record.body_file == "image.png" and record.content_type == "image/png" and record.text_file == ""


def test_attach_mistakes_are_clear_and_keep_the_previous_mirror(make_corpus, tmp_path, capsys):
    corpus = make_corpus([{"id": "paper", "url": "https://example.org/p.pdf", "kind": "paper"}])
    project = corpus.root.parent
    good = tmp_path / "good.pdf"
    good.write_bytes(make_pdf())
    assert run(project, "attach", "paper", str(good)) == 0
    raw = corpus.raw_dir(corpus.source("paper"))
    before = (raw / "provenance.json").read_text()
    capsys.readouterr()
    assert run(project, "attach", "papr", str(good)) == 2
    err = capsys.readouterr().err
    assert "no source with id 'papr'" in err and "did you mean 'paper'" in err and "Traceback" not in err
    assert run(project, "attach", "paper", str(tmp_path / "nope.pdf")) == 2
    assert "no such file" in capsys.readouterr().err
    odd = tmp_path / "notes.bin"
    odd.write_bytes(b"\x00\x01binary")
    assert run(project, "attach", "paper", str(odd)) == 2
    assert "cannot tell what this file is" in capsys.readouterr().err
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(make_pdf()[:400])
    assert run(project, "attach", "paper", str(broken)) == 1
    err = capsys.readouterr().err
    assert "broken.pdf is not a usable PDF" in err and "truncated" in err
    assert (raw / "provenance.json").read_text() == before
    assert not [p for p in raw.parent.iterdir() if ".tmp-" in p.name or ".old-" in p.name]
    assert json.loads(before)["supplied"]["file_name"] == "good.pdf"
