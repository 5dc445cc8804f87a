"""Every notebook in notebooks/ runs top to bottom without an error (nbclient, python3 kernel)."""

import pathlib

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOKS = sorted((pathlib.Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))


def test_there_are_the_three_analyst_notebooks():
    assert len(NOTEBOOKS) >= 3, [n.name for n in NOTEBOOKS]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[n.stem for n in NOTEBOOKS])
def test_notebook_runs(path):
    notebook = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    )
    client.execute()  # raises CellExecutionError, with the cell and traceback, on any error
    errors = [o for c in notebook.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert not errors
