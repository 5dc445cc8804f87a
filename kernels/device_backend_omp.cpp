// gpucap: the device kernels built for Thrust's OpenMP system by the host compiler
// (THRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_OMP, set by kernels/CMakeLists.txt). Not a second
// implementation: the one source is device_backend.cu.
#include "device_backend.cu"
