// gpucap: the host/device portability macro of the portable core.
//
// Code marked GPUCAP_HD compiles with the host compiler (g++, clang) and with nvcc for the GPU.
// Inside such code: no heap allocation, no exceptions, no virtual calls, no std containers.
// CCCL 3 does not define __host__/__device__ for a host compiler, hence this macro of our own.
#pragma once

#if defined(__CUDACC__)
#define GPUCAP_HD __host__ __device__
#define GPUCAP_FORCEINLINE __forceinline__
#define GPUCAP_NOINLINE __noinline__
#else
#define GPUCAP_HD
#define GPUCAP_FORCEINLINE inline __attribute__((always_inline))
#define GPUCAP_NOINLINE __attribute__((noinline))
#endif

// GPUCAP_INVARIANT(condition, why): a fact the engine relies on to end every loop (time moves
// forward, steps are positive, an index stays in its table). Checked in debug builds and in the
// sanitizer and fuzz builds (-DGPUCAP_INVARIANTS=ON); a broken one prints where and why, then
// aborts (traps on the device). Compiled out otherwise: the hot path pays nothing.
#if defined(GPUCAP_INVARIANTS) || !defined(NDEBUG)
#include <cstdio>
#include <cstdlib>
namespace gpucap::detail {
GPUCAP_HD inline void invariant_failed(const char* condition, const char* why, const char* file,
                                       int line) {
#if defined(__CUDA_ARCH__)
  printf("gpucap: invariant broken at %s:%d: %s (%s)\n", file, line, condition, why);
  __trap();
#else
  std::fprintf(stderr, "gpucap: invariant broken at %s:%d: %s (%s)\n", file, line, condition, why);
  std::abort();
#endif
}
}  // namespace gpucap::detail
#define GPUCAP_INVARIANT(condition, why) \
  ((condition) ? (void)0 : ::gpucap::detail::invariant_failed(#condition, why, __FILE__, __LINE__))
#else
#define GPUCAP_INVARIANT(condition, why) ((void)0)
#endif

#include <cstdint>
namespace gpucap {
/// Index of the lowest set bit of x (x != 0): the CUDA intrinsic on the device, the compiler's
/// builtin on the host.
GPUCAP_HD GPUCAP_FORCEINLINE uint32_t lowest_set_bit(uint64_t x) {
#if defined(__CUDA_ARCH__)
  return static_cast<uint32_t>(__ffsll(static_cast<long long>(x)) - 1);
#else
  return static_cast<uint32_t>(__builtin_ctzll(x));
#endif
}
}  // namespace gpucap
