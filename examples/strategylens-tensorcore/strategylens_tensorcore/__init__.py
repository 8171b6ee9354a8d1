"""strategylens-tensorcore: one strategy (CMP-X01 tensor-core MMA) added to strategylens.

``CATALOG`` is the folder of entries that the entry point in ``pyproject.toml`` registers; the
entry's ``detector.py`` is found there, beside its definition and examples.
"""

from pathlib import Path

CATALOG = Path(__file__).resolve().parent / "catalog"
