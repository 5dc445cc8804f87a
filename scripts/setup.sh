#!/usr/bin/env bash
# Installs what gpucap needs to build and test on Debian (as root), idempotently: a second run
# checks and returns in about a second. With the argument `test`, also what only the tests use.
set -euo pipefail

packages=(build-essential cmake ninja-build pkg-config libeigen3-dev libboost-program-options-dev
          libhdf5-dev libyaml-cpp-dev libgtest-dev python3 python3-venv python3-dev
          clang libomp-14-dev)  # clang and LLVM's OpenMP runtime (with Archer): the asan and tsan presets
# `scripts/setup.sh test` (scripts/test.sh) adds what only the tests need: a headless browser
# that renders `gpucap report`'s page (tests/python/test_report.py).
if [ "${1:-}" = "test" ]; then
  packages+=(chromium)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
