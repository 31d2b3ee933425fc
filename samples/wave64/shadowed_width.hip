// `warpSize` that names a project constant (a local, a #define) rather than HIP's builtin: a constant array bound,
// correct on ROCm 7. The builtin in the same place does not compile there.
#include <hip/hip_runtime.h>

// Correct: a local constant shadows the builtin.
template <typename T>
__device__ T local_width(T val, int tid) {
  const int warpSize = 64;
  // ok: W64-010
  __shared__ T shm[warpSize];
  if (tid % warpSize == 0) shm[tid / warpSize] = val;
  __syncthreads();
  return shm[0];
}

// Bug: the builtin, which is not a compile-time constant on ROCm 7.
template <typename T>
__device__ T builtin_width(T val, int tid) {
  // expect: W64-010
  __shared__ T shm[warpSize];
  shm[tid % warpSize] = val;
  __syncthreads();
  return shm[0];
}

// Correct: a template parameter of that name is a constant its instantiation chooses.
template <typename T, unsigned THREADS, unsigned warpSize>
__device__ T param_width(T val, int tid) {
  // ok: W64-010
  static_assert(THREADS % warpSize == 0, "");
  // ok: W64-010
  constexpr unsigned NUM_WARPS = THREADS / warpSize;
  __shared__ T shm[NUM_WARPS];
  if (tid % warpSize == 0) shm[tid / warpSize] = val;
  __syncthreads();
  return shm[0];
}

// Correct: a class template's parameter of that name is a constant in the whole class (MIOpen's static CK
// ReduceKernelSimpleConfigurator<BlockSize, warpSize>, instantiated with 64).
template <int BlockSize, int warpSize>
struct WidthConfig {
  // ok: W64-010
  static constexpr int warps = BlockSize / warpSize;
  __device__ static constexpr int grid(int n) {
    // ok: W64-010
    return n <= warpSize / 4 ? 1 : n;
  }
};

// Bug: the builtin as a parameter's default names no parameter warpSize.
// expect: W64-010
template <typename T, unsigned lanes = warpSize>
__device__ T default_width(T val) { return val * lanes; }

// Correct: a macro of that name is a constant.
#define warpSize 64
template <typename T>
__device__ T macro_width(T val, int tid) {
  // ok: W64-010
  __shared__ T shm[warpSize];
  shm[tid % warpSize] = val;
  __syncthreads();
  return shm[0];
}
