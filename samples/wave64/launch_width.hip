// A block sized from the device's wavefront width (asked at run time: 64 on gfx942) for kernels compiled with a
// 32-lane logical warp as a template argument.
#include <hip/hip_runtime.h>

// Rows of WARP_SIZE lanes: the lane is threadIdx.x itself, so the block must be exactly WARP_SIZE wide.
template <typename T, int ITERATIONS, int WARP_SIZE = 32>
__global__ void row_sum(T* dst, const T* src, int n) {
  int lane = threadIdx.x;
  T sum = 0;
  for (int it = 0; it < ITERATIONS; ++it)
    if (lane + it * WARP_SIZE < n) sum += src[blockIdx.x * n + lane + it * WARP_SIZE];
  for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2)
    sum += __shfl_xor(sum, offset, WARP_SIZE);
  if (lane == 0) dst[blockIdx.x] = sum;
}

// The same rows with the lane reduced by the width: threads past it repeat a group's work (wasted, not wrong).
template <typename T, int ITERATIONS, int WARP_SIZE = 32>
__global__ void row_sum_wrapped(T* dst, const T* src, int n) {
  int lane = threadIdx.x % WARP_SIZE;
  T sum = 0;
  for (int it = 0; it < ITERATIONS; ++it)
    if (lane + it * WARP_SIZE < n) sum += src[blockIdx.x * n + lane + it * WARP_SIZE];
  for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2)
    sum += __shfl_xor(sum, offset, WARP_SIZE);
  if (lane == 0) dst[blockIdx.x] = sum;
}

// Reduced through a local copy of the width: the same wasted, correct half.
template <typename T, int ITERATIONS, int WARP_SIZE = 32>
__global__ void row_sum_wrapped_local(T* dst, const T* src, int n) {
  constexpr int kLanes = WARP_SIZE;
  int lane = threadIdx.x & (kLanes - 1);
  T sum = 0;
  for (int it = 0; it < ITERATIONS; ++it)
    if (lane + it * WARP_SIZE < n) sum += src[blockIdx.x * n + lane + it * WARP_SIZE];
  for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2)
    sum += __shfl_xor(sum, offset, WARP_SIZE);
  if (lane == 0) dst[blockIdx.x] = sum;
}

template <typename T>
using row_kernel = void (*)(T*, const T*, int);

// Bug: for rows of 64 elements the block is 64 threads wide, but row_sum<T, 2, 32> numbers lanes 0-63 in a
// 32-lane warp: threads 32-63 read elements 32.. twice and reduce apart from threads 0-31.
template <typename T>
bool pick_row_sum(int log2_elements, int& warp_size, row_kernel<T>& kernel) {
  const int next_power_of_two = 1 << log2_elements;
  int device_warp;
  hipDeviceGetAttribute(&device_warp, hipDeviceAttributeWarpSize, 0);
  // expect: W64-009
  warp_size = next_power_of_two < device_warp ? next_power_of_two : device_warp;
  switch (log2_elements) {
  case 5: kernel = &row_sum<T, 1, 32>; break;
  case 6: kernel = &row_sum<T, 2, 32>; break;
  default: return false;
  }
  return true;
}

// Correct: the width follows the row up to 32 only, the kernel's compile-time width.
template <typename T>
bool pick_row_sum_32(int log2_elements, int& warp_size, row_kernel<T>& kernel) {
  const int next_power_of_two = 1 << log2_elements;
  // ok: W64-009
  warp_size = next_power_of_two < 32 ? next_power_of_two : 32;
  switch (log2_elements) {
  case 5: kernel = &row_sum<T, 1, 32>; break;
  case 6: kernel = &row_sum<T, 2, 32>; break;
  default: return false;
  }
  return true;
}

// Correct: the device's width, but each case's kernel is compiled for a width at least as large as the block's.
template <typename T>
bool pick_row_sum_device(int log2_elements, int& warp_size, row_kernel<T>& kernel) {
  const int next_power_of_two = 1 << log2_elements;
  int device_warp;
  hipDeviceGetAttribute(&device_warp, hipDeviceAttributeWarpSize, 0);
  // ok: W64-009
  warp_size = next_power_of_two < device_warp ? next_power_of_two : device_warp;
  switch (log2_elements) {
  case 4: kernel = &row_sum<T, 1, 16>; break;
  case 5: kernel = &row_sum<T, 1, 32>; break;
  default: return false;
  }
  return true;
}

// Wasteful, not wrong: the kernel reduces threadIdx.x by its width.
template <typename T>
bool pick_row_sum_wrapped(int log2_elements, int& warp_size, row_kernel<T>& kernel) {
  const int next_power_of_two = 1 << log2_elements;
  int device_warp;
  hipDeviceGetAttribute(&device_warp, hipDeviceAttributeWarpSize, 0);
  // ok: W64-009
  warp_size = next_power_of_two < device_warp ? next_power_of_two : device_warp;
  switch (log2_elements) {
  case 6: kernel = &row_sum_wrapped<T, 2, 32>; break;
  default: return false;
  }
  return true;
}

template <typename T>
void launch_row_sum(T* dst, const T* src, int rows, int n, int log2_elements) {
  row_kernel<T> kernel;
  int warp_size;
  if (!pick_row_sum<T>(log2_elements, warp_size, kernel) && !pick_row_sum_32<T>(log2_elements, warp_size, kernel) &&
      !pick_row_sum_device<T>(log2_elements, warp_size, kernel) &&
      !pick_row_sum_wrapped<T>(log2_elements, warp_size, kernel))
    return;
  dim3 threads(warp_size, 1, 1);
  kernel<<<rows, threads>>>(dst, src, n);
}

// The direct form: the kernel named with its width at the launch.
template <typename T>
void launch_row_sum_direct(T* dst, const T* src, int rows, int n) {
  int device_warp;
  hipDeviceGetAttribute(&device_warp, hipDeviceAttributeWarpSize, 0);
  // expect: W64-009
  row_sum<T, 2, 32><<<rows, dim3(device_warp, 1, 1)>>>(dst, src, n);
  // ok: W64-009
  row_sum<T, 2, 64><<<rows, dim3(device_warp, 1, 1)>>>(dst, src, n);
  // ok: W64-009
  row_sum_wrapped<T, 2, 32><<<rows, dim3(device_warp, 1, 1)>>>(dst, src, n);
  // ok: W64-009
  row_sum_wrapped_local<T, 2, 32><<<rows, dim3(device_warp, 1, 1)>>>(dst, src, n);
}
