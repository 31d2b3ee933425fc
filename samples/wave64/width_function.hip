// Calls of a header's function that returns warpSize are warpSize: not a compile-time constant in ROCm 7, and a
// device variable the host pass does not have. One that returns a number is a constant (width_function.h).
#include <hip/hip_runtime.h>
#include <cstdio>
#include "width_function.h"

__global__ void lanes_kernel(float* x) {
  // ok: W64-010, W64-011
  x[threadIdx.x % dev::warp_size()] += 1.0f;
  // expect: W64-010
  constexpr int wave = dev::warp_size();
  // ok: W64-010
  constexpr unsigned int padding = ::rocprim::device_warp_size();
  // expect: W64-010
  constexpr int twice = dev::lanes_twice();
  x[1] += wave + padding + twice;
}

void launch_lanes(float* x, int n) {
  // expect: W64-011
  int block = dev::max_block<4>();
  // expect: W64-011
  int grid = (n + dev::warp_size() - 1) / dev::warp_size();
  // ok: W64-011
  printf("%d lanes\n", dev::warp_size());
  // ok: W64-011
  block = pass::lanes() * 4;
  lanes_kernel<<<grid, block>>>(x);
}
