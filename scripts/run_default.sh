#!/usr/bin/env bash
# Sets up, builds (release preset: the CUDA backend too where nvcc is) and runs the default
# scenario on the best backend here (a GPU when one works), writing results.h5. Also installs
# the Python package into .venv (scripts/python_setup.sh).
# Extra arguments go to `gpucap run`, e.g. scripts/run_default.sh -r 500 --seed 7.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release --target gpucap
scripts/python_setup.sh  # the Python package, for notebooks: .venv/bin/python -c "import gpucap"
./build/release/gpucap run scenarios/default.yaml -o results.h5 "$@"
