#!/usr/bin/env bash
# Sets up, builds and runs every test: the unit, validation, reliability and GPU suites in an
# optimized build with every backend this machine can build (the CUDA backend compiles wherever
# nvcc is; its tests skip visibly without a GPU); the speed guard (engine_bench's ratios against
# bench/speed_floors.txt); the Python package in .venv with its pytest
# suite and the notebooks; then the C++ unit and reliability suites again under ASan + UBSan, and
# the threaded ones (OpenMP backend, progress, cancellation, signals) under ThreadSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each stage's start and the minutes since the script began (CI's budget: 55 minutes on 2 cores).
stage() { printf '\n[test.sh] %s, at %d min %02d s\n' "$1" $((SECONDS / 60)) $((SECONDS % 60)) >&2; }
stage "setup"
scripts/setup.sh test
jobs=$(nproc)

stage "release build"
cmake --preset release >/dev/null
cmake --build --preset release -j "$jobs"
stage "release tests"
ctest --preset release
# The speed guard: the engine's ratios to its reference loop against bench/speed_floors.txt
# (about 15 s, one thread; docs/performance.md, "The CI guard").
stage "speed guard"
build/release/bench/engine_bench --quick --floors bench/speed_floors.txt

stage "Python package"
scripts/python_setup.sh test
stage "pytest"
GPUCAP_CLI="$PWD/build/release/gpucap" .venv/bin/python -m pytest -q tests/python

stage "asan build"
cmake --preset asan >/dev/null
cmake --build --preset asan -j "$jobs" --target sanitized_tests
stage "asan tests"
ctest --preset asan

stage "tsan build"
cmake --preset tsan >/dev/null
cmake --build --preset tsan -j "$jobs" --target threaded_tests
stage "tsan tests"
ctest --preset tsan
stage "done"
