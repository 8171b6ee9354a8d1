"""What the commands print: the grouped `tag` view, SARIF, --fail-on, record metadata, the
configuration file, -q, catalog lookups by slug and the generated-docs check."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from strategylens import __version__
from strategylens.catalog import load_catalog
from strategylens.cli import app, tag_output
from strategylens.resources import PACKAGE_DIR, TASKS_DIR
from strategylens.tag import FileResult, Label
from strategylens.detectors import Evidence

BFS = sorted(str(p) for p in (TASKS_DIR / "bfs" / "solutions").glob("*.cu"))[:2]
CATALOG = load_catalog(check_examples=False)


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("STRATEGYLENS_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("STRATEGYLENS_CONFIG", raising=False)


def invoke(*args: str):
    return CliRunner().invoke(app, list(args))


@pytest.fixture(scope="module")
def tagged():
    """The jsonl records of the two bfs files."""
    result = CliRunner().invoke(app, ["tag", *BFS, "-f", "jsonl", "-j", "1"])
    assert result.exit_code == 0, result.stderr
    return {r["path"]: r for r in map(json.loads, result.stdout.splitlines())}


def test_human_tag_lists_each_path_once_then_its_labels(tagged):
    result = invoke("tag", *BFS, "-j", "1")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    for path, rec in tagged.items():
        assert lines.count(path) == 1
        at = lines.index(path)
        body = lines[at + 1: at + 1 + len(rec["labels"])]
        assert [ln.split()[0] for ln in body] == [lb["id"] for lb in rec["labels"]]
        for ln, lb in zip(body, rec["labels"], strict=True):
            name = CATALOG.get(lb["id"]).name
            assert ln.startswith(f"  {lb['id']:<7} {name}")
            # the record rounds to 3 places, the table to 2: equal within the table's rounding
            shown = float(ln.rsplit(" p ", 1)[1])
            assert abs(shown - lb["probability"]) <= 0.0051, (ln, lb["probability"])
    assert sum(ln.count(BFS[0]) for ln in lines) == 1  # the path is not repeated per row


def test_human_view_shows_evidence_and_notes(capsys):
    ev = [Evidence(12, 14, "SharedTiling", "tile of 32x32"), Evidence(0, 0, "harness", "run")]
    result = FileResult("k.cu", True, labels=[Label("MEM-02", "strategy", 0.9, None, ev, 0.81)])
    result.notes = ["entry assumed: main", "evidence unavailable: no C reference"]
    tag_output.human([result, FileResult("bad.cu", False, "bad.cu: empty file, nothing to tag")],
                     CATALOG, show_evidence=True)
    assert capsys.readouterr().out.splitlines() == [
        "k.cu",
        "  MEM-02  Shared-memory tiling  12-14, run  p 0.81",
        "      12-14     SharedTiling: tile of 32x32",
        "      run       harness: run",
        "  note: entry assumed: main",
        "  note: evidence unavailable: no C reference",
        "",
        "bad.cu",
        "  error: empty file, nothing to tag",
        "",
    ]


def test_every_human_column_is_explained_in_help():
    text = " ".join(invoke("tag", "--help").stdout.split())
    for words in ("the catalog ID", "the catalog entry's name", "the evidence lines",
                  "calibrated probability", "confidence: the detector's own certainty"):
        assert words in text


def test_sarif_validates_and_matches_the_labels(tagged):
    from sarif_pydantic import Sarif

    result = invoke("tag", *BFS, "-f", "sarif", "-j", "1")
    assert result.exit_code == 0, result.stderr
    log = json.loads(result.stdout)
    Sarif.model_validate(log)  # the SARIF 2.1.0 object model
    schema = os.environ.get("STRATEGYLENS_SARIF_SCHEMA")  # the official JSON schema, if given
    if schema:
        import jsonschema

        jsonschema.Draft4Validator(json.loads(Path(schema).read_text())).validate(log)
    run = log["runs"][0]
    assert log["version"] == "2.1.0"
    assert run["tool"]["driver"]["version"] == __version__
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == [e.id for e in CATALOG.entries]
    got = sorted((r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], r["ruleId"],
                  tuple(loc["physicalLocation"]["region"]["startLine"] for loc in r["locations"]))
                 for r in run["results"])
    want = sorted((str(Path(p).resolve().relative_to(Path.cwd().resolve())), lb["id"],
                   tuple(e["line_start"] for e in lb["evidence"]))
                  for p, rec in tagged.items() for lb in rec["labels"])
    assert got == want
    for r in run["results"]:
        assert run["tool"]["driver"]["rules"][r["ruleIndex"]]["id"] == r["ruleId"]
        assert r["level"] == ("warning" if r["ruleId"].startswith("AP-") else "note")


def test_fail_on_exits_1_on_chosen_labels_only(tagged):
    ids = {lb["id"] for rec in tagged.values() for lb in rec["labels"]}
    assert "AP-02" in ids and not ids & {"PAR-09", "MEM-05", "MEM-06", "MEM-07", "MEM-08", "MEM-09"}
    hit = invoke("tag", *BFS, "-j", "1", "--fail-on", "AP-*")
    assert hit.exit_code == 1
    assert f"{BFS[0]}: AP-02" in " ".join(hit.stderr.split())
    assert invoke("tag", *BFS, "-j", "1", "--fail-on", "PAR-09,MEM-0[5-9]").exit_code == 0
    bad = invoke("tag", *BFS, "-j", "1", "--fail-on", "NOPE-1")
    assert bad.exit_code == 2 and "NOPE-1 matches no catalog ID" in bad.stderr


def test_fail_on_patterns():
    assert tag_output.parse_patterns(["ap-*,MEM-02", " flag:timer-tamper "]) == [
        "AP-*", "MEM-02", "flag:timer-tamper"]
    assert tag_output.check_patterns(["AP-*", "MEM-99", "flag:nope", "flag:stale*"], CATALOG,
                                     ["stale-output"]) == ["MEM-99", "flag:nope"]
    r = FileResult("k.cu", True, labels=[Label("AP-01", "anti-pattern", 0.9, None, [])])
    assert tag_output.fail_on([r], ["AP-*", "flag:stale*"], lambda p: ["stale-output"]) == [
        ("k.cu", "AP-01"), ("k.cu", "flag:stale-output")]


def test_json_records_carry_schema_and_versions(tagged):
    rec = next(iter(tagged.values()))
    assert {k: rec[k] for k in ("schema_version", "record_type", "tool", "tool_version")} == {
        "schema_version": 1, "record_type": "tag", "tool": "strategylens",
        "tool_version": __version__}
    assert rec["catalog_version"] == CATALOG.version
    rows = json.loads(invoke("catalog", "list", "-f", "json").stdout)
    assert [r["id"] for r in rows] == [e.id for e in CATALOG.entries]
    assert {r["record_type"] for r in rows} == {"catalog.list"}


def test_config_file_sets_defaults_and_names_bad_keys(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text('[tool.strategylens.catalog.list]\nformat = "csv"\n'
                                             'family = "PAR"\n')
    below = tmp_path / "a" / "b"
    below.mkdir(parents=True)
    monkeypatch.chdir(below)  # found from a subfolder, as ruff finds its configuration
    result = invoke("catalog", "list")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].startswith("id,name,slug")
    assert {ln.split(",")[0].split("-")[0] for ln in lines[1:]} == {"PAR"}
    assert invoke("catalog", "list", "-f", "json", "--family", "MEM").exit_code == 0  # flags win
    (below / "strategylens.toml").write_text("[tag]\nmax-byts = 10\n")
    bad = invoke("catalog", "list")
    assert bad.exit_code == 2
    assert f"{below / 'strategylens.toml'}: tag.max-byts: 'tag' has no option --max-byts" in \
        " ".join(bad.stderr.split())
    (below / "strategylens.toml").write_text("[tags]\n")
    assert "unknown table [tags]" in invoke("catalog", "list").stderr


def test_quiet_hides_warnings_not_errors(tmp_path):
    empty = tmp_path / "empty.cu"
    empty.write_text("\n")
    loud = invoke("tag", str(empty), BFS[0], "-j", "1")
    quiet = invoke("-q", "tag", str(empty), BFS[0], "-j", "1")
    assert loud.exit_code == quiet.exit_code == 1
    assert "could not be tagged" in loud.stderr and quiet.stderr == ""
    assert quiet.stdout == loud.stdout
    assert "error: " in invoke("-q", "tag", str(tmp_path / "none.cu")).stderr


def test_catalog_show_takes_a_slug():
    by_id = invoke("catalog", "show", "PAR-03")
    assert by_id.exit_code == 0
    for key in ("warp-shuffle-collectives", "PAR-03-warp-shuffle-collectives", "par-03"):
        assert invoke("catalog", "show", key).stdout == by_id.stdout
    miss = invoke("catalog", "show", "warp-shuffles")
    assert miss.exit_code == 2 and "a slug such as coalesced-access" in miss.stderr


def test_generated_catalog_docs_are_current(monkeypatch):
    monkeypatch.chdir(PACKAGE_DIR.parent)
    result = invoke("catalog", "docs", "--check")
    assert result.exit_code == 0, result.stderr


def test_q_values_below_a_thousandth_do_not_print_zero():
    from strategylens.cli.stats import rounded

    assert rounded([{"q_value": 0.0, "p_value": 2e-9, "multiplier": 1.23456, "q": 0.02}]) == [
        {"q_value": "<0.001", "p_value": "<0.001", "multiplier": 1.235, "q": 0.02}]


def test_sarif_carries_failures_and_notes_as_notifications():
    from sarif_pydantic import Sarif

    ok = FileResult("k.cu", True, labels=[Label("AP-01", "anti-pattern", 0.9, None,
                                                [Evidence(3, 3, "X", "why")], 0.7)])
    ok.notes = ["entry assumed: main"]
    bad = FileResult("bad.cu", False, "bad.cu: empty file, nothing to tag")
    log = tag_output.sarif_log([ok, bad], CATALOG, tool_version="1", catalog_version="c",
                               schema_version=1)
    Sarif.model_validate(log)
    inv = log["runs"][0]["invocations"][0]
    assert inv["executionSuccessful"] is False
    assert [(n["level"], n["message"]["text"]) for n in inv["toolExecutionNotifications"]] == [
        ("error", "bad.cu: empty file, nothing to tag"), ("note", "k.cu: entry assumed: main")]
    (res,) = log["runs"][0]["results"]
    assert (res["ruleId"], res["level"], res["message"]["text"]) == (
        "AP-01", "warning", f"AP-01 {CATALOG.get('AP-01').name}: why")
    assert res["locations"][0]["physicalLocation"]["region"] == {"startLine": 3, "endLine": 3}
