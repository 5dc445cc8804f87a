// gpucap: internal to kernels/: the code each backend's source gives the backend table
// (kernels/backend.cpp), which adds the names, descriptions and why-not-built texts.
#pragma once
#include "gpucap/backend.hpp"

namespace gpucap {

/// A built backend's code: Backend's label, targets, probe and run.
struct BackendCode {
  const char* label;
  const char* targets;
  DeviceProbe (*probe)();
  DeviceRunStats (*run)(const ReplicationTask& task, const DeviceLimits& limits);
};

/// kernels/cpu_backend.cpp.
BackendCode cpu_backend_code();
/// kernels/device_backend.cu built by nvcc (only in builds with GPUCAP_HAVE_CUDA_BACKEND).
BackendCode cuda_backend_code();
/// The same source built by the host compiler for Thrust's OpenMP system (only in builds with
/// GPUCAP_HAVE_THRUST_OMP_BACKEND).
BackendCode thrust_omp_backend_code();

}  // namespace gpucap
