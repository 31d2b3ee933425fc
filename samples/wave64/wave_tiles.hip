// Cooperative-groups tiles as wide as the wavefront next to code that counts lanes in 32s.
#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>

namespace cg = cooperative_groups;

// The device's wavefront width, as a project picks it for its ROCm build.
constexpr int kHwWave = 64;

template <unsigned int Width>
__device__ float tile_max(cg::thread_block_tile<Width>& tile, float v) {
  for (unsigned int step = 1; step < Width; step *= 2) v = fmaxf(v, tile.shfl_xor(v, step));
  return v;
}

// Bug: every 32 threads own one group of values, but the tile's butterfly runs over 64 lanes, so two groups
// get one maximum; the group's lanes also stride by the wavefront and skip half of the group.
__global__ void group_absmax(const float* x, float* out, int group) {
  // expect: W64-002
  const int gid = blockIdx.x * 8 + (threadIdx.x >> 5);
  // expect: W64-002
  const int lane = threadIdx.x & 31;
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<kHwWave> tile = cg::tiled_partition<kHwWave>(block);
  float m = 0.0f;
  for (int i = lane; i < group; i += kHwWave) m = fmaxf(m, fabsf(x[gid * group + i]));
  m = tile_max(tile, m);
  if (lane == 0) out[gid] = m;
}

// Correct: the same groups with a tile of 32: its butterfly stays inside the group.
__global__ void group_absmax_32(const float* x, float* out, int group) {
  // ok: W64-002
  const int gid = blockIdx.x * 8 + (threadIdx.x >> 5);
  // ok: W64-002
  const int lane = threadIdx.x & 31;
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  float m = 0.0f;
  for (int i = lane; i < group; i += 32) m = fmaxf(m, fabsf(x[gid * group + i]));
  m = tile_max(tile, m);
  if (lane == 0) out[gid] = m;
}

// Correct: one group per wavefront-wide tile, lanes numbered by the tile.
__global__ void wave_absmax(const float* x, float* out, int group) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<kHwWave> tile = cg::tiled_partition<kHwWave>(block);
  const int gid = blockIdx.x * 4 + threadIdx.x / kHwWave;
  float m = 0.0f;
  for (int i = tile.thread_rank(); i < group; i += kHwWave) m = fmaxf(m, fabsf(x[gid * group + i]));
  m = tile_max(tile, m);
  if (tile.thread_rank() == 0) out[gid] = m;
}
