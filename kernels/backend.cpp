// gpucap: which backends this build has, and how a run's choice resolves on this machine.
#include "gpucap/backend.hpp"

namespace gpucap {

#if GPUCAP_HAVE_CUDA_BACKEND
const DeviceBackend* cuda_backend_impl();  // kernels/device_backend.cu, built with nvcc
#endif
#if GPUCAP_HAVE_THRUST_OMP_BACKEND
const DeviceBackend* thrust_omp_backend_impl();  // the same source, built with g++
#endif

const char* const kCudaNotBuilt =
    "GPUCAP_ENABLE_CUDA was OFF or nvcc was not found when gpucap was configured";
const char* const kThrustOmpNotBuilt =
    "the CCCL headers or OpenMP were not found when gpucap was configured";

const DeviceBackend* cuda_backend() {
#if GPUCAP_HAVE_CUDA_BACKEND
  return cuda_backend_impl();
#else
  return nullptr;
#endif
}

const DeviceBackend* thrust_omp_backend() {
#if GPUCAP_HAVE_THRUST_OMP_BACKEND
  return thrust_omp_backend_impl();
#else
  return nullptr;
#endif
}

BackendChoice parse_backend(const std::string& name) {
  if (name == "cpu") return BackendChoice::cpu;
  if (name == "cuda") return BackendChoice::cuda;
  if (name == "auto") return BackendChoice::automatic;
  if (name == "thrust-omp") return BackendChoice::thrust_omp;
  throw std::invalid_argument("unknown backend '" + name + "'; valid: cpu, cuda, auto, thrust-omp");
}

const DeviceBackend* resolve_backend(BackendChoice choice) {
  switch (choice) {
    case BackendChoice::cpu:
      return nullptr;
    case BackendChoice::automatic: {
      const DeviceBackend* cuda = cuda_backend();
      return cuda && cuda->probe().usable() ? cuda : nullptr;
    }
    case BackendChoice::cuda: {
      const DeviceBackend* cuda = cuda_backend();
      if (!cuda)
        throw BackendUnavailable(
            std::string("backend cuda: this build of gpucap has no CUDA backend (") +
            kCudaNotBuilt +
            "; rebuild with -DGPUCAP_ENABLE_CUDA=ON on a machine with the "
            "CUDA toolkit)");
      const DeviceProbe probe = cuda->probe();
      if (!probe.usable()) throw BackendUnavailable("backend cuda: " + probe.why_none);
      return cuda;
    }
    case BackendChoice::thrust_omp: {
      const DeviceBackend* omp = thrust_omp_backend();
      if (!omp)
        throw BackendUnavailable(
            std::string("backend thrust-omp: this build of gpucap has no Thrust OpenMP backend (") +
            kThrustOmpNotBuilt + ")");
      return omp;
    }
  }
  return nullptr;
}

}  // namespace gpucap
