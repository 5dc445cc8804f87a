#!/bin/sh
# CUDA_COMPILER_LAUNCHER of kernels/device_backend.cu (kernels/CMakeLists.txt): runs the nvcc
# command given after REPORT, built with -Xptxas=-v, and keeps what ptxas says of each kernel
# (registers, stack frame, spill stores and loads) in REPORT for the resource budget test
# (tests/device/check_kernel_resources.py). Everything but ptxas's info lines still goes to
# stderr, so warnings read as before. Exits with nvcc's status.
report="$1"
shift
"$@" 2>"$report.tmp"
status=$?
grep -v '^ptxas info\|^    [0-9]* bytes stack frame' "$report.tmp" >&2
if [ $status -eq 0 ]; then mv -f "$report.tmp" "$report"; else rm -f "$report.tmp"; fi
exit $status
