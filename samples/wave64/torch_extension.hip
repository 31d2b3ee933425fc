// A PyTorch extension analyzed without PyTorch's headers on the include path (apex's transducer and softmax
// shape): C10_WARP_SIZE is the device's wavefront width in device code, and host code must ask the device.
#include <hip/hip_runtime.h>
#include <c10/macros/Macros.h>

// the project's own macro over PyTorch's width
#define ROWS_PER_BLOCK (C10_WARP_SIZE / 16)

__global__ void row_sums(const float* x, float* out, int cols) {
  // ok: W64-011
  const int lane = threadIdx.x % C10_WARP_SIZE;
  float s = 0.0f;
  for (int c = lane; c < cols; c += C10_WARP_SIZE) s += x[blockIdx.x * cols + c];
  // ok: W64-011
  for (int offset = C10_WARP_SIZE / 2; offset > 0; offset /= 2) s += __shfl_down(s, offset);
  if (lane == 0) out[blockIdx.x * ROWS_PER_BLOCK + threadIdx.y] = s;
}

// Bug: the host rounds the block to whole warps of the host pass's C10_WARP_SIZE, not the kernel's 64 lanes.
void launch_row_sums(const float* x, float* out, int rows, int cols) {
  // expect: W64-011
  const int threads = (cols + C10_WARP_SIZE - 1) / C10_WARP_SIZE * C10_WARP_SIZE;
  // expect: W64-011
  const dim3 block(C10_WARP_SIZE, ROWS_PER_BLOCK);
  row_sums<<<rows, block>>>(x, out, cols + threads);
}

// Correct (apex 051cba76): the host asks PyTorch for the device's width at run time.
void launch_row_sums_queried(const float* x, float* out, int rows, int cols) {
  // ok: W64-011
  const int warp = at::cuda::warp_size();
  // ok: W64-011
  const dim3 block(warp, warp / 16);
  row_sums<<<rows, block>>>(x, out, cols);
}

// Bug: a namespace-scope constant built from C10_WARP_SIZE. No ROCm release of PyTorch since 2021 makes it one
// there (warpSize, no constant from ROCm 7; later at::cuda::warp_size() outside device code).
// expect: W64-010
constexpr int kTorchWarp = C10_WARP_SIZE;

__global__ void warp_partials(const float* x, float* out) {
  // ok: W64-010 (device code: the release decides; -D C10_WARP_SIZE=warpSize judges the 2021-2025 headers)
  __shared__ float partial[C10_WARP_SIZE];
  // ok: W64-010 (the newest releases' bound, a constant in every pass)
  __shared__ float spare[C10_WARP_SIZE_UPPER_BOUND];
  partial[0] = x[0];
  spare[0] = x[1];
  __syncthreads();
  // ok: W64-010 (compared at run time)
  if (blockDim.x <= C10_WARP_SIZE) out[blockIdx.x] = partial[0] + spare[0] + kTorchWarp;
}
