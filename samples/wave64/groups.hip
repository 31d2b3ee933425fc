// Code organized as 32-lane groups ("warps" of 32) running on 64-lane wavefronts.
#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>

namespace cg = cooperative_groups;

constexpr int kWarp = 32;

// Bug: each 32-lane group counts its votes at its lane 0, but __ballot sees the whole 64-lane wavefront,
// so both groups of a wavefront store the count of all 64 lanes.
__global__ void count_positive(const float* x, int* counts) {
  // expect: W64-002
  int lane = threadIdx.x & 31;
  float v = x[blockIdx.x * blockDim.x + threadIdx.x];
  unsigned long long votes = __ballot(v > 0.0f);
  if (lane == 0) {
    // expect: W64-002
    counts[blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5)] = __popcll(votes);
  }
}

// Bug: 32-lane ids next to wavefront-wide warp ids: lanes 0 and 32 both write the same slot.
__global__ void mixed_ids(const float* x, float* partial) {
  // expect: W64-002
  int lane = threadIdx.x % kWarp;
  int warp = threadIdx.x / warpSize;
  float v = x[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_down(v, o);
  if (lane == 0) partial[blockIdx.x * 16 + warp] = v;
}

// Bug: a broadcast and a scan total read lane 0 / lane 31 of the wavefront, not of the 32-lane group.
__global__ void group_scan_total(const int* in, int* out, int* totals) {
  int lane = threadIdx.x % 32;
  int group = threadIdx.x / 32;
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = 1; o < 32; o <<= 1) {
    int t = __shfl_up(v, o);
    if (lane >= o) v += t;
  }
  // expect: W64-007
  int total = __shfl(v, 31);
  // expect: W64-007
  int base = __shfl(in[blockIdx.x], 0);
  out[blockIdx.x * blockDim.x + threadIdx.x] = v + base;
  if (lane == 0) totals[blockIdx.x * 8 + group] = total;
}

// Correct: the same with width 32 on every shuffle.
__global__ void group_scan_total_fixed(const int* in, int* out, int* totals) {
  // ok: W64-002
  int lane = threadIdx.x % 32;
  // ok: W64-002
  int group = threadIdx.x / 32;
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = 1; o < 32; o <<= 1) {
    int t = __shfl_up(v, o, 32);
    if (lane >= o) v += t;
  }
  // ok: W64-007
  int total = __shfl(v, 31, 32);
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
  if (lane == 0) totals[blockIdx.x * 8 + group] = total;
}

// Correct: cooperative-groups tiles of 32 carry their width.
__global__ void tile_reduce(const float* x, float* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  float v = x[block.thread_rank()];
  // ok: W64-001
  for (int o = 16; o > 0; o /= 2) v += tile.shfl_down(v, o);
  // ok: W64-007
  v = tile.shfl(v, 0);
  if (tile.thread_rank() == 0) out[tile.meta_group_rank()] = v;
}

// Bug: a whole-wavefront reduction (from warpSize / 2) read back by 32-lane group ids: lane 32 holds the
// partial sum of lanes 32-63 and writes it as a second warp's total.
__global__ void tree_then_groups(const float* in, float* partial) {
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_down(v, o);
  // expect: W64-002
  const int lane = threadIdx.x & 31;
  // expect: W64-002
  if (lane == 0) partial[blockIdx.x * 8 + (threadIdx.x >> 5)] = v;
}

// Correct: the same reduction read back by wavefront ids.
__global__ void tree_then_waves(const float* in, float* partial) {
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_down(v, o);
  // ok: W64-002
  const int lane = threadIdx.x & (warpSize - 1);
  // ok: W64-002
  if (lane == 0) partial[blockIdx.x * 4 + threadIdx.x / warpSize] = v;
}

// Bug: a butterfly over the whole wavefront read back by 32-lane ids (exllamav2's rms_norm before 5a61d6e): after
// it every lane holds the wavefront's total, lane_id == 0 holds at lanes 0 and 32, so each total is stored twice,
// and the second stage reads slots 0-31 in both halves of the wavefront before a second butterfly: 4x the sum.
__global__ void butterfly_then_groups(const float* in, float* out) {
  __shared__ float sums[32];
  // expect: W64-002
  const int warp_id = threadIdx.x / 32;
  // expect: W64-002
  const int lane_id = threadIdx.x % 32;
  float v = in[blockIdx.x * 1024 + threadIdx.x];
  for (int o = 32; o > 0; o /= 2) v += __shfl_xor(v, o);
  // expect: W64-002
  if (lane_id == 0) sums[warp_id] = v;
  __syncthreads();
  // expect: W64-002
  v = sums[lane_id];
  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_xor(v, o);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}

// Correct: the same two stages numbered by the wavefront; the second stage reads only the slots written.
__global__ void butterfly_then_waves(const float* in, float* out) {
  __shared__ float sums[16];
  const int warp_id = threadIdx.x / warpSize;
  // ok: W64-002
  const int lane_id = threadIdx.x % warpSize;
  float v = in[blockIdx.x * 1024 + threadIdx.x];
  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_xor(v, o);
  // ok: W64-002
  if (lane_id == 0) sums[warp_id] = v;
  __syncthreads();
  // ok: W64-002, W64-008
  v = lane_id < blockDim.x / warpSize ? sums[lane_id] : 0.0f;
  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_xor(v, o);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}

// Bug: the leader is a wavefront lane (0-63) from the ballot; a 32-lane id matches it in two lanes or none. The
// comparison is right once lane numbers the wavefront: the finding is where the 32-lane id is made.
__global__ void elect_leader(const int* flags, int* counts) {
  // expect: W64-002
  const int lane = threadIdx.x % 32;
  const unsigned long long active = __ballot(flags[blockIdx.x * blockDim.x + threadIdx.x] != 0);
  const int leader = __ffsll(active) - 1;
  if (lane == leader) atomicAdd(&counts[blockIdx.x], __popcll(active));
}

// Correct: the same election with the wavefront lane id.
__global__ void elect_leader_ok(const int* flags, int* counts) {
  const int lane = threadIdx.x % warpSize;
  const unsigned long long active = __ballot(flags[blockIdx.x * blockDim.x + threadIdx.x] != 0);
  const int leader = __ffsll(active) - 1;
  // ok: W64-002
  if (lane == leader) atomicAdd(&counts[blockIdx.x], __popcll(active));
}

// Bug: __all used as the vote of a 32-lane warp: it sees all 64 lanes, so one group's failure vetoes the other.
__global__ void all_positive_per_warp(const float* x, int* ok) {
  const float v = x[blockIdx.x * blockDim.x + threadIdx.x];
  const int all = __all(v > 0.0f);
  // expect: W64-002
  if ((threadIdx.x & 31) == 0) ok[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = all;
}

// Correct: the vote per wavefront, stored per wavefront.
__global__ void all_positive_per_wave(const float* x, int* ok) {
  const float v = x[blockIdx.x * blockDim.x + threadIdx.x];
  const int all = __all(v > 0.0f);
  // ok: W64-002
  if ((threadIdx.x % warpSize) == 0) ok[(blockIdx.x * blockDim.x + threadIdx.x) / warpSize] = all;
}

// Correct: 32-lane tiles placed inside the wavefront on purpose (openmm-hip's neighbour search): the tiles per
// wavefront are counted from warpSize, each tile handles one row, and the vote skips work the whole wavefront lacks.
__global__ void tiles_in_wave(const float* x, float* out) {
  const int tilesPerWave = warpSize / kWarp;
  // ok: W64-002
  const int indexInTile = threadIdx.x % kWarp;
  // ok: W64-002
  const int tileInWave = (threadIdx.x / kWarp) % tilesPerWave;
  const int wave = threadIdx.x / warpSize;
  float v = x[blockIdx.x * blockDim.x + threadIdx.x];
  if (__ballot(v > 0.0f) == 0) return;
  out[(blockIdx.x * 4 + wave) * 64 + tileInWave * kWarp + indexInTile] = v;
}

// Bug: the same tiles with no count of them per wavefront: code written for 32-lane warps.
__global__ void tiles_as_warps(const float* x, float* out) {
  // expect: W64-002
  const int indexInTile = threadIdx.x % kWarp;
  // expect: W64-002
  const int tile = threadIdx.x / kWarp;
  float v = x[blockIdx.x * blockDim.x + threadIdx.x];
  if (__ballot(v > 0.0f) == 0) return;
  out[(blockIdx.x * 8 + tile) * 32 + indexInTile] = v;
}
