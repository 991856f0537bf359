"""Pages decoded as browsers decode them (issue 35): the declared label, with a U+FFFD for each invalid
sequence, never abandoned for a guess because of a few bad bytes."""

from __future__ import annotations

from corpus_build.fetch.kinds.html import decode_html, page_text

PARAGRAPH = {
    # GBK characters beyond GB2312 (镕, 堃) in a page that says gb2312, as pages routinely do.
    "gbk": "朱镕基与王堃讨论了内存层级、数据搬运和计算流水线的划分方式，这一段文字足够长。",
    "big5": "本文說明記憶體階層與資料搬運的關係，並以實例示範如何劃分計算流水線的各個階段。",
    "shift_jis": "この文書はメモリ階層とデータ転送の関係を説明し、計算パイプラインの分割方法を示します。",
}
TITLE = {"gbk": "内存层级指南", "big5": "記憶體階層指南", "shift_jis": "メモリ階層の手引き"}
# Real invalid sequences in each encoding: a lead byte followed by an ASCII byte (the ASCII byte
# stays, as in browsers), and a byte that starts nothing.
BROKEN = {"gbk": (b"\x81 ", b"\xff"), "big5": (b"\xa1 ", b"\x80"), "shift_jis": (b"\x81 ", b"\xa0")}


def page(encoding: str, declared: str, in_meta: bool = True) -> bytes:
    first, second = BROKEN[encoding]
    meta = f'<meta charset="{declared}">' if in_meta else ""
    head = f"<html><head>{meta}<title>".encode() + TITLE[encoding].encode(encoding) + b"</title></head><body><article>"
    words = PARAGRAPH[encoding].encode(encoding)
    body = b"<h1>" + TITLE[encoding].encode(encoding) + b"</h1><p>" + words + first + b"ok</p><p>" + words + second + b"</p>"
    return head + body + b"</article></body></html>"


def test_gbk_page_declared_gb2312_keeps_its_encoding_despite_bad_bytes():
    text, encoding = decode_html(page("gbk", "gb2312"))
    assert encoding == "gb18030"
    assert text.count("\ufffd") == 2
    assert "朱镕基与王堃" in text and "\ufffd ok" in text  # the ASCII byte after the bad lead byte is kept


def test_big5_page_declared_in_the_header():
    text, encoding = decode_html(page("big5", "big5", in_meta=False), "text/html; charset=big5")
    assert encoding == "big5hkscs"
    assert text.count("\ufffd") == 2
    assert PARAGRAPH["big5"] in text


def test_shift_jis_page_declared_in_meta():
    text, encoding = decode_html(page("shift_jis", "Shift_JIS"))
    assert encoding == "cp932"
    assert text.count("\ufffd") == 2  # 0xA0 is no character in the Standard's Shift_JIS
    assert PARAGRAPH["shift_jis"] in text


def test_a_mislabelling_header_gives_way_to_the_page_label_that_reads_it():
    text, encoding = decode_html(page("gbk", "gbk"), "text/html; charset=utf-8")
    assert encoding == "gb18030" and "朱镕基" in text


def test_detection_only_when_nothing_is_declared():
    data = page("gbk", "gbk").replace(b'<meta charset="gbk">', b"")
    clean = data.replace(BROKEN["gbk"][0], b"").replace(BROKEN["gbk"][1], b"")
    text, encoding = decode_html(clean)
    assert "朱镕基" in text, encoding
    ascii_only = b"<html><body><p>plain words</p></body></html>"
    assert decode_html(ascii_only) == (ascii_only.decode(), "utf-8")


def test_the_title_and_text_of_a_page_with_bad_bytes_are_read_in_its_encoding():
    for encoding, declared in (("gbk", "gb2312"), ("big5", "big5"), ("shift_jis", "shift_jis")):
        facts = page_text(page(encoding, declared), "https://example.org/a.html", "text/html")
        assert facts["title"] == TITLE[encoding], encoding
        assert PARAGRAPH[encoding] in facts["markdown"], encoding


def test_a_page_resaved_as_utf8_under_its_old_label_is_read_as_utf8():
    data = page("gbk", "gbk").decode("gbk", errors="replace").encode("utf-8")
    text, encoding = decode_html(data)
    assert encoding == "utf-8" and "朱镕基与王堃" in text
