"""The cheap paths the fetch benchmark relies on (scripts/bench_fetch.py)."""

from __future__ import annotations

import subprocess
import sys

from corpus_build.fetch.base import package_version


def test_pdf_extraction_imports_pymupdf_without_the_layout_model():
    # A fresh interpreter, as in a worker process: the ONNX layout model must not load.
    code = (
        "import sys; from corpus_build.fetch.kinds.pdf import _import_pymupdf; m = _import_pymupdf(); "
        "assert m._get_layout is None and 'pymupdf.layout' not in sys.modules; "
        "assert sys.modules.get('pymupdf.layout', 'absent') == 'absent'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_package_version_is_looked_up_once():
    package_version.cache_clear()
    assert package_version("httpx") == package_version("httpx")
    assert package_version.cache_info().hits == 1
