// gpucap: a pointer into a replication's arena, whose elements may be interleaved with those
// of other replications (structure of arrays across a GPU warp's threads).
//
// A replication's state is an arena of parts, each an array of one type (arena_layout.hpp).
// With kArenaLanes = 1 (the host) an arena is one replication's, and an ArenaPtr is a plain
// pointer: p[k] is the k-th element. With kArenaLanes = L > 1 (a device), L replications (the
// lanes of a group: a warp's threads) share one block of L arenas, each part of the block holding
// the L lanes' arrays interleaved element by element:
//
//   element k of lane l of a part = part_of_group[k * L + l]
//
// so that the lanes reading the same element of a part (the heap's root, a class's state, a
// pool's free GPUs, a stream) touch L adjacent elements, which the device's loads coalesce into
// a few transactions instead of L. The arithmetic of the simulation does not change, only where
// its state lives: results are the same bits for every kArenaLanes.
//
// kArenaLanes is fixed per translation unit by GPUCAP_ARENA_LANES (1 unless the build sets it:
// kernels/CMakeLists.txt sets it for the device backend's translation units). Code whose layout
// depends on it (the event calendar, the engine, run_replication) is declared between
// GPUCAP_ARENA_NAMESPACE_BEGIN and _END, an inline namespace named by the lane count, so that
// the host's instantiation and a device's are different symbols in one program.
#pragma once
#include <cstddef>
#include <cstdint>

#include "gpucap/portable.hpp"

#ifndef GPUCAP_ARENA_LANES
#define GPUCAP_ARENA_LANES 1
#endif
#define GPUCAP_ARENA_CAT_(a, b) a##b
#define GPUCAP_ARENA_CAT(a, b) GPUCAP_ARENA_CAT_(a, b)
#define GPUCAP_ARENA_NAMESPACE_BEGIN \
  inline namespace GPUCAP_ARENA_CAT(arena_lanes_, GPUCAP_ARENA_LANES) {
#define GPUCAP_ARENA_NAMESPACE_END }

namespace gpucap {
GPUCAP_ARENA_NAMESPACE_BEGIN

/// Replications whose arenas are interleaved element by element (1: none).
constexpr uint32_t kArenaLanes = GPUCAP_ARENA_LANES;
static_assert(kArenaLanes >= 1 && kArenaLanes <= 1024, "GPUCAP_ARENA_LANES: 1 to 1024 lanes");

/// Element k of one lane's array in a part of an arena (see the file's comment). Trivially
/// copyable, the size of a pointer; null by default.
template <typename T>
class ArenaPtr {
 public:
  GPUCAP_HD ArenaPtr() = default;
  GPUCAP_HD ArenaPtr(std::nullptr_t) {}  // NOLINT: null converts implicitly, as for T*
  /// The array of lane `lane` of a part whose group storage starts at `part_of_group` (8-byte
  /// aligned; kArenaLanes times one lane's bytes).
  GPUCAP_HD static ArenaPtr in_group(void* part_of_group, uint32_t lane) {
    return ArenaPtr(static_cast<T*>(part_of_group) + lane);
  }
  /// A contiguous array (kArenaLanes = 1 only: elsewhere its elements would not be interleaved).
  GPUCAP_HD static ArenaPtr contiguous(T* first) {
    static_assert(kArenaLanes == 1 || sizeof(T) == 0,
                  "a contiguous array is not an interleaved part");
    return ArenaPtr(first);
  }

  template <typename Index>
  GPUCAP_HD GPUCAP_FORCEINLINE T& operator[](Index k) const {
    return p_[static_cast<std::ptrdiff_t>(k) * kArenaLanes];
  }
  GPUCAP_HD GPUCAP_FORCEINLINE T& operator*() const { return *p_; }
  GPUCAP_HD GPUCAP_FORCEINLINE T* operator->() const { return p_; }
  /// The array from element n on.
  template <typename Index>
  GPUCAP_HD GPUCAP_FORCEINLINE ArenaPtr operator+(Index n) const {
    return ArenaPtr(p_ + static_cast<std::ptrdiff_t>(n) * kArenaLanes);
  }
  /// The next element.
  GPUCAP_HD GPUCAP_FORCEINLINE ArenaPtr& operator++() {
    p_ += kArenaLanes;
    return *this;
  }
  GPUCAP_HD explicit operator bool() const { return p_ != nullptr; }
  /// Order of elements of one lane's array (for invariants: an element before the array's end).
  GPUCAP_HD bool operator<(const ArenaPtr& other) const { return p_ < other.p_; }
  GPUCAP_HD bool operator==(std::nullptr_t) const { return p_ == nullptr; }
  GPUCAP_HD bool operator!=(std::nullptr_t) const { return p_ != nullptr; }

 private:
  GPUCAP_HD explicit ArenaPtr(T* p) : p_(p) {}
  T* p_ = nullptr;
};

GPUCAP_ARENA_NAMESPACE_END
}  // namespace gpucap
