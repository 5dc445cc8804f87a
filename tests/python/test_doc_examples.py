"""Every Python example in README.md and docs/python.md runs as written.

The ```python blocks of each file run in order in one namespace, in a temporary folder that has
the project's scenarios/ and data/ (so relative paths work and files written land there). A block
of `>>>` lines runs as a doctest: its shown output must match. A block preceded by an HTML comment
`<!-- doc-test: skip (reason) -->` is illustrative (a cluster address, output) and is not run; one
preceded by `<!-- doc-test: needs PATH -->` is skipped when PATH (from the project root) is missing.
"""

import doctest
import os
import pathlib
import re
import warnings

import matplotlib
import pytest

matplotlib.use("Agg")

ROOT = pathlib.Path(__file__).resolve().parents[2]
FILES = ["README.md", "docs/python.md"]
FENCE = re.compile(r"^```python[^\n]*\n(.*?)^```", re.S | re.M)
MARK = re.compile(r"<!--\s*doc-test:\s*(skip|needs)\s*([^>]*?)\s*-->\s*$")


def blocks(path: pathlib.Path):
    """(line, code, mark, argument) of each ```python block, in order."""
    text = path.read_text()
    for m in FENCE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        before = text[: m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        mark = MARK.search(before)
        yield line, m.group(1), (mark.group(1) if mark else None), (mark.group(2) if mark else "")


def test_the_extractor_sees_marks(tmp_path):
    doc = tmp_path / "x.md"
    doc.write_text("a\n```python\nx = 1\n```\n<!-- doc-test: skip needs a cluster -->\n```python\ny\n```\n")
    found = list(blocks(doc))
    assert [(b[0], b[1], b[2]) for b in found] == [(2, "x = 1\n", None), (6, "y\n", "skip")]


@pytest.mark.parametrize("name", FILES)
def test_python_examples_run(name, tmp_path, monkeypatch):
    import matplotlib.pyplot as plt

    path = ROOT / name
    for folder in ("scenarios", "data"):
        if (ROOT / folder).exists():
            (tmp_path / folder).symlink_to(ROOT / folder)
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__doc_example__"}
    ran = 0
    for line, code, mark, argument in blocks(path):
        where = f"{name}:{line}"
        if mark == "skip":
            continue
        if mark == "needs" and not (ROOT / argument).exists():
            continue
        with warnings.catch_warnings():
            # tqdm's bars (the examples' default progress=True) are fine here.
            warnings.simplefilter("ignore", category=DeprecationWarning)
            if code.lstrip().startswith(">>>"):
                test = doctest.DocTestParser().get_doctest(code, namespace, where, str(path), line)
                runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
                report = []
                runner.run(test, out=report.append, clear_globs=False)
                assert runner.failures == 0, f"{where}: doctest failed:\n{''.join(report)}"
            else:
                try:
                    exec(compile(code, where, "exec"), namespace)
                except Exception as e:  # name the block in the failure
                    raise AssertionError(f"{where}: the example fails: {type(e).__name__}: {e}") from e
        ran += 1
        plt.close("all")
    assert ran > 0, f"{name} has no runnable Python example"
    assert os.getcwd() == str(tmp_path)
