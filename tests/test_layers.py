"""Layering: solvers/ and kernels/ never import Qt or pyqtgraph (DESIGN.md, 'Layers')."""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FORBIDDEN = ("PyQt6", "PySide6", "pyqtgraph", "gui", "superqt")


def _imports(path: Path):
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module


@pytest.mark.parametrize("package", ["solvers", "kernels"])
def test_compute_layers_import_no_qt(package):
    files = sorted((ROOT / package).rglob("*.py"))
    assert files, f"{package}/ has no Python files"
    offenders = [f"{f.relative_to(ROOT)} imports {name}" for f in files for name in _imports(f)
                 if name.split(".")[0] in FORBIDDEN]
    assert not offenders, offenders


def test_solvers_import_leaves_qt_unloaded():
    import subprocess
    import sys

    code = ("import sys, solvers, kernels; import solvers.cli; "
            "bad = [m for m in sys.modules if m.split('.')[0] in ('PyQt6', 'pyqtgraph', 'gui')]; "
            "print(bad); sys.exit(1 if bad else 0)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
