"""`strategylens report`: the regression report as HTML and Markdown."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from strategylens.cli.common import info
from strategylens.cli.stats import (DataOption, Inference, InferenceOption, LabelsOption,
                                   LaddersOption, StoreOption, load, load_ladders)


def command(
    data: Optional[Path] = DataOption, store: Optional[Path] = StoreOption,
    labels: Optional[Path] = LabelsOption,
    out: Path = typer.Option(..., "--out", help="Directory for report.html, report.md, "
                             "figures/ and tables/."),
    title: str = typer.Option("strategylens report", help="Page title."),
    banner: Optional[str] = typer.Option(None, help="A highlighted line under the title, e.g. "
                                         "'Simulated data'."),
    bootstrap: int = typer.Option(200, help="Task-resampling bootstrap replicates, a check "
                                  "beside the main interval (0: none)."),
    seed: int = typer.Option(0, help="Seed of the wild and the task-resampling bootstrap."),
    inference: Inference = InferenceOption,
    ladders: Optional[list[Path]] = LaddersOption,
    p: float = typer.Option(1.0, "--p", help="fast_p threshold."),
    k: int = typer.Option(1, "--k", help="k of pass@k."),
    bundle_threshold: float = typer.Option(0.9, help="Jaccard threshold for our bundles."),
) -> None:
    """Write the regression report (HTML and a Markdown twin) with figures and CSV tables.

    Example: strategylens report --data results.csv --out report/
    Example: strategylens report --store analyses/h200 --labels tags.jsonl --out report/
    """
    from strategylens.cli.common import check_output, writing

    from strategylens.cli.common import Steps
    from strategylens.report import compute_tables, render

    check_output(out, "folder")
    ladder = load_ladders(ladders)
    analysis = load(data, store, labels)
    trials = None
    with Steps("report", 3) as step:
        if store is not None and len(ladder):
            from strategylens.store import read_trials

            step("reading the trials")
            trials = read_trials(store)
        step(f"fitting ({bootstrap} bootstrap replicates)")
        tables = compute_tables(analysis, bootstrap=bootstrap, seed=seed, p=p, k=k,
                                bundle_threshold=bundle_threshold, inference=inference.value,
                                ladders=ladder, trials=trials)
        step("figures and pages")
        with writing(out):
            paths = render(tables, analysis, out, title=title, banner=banner)
    info(f"wrote {paths['html']} and {paths['markdown']}")
    typer.echo(str(paths["html"]))
