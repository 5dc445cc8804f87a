#!/usr/bin/env bash
# Installs the Python package gpucap (pip install . : scikit-build-core builds gpucap._core, with
# the CUDA backend where nvcc is) into the virtual environment .venv, creating it if needed.
#   scripts/python_setup.sh          the package and what it needs (numpy, pandas, ...)
#   scripts/python_setup.sh test     also pytest, h5py, nbclient, ipykernel and dask[distributed]
# Idempotent: a second run reuses the build folder (build/python) and installed packages.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
spec="."
if [ "${1:-}" = "test" ]; then
  spec=".[test]"
fi
export PIP_DISABLE_PIP_VERSION_CHECK=1
.venv/bin/python -m pip install -q --root-user-action=ignore "$spec"
