"""The catalog as tested data: schema, rules, CLI, docs, and every example and case of every entry.

The example tests are parametrised over the files on disk, so adding a strategy adds no test code.
"""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import tree_sitter
import tree_sitter_cuda
from typer.testing import CliRunner

from strategylens import REPO_ROOT
from strategylens import catalog as cat
from strategylens.cli import app
from strategylens.model.preproc import normalise_spellings

FIXTURES = Path(__file__).parent / "fixtures"
PLUGIN = REPO_ROOT / "examples" / "strategylens-tensorcore"
runner = CliRunner()


def _taxonomy() -> list[dict]:
    with open(FIXTURES / "taxonomy.csv") as f:
        return list(csv.DictReader(f))


def _all_examples() -> list[Path]:
    """The documented examples (positive/, negative/) of the built-in and the plugin catalog."""
    return [p for p in sorted(REPO_ROOT.glob("catalog/*/*/*.cu")) +
            sorted(PLUGIN.glob("strategylens_tensorcore/catalog/*/*/*.cu"))
            if p.parent.name in ("positive", "negative")]


def _all_cases() -> list[Path]:
    return sorted(REPO_ROOT.glob("catalog/*/cases/*.cu"))


BUILTIN = cat.load_catalog()


def test_builtin_catalog_matches_taxonomy():
    rows = _taxonomy()
    assert [str(e) for e in BUILTIN.errors] == []
    got = {e.id: (e.slug, e.structural) for e in BUILTIN.entries}
    want = {r["id"]: (r["slug"], {"S": True, "m": False, "": None}[r["sm"]]) for r in rows}
    assert got == want
    assert cat.counts(BUILTIN) == {"strategies": 43, "structural": 27, "micro": 16,
                                   "anti_patterns": 5, "retired": 0, "errors": 0}


def test_validate_cli_reports_counts():
    result = runner.invoke(app, ["catalog", "validate"])
    assert result.exit_code == 0, result.output
    assert "43 strategies (27 structural, 16 micro), 5 anti-patterns" in result.output


def test_list_json_objects():
    result = runner.invoke(app, ["catalog", "list", "--format", "json"])
    assert result.exit_code == 0
    rows = json.loads(result.stdout)
    assert len(rows) == 48
    by_id = {r["id"]: r for r in rows}
    assert by_id["MEM-02"] == {**by_id["MEM-02"], "slug": "shared-memory-tiling", "family": "MEM",
                               "kind": "strategy", "structural": True, "status": "active"}
    assert by_id["AP-04"]["kind"] == "anti-pattern" and by_id["AP-04"]["structural"] is None
    assert {"id", "slug", "name", "family", "kind", "structural", "status"} <= set(rows[0])


def test_show_unknown_id_is_usage_error():
    result = runner.invoke(app, ["catalog", "show", "XYZ-99"])
    assert result.exit_code == 2
    assert "no catalog entry 'XYZ-99'" in result.output


def _copy_entry(src_id: str, dest_root: Path) -> Path:
    src = BUILTIN.get(src_id).path
    dest = dest_root / src.name
    shutil.copytree(src, dest)
    return dest


def _edit_yaml(folder: Path, old: str, new: str) -> Path:
    yml = folder / "strategy.yaml"
    text = yml.read_text()
    assert old in text
    yml.write_text(text.replace(old, new, 1))
    return yml


def test_missing_field_message(tmp_path):
    import yaml

    folder = _copy_entry("MEM-05", tmp_path)
    yml = folder / "strategy.yaml"
    data = yaml.safe_load(yml.read_text())
    del data["why_faster"]
    data["id"] = "MEM-X05"
    shutil.move(folder, tmp_path / "MEM-X05-constant-memory")
    yml = tmp_path / "MEM-X05-constant-memory" / "strategy.yaml"
    yml.write_text(yaml.safe_dump(data))
    c = cat.load_catalog([tmp_path])
    errs = [e for e in c.errors if Path(e.file) == yml]
    assert [(e.field, e.problem) for e in errs] == [("why_faster", "is missing")]
    assert "add `why_faster:`" in errs[0].fix


def test_duplicate_id_message(tmp_path):
    folder = _copy_entry("PAR-04", tmp_path)
    c = cat.load_catalog([tmp_path])
    errs = [e for e in c.errors if Path(e.file) == folder / "strategy.yaml"]
    assert [e.field for e in errs] == ["id"]
    assert "duplicate ID PAR-04" in errs[0].problem and "never reused" in errs[0].fix
    result = runner.invoke(app, ["catalog", "validate", "--catalog", str(tmp_path)])
    assert result.exit_code == 1
    assert "duplicate ID PAR-04" in result.output


def test_unknown_family_message(tmp_path):
    folder = _copy_entry("CMP-04", tmp_path)
    yml = _edit_yaml(folder, "family: CMP", "family: XYZ")
    c = cat.load_catalog([tmp_path])
    errs = [e for e in c.errors if Path(e.file) == yml]
    assert [e.field for e in errs] == ["family"]
    assert "use one of: MEM, CMP, PAR, LBL, HST, AP" == errs[0].fix


def test_folder_name_and_negative_annotation_rules(tmp_path):
    folder = _copy_entry("MEM-06", tmp_path)
    renamed = tmp_path / "MEM-X06-wrong-name"
    shutil.move(folder, renamed)
    _edit_yaml(renamed, "id: MEM-06", "id: MEM-X06")
    neg = sorted((renamed / "negative").glob("*.cu"))[0]
    neg.write_text(neg.read_text().replace("ok: MEM-06", "ok: MEM-X06").replace("// ok: MEM-X06", ""))
    c = cat.load_catalog([tmp_path])
    fields = {(e.field, Path(e.file).name) for e in c.errors}
    assert ("id", "strategy.yaml") in fields  # folder must be <id>-<slug>
    assert ("annotations", neg.name) in fields  # negative without an ok: line


def test_parse_annotations_rules():
    src = ("// expect: MEM-02\n\n// a plain comment\n__shared__ float t[32];\n"
           "x = 1; // ok: MEM-05, CMP-04\n// todo-expect: PAR-01\ny = 2;\n")
    got = [(a.line, a.kind, a.id) for a in cat.parse_annotations(src)]
    assert got == [(4, "expect", "MEM-02"), (5, "ok", "MEM-05"), (5, "ok", "CMP-04"),
                   (7, "todo-expect", "PAR-01")]


class _Ev:
    def __init__(self, a, b):
        self.line_start, self.line_end = a, b


class _Lab:
    def __init__(self, sid, *spans):
        self.id = sid
        self.evidence = [_Ev(a, b) for a, b in spans]


def test_score_example_outcomes(tmp_path):
    f = tmp_path / "ex.cu"
    f.write_text("a;\nb; // expect: MEM-02\nc; // ok: MEM-02\nd; // expect: CMP-04\ne;\n")
    labels = [_Lab("MEM-02", (2, 2), (5, 5)), _Lab("PAR-01", (1, 1))]
    got = sorted((o.id, o.line, o.outcome) for o in cat.score_example(f, "MEM-02", labels))
    # PAR-01 is neither the folder's ID nor annotated in the file: not checked.
    assert got == [("CMP-04", 4, "missing"), ("MEM-02", 2, "reported"), ("MEM-02", 3, "validated"),
                   ("MEM-02", 5, "noisy")]
    rows = {r["id"]: r for r in cat.precision_recall(cat.score_example(f, "MEM-02", labels))}
    assert rows["MEM-02"]["precision"] == 0.5 and rows["MEM-02"]["recall"] == 1.0
    assert rows["CMP-04"]["recall"] == 0.0


def test_docs_render_every_entry_with_tested_examples(tmp_path):
    out = tmp_path / "catalog.md"
    result = runner.invoke(app, ["catalog", "docs", "--out", str(out)])
    assert result.exit_code == 0, result.output
    text = out.read_text()
    for e in BUILTIN.entries:
        assert f"## {e.id} {e.slug}" in text
        assert e.positives[0].read_text().splitlines()[0] in text
    assert text.count("### Why it is faster") == 48


# ---- every example, parametrised over the files on disk -------------------------------------

_PARSER = tree_sitter.Parser(tree_sitter.Language(tree_sitter_cuda.language()))


@pytest.mark.parametrize("path", _all_examples() + _all_cases(),
                         ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}/{p.name}")
def test_example_parses_without_error_nodes(path):
    # as the model reads it: GCC's __restrict written as __restrict__
    tree = _PARSER.parse(normalise_spellings(path.read_bytes()))
    assert not tree.root_node.has_error, f"{path}: tree-sitter-cuda reports ERROR nodes"


# stand-ins for the library headers some cases include (the tagger is tested without them)
HEADERS = FIXTURES / "catalog-headers"


def _nvcc(path: Path) -> tuple[Path, int, str]:
    proc = subprocess.run(["nvcc", "-std=c++17", "-arch=sm_90", f"-I{HEADERS}", "-c", str(path),
                           "-o", "/dev/null"], capture_output=True, text=True)
    return path, proc.returncode, proc.stderr


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on PATH")
def test_every_example_compiles_with_nvcc():
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(_nvcc, _all_examples() + _all_cases()))
    failures = [f"{p}:\n{e}" for p, rc, e in results if rc != 0]
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("entry", BUILTIN.entries, ids=lambda e: e.id)
def test_example_annotations_hold(entry):
    from strategylens import tag
    from strategylens.detectors import load_detectors

    detectors = load_detectors(BUILTIN)
    outcomes = cat.test_catalog(
        BUILTIN, lambda p: tag.tag_example(p, detectors=detectors, catalog=BUILTIN).labels,
        only=[entry.id])
    bad = [f"{o.outcome}: {o.id} at {o.example}:{o.line}" for o in outcomes
           if o.outcome in ("missing", "noisy")]
    assert not bad, "\n".join(bad)
    assert any(o.outcome == "reported" for o in outcomes)


@pytest.mark.parametrize("entry", [e for e in BUILTIN.entries if e.cases], ids=lambda e: e.id)
def test_case_annotations_hold_without_the_index(entry):
    """The cases hold on the tree-sitter strides too (most come from tests that ran without the
    libclang pass; ``catalog test`` runs it)."""
    from strategylens import tag
    from strategylens.detectors import load_detectors

    detectors = load_detectors(BUILTIN)
    outcomes = [o for path in entry.cases for o in cat.score_example(
        path, entry.id, tag.tag_example(path, detectors=detectors, index=False,
                                        catalog=BUILTIN).labels)]
    bad = [f"{o.outcome}: {o.id} at {o.example}:{o.line}" for o in outcomes
           if o.outcome in ("missing", "noisy")]
    assert not bad, "\n".join(bad)
    assert outcomes
