// Shuffle wrappers whose header is not on the include path (PyTorch's THC WARP_SHFL, a project's SHFL_SYNC):
// libclang knows nothing of them, so porter reads them by their name (the word `shfl`) and judges only the
// shapes every shuffle shares, (value, lane) and (mask, value, lane). Findings here have low confidence.
#include <hip/hip_runtime.h>

// Bug (apex before 7eed38aa, launched with threads (32, 4)): the source lane is a 32-lane id, but the wrapper's
// width defaults to warpSize, so on a 64-lane wavefront the odd row reads the even row's values.
template <typename U>
__device__ void welford_rows(U& mu, U& count) {
  for (int l = 0; l <= 4; ++l) {
    int src = (threadIdx.x + (1 << l)) & 31;
    // expect: W64-007
    U mu_b = WARP_SHFL(mu, src);
    // expect: W64-007
    U count_b = WARP_SHFL(count, src);
    mu = (mu * count + mu_b * count_b) / (count + count_b);
    count = count + count_b;
  }
}

// The same bug outside a template: libclang drops the statements and porter reads them from their tokens.
__device__ void welford_rows_float(float& mu, float& count) {
  for (int l = 0; l <= 4; ++l) {
    int src = (threadIdx.x + (1 << l)) % 32;
    // expect: W64-007
    float mu_b = WARP_SHFL(mu, src);
    // expect: W64-007
    float count_b = SHFL_SYNC(0xffffffff, count, src);
    mu = (mu * count + mu_b * count_b) / (count + count_b);
    count = count + count_b;
  }
}

// Correct (apex 7eed38aa): width 32 keeps each row in its own half of the wavefront.
template <typename U>
__device__ void welford_rows_width(U& mu, U& count) {
  for (int l = 0; l <= 4; ++l) {
    int src = (threadIdx.x + (1 << l)) & 31;
    // ok: W64-007
    U mu_b = WARP_SHFL(mu, src, 32);
    // ok: W64-007
    U count_b = WARP_SHFL(count, src, 32);
    mu = (mu * count + mu_b * count_b) / (count + count_b);
    count = count + count_b;
  }
}

// Not judged: a lane-0 broadcast names no 32-lane id, and an xor butterfly from 16 stays inside each half.
template <typename U>
__device__ U row_sum(U v) {
  int lane = threadIdx.x & 31;
  for (int mask = 16; mask > 0; mask /= 2)
    // ok: W64-007
    v += WARP_SHFL_XOR(v, mask);
  // ok: W64-007
  return lane == 0 ? v : WARP_SHFL(v, 0);
}

// Correct: a wrapper declared in the file is read from its definition (here it passes width 32), not its name.
__device__ float row_shfl(float v, int lane) { return __shfl(v, lane, 32); }

__device__ float rotate_row(float v) {
  int src = (threadIdx.x + 1) & 31;
  // ok: W64-007
  return row_shfl(v, src);
}

// Correct: a wrapper the file defines after the template that calls it is found when the template is
// instantiated, so it is not an undeclared name.
template <typename U>
__device__ U rotate_row_later(U v) {
  int src = (threadIdx.x + 1) & 31;
  // ok: W64-007
  return later_shfl(v, src);
}

template <typename U>
__device__ U later_shfl(U v, int lane) { return __shfl(v, lane, 32); }

// Correct: lanes numbered by the whole wavefront.
template <typename U>
__device__ U rotate_wave(U v) {
  int src = (threadIdx.x + 1) & (warpSize - 1);
  // ok: W64-007
  return WARP_SHFL(v, src);
}
