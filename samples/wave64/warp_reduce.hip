// hipCUB's WarpReduce<T> reduces over its logical width, which defaults to the hardware wavefront (64 on
// gfx942). hipcub itself is usually not on the include path: porter reads these lines from the source text.
#include <hip/hip_runtime.h>
#include <hipcub/hipcub.hpp>

// Bug (bitsandbytes before e3b9c466): rows of 32 threads, one TempStorage per 32 threads, but the reduction
// spans the wavefront, so two rows are summed together.
template <int THREADS>
__global__ void gemv_rows(const float* A, const float* x, float* out, int K) {
  typedef hipcub::WarpReduce<float> WarpReduce;
  // expect: W64-008
  __shared__ typename WarpReduce::TempStorage temp_storage[THREADS / 32];
  // expect: W64-002
  const int warp_idx = threadIdx.x / 32;
  // expect: W64-002
  const int warp_lane = threadIdx.x % 32;
  // expect: W64-002
  const int row = (THREADS / 32) * blockIdx.x + warp_idx;
  float acc = 0.0f;
  // expect: W64-002
  for (int k = warp_lane * 4; k < K; k += 32 * 4) {
    for (int j = 0; j < 4; ++j) acc += A[row * K + k + j] * x[k + j];
  }
  // expect: W64-007
  acc = WarpReduce(temp_storage[warp_idx]).Sum(acc);
  if (warp_lane == 0) out[row] = acc;
}

// Correct: the logical width says 32, so each row reduces by itself.
template <int THREADS>
__global__ void gemv_rows_width(const float* A, const float* x, float* out, int K) {
  typedef hipcub::WarpReduce<float, 32> WarpReduce;
  // ok: W64-008
  __shared__ typename WarpReduce::TempStorage temp_storage[THREADS / 32];
  // ok: W64-002
  const int warp_idx = threadIdx.x / 32;
  // ok: W64-002
  const int warp_lane = threadIdx.x % 32;
  // ok: W64-002
  const int row = (THREADS / 32) * blockIdx.x + warp_idx;
  float acc = 0.0f;
  // ok: W64-002
  for (int k = warp_lane * 4; k < K; k += 32 * 4) {
    for (int j = 0; j < 4; ++j) acc += A[row * K + k + j] * x[k + j];
  }
  // ok: W64-007
  acc = WarpReduce(temp_storage[warp_idx]).Sum(acc);
  if (warp_lane == 0) out[row] = acc;
}

// Correct: the default width with rows of one wavefront each.
template <int THREADS>
__global__ void gemv_rows_wave(const float* A, const float* x, float* out, int K) {
  using WarpReduce = hipcub::WarpReduce<float>;
  // ok: W64-008
  __shared__ typename WarpReduce::TempStorage temp_storage[THREADS / 64];
  const int warp_idx = threadIdx.x / warpSize;
  const int warp_lane = threadIdx.x % warpSize;
  const int row = (THREADS / 64) * blockIdx.x + warp_idx;
  float acc = 0.0f;
  for (int k = warp_lane; k < K; k += warpSize) acc += A[row * K + k] * x[k];
  // ok: W64-007
  acc = WarpReduce(temp_storage[warp_idx]).Sum(acc);
  if (warp_lane == 0) out[row] = acc;
}

// Bug (bitsandbytes before b72b766e): ROCm 7's warpSize is not a constant. hipcub is not on the include path,
// so libclang drops both lines and never checks them; porter reads them from the text.
template <int THREADS>
__global__ void gemv_rows_warpsize(const float* A, const float* x, float* out, int K) {
  // expect: W64-010
  typedef hipcub::WarpReduce<float, warpSize> WarpReduce;
  // expect: W64-010
  __shared__ typename WarpReduce::TempStorage temp_storage[THREADS / warpSize];
  const int warp_idx = threadIdx.x / warpSize;
  // ok: W64-010
  const int warp_lane = threadIdx.x % warpSize;
  float acc = 0.0f;
  // ok: W64-010
  for (int k = warp_lane; k < K && warp_lane < warpSize; k += warpSize) acc += A[k] * x[k];
  acc = WarpReduce(temp_storage[warp_idx]).Sum(acc);
  if (warp_lane == 0) out[blockIdx.x] = acc;
}

// Bug (mamba before 3cfd32a / c809b2b): hipCUB's warp width is no longer a constant expression in ROCm 7, and
// in host code it is the host pass's value, not the GPU's.
template <int LOGICAL_WARP_THREADS>
struct ReverseScan {
  // expect: W64-010
  static constexpr bool IS_ARCH_WARP = (LOGICAL_WARP_THREADS == HIPCUB_WARP_THREADS);
  // ok: W64-010
  static constexpr bool IS_HALF = (LOGICAL_WARP_THREADS == 32);
};

void launch_scan(int seqlen) {
  // expect: W64-010, W64-011
  constexpr int warp_size = rocprim::warp_size();
  // ok: W64-011
  int w = 0;
  hipDeviceGetAttribute(&w, hipDeviceAttributeWarpSize, 0);
  if (warp_size == 32 && w == 32 && seqlen > 0) return;
}

// Bug (mamba's cub-derived reverse scan): hipCUB's WarpMask is a 64-bit lane mask, kept in 32 bits.
template <int LOGICAL_WARP_THREADS>
struct WarpScanMasked {
  unsigned int warp_id;
  // expect: W64-004
  unsigned int member_mask;
  __device__ WarpScanMasked()
      : warp_id(threadIdx.x / LOGICAL_WARP_THREADS),
        member_mask(hipcub::WarpMask<LOGICAL_WARP_THREADS>(warp_id)) {}
};

// Correct: the same mask in 64 bits.
template <int LOGICAL_WARP_THREADS>
struct WarpScanMasked64 {
  unsigned int warp_id;
  // ok: W64-004
  unsigned long long member_mask64;
  __device__ WarpScanMasked64()
      : warp_id(threadIdx.x / LOGICAL_WARP_THREADS),
        member_mask64(hipcub::WarpMask<LOGICAL_WARP_THREADS>(warp_id)) {}
};
