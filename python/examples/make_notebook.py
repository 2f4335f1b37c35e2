"""Builds explore.ipynb from explore.py (cells separated by `# %%`) and executes it, saving outputs.

    pip install nbformat nbconvert ipykernel   # only to regenerate the notebook
    python python/examples/make_notebook.py

The script stays the source of truth: the test suite runs explore.py, so the notebook cannot rot
without the tests noticing.
"""

import os
import pathlib
import re
import tempfile

import nbformat
from nbconvert.preprocessors import ExecutePreprocessor

HERE = pathlib.Path(__file__).resolve().parent


def cells(source: str):
    """Splits a percent-format script into (kind, text) cells."""
    parts = re.split(r"^# %%(.*)$", source, flags=re.MULTILINE)
    for header, body in zip(parts[1::2], parts[2::2]):
        body = body.strip("\n")
        if "[markdown]" in header:
            yield "markdown", "\n".join(line[2:] if line.startswith("# ") else line.lstrip("#") for line in body.splitlines())
        elif body:
            yield "code", body


def main() -> None:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    for kind, text in cells((HERE / "explore.py").read_text()):
        nb.cells.append(nbformat.v4.new_markdown_cell(text) if kind == "markdown" else nbformat.v4.new_code_cell(text))
    with tempfile.TemporaryDirectory() as out:
        os.environ["KINO_EXPLORE_OUT"] = out  # the figure file goes here; the notebook shows it inline
        ExecutePreprocessor(timeout=600, kernel_name="python3").preprocess(nb, {"metadata": {"path": str(HERE)}})
    nbformat.write(nb, HERE / "explore.ipynb")
    print("wrote", HERE / "explore.ipynb")


if __name__ == "__main__":
    main()
