#!/usr/bin/env bash
# Sets up, builds (cpu-release preset) and runs the default scenario, writing results.h5.
# Extra arguments go to `gpucap run`, e.g. scripts/run_default.sh -r 500 --seed 7.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake --preset cpu-release >/dev/null
cmake --build --preset cpu-release --target gpucap
./build/cpu-release/gpucap run scenarios/default.yaml -o results.h5 "$@"
