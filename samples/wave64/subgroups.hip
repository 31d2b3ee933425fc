// Lane groups narrower than the wavefront on purpose: 16-lane groups paired inside 32-lane halves, and votes
// read per 32-lane half.
#include <hip/hip_runtime.h>

constexpr int kWave = 64;

// Correct: each 16-lane group sums one row, `__shfl_xor(v, 16)` hands it the neighbouring group's row, and the
// pair's result is read at lanes 0 and 32, the leaders of the two 32-lane halves.
__global__ void paired_rows(const float* in, float* out) {
  const int lane = threadIdx.x % kWave;
  const int row = threadIdx.x / 16;
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int m = 8; m >= 1; m /= 2) v += __shfl_xor(v, m);
  // ok: W64-001
  float other = __shfl_xor(v, 16);
  if (lane == 0 || lane == 32) out[blockIdx.x * 8 + row / 2] = v * other;
}

// Bug: the same xor step ends a reduction that the wavefront's lane 0 reads as the whole wavefront's.
__global__ void wave_row(const float* in, float* out) {
  const int lane = threadIdx.x % kWave;
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int m = 8; m >= 1; m /= 2) v += __shfl_xor(v, m);
  // expect: W64-001
  v += __shfl_xor(v, 16);
  if (lane == 0) out[blockIdx.x * 4 + threadIdx.x / kWave] = v;
}

// Correct: each 32-lane group counts its own half of the 64-bit ballot.
__global__ void count_per_half(const float* x, int* counts) {
  // ok: W64-002
  int lane = threadIdx.x & 31;
  float v = x[blockIdx.x * blockDim.x + threadIdx.x];
  unsigned mine = (unsigned)(__ballot(v > 0.0f) >> (threadIdx.x & 32));
  // ok: W64-002
  if (lane == 0) counts[blockIdx.x * 8 + (threadIdx.x >> 5)] = __popc(mine);
}

// Bug: the ballot kept in 32 bits gives the upper group the lower group's votes. The line to change is the
// ballot (take the group's half, as above); the 32-lane ids that index the mask are then right.
__global__ void count_truncated(const float* x, int* counts) {
  // ok: W64-002
  int lane = threadIdx.x & 31;
  float v = x[blockIdx.x * blockDim.x + threadIdx.x];
  // expect: W64-004
  unsigned mine = __ballot(v > 0.0f);
  // ok: W64-002
  // expect: W64-005
  if (lane == 0) counts[blockIdx.x * 8 + (threadIdx.x >> 5)] = __popc(mine);
}

// Bug: the whole 64-bit ballot counted by each 32-lane group: both groups store all 64 lanes' votes.
__global__ void count_whole_wave(const float* x, int* counts) {
  // expect: W64-002
  int lane = threadIdx.x & 31;
  float v = x[blockIdx.x * blockDim.x + threadIdx.x];
  unsigned long long votes = __ballot(v > 0.0f);
  // expect: W64-002
  if (lane == 0) counts[blockIdx.x * 8 + (threadIdx.x >> 5)] = __popcll(votes);
}
