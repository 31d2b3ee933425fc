// A configuration header picks the wavefront width by GPU architecture, in a scope both passes compile.
#include <hip/hip_runtime.h>

struct tuning {
// Bug: the host pass defines no __GFX9__, takes the #else and fails there, whatever GPU the build is for.
// expect: W64-011
#if defined(__GFX8__) || defined(__GFX9__)
  static constexpr unsigned lanes = 64;
#else
  static_assert(false, "only wave64 GPUs are supported");
  static constexpr unsigned lanes = 32;
#endif
};

// Bug: the same with #error.
// expect: W64-011
#ifdef __gfx942__
#define TILE_ROWS 4
#elif defined(__gfx90a__)
#define TILE_ROWS 2
#else
#error "unsupported GPU"
#endif

// Correct: the chain also tests the host pass's own macro, so the host takes the first branch.
// ok: W64-011
#if defined(__GFX9__) || !defined(__HIP_DEVICE_COMPILE__)
#define STAGE_WIDTH 64
#else
#error "wave32 GPUs are not supported"
#endif

// Correct: the #else only falls back to a value; nothing stops the host pass.
// ok: W64-011
#if defined(__GFX9__)
#define LANE_BITS 6
#else
#define LANE_BITS 5
#endif

__global__ void fill(float* x) { x[blockIdx.x * tuning::lanes + threadIdx.x] = TILE_ROWS * STAGE_WIDTH + LANE_BITS; }
