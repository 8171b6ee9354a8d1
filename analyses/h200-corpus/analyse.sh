#!/usr/bin/env bash
# The corpus's H200 measurements related to its strategies, twice: with the tagger's labels
# (what a user gets) and with the hand labels of tasks/*/labels.yaml (the gold labels), so the
# answer's dependence on tagging errors is visible. No GPU: reads the committed store.
#   bash analyses/h200-corpus/analyse.sh
# Writes, beside this script: labels-tagger.jsonl, labels-gold.jsonl, results.csv,
# report-tagger/ and report-gold/ (effects, structural contrasts, sizes; ablation ladders shown
# apart and left out of the models), ablations.csv and leaderboard.csv.
set -euo pipefail
cd "$(dirname "$0")/../.."
SL=${SL:-.venv/bin/strategylens}
D=analyses/h200-corpus
LADDERS=$(ls tasks/*/labels.yaml)
$SL results export $D --format csv > $D/results.csv
$SL tag tasks/*/solutions --task auto --store $D --format jsonl --no-cache > $D/labels-tagger.jsonl
# hand labels in the tag shape (confidence 1: every hand label counts)
$SL corpus labels --format jsonl | python3 -c '
import json, sys
for line in sys.stdin:
    r = json.loads(line)
    labs = [{"id": l["id"], "kind": "anti-pattern" if l["id"].startswith("AP-") else "strategy",
             "confidence": 1.0, "intensity": None,
             "evidence": [{"line_start": n, "line_end": n, "detector": r.get("labeller") or "gold"}
                          for n in l.get("lines") or [0]]} for l in r["labels"]]
    print(json.dumps({"path": r["path"], "ok": True, "labels": labs}))
' > $D/labels-gold.jsonl
# the report fits the models on independent solutions only (ablation variants shown as ladders)
for who in tagger gold; do
  $SL report --store $D --labels $D/labels-$who.jsonl $(printf -- '--ladders %s ' $LADDERS) \
      --title "strategylens: the corpus on the H200 ($who labels)" --out $D/report-$who
done
$SL stats ablations --store $D --labels $D/labels-gold.jsonl $(printf -- '--ladders %s ' $LADDERS) \
    --format csv > $D/ablations.csv
$SL stats leaderboard --store $D --labels $D/labels-tagger.jsonl --format csv > $D/leaderboard.csv
echo "wrote $D/labels-{tagger,gold}.jsonl, report-{tagger,gold}/, ablations.csv, leaderboard.csv, results.csv"
