"""strategylens: explains why GPU code is fast."""

from __future__ import annotations

from pathlib import Path

__version__ = "0.1.0"

# The checkout the package runs from when installed editable (the normal set-up, see README).
# The bundled catalog, tasks and harness sources are found through strategylens.resources,
# which also knows an installed wheel's copies.
REPO_ROOT = Path(__file__).resolve().parent.parent
