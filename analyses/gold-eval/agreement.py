"""Agreement between two hand labellings of the same files (Cohen's kappa over file x ID).

    .venv/bin/python analyses/gold-eval/agreement.py tests/fixtures/gold-independent-a/labels.yaml \
        tests/fixtures/gold-independent-a/labels-second.yaml

Each (file, catalog ID) pair is present or absent for each labeller; pairs either labeller marked
`unsure` are left out. Prints kappa, raw agreement, the counts, and every disagreement; writes
agreement-<folder>.json beside this script.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import yaml
from sklearn.metrics import cohen_kappa_score

from strategylens.catalog import load_catalog


def agreement(first: dict, second: dict, ids: list[str]) -> dict:
    """Kappa and counts over the files both labellings cover.

    Examples
    --------
    >>> a = {"f.cu": {"present": {"MEM-01": [1]}, "unsure": []}}
    >>> b = {"f.cu": {"present": {"MEM-01": [2], "PAR-01": [3]}, "unsure": []}}
    >>> r = agreement(a, b, ["MEM-01", "PAR-01", "PAR-02"])
    >>> (r["pairs"], r["agree"], r["disagreements"])
    (3, 2, [{'file': 'f.cu', 'id': 'PAR-01', 'first': False, 'second': True}])
    """
    x, y, disagreements = [], [], []
    for name in sorted(set(first) & set(second)):
        a, b = first[name], second[name]
        skip = set(a.get("unsure") or []) | set(b.get("unsure") or [])
        for sid in ids:
            if sid in skip:
                continue
            pa, pb = sid in (a.get("present") or {}), sid in (b.get("present") or {})
            x.append(pa)
            y.append(pb)
            if pa != pb:
                disagreements.append({"file": name, "id": sid, "first": pa, "second": pb})
    agree = sum(p == q for p, q in zip(x, y, strict=True))
    return {
        "files": len(set(first) & set(second)), "pairs": len(x), "agree": agree,
        "raw_agreement": round(agree / len(x), 3) if x else None,
        "kappa": round(float(cohen_kappa_score(x, y)), 3) if len(set(x) | set(y)) > 1 else None,
        "present_first": sum(x), "present_second": sum(y),
        "disagreements": disagreements,
    }


def main() -> None:
    first_path, second_path = (Path(p) for p in sys.argv[1:3])
    ids = load_catalog(check_examples=False).ids
    res = agreement(yaml.safe_load(first_path.read_text()), yaml.safe_load(second_path.read_text()),
                    ids)
    res["first"], res["second"] = str(first_path), str(second_path)
    for d in res["disagreements"]:
        print(f"{d['file']:30s} {d['id']}: first {'present' if d['first'] else 'absent'}, "
              f"second {'present' if d['second'] else 'absent'}")
    print(f"{res['files']} files, {res['pairs']} (file, ID) pairs: raw agreement "
          f"{res['raw_agreement']}, Cohen's kappa {res['kappa']} (present: {res['present_first']} "
          f"vs {res['present_second']})")
    out = Path(__file__).parent / f"agreement-{first_path.parent.name}.json"
    out.write_text(json.dumps(res, indent=2) + "\n")


if __name__ == "__main__":
    main()
