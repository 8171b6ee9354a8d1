#!/usr/bin/env bash
# One device call that does a session's GPU work in order of value, each part in its own time
# slot, every part resumable (stores skip what they hold). On the device machine, from the
# repository root, with .whl/ (wheels) and .cache/sl/ (builds made here with
# `STRATEGYLENS_CACHE=.cache/sl strategylens run ... --build-only`) carried:
#   bash analyses/h200/session.sh
# Parts (seconds of the call's clock at which each must end; SESSION_S scales nothing, it only
# caps the last part):
#   fixture        the harness fixture's honest solutions, three sizes (no flag may show)
#   corpus-medium  every task's corpus solutions at medium       (analyses/h200-corpus)
#   audit20        issue 20's cheats, failing solutions, GPU tests (run_audit20.sh)
#   acceleval      AccelEval baselines, if analyses/acceleval/run_h200.sh and .acceleval/ exist
#   throughput     legacy vs current harness on three baselines  (analyses/throughput)
#   scaleout       plain vs --cluster local-cuda, one worker      (analyses/scale-out)
#   corpus-rest    large, then small, with what time is left
#   recheck        RECHECK's "solution.cu:size" pairs again into their own store (a harness
#                  change tried on the rows it is about), then tests/cheats at RECHECK_CHEATS
# PARTS (comma-separated) picks parts; TASKS and CORPUS the corpus parts' tasks and store
# (CORPUS_SEED: a store copied into CORPUS when CORPUS holds none, so that a store in an ignored
# folder survives between calls to a warm machine); MEDIUM_END, AUDIT_END, AE_END and
# THROUGHPUT_END move those parts' end marks; AE_ARGS go to analyses/acceleval/run_h200.py;
# THROUGHPUT_PARTS and THROUGHPUT_TASKS to run_throughput.py (e.g. repeat, and the tasks whose
# baselines run twice); REST_SIZES and REST_TASKS are corpus-rest's sizes (a comma list runs them
# in one child per solution) and tasks. The corpus parts first compute every reference they need
# at once, on every core.
# $OUT gets env.txt, session.log and one .tar.gz per part, rewritten after each step, so a call
# stopped at its limit still returns what finished (8 files at most come back).
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/session-out}
mkdir -p "$OUT"
T0=$(date +%s)
SESSION_S=${SESSION_S:-570}
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0
export STRATEGYLENS_CACHE=$PWD/.cache/sl
LOG=$OUT/session.log
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
      --target /tmp/site .whl/*.whl && export PYTHONPATH=$PWD:/tmp/site
else
  export PYTHONPATH=$PWD
fi
{
  date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv
  nvcc --version | tail -1; python3 --version; nproc; free -g | head -2; git log -1 --format=%H 2>/dev/null
  python3 -c "from strategylens.provenance import tool_sha; print('tool_sha', tool_sha())"
  python3 -c "from cupti import cupti; print('cupti-python importable')" 2>&1 | tail -1
  echo "carried builds: $(ls .cache/sl/builds 2>/dev/null | wc -l)"
} 2>&1 | tee "$OUT/env.txt"

left() { echo $(( $1 - ($(date +%s) - T0) )); }  # seconds until the mark (call's clock)
part() {  # part NAME END_MARK command...: run it with what is left until END_MARK
  local name=$1 end=$2; shift 2
  local budget; budget=$(left "$end")
  if [ "$budget" -lt 15 ]; then echo "== $name: skipped (${budget} s left)" | tee -a "$LOG"; return; fi
  echo "== $name: start at $(( $(date +%s) - T0 )) s, ${budget} s" | tee -a "$LOG"
  END_AT=$(( $(date +%s) + budget - 8 )) DEADLINE=$(( budget - 15 )) timeout "$budget" "$@" 2>&1 \
      | tee -a "$LOG" | tail -30
  echo "== $name: end at $(( $(date +%s) - T0 )) s" | tee -a "$LOG"
}
pack() { tar -C "$1" -czf "$OUT/$2.tar.gz" . 2>/dev/null; }
# a part's own $OUT/NAME folder into one NAME.tar.gz (8 files at most come back)
pack_out() { [ -d "$OUT/$1" ] && tar -C "$OUT" -czf "$OUT/$1.tar.gz" "$1" && rm -rf "$OUT/$1"; }
RECHECK=${RECHECK:-}
RECHECK_CHEATS=${RECHECK_CHEATS:-}
PARTS=${PARTS:-corpus-medium,audit20,acceleval,throughput,scaleout,corpus-rest}
want() { case ",$PARTS," in *",$1,"*) return 0;; *) return 1;; esac; }

# ladder tasks first: they carry the within-task contrasts
TASKS=${TASKS:-"heat2d histogram nbody black_scholes pagerank pairwise_dist mc_asian knapsack bfs spmv_power sph_density inventory_dp smith_waterman"}
CORPUS=${CORPUS:-analyses/h200-corpus}
if [ -n "${CORPUS_SEED:-}" ] && [ ! -d "$CORPUS/results" ]; then
  mkdir -p "$(dirname "$CORPUS")" && cp -r "$CORPUS_SEED" "$CORPUS"
fi
mkdir -p "$CORPUS"
corpus() {  # corpus SIZES...: task by task until END_AT, the store packed after each; a
  # comma list (small,large) runs those sizes in one child per solution
  local all; all=$(echo $TASKS | tr ' ' ,)
  timeout $(( END_AT - $(date +%s) )) python3 analyses/h200/run_h200.py --store "$CORPUS" \
      --tasks "$all" --sizes "$(echo "$@" | tr ' ' ,)" --no-cheats --jobs 15 --references-only 2>&1 \
      | grep -E "^references:|FAILED"
  for z in "$@"; do
    for t in $TASKS; do
      [ "$(date +%s)" -lt "$END_AT" ] || { echo "deadline: $t $z left for the next call"; continue; }
      timeout $(( END_AT - $(date +%s) + 5 )) python3 analyses/h200/run_h200.py --store "$CORPUS" \
          --tasks "$t" --sizes "$z" --no-cheats --measure-s "${MEASURE_S:-0.5}" --jobs 14 2>&1 \
          | grep -Ev "^reference |^[0-9]+ +[a-z_0-9]+ +tasks/"
      pack "$CORPUS" corpus
    done
  done
}
export -f corpus pack
export CORPUS OUT TASKS AE_ARGS THROUGHPUT_PARTS THROUGHPUT_TASKS RECHECK RECHECK_CHEATS

# the harness fixture's honest solutions (stack_frame.cu: the driver's stack reservation) at
# every size; none may carry a flag
want fixture && part fixture "${FIXTURE_END:-60}" python3 -m strategylens run \
    ${FIXTURE_PATHS:-tests/fixtures/harness_task/saxpy/solutions} \
    --task tests/fixtures/harness_task/saxpy --sizes "${FIXTURE_SIZES:-small,medium,large}" \
    --store "$OUT/fixture" --format csv
want fixture && pack_out fixture
want recheck && part recheck "${RECHECK_END:-120}" bash -c 'for x in $RECHECK; do
    python3 -m strategylens run "${x%:*}" --sizes "${x##*:}" --store "$OUT/recheck" --format csv \
        | tail -n +2; done; [ -z "${RECHECK_CHEATS:-}" ] || python3 -m strategylens run tests/cheats \
    --task tests/fixtures/harness_task/saxpy --sizes "$RECHECK_CHEATS" --store "$OUT/recheck-cheats" \
    --format csv | tail -n +2'
want recheck && { [ -d "$OUT/recheck" ] && tar -C "$OUT" -czf "$OUT/recheck.tar.gz" recheck \
    $( [ -d "$OUT/recheck-cheats" ] && echo recheck-cheats ) && rm -rf "$OUT"/recheck*/; }
want corpus-medium && part corpus-medium "${MEDIUM_END:-280}" bash -c 'corpus medium'
want audit20 && part audit20 "${AUDIT_END:-370}" env OUT="$OUT/audit20" RUN_TIMEOUT=35 DEADLINE_S=20 PYTEST_TIMEOUT=45 \
    PYTEST_K="not every_task_baseline" \
    bash analyses/h200/run_audit20.sh --parts fixture,failing
want audit20 && pack_out audit20
if want acceleval && [ -f analyses/acceleval/run_h200.sh ] && [ -d .acceleval ]; then
  part acceleval "${AE_END:-500}" bash -c 'OUT="$OUT/acceleval" bash analyses/acceleval/run_h200.sh \
      --deadline-s $((DEADLINE-35)) ${AE_ARGS:-}'
  pack_out acceleval
fi
want throughput && part throughput "${THROUGHPUT_END:-530}" bash -c 'python3 analyses/throughput/run_throughput.py \
    --out .cache/throughput --parts "${THROUGHPUT_PARTS:-before,after}" --tasks "${THROUGHPUT_TASKS:-knapsack}" \
    --measure-s 0.5 --deadline-s $((DEADLINE-10)); \
    python3 analyses/throughput/run_throughput.py --out .cache/throughput --report-only'
want throughput && [ -d .cache/throughput ] && pack .cache/throughput throughput
want scaleout && part scaleout 560 python3 analyses/scale-out/run_one_gpu.py --out analyses/scale-out \
    --tasks knapsack,mc_asian --sizes small,medium --measure-s 0.3
want scaleout && [ -d analyses/scale-out/plain ] && pack analyses/scale-out scaleout
want corpus-rest && part corpus-rest "$SESSION_S" env TASKS="${REST_TASKS:-$TASKS}" \
    bash -c "corpus ${REST_SIZES:-small,large}"
pack "$CORPUS" corpus
echo "session: $(( $(date +%s) - T0 )) s" | tee -a "$LOG"
ls -la "$OUT"
