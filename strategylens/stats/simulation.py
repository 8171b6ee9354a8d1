"""A simulated corpus with planted, confounded strategy effects, to score estimators against."""

from __future__ import annotations

import math
from dataclasses import dataclass
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from strategylens.stats.data import (INTENSITY, AnalysisData, id_key, load_structural_map,
                                     prepare_table)

# Planted per-strategy effects on log speedup (simulation default): structural larger than micro.
DEFAULT_EFFECTS = {
    "MEM-01": 0.35, "MEM-02": 0.45, "CMP-01": 0.40, "PAR-02": 0.25, "PAR-04": 0.15,
    "LBL-02": 0.30, "MEM-04": 0.05, "MEM-06": 0.10, "CMP-04": 0.05, "CMP-05": 0.00,
    "PAR-03": 0.08, "PAR-11": -0.05,
}
# Base probability that a solution uses each strategy (before author skill shifts it).
_BASE_USE = {
    "MEM-01": 0.55, "MEM-02": 0.40, "CMP-01": 0.30, "PAR-02": 0.35, "PAR-04": 0.40,
    "LBL-02": 0.25, "MEM-04": 0.50, "MEM-06": 0.30, "CMP-04": 0.45, "CMP-05": 0.35,
    "PAR-03": 0.30, "PAR-11": 0.25,
}
_SIM_TASKS = [
    "black_scholes", "bellman_ford", "dbscan", "spmv_csr", "histogram", "nbody", "stencil_2d",
    "bfs", "radix_sort", "prefix_sum", "matmul", "conv2d", "kmeans", "floyd_warshall",
    "smith_waterman", "pagerank", "reduction", "transpose", "jacobi_2d", "monte_carlo_pi",
    "connected_components", "sgemv", "bitonic_sort", "lu_decomposition", "fft_radix2",
    "triangle_count", "knn", "lbm_d2q9", "md_lennard_jones", "sparse_triangular_solve",
]


@dataclass
class SimulatedCorpus:
    """A simulated corpus with its planted truth.

    Attributes
    ----------
    data : AnalysisData
    effects : dict
        Planted effect on log speedup per strategy (average over sizes).
    structural : dict
        Structural flag per strategy.
    bundles : list of list of str
        Planted bundles.
    skill : dict
        Planted author skill (log speedup shift).
    """

    data: AnalysisData
    effects: dict[str, float]
    structural: dict[str, bool]
    bundles: list[list[str]]
    skill: dict[str, float]

    @property
    def frame(self) -> pd.DataFrame:
        """All rows as a flat table (the CSV format of ``--data``)."""
        rows = self.data.all_rows.drop(columns=["passed", "cheating_flags"], errors="ignore")
        return rows.sort_values(["task", "solution", "size"]).reset_index(drop=True)


def simulate_corpus(n_tasks: int = 24, n_authors: int = 6, samples: int = 2,
                    sizes: Sequence[str] = ("small", "medium", "large"), *, seed: int = 0,
                    effects: Mapping[str, float] | None = None,
                    structural: Mapping[str, bool] | None = None,
                    skill_sd: float = 0.5, skill_on_use: float = 1.2,
                    bundle: tuple[str, str] | None = ("MEM-02", "PAR-04"),
                    bundle_break: float = 0.04, size_growth: float = 0.0,
                    task_effect_sd: float = 0.05, solution_sd: float = 0.25,
                    noise_sd: float = 0.12, fail_rate: float = 0.15,
                    cheat_rate: float = 0.02,
                    doses: Mapping[str, float] | None = None,
                    attempt: tuple[float, float] | None = None,
                    survivorship: Mapping[str, float] | None = None) -> SimulatedCorpus:
    """Simulate solutions with known strategy effects, confounded by author skill.

    Each of `n_authors` authors writes `samples` solutions per task. An author's skill both
    raises log speedup directly and raises the odds of using every strategy (confounding:
    a with/without comparison credits strategies with the author's skill). The `bundle`
    pair co-occurs except with probability `bundle_break`. Strategy effects on log speedup
    are ``effects[j] * (1 + size_growth * r)`` with r the centred size rank, plus a per-task
    deviation with sd `task_effect_sd`; tasks have different base speedups and size curves.
    For each strategy in `doses`, users draw an intensity from 1, 2, 4, 8, 16 (more skilled
    authors lean to higher ones) written to ``<ID>:intensity``, and gain ``doses[ID]`` in log
    speedup per doubling above 4 (so ``effects[ID]`` is the effect at intensity 4).
    Rows fail (not correct) at a rate that falls with skill; a few carry a cheating flag with
    an inflated speedup. With `attempt` ``(lo, hi)`` each author attempts a share of the tasks
    drawn uniformly from [lo, hi] (an unbalanced corpus; every task keeps at least one author).
    For each strategy in `survivorship`, a user whose solution is slower than its expected
    speedup (negative solution error) fails with that extra probability: the survivors of the
    strategy are its fast users, which biases a model fitted on passing rows upward.

    Returns
    -------
    SimulatedCorpus

    Examples
    --------
    >>> c = simulate_corpus(n_tasks=3, n_authors=2, samples=1, seed=0)
    >>> sorted(c.data.table["task"].unique()), c.bundles
    (['bellman_ford', 'black_scholes', 'dbscan'], [['MEM-02', 'PAR-04']])
    """
    rng = np.random.default_rng(seed)
    effects = dict(effects) if effects is not None else dict(DEFAULT_EFFECTS)
    ids = sorted(effects, key=id_key)
    smap = dict(structural) if structural is not None else load_structural_map()
    smap = {s: bool(smap.get(s, False)) for s in ids}
    names = [_SIM_TASKS[i] if i < len(_SIM_TASKS) else f"task_{i:03d}" for i in range(n_tasks)]
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    authors = [f"sim-model-{letters[a % 26]}{a // 26 or ''}" for a in range(n_authors)]
    skill = dict(zip(authors, np.sort(rng.normal(0.0, skill_sd, n_authors))[::-1], strict=True))
    r = np.arange(len(sizes)) - (len(sizes) - 1) / 2
    attempts = None
    if attempt is not None:  # drawn only when asked: other corpora stay as they were
        share = rng.uniform(attempt[0], attempt[1], n_authors)
        attempts = rng.random((n_tasks, n_authors)) < share[None, :]
        for t in np.flatnonzero(~attempts.any(axis=1)):
            attempts[t, rng.integers(n_authors)] = True
    rows = []
    for ti, task in enumerate(names):
        base = rng.normal(1.5, 0.8)
        size_curve = np.sort(rng.normal(0.6, 0.4, len(sizes))).cumsum() - 0.6
        cpu_base = 10 ** rng.uniform(-0.5, 1.0)
        task_dev = {s: rng.normal(0.0, task_effect_sd) for s in ids}
        for ai, author in enumerate(authors):
            if attempts is not None and not attempts[ti, ai]:
                continue
            z = skill[author]
            for k in range(samples):
                use = {}
                for s in ids:
                    p0 = _BASE_USE.get(s, 0.3)
                    logit = math.log(p0 / (1 - p0)) + skill_on_use * z / max(skill_sd, 1e-9)
                    use[s] = int(rng.random() < 1 / (1 + math.exp(-logit)))
                if bundle and bundle[0] in use and bundle[1] in use:
                    use[bundle[1]] = use[bundle[0]] if rng.random() >= bundle_break \
                        else 1 - use[bundle[0]]
                level = {}
                for s in doses or {}:  # drawn only when asked: other corpora stay as they were
                    shift = 0.5 * z / max(skill_sd, 1e-9)
                    level[s] = int(np.clip(round(rng.normal(2.0 + shift, 1.2)), 0, 4))
                sol_u = rng.normal(0.0, solution_sd)
                correct = rng.random() < 1 / (1 + math.exp(-(math.log(1 / fail_rate - 1) + z)))
                for s, strength in (survivorship or {}).items():
                    if use.get(s) and sol_u < 0 and rng.random() < strength:
                        correct = False
                cheat = correct and rng.random() < cheat_rate
                sol_name = f"{task}/{author}/sample_{k}.cu"
                for i, size in enumerate(sizes):
                    gain = sum(use[s] * (effects[s] * (1 + size_growth * r[i]) + task_dev[s])
                               for s in ids)
                    gain += sum(use.get(s, 0) * d * (level[s] - 2) for s, d in (doses or {}).items())
                    logy = base + size_curve[i] + z + gain + sol_u + rng.normal(0.0, noise_sd)
                    speed = math.exp(logy + (math.log(50) if cheat else 0.0))
                    rows.append({
                        "task": task, "solution": sol_name, "size": size, "author": author,
                        "speedup": round(speed, 6) if correct else np.nan,
                        "correct": bool(correct),
                        "cpu_ms": round(cpu_base * 10 ** (1.2 * i), 4),
                        "audit_flags": "cross-call-state" if cheat else "", **use,
                        **{f"{s}{INTENSITY}": (2 ** level[s] if use.get(s) else np.nan)
                           for s in level},
                    })
    df = pd.DataFrame(rows)
    data = prepare_table(df, "<simulated>")
    planted = [list(bundle)] if bundle and all(b in ids for b in bundle) else []
    return SimulatedCorpus(data, effects, smap, planted, {a: float(v) for a, v in skill.items()})

