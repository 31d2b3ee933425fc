// A PyTorch extension analyzed without PyTorch's headers on the include path: porter's fallback declarations
// (porter/parse_headers/fallback) make the host code parse, AT_DISPATCH_* lambda included, so the launch
// geometry inside the lambda is checked against the kernel it launches.
#include <hip/hip_runtime.h>
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

// Each row of 32 threads is meant to be one warp: lane 0 of the row is broadcast to the row.
template <typename scalar_t>
__global__ void row_minus_first(const scalar_t* x, float* out, int cols) {
  const int row = blockIdx.x * blockDim.y + threadIdx.y;
  const float v = x[row * cols + threadIdx.x];
  // expect: W64-009
  const float first = __shfl(v, 0);
  out[row * cols + threadIdx.x] = v - first;
}

// The same kernel with the broadcast confined to its 32-lane row.
template <typename scalar_t>
__global__ void row_minus_first_w32(const scalar_t* x, float* out, int cols) {
  const int row = blockIdx.x * blockDim.y + threadIdx.y;
  const float v = x[row * cols + threadIdx.x];
  const float first = __shfl(v, 0, 32);
  out[row * cols + threadIdx.x] = v - first;
}

// Bug: block (32, 8) puts two rows in one 64-lane wavefront, and __shfl(v, 0) hands row 1 the value of row 0.
at::Tensor rows_minus_first(const at::Tensor& x) {
  auto out = at::empty_like(x, x.options().dtype(at::kFloat));
  const int rows = x.size(0), cols = x.size(1);
  AT_DISPATCH_FLOATING_TYPES_AND_HALF(x.scalar_type(), "row_minus_first", [&] {
    // expect: W64-009
    const dim3 block(32, 8);
    row_minus_first<scalar_t><<<rows / 8, block, 0, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<scalar_t>(), out.data_ptr<float>(), cols);
  });
  return out;
}

// Correct: the same launch of the kernel whose broadcast has width 32.
at::Tensor rows_minus_first_w32(const at::Tensor& x) {
  auto out = at::empty_like(x, x.options().dtype(at::kFloat));
  const int rows = x.size(0), cols = x.size(1);
  AT_DISPATCH_FLOATING_TYPES_AND_HALF(x.scalar_type(), "row_minus_first_w32", [&] {
    // ok: W64-009
    const dim3 block(32, 8);
    // ok: W64-009
    row_minus_first_w32<scalar_t><<<rows / 8, block, 0, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<scalar_t>(), out.data_ptr<float>(), cols);
  });
  return out;
}
