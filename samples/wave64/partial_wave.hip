// A block sized from the data (one thread per 8 values) is a multiple of 64 only when the data is: a kernel that
// counts its wavefronts as blockDim.x / 64 drops the partial last one, and its butterfly from offset 32 reads
// lanes that were never launched.
#include <hip/hip_runtime.h>

constexpr int kWave = 64;

__global__ void gemv_rows(const float* a, const float* b, float* out) {
  __shared__ float partials[16];
  const int lane = threadIdx.x % kWave;
  // expect: W64-009
  const int waves = blockDim.x / kWave;
  float acc = a[blockIdx.x * blockDim.x + threadIdx.x] * b[threadIdx.x];
  for (int mask = kWave / 2; mask >= 1; mask /= 2) acc += __shfl_xor(acc, mask);
  if (lane == 0) partials[threadIdx.x / kWave] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    float sum = 0.0f;
    for (int w = 0; w < waves; ++w) sum += partials[w];
    out[blockIdx.x] = sum;
  }
}

// The same products without wavefront bookkeeping: any block size works.
__global__ void scale_rows(const float* a, const float* b, float* out) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = a[blockIdx.x * blockDim.x + threadIdx.x] * b[threadIdx.x];
}

void launch_gemv(const float* a, const float* b, float* out, int rows, int k) {
  // expect: W64-009
  const int threads = k * 2 / 16;
  gemv_rows<<<rows, threads>>>(a, b, out);
  // ok: W64-009
  const int rounded = (k / 8 + kWave - 1) / kWave * kWave;
  gemv_rows<<<rows, rounded>>>(a, b, out);
  // ok: W64-009
  const int wide = k * 512 / 8;
  gemv_rows<<<rows, wide>>>(a, b, out);
  // ok: W64-009
  const int per_value = k / 8;
  scale_rows<<<rows, per_value>>>(a, b, out);
}
