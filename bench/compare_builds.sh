#!/usr/bin/env bash
# Runs every shipped scenario with two gpucap binaries (before and after a change) and compares
# the results files bit for bit (bench/compare_results.py: every replication, pool value, time
# series bin and summary), so that a refactor can prove it changed no result.
#
#   bench/compare_builds.sh OLD_GPUCAP NEW_GPUCAP [REPLICATIONS]
#
# With GPUCAP_ALLOW_ADDED=1, datasets only the new build writes (new metrics) are listed and the
# arrays both write must still be identical.
# REPLICATIONS (default 400; inference scenarios 16) with the seed 7 on the CPU backend. Prints a
# line per scenario and exits 0 when every file is identical. Needs Python with numpy and h5py
# (the project's .venv has them).
set -uo pipefail
if [ $# -lt 2 ]; then
  echo "usage: bench/compare_builds.sh OLD_GPUCAP NEW_GPUCAP [REPLICATIONS]" >&2
  exit 2
fi
old="$1"
new="$2"
reps="${3:-400}"
cd "$(dirname "$0")/.."
python=python3
[ -x .venv/bin/python ] && python=.venv/bin/python
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failed=0
for file in scenarios/*.yaml; do
  name="$(basename "$file" .yaml)"
  n=$reps
  case "$name" in
    serverless_vs_dedicated | edge_vs_cloud_inference | inference_mmc_validation | spot_inference_fallback) n=16 ;;
  esac
  "$old" run "$file" -r "$n" --seed 7 --backend cpu -q -o "$work/old.h5" || { echo "$name: the old build failed"; failed=1; continue; }
  "$new" run "$file" -r "$n" --seed 7 --backend cpu -q -o "$work/new.h5" || { echo "$name: the new build failed"; failed=1; continue; }
  allow=()
  [ "${GPUCAP_ALLOW_ADDED:-0}" = 1 ] && allow=(--allow-added)
  if result="$($python bench/compare_results.py "${allow[@]}" "$work/old.h5" "$work/new.h5" 2>&1)"; then
    printf '%-32s %6d replications  identical (%s)\n' "$name" "$n" "$(tail -1 <<<"$result")"
  else
    printf '%-32s %6d replications  DIFFERENT\n%s\n' "$name" "$n" "$result"
    failed=1
  fi
  rm -f "$work/old.h5" "$work/new.h5"
done
exit $failed
