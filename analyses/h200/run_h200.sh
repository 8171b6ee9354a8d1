#!/usr/bin/env bash
# Produces the committed H200 run. On the device machine, from the repository root:
#   bash analyses/h200/run_h200.sh [extra args for run_h200.py]
# Wheels for cupti-python (and pyelftools) are expected in .whl/ (carried with the call).
# Writes the store under $OUT/store (tarred, since the device tool returns at most 8 files),
# the CSV export, the GPU test log and the run log.
set -u
OUT=${OUT:-/tmp/h200-out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
      --target /tmp/site .whl/*.whl && export PYTHONPATH=$PWD:/tmp/site
else
  export PYTHONPATH=$PWD
fi
STORE=${STORE:-analyses/h200}
mkdir -p "$STORE"
{
  date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv
  nvcc --version | tail -1; python3 --version; nproc
  python3 -c "from cupti import cupti; print('cupti-python importable')" 2>&1 | tail -1
  cat /sys/kernel/security/lsm 2>/dev/null; echo
} 2>&1 | tee "$OUT/env.txt"
t0=$(date +%s)
timeout ${RUN_TIMEOUT:-480} python3 analyses/h200/run_h200.py --store "$STORE" "$@" 2>&1 | tee "$OUT/run.log"
echo "run_h200.py: $(( $(date +%s) - t0 )) s" | tee -a "$OUT/run.log"
# (the same as `strategylens results export "$STORE" --format csv`, without the CLI's other
# nouns, whose dependencies the GPU image may lack)
python3 -c "import sys; from strategylens.store import read_results; df = read_results(sys.argv[1]); \
df.assign(audit_flags=df['audit_flags'].map(';'.join)).to_csv(sys.argv[2], index=False)" \
  "$STORE" "$OUT/h200.csv" 2>>"$OUT/run.log"
if [ "${SKIP_PYTEST:-0}" != 1 ]; then
  timeout ${PYTEST_TIMEOUT:-240} python3 -m pytest -q -rA -m "gpu and not slow" \
      ${PYTEST_FILES:-tests/test_harness_gpu.py tests/test_tasks_cuda.py} 2>&1 | tail -120 | tee "$OUT/pytest_gpu.log"
fi
tar -C "$STORE" -czf "$OUT/store.tar.gz" results trials traces
ls -la "$OUT"
