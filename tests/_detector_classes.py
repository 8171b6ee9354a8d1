"""The catalog detectors by family, for the detector tests (the classes live in
catalog/<ID>-<slug>/detector.py)."""

from types import SimpleNamespace

from strategylens.detectors import load_detectors


def family(*prefixes: str) -> SimpleNamespace:
    """A namespace of the detector classes whose IDs start with one of ``prefixes``, by class
    name, plus ``DETECTORS`` (the classes in ID order)."""
    found = load_detectors()
    classes = [type(d) for sid in sorted(found) if sid.startswith(prefixes) for d in found[sid]]
    return SimpleNamespace(DETECTORS=classes, **{c.__name__: c for c in classes})
