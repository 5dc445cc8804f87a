#!/usr/bin/env bash
# Sets up, builds (release preset: the CUDA backend too where nvcc is) and runs the default
# scenario on the best backend here (a GPU when one works), writing results.h5; the result is
# printed first. Then installs the Python package into .venv (scripts/python_setup.sh), which
# links the CUDA backend built here rather than compiling it again.
# Extra arguments go to `gpucap run`, e.g. scripts/run_default.sh -r 500 --seed 7.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake --preset release >/dev/null
if [ ! -x build/release/gpucap ]; then
  echo "run_default: building gpucap (release; with nvcc, the CUDA backend takes most of it:" \
       "about 10 minutes on 2 cores the first time, seconds after)" >&2
fi
cmake --build --preset release --target gpucap
./build/release/gpucap run scenarios/default.yaml -o results.h5 "$@"
echo "run_default: now the Python package, for notebooks (.venv/bin/python -c 'import gpucap')" >&2
scripts/python_setup.sh
