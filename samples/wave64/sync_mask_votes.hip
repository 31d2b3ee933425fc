// A vote whose result only names the lanes of *_sync intrinsics (their mask argument) is never a value that
// 32-lane ids combine with: on gfx942 it names all 64 lanes, which is what the intrinsic wants. Read as a
// value (a count, a bit test) next to 32-lane ids, it is the W64-002 hazard.
#include <hip/hip_runtime.h>

// Correct: 32-lane groups, width 32 on every shuffle, the active mask only passed as the mask.
__global__ void group_sums(const float* x, float* out) {
  // ok: W64-002
  int lane = threadIdx.x % 32;
  float v = x[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(__activemask(), v, o, 32);
  // ok: W64-002
  if (lane == 0) out[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = v;
}

// Correct: a match result kept in a variable and read only as the mask of a width-32 shuffle.
__global__ void keyed_group_max(const int* keys, const float* x, float* out) {
  float v = x[threadIdx.x];
  unsigned long long peers = __match_any_sync(__activemask(), keys[threadIdx.x]);
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(peers, v, o, 32));
  // ok: W64-002
  if (threadIdx.x % 32 == 0) out[threadIdx.x / 32] = v;
}

// Bug: the same active mask also counted: lanes 0 and 32 each write the count of all 64 lanes.
__global__ void group_counts(const float* x, int* counts) {
  // expect: W64-002
  int lane = threadIdx.x % 32;
  unsigned long long active = __activemask();
  float v = x[threadIdx.x];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(active, v, o, 32);
  // expect: W64-002
  if (lane == 0 && v > 0.f) counts[threadIdx.x / 32] = __popcll(active);
}
