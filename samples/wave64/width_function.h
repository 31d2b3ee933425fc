// Functions that stand for the wavefront width (QUDA's include/targets/hip/target_device.h, rocPRIM's
// intrinsics/thread.hpp): what a call gives is what the definition returns.
#pragma once
#include <hip/hip_runtime.h>

#define LIB_WAVEFRONT_SIZE 64

namespace dev {
// warpSize itself: a run-time value in ROCm 7, and host code may call it
// expect: W64-010, W64-011
constexpr int warp_size() { return warpSize; }
// built on it
// expect: W64-010
template <int y = 1> constexpr int max_block() { return warp_size() > 1024 / y ? warp_size() : 1024 / y; }
// more than one statement: what a call gives is left to clang, whose notes name the read of warpSize
constexpr int lanes_twice() {
  // expect: W64-010, W64-011
  int w = warpSize;
  return 2 * w;
}
}  // namespace dev

namespace rocprim {
// a number in the device pass: a constant wherever it is called
__device__ constexpr unsigned int device_warp_size() { return LIB_WAVEFRONT_SIZE; }
}  // namespace rocprim

namespace pass {
// the host pass compiles the other branch: its calls are left to the branch each pass takes
__host__ __device__ constexpr int lanes() {
#ifdef __HIP_DEVICE_COMPILE__
  // expect: W64-010
  // ok: W64-011
  return warpSize;
#else
  return 64;
#endif
}
}  // namespace pass
