// A header's width macro: a constant on CUDA, the builtin warpSize on ROCm. Its users (other files) size arrays
// and constexprs with it, which ROCm 7 rejects: the definition is the line to change.
#pragma once
#include <hip/hip_runtime.h>

#ifndef __HIP_PLATFORM_AMD__
#define WARP_SIZE 32
#else
// expect: W64-010
#define WARP_SIZE warpSize
#endif

// The same builtin without a constant twin: nothing says it is meant as a constant, and here it is used at run
// time only.
#ifdef __HIP_PLATFORM_AMD__
// ok: W64-010
#define LANES warpSize
#endif

// The ROCm branch picks a literal: a real constant.
#ifndef __HIP_PLATFORM_AMD__
#define GROUP 32
#else
// ok: W64-010
#define GROUP 64
#endif

__device__ inline int lane_of(int t) { return t % LANES; }
