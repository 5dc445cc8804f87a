#!/usr/bin/env bash
# Sets up, builds and runs every test: the unit and validation suites in an optimized build, the
# shipped scenarios through the CLI, then the unit suites again under ASan + UBSan.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
jobs=$(nproc)

cmake --preset cpu-release >/dev/null
cmake --build --preset cpu-release -j "$jobs"
ctest --preset cpu-release

cmake --preset asan >/dev/null
cmake --build --preset asan -j "$jobs"
ctest --preset asan
