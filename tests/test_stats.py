"""Tests of strategylens.stats: loading, joining, effects, contrasts, leaderboard, simulation."""

from __future__ import annotations

import doctest
import json
import math

import numpy as np
import pandas as pd
import pytest

from strategylens import stats


@pytest.mark.parametrize("name", stats.MODULES)
def test_doctests_run(name):
    import importlib

    module = importlib.import_module(f"strategylens.stats.{name}")
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 2
    assert result.failed == 0


# ---- loading -------------------------------------------------------------------------------

def test_prepare_table_splits_rows_and_names_the_file():
    raw = pd.DataFrame({
        "task": ["a", "a", "a", "b", "b", "c"],
        "solution": ["s1", "s2", "s3", "s1", "s1", "s9"],
        "size": ["m"] * 6,
        "speedup": [3.0, 5.0, None, 2.0, 9.0, 7.0],
        "correct": ["true", "1", "0", "yes", "true", "true"],
        "audit_flags": ["", "cross-call-state;precision", "", "precision", "", "timer-tamper"],
        "MEM-02": [1, 0, 1, 0, 0, 1],
        "AP-04": [0, 1, 0, 0, 0, 0],
    })
    data = stats.prepare_table(raw, "runs.csv")
    assert data.strategies == ["MEM-02"]
    assert data.table[["task", "solution"]].values.tolist() == [["a", "s1"], ["b", "s1"]]
    assert list(data.failures.solution) == ["s3"]
    assert list(data.excluded.solution) == ["s2", "s9"]
    assert data.excluded.cheating_flags.tolist() == ["cross-call-state", "timer-tamper"]
    assert data.problems == ["runs.csv: 1 duplicate (task, solution, size) rows; the first of "
                             "each is used"]


def test_host_compute_below_a_device_size_is_a_size_dispatch():
    # "hyb" answers small inputs on the host and runs kernels from medium on; "host" computes on
    # the host at every size (a cheat); "mix" is flagged at small with another cheating flag
    raw = pd.DataFrame({
        "task": ["t"] * 7,
        "solution": ["hyb", "hyb", "hyb", "host", "host", "mix", "mix"],
        "size": ["small", "medium", "large", "small", "large", "small", "large"],
        "cpu_ms": [1.0, 10.0, 100.0, 1.0, 100.0, 1.0, 100.0],
        "speedup": [0.9, 20.0, 40.0, 1.1, 1.0, 0.8, 30.0],
        "kernel_launches": [0, 3, 3, 0, 0, 0, 2],
        "audit_flags": ["host-compute", "", "", "host-compute", "host-compute",
                        "host-compute;stale-output", ""],
    })
    data = stats.prepare_table(raw, "runs.csv")
    kept = data.table[["solution", "size"]].values.tolist()
    assert ["hyb", "small"] in kept and ["mix", "large"] in kept
    assert data.excluded[["solution", "size", "cheating_flags"]].values.tolist() == [
        ["host", "small", "host-compute"], ["host", "large", "host-compute"],
        ["mix", "small", "host-compute;stale-output"]]
    assert any("1 row(s) flagged host-compute" in p and "size dispatch" in p
               for p in data.problems)


def test_missing_column_error_names_file(tmp_path):
    f = tmp_path / "bad.csv"
    f.write_text("task,solution\na,b\n")
    with pytest.raises(stats.DataError, match=r"bad\.csv: missing required column\(s\) speedup"):
        stats.read_data_csv(f)


def test_bad_strategy_values_are_reported(tmp_path):
    f = tmp_path / "d.csv"
    f.write_text("task,solution,speedup,MEM-02\na,x,2.0,1\na,y,3.0,maybe\na,z,1.0,True\n")
    data = stats.read_data_csv(f)
    assert data.table["MEM-02"].tolist() == [1, 0, 1]
    assert data.problems == [f"{f}: strategy column MEM-02 must be 0/1; other values in rows 3 "
                             "read as 0"]


def _jsonl(path, records):
    path.write_text("\n".join(json.dumps(r) for r in records) + "\nnot json\n")


def test_read_labels_jsonl_and_join(tmp_path):
    lab = tmp_path / "tags.jsonl"
    ev = [{"line_start": 3, "line_end": 9, "detector": "d"}]
    _jsonl(lab, [
        {"path": "runs/m1/bfs/sample_0.cu", "ok": True, "error": None, "labels": [
            {"id": "LBL-03", "kind": "strategy", "confidence": 0.9, "intensity": None,
             "evidence": ev},
            {"id": "MEM-02", "kind": "strategy", "confidence": 0.8, "intensity": 1024,
             "evidence": ev + ev}]},
        {"path": "runs/m1/sort/sample_0.cu", "ok": True, "labels": []},
        {"path": "runs/m1/scan/sample_0.cu", "ok": False, "error": "parse error", "labels": []},
    ])
    labels, problems = stats.read_labels(lab)
    assert problems[1].startswith(f"{lab}:4: not a label record")
    assert problems[0] == (f"{lab}:3: tagger failed on runs/m1/scan/sample_0.cu: parse error; "
                           "its strategies are unknown, so it is left out")
    assert sorted(labels.dropna(subset=["id"]).id.unique()) == ["LBL-03", "MEM-02"]
    results = pd.DataFrame({"task": ["bfs", "bfs", "sort", "scan", "bfs"],
                            "solution": ["sample_0.cu", "sample_0.cu", "sample_0.cu",
                                         "sample_0.cu", "other.cu"],
                            "size": ["small", "large", "small", "small", "small"],
                            "speedup": [2.0, 8.0, 3.0, 4.0, 1.0]})
    joined, jp = stats.join_results_labels(results, labels)
    assert joined[["task", "size", "LBL-03", "MEM-02"]].values.tolist() == [
        ["bfs", "small", 1, 1], ["bfs", "large", 1, 1], ["sort", "small", 0, 0]]
    assert joined["MEM-02:intensity"].tolist()[:2] == [1024.0, 1024.0]
    assert jp == ["solution sample_0.cu of task scan: 2 labelled files match by name, none in a "
                  "folder named scan; left out",
                  "solution other.cu of task bfs: no labelled file matches; left out"]


def test_join_reports_ambiguous_paths():
    labels = pd.DataFrame({"path": ["a/x/s.cu", "b/x/s.cu"], "id": ["MEM-02", "MEM-01"]})
    joined, problems = stats.join_results_labels(
        pd.DataFrame({"task": ["x"], "solution": ["s.cu"]}), labels)
    assert joined.empty
    assert problems == ["solution s.cu of task x: 2 labelled files match (a/x/s.cu, b/x/s.cu); "
                        "left out"]


def test_read_labels_parquet(tmp_path):
    f = tmp_path / "labels.parquet"
    pd.DataFrame({"path": ["t/s.cu", "t/s.cu"], "id": ["MEM-06", "CMP-04"],
                  "kind": "strategy", "confidence": [1.0, 0.5], "intensity": [4, None],
                  "line_start": [1, 2], "line_end": [1, 2], "detector": "x"}).to_parquet(f)
    labels, problems = stats.read_labels(f)
    wide = stats.labels_wide(labels, min_confidence=0.6)
    assert problems == []
    assert wide.to_dict("index") == {"t/s.cu": {"MEM-06": 1, "MEM-06:intensity": 4.0}}


def test_store_without_module_says_so(monkeypatch, tmp_path):
    import builtins

    real_import = builtins.__import__

    def fake(name, *a, **k):
        if name == "strategylens.store":
            raise ImportError("No module named 'strategylens.store'")
        return real_import(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", fake)
    with pytest.raises(stats.DataError, match="needs strategylens.store.read_results"):
        stats.read_store_results(tmp_path)


def test_structural_map_comes_from_the_catalog(tmp_path):
    from strategylens.catalog import load_catalog

    catalog = load_catalog(check_examples=False)
    expect = {e.id: e.structural for e in catalog.entries if e.kind == "strategy"}
    assert stats.load_structural_map() == expect
    assert len(expect) == 43 and sum(expect.values()) == 27
    # an extra catalog folder adds its strategies
    src = next(e.path for e in catalog.entries if e.id == "MEM-06")
    text = (src / "strategy.yaml").read_text().replace("id: MEM-06", "id: MEM-99").replace(
        "structural: false", "structural: true").replace("slug: vectorized-access", "slug: thing")
    (tmp_path / "MEM-99-thing").mkdir()
    (tmp_path / "MEM-99-thing" / "strategy.yaml").write_text(text)
    m = stats.load_structural_map([tmp_path])
    assert m["MEM-99"] is True and m["MEM-02"] is True and m["CMP-05"] is False


def test_structural_map_says_when_the_catalog_cannot_be_read(monkeypatch):
    from strategylens import catalog

    def broken(*args, **kwargs):
        raise OSError("permission denied")

    monkeypatch.setattr(catalog, "load_catalog", broken)
    stats.data._structural_map.cache_clear()
    try:
        with pytest.raises(stats.CatalogUnavailable, match=r"strategy catalog \(.*catalog.*\): "
                           r"cannot be read \(permission denied\)"):
            stats.load_structural_map()
    finally:
        stats.data._structural_map.cache_clear()


# ---- effects -------------------------------------------------------------------------------

def _hand_table(seed=0, tasks=6):
    """Small corpus with every kind of not-estimable strategy."""
    rng = np.random.default_rng(seed)
    rows = []
    for t in range(tasks):
        for i in range(8):
            a = f"au{i % 4}"
            x1 = int(rng.random() < 0.5)
            x2 = int(rng.random() < 0.5)
            x3 = int(rng.random() < 0.5)
            rows.append({
                "task": f"t{t}", "solution": f"s{i}", "size": "m", "author": a,
                "MEM-01": x1, "CMP-04": x2, "LBL-02": x3,
                "PAR-02": x1,                       # identical to MEM-01
                "PAR-03": 1 - x3,                   # LBL-02's complement: collinear with cells
                "MEM-06": int(t % 2 == 0),          # constant within each task
                "CMP-05": int(t == 0 and i == 0),   # used once
                "HST-02": int(a == "au1"),          # the author's fixed effect
                "LBL-01": 0,                        # never used
                "PAR-11": 1,                        # always used
                "speedup": math.exp(1 + t * 0.3 + 0.4 * x1 + 0.1 * x2 + 0.2 * x3
                                    + rng.normal(0, 0.1)),
            })
    return pd.DataFrame(rows)


def test_not_estimable_strategies_are_reported_with_reasons():
    fit = stats.fit_effects(_hand_table(tasks=8), min_tasks=2)
    t = fit.table.set_index("strategy")
    assert set(t.index) == {"MEM-01", "MEM-06", "CMP-04", "CMP-05", "PAR-02", "PAR-03",
                            "PAR-11", "LBL-01", "LBL-02", "HST-02", "MEM-01+PAR-02"}
    assert t.loc["CMP-04", "estimable"] and t.loc["CMP-04", "note"] == ""
    notes = t["note"].to_dict()
    assert notes["LBL-01"] == "not estimable: not used by any correct solution"
    assert notes["PAR-11"] == "not estimable: used by every correct solution: no comparison"
    assert notes["CMP-05"] == "not estimable: too rare: 1 solution(s) use it (need 3)"
    assert notes["MEM-06"].startswith("not estimable: no within-task variation")
    assert notes["HST-02"] == "not estimable: perfectly collinear with the fixed effects"
    assert notes["MEM-01"] == ("not estimable: always co-occurs with PAR-02: only the bundle "
                               "MEM-01+PAR-02 is estimable")
    # the kept one of a collinear pair says which dropped strategy its effect includes
    assert notes["LBL-02"] == ("not estimable: perfectly collinear with the fixed effects and "
                               "PAR-03")
    assert notes["PAR-03"] == "includes the effect of LBL-02, perfectly collinear with it"
    assert not t.loc[["LBL-01", "PAR-11", "CMP-05", "MEM-06", "HST-02", "MEM-01", "PAR-02",
                      "LBL-02"], "estimable"].any()
    bundle = t.loc["MEM-01+PAR-02"]
    assert bundle.kind == "bundle" and bundle.estimable
    assert abs(bundle.effect_log - 0.4) < 0.1
    assert t.loc["MEM-01", "bundle"] == t.loc["PAR-02", "bundle"] == bundle.bundle
    assert set(t.loc[t.estimable, "inference"]) == {"wild"}
    assert set(t.loc[t.estimable, "n_clusters"]) == {8}


def _full_dummy_fit(table, strategies):
    cell = pd.get_dummies(table.task + "|" + table["size"], dtype=float)
    auth = pd.get_dummies(table.author, drop_first=True, dtype=float)
    x = np.hstack([cell.to_numpy(), auth.to_numpy(), table[strategies].to_numpy(float)])
    y = np.log(table.speedup.to_numpy())
    return np.linalg.lstsq(x, y, rcond=None)[0][-len(strategies):]


def test_pyfixest_fit_and_cv3_match_hand_rolled_least_squares():
    import pyfixest as pf

    corpus = stats.simulate_corpus(n_tasks=8, n_authors=4, seed=6)
    table = corpus.data.table.reset_index(drop=True)
    fit = stats.fit_effects(table, structural=corpus.structural, inference="cr3")
    assert fit.model.loo.null == []  # every leave-one-task-out refit identifies every column
    strategies = [fit.columns[n][0] for n in fit.params.index]
    beta = _full_dummy_fit(table, strategies)
    np.testing.assert_allclose(fit.params.to_numpy(), beta, atol=1e-8)
    # CV3 is the jackknife over true leave-one-task-out refits: every fixed effect refitted
    tasks = list(dict.fromkeys(table.task))
    loo = np.array([_full_dummy_fit(table[table.task != t], strategies) for t in tasks])
    g = len(tasks)
    expect = (g - 1) / g * (loo - beta).T @ (loo - beta)
    np.testing.assert_allclose(fit.cov.to_numpy(), expect, rtol=1e-6, atol=1e-12)
    # and pyfixest's own CRV3 (its refits, without its small-sample factor) says the same
    own = pf.feols(fit.model.design.formula, fit.model.design.frame, vcov={"CRV3": "task"},
                   ssc=pf.ssc(k_adj=False, G_adj=False))
    np.testing.assert_allclose(fit.cov.to_numpy(), (g - 1) / g * np.asarray(own._vcov),
                               rtol=1e-6, atol=1e-12)
    assert fit.df_inference == g - 1


def test_cv3_of_a_bundle_survives_a_refit_that_cannot_split_it():
    """Without the one task where MEM-02 and PAR-04 differ, the refit cannot tell them apart:
    each alone is not estimable, their sum is, with the refits' own variance."""
    corpus = stats.simulate_corpus(n_tasks=8, n_authors=4, seed=5)
    table = corpus.data.table.reset_index(drop=True)
    fit = stats.fit_effects(table, structural=corpus.structural, inference="cr3")
    t = fit.table.set_index("strategy")
    # each alone: identified only by the few solutions where they differ, fitted exactly
    for sid in ("MEM-02", "PAR-04"):
        assert t.loc[sid, "note"].startswith("not estimable: solution-level degrees of freedom "
                                             "exhausted")
    assert t.loc["MEM-02+PAR-04", "estimable"]
    strategies = [fit.columns[n][0] for n in fit.params.index]
    alone = np.array([1.0 if s == "PAR-04" else 0.0 for s in strategies])
    assert fit.model.loo.unidentified(alone) == ["histogram"]
    w = np.array([1.0 if s in ("MEM-02", "PAR-04") else 0.0 for s in strategies])
    assert fit.model.loo.unidentified(w) == []
    tasks = list(dict.fromkeys(table.task))
    sums = np.array([_full_dummy_fit(table[table.task != k], strategies) @ w for k in tasks])
    g = len(tasks)
    expect = (g - 1) / g * np.sum((sums - fit.params.to_numpy() @ w) ** 2)
    assert fit.model.variance(w) == pytest.approx(expect, rel=1e-6)


def test_wild_bootstrap_statistics_match_wildboottest(monkeypatch):
    from wildboottest.wildboottest import WildboottestCL

    from strategylens.stats import backend

    monkeypatch.setattr(backend, "WILD_DRAWS", 999)
    rng = np.random.default_rng(1)
    x = rng.normal(size=(300, 4))
    y = x @ np.array([0.3, -0.2, 0.0, 0.5]) + rng.normal(size=300)
    cl = rng.integers(0, 7, 300)
    r = np.array([0.0, 1.0, 0.0, 0.0])
    for kind in ("11", "13"):
        base = backend.WildBootstrap(x, y, cl, seed=3, kind=kind)
        test = base.test(r)
        for b in (0.0, 0.7):
            wb = WildboottestCL(X=x, Y=y - b * x[:, 1], cluster=cl, R=r,
                                B=backend.WILD_DRAWS, seed=3, parallel=False)
            wb.get_scores(bootstrap_type=kind, impose_null=True)
            wb.get_weights(weights_type="webb")
            wb.get_numer()
            np.testing.assert_allclose(base.scores(r, b), wb.scores_mat, atol=1e-10)
            if kind == "11":
                wb.get_denom()
                denom = wb.denom
            else:  # the package's CV3 denominator loop (its get_denom fails on numpy 2)
                inv = [np.linalg.pinv(wb.tXX - m) for m in wb.tXgXg_list]
                denom = np.zeros(wb.B)
                for d in range(wb.B):
                    sg = wb.scores_mat.T * wb.v[:, d][:, None]
                    s_all = sg.sum(0)
                    delta = wb.tXXinv @ s_all
                    denom[d] = wb.ssc * sum(((inv[g] @ (s_all - sg[g]) - delta) ** 2)[1]
                                            for g in range(7))
            np.testing.assert_allclose(test.t_boot(b), wb.numer / np.sqrt(denom), rtol=1e-9)
            if kind == "11":
                wb.get_denom()
                wb.get_tboot()
                wb.get_vcov()
                wb.get_tstat()
                wb.get_pvalue()
                assert test.pvalue(b) == pytest.approx(float(wb.pvalue))
    # the interval is the set the test does not reject: p at its ends is alpha
    low, high = test.interval(0.05)
    assert test.pvalue(low + 1e-4) >= 0.05 > test.pvalue(low - 1e-3)
    assert test.pvalue(high - 1e-4) >= 0.05 > test.pvalue(high + 1e-3)


def test_task_bootstrap_agrees_with_the_interval_and_reports_its_share():
    corpus = stats.simulate_corpus(n_tasks=16, seed=11)
    fit = stats.fit_effects(corpus.data, structural=corpus.structural, bootstrap=60, seed=2)
    t = fit.table[fit.table.estimable & (fit.table.bundle == "")]
    assert (t.boot_share == 1.0).all()
    ratio = (t.boot_high_log - t.boot_low_log) / (t.ci_high_log - t.ci_low_log)
    assert ratio.between(0.5, 1.6).all(), ratio.tolist()
    mid = (t.boot_high_log + t.boot_low_log) / 2
    assert (abs(mid - t.effect_log) < 0.5 * (t.ci_high_log - t.ci_low_log)).all()


def test_bootstrap_interval_is_withheld_when_draws_do_not_identify_the_row():
    from strategylens.stats.effects import TaskBootstrap, boot_interval

    draws = np.array([[0.1, 0.2], [0.2, np.nan], [0.3, 0.1], [0.2, 0.3]] * 10)
    boot = TaskBootstrap(draws, ["MEM-01", "PAR-04"])
    out = boot_interval(boot, None, {"PAR-04": 1.0}, 0.05)
    assert out["boot_share"] == 0.75 and math.isnan(out["boot_low_log"])
    assert out["note"] == "bootstrap interval withheld: 75% of draws identified it (need 95%)"
    out = boot_interval(boot, None, {"MEM-01": 1.0}, 0.05)
    assert out["boot_share"] == 1.0 and math.isnan(out["boot_low_log"])
    assert out["note"] == ("bootstrap interval withheld: 75% of draws identified the whole "
                           "model (need 90%)")


@pytest.mark.slow
def test_simulation_recovers_planted_effects_and_naive_is_biased():
    """Monte Carlo check of the whole method on confounded corpora.

    12 corpora of 12 tasks, 6 authors (skill raises both speedup and strategy use), a planted
    MEM-02/PAR-04 bundle: about 140 intervals pooled over 12 strategies (the wild bootstrap,
    as 12 tasks are few). analyses/stats-coverage/ has the larger runs (60 corpora: 0.939).
    """
    hits, ours, naive, lift, contrast = [], [], [], [], []
    for rep in range(12):
        c = stats.simulate_corpus(n_tasks=12, seed=500 + rep)
        fit = stats.fit_effects(c.data, structural=c.structural)
        t = fit.table.set_index("strategy")
        a = stats.acceleval_measures(c.data).set_index("strategy")
        for sid, true in c.effects.items():
            row = t.loc[sid]
            if not (row.estimable and np.isfinite(row.ci_low_log)):
                continue
            hits.append(row.ci_low_log <= true <= row.ci_high_log)
            ours.append(row.effect_log - true)
            naive.append(math.log(a.loc[sid, "naive_ratio"]) - true)
            lift.append(math.log(a.loc[sid, "lift"]) - true)
        sc = stats.structural_contrast(c.data, fit, structural=c.structural)
        contrast.append(sc.query("contrast == 'structural - micro' and "
                                 "method == 'mean of effects'").iloc[0])
    assert len(hits) >= 135
    coverage = float(np.mean(hits))
    assert 0.90 <= coverage <= 0.99, coverage
    assert abs(np.mean(ours)) < 0.03
    # author skill drives both strategy use and speedup: the uncontrolled measures inflate
    assert np.mean(naive) > 0.3 and np.mean(lift) > 0.3
    assert np.mean(np.array(naive) > 0) > 0.9
    true_diff = (np.mean([v for s, v in c.effects.items() if c.structural[s]])
                 - np.mean([v for s, v in c.effects.items() if not c.structural[s]]))
    est = np.array([r.estimate_log for r in contrast])
    assert (est > 0).all()
    assert abs(est.mean() - true_diff) < 0.03
    covered = np.mean([r.ci_low_log <= true_diff <= r.ci_high_log for r in contrast])
    assert covered >= 0.85


def test_structural_contrast_count_model_and_groups():
    c = stats.simulate_corpus(n_tasks=16, seed=4)
    sc = stats.structural_contrast(c.data, structural=c.structural)
    assert sc[["contrast", "method"]].values.tolist() == [
        ["structural", "mean of effects"], ["micro", "mean of effects"],
        ["structural - micro", "mean of effects"], ["structural", "count model"],
        ["micro", "count model"], ["structural - micro", "count model"]]
    s_row = sc.iloc[0]
    assert s_row.strategies.split(";") == ["MEM-01", "MEM-02", "CMP-01", "PAR-02", "PAR-04",
                                           "LBL-02"]
    assert (sc.query("contrast == 'structural - micro'").ci_low_log > 0).all()
    assert set(sc.inference) == {"wild"} and set(sc.n_clusters) == {16}


def test_size_effects_detect_growth():
    c = stats.simulate_corpus(n_tasks=16, seed=2, size_growth=0.8)
    se = stats.size_effects(c.data, structural=c.structural)
    assert se["size"].unique().tolist() == ["small", "medium", "large", "large - small"]
    trend = se[se["size"] == "large - small"].set_index("strategy")
    # CMP-01 0.4 planted: 0.4 * 0.8 * 2 = 0.64 more on large than small
    assert trend.loc["CMP-01", "ci_low_log"] > 0
    assert abs(trend.loc["CMP-01", "effect_log"] - 0.4 * 1.6) < 0.25
    assert se["q_value"].notna().sum() == se["p_value"].notna().sum() > 0
    one = c.data.table[c.data.table["size"] == "medium"]
    assert stats.size_effects(one).empty


# ---- co-occurrence, AccelEval measures, leaderboard -----------------------------------------

def test_bundles_by_threshold():
    t = pd.DataFrame({"task": "t", "solution": list("abcdefghij"), "author": "x",
                      "MEM-02": [1, 1, 1, 1, 1, 1, 0, 0, 0, 0],
                      "PAR-04": [1, 1, 1, 1, 1, 0, 0, 0, 0, 0],   # J = 5/6
                      "CMP-04": [1, 1, 1, 0, 0, 0, 0, 0, 1, 1]})  # J = 3/8 and 3/7
    assert stats.find_bundles(t, ["MEM-02", "PAR-04", "CMP-04"], 0.9) == []
    assert stats.find_bundles(t, ["MEM-02", "PAR-04", "CMP-04"], 0.6) == [["MEM-02", "PAR-04"]]
    assert stats.find_bundles(t, ["MEM-02", "PAR-04", "CMP-04"], 0.4) == [
        ["MEM-02", "CMP-04", "PAR-04"]]


def test_acceleval_measures_exact():
    t = pd.DataFrame({
        "task": ["a", "a", "a", "b", "b", "b"], "solution": list("uvwxyz"), "size": "m",
        "author": "q", "speedup": [8.0, 2.0, 4.0, 3.0, 12.0, 3.0],
        "MEM-02": [1, 0, 0, 0, 1, 1], "CMP-04": [1, 1, 1, 1, 1, 1]})
    m = stats.acceleval_measures(t).set_index("strategy")
    # task a: log 8 - mean(log 2, log 4) = log(8 / sqrt 8); task b: mean(log 12, log 3) - log 3
    expect_lift = math.exp((math.log(8 / math.sqrt(8)) + math.log(6 / 3)) / 2)
    assert m.loc["MEM-02", "lift"] == pytest.approx(expect_lift)
    assert m.loc["MEM-02", "winner_coverage"] == 1.0
    assert m.loc["MEM-02", "prevalence"] == pytest.approx(0.5)
    assert m.loc["MEM-02", "selectivity"] == pytest.approx(2.0)
    assert m.loc["MEM-02", "naive_ratio"] == pytest.approx(
        math.exp(np.mean(np.log([8, 12, 3])) - np.mean(np.log([2, 4, 3]))))
    assert math.isnan(m.loc["CMP-04", "lift"]) and m.loc["CMP-04", "selectivity"] == 1.0


def test_leaderboard_metrics():
    rows = pd.DataFrame({
        "task": ["a", "a", "a", "a", "b", "b", "b", "b"],
        "solution": [f"s{i}" for i in range(8)], "size": "m",
        "author": ["u", "u", "v", "v", "u", "u", "v", "v"],
        "speedup": [4.0, 1.0, 8.0, None, 2.0, 0.5, 6.0, 3.0],
        "correct": [1, 1, 1, 0, 1, 1, 1, 1],
        "audit_flags": ["", "", "", "", "", "", "", "cross-call-state"]})
    data = stats.prepare_table(rows)
    lb = stats.leaderboard(data, p=1.5, k=2).set_index("author")
    u, v = lb.loc["u"], lb.loc["v"]
    assert (u.n, u.passed, v.n, v.passed) == (4, 4, 4, 2)
    assert u.gm_speedup == pytest.approx((4 * 1 * 2 * 0.5) ** 0.25)
    assert v.gm_speedup == pytest.approx(math.sqrt(48))
    # best: a = 8, b = 6; v's failure on a scores min(1, slowest correct on a = 1) / 8, its
    # cheating row on b min(1, slowest correct on b = 0.5) / 6: below u's correct 0.5x row
    assert u.par_gm == pytest.approx((4 / 8 * 1 / 8 * 2 / 6 * 0.5 / 6) ** 0.25)
    assert v.par_gm == pytest.approx((1 * 1 / 8 * 1 * 0.5 / 6) ** 0.25)
    assert u.fast_p == pytest.approx(0.5) and v.fast_p == pytest.approx(0.5)
    # pass@2 with n = 2 per task: u passes both tasks surely; v has c = 1 of 2 on each
    assert u.pass_at_k == 1.0 and v.pass_at_k == 1.0
    lb1 = stats.leaderboard(data, k=1).set_index("author")
    assert lb1.loc["v", "pass_at_k"] == pytest.approx(0.5)
    fixed = stats.leaderboard(data, best={("a", "m"): 16.0, ("b", "m"): 6.0}).set_index("author")
    assert fixed.loc["v", "par_gm"] == pytest.approx((0.5 * 1 / 16 * 1 * 0.5 / 6) ** 0.25)
    assert set(lb["pass_at_k_tasks"]) == {2}


def test_leaderboard_never_scores_a_failure_above_a_slower_correct_solution():
    rows = pd.DataFrame({"task": ["a", "a", "a"], "solution": ["s0", "s1", "s2"], "size": "m",
                         "author": ["fails", "slow", "fast"], "speedup": [None, 0.4, 4.0],
                         "correct": [0, 1, 1]})
    lb = stats.leaderboard(stats.prepare_table(rows)).set_index("author")
    assert lb.loc["slow", "par_gm"] == pytest.approx(0.4 / 4)
    assert lb.loc["fails", "par_gm"] == pytest.approx(0.4 / 4)  # capped at the slowest correct
    assert lb.index[0] == "fast" and lb.loc["fast", "par_gm"] == pytest.approx(1.0)


def test_pass_at_k_uses_the_tasks_every_author_has_k_samples_of():
    rows = pd.DataFrame({
        "task": ["a"] * 4 + ["b"] * 3, "solution": [f"s{i}" for i in range(7)], "size": "m",
        "author": ["u", "u", "v", "v", "u", "u", "v"],
        "speedup": [2.0, None, 3.0, 3.0, None, None, 2.0],
        "correct": [1, 0, 1, 1, 0, 0, 1]})
    lb = stats.leaderboard(stats.prepare_table(rows), k=2).set_index("author")
    # v has one sample of b: only task a is common to both at k = 2
    assert set(lb["pass_at_k_tasks"]) == {1}
    assert lb.loc["u", "pass_at_k"] == pytest.approx(1.0)   # 1 of 2 on a, pass@2 = 1
    assert lb.loc["v", "pass_at_k"] == pytest.approx(1.0)
    lb1 = stats.leaderboard(stats.prepare_table(rows), k=1).set_index("author")
    assert set(lb1["pass_at_k_tasks"]) == {2}
    assert lb1.loc["u", "pass_at_k"] == pytest.approx((0.5 + 0.0) / 2)


def test_pass_at_k_matches_enumeration():
    from itertools import combinations

    n, c, k = 6, 2, 3
    samples = [1] * c + [0] * (n - c)
    subsets = list(combinations(range(n), k))
    expect = sum(any(samples[i] for i in s) for s in subsets) / len(subsets)
    assert stats.pass_at_k(n, c, k) == pytest.approx(expect)


def test_load_analysis_from_store_and_labels(tmp_path):
    from strategylens import store

    base = {"compiled": True, "e2e_ms_median": 1.0, "e2e_ms_iqr": 0.01, "n_trials": 9,
            "gpu_name": "H200", "kernel_launches": 1, "h2d_bytes": 8, "d2h_bytes": 8,
            "kernel_ms": 0.5}
    runs = [("bfs", "runs/m1/bfs/a.cu", True, 4.0, []),
            ("bfs", "runs/m1/bfs/b.cu", True, 9.0, ["cross-call-state"]),
            ("bfs", "runs/m1/bfs/c.cu", False, None, []),
            ("sort", "runs/m1/sort/a.cu", True, 2.0, ["precision"])]
    for task, sol, ok, speed, flags in runs:
        store.append(tmp_path / "st", {**base, "task": task, "solution": sol, "size": "small",
                                       "correct": ok, "cpu_ms": 10.0, "speedup": speed,
                                       "audit_flags": flags})
    lab = tmp_path / "tags.jsonl"
    lab.write_text("\n".join(json.dumps({"path": p, "ok": True, "labels": [
        {"id": i, "kind": "strategy", "confidence": 1.0, "intensity": None,
         "evidence": [{"line_start": 1, "line_end": 2, "detector": "x"}]} for i in ids]})
        for p, ids in [("/abs/runs/m1/bfs/a.cu", ["MEM-02"]), ("/abs/runs/m1/bfs/b.cu", []),
                       ("/abs/runs/m1/bfs/c.cu", ["MEM-02", "PAR-04"]),
                       ("/abs/runs/m1/sort/a.cu", ["PAR-04"])]) + "\n")
    data = stats.load_analysis(store=tmp_path / "st", labels=lab)
    assert data.problems == []
    assert data.strategies == ["MEM-02", "PAR-04"]
    assert data.table[["task", "solution", "MEM-02", "PAR-04"]].values.tolist() == [
        ["bfs", "runs/m1/bfs/a.cu", 1, 0], ["sort", "runs/m1/sort/a.cu", 0, 1]]
    assert data.excluded[["solution", "cheating_flags"]].values.tolist() == [
        ["runs/m1/bfs/b.cu", "cross-call-state"]]
    assert data.failures["solution"].tolist() == ["runs/m1/bfs/c.cu"]


def test_dose_response_recovers_planted_slopes_where_the_naive_slope_is_biased():
    planted = {"PAR-02": 0.15, "MEM-02": -0.1}
    ours, naive = [], []
    for seed in range(12):
        corpus = stats.simulate_corpus(n_tasks=12, seed=200 + seed, doses=planted)
        d = stats.dose_response(corpus.data, structural=corpus.structural,
                                inference="cr3").set_index("strategy")
        assert set(d.index) == set(planted) and d["estimable"].all()
        ours.append([d.loc[s, "slope_log"] - v for s, v in planted.items()])
        t = corpus.data.table
        u = t[t["PAR-02"] == 1].assign(x=lambda f: np.log2(f["PAR-02:intensity"]),
                                       y=lambda f: np.log(f["speedup"]))
        cell = u.groupby(["task", "size"])
        xc, yc = u.x - cell.x.transform("mean"), u.y - cell.y.transform("mean")
        naive.append(float((xc * yc).sum() / (xc ** 2).sum()) - planted["PAR-02"])
    bias = np.mean(ours, axis=0)
    assert np.all(np.abs(bias) < 0.03), bias
    # skilled authors use more of it and gain from other things too: within-task naive slope
    assert np.mean(naive) > 0.1


def test_dose_response_says_why_a_slope_is_not_estimable():
    corpus = stats.simulate_corpus(n_tasks=8, seed=5, doses={"PAR-02": 0.1})
    t = corpus.data.table.copy()
    t["CMP-05:intensity"] = np.where(t["CMP-05"] == 1, 4.0, np.nan)      # one level only
    t["PAR-11:intensity"] = np.nan                                       # almost none known
    t.loc[t.index[t["PAR-11"] == 1][:3], "PAR-11:intensity"] = 2.0
    d = stats.dose_response(t, structural=corpus.structural).set_index("strategy")
    assert d.loc["PAR-02", "estimable"]
    assert d.loc["CMP-05", "note"] == "every user has the same intensity"
    assert not d.loc["PAR-11", "estimable"]
    assert "with a known intensity (need 6)" in d.loc["PAR-11", "note"]
    assert "MEM-02" not in d.index  # no intensity column


def test_cli_dose_contrast_and_simulate_option(tmp_path):
    from typer.testing import CliRunner

    from strategylens.cli import app

    out = tmp_path / "sim.csv"
    res = CliRunner().invoke(app, ["stats", "simulate", "--out", str(out), "--tasks", "10",
                                   "--dose", "PAR-02=0.2", "--seed", "3", "-f", "json"])
    assert res.exit_code == 0, res.output
    assert json.loads(out.with_suffix(".truth.json").read_text())["dose_log_per_doubling"] == \
        {"PAR-02": 0.2}
    res = CliRunner().invoke(app, ["stats", "contrasts", "--data", str(out), "--kind", "dose",
                                   "-f", "json"])
    assert res.exit_code == 0, res.output
    (row,) = json.loads(res.stdout)
    assert row["strategy"] == "PAR-02" and row["ci_low_log"] < 0.2 < row["ci_high_log"]
    bad = CliRunner().invoke(app, ["stats", "simulate", "--out", str(out), "--dose", "PAR-02"])
    assert bad.exit_code == 2 and "expected ID=SLOPE" in bad.stderr


def test_an_infinite_speedup_is_set_aside_not_fitted():
    """One inf speedup (a zero GPU time) used to blank every estimate while saying estimable."""
    corpus = stats.simulate_corpus(n_tasks=8, n_authors=4, seed=6)
    raw = corpus.frame.copy()
    first = raw.index[raw["correct"].astype(bool)][0]
    raw.loc[first, "speedup"] = math.inf
    data = stats.prepare_table(raw, "sim.csv")
    assert [p for p in data.problems if "infinite" in p] == [
        f"sim.csv: correct rows without a finite positive speedup (rows {first + 2}; 1 infinite, "
        "a zero GPU time?); kept with the failures"]
    assert np.isfinite(data.table["speedup"]).all()
    without = stats.prepare_table(raw.drop(index=first), "sim.csv")
    with_inf = stats.fit_effects(data.table, structural=corpus.structural, inference="cr3").table
    clean = stats.fit_effects(without.table, structural=corpus.structural, inference="cr3").table
    est = with_inf[with_inf.estimable]
    assert len(est) and np.isfinite(est["effect_log"]).all()
    pd.testing.assert_series_equal(est["effect_log"].reset_index(drop=True),
                                   clean[clean.estimable]["effect_log"].reset_index(drop=True))


def test_corpus_authors_come_from_the_tasks_labels_yaml(tmp_path):
    from strategylens.stats.data import with_corpus_authors

    task = tmp_path / "t1"
    (task / "solutions").mkdir(parents=True)
    (task / "labels.yaml").write_text("a.cu:\n  author: expert\nb.cu:\n  honest: true\n")
    sols = [str(task / "solutions" / n) for n in ("a.cu", "b.cu", "a.cu", "c.cu")]
    r = pd.DataFrame({"task": "t1", "solution": sols,
                      "author": [None, None, "gpt-5", "unknown"]})
    out = with_corpus_authors(r)
    # a.cu gets its recorded author; b.cu has none; a given author is kept; c.cu is not listed
    got = out["author"].tolist()
    assert (got[0], got[2]) == ("expert", "gpt-5")
    assert pd.isna(got[1]) and pd.isna(got[3])
    # a store with no author column at all, and a folder whose labels.yaml is not YAML
    (task / "labels.yaml").write_text("a.cu: [unclosed\n")
    assert with_corpus_authors(r.drop(columns="author"))["author"].isna().all()
