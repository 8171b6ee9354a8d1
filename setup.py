"""Build step of the wheel: the bundled folders (catalog/, tasks/, harness/) of the checkout go
into the package as strategylens/_data/<name>, where strategylens.resources.bundled() looks
first. An editable install (pip install -e) copies nothing: resources falls back to the
checkout. Everything else is in pyproject.toml."""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
BUNDLED = ("catalog", "tasks", "harness")
# what a checkout may hold beside the tracked files: bytecode, build outputs, dot files
IGNORE = shutil.ignore_patterns("__pycache__", "*.py[cod]", "*.so", "*.o", ".*")


class BuildPyWithData(build_py):
    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        for name in BUNDLED:
            dst = Path(self.build_lib) / "strategylens" / "_data" / name
            shutil.rmtree(dst, ignore_errors=True)
            shutil.copytree(ROOT / name, dst, ignore=IGNORE)


setup(cmdclass={"build_py": BuildPyWithData})
