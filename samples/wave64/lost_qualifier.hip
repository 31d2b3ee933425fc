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
