// A header of reduction templates that no file here instantiates (vLLM's reduction_utils.cuh): clang checks
// what depends on a template parameter, and a parameter's default, only at an instantiation, so ROCm 7's
// run-time warpSize behind WARP_SIZE fails in every file that uses them, not in this one.
#pragma once
#include <hip/hip_runtime.h>

// expect: W64-010
#define WARP_SIZE warpSize
#define GROUP 64

// expect: W64-010
template <typename T, int lanes = WARP_SIZE>
__device__ T warp_sum(T v) {
  // expect: W64-010
  static_assert(lanes <= WARP_SIZE, "wider than a wavefront");
  for (int m = lanes >> 1; m > 0; m >>= 1) v += __shfl_xor(v, m);
  return v;
}

template <typename T, int block = 1024>
__device__ T block_sum(T v) {
  // expect: W64-010
  if constexpr (block > WARP_SIZE) {
    // expect: W64-010
    constexpr int warps = (block + WARP_SIZE - 1) / WARP_SIZE;
    static __shared__ T partial[warps];
    // ok: W64-010
    int lane = threadIdx.x % WARP_SIZE;
    // ok: W64-010
    int wid = threadIdx.x / WARP_SIZE;
    v = warp_sum<T>(v);
    if (lane == 0) partial[wid] = v;
    __syncthreads();
    v = lane < warps ? partial[lane] : T(0);
  }
  return v;
}

// A literal width in the same places is a constant.
// ok: W64-010
template <typename T, int lanes = GROUP>
__device__ T group_sum(T v) {
  // ok: W64-010
  static_assert(lanes <= GROUP, "wider than a group");
  for (int m = lanes >> 1; m > 0; m >>= 1) v += __shfl_xor(v, m);
  return v;
}

// The width as an explicit template argument of a call: a constant expression too. A comparison written the same
// way is none.
template <typename T, typename Op>
__device__ T wave_fold(T v, Op op, int lane, int n) {
  // ok: W64-010
  bool inside = lane < WARP_SIZE && lane > (n - 1);
  // expect: W64-010
  return inside ? op(warp_sum<T, WARP_SIZE>(v), v) : v;
}
