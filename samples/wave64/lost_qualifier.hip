// Device helpers whose qualifier is a macro from a header that is not on the include path (sglang's SGL_DEVICE,
// defined in utils.cuh): clang reads them as host functions, but HIP's cross-lane intrinsics run only on the
// device, so porter judges them as device code.
#include <hip/hip_runtime.h>
#include <stdint.h>

template <typename T>
// expect: W64-003
MISSING_DEVICE_QUALIFIER T reduce_sum(T value, uint32_t active_mask = 0xffffffffu) {
  for (int mask = 16; mask > 0; mask >>= 1)
    // expect: W64-003
    value = value + __shfl_xor_sync(active_mask, value, mask, 32);
  return value;
}

template <typename T>
MISSING_DEVICE_QUALIFIER T reduce_sum64(T value, uint64_t active_mask = ~0ull) {
  for (int mask = 16; mask > 0; mask >>= 1)
    // ok: W64-003
    value = value + __shfl_xor_sync(active_mask, value, mask, 32);
  return value;
}

// A qualifier macro that a generated config header sets (Kokkos' KOKKOS_INLINE_FUNCTION is `__device__ __host__
// inline` only with KokkosCore_config.h, else `inline`): to clang a host function, whose calls of HIP's device-only
// __ballot fail overload resolution. The calls are still the intrinsic's, and the 64-bit votes kept in 32 bits lose
// lanes 32-63 of the wavefront (a lock loop that stops before the upper lanes took their lock).
inline int take_lock(int* locks, int idx) {
  // expect: W64-004
  unsigned int active = __ballot(1);
  unsigned int done_active = 0;
  bool done = false;
  while (active != done_active) {
    if (!done) done = locks[idx] == 0;
    // expect: W64-004
    done_active = __ballot(done ? 1 : 0);
  }
  return idx;
}

inline int take_lock64(int* locks, int idx) {
  // ok: W64-004
  unsigned long long active = __ballot(1);
  unsigned long long done_active = 0;
  bool done = false;
  while (active != done_active) {
    if (!done) done = locks[idx] == 0;
    // ok: W64-004
    done_active = __ballot(done ? 1 : 0);
  }
  return idx;
}
