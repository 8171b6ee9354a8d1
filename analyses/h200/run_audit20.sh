#!/usr/bin/env bash
# Issue 20's GPU check, one device call (about 2 minutes). On the device machine, from the
# repository root:
#   bash analyses/h200/run_audit20.sh [extra args for run_audit20.py]
# Wheels for cupti-python (and pyelftools) are expected in .whl/ (carried with the call), as for
# run_h200.sh. Runs run_audit20.py (the new cheats and the two honest saxpy ports at medium and
# large, the failing solutions at medium, the affected honest task solutions at small/medium)
# into its own store, then the GPU tests of the harness (every cheat and failing solution and
# every task baseline at small). Writes to $OUT: env.txt, run_audit20.log, pytest_gpu.log and
# the store as audit20-store.tar.gz.
# Environment: PYTEST_K (a -k expression), RUN_TIMEOUT (s, default 100), DEADLINE_S (run_audit20.py starts nothing new after
# it, default 55), SKIP_PYTEST=1, PYTEST_TIMEOUT (default 150), STORE.
set -u
OUT=${OUT:-/tmp/audit20-out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
      --target /tmp/site .whl/*.whl && export PYTHONPATH=$PWD:/tmp/site
else
  export PYTHONPATH=$PWD
fi
STORE=${STORE:-/tmp/audit20-store}
mkdir -p "$STORE"
{
  date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv
  nvcc --version | tail -1; python3 --version; nproc; git log -1 --format=%H 2>/dev/null
  python3 -c "from strategylens.provenance import tool_sha; print('tool_sha', tool_sha())"
  python3 -c "from cupti import cupti; print('cupti-python importable')" 2>&1 | tail -1
} 2>&1 | tee "$OUT/env.txt"
t0=$(date +%s)
timeout "${RUN_TIMEOUT:-100}" python3 analyses/h200/run_audit20.py --store "$STORE" \
    --deadline-s "${DEADLINE_S:-55}" "$@" 2>&1 | tee "$OUT/run_audit20.log"
echo "run_audit20.py: $(( $(date +%s) - t0 )) s" | tee -a "$OUT/run_audit20.log"
if [ "${SKIP_PYTEST:-0}" != 1 ]; then
  t1=$(date +%s)
  select=(); [ -n "${PYTEST_K:-}" ] && select=(-k "$PYTEST_K")
  timeout "${PYTEST_TIMEOUT:-150}" python3 -m pytest -q -rA -m "gpu and not slow" "${select[@]}" \
      tests/test_harness_gpu.py 2>&1 | tail -150 | tee "$OUT/pytest_gpu.log"
  echo "pytest: $(( $(date +%s) - t1 )) s" | tee -a "$OUT/pytest_gpu.log"
fi
tar -C "$STORE" -czf "$OUT/audit20-store.tar.gz" results trials traces 2>/dev/null
ls -la "$OUT"
