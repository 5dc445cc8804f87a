#!/usr/bin/env bash
# The one command that proves the CUDA backend on a machine with an NVIDIA GPU, in under 8 minutes:
#
#   bench/device_check.sh LOGDIR
#
#  1. builds the CUDA backend (preset `cuda`); where this machine lacks gpucap's build
#     dependencies it uses bundle/ instead, made beforehand by scripts/make_device_bundle.sh on a
#     machine that has them and nvcc (with the device tool: carry ["bundle"]);
#  2. `gpucap info`: the device found;
#  3. the GPU tests (cuda_backend_test): every shipped scenario bit for bit against the CPU
#     backend, batching, memory budgets, sweep points, device moments;
#  4. GPU against CPU through the CLI on every shipped scenario, each sized to run a few seconds
#     (replications from its expected events; a service's horizon cut so one replication fits):
#     the same seed on cpu, the device and auto, cpu's and the device's results compared bit for
#     bit (bench/compare_results.py), the three wall times, auto's pick and its time against the
#     better of the two;
#  5. the benchmarks (engine_bench --device): each scenario's ratio to the reference loop on 1
#     CPU thread, then events/s and replications/s on all CPU threads and the GPU, with the ratios
#     (docs/performance.md);
#  6. `--rows none` at scale on three scenarios, the CPU against the device, which then reduces
#     its batches itself (summaries compared bit for bit).
# Everything goes to LOGDIR: build.log, info.txt, gpu_tests.log, compare.txt, bench.txt,
# rows_none.txt and summary.txt (one line per step: ok, FAILED or skipped, and its time). Exit 0 when every step
# passed.
#
# GPUCAP_CHECK_BACKEND=thrust-omp rehearses steps 4 and 5 on a machine without a GPU (the device
# backend on the host's cores); steps 2 and 3 then only report that there is no GPU. With it,
# GPUCAP_CHECK_SCALE (e.g. 0.02) scales step 4's replications, GPUCAP_CHECK_TARGET_S (default 2)
# sets the CPU seconds step 4 sizes each scenario to, GPUCAP_CHECK_REPLICATIONS (e.g. 1000 or
# 100000: issue 30's two sizes for auto's target) runs every scenario at that count instead (a
# service's horizon is still cut; a run over GPUCAP_CHECK_SCENARIO_S is "slow"), and
# GPUCAP_CHECK_BENCH_ARGS adds
# engine_bench options (e.g. "--device-scale 0.001 --min-seconds 0.2"); GPUCAP_CHECK_ROWS_NONE_S
# (default 5) sizes step 6's runs, which GPUCAP_CHECK_SCALE scales too.
#
# Budgets: GPUCAP_CHECK_SECONDS (default 470) for the whole check; GPUCAP_CHECK_SCENARIO_S
# (default 30) for one run in step 4 (a slower one is reported as "slow", not compared, and
# does not fail the check);
# GPUCAP_CHECK_GTEST_FILTER selects step 3's tests (default: all but the *EveryShippedScenario
# ones, whose inference scenarios run a few week-long replications, minutes on one GPU thread
# each; step 4 compares every scenario through the CLI instead).
set -uo pipefail
if [ $# -ne 1 ]; then
  echo "usage: bench/device_check.sh LOGDIR" >&2
  exit 2
fi
cd "$(dirname "$0")/.."
mkdir -p "$1"
logs="$(cd "$1" && pwd)"
summary="$logs/summary.txt"
: >"$summary"
failed=0
started=$(date +%s)

# The whole check stays inside its budget: every step's limit is cut to what is left of it.
deadline=$((started + ${GPUCAP_CHECK_SECONDS:-470}))

# step NAME LIMIT_S COMMAND...: runs COMMAND with a time limit, records ok/FAILED and seconds.
step() {
  local name="$1" limit="$2"
  shift 2
  local t0=$(date +%s)
  local left=$((deadline - t0))
  [ $left -lt $limit ] && limit=$left
  if [ $limit -le 0 ]; then
    printf '%-28s %-22s\n' "$name" "skipped (8 minutes spent)" | tee -a "$summary"
    failed=1
    return 1
  fi
  timeout "$limit" "$@"
  local rc=$?
  local status="ok"
  [ $rc -eq 124 ] && status="FAILED (over ${limit} s)"
  [ $rc -ne 0 ] && [ $rc -ne 124 ] && status="FAILED (exit $rc)"
  [ $rc -ne 0 ] && failed=1
  printf '%-28s %-22s %4d s\n' "$name" "$status" $(($(date +%s) - t0)) | tee -a "$summary"
  return $rc
}

# 1. Build, or fall back to the carried bundle (GPUCAP_CHECK_USE_BUNDLE=1: the bundle at once,
# which saves the build's minutes of device time when the bundle was just made from this tree).
if [ "${GPUCAP_CHECK_USE_BUNDLE:-0}" = 1 ] && [ -x bundle/run ]; then
  echo "using the carried bundle/ (GPUCAP_CHECK_USE_BUNDLE=1)" | tee -a "$summary"
  gpucap="bundle/run gpucap"
  gpu_test="bundle/run cuda_backend_test"
  bench="bundle/run engine_bench"
elif step "build (preset cuda)" 240 bash -c \
  "{ cmake --preset cuda && cmake --build --preset cuda -j \$(nproc) --target gpucap engine_bench cuda_backend_test; } >'$logs/build.log' 2>&1"; then
  gpucap=build/cuda/gpucap
  gpu_test=build/cuda/tests/cuda_backend_test
  bench=build/cuda/bench/engine_bench
elif [ -x bundle/run ]; then
  echo "build failed (see build.log); using the prebuilt bundle/" | tee -a "$summary"
  failed=0
  gpucap="bundle/run gpucap"
  gpu_test="bundle/run cuda_backend_test"
  bench="bundle/run engine_bench"
else
  echo "no build and no bundle/: see $logs/build.log" | tee -a "$summary"
  exit 1
fi

# 2. The device.
backend="${GPUCAP_CHECK_BACKEND:-cuda}"
step "gpucap info" 60 bash -c "$gpucap info >'$logs/info.txt' 2>&1"
cat "$logs/info.txt"
if [ "$backend" = "cuda" ] && ! grep -q "runs on: cuda" "$logs/info.txt"; then
  echo "no usable CUDA device: nothing more to check" | tee -a "$summary"
  exit 1
fi

# 3. GPU tests (they skip, visibly, where no device works).
# (No stdbuf here: with the bundle, the machine's libstdbuf would be loaded into the bundle's
# older C library, and refuses to.)
step "GPU tests" 150 bash -c "$gpu_test --gtest_filter='${GPUCAP_CHECK_GTEST_FILTER:--*EveryShippedScenario*}' >'$logs/gpu_tests.log' 2>&1"
tail -3 "$logs/gpu_tests.log"

# 4. GPU against CPU through the CLI, every shipped scenario, sized to run a few seconds each:
# replications from the scenario's expected events (`gpucap validate`: the cost model's work
# estimate) so the CPU takes about GPUCAP_CHECK_TARGET_S (default 2) on this machine's threads;
# a scenario whose one replication would take longer than that on one GPU thread (a week of
# requests: minutes) runs with its horizon cut to fit (--set horizon=...; the bits are compared
# all the same). Each runs on cpu, on the device and on auto; the table gives the three times,
# auto's pick (`-v`) and auto's time against the better of the two (target: within 10%).
# timed_run LIMIT_S COMMAND...: runs COMMAND (its output to stderr) under a time limit and prints
# its wall seconds, or ">LIMIT_S" when it ran out; returns 1 when it failed otherwise.
timed_run() {
  local limit="$1" t0 t1 rc
  shift
  t0=$(date +%s.%N)
  timeout "$limit" "$@" >&2
  rc=$?
  t1=$(date +%s.%N)
  if [ $rc -eq 124 ]; then
    echo ">$limit"
    return 0
  fi
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f\n", b - a }'
  [ $rc -eq 0 ]
}
compare_all() {
  local work threads
  work="$(mktemp -d)"
  threads=$(nproc)
  printf '%-28s %7s %-9s %8s %8s %8s %-5s %7s  %s\n' scenario reps horizon "cpu s" \
    "$backend s" "auto s" auto "vs best" result
  for file in scenarios/*.yaml; do
    local name line events horizon warmup reps cut=""
    name="$(basename "$file" .yaml)"
    line="$($gpucap validate "$file" 2>/dev/null | grep '^work: ')"
    read -r events horizon warmup < <(echo "$line" | sed -n \
      's/^work: about \([^ ]*\) events per replication (horizon \([^ ]*\) s, warm-up \([^ ]*\) s).*/\1 \2 \3/p')
    if [ -z "$events" ] || [ -z "$horizon" ]; then
      printf '%-28s %s\n' "$name" "FAILED: gpucap validate gave no work line"
      failed=1
      continue
    fi
    # Model figures (kernels/backend_choice.hpp): 1e7 events/s per host thread, a device thread
    # alone 170 times slower.
    read -r reps cut cut_warmup < <(awk -v e="$events" -v h="$horizon" -v w="$warmup" -v t="$threads" \
      -v target="${target_s:-2}" -v scale="${reps_scale:-1}" -v fixed="${fixed_reps:-0}" 'BEGIN {
        one_gpu_thread = e * 170 / 1e7; f = 1
        if (one_gpu_thread > target) { f = target / one_gpu_thread; e = e * f }
        r = int(target * t * 1e7 / e * scale)
        if (r > 65536) r = 65536
        if (r >= 256) r = int(r / 256) * 256
        if (r < 16) r = 16
        if (fixed > 0) r = fixed
        if (f < 1) printf "%d %.0fs %.0fs\n", r, h * f, w * f; else printf "%d\n", r
      }')
    local set_args=()
    [ -n "$cut" ] && set_args=(--set "horizon=$cut" --set "warmup=$cut_warmup")
    local times=() t result pick
    rm -f "$work"/*.h5
    for b in cpu "$backend" auto; do
      t=$(timed_run "${scenario_s:-60}" $gpucap run "$file" -r "$reps" "${set_args[@]}" -q -v \
        --backend "$b" -o "$work/$b.h5" 2>"$work/$b.err") || failed=1
      times+=("$t")
    done
    pick=$(sed -n 's/^gpucap: backend \([^ ]*\) .*/\1/p' "$work/auto.err" | head -1)
    case "$pick" in cpu-*) pick=cpu ;; esac
    if [ ! -f "$work/$backend.h5" ]; then
      result="slow: not compared"
    elif ${PYTHON:-python3} bench/compare_results.py "$work/cpu.h5" "$work/$backend.h5" >"$work/diff.txt" 2>&1; then
      result="identical"
    else
      result="DIFFERENT: $(head -1 "$work/diff.txt")"
      failed=1
    fi
    printf '%-28s %7d %-9s %8s %8s %8s %-5s %7s  %s\n' "$name" "$reps" "${cut:--}" \
      "${times[0]}" "${times[1]}" "${times[2]}" "${pick:-?}" \
      "$(awk -v c="${times[0]}" -v d="${times[1]}" -v a="${times[2]}" 'BEGIN {
          if (c ~ />/ || a ~ />/) { print "n/a"; exit }
          best = c; if (d !~ />/ && d + 0 < best + 0) best = d
          if (best > 0) printf "%.2fx", a / best }')" "$result"
  done
  rm -rf "$work"
  return $failed
}
step "GPU vs CPU vs auto, all scenarios" 240 bash -c "$(declare -f timed_run compare_all); gpucap='$gpucap'; PYTHON='${PYTHON:-python3}'; backend='$backend'; reps_scale='${GPUCAP_CHECK_SCALE:-1}'; target_s='${GPUCAP_CHECK_TARGET_S:-2}'; fixed_reps='${GPUCAP_CHECK_REPLICATIONS:-0}'; scenario_s='${GPUCAP_CHECK_SCENARIO_S:-30}'; failed=0; compare_all >'$logs/compare.txt' 2>&1"
cat "$logs/compare.txt"
# auto within 10% of the better backend, per scenario (a target, not a failure of the check).
awk 'NR > 1 && $8 ~ /x$/ { n++; if ($8 + 0 <= 1.10) ok++ } END { if (n) printf "auto within 10%% of the better backend: %d of %d scenarios\n", ok, n }' \
  "$logs/compare.txt" | tee -a "$summary"

# 5. Benchmarks.
# engine_bench writes line by line by itself: a benchmark stopped at its limit keeps its rows.
step "benchmarks" 150 bash -c "$bench --device $backend --min-seconds 1 ${GPUCAP_CHECK_BENCH_ARGS:-} >'$logs/bench.txt' 2>&1"
cat "$logs/bench.txt"

# 6. Keeping no rows, at scale: default, spot_training and mmc_validation with --rows none on the
# CPU and the device, each sized so the CPU takes about GPUCAP_CHECK_ROWS_NONE_S (default 5) s
# on this machine's threads (at most 2^20 replications; GPUCAP_CHECK_SCALE scales it). The
# device reduces its batches there and copies back no rows (docs/backends.md, step 4); the
# summaries are compared bit for bit (their percentiles come from the sketches on both).
rows_none_at_scale() {
  local work threads
  work="$(mktemp -d)"
  threads=$(nproc)
  printf '%-16s %8s %10s %8s %8s %7s  %s\n' scenario reps "events" "cpu s" "$backend s" ratio result
  for name in default spot_training mmc_validation; do
    local file="scenarios/$name.yaml" events reps times=() t result
    events="$($gpucap validate "$file" 2>/dev/null | sed -n 's/^work: about \([^ ]*\) events per replication.*/\1/p')"
    reps=$(awk -v e="${events:-1000}" -v t="$threads" -v target="${target_s:-5}" -v scale="${reps_scale:-1}" 'BEGIN {
      r = int(target * t * 1e7 / e * scale); if (r > 1048576) r = 1048576
      r = int(r / 256) * 256; if (r < 256) r = 256; print r }')
    rm -f "$work"/*.h5
    for b in cpu "$backend"; do
      t=$(timed_run "${scenario_s:-60}" $gpucap run "$file" -r "$reps" --rows none -q \
        --backend "$b" -o "$work/$b.h5" 2>"$work/$b.err") || failed=1
      times+=("$t")
    done
    if [ ! -f "$work/$backend.h5" ] || [ ! -f "$work/cpu.h5" ]; then
      result="not compared: $(head -c 200 "$work/$backend.err" "$work/cpu.err" 2>/dev/null | tr '\n' ' ')"
    elif ${PYTHON:-python3} bench/compare_results.py "$work/cpu.h5" "$work/$backend.h5" >"$work/diff.txt" 2>&1; then
      result="identical summaries"
    else
      result="DIFFERENT: $(head -1 "$work/diff.txt")"
      failed=1
    fi
    printf '%-16s %8d %10s %8s %8s %7s  %s\n' "$name" "$reps" "$events" "${times[0]}" "${times[1]}" \
      "$(awk -v c="${times[0]}" -v d="${times[1]}" 'BEGIN {
          if (c ~ />/ || d ~ />/ || d + 0 <= 0) { print "n/a"; exit } printf "%.2fx", c / d }')" "$result"
  done
  rm -rf "$work"
  return $failed
}
step "rows none at scale" 120 bash -c "$(declare -f timed_run rows_none_at_scale); gpucap='$gpucap'; PYTHON='${PYTHON:-python3}'; backend='$backend'; reps_scale='${GPUCAP_CHECK_SCALE:-1}'; target_s='${GPUCAP_CHECK_ROWS_NONE_S:-5}'; scenario_s='${GPUCAP_CHECK_SCENARIO_S:-30}'; failed=0; rows_none_at_scale >'$logs/rows_none.txt' 2>&1"
cat "$logs/rows_none.txt"

echo "device check: $(($(date +%s) - started)) s in all" | tee -a "$summary"
cat "$summary"
exit $failed
