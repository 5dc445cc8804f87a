#!/usr/bin/env bash
# Builds the CUDA backend here (nvcc needs no GPU to compile) and packs gpucap, the GPU test and
# the benchmark into bundle/ with every shared library they load, the dynamic loader and libc
# included, so that a GPU machine without gpucap's build dependencies (yaml-cpp, HDF5, Boost,
# GoogleTest) runs them as they are: bundle/run gpucap info. bench/device_check.sh uses the
# bundle when it cannot build. With the device tool: carry ["bundle"].
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake --preset cuda >/dev/null
cmake --build --preset cuda -j "$(nproc)" --target gpucap engine_bench cuda_backend_test

rm -rf bundle
mkdir -p bundle/bin bundle/lib
cp build/cuda/gpucap build/cuda/bench/engine_bench build/cuda/tests/cuda_backend_test bundle/bin/
strip --strip-unneeded bundle/bin/*
# Every library the programs load (ldd: "name => /path (address)" and the loader's own line).
# The CUDA runtime is linked statically; the driver (libcuda) is the GPU machine's own.
for program in bundle/bin/*; do
  ldd "$program" | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\/.*ld-linux/ {print $1}'
done | sort -u | while read -r library; do
  cp -L "$library" bundle/lib/
done
# glibc's small companions, which the machine's CUDA driver may load: from the same glibc.
for name in libdl.so.2 libpthread.so.0 librt.so.1; do
  library="$(ldconfig -p | awk -v n="$name" '$1 == n && /x86-64/ {p = $NF} END {print p}')"
  if [ -n "$library" ]; then cp -L "$library" bundle/lib/; fi
done
cat > bundle/run <<'RUN'
#!/usr/bin/env bash
# bundle/run PROGRAM [ARGS...]: runs bundle/bin/PROGRAM with the bundle's loader and libraries
# (then the machine's, for the CUDA driver) and GPUCAP_SOURCE_DIR at the checkout.
here="$(cd "$(dirname "$0")" && pwd)"
program="$1"
shift
export GPUCAP_SOURCE_DIR="${GPUCAP_SOURCE_DIR:-$(dirname "$here")}"
system_dirs="/usr/local/nvidia/lib64:/usr/local/nvidia/lib:/usr/lib/x86_64-linux-gnu:/usr/lib64"
exec "$here/lib/ld-linux-x86-64.so.2" --library-path "$here/lib:${LD_LIBRARY_PATH:-}:$system_dirs" \
  "$here/bin/$program" "$@"
RUN
chmod +x bundle/run
du -sh bundle
