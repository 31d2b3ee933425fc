// Host set-up code that knows the wavefront width is a run-time value (it asks the device) but still steps block
// sizes by a hard-coded 32 (W64-009), a constexpr width function (W64-010 at the warpSize it reads, not at its
// name) and a __host__ __device__ helper that only host code calls (W64-011: it runs on the host).
#include <hip/hip_runtime.h>
#include <vector>

struct Tuner {
  Tuner(unsigned start, unsigned end, unsigned step);
};

__global__ void rows_kernel(float* x) { x[threadIdx.x] += 1.0f; }

std::vector<unsigned> pair_tuner_params(const hipDeviceProp_t& prop) {
  std::vector<unsigned> params;
  // expect: W64-009
  for (unsigned block = 32; block <= 1024; block += 32)
    for (unsigned tpp = 1; tpp <= static_cast<unsigned>(prop.warpSize); tpp *= 2)
      params.push_back(block * 10000 + tpp);
  // expect: W64-009
  Tuner excell(32, 1024, 32);
  // ok: W64-009 (a 32 x 32 x 32 tile shape, no range of block sizes)
  Tuner tile(32, 32, 32);
  return params;
}

std::vector<unsigned> pair_tuner_params_fixed(const hipDeviceProp_t& prop) {
  std::vector<unsigned> params;
  const unsigned w = prop.warpSize;
  // ok: W64-009 (steps by the device's width)
  for (unsigned block = w; block <= 1024; block += w)
    params.push_back(block);
  return params;
}

// ok: W64-010 (the function's name where it is defined)
constexpr int gemv_block_x()
{
  // expect: W64-010, W64-011
  return warpSize * 2;
}

template <typename I>
__host__ __device__ static I lanes_per_row(I avg_nnz)
{
  // expect: W64-011
  return avg_nnz >= 2 * warpSize ? warpSize : 1;
}

__host__ __device__ static int lanes_either_side(int avg_nnz)
{
  // ok: W64-011 (a kernel calls it too: its device pass reads the device's width)
  return avg_nnz >= warpSize ? warpSize : 1;
}

__global__ void either_kernel(int* out) { out[threadIdx.x] = lanes_either_side(out[0]); }

void launch_rows(float* x, int* y, int avg_nnz) {
  int bx = gemv_block_x() + lanes_per_row(avg_nnz) + lanes_either_side(avg_nnz);
  hipLaunchKernelGGL(rows_kernel, dim3(1), dim3(bx), 0, 0, x);
  hipLaunchKernelGGL(either_kernel, dim3(1), dim3(64), 0, 0, y);
}
