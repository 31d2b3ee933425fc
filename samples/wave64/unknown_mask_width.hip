// Masks whose width the parse cannot know: a typedef of a type, or a macro, from a header that is not on the
// include path (hypre's device_utils.h without the generated _hypre_utilities.h). clang reads the broken typedef as
// int; porter does not take that for a 32-bit mask. A typedef it can resolve is judged by its real width.
#include <hip/hip_runtime.h>

typedef project_ulonglong_t lane_mask;   // declared in a header this file does not see
typedef unsigned int mask32;

__device__ float sum_unknown_typedef(lane_mask mask, float v) {
  for (int o = 16; o > 0; o /= 2) {
    // ok: W64-003
    v += __shfl_down_sync(mask, v, o);
  }
  return v;
}

__device__ float sum_unknown_macro(float v) {
  for (int o = 16; o > 0; o /= 2) {
    // ok: W64-003
    v += __shfl_down_sync(PROJECT_FULL_MASK, v, o);
  }
  return v;
}

// expect: W64-003
__device__ float sum_known_typedef(mask32 mask, float v) {
  for (int o = 16; o > 0; o /= 2) {
    // expect: W64-003
    v += __shfl_down_sync(mask, v, o);
  }
  return v;
}

// Bug (hypre before ecdd9c63d): fifteen hex digits, a 60-lane mask; lanes 60-63 run the call outside it.
#define WAVE_FULL_MASK 0xFFFFFFFFFFFFFFF
__device__ float sum_short_mask(float v) {
  for (int o = 32; o > 0; o /= 2) {
    // expect: W64-003
    v += __shfl_down_sync(WAVE_FULL_MASK, v, o);
  }
  return v;
}

// Correct: all sixteen digits.
#define WAVE_MASK_64 0xFFFFFFFFFFFFFFFF
__device__ float sum_full_mask(float v) {
  for (int o = 32; o > 0; o /= 2) {
    // ok: W64-003
    v += __shfl_down_sync(WAVE_MASK_64, v, o);
  }
  return v;
}
