"""Screenshot bytes: the WebP the fetch stage keeps (fetch/browser.py) against the PNG it kept before.

    .venv/bin/python scripts/bench_screenshot.py

Renders generated pages (a long documentation page, a short article, a page of code) in Debian's
Chromium through Playwright, the whole page (up to the fetch stage's height limit) at 1280 px, and
prints the bytes of PNG (before), JPEG (what Playwright offers) and WebP (what fetch asks of
Chromium through DevTools), with the ratios to PNG, all measured in the same run.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from corpus_build.fetch import browser  # noqa: E402

PROSE = "Tiles map to warps; the memory hierarchy decides what a kernel can reach in time. "
IMAGES = (
    "<canvas id=c width=1200 height=600></canvas><script>const x = document.getElementById('c').getContext('2d');"
    "for (let i = 0; i < 20000; i++) { x.fillStyle = `hsl(${i % 360},60%,${30 + i % 40}%)`; x.fillRect((i * 7919) % 1200, (i * 104729) % 600, 8, 8); }</script>"
)
PAGES = {
    "long docs page (150 sections)": "".join(
        f"<h2>Section {i}</h2><p>{PROSE * 10}</p><pre>for (int k = 0; k &lt; K; k += 32) mma(a, b, c);</pre>" for i in range(150)
    ),
    "short article": f"<h1>An article</h1><p>{PROSE * 30}</p>",
    "code listing": "<pre>" + "\n".join(f"    acc[{i}] = fma(a[{i}], b[{i}], acc[{i}]);" for i in range(600)) + "</pre>",
    "article with images": IMAGES + f"<p>{PROSE * 20}</p>" + IMAGES,
}


def main() -> None:
    import base64

    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"])
        page = chromium.new_page(viewport={"width": 1280, "height": 900})
        devtools = page.context.new_cdp_session(page)
        print(f"{'page':<32} {'height':>6} {'PNG KB':>7} {'JPEG KB':>8} {'WebP KB':>8} {'JPEG/PNG':>9} {'WebP/PNG':>9}")
        for name, body in PAGES.items():
            page.set_content(f"<!doctype html><html><body style='font-family:sans-serif;max-width:60em'>{body}</body></html>")
            height = min(page.evaluate("document.documentElement.scrollHeight"), browser._MAX_SCREENSHOT_HEIGHT)
            clip = {"x": 0, "y": 0, "width": browser._SCREENSHOT_WIDTH, "height": height, "scale": 1}
            sizes = {}
            for fmt, quality in (("png", None), ("jpeg", browser._SCREENSHOT_QUALITY), ("webp", browser._SCREENSHOT_QUALITY)):
                params = {"format": fmt, "captureBeyondViewport": True, "clip": clip, **({"quality": quality} if quality else {})}
                sizes[fmt] = len(base64.b64decode(devtools.send("Page.captureScreenshot", params)["data"])) / 1024
            png, jpeg, webp = sizes["png"], sizes["jpeg"], sizes["webp"]
            print(f"{name:<32} {height:6d} {png:7.0f} {jpeg:8.0f} {webp:8.0f} {jpeg / png:8.2f}x {webp / png:8.2f}x")
        chromium.close()


if __name__ == "__main__":
    main()
