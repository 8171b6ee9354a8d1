"""Tests of the report, the `stats` and `report` commands, and the committed example."""

from __future__ import annotations

import doctest
import json
import re
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from strategylens import report, stats
from strategylens.cli import app

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "analyses" / "example-report"
runner = CliRunner()


@pytest.fixture(scope="module")
def sim_csv(tmp_path_factory):
    path = tmp_path_factory.mktemp("sim") / "sim.csv"
    corpus = stats.simulate_corpus(n_tasks=10, n_authors=4, seed=7)
    frame = corpus.frame
    frame["HST-06"] = 0  # never used: must be reported, not dropped
    frame.to_csv(path, index=False)
    return path


def test_report_doctests():
    assert doctest.testmod(report).failed == 0


def test_report_numbers_match_cli_tables(sim_csv, tmp_path):
    out = tmp_path / "rep"
    result = runner.invoke(app, ["report", "--data", str(sim_csv), "--out", str(out),
                                 "--bootstrap", "30", "--banner", "Simulated"])
    assert result.exit_code == 0, result.output
    html = (out / "report.html").read_text()
    md = (out / "report.md").read_text()
    for name in ("forest", "structural", "cooccurrence", "speedup_cpu", "task_matrix"):
        assert (out / "figures" / f"{name}.png").stat().st_size > 5000
        assert f"figures/{name}.png" in html and f"figures/{name}.png" in md
    cli = runner.invoke(app, ["stats", "effects", "--data", str(sim_csv), "--bootstrap", "30",
                              "-f", "json"])
    assert cli.exit_code == 0, cli.output
    effects = json.loads(cli.stdout[cli.stdout.index("["):])
    names = report.strategy_names()
    for row in effects:
        if row["estimable"]:
            cell = report.fmt_num(row["multiplier"])
            assert re.search(rf"<td>{re.escape(row['strategy'])}</td><td>[^<]*</td><td>[^<]*</td>"
                             rf'<td class="num">{re.escape(cell)}</td>', html), row["strategy"]
            assert f"| {row['strategy']} | {names[row['strategy']]} | {row['kind']} | {cell} |" \
                in md
    assert "HST-06" in html and "not used by any correct solution" in html
    saved = pd.read_csv(out / "tables" / "effects.csv")
    assert saved.strategy.tolist() == [r["strategy"] for r in effects]
    assert "Simulated" in html and "> **Simulated**" in md


def test_report_without_cpu_time_says_so(tmp_path):
    corpus = stats.simulate_corpus(n_tasks=6, n_authors=3, samples=2, seed=3)
    table = corpus.data.table.drop(columns=["cpu_ms"])
    data = stats.prepare_table(table, "nocpu.csv")
    paths = report.build_report(data, tmp_path, bootstrap=0, inference="cr3")
    assert "speedup_cpu" not in paths
    assert "no <code>cpu_ms</code> column" in paths["html"].read_text()
    assert "no `cpu_ms` column" in paths["markdown"].read_text()


def test_report_shows_the_dose_table_when_intensities_exist(tmp_path):
    corpus = stats.simulate_corpus(n_tasks=12, seed=8, doses={"PAR-02": 0.2})
    paths = report.build_report(corpus.data, tmp_path / "with", bootstrap=0, inference="cr3")
    md = paths["markdown"].read_text()
    doses = pd.read_csv(tmp_path / "with" / "tables" / "doses.csv").set_index("strategy")
    row = doses.loc["PAR-02"]
    assert row.ci_low_log < 0.2 < row.ci_high_log
    assert f"| PAR-02 | Thread coarsening | S | {row.multiplier_per_doubling:.2f} |" in md
    plain = stats.simulate_corpus(n_tasks=6, n_authors=3, seed=3)
    md = report.build_report(plain.data, tmp_path / "without", bootstrap=0,
                             inference="cr3")["markdown"].read_text()
    assert "No strategy has an intensity column in these data." in md


def test_cli_bad_input_exit_code(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("task,speedup\na,1\n")
    result = runner.invoke(app, ["stats", "effects", "--data", str(bad)])
    assert result.exit_code == 2
    assert f"{bad}: missing required column(s) solution" in result.output
    result = runner.invoke(app, ["report", "--store", str(tmp_path), "--out", str(tmp_path)])
    assert result.exit_code == 2
    assert "--store DIR together with --labels FILE" in result.output


def test_cli_contrasts_leaderboard_simulate(sim_csv, tmp_path):
    res = runner.invoke(app, ["stats", "contrasts", "--data", str(sim_csv), "--kind",
                              "structural", "-f", "csv"])
    assert res.exit_code == 0, res.output
    lines = [ln for ln in res.stdout.splitlines() if ln.startswith(("contrast", "structural",
                                                                    "micro"))]
    assert lines[0] == ("contrast,method,multiplier,multiplier_low,multiplier_high,p_value,"
                        "n_strategies,note")
    assert [ln.split(",")[:2] for ln in lines[1:]] == [
        ["structural", "mean of effects"], ["micro", "mean of effects"],
        ["structural - micro", "mean of effects"], ["structural", "count model"],
        ["micro", "count model"], ["structural - micro", "count model"]]
    res = runner.invoke(app, ["stats", "contrasts", "--data", str(sim_csv), "--kind",
                              "acceleval", "-f", "jsonl"])
    rows = [json.loads(ln) for ln in res.stdout.splitlines() if ln.startswith("{")]
    assert {r["strategy"] for r in rows} >= set(stats.DEFAULT_EFFECTS)
    res = runner.invoke(app, ["stats", "leaderboard", "--data", str(sim_csv), "--p", "2",
                              "--k", "2", "-f", "jsonl"])
    rows = [json.loads(ln) for ln in res.stdout.splitlines() if ln.startswith("{")]
    assert {(r["p"], r["k"]) for r in rows} == {(2.0, 2)}
    assert [r["size"] for r in rows][:1] == ["small"]
    out = tmp_path / "s.csv"
    res = runner.invoke(app, ["stats", "simulate", "--out", str(out), "--tasks", "3",
                              "--authors", "2", "--samples", "1", "-f", "json"])
    assert res.exit_code == 0, res.output
    truth = json.loads(out.with_suffix(".truth.json").read_text())
    assert truth["effects_log"] == stats.DEFAULT_EFFECTS
    assert pd.read_csv(out)["task"].nunique() == 3


def test_committed_example_is_consistent():
    """The committed report was rendered from the committed data."""
    html = (EXAMPLE / "report" / "report.html").read_text()
    assert "SIMULATED DATA" in html
    for name in ("forest", "structural", "cooccurrence", "speedup_cpu", "task_matrix"):
        assert (EXAMPLE / "report" / "figures" / f"{name}.png").exists()
    data = stats.read_data_csv(EXAMPLE / "data.csv")
    saved = pd.read_csv(EXAMPLE / "report" / "tables" / "effects.csv")
    fit = stats.fit_effects(data)
    pd.testing.assert_series_equal(saved["effect_log"], fit.table["effect_log"].astype(float),
                                   check_exact=False, atol=1e-9)
    truth = json.loads((EXAMPLE / "truth.json").read_text())
    est = saved.set_index("strategy")
    covered = [est.loc[s, "ci_low_log"] <= v <= est.loc[s, "ci_high_log"]
               for s, v in truth["effects_log"].items()]
    assert sum(covered) >= len(covered) - 2


def test_degenerate_inputs(tmp_path):
    one = pd.DataFrame({"task": "a", "solution": list("wxyz"), "speedup": [1.0, 2, 3, 4],
                        "MEM-02": [1, 1, 0, 0]})
    with pytest.raises(stats.DataError, match="only 1 task with passing solutions"):
        stats.fit_effects(stats.prepare_table(one, "one.csv"))
    two = pd.concat([one, one.assign(task="b")]).drop(columns="MEM-02")
    paths = report.build_report(stats.prepare_table(two, "two.csv"), tmp_path, bootstrap=0)
    assert sorted(paths) == ["forest", "html", "markdown", "structural"]
    assert "No effect by size could be estimated" in paths["markdown"].read_text()


def test_time_breakdown_from_the_committed_h200_store(tmp_path):
    root = Path(__file__).resolve().parents[1]
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps({"path": f"tasks/{t}/solutions/baseline.cu", "ok": True,
                                          "labels": []}) + "\n"
                              for t in ("bfs", "heat2d", "histogram")))
    data = stats.load_analysis(None, root / "analyses" / "h200", labels)
    time = report.time_breakdown(data.table).set_index(["task", "size"])
    row = data.table.set_index(["task", "size"]).loc[("heat2d", "large")]
    got = time.loc[("heat2d", "large")]
    assert got.solutions == 1 and got.e2e_ms == row.e2e_ms_median
    assert got.kernel_share == pytest.approx(row.kernel_ms / row.e2e_ms_median)
    assert got.copy_share == pytest.approx((row.h2d_ms + row.d2h_ms) / row.e2e_ms_median, rel=0.01)
    assert list(time.loc["bfs"].index) == ["small", "medium", "large"]
    md = report.build_report(data, tmp_path / "out", bootstrap=0,
                             inference="cr3")["markdown"].read_text()
    assert "## Where the time goes" in md and "figures/time.png" in md
    plain = stats.simulate_corpus(n_tasks=6, n_authors=3, seed=3)
    md = report.build_report(plain.data, tmp_path / "sim", bootstrap=0,
                             inference="cr3")["markdown"].read_text()
    assert "The data have no profile columns" in md


def test_report_opens_with_what_the_data_cannot_support(tmp_path):
    """One port per task, one size, no failures: said up front, with strategy names."""
    ports = pd.DataFrame({"task": list("abcdef"), "solution": "port.cu", "size": "large",
                          "speedup": [2.0, 3, 4, 5, 6, 7], "cpu_ms": 10.0,
                          "MEM-02": [1, 0, 1, 0, 1, 0]})
    paths = report.build_report(stats.prepare_table(ports, "ports.csv"), tmp_path, bootstrap=0)
    md = paths["markdown"].read_text()
    head = md[md.index("## What these data can support"):md.index("## Data")]
    assert head.splitlines()[2] == (
        "6 task(s), 6 solution(s) with a passing row, size(s) large; 6 passing rows, 0 failed "
        "(not compiled or wrong), 0 excluded for a cheating audit flag.")
    assert [ln for ln in head.splitlines() if ln.startswith("- ")] == [
        "- each task has one solution (one port per task): a strategy's effect is measured "
        "between solutions of the same task, so no effect, contrast or size trend can be "
        "estimated; the figures of those sections are empty",
        "- one size (large): no effect by size",
        "- no failed attempt: pass rates, fast_p and pass@k say nothing here"]
    assert "| MEM-02 | Shared-memory tiling | S |" in md
    assert "*kind*: S structural" in md


def test_failures_and_exclusions_are_counted_apart(tmp_path):
    rows = pd.DataFrame({"task": ["a"] * 4 + ["b"] * 4, "solution": list("wxyz") * 2,
                         "speedup": [1.0, 2, 3, 4] * 2, "correct": [1, 1, 0, 1] * 2,
                         "audit_flags": ["", "", "", "timer-tamper"] * 2,
                         "MEM-02": [1, 0, 1, 0] * 2})
    tables = report.compute_tables(stats.prepare_table(rows, "r.csv"), bootstrap=0)
    assert tables.failures.to_dict("records") == [
        {"author": "unknown", "n": 8, "passed": 4, "excluded": 2, "failed": 2}]
