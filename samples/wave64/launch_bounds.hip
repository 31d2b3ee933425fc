// __launch_bounds__'s second argument: CUDA's minimum of resident blocks per multiprocessor, HIP's minimum of
// wavefronts per execution unit (a SIMD, four to a gfx942 CU). Ported by counting the blocks' 32-thread warps
// (RAJA's `(BlockSize * BlocksPerSM) / 32`), it asks for eight times the wavefronts per SIMD the blocks have.
#include <hip/hip_runtime.h>

template <int Threads, int BlocksPerSM>
// expect: W64-009
__launch_bounds__(Threads, (Threads * BlocksPerSM) / 32) __global__
void scale(float* x, int n) {
  int i = blockIdx.x * Threads + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}

// Correct: the wavefronts of the blocks, spread over the CU's four SIMDs.
template <int Threads, int BlocksPerSM>
// ok: W64-009
__launch_bounds__(Threads, ((Threads + 63) / 64 * BlocksPerSM + 3) / 4) __global__
void scale_waves(float* x, int n) {
  int i = blockIdx.x * Threads + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}

// Correct: a plain minimum, no warp count.
// ok: W64-009
__launch_bounds__(256, 2) __global__ void add_one(float* x, int n) {
  int i = blockIdx.x * 256 + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}

void run(float* x, int n) {
  scale<256, 1><<<(n + 255) / 256, 256>>>(x, n);
  scale_waves<256, 1><<<(n + 255) / 256, 256>>>(x, n);
  add_one<<<(n + 255) / 256, 256>>>(x, n);
}
