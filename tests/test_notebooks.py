"""The notebooks execute on small studies (random agents, a few hundred games)."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from analysis.study import load_study, run_study

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = {"customer-order": 60, "neutral-stack": 40}  # games per cell


@pytest.mark.parametrize("name", sorted(NOTEBOOKS))
def test_notebook_executes(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = load_study(ROOT / "data" / "studies" / f"{name}.toml").with_overrides(
        games=NOTEBOOKS[name], agents="random")
    study = tmp_path / name
    run_study(spec, study, quiet=True)
    monkeypatch.setenv("PORTOBELLO_STUDY_DIR", str(study))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = nbformat.read(ROOT / "notebooks" / f"{name}.ipynb", as_version=4)
    NotebookClient(nb, timeout=180, kernel_name="python3",
                   resources={"metadata": {"path": str(ROOT / "notebooks")}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) >= 5, f"{name}: {len(images)} figures shown"
    text = "".join(o.get("text", "") for o in outputs)
    assert str(study) in text  # the notebook read the study it was pointed at
