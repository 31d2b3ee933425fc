// Host occupancy math that counts the wavefronts of a block by truncating: a block of whole 32-lane warps (32, 96
// threads) is not one of whole 64-lane wavefronts, so it counts one too few, and none under 64 threads.
#include <hip/hip_runtime.h>

constexpr int WarpSize = 64;

int blocks_per_cu(int block_size, int regs_per_cu, int regs_per_wave) {
  // expect: W64-009
  return regs_per_cu / (regs_per_wave * (block_size / WarpSize));
}

// Correct: the wavefronts rounded up.
int blocks_per_cu_rounded(int block_size, int regs_per_cu, int regs_per_wave) {
  // ok: W64-009
  return regs_per_cu / (regs_per_wave * ((block_size + WarpSize - 1) / WarpSize));
}

// Correct: a count of wavefronts that divides nothing (the grid of a 64-multiple block).
int waves_of(int block_size) {
  // ok: W64-009
  int waves = block_size / WarpSize;
  return waves * 2;
}
