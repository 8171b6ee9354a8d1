"""The fixed-effects fit behind every model of the package, and its inference.

Log speedup on some regressors (strategy indicators, interactions, counts, doses) with task x
size cell and author fixed effects, fitted by pyfixest (``feols``), with errors clustered by
task. Three kinds of inference, chosen by the number of tasks G unless asked for:

- ``wild``  (G < :data:`FEW_TASKS`): the restricted wild cluster bootstrap WCR11
  (wildboottest's ``WildboottestCL``, null imposed, CR1-studentized, Webb six-point weights,
  :data:`WILD_DRAWS` draws); the p-value tests 0 and the interval is every value the same test
  does not reject (:class:`WildTest`), so p < alpha exactly when the interval excludes 0.
- ``cr3``   (otherwise): CV3, the jackknife over true leave-one-task-out refits (every fixed
  effect re-absorbed, (G - 1) / G sum of squared deviations), with t(G - 1).
- ``cr1``   (G >= :data:`MANY_TASKS`, where G refits cost minutes and CR1 is no longer biased):
  pyfixest's CRV1 with t(G - 1).

Every contrast (one coefficient or a weighted sum of them) is checked for identification at the
level where its variation is before a number is printed (:meth:`ModelFit.contrast`): solution
level degrees of freedom, the rank and size of the clustered covariance in its direction, the
leave-one-task-out fits CV3 needs, and the number of tasks that carry it (effective clusters,
Carter, Schnepel & Steigerwald 2017; the largest task's share of leverage, MacKinnon, Nielsen &
Webb 2023). The thresholds are module constants and are documented in docs/statistics.md.
"""

from __future__ import annotations

import functools
import warnings
from dataclasses import dataclass, field
from collections.abc import Mapping

import numpy as np
import pandas as pd

FEW_TASKS = 20          # below: wild cluster bootstrap by default
MANY_TASKS = 100        # at or above: CR1 by default
WILD_DRAWS = 9999
WILD_KIND = "13"       # wildboottest bootstrap type: restricted scores, CV3-studentized
MIN_TASKS = 5           # fewest tasks that carry a contrast for any interval
MIN_EFFECTIVE = 3.0     # fewest effective clusters G* for any interval
MAX_LEVERAGE = 0.8      # largest share of leverage one task may hold for an interval
MIN_SOLUTION_SHARE = 0.9  # share of solution-level influence on solutions with free residuals
MIN_VARIANCE_RATIO = 0.01  # clustered / model-based variance below which the covariance is blind

INFERENCE_LABELS = {
    "wild": "wild cluster bootstrap (WCR11, Webb weights), interval by test inversion",
    "cr3": "CV3 leave-one-task-out refits, t(G-1)",
    "cr1": "CR1, t(G-1)",
}


_THREADS = None


def one_thread():
    """A context with one BLAS thread: the products and solves here are small (k regressors,
    G tasks), and BLAS threads cost more than they give, most of all on a busy machine."""
    global _THREADS
    from threadpoolctl import ThreadpoolController

    if _THREADS is None:
        _THREADS = ThreadpoolController()
    return _THREADS.limit(limits=1, user_api="blas")


def single_threaded(func):
    """Run `func` under :func:`one_thread`."""
    @functools.wraps(func)
    def inner(*args, **kwargs):
        with one_thread():
            return func(*args, **kwargs)
    return inner


def _pf():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pyfixest as pf
    return pf


@dataclass
class Design:
    """What the backend fits: log speedup, regressors and the grouping codes (one per row)."""

    y: np.ndarray
    x: np.ndarray
    names: list[str]
    task: np.ndarray
    cell: np.ndarray
    author: np.ndarray
    solution: np.ndarray
    task_names: list[str]
    use_author: bool

    @property
    def frame(self) -> pd.DataFrame:
        cols = {f"x{j}": self.x[:, j] for j in range(len(self.names))}
        return pd.DataFrame({"y": self.y, **cols, "cell": self.cell, "author": self.author,
                             "task": self.task})

    @property
    def formula(self) -> str:
        rhs = " + ".join(f"x{j}" for j in range(len(self.names))) or "1"
        return f"y ~ {rhs} | cell" + (" + author" if self.use_author else "")


def build_design(table: pd.DataFrame, columns: Mapping[str, np.ndarray], author: bool = True,
                 y: np.ndarray | None = None) -> Design:
    """A :class:`Design` from the analysis table and named regressor columns; the outcome is
    log speedup unless `y` is given (e.g. passed 0/1 for a pass-probability model).

    Examples
    --------
    >>> t = pd.DataFrame({"task": ["a", "a", "b"], "size": "m", "solution": ["x", "y", "x"],
    ...                   "author": ["u", "v", "u"], "speedup": [1.0, np.e, 1.0]})
    >>> d = build_design(t, {"MEM-02": [1, 0, 1]})
    >>> d.formula, d.task.tolist(), d.solution.tolist(), d.y.round(6).tolist()
    ('y ~ x0 | cell + author', [0, 0, 1], [0, 1, 2], [0.0, 1.0, 0.0])
    """
    names = list(columns)
    x = (np.column_stack([np.asarray(columns[n], dtype=float) for n in names]) if names
         else np.zeros((len(table), 0)))
    task, task_names = pd.factorize(table["task"].astype(str))
    cell = pd.factorize(table["task"].astype(str) + "\x1f" + table["size"].astype(str))[0]
    auth = pd.factorize(table["author"].astype(str))[0]
    sol = pd.factorize(table["task"].astype(str) + "\x1f" + table["solution"].astype(str))[0]
    out = np.log(table["speedup"].to_numpy(dtype=float)) if y is None else np.asarray(y, float)
    return Design(out, x, names, task, cell, auth, sol, list(task_names),
                  bool(author and auth.max() > 0))


def demean(design: Design, values: np.ndarray, author: bool | None = None) -> np.ndarray:
    """`values` (rows x m) with the cell (and author) fixed effects absorbed, by pyfixest."""
    from pyfixest.core.demean import demean as pf_demean

    use_author = design.use_author if author is None else author
    flist = np.column_stack([design.cell, design.author] if use_author else [design.cell])
    values = np.asarray(values, dtype=float).reshape(len(design.y), -1)
    if values.shape[1] == 0:
        return values
    out, ok = pf_demean(np.ascontiguousarray(values), flist.astype(np.uint64),
                        np.ones(len(design.y)), tol=1e-11, maxiter=100_000)
    return out


def feols(frame: pd.DataFrame, formula: str, vcov):
    pf = _pf()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pf.feols(formula, frame, vcov=vcov, fixef_rm="none", fixef_tol=1e-11,
                        collin_tol=1e-9)


@dataclass
class ModelFit:
    """A fitted model: coefficients, covariance and the pieces every contrast's checks need."""

    design: Design
    params: pd.Series
    cov: pd.DataFrame          # the analytic covariance (CV3 or CR1)
    cov_kind: str              # "cr3" or "cr1"
    inference: str             # "wild", "cr3" or "cr1"
    xt: np.ndarray             # regressors with the fixed effects absorbed
    resid: np.ndarray
    sigma2: float
    loo: LeaveOneOut | None = None
    dropped: list[str] = field(default_factory=list)
    seed: int = 0
    _xtx_inv: np.ndarray | None = None
    _cache: dict = field(default_factory=dict)

    @property
    def n_clusters(self) -> int:
        return len(self.design.task_names)

    @property
    def df(self) -> int:
        return max(self.n_clusters - 1, 1)

    def _influence(self, w: np.ndarray) -> np.ndarray:
        if self._xtx_inv is None:
            self._xtx_inv = np.linalg.pinv(self.xt.T @ self.xt)
        return self.xt @ (self._xtx_inv @ w)

    def variance(self, w: np.ndarray) -> float:
        """Clustered variance of w'beta: from the leave-one-task-out fits themselves for CV3
        (exact also where a refit lost a column that w does not need), else w'Vw."""
        if self.cov_kind == "cr3" and self.loo is not None:
            return self.loo.variance(w, self.params.to_numpy())
        return float(w @ self.cov.to_numpy() @ w)

    def diagnostics(self, weights: Mapping[str, float]) -> dict:
        """Clusters, effective clusters, leverage and identification shares of a contrast."""
        d = self.design
        w = np.array([weights.get(n, 0.0) for n in self.params.index])
        infl = self._influence(w)
        g_rows = np.bincount(d.task, weights=infl ** 2, minlength=self.n_clusters)
        sol_sum = np.bincount(d.solution, weights=infl)
        sol_task = np.zeros(len(sol_sum), dtype=int)
        sol_task[d.solution] = d.task
        g_sol = np.bincount(sol_task, weights=sol_sum ** 2, minlength=self.n_clusters)
        total = g_sol.sum()
        out = {"n_clusters": self.n_clusters, "identifying_tasks": 0, "eff_clusters": np.nan,
               "max_leverage": np.nan, "solution_share": np.nan, "variance_ratio": np.nan}
        if total <= 0 or not np.isfinite(total):
            return out
        out["identifying_tasks"] = int((g_sol > 1e-10 * g_sol.max()).sum())
        gbar = g_sol.mean()
        gamma = np.mean(((g_sol - gbar) / gbar) ** 2)
        out["eff_clusters"] = float(self.n_clusters / (1.0 + gamma))
        out["max_leverage"] = float(g_rows.max() / g_rows.sum())
        # solution level: share of the contrast's influence on solutions whose mean residual
        # is not forced to zero (a solution fitted exactly tells nothing about its own error)
        ebar = np.bincount(d.solution, weights=self.resid) / np.bincount(d.solution)
        rms = float(np.sqrt(np.mean(self.resid ** 2))) or 1.0
        free = np.abs(ebar) > 1e-6 * rms
        out["solution_share"] = float((sol_sum[free] ** 2).sum() / (sol_sum ** 2).sum())
        model_var = self.sigma2 * float(w @ self._xtx_inv @ w)
        cl_var = self.variance(w)
        out["variance_ratio"] = cl_var / model_var if model_var > 0 else np.nan
        return out

    @single_threaded
    def contrast(self, weights: Mapping[str, float], alpha: float = 0.05,
                 inference: str | None = None) -> dict:
        """Estimate and inference for sum(weight * coefficient), or why there is none.

        Returns a dict with ``estimate_log, se_log, ci_low_log, ci_high_log, p_value,
        inference, n_clusters, eff_clusters, max_leverage, estimable, note``.
        """
        from scipy import stats as st

        key = (tuple(sorted((n, float(v)) for n, v in weights.items() if v != 0)), alpha,
               inference)
        if key in self._cache:
            return dict(self._cache[key])
        self._cache[key] = out = self._contrast(weights, alpha, inference, st)
        return dict(out)

    def _contrast(self, weights: Mapping[str, float], alpha: float, inference: str | None,
                  st) -> dict:
        names = [n for n, v in weights.items() if v != 0]
        res = {"estimate_log": np.nan, "se_log": np.nan, "ci_low_log": np.nan,
               "ci_high_log": np.nan, "p_value": np.nan, "inference": "",
               "estimable": False, "note": ""}
        missing = [n for n in names if n not in self.params.index or n in self.dropped]
        if missing:
            res["note"] = f"not estimable: {', '.join(missing)} not in the model"
            return {**res, **self.diagnostics({})}
        diag = self.diagnostics(weights)
        res.update(diag)
        w = np.array([weights.get(n, 0.0) for n in self.params.index])
        est = float(w @ self.params.to_numpy())
        if not diag["solution_share"] >= MIN_SOLUTION_SHARE:
            res["note"] = (f"not estimable: solution-level degrees of freedom exhausted "
                           f"({1 - diag['solution_share']:.0%} of its solution-level variation "
                           "is on solutions the model fits exactly)")
            return res
        lost = self.loo.unidentified(w) if self.loo is not None else []
        if lost:
            others = f" and without {len(lost) - 1} other task(s)" if len(lost) > 1 else ""
            res["note"] = (f"not estimable: the refit without task {lost[0]}{others} cannot "
                           "identify it (CV3 needs every leave-one-task-out fit)")
            return res
        if not diag["variance_ratio"] >= MIN_VARIANCE_RATIO:
            rank = int(np.linalg.matrix_rank(self.cov.to_numpy(), tol=1e-10 * max(
                1e-300, float(np.abs(self.cov.to_numpy()).max()))))
            res["note"] = (f"not estimable: the task-clustered covariance (rank {rank} of "
                           f"{len(self.params)}, {self.n_clusters} tasks) gives it "
                           f"{diag['variance_ratio']:.1e} of the model-based variance")
            return res
        res["estimate_log"] = est
        res["se_log"] = float(np.sqrt(max(self.variance(w), 0.0)))
        res["estimable"] = True
        short = []
        if diag["identifying_tasks"] < MIN_TASKS:
            short.append(f"{diag['identifying_tasks']} task(s) carry it (need {MIN_TASKS})")
        if diag["eff_clusters"] < MIN_EFFECTIVE:
            short.append(f"effective clusters {diag['eff_clusters']:.1f} (need {MIN_EFFECTIVE:g})")
        if diag["max_leverage"] > MAX_LEVERAGE:
            short.append(f"one task holds {diag['max_leverage']:.0%} of its leverage "
                         f"(at most {MAX_LEVERAGE:.0%})")
        if short:
            res["note"] = "no interval: the data cannot support one: " + "; ".join(short)
            res["se_log"] = np.nan
            return res
        kind = inference or self.inference
        res["inference"] = kind
        if kind == "wild":
            res.update(self._wild(w, alpha))
        else:
            se = res["se_log"]
            tcrit = st.t.ppf(1 - alpha / 2, self.df)
            res.update(ci_low_log=est - tcrit * se, ci_high_log=est + tcrit * se,
                       p_value=float(2 * st.t.sf(abs(est / se), self.df)))
        if not (res["ci_high_log"] - res["ci_low_log"] > 1e-9 * max(1.0, abs(est))):
            res.update(estimable=False, ci_low_log=np.nan, ci_high_log=np.nan, p_value=np.nan,
                       estimate_log=np.nan, note="not estimable: zero-width interval")
        return res

    def _wild(self, w: np.ndarray, alpha: float) -> dict:
        """Wild cluster bootstrap for w'beta: WCR p-value of w'beta = 0 and the interval of
        every b with p(w'beta = b) >= alpha (test inversion)."""
        d = self.design
        if self._wild_base is None:
            extra = []
            if d.use_author:  # author dummies kept explicit: cells are nested in tasks, authors not
                extra = [(d.author == a).astype(float) for a in range(1, d.author.max() + 1)]
            xs = d.x[:, [d.names.index(n) for n in self.params.index]]
            raw = np.column_stack([xs, *extra]) if extra else xs
            both = demean(d, np.column_stack([d.y, raw]), author=False)
            # author columns the cells absorb (an author alone in every cell it is in) go
            _, gone = least_squares(both[:, 1:], both[:, 0], raw)
            keep = [j for j in range(raw.shape[1]) if j not in gone or j < xs.shape[1]]
            self._wild_base = WildBootstrap(both[:, 1:][:, keep], both[:, 0], d.task,
                                            self.seed, WILD_KIND)
        r = np.concatenate([w, np.zeros(self._wild_base.k - len(w))])
        test = self._wild_base.test(r)
        if not test.se > 0:
            return {"ci_low_log": np.nan, "ci_high_log": np.nan, "p_value": np.nan}
        low, high = test.interval(alpha)
        return {"ci_low_log": low, "ci_high_log": high, "p_value": test.pvalue(0.0)}

    _wild_base: WildBootstrap | None = None


class WildBootstrap:
    """The restricted wild cluster bootstrap (wildboottest's WCR13, or WCR11) for one design.

    ``wildboottest.WildboottestCL`` (0.3.2) supplies what does not depend on the hypothesis,
    once per design: the cluster cross-products X_g'X_g and X_g'y_g, (X'X)^-1, the Webb weights
    v (:data:`WILD_DRAWS` draws, seeded), its small-sample factor and its covariance (CV3, the
    jackknife over clusters, for ``"13"``; CR1 for ``"11"``). :meth:`test` builds the test of
    r'beta = b for any r from them: the restricted scores of the package's ``get_scores``
    (s_g = X_g'y_g - X_g'X_g beta~, beta~ the fit with r'beta = b imposed) and the bootstrap
    statistics of its ``get_numer``/``get_denom``, vectorized over the draws. Tests check both
    against the package. (Its own ``get_denom`` for ``"13"`` fails on numpy 2: it assigns an
    array to a scalar; the loop it means is the one :meth:`test` vectorizes.)
    """

    def __init__(self, x: np.ndarray, y: np.ndarray, cluster: np.ndarray, seed: int = 0,
                 kind: str = "13"):
        from wildboottest.wildboottest import WildboottestCL

        self.kind, self.x = kind, x
        self.k = x.shape[1]
        r0 = np.zeros(self.k)
        r0[0] = 1.0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            wb = WildboottestCL(X=x, Y=y, cluster=cluster, R=r0, B=WILD_DRAWS, seed=seed,
                                parallel=False)
            wb.get_scores(bootstrap_type=kind, impose_null=True)  # sets ssc and beta_hat
            wb.get_weights(weights_type="webb")
            wb.get_vcov()
        self.wb = wb
        self.xx = np.array(wb.tXgXg_list)             # G x k x k
        self.xy = np.array(wb.tXgyg_list)             # G x k
        self.cluster_index = [np.flatnonzero(wb.bootcluster == g) for g in wb.bootclustid]
        self.loo = (np.array([np.linalg.pinv(wb.tXX - m) for m in wb.tXgXg_list])
                    if kind == "13" else None)

    def scores(self, r: np.ndarray, b: float, y_shift: np.ndarray | None = None) -> np.ndarray:
        """Restricted cluster scores (k x G) of the test r'beta = b, as ``get_scores``."""
        wb = self.wb
        xy = self.xy if y_shift is None else self.xy - y_shift
        beta_hat = wb.tXXinv @ xy.sum(axis=0)
        a = 1.0 / (r @ wb.tXXinv @ r)
        beta = beta_hat - wb.tXXinv @ r * a * (r @ beta_hat - b)
        return (xy - self.xx @ beta).T

    def pieces(self, r: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Numerator weights C (G) and denominator matrix Q (G x G): the draw's statistic is
        C'v / sqrt(ssc sum_g (Q v)[g]^2)."""
        wb = self.wb
        c = r @ wb.tXXinv @ s
        if self.kind == "11":  # Z[g] = C[g] v[g] - sum_h r'(X'X)^-1 X_g'X_g (X'X)^-1 s_h v[h]
            left = (r @ wb.tXXinv) @ self.xx @ wb.tXXinv     # G x k
            return c, np.diag(c) - left @ s
        # "13": Z[g] = r'(X'X - X_g'X_g)^-1 (S* - s_g v[g]) - r'(X'X)^-1 S*, S* = sum_h s_h v[h]
        p = (r @ self.loo) @ s                               # P[g, h] = r' M_g s_h
        return c, p - np.diag(np.diag(p)) - c[None, :]

    def test(self, r: np.ndarray) -> WildTest:
        """The test of r'beta = b for every b (see :class:`WildTest`)."""
        wb = self.wb
        # r'beta = b on y is r'beta = 0 on y - b x r / (r'r): the scores are affine in b
        shift_dir = self.x @ (r / (r @ r))
        shift = np.array([self.x[i].T @ shift_dir[i] for i in self.cluster_index])
        c0, q0 = self.pieces(r, self.scores(r, 0.0))
        c1, q1 = self.pieces(r, self.scores(r, 0.0, shift))
        est = float(r @ wb.beta_hat)
        se = float(np.sqrt(max(wb.ssc * r @ wb.vcov @ r, 0.0)))
        return WildTest(c0, q0, c1, q1, wb.v, wb.ssc, est, se)


class WildTest:
    """The wild bootstrap test of r'beta = b, for every b at once.

    Its pieces are affine in b (from two score evaluations, b = 0 and b = 1), so each draw's
    numerator is n0 + b n1 and its denominator ssc (saa + 2 b sab + b^2 sbb): :meth:`pvalue`
    evaluates the test at any b and :meth:`interval` inverts it.
    """

    def __init__(self, c0, q0, c1, q1, v, ssc, estimate, se):
        a, bb = _small_matmul(q0, v), _small_matmul(q1 - q0, v)
        self.n0, self.n1 = c0 @ v, (c1 - c0) @ v
        self.saa, self.sab, self.sbb = (a * a).sum(0), (a * bb).sum(0), (bb * bb).sum(0)
        self.ssc, self.estimate, self.se = ssc, estimate, se

    def t_boot(self, b: float) -> np.ndarray:
        """Bootstrap t statistics of the test of r'beta = b: wildboottest's numerator C'v over
        the square root of its denominator ssc sum_g Z[g]^2 (see :meth:`_pieces`)."""
        denom = self.ssc * np.maximum(self.saa + 2 * b * self.sab + b * b * self.sbb, 0.0)
        return (self.n0 + b * self.n1) / np.sqrt(denom)

    def pvalue(self, b: float) -> float:
        t = (self.estimate - b) / self.se
        return float(np.mean(abs(t) < np.abs(self.t_boot(b))))

    def interval(self, alpha: float, reach: float = 50.0) -> tuple[float, float]:
        """Where p(b) falls below alpha on each side of the estimate; NaN when it does not
        within `reach` standard errors."""
        ends = []
        for sign in (-1.0, 1.0):
            inside, step, outside = self.estimate, self.se, None
            while step <= reach * self.se:
                b = self.estimate + sign * step
                if self.pvalue(b) < alpha:
                    outside = b
                    break
                inside, step = b, step * 2
            if outside is None:
                ends.append(np.nan)
                continue
            for _ in range(24):
                mid = (inside + outside) / 2
                if self.pvalue(mid) >= alpha:
                    inside = mid
                else:
                    outside = mid
            ends.append((inside + outside) / 2)
        return ends[0], ends[1]


def _small_matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with one_thread():
        return a @ b


@single_threaded
def fit_model(design: Design, *, inference: str = "auto", seed: int = 0) -> ModelFit:
    """Fit `design` with pyfixest and compute the covariance its inference needs.

    Regressors that pyfixest finds collinear are listed in ``dropped`` (the screens of the
    callers normally remove them first).
    """
    g = len(design.task_names)
    if inference == "auto":
        inference = "wild" if g < FEW_TASKS else ("cr1" if g >= MANY_TASKS else "cr3")
    if inference not in INFERENCE_LABELS:
        raise ValueError(f"inference must be auto, wild, cr3 or cr1, not {inference!r}")
    frame = design.frame
    fit = feols(frame, design.formula, {"CRV1": "task"})
    got = list(fit.coef().index)
    want = [f"x{j}" for j in range(len(design.names))]
    dropped = [design.names[j] for j, c in enumerate(want) if c not in got]
    keep = [j for j, c in enumerate(want) if c in got]
    names = [design.names[j] for j in keep]
    params = pd.Series(fit.coef().reindex([want[j] for j in keep]).to_numpy(), index=names)
    resid = np.asarray(fit.resid(), dtype=float)
    xt = demean(design, design.x[:, keep])
    n_fe = len(np.unique(design.cell)) + (design.author.max() if design.use_author else 0)
    sigma2 = float(resid @ resid) / max(len(resid) - len(keep) - n_fe, 1)
    loo = None
    if inference == "cr1":
        # pyfixest's CRV1 with its default small-sample factor G/(G-1) (N-1)/(N-K); the fit
        # object keeps the matrix in `_vcov` (no public getter in 0.60)
        pos = [got.index(want[j]) for j in keep]
        cov, kind = np.asarray(fit._vcov)[np.ix_(pos, pos)], "cr1"
    else:
        loo = leave_one_out(design, keep)
        cov, kind = loo.matrix(params.to_numpy()), "cr3"
    cov = pd.DataFrame(cov, index=names, columns=names)
    return ModelFit(design, params, cov, kind, inference, xt, resid, sigma2, loo, dropped,
                    seed)


@dataclass
class LeaveOneOut:
    """True leave-one-task-out refits: coefficients per left-out task (0 where a refit lost a
    regressor) and, per refit, the directions it cannot estimate."""

    tasks: list[str]
    coef: np.ndarray                                  # G x k
    null: list[tuple[int, np.ndarray]]                # (left-out task, null vector)

    def unidentified(self, w: np.ndarray) -> list[str]:
        """Tasks without which w'beta is not estimable."""
        bad = {t for t, n in self.null if abs(w @ n) > 1e-8 * max(np.abs(w).max(), 1.0)}
        return [self.tasks[t] for t in sorted(bad)]

    def variance(self, w: np.ndarray, beta: np.ndarray) -> float:
        """CV3 of w'beta: (G - 1) / G sum_g (w'b_-g - w'b)^2."""
        g = len(self.tasks)
        dev = self.coef @ w - beta @ w
        return float((g - 1) / g * dev @ dev)

    def matrix(self, beta: np.ndarray) -> np.ndarray:
        g = len(self.tasks)
        dev = self.coef - beta
        return (g - 1) / g * dev.T @ dev


def leave_one_out(design: Design, idx: list[int]) -> LeaveOneOut:
    """Refit without each task in turn: the fixed effects absorbed again on the remaining tasks
    (pyfixest's demeaning), then least squares, so author effects that are not nested in tasks
    are re-estimated too. A test checks the covariance against pyfixest's own
    ``vcov={"CRV3": "task"}`` and against full dummy-variable refits."""
    g = len(design.task_names)
    coef = np.zeros((g, len(idx)))
    null: list[tuple[int, np.ndarray]] = []
    for t in range(g):
        sub = subset(design, design.task != t)
        both = demean(sub, np.column_stack([sub.y, sub.x[:, idx]]))
        c, vectors = least_squares(both[:, 1:], both[:, 0], sub.x[:, idx], with_null=True)
        coef[t] = np.nan_to_num(c)
        null += [(t, n) for n in vectors]
    return LeaveOneOut(list(design.task_names), coef, null)


def subset(design: Design, rows: np.ndarray) -> Design:
    """The design restricted to `rows` (a mask or an index), codes kept."""
    return Design(design.y[rows], design.x[rows], design.names, design.task[rows],
                  pd.factorize(design.cell[rows])[0], pd.factorize(design.author[rows])[0],
                  design.solution[rows], design.task_names, design.use_author)


def least_squares(xd: np.ndarray, yd: np.ndarray, raw: np.ndarray, with_null: bool = False):
    """OLS on demeaned data. Columns with no variation left, or that are combinations of
    earlier ones, are NaN (as pyfixest would drop them); with `with_null`, the second value is
    one null vector per such column (the direction the fit cannot estimate), else the list of
    their positions.

    Examples
    --------
    >>> x = np.array([[1.0, 2.0], [-1.0, -2.0], [0.5, 1.0]])
    >>> coef, null = least_squares(x, x[:, 0] * 3, x, with_null=True)
    >>> coef.round(6).tolist(), [n.tolist() for n in null]
    ([3.0, nan], [[-2.0, 1.0]])
    """
    k = xd.shape[1]
    coef = np.full(k, np.nan)
    ok: list[int] = []
    gone: list[int] = []
    null: list[np.ndarray] = []
    for j in range(k):
        col = xd[:, j]
        c = np.zeros(0)
        if ok:
            basis = xd[:, ok]
            c = np.linalg.lstsq(basis, col, rcond=None)[0]
            resid = col - basis @ c
        else:
            resid = col
        if np.linalg.norm(resid) <= 1e-7 * max(np.linalg.norm(raw[:, j]), 1.0):
            gone.append(j)
            n = np.zeros(k)
            n[j] = 1.0
            n[ok] = -c
            null.append(n)
        else:
            ok.append(j)
    if ok:
        coef[ok] = np.linalg.lstsq(xd[:, ok], yd, rcond=None)[0]
    return coef, (null if with_null else gone)
