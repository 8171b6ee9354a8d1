"""Raters' labels: readers, agreement (Cohen, Fleiss), AccelEval analyser import, the combiner."""

from __future__ import annotations

import json

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score
from typer.testing import CliRunner

from strategylens.labels import agree, combine
from strategylens.labels.acceleval import evidence_lines, load_mapping, read_acceleval_analysis
from strategylens.labels.records import (FileLabels, Label, LabelError, LabelSet, match_path,
                                         read_gold, read_labels, read_table, read_tag_jsonl)


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_gold_yaml_paths_unsure_and_tasks(tmp_path):
    g = write(tmp_path / "set" / "labels.yaml",
              "a.cu:\n  task: heat2d\n  present:\n    MEM-02: [3, 4]\n    PAR-10: [7]\n"
              "  unsure: [CMP-04]\nb.cu:\n  task: bfs\n  present: {}\n")
    s = read_gold(g)
    a = s.files[str(tmp_path / "set" / "a.cu")]
    assert a.task == "heat2d" and a.unsure == {"CMP-04"}
    assert a.labels == {"MEM-02": Label("MEM-02", (3, 4)), "PAR-10": Label("PAR-10", (7,))}
    assert s.files[str(tmp_path / "set" / "b.cu")].labels == {}
    write(g, "a.cu: [1, 2\n")
    with pytest.raises(LabelError, match=r"labels.yaml: not valid YAML"):
        read_gold(g)
    write(g, "a.cu:\n  present: [MEM-01]\n")
    with pytest.raises(LabelError, match=r"entry 'a.cu': 'present' must map IDs to line lists"):
        read_gold(g)


def test_task_folder_labels_take_the_task_from_the_folder(tmp_path):
    write(tmp_path / "heat2d" / "solutions" / "naive.cu", "//\n")
    g = write(tmp_path / "heat2d" / "labels.yaml", "naive.cu:\n  author: naive\n  present:\n"
                                                   "    MEM-01: [1]\n")
    fl = read_gold(g).files[str(tmp_path / "heat2d" / "solutions" / "naive.cu")]
    assert (fl.task, fl.author, fl.ids) == ("heat2d", "naive", {"MEM-01"})


def test_tag_jsonl_reader(tmp_path):
    rec = {"path": "x/a.cu", "ok": True, "labels": [
        {"id": "MEM-01", "confidence": 0.7, "probability": 0.9,
         "evidence": [{"line_start": 3, "line_end": 5, "detector": "d", "note": "n1"},
                      {"line_start": 9, "line_end": 9, "detector": "d"}]},
        {"id": "AP-02", "confidence": 0.6, "probability": None, "evidence": []}]}
    f = write(tmp_path / "tags.jsonl", json.dumps(rec) + "\n\n" +
              json.dumps({"path": "x/b.cu", "ok": False, "error": "boom", "labels": []}) + "\n")
    s = read_tag_jsonl(f)
    assert s.rater == "tags"
    a = s.files["x/a.cu"]
    assert a.labels["MEM-01"] == Label("MEM-01", (3, 4, 5, 9), 0.9, "n1")
    assert a.labels["AP-02"].confidence == 0.6 and not s.files["x/b.cu"].ok
    write(f, json.dumps(rec) + "\n{oops\n")
    with pytest.raises(LabelError, match=r"tags.jsonl:2: not JSON"):
        read_tag_jsonl(f)


def test_expert_table_csv(tmp_path):
    f = write(tmp_path / "expert.csv", "path,id,lines,confidence\na.cu,MEM-02,12;14-16,0.8\n"
                                       "a.cu,PAR-04,,\nb.cu,,,\n")
    s = read_labels(f)
    assert s.files["a.cu"].labels["MEM-02"] == Label("MEM-02", (12, 14, 15, 16), 0.8)
    assert s.files["a.cu"].labels["PAR-04"].lines == () and s.files["b.cu"].labels == {}
    write(f, "file,id\na.cu,MEM-01\n")
    with pytest.raises(LabelError, match=r"row 2: needs 'path' and 'id' columns"):
        read_table(f)


def test_paths_match_across_checkouts():
    cands = ["/home/u/repo/tasks/bfs/solutions/naive.cu", "/home/u/repo/tasks/bfs/solutions/expert.cu"]
    assert match_path("/tmp/other/tasks/bfs/solutions/naive.cu", cands) == cands[0]
    assert match_path("naive.cu", ["a/naive.cu", "b/naive.cu"]) is None  # ambiguous
    assert match_path("x.cu", cands) is None


def ls(rater, files):
    return LabelSet(rater, {p: FileLabels(p, {i: Label(i) for i in ids}, unsure=frozenset(u))
                            for p, (ids, u) in files.items()})


A = ls("a", {"f1": (["MEM-01", "MEM-02"], []), "f2": (["MEM-01"], []), "f3": ([], ["MEM-02"]),
             "f4": (["PAR-04"], [])})
B = ls("b", {"f1": (["MEM-01"], []), "f2": (["MEM-01", "MEM-02"], []), "f3": (["MEM-02"], []),
             "f4": (["PAR-04"], []), "f5": (["MEM-01"], [])})
IDS = ["MEM-01", "MEM-02", "PAR-04"]


def test_pairwise_kappa_matches_sklearn_and_counts_are_exact():
    frame = agree.pairwise(A, B, IDS).set_index("id")
    d = agree.decisions([A, B], IDS)
    # f5 is labelled by B only; f3 MEM-02 is unsure for A: both left out
    assert sorted(d["path"].unique()) == ["f1", "f2", "f3", "f4"] and len(d) == 11
    assert frame.loc["all", "kappa"] == pytest.approx(cohen_kappa_score(d["a"], d["b"]))
    m2 = frame.loc["MEM-02"]
    assert (m2["files"], m2["both"], m2["only_a"], m2["only_b"]) == (3, 0, 1, 1)
    assert frame.loc["MEM-01", "kappa"] == 1.0 and frame.loc["MEM-01", "recall"] == 1.0
    allrow = frame.loc["all"]
    assert (allrow["both"], allrow["only_a"], allrow["only_b"]) == (3, 1, 1)
    assert allrow["precision"] == 0.75 and allrow["recall"] == 0.75
    assert allrow["kappa_lo"] <= allrow["kappa"] <= allrow["kappa_hi"]


def test_disagreements_name_the_giving_rater():
    got = sorted((d["path"], d["id"], d["only"]) for d in agree.disagreements(A, B, IDS))
    assert got == [("f1", "MEM-02", "a"), ("f2", "MEM-02", "b")]


def test_fleiss_against_a_hand_computation():
    C = ls("c", {"f1": (["MEM-01", "MEM-02"], []), "f2": ([], []), "f3": (["MEM-02"], []),
                 "f4": (["PAR-04"], [])})
    got = agree.fleiss([A, B, C], IDS).set_index("id")
    d = agree.decisions([A, B, C], IDS)
    yes = d[["a", "b", "c"]].sum(axis=1).to_numpy()
    n, k = 3, len(yes)
    p_i = (yes * (yes - 1) + (n - yes) * (n - yes - 1)) / (n * (n - 1))
    p_yes = yes.sum() / (n * k)
    pe = p_yes ** 2 + (1 - p_yes) ** 2
    assert got.loc["all", "fleiss_kappa"] == pytest.approx((p_i.mean() - pe) / (1 - pe))
    assert got.loc["all", "units"] == k == 11


def analysis_run(tmp_path, meta):
    run = tmp_path / "runs" / "gpt_l3_20260101_1200"
    write(run / "bfs" / "sample_0.cu", "// x\n__global__ void k(int* __restrict__ a) {\n"
                                       "    __shared__ int tile[256];\n    tile[threadIdx.x] = a[threadIdx.x];\n}\n")
    data = {"bfs": {"pattern_summaries": [
        {"pattern_id": "PAT-001", "pattern_name": "Shared Memory Tiling",
         "code_evidence": "__shared__ int tile[256];  // <-- tile\ntile[threadIdx.x] = a[threadIdx.x];"},
        {"pattern_id": "PAT-777", "pattern_name": "Warp Shuffle Reduction", "code_evidence": ""},
        {"pattern_id": "PAT-999", "pattern_name": "Something New", "code_evidence": ""}],
        "_meta": meta}}
    return write(run / "agent_pattern_analysis.json", json.dumps(data)), run


def test_acceleval_analysis_import(tmp_path):
    f, run = analysis_run(tmp_path, {"speedup_e2e": 3.2})
    labels, warnings = read_acceleval_analysis(f, load_mapping())
    fl = labels.files[str(run / "bfs" / "sample_0.cu")]
    assert labels.rater == "acceleval-analyser:gpt_l3_20260101_1200"
    assert fl.labels["MEM-02"].lines == (3, 4)        # found where the quoted lines are
    assert fl.labels["PAR-03"].lines == ()            # by name: "warp shuffle"
    assert set(fl.labels) == {"MEM-02", "PAR-03"}
    assert warnings == [f"{f}: pattern 'PAT-999 Something New' (1x) has no catalog ID in the "
                        "mapping; add it to a copy of the mapping file (--mapping)"]


def test_acceleval_analysis_needs_to_know_the_sample(tmp_path):
    f, run = analysis_run(tmp_path, {})
    write(run / "bfs" / "sample_1.cu", "//\n")
    labels, warnings = read_acceleval_analysis(f)
    assert labels.files == {}
    assert "2 samples under" in warnings[0] and "cannot tell which one was analysed" in warnings[0]
    f, run = analysis_run(tmp_path, {"sample_id": 1})
    labels, _ = read_acceleval_analysis(f)
    assert list(labels.files) == [str(run / "bfs" / "sample_1.cu")]


def test_mapping_targets_must_be_catalog_ids(tmp_path):
    m = write(tmp_path / "m.yaml", "by_id:\n  PAT-001: [MEM-99]\n")
    with pytest.raises(LabelError, match="not catalog IDs: MEM-99"):
        load_mapping(m, {"MEM-01"})


def test_evidence_lines_ignore_comments_and_short_lines():
    src = ["int i;", "    acc += a[i] * b[i];  // hot", "}", "acc += a[i] * b[i];"]
    assert evidence_lines(src, "acc += a[i]*b[i]; // <-- fused\n}") == [2, 4]


# ------------------------------------------------------------------------ the combiner

def synthetic(seed=0, tasks=6, per_task=6):
    """Gold and two noisy raters: the detectors see X well but fire on Y without cause (with a
    low score), the keyword rules see Y and miss X."""
    rng = np.random.default_rng(seed)
    gold, det, sub = LabelSet("gold"), LabelSet("detectors"), LabelSet("substring")
    for t in range(tasks):
        for k in range(per_task):
            p = f"t{t}/s{k}.cu"
            has_x, has_y = rng.random() < 0.5, rng.random() < 0.5
            g = {i: Label(i) for i, h in (("MEM-01", has_x), ("PAR-04", has_y)) if h}
            gold.add(FileLabels(p, g, task=f"t{t}"))
            d = {}
            if has_x:
                d["MEM-01"] = Label("MEM-01", confidence=0.9)
            if has_y or rng.random() < 0.6:
                d["PAR-04"] = Label("PAR-04", confidence=0.9 if has_y else 0.3)
            det.add(FileLabels(p, d))
            s = {"PAR-04": Label("PAR-04")} if has_y else {}
            if has_x and rng.random() < 0.3:
                s["MEM-01"] = Label("MEM-01")
            sub.add(FileLabels(p, s))
    return gold, {"detectors": det, "substring": sub}


def test_combiner_beats_every_single_source_under_task_grouped_cv():
    gold, sources = synthetic()
    frame = combine.evaluate([gold], sources, ["MEM-01", "PAR-04"], {"MEM-01", "PAR-04"})
    f1 = frame[frame["id"] == "all"].set_index("source")["f1"]
    assert f1["combined"] > max(f1["detectors"], f1["substring"])
    per = frame.set_index(["source", "id"])
    assert per.loc[("combined", "PAR-04"), "f1"] == 1.0   # learnt to trust the keyword rules
    assert per.loc[("combined", "MEM-01"), "f1"] == 1.0   # and the detectors for X


def test_rule_detectors_decide_covered_ids_others_by_majority():
    gold, sources = synthetic()
    t = combine.unit_table([gold], sources, ["MEM-01", "PAR-04"])
    got = combine.rule(t, ["detectors", "substring"], {"MEM-01"}, "PAR-04")
    assert (got == t["substring"].to_numpy()).all()         # PAR-04 not covered: the others
    got = combine.rule(t, ["detectors", "substring"], {"MEM-01"}, "MEM-01")
    assert (got == t["detectors"].to_numpy()).all()


def test_trained_combiner_round_trips_and_gives_probabilities():
    gold, sources = synthetic()
    t = combine.unit_table([gold], sources, ["MEM-01", "PAR-04"])
    comb = combine.Combiner.train(t, ["detectors", "substring"], {"MEM-01", "PAR-04"})
    again = combine.Combiner.from_json(json.loads(json.dumps(comb.to_json())))
    assert (again.predict(t) == comb.predict(t)).all()
    yes, _ = again.probability("PAR-04", {"detectors": 0.3})
    assert not yes  # a low-score detector hit without the keyword rule is not trusted


def test_evaluate_needs_two_tasks():
    gold, sources = synthetic(tasks=1)
    with pytest.raises(ValueError, match="at least 2 tasks"):
        combine.evaluate([gold], sources, ["MEM-01"], {"MEM-01"})


def test_cli_agree_and_evaluate(tmp_path):
    from strategylens.cli import app

    first = write(tmp_path / "g" / "labels.yaml", "a.cu:\n  task: t1\n  present:\n    MEM-01: [1]\n"
                  "b.cu:\n  task: t2\n  present:\n    MEM-02: [2]\n    PAR-04: [3]\n")
    second = write(tmp_path / "g" / "labels-second.yaml",
                   "a.cu:\n  task: t1\n  present:\n    MEM-01: [1]\n"
                   "b.cu:\n  task: t2\n  present:\n    MEM-02: [2]\n")
    runner = CliRunner()
    res = runner.invoke(app, ["labels", "agree", str(first), str(second), "-f", "json",
                              "--only", "MEM-01,MEM-02,PAR-04"])
    assert res.exit_code == 0, res.output
    rows = {r["id"]: r for r in json.loads(res.stdout)}
    assert rows["PAR-04"]["only_a"] == 1 and rows["MEM-01"]["kappa"] == 1.0
    res = runner.invoke(app, ["labels", "agree", str(first), str(second), "--disagreements",
                              "-f", "json"])
    meta = ("schema_version", "record_type", "tool", "tool_version", "catalog_version")
    got = json.loads(res.stdout)
    assert [r["record_type"] for r in got] == ["labels.agree"]
    assert [{k: v for k, v in r.items() if k not in meta} for r in got] == [
        {"path": str(tmp_path / "g" / "b.cu"), "id": "PAR-04", "only": "gold:g/labels",
         "lines": [3]}]
    tags = write(tmp_path / "tags.jsonl", "".join(json.dumps(
        {"path": str(tmp_path / "g" / n), "ok": True, "labels": [
            {"id": i, "confidence": 0.9, "evidence": [{"line_start": 1, "line_end": 1}]}
            for i in ids]}) + "\n" for n, ids in (("a.cu", ["MEM-01"]), ("b.cu", ["MEM-02"]))))
    res = runner.invoke(app, ["labels", "evaluate", "--gold", str(first), "--source",
                              f"detectors={tags}", "--solo", f"second={second}", "--summary",
                              "-f", "json"])
    assert res.exit_code == 0, res.output
    got = {r["source"]: (r["tp"], r["fp"], r["fn"]) for r in json.loads(res.stdout)}
    assert got["detectors"] == (2, 0, 1) and got["second"] == (2, 0, 1)
    missing = runner.invoke(app, ["labels", "agree", str(first), str(tmp_path / "nope.yaml")])
    assert missing.exit_code == 2 and "nope.yaml: cannot read" in missing.output


def test_final_record_rule_and_combiner():
    det = {"path": "a.cu", "ok": True, "labels": [
        {"id": "MEM-01", "confidence": 0.9, "probability": 0.95,
         "evidence": [{"line_start": 3, "line_end": 3, "detector": "CoalescedAccess"}]},
        {"id": "PAR-04", "confidence": 0.3, "probability": 0.3, "evidence": []}]}
    llm = {"path": "a.cu", "ok": True, "rater": "openai:m@v", "labels": [
        {"id": "CMP-09", "confidence": 0.8, "evidence": [{"line_start": 9, "line_end": 9}]},
        {"id": "MEM-01", "confidence": 0.7, "evidence": [{"line_start": 4, "line_end": 4}]}]}
    out = combine.final_record(det, [llm], None, covered={"MEM-01", "PAR-04"})
    got = {lab["id"]: (lab["sources"], [e["line_start"] for e in lab["evidence"]])
           for lab in out["labels"]}
    # covered IDs: the detectors decide; CMP-09 (no detector here): the LLM fills it
    assert got == {"MEM-01": (["detectors", "openai:m@v"], [3, 4]), "PAR-04": (["detectors"], []),
                   "CMP-09": (["openai:m@v"], [9])}
    assert out["combined"] == {"by": "rule", "sources": ["detectors", "openai:m@v"]}
    comb = combine.Combiner(["detectors", "openai:m@v"], set(), {
        "PAR-04": combine.Choice("logistic", ["detectors", "detectors:score", "openai:m@v",
                                              "openai:m@v:score"], [0.0, 10.0, 0.0, 0.0], -5.0)})
    out = combine.final_record(det, [llm], comb, covered={"MEM-01", "PAR-04"})
    ids = [lab["id"] for lab in out["labels"]]
    assert "PAR-04" not in ids and out["combined"]["by"] == "combiner"  # 10*0.3-5 < 0


def test_cli_tag_with_annotations_combines_each_file(tmp_path):
    from strategylens.cli import app

    src = write(tmp_path / "k.cu", "__global__ void k(const float* x, float* y, int n) {\n"
                "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "  if (i < n) y[i] = 2.0f * x[i];\n}\n"
                "extern \"C\" void solution_compute(const float* x, float* y, int n) {\n"
                "  k<<<(n + 255) / 256, 256>>>(x, y, n);\n}\n")
    plain = CliRunner().invoke(app, ["tag", str(src), "-f", "jsonl", "--no-cache", "--no-index"])
    assert plain.exit_code == 0, plain.output
    det_ids = {lab["id"] for lab in json.loads(plain.stdout)["labels"]}
    assert "MEM-01" in det_ids and "CMP-09" not in det_ids
    llm = write(tmp_path / "llm.jsonl", json.dumps({
        "path": str(src), "ok": True, "rater": "openai:m@v", "labels": [
            {"id": "MEM-01", "confidence": 0.7,
             "evidence": [{"line_start": 3, "line_end": 3, "note": "y[i], x[i]"}]},
            {"id": "CMP-09", "confidence": 0.8, "evidence": [{"line_start": 3, "line_end": 3}]}]})
        + "\n")

    def tag(*extra):
        res = CliRunner().invoke(app, ["tag", str(src), "-f", "jsonl", "--no-cache", "--no-index",
                                       "--with-annotations", str(llm), *extra])
        assert res.exit_code == 0, res.output
        return json.loads(res.stdout)

    # the rule: every ID has a detector, so the detectors decide; the LLM's line joins MEM-01
    rec = tag()
    assert {lab["id"] for lab in rec["labels"]} == det_ids
    assert rec["combined"] == {"by": "rule", "sources": ["detectors", "openai:m@v"]}
    mem = next(lab for lab in rec["labels"] if lab["id"] == "MEM-01")
    assert [e["line_start"] for e in mem["evidence"] if e["detector"] == "openai:m@v"] == [3]
    # a trained combiner that lets the LLM decide CMP-09 adds it
    comb = write(tmp_path / "comb.json", json.dumps(combine.Combiner(
        ["detectors", "openai:m@v"], set(det_ids),
        {"CMP-09": combine.Choice("source:openai:m@v")}).to_json()))
    rec = tag("--combiner", str(comb))
    assert {lab["id"] for lab in rec["labels"]} == det_ids | {"CMP-09"}
    assert rec["combined"]["by"] == "combiner"
    # a bad annotations file is a usage error naming it
    bad = write(tmp_path / "bad.jsonl", "{not json\n")
    res = CliRunner().invoke(app, ["tag", str(src), "--with-annotations", str(bad)])
    assert res.exit_code == 2 and "bad.jsonl" in res.output
