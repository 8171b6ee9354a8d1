#!/usr/bin/env bash
# AccelEval on the H200, one device call. On the device machine, from the repository root, with
# the unmodified AccelEval checkout carried as the ignored folder .acceleval/:
#   bash analyses/acceleval/run_h200.sh --deadline-s 130 [extra args for run_h200.py]
# Runs run_h200.py: the builds (strategylens's and AccelEval's compile step, at once), then per
# size (small, medium, large) the 14 human baselines under strategylens and under AccelEval's
# own harness (from a copy under /tmp), then the project's own solutions of the shared tasks;
# nothing new starts past --deadline-s; a hard stop (timeout) 20 s after it, then at most 20 s
# for the table. Writes to $OUT:
# env.txt, run.log, plan.json, side_by_side.{md,csv} and the store as acceleval-store.tar.gz
# (to resume: unpack the previous call's tarball into the ignored .acceleval-store/, carry it and
# pass --store .acceleval-store).
# Wheels for cupti-python are used from .whl/ when carried, as for analyses/h200/run_h200.sh.
set -u
OUT=${OUT:-/tmp/acceleval-out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 OUT
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
      --target /tmp/site .whl/*.whl && export PYTHONPATH=$PWD:/tmp/site
else
  export PYTHONPATH=$PWD
fi
if [ ! -f .acceleval/README.md ]; then
  echo "no .acceleval/ checkout (carry the unmodified AccelEval checkout there)" | tee "$OUT/run.log"
  exit 2
fi
deadline=130
prev=""
for a in "$@"; do [ "$prev" = "--deadline-s" ] && deadline=$a; prev=$a; done
{
  date -u; nvidia-smi --query-gpu=name,driver_version --format=csv 2>&1 | tail -1
  nvcc --version | tail -1; python3 --version; nproc; git log -1 --format=%H 2>/dev/null
} > "$OUT/env.txt" 2>&1
export STRATEGYLENS_CACHE=${STRATEGYLENS_CACHE:-/tmp/acceleval-cache}
timeout $(( ${deadline%.*} + 20 )) python3 analyses/acceleval/run_h200.py --out "$OUT" "$@" \
    > "$OUT/stdout.txt" 2>&1
echo "run_h200.py exit $?" >> "$OUT/run.log"
if [ ! -f "$OUT/side_by_side.md" ]; then  # stopped by the hard timeout: the table from the store
  timeout 20 python3 analyses/acceleval/run_h200.py --out "$OUT" --table-only "$@" \
      >> "$OUT/stdout.txt" 2>&1
fi
store=$OUT/store; prev=""
for a in "$@"; do [ "$prev" = "--store" ] && store=$a; prev=$a; done
[ -d "$store" ] && tar -C "$store" -czf "$OUT/acceleval-store.tar.gz" . && \
    [ "$store" = "$OUT/store" ] && rm -rf "$store"
ls -la "$OUT"
