"""`strategylens corpus ...`: the measured corpus of solutions and its gold labels."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
import yaml

from strategylens.cli.common import Format, FormatOption, emit, err, fail

app = typer.Typer(help="The corpus: every task's solutions, their authors and gold labels.",
                  no_args_is_help=True)

TasksOption = typer.Option(None, "--tasks-dir",
                           help="A folder of task folders (default: the bundled tasks).")


def _entries(tasks_dir: Path | None, second: bool = False) -> list[dict]:
    """One row per solution of every task with a labels.yaml (or labels-second.yaml)."""
    from strategylens.labels.records import LabelError, read_gold
    from strategylens.resources import TASKS_DIR

    root = Path(tasks_dir or TASKS_DIR)
    if not root.is_dir():
        raise fail(f"{root}: no such folder of tasks")
    rows = []
    for task in sorted(p for p in root.iterdir() if (p / "labels.yaml").is_file()):
        labels = task / ("labels-second.yaml" if second else "labels.yaml")
        if not labels.is_file():
            continue
        try:
            gold = read_gold(labels)
            raw = yaml.safe_load(labels.read_text()) or {}
            meta = raw if not second else yaml.safe_load((task / "labels.yaml").read_text()) or {}
        except (LabelError, yaml.YAMLError) as exc:
            raise fail(f"{labels}: {exc}") from None
        for path, fl in gold.files.items():
            name = Path(path).name
            spec, own = meta.get(name) or {}, raw.get(name) or {}
            rel = Path(path).resolve()
            if rel.is_relative_to(root.resolve().parent):
                rel = rel.relative_to(root.resolve().parent)
            rows.append({
                "path": str(rel), "task": task.name, "author": spec.get("author"),
                "labeller": own.get("labeller"), "ablation": spec.get("ablation"),
                "labels": [{"id": lab.id, "lines": list(lab.lines)}
                           for lab in sorted(fl.labels.values(), key=lambda x: x.id)],
                "unsure": sorted(fl.unsure), "labelled": "present" in own,
            })
    return rows


@app.command()
def labels(
    tasks_dir: Optional[Path] = TasksOption,
    second: bool = typer.Option(False, "--second",
                                help="The independent second labelling (labels-second.yaml)."),
    fmt: Format = FormatOption,
) -> None:
    """Gold labels of every corpus solution: path, task, author, labeller, ablation, labels
    [{id, lines}], unsure. A coverage summary goes to stderr.

    Examples:
      strategylens corpus labels --format json > gold.json
      strategylens corpus labels --second --format jsonl
    """
    rows = _entries(tasks_dir, second)
    ids = sorted({lab["id"] for r in rows for lab in r["labels"]})
    strategies = [i for i in ids if not i.startswith("AP-")]
    err.print(f"{len(rows)} solutions in {len({r['task'] for r in rows})} tasks, "
              f"{sum(r['labelled'] for r in rows)} labelled; {len(strategies)} strategies and "
              f"{len(ids) - len(strategies)} anti-patterns present "
              f"({', '.join(i for i in ids if i.startswith('AP-')) or 'none'})")
    if fmt == Format.human or fmt == Format.csv:
        flat = [{**r, "labels": ",".join(lab["id"] for lab in r["labels"]),
                 "unsure": ",".join(r["unsure"]),
                 "ablation": "" if not r["ablation"] else
                 f"{r['ablation'].get('family')}:{r['ablation'].get('changes') or 'root'}"}
                for r in rows]
        emit(flat, fmt, ["task", "path", "author", "ablation", "labels"])
        return
    emit([{k: v for k, v in r.items() if k != "labelled"} for r in rows], fmt)


@app.command("list")
def list_(tasks_dir: Optional[Path] = TasksOption, fmt: Format = FormatOption) -> None:
    """Every corpus solution with its task, author and ablation step."""
    rows = _entries(tasks_dir)
    emit([{"task": r["task"], "path": r["path"], "author": r["author"],
           "family": (r["ablation"] or {}).get("family"),
           "changes": (r["ablation"] or {}).get("changes"),
           "labelled": r["labelled"]} for r in rows], fmt,
         ["task", "path", "author", "family", "changes", "labelled"])
