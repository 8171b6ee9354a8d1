"""strategylens: explains why GPU code is fast."""

from __future__ import annotations

from pathlib import Path

__version__ = "0.1.0"

# The repository root when installed editable (the normal set-up, see README); built-in
# catalog and tasks live there.
REPO_ROOT = Path(__file__).resolve().parent.parent
