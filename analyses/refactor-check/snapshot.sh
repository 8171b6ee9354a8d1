#!/usr/bin/env bash
# Writes every output the architecture change must leave unchanged into OUT (default
# refactor-snapshot/): catalog test, tags of every bundled .cu file, each gold set's evaluation,
# the statistics on the example corpus, and the demo's results export and report tables.
#   analyses/refactor-check/snapshot.sh /tmp/before   (on the old commit)
#   analyses/refactor-check/snapshot.sh /tmp/after    (on the new one)
#   diff -r /tmp/before /tmp/after
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${1:-refactor-snapshot}
mkdir -p "$OUT"
SL=${SL:-.venv/bin/strategylens}
PY=${PY:-.venv/bin/python}
export STRATEGYLENS_CACHE=$(mktemp -d)
CORPUS=${CORPUS:-"tasks tests/fixtures/gold tests/fixtures/gold-heldout tests/fixtures/gold-heldout2 tests/fixtures/gold-independent-a tests/fixtures/gold-independent-b tests/fixtures/gold-independent-c tests/fixtures/gold-independent-d tests/cheats tests/fixtures/harness_task"}

$SL catalog validate > "$OUT/catalog-validate.txt" 2>&1
$SL catalog test --format json > "$OUT/catalog-test.json" 2> "$OUT/catalog-test.err"
# tags: sorted JSONL so file order does not matter
$SL tag $CORPUS --task auto --format jsonl --no-cache 2>/dev/null | sort > "$OUT/tag-corpus.jsonl"
$SL tag $CORPUS --task auto --store analyses/h200 --format jsonl --no-cache 2>/dev/null | sort > "$OUT/tag-corpus-store.jsonl"
$SL tag $CORPUS --no-index --format jsonl --no-cache 2>/dev/null | sort > "$OUT/tag-corpus-noindex.jsonl"
$SL tag $CORPUS --detectors substring --format jsonl --no-cache 2>/dev/null | sort > "$OUT/tag-substring.jsonl"
for d in ${GOLD_SETS:-tests/fixtures/gold*/}; do
  d=${d%/}; name=$(basename "$d")
  $PY analyses/gold-eval/evaluate.py "$d" > "$OUT/eval-$name.txt" 2>&1
done
DATA=analyses/example-report/data.csv
$SL stats effects --data $DATA --format csv > "$OUT/stats-effects.csv" 2>&1
for k in structural size dose acceleval; do
  $SL stats contrasts --data $DATA --kind $k --format csv > "$OUT/stats-contrasts-$k.csv" 2>&1
done
$SL stats leaderboard --data $DATA --format csv > "$OUT/stats-leaderboard.csv" 2>&1
$SL stats simulate --out "$OUT/sim.csv" --seed 7 --format csv > "$OUT/sim-truth.csv" 2>&1
$SL stats effects --data "$OUT/sim.csv" --format csv > "$OUT/sim-effects.csv" 2>&1
$SL results export analyses/h200 --format csv > "$OUT/h200.csv" 2>&1
$SL tag tasks/*/solutions tests/cheats tests/fixtures/harness_task/saxpy/solutions --task auto \
    --store analyses/h200 --format jsonl --no-cache > "$OUT/demo-labels.jsonl" 2>/dev/null
$SL report --store analyses/h200 --labels "$OUT/demo-labels.jsonl" --out "$OUT/report" > /dev/null 2>&1
rm -rf "$OUT/report/figures" "$OUT/report/report.html"   # images and HTML carry timestamps
rm -rf "$STRATEGYLENS_CACHE"
# absolute paths differ between checkouts
find "$OUT" -type f -exec sed -i "s|$PWD/||g" {} +
echo "snapshot in $OUT"
