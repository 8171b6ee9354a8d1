"""The label combiner: final labels from several raters (detectors with their calibrated
probabilities, AccelEval's keyword rules, LLM raters with their stated confidence, imported
analysers), through a per-strategy model trained on gold labels.

For each catalog ID the combiner picks, by cross-validation grouped by task inside the training
data, the best of: each source alone, a logistic regression (scikit-learn) on every source's
presence and score, and the documented rule. Evaluation is itself grouped by task (leave one task
out), so no task's style leaks from training into the figures.

The rule, used where no trained model covers an ID: where a detector covers the ID (the
detectors' source is given and the catalog has a detector for it), the detectors decide; for the
other IDs, a label is present when at least half of the other sources give it.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GroupKFold, LeaveOneGroupOut

from strategylens.labels.records import LabelError, LabelSet, match_path, read_labels, to_record

DETECTORS = "detectors"
MIN_CLASS = 3          # positives and negatives a training fold needs for a logistic model
INNER_FOLDS = 4


# ----------------------------------------------------------------------------- the unit table

def unit_table(gold: list[LabelSet], sources: dict[str, LabelSet], ids: list[str]) -> pd.DataFrame:
    """One row per (gold file, ID) that the gold decides: ``path, task, id, gold`` and, per
    source, ``<src>`` (0/1 present) and ``<src>:score`` (its confidence, 1 when it gave none,
    0 when absent). Files a source did not label count as absent for it."""
    rows = []
    keys = {name: list(s.files) for name, s in sources.items()}
    for g in gold:
        for path, fl in g.files.items():
            found = {}
            for name, src in sources.items():
                k = path if path in src.files else match_path(path, keys[name])
                found[name] = src.files[k] if k is not None else None
            for sid in ids:
                if sid in fl.unsure:
                    continue
                row = {"path": path, "task": fl.task or Path(path).parent.name, "id": sid,
                       "gold": int(sid in fl.labels)}
                for name, sfl in found.items():
                    lab = sfl.labels.get(sid) if sfl is not None and sfl.ok else None
                    row[name] = int(lab is not None)
                    row[f"{name}:score"] = 0.0 if lab is None else \
                        (1.0 if lab.confidence is None else float(lab.confidence))
                rows.append(row)
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- predictors

@dataclass
class Choice:
    """What decides one ID: ``source:<name>``, ``logistic`` (with coefficients) or ``rule``."""

    kind: str
    features: list[str] = field(default_factory=list)
    coef: list[float] = field(default_factory=list)
    intercept: float = 0.0

    def predict(self, frame: pd.DataFrame, sources: list[str], covered: set[str],
                sid: str) -> np.ndarray:
        if self.kind.startswith("source:"):
            return frame[self.kind.split(":", 1)[1]].to_numpy().astype(int)
        if self.kind == "logistic":
            x = frame[self.features].to_numpy(dtype=float)
            z = x @ np.asarray(self.coef) + self.intercept
            return (1 / (1 + np.exp(-z)) >= 0.5).astype(int)
        return rule(frame, sources, covered, sid)

    def as_dict(self) -> dict:
        return {"kind": self.kind, "features": self.features, "coef": self.coef,
                "intercept": self.intercept}


def rule(frame: pd.DataFrame, sources: list[str], covered: set[str], sid: str) -> np.ndarray:
    """The documented rule (module docstring)."""
    if DETECTORS in sources and sid in covered:
        return frame[DETECTORS].to_numpy().astype(int)
    others = [s for s in sources if s != DETECTORS] or sources
    votes = frame[others].to_numpy().sum(axis=1)
    return (votes * 2 >= len(others)).astype(int) * (votes > 0)


def _features(sources: list[str]) -> list[str]:
    return [c for s in sources for c in (s, f"{s}:score")]


def _fit_logistic(frame: pd.DataFrame, sources: list[str]) -> Choice | None:
    y = frame["gold"].to_numpy()
    if y.sum() < MIN_CLASS or (1 - y).sum() < MIN_CLASS:
        return None
    feats = _features(sources)
    model = LogisticRegression(C=1.0, max_iter=1000)
    model.fit(frame[feats].to_numpy(dtype=float), y)
    return Choice("logistic", feats, [float(c) for c in model.coef_[0]],
                  float(model.intercept_[0]))


def f1(y: np.ndarray, p: np.ndarray) -> float:
    tp = int((y & p).sum())
    fp, fn = int((p & (1 - y)).sum()), int(((1 - p) & y).sum())
    return 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 1.0


def choose(frame: pd.DataFrame, sources: list[str], covered: set[str], sid: str) -> Choice:
    """The best predictor for one ID by task-grouped cross-validation inside ``frame``
    (ties go to the simpler: a single source, then the rule, then the model)."""
    candidates = [Choice(f"source:{s}") for s in sources] + [Choice("rule")]
    groups = frame["task"].to_numpy()
    n_groups = len(np.unique(groups))
    y = frame["gold"].to_numpy().astype(int)
    scores = {}
    if n_groups >= 2:
        folds = GroupKFold(n_splits=min(INNER_FOLDS, n_groups))
        pred_lr = np.zeros(len(frame), dtype=int)
        lr_ok = True
        for tr, te in folds.split(frame, y, groups):
            m = _fit_logistic(frame.iloc[tr], sources)
            if m is None:
                lr_ok = False
                break
            pred_lr[te] = m.predict(frame.iloc[te], sources, covered, sid)
        if lr_ok:
            scores["logistic"] = f1(y, pred_lr)
    for c in candidates:
        scores[c.kind] = f1(y, c.predict(frame, sources, covered, sid))
    order = [c.kind for c in candidates] + ["logistic"]
    best = max(order, key=lambda k: (scores.get(k, -1.0), -order.index(k)))
    if best == "logistic":
        return _fit_logistic(frame, sources)
    return Choice(best)


@dataclass
class Combiner:
    sources: list[str]
    covered: set[str]
    choices: dict[str, Choice] = field(default_factory=dict)

    @classmethod
    def train(cls, table: pd.DataFrame, sources: list[str], covered: set[str]) -> Combiner:
        comb = cls(sources, covered)
        for sid, g in table.groupby("id", sort=True):
            comb.choices[sid] = choose(g.reset_index(drop=True), sources, covered, sid)
        return comb

    def predict(self, table: pd.DataFrame) -> np.ndarray:
        out = np.zeros(len(table), dtype=int)
        for sid, g in table.groupby("id", sort=False):
            choice = self.choices.get(sid, Choice("rule"))
            out[g.index.to_numpy()] = choice.predict(g, self.sources, self.covered, sid)
        return out

    def probability(self, sid: str, present: dict[str, float]) -> tuple[bool, float | None]:
        """The decision for one ID from each source's score (0 when absent), with the model's
        probability when a logistic model decides."""
        frame = pd.DataFrame([{**{s: int(present.get(s, 0) > 0) for s in self.sources},
                               **{f"{s}:score": float(present.get(s, 0.0)) for s in self.sources}}])
        choice = self.choices.get(sid, Choice("rule"))
        yes = bool(choice.predict(frame, self.sources, self.covered, sid)[0])
        if choice.kind == "logistic":
            z = float(frame[choice.features].to_numpy(dtype=float)[0] @ np.asarray(choice.coef)
                      + choice.intercept)
            return yes, 1 / (1 + math.exp(-z))
        return yes, None

    def to_json(self) -> dict:
        return {"sources": self.sources, "covered": sorted(self.covered),
                "ids": {k: v.as_dict() for k, v in sorted(self.choices.items())}}

    @classmethod
    def from_json(cls, data: dict) -> Combiner:
        return cls(list(data["sources"]), set(data.get("covered", [])),
                   {k: Choice(**v) for k, v in data.get("ids", {}).items()})

    @classmethod
    def load(cls, path: Path | str) -> Combiner:
        return cls.from_json(json.loads(Path(path).read_text()))


# ----------------------------------------------------------------------------- evaluation

def cross_validated(table: pd.DataFrame, sources: list[str], covered: set[str]) -> np.ndarray:
    """Out-of-fold combined predictions, leaving one task out at a time."""
    pred = np.zeros(len(table), dtype=int)
    groups = table["task"].to_numpy()
    if len(np.unique(groups)) < 2:
        raise ValueError("task-grouped cross-validation needs gold files from at least 2 tasks")
    for tr, te in LeaveOneGroupOut().split(table, groups=groups):
        comb = Combiner.train(table.iloc[tr].reset_index(drop=True), sources, covered)
        part = table.iloc[te].reset_index(drop=True)
        pred[te] = comb.predict(part)
    return pred


def scores(table: pd.DataFrame, predictions: dict[str, np.ndarray]) -> pd.DataFrame:
    """Precision, recall and F1 per ID and over all units (micro), for each named prediction.
    ``coverage`` is the share of the ID's gold-decided units the predictor was scored on."""
    rows = []
    y_all = table["gold"].to_numpy().astype(int)
    for name, pred in predictions.items():
        for sid, idx in [*table.groupby("id", sort=True).indices.items(),
                         ("all", np.arange(len(table)))]:
            y, p = y_all[idx], pred[idx].astype(int)
            tp = int((y & p).sum())
            fp, fn = int((p & (1 - y)).sum()), int(((1 - p) & y).sum())
            prec = tp / (tp + fp) if tp + fp else float("nan")
            rec = tp / (tp + fn) if tp + fn else float("nan")
            rows.append({"source": name, "id": sid, "tp": tp, "fp": fp, "fn": fn,
                         "precision": prec, "recall": rec,
                         "f1": 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else float("nan")})
    return pd.DataFrame(rows)


def evaluate(gold: list[LabelSet], sources: dict[str, LabelSet], ids: list[str],
             covered: set[str], solo: dict[str, LabelSet] | None = None) -> pd.DataFrame:
    """Each source alone, the rule, and the combiner (leave-one-task-out) against the gold.

    ``solo`` raters (e.g. second labellers) are scored alone on the files they labelled and
    take no part in the combination."""
    table = unit_table(gold, sources, ids)
    names = list(sources)
    preds = {n: table[n].to_numpy().astype(int) for n in names}
    preds["rule"] = np.zeros(len(table), dtype=int)
    for sid, g in table.groupby("id", sort=False):
        preds["rule"][g.index.to_numpy()] = rule(g, names, covered, sid)
    preds["combined"] = cross_validated(table, names, covered)
    out = [scores(table, preds)]
    for name, rater in (solo or {}).items():
        t = unit_table(gold, {name: rater}, ids)
        seen = [rater.lookup(p) is not None for p in t["path"]]
        t = t[seen].reset_index(drop=True)
        out.append(scores(t, {name: t[name].to_numpy().astype(int)}))
    return pd.concat(out, ignore_index=True)


def macro_f1(frame: pd.DataFrame, source: str) -> float:
    """Mean F1 over the IDs with any gold positive or prediction for ``source``."""
    part = frame[(frame["source"] == source) & (frame["id"] != "all")]
    part = part[part["tp"] + part["fp"] + part["fn"] > 0]
    return float(part["f1"].mean()) if len(part) else float("nan")


# ----------------------------------------------------------------------------- final labels

def final_record(detector_record: dict, others: list[dict], combiner: Combiner | None,
                 covered: set[str]) -> dict:
    """One file's final labels from its `tag` record and other raters' records of the same file
    (`annotate` output, imports). The trained combiner decides when it was trained on exactly
    these sources (by name: ``detectors`` and each record's ``rater``); otherwise the rule does.
    Each label keeps the evidence of the sources that gave it and lists them in ``sources``."""
    recs = {DETECTORS: detector_record, **{str(r.get("rater") or f"rater{n}"): r
                                           for n, r in enumerate(others)}}
    names = list(recs)
    use = combiner if combiner is not None and set(combiner.sources) == set(names) else None
    by_id: dict[str, dict[str, dict]] = {}
    for name, rec in recs.items():
        if not rec.get("ok", True):
            continue
        for lab in rec.get("labels") or []:
            by_id.setdefault(lab["id"], {})[name] = lab
    labels = []
    for sid, given in sorted(by_id.items()):
        score = {n: float(lab.get("probability") or lab.get("confidence") or 1.0)
                 for n, lab in given.items()}
        if use is not None:
            yes, prob = use.probability(sid, score)
        else:
            frame = pd.DataFrame([{n: int(n in given) for n in names}])
            yes, prob = bool(rule(frame, names, covered, sid)[0]), None
        if not yes:
            continue
        base = dict(given.get(DETECTORS) or next(iter(given.values())))
        base["evidence"] = [e for n in names if n in given for e in given[n].get("evidence") or []]
        base["sources"] = [n for n in names if n in given]
        if prob is not None:
            base["probability"] = round(prob, 3)
        labels.append(base)
    out = dict(detector_record)
    out["labels"] = labels
    out["combined"] = {"by": "combiner" if use is not None else "rule", "sources": names}
    return out


# ----------------------------------------------------------------------------- tag --with-annotations

def catalog_ids(catalog=None) -> tuple[list[str], set[str]]:
    """The catalog's IDs, and those a registered detector covers (where the rule lets the
    detectors decide)."""
    from strategylens.catalog import load_catalog  # noqa: PLC0415 - heavy, only when asked
    from strategylens.detectors import load_detectors  # noqa: PLC0415

    catalog = catalog if catalog is not None else load_catalog()
    return catalog.ids, set(load_detectors(catalog))


class Annotations:
    """Other raters' labels (``annotate`` output, imports, expert tables) applied to `tag`
    records: each record becomes its :func:`final_record` with the raters' entries for the same
    file. Files a rater did not label are combined without that rater."""

    def __init__(self, raters: list[LabelSet], combiner: Combiner | None, covered: set[str]):
        self.raters, self.combiner, self.covered = raters, combiner, covered

    @classmethod
    def load(cls, paths: list[Path], combiner: Path | None, covered: set[str]) -> Annotations:
        """Raises LabelError (naming the file) for a file that cannot be read."""
        raters = [read_labels(p) for p in paths]
        comb = None
        if combiner is not None:
            try:
                comb = Combiner.load(combiner)
            except (OSError, ValueError, KeyError, TypeError) as exc:
                raise LabelError(f"{combiner}: not a combiner written by `strategylens labels "
                                 f"train` ({exc})") from None
        return cls(raters, comb, covered)

    def apply(self, record: dict) -> dict:
        others = []
        for rs in self.raters:
            fl = rs.lookup(record["path"])
            if fl is not None and fl.ok:
                others.append(to_record(fl, rs.rater))
        out = final_record(record, others, self.combiner, self.covered)
        for lab in out["labels"]:  # a label only another rater gave: its confidence, else 0.5
            if lab.get("confidence") is None:
                lab["confidence"] = 0.5
        return out
