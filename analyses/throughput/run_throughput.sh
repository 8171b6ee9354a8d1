#!/usr/bin/env bash
# The before/after throughput measurement on the GPU machine, from the repository root:
#   bash analyses/throughput/run_throughput.sh [args for run_throughput.py]
# Stores and the reference cache live under .cache/ (git-ignored, so they survive between calls
# on a machine that stays warm); every call resumes and rewrites the summary. Wheels for
# cupti-python are taken from .whl/ as in analyses/h200/run_h200.sh. Writes to $OUT:
# throughput.tar.gz (the stores), summary.md, summary.json, run.log, env.txt.
set -u
OUT=${OUT:-/tmp/throughput-out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0
export STRATEGYLENS_CACHE=${STRATEGYLENS_CACHE:-$PWD/.cache/strategylens}
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
      --target /tmp/site .whl/*.whl && export PYTHONPATH=$PWD:/tmp/site
else
  export PYTHONPATH=$PWD
fi
STORES=${STORES:-.cache/throughput}
{
  date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv
  nvcc --version | tail -1; python3 --version; nproc; free -g | head -2
  python3 -c "from cupti import cupti; print('cupti-python importable')" 2>&1 | tail -1
} 2>&1 | tee "$OUT/env.txt"
t0=$(date +%s)
timeout ${RUN_TIMEOUT:-570} python3 analyses/throughput/run_throughput.py --out "$STORES" \
    --deadline-s ${DEADLINE_S:-420} "$@" 2>&1 | tee "$OUT/run.log"
echo "run_throughput.py: $(( $(date +%s) - t0 )) s" | tee -a "$OUT/run.log"
python3 analyses/throughput/run_throughput.py --out "$STORES" --report-only > /dev/null 2>>"$OUT/run.log"
cp "$STORES/summary.md" "$STORES/summary.json" "$OUT/" 2>/dev/null
tar -C "$STORES" -czf "$OUT/throughput.tar.gz" --exclude summary.md --exclude summary.json .
ls -la "$OUT"
