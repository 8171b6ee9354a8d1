"""Statistics: which strategies go with a higher speedup on the same task.

One module per concern:

- :mod:`~strategylens.stats.data`: loading (CSV, or a results store joined with tagger labels)
  into the tidy analysis table; the structural/micro flags from the catalog.
- :mod:`~strategylens.stats.backend`: the fixed-effects fit (pyfixest) and its inference (wild
  cluster bootstrap, leave-one-task-out CV3, CR1) with the identification checks.
- :mod:`~strategylens.stats.effects`: the effects model (task x size and author fixed effects,
  task-clustered errors), bundles, the task-resampling bootstrap.
- :mod:`~strategylens.stats.contrasts`: structural vs micro, effect by size, intensity (dose),
  AccelEval's measures beside ours.
- :mod:`~strategylens.stats.survivorship`: pass probability and selection bounds per strategy.
- :mod:`~strategylens.stats.leaderboard`: pass@k, geometric means, PAR-GM, fast_p.
- :mod:`~strategylens.stats.simulation`: corpora with planted effects.

docs/statistics.md gives the method and its checks.
"""

from strategylens.stats.data import (CHEATING_FLAGS, INTENSITY, LABEL_COLUMNS, AnalysisData,
                                     CatalogUnavailable, DataError, as_table, id_key,
                                     join_results_labels, kind_of, labels_wide, load_analysis,
                                     load_structural_map, parse_flags, prepare_table,
                                     read_data_csv, read_labels, read_store_results, size_rank,
                                     strategy_columns)
from strategylens.stats.backend import INFERENCE_LABELS, Design, ModelFit, build_design, fit_model
from strategylens.stats.effects import (EFFECT_COLUMNS, EffectsFit, TaskBootstrap, find_bundles,
                                        fit_effects, jaccard_matrix, solutions, task_bootstrap)
from strategylens.stats.contrasts import (ACCELEVAL_COLUMNS, CONTRAST_COLUMNS, DOSE_COLUMNS,
                                          SIZE_COLUMNS, SizesNotComparable, acceleval_measures,
                                          compare_methods, dose_response, size_effects,
                                          structural_contrast, task_size_ranks)
from strategylens.stats.leaderboard import LEADERBOARD_COLUMNS, leaderboard, pass_at_k
from strategylens.stats.simulation import DEFAULT_EFFECTS, SimulatedCorpus, simulate_corpus
from strategylens.stats.survivorship import NO_FAILURES, SURVIVORSHIP_COLUMNS, survivorship

MODULES = ("data", "backend", "effects", "contrasts", "survivorship", "leaderboard",
           "simulation")

__all__ = [
    "ACCELEVAL_COLUMNS", "CHEATING_FLAGS", "CONTRAST_COLUMNS", "DEFAULT_EFFECTS", "DOSE_COLUMNS",
    "EFFECT_COLUMNS", "INTENSITY", "LABEL_COLUMNS", "LEADERBOARD_COLUMNS", "NO_FAILURES",
    "SIZE_COLUMNS", "SURVIVORSHIP_COLUMNS", "survivorship",
    "INFERENCE_LABELS", "AnalysisData", "CatalogUnavailable", "DataError", "Design",
    "EffectsFit", "ModelFit", "SimulatedCorpus", "SizesNotComparable", "TaskBootstrap",
    "build_design", "fit_model", "task_bootstrap", "task_size_ranks",
    "acceleval_measures", "as_table", "compare_methods", "dose_response",
    "find_bundles", "fit_effects", "id_key", "jaccard_matrix", "join_results_labels", "kind_of",
    "labels_wide", "leaderboard", "load_analysis", "load_structural_map", "parse_flags",
    "pass_at_k", "prepare_table", "read_data_csv", "read_labels", "read_store_results",
    "simulate_corpus", "size_rank", "size_effects", "solutions", "strategy_columns",
    "structural_contrast",
]
