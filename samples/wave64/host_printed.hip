// A width macro chosen by GPU architecture, read by host code only in a message or also in a launch.
#include <cstdio>
#include <hip/hip_runtime.h>

// Correct: the host reads GROUP only inside printf; the kernel's own (device-pass) value decides the work.
// ok: W64-011
#if defined(__GFX9__)
#define GROUP 64
#else
#define GROUP 32
#endif

__global__ void fill_groups(int* out) { out[blockIdx.x * blockDim.x + threadIdx.x] = threadIdx.x % GROUP; }

void launch_fill_groups(int* out, int blocks) {
  // ok: W64-011
  printf("%d lanes per group, %d threads per block\n", GROUP, 8 * GROUP);
  fill_groups<<<blocks, 256>>>(out);
}

// Bug: the host sizes the launch with SPAN, which the host pass always takes from the #else.
// expect: W64-011
#if defined(__GFX9__)
#define SPAN 64
#else
#define SPAN 32
#endif

__global__ void fill_spans(int* out) { out[blockIdx.x * blockDim.x + threadIdx.x] = threadIdx.x % SPAN; }

void launch_fill_spans(int* out, int n) {
  // expect: W64-011
  fill_spans<<<n / SPAN, SPAN>>>(out);
}
