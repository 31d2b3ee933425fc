// A warp reduction helper with offsets 16..1 and width warpSize, judged by how its callers read it: per 32-lane
// group (correct on wave64: each half reduces itself) or as a whole 64-lane wavefront (lanes 32-63 left out).
#include <hip/hip_runtime.h>

// Correct: every caller numbers lanes in 32-lane groups and reads at each group's lane 0 (lanes 0 and 32).
template <typename T>
__device__ T groupSum(T val) {
  // ok: W64-001
  for (int m = 16; m > 0; m >>= 1)
    val += __shfl_xor(val, m, warpSize);
  return val;
}

template <typename T>
__device__ T blockSum(T val) {
  static __shared__ T part[32];
  int lane = threadIdx.x & 0x1f;
  int wid = threadIdx.x >> 5;
  val = groupSum<T>(val);
  if (lane == 0) part[wid] = val;
  __syncthreads();
  val = (lane < blockDim.x / 32) ? part[lane] : T(0);
  return groupSum<T>(val);
}

// Bug: the caller numbers lanes by the wavefront and takes lane 0's value as the wavefront's sum.
template <typename T>
__device__ T waveSum(T val) {
  // expect: W64-001
  for (int m = 16; m > 0; m >>= 1)
    val += __shfl_xor(val, m, warpSize);
  return val;
}

template <typename T>
__device__ T blockSumW(T val) {
  static __shared__ T part[16];
  int lane = threadIdx.x % warpSize;
  int wid = threadIdx.x / warpSize;
  val = waveSum<T>(val);
  if (lane == 0) part[wid] = val;
  __syncthreads();
  return part[0];
}

// Bug: 32-lane ids, but only thread 0 reads the result, which then covers lanes 0-31.
template <typename T>
__device__ T firstSum(T val) {
  // expect: W64-001
  for (int m = 16; m > 0; m >>= 1)
    val += __shfl_down(val, m, warpSize);
  return val;
}

__global__ void first_only(float *out) {
  int lane = threadIdx.x & 31;
  float v = firstSum(out[threadIdx.x] * lane);
  if (threadIdx.x == 0) out[0] = v;
}
