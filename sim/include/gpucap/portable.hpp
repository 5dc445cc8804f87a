// gpucap: the host/device portability macro of the portable core.
//
// Code marked GPUCAP_HD compiles with the host compiler (g++, clang) and with nvcc for the GPU.
// Inside such code: no heap allocation, no exceptions, no virtual calls, no std containers.
// CCCL 3 does not define __host__/__device__ for a host compiler, hence this macro of our own.
#pragma once

#if defined(__CUDACC__)
#define GPUCAP_HD __host__ __device__
#define GPUCAP_FORCEINLINE __forceinline__
#else
#define GPUCAP_HD
#define GPUCAP_FORCEINLINE inline __attribute__((always_inline))
#endif
