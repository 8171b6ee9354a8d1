"""Held-out-style checks of the statistics: corpora from the simulator where the planted effects
are known, small, unbalanced, few-task, bundled and survivorship ones. Every row must either
cover honestly or say why it has no number; a zero-width interval is a failure.

The large runs are in analyses/stats-coverage/ (families.py, results.md); these are the fast,
seeded ones.
"""

from __future__ import annotations

import math
import numpy as np
import pandas as pd
import pytest

from strategylens import stats
from strategylens.stats.survivorship import survivorship


def _rows(corpus, fit):
    table = fit.table.set_index("strategy")
    return [(sid, true, table.loc[sid]) for sid, true in corpus.effects.items()
            if sid in table.index]


def _has_interval(row) -> bool:
    return bool(row.estimable) and np.isfinite(row.ci_low_log) and np.isfinite(row.ci_high_log)


def test_small_unbalanced_few_task_and_bundled_corpora_cover_or_say_why():
    families = ([dict(n_tasks=10, attempt=(0.1, 1.0), seed=s) for s in range(6)]
                + [dict(n_tasks=6, n_authors=4, seed=s) for s in range(4)]
                + [dict(n_tasks=12, bundle_break=0.02, seed=s) for s in range(3)])
    hits, kinds = [], {"interval": 0, "no interval": 0, "not estimable": 0}
    for kwargs in families:
        corpus = stats.simulate_corpus(**kwargs)
        fit = stats.fit_effects(corpus.data, structural=corpus.structural)
        for sid, true, row in _rows(corpus, fit):
            if _has_interval(row):
                kinds["interval"] += 1
                assert row.ci_high_log - row.ci_low_log > 0.05, (kwargs, sid)
                assert row.se_log > 0.01, (kwargs, sid)
                hits.append(row.ci_low_log <= true <= row.ci_high_log)
            elif row.estimable:
                kinds["no interval"] += 1
                assert row.note.startswith("no interval: the data cannot support one: ")
                assert np.isnan(row.p_value) and np.isnan(row.q_value)
            else:
                kinds["not estimable"] += 1
                assert row.note.startswith("not estimable: ") and np.isnan(row.effect_log)
    assert kinds["interval"] >= 120 and kinds["not estimable"] >= 1, kinds
    coverage = float(np.mean(hits))
    assert 0.90 <= coverage <= 0.99, (coverage, kinds)


def test_saturated_corpus_prints_no_number():
    """10 tasks, one solution per author and task, authors attempting 10-100% of the tasks:
    fewer solutions than parameters. The old model printed zero-width intervals here."""
    corpus = stats.simulate_corpus(n_tasks=10, samples=1, attempt=(0.1, 1.0), seed=1)
    fit = stats.fit_effects(corpus.data, structural=corpus.structural)
    t = fit.table
    assert not t.estimable.any()
    assert t.effect_log.isna().all() and t.ci_low_log.isna().all()
    assert t.note.str.startswith("not estimable: ").all()
    assert t.note.str.contains("solution-level degrees of freedom exhausted").sum() >= 1


def test_three_task_corpus_gives_no_interval_and_says_why():
    """3 tasks, 4 authors x 2 samples (about 20 passing solutions for 18 parameters): every row
    says why it has no interval; the count model (2 parameters) keeps its estimates."""
    corpus = stats.simulate_corpus(n_tasks=3, n_authors=4, seed=1)
    fit = stats.fit_effects(corpus.data, structural=corpus.structural)
    t = fit.table
    assert t.ci_low_log.isna().all() and t.p_value.isna().all() and not t.estimable.any()
    assert t.note.str.startswith("not estimable: solution-level degrees of freedom "
                                 "exhausted").all()
    sc = stats.structural_contrast(corpus.data, fit, structural=corpus.structural)
    assert sc.method.tolist() == ["count model"] * 3
    assert sc.ci_low_log.isna().all() and sc.estimable.all()
    assert sc.note.str.startswith("no interval: the data cannot support one: 3 task(s) carry "
                                  "it (need 5)").all()


def test_survivorship_bounds_cover_where_the_survivors_estimate_is_biased():
    planted = stats.DEFAULT_EFFECTS["MEM-02"]
    for seed in range(3):
        corpus = stats.simulate_corpus(n_tasks=12, seed=seed, bundle=None,
                                       survivorship={"MEM-02": 0.6})
        fit = stats.fit_effects(corpus.data, structural=corpus.structural)
        surv = survivorship(corpus.data, fit, structural=corpus.structural).set_index(
            "strategy")
        row = surv.loc["MEM-02"]
        assert row.estimable and row.trim_share > 0.2
        assert row.pass_effect < -0.2  # its users fail more often
        assert row.bound_ci_low_log <= planted <= row.bound_ci_high_log
        assert row.bound_low_log <= row.effect_log <= row.bound_high_log
        other = surv.loc["CMP-05"]
        assert other.trim_share < 0.25


def test_without_failures_the_survivorship_check_is_not_available():
    corpus = stats.simulate_corpus(n_tasks=6, n_authors=3, seed=3)
    data = stats.prepare_table(corpus.data.table, "passed-only.csv")
    assert len(data.failures) == 0 and len(data.excluded) == 0
    out = survivorship(data, stats.fit_effects(data, structural=corpus.structural))
    assert out.empty and list(out.columns)[:3] == ["strategy", "kind", "n_attempts"]


def test_size_contrast_ranks_each_tasks_own_sizes():
    corpus = stats.simulate_corpus(n_tasks=12, seed=2, size_growth=0.8)
    table = corpus.data.table.copy()
    order = {"small": 0, "medium": 1, "large": 2}
    # every task names its own sizes: comparing labels across tasks would be meaningless
    code = table.task.map({t: i for i, t in enumerate(sorted(table.task.unique()))})
    table["size"] = [f"n={(o + 1) * 10 ** (c % 4 + 2)}" for o, c in
                     zip(table["size"].map(order), code, strict=True)]
    ranks, labels = stats.task_size_ranks(table)
    assert labels == ["rank 1 of 3", "rank 2 of 3", "rank 3 of 3"]
    own = stats.size_effects(table, structural=corpus.structural, inference="cr3")
    ref = stats.size_effects(corpus.data, structural=corpus.structural, inference="cr3")
    assert own["size"].unique().tolist() == labels + ["rank 3 of 3 - rank 1 of 3"]
    np.testing.assert_allclose(own.effect_log.to_numpy(dtype=float),
                               ref.effect_log.to_numpy(dtype=float), equal_nan=True)
    finite = own.dropna(subset=["multiplier"])
    assert finite.multiplier.between(0.2, 5).all()
    assert finite.q_value.notna().all()
    # a task with a size fewer: the ranks are not comparable, the contrast refuses
    short = table[~((table.task == table.task.iloc[0]) & (ranks == 2))]
    refused = stats.size_effects(short, structural=corpus.structural, inference="cr3")
    assert refused.note.str.startswith("refused: tasks have different numbers of sizes").all()
    assert refused.effect_log.isna().all()


def test_size_interactions_are_screened_like_main_effects():
    corpus = stats.simulate_corpus(n_tasks=12, seed=3)
    table = corpus.data.table.copy()
    # CMP-01 at the largest size: used by two solutions only
    users = table[(table["size"] == "large") & (table["CMP-01"] == 1)]
    drop = users.drop_duplicates(["task", "solution"]).iloc[2:]
    table.loc[table.set_index(["task", "solution", "size"]).index.isin(
        drop.set_index(["task", "solution", "size"]).index), "CMP-01"] = 0
    se = stats.size_effects(table, structural=corpus.structural, inference="cr3").set_index(
        ["strategy", "size"])
    assert se.loc[("CMP-01", "large"), "note"] == (
        "not estimable: too rare at this size: 2 solution(s) use it (need 3)")
    assert not se.loc[("CMP-01", "large"), "estimable"]
    assert se.loc[("CMP-01", "small"), "estimable"]
    assert ("CMP-01", "large - small") not in se.index


def test_identification_columns_are_on_every_row():
    corpus = stats.simulate_corpus(n_tasks=8, n_authors=4, seed=9)
    t = stats.fit_effects(corpus.data, structural=corpus.structural).table
    est = t[t.estimable]
    assert set(est.n_clusters) == {8}
    assert (est.eff_clusters > 0).all() and (est.eff_clusters <= 8).all()
    assert est.max_leverage.between(1 / 8, 1).all()
    with_ci = est[est.ci_low_log.notna()]
    assert set(with_ci.inference) == {"wild"}
    cr3 = stats.fit_effects(corpus.data, structural=corpus.structural, inference="cr3").table
    assert set(cr3[cr3.ci_low_log.notna()].inference) == {"cr3"}


@pytest.mark.parametrize("bad", ["nope"])
def test_unknown_inference_is_refused(bad):
    corpus = stats.simulate_corpus(n_tasks=4, n_authors=2, seed=0)
    with pytest.raises(ValueError, match="inference must be auto, wild, cr3 or cr1"):
        stats.fit_effects(corpus.data, structural=corpus.structural, inference=bad)


def test_catalog_flags_feed_the_simulator_truth():
    corpus = stats.simulate_corpus(n_tasks=3, n_authors=2, samples=1, seed=0)
    flags = stats.load_structural_map()
    assert corpus.structural == {s: flags[s] for s in corpus.effects}
    assert pd.Series(corpus.structural).sum() == 6


# ---- ablation ladders ------------------------------------------------------------------------

def _ladder(tmp_path):
    """A synthetic ladder in task dbscan: base -> +MEM-02 (planted 0.45) -> +CMP-01 (0.40), the
    variants written by the base's author; 20 timed trials per solution and size."""
    import yaml

    corpus = stats.simulate_corpus(n_tasks=8, seed=4, bundle=None)
    frame = corpus.frame
    ok = frame[frame.correct & (frame.task == "dbscan") & (frame["MEM-02"] == 0)
               & (frame["CMP-01"] == 0)]
    base_name = ok.solution.iloc[0]
    base = frame[frame.solution == base_name]
    v1 = base.assign(solution="dbscan/ladder/v1.cu", **{"MEM-02": 1},
                     speedup=base.speedup * np.exp(0.45))
    v2 = v1.assign(solution="dbscan/ladder/v2.cu", **{"CMP-01": 1},
                   speedup=v1.speedup * np.exp(0.40))
    frame = pd.concat([frame, v1, v2], ignore_index=True)
    rng = np.random.default_rng(0)
    trials = pd.concat([pd.DataFrame({
        "task": r.task, "solution": r.solution, "size": r.size, "phase": "timed",
        "inside_ms": r.cpu_ms / r.speedup * np.exp(rng.normal(0, 0.02, 20))})
        for r in pd.concat([base, v1, v2]).itertuples()], ignore_index=True)
    labels = tmp_path / "labels.yaml"
    labels.write_text(yaml.safe_dump({
        "v1.cu": {"task": "dbscan", "ablation": {"family": "dbscan-ladder",
                                                 "base": base_name.split("/", 1)[1],
                                                 "changes": "MEM-02"}},
        "v2.cu": {"task": "dbscan", "ablation": {"family": "dbscan-ladder", "base": "v1.cu",
                                                 "changes": "CMP-01"}},
        "other.cu": {"task": "dbscan", "present": {"MEM-01": [3]}}}))
    return corpus, frame, trials, labels


def test_ablation_ladder_steps_and_the_model_on_independent_solutions(tmp_path):
    from strategylens.stats import ablations

    corpus, frame, trials, labels = _ladder(tmp_path)
    ladder = ablations.read_ladders([labels])
    assert ladder[["solution", "changes"]].values.tolist() == [["v1.cu", "MEM-02"],
                                                               ["v2.cu", "CMP-01"]]
    data = stats.prepare_table(frame, "ladder.csv")
    steps = ablations.step_effects(data.table, ladder, trials)
    assert steps.groupby("strategy").size().to_dict() == {"CMP-01": 3, "MEM-02": 3}
    assert (steps.direction == 1).all()
    mem = steps[steps.strategy == "MEM-02"]
    assert (mem.ci_low_log < 0.45).all() and (mem.ci_high_log > 0.45).all()
    assert ((mem.ci_high_log - mem.ci_low_log) < 0.05).all()  # 20 trials, 2% noise
    base_only = ablations.independent(data, ladder)
    assert len(base_only.table) == len(data.table) - 6
    assert not base_only.table.solution.str.contains("ladder").any()
    assert base_only.problems[-1] == ("ladder.csv: 2 ablation variant(s) left out of the "
                                      "effects model (each family keeps its base)")
    fit = stats.fit_effects(base_only, structural=corpus.structural, inference="cr3")
    summary = ablations.ablation_summary(steps, fit, structural=corpus.structural)
    row = summary.set_index("strategy").loc["MEM-02"]
    assert row.ladder_effect_log == pytest.approx(0.45, abs=0.01)
    assert row.n_steps == 1 and row.ladder_low_log < 0.45 < row.ladder_high_log
    assert row.model_effect_log == fit.table.set_index("strategy").loc["MEM-02", "effect_log"]
    assert row.agreement in ("intervals overlap", "intervals disjoint")


def test_ablation_ladder_errors_name_the_file(tmp_path):
    from strategylens.stats import ablations

    bad = tmp_path / "labels.yaml"
    bad.write_text("v1.cu:\n  task: t\n  ablation: {family: f, changes: MEM-02}\n")
    with pytest.raises(stats.DataError, match=r"labels\.yaml: v1\.cu: ablation needs base"):
        ablations.read_ladders([bad])
    # a family's root declares base and changes null: not a step, not an error
    good = tmp_path / "root.yaml"
    good.write_text("b.cu:\n  ablation: {family: f, base: null, changes: null}\n"
                    "v.cu:\n  ablation: {family: f, base: b.cu, changes: mem-02}\n")
    got = ablations.read_ladders([good])
    assert got[["solution", "family", "base", "changes"]].values.tolist() == [
        ["v.cu", "f", "b.cu", "MEM-02"]]


def test_a_ladder_root_is_not_a_step(tmp_path):
    """The corpus declares each family's root with base: null, changes: null."""
    from strategylens.stats import ablations

    labels = tmp_path / "labels.yaml"
    labels.write_text("root.cu:\n  task: t\n  ablation: {family: f, base: null, changes: null}\n"
                      "v1.cu:\n  task: t\n  ablation: {family: f, base: root.cu, changes: "
                      "mem-02}\n")
    assert ablations.read_ladders([labels]).to_dict("records") == [
        {"task": "t", "solution": "v1.cu", "family": "f", "base": "root.cu", "changes": "MEM-02"}]


def test_cli_ablations_and_report_section(tmp_path):
    from typer.testing import CliRunner

    from strategylens import report
    from strategylens.cli import app
    from strategylens.stats import ablations

    corpus, frame, trials, labels = _ladder(tmp_path)
    csv = tmp_path / "ladder.csv"
    frame.to_csv(csv, index=False)
    res = CliRunner().invoke(app, ["stats", "ablations", "--data", str(csv), "--ladders",
                                   str(labels), "--inference", "cr3", "-f", "json"])
    assert res.exit_code == 0, res.output
    import json

    rows = {r["strategy"]: r for r in json.loads(res.stdout)}
    assert set(rows) == {"MEM-02", "CMP-01"}
    assert rows["CMP-01"]["ladder_effect_log"] == pytest.approx(0.40, abs=0.01)
    assert rows["CMP-01"]["note"] == "no raw trials: the ladder effect has no interval"
    assert "without trial intervals" in res.stderr
    paths = report.build_report(stats.prepare_table(frame, "ladder.csv"), tmp_path / "rep",
                                bootstrap=0, inference="cr3",
                                ladders=ablations.read_ladders([labels]), trials=trials)
    md = paths["markdown"].read_text()
    assert "## Ablation ladders" in md and "| MEM-02 | Shared-memory tiling | S | 1.57 |" in md
    none = CliRunner().invoke(app, ["stats", "ablations", "--data", str(csv)])
    assert none.exit_code == 2 and "no ablation entries" in none.output


def test_ablation_step_with_a_file_the_labels_leave_out():
    import pandas as pd

    from strategylens.stats import ablations

    table = pd.DataFrame({"task": ["t", "t"], "solution": ["b.cu", "v.cu"], "size": ["m", "m"],
                          "speedup": [2.0, 4.0], "MEM-02": [0.0, float("nan")]})
    ladders = pd.DataFrame([{"task": "t", "solution": "v.cu", "family": "f", "base": "b.cu",
                             "changes": "MEM-02"}])
    got = ablations.step_effects(table, ladders)
    assert got["effect_log"].round(6).tolist() == [round(math.log(2.0), 6)]
    assert "do not show MEM-02 changing" in got["note"].iloc[0]


def test_real_three_task_corpus_every_row_says_why_it_has_no_interval():
    """The H200 corpus (black_scholes, knapsack, nbody at medium; hand labels; no ablation
    variants): with the task bootstrap on, each row keeps the model's reason beside the
    bootstrap's."""
    import io
    import json
    from pathlib import Path

    from typer.testing import CliRunner

    from strategylens.cli import app

    data = Path(__file__).resolve().parents[1] / "analyses/stats-coverage/real-3-tasks/data.csv"
    res = CliRunner().invoke(app, ["stats", "effects", "--data", str(data), "--bootstrap", "40",
                                   "-f", "json"])
    assert res.exit_code == 0, res.output
    rows = json.load(io.StringIO(res.stdout))
    assert len(rows) == 43
    for r in rows:
        has_ci = r["ci_low_log"] is not None and r["ci_low_log"] == r["ci_low_log"]
        if r["estimable"]:
            assert not has_ci and r["note"].startswith(
                "no interval: the data cannot support one: "), r
        else:
            assert r["note"].startswith("not estimable: ") and not has_ci, r
    assert sum(r["estimable"] for r in rows) >= 10
