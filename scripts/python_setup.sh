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
# The CUDA backend is compiled once: when the release preset's build tree builds it, the package
# links that object (brought up to date first) instead of compiling a copy of its own
# (kernels/CMakeLists.txt, GPUCAP_PREBUILT_CUDA_OBJECT; the same nvcc flags in both trees).
settings=()
object="$PWD/build/release/kernels/CMakeFiles/gpucap_device_cuda.dir/device_backend.cu.o"
if [ -f build/release/build.ninja ] && grep -q "gpucap_device_cuda" build/release/build.ninja; then
  echo "python_setup: the CUDA backend of build/release, shared with the package" >&2
  cmake --build build/release --target gpucap_device_cuda >/dev/null
  settings+=("--config-settings=cmake.define.GPUCAP_PREBUILT_CUDA_OBJECT=$object")
fi
echo "python_setup: pip install $spec into .venv (the engine and bindings: a few minutes the" \
     "first time, seconds after)" >&2
.venv/bin/python -m pip install -q --root-user-action=ignore "${settings[@]}" "$spec"
