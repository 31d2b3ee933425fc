// Votes in code organized as 32-lane groups: which ones mix a group's lane ids with the whole wavefront.
#include "hip/hip_runtime.h"

// Correct: __any only keeps the wavefront looping while some lane has items left; a group with none left runs
// an extra pass in which every lane fails its own test, as the idle lanes of a 32-lane warp do.
__global__ void group_rows(const int* start, const float* x, float* out) {
  // ok: W64-002
  const int lane = threadIdx.x % 32;
  // ok: W64-002
  const int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int end = start[row + 1];
  float acc = 0.0f;
  for (int i = start[row] + lane; __any(i < end); i += 32) {
    if (i < end) acc += x[i];
  }
  out[row * 32 + lane] = acc;
}

// Correct: the vote is returned to a do-while that repeats while any lane changed something.
__device__ bool relax(float* d, const float* w, int row) {
  // ok: W64-002
  const int lane = threadIdx.x & 31;
  bool changed = false;
  const float c = d[row] + w[row * 32 + lane];
  if (c < d[row * 32 + lane]) {
    d[row * 32 + lane] = c;
    changed = true;
  }
  return __any(changed);
}

__global__ void relax_all(float* d, const float* w) {
  const int row = blockIdx.x * blockDim.y + threadIdx.y;
  do {
  } while (relax(d, w, row));
}

// Bug: the vote is read as the verdict of one 32-lane group: the other group's lanes take part in it.
__global__ void group_flags(const float* x, int* flags) {
  // expect: W64-002
  const int lane = threadIdx.x % 32;
  const int any = __any(x[blockIdx.x * blockDim.x + threadIdx.x] < 0.0f);
  // expect: W64-002
  if (lane == 0) flags[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = any;
}

// Correct for the shuffle: who is a bit position of the ballot, a lane of the whole wavefront, so the
// default-width shuffle reads the lane the vote picked. The 32-lane id compared with it is the bug.
__global__ void serve_requests(const int* req, int* out) {
  // expect: W64-002
  const int lane = threadIdx.x % 32;
  const int r = req[blockIdx.x * blockDim.x + threadIdx.x];
  unsigned long long pending = __ballot(r >= 0);
  while (pending != 0) {
    const int who = __ffsll(pending) - 1;
    pending &= pending - 1;
    // ok: W64-007
    const int wr = __shfl(r, who);
    if (lane == who) out[blockIdx.x * blockDim.x + threadIdx.x] = wr;
  }
}

// Bug: the ballot is shifted to the group's own half, so who is a lane of the 32-lane group; the default-width
// shuffle reads lane who of the wavefront, in the other group for lanes 32-63.
__global__ void serve_requests_group(const int* req, int* out) {
  // ok: W64-002
  const int lane = threadIdx.x % 32;
  const int r = req[blockIdx.x * blockDim.x + threadIdx.x];
  unsigned pending = (unsigned)(__ballot(r >= 0) >> (threadIdx.x & 32));
  while (pending != 0) {
    const int who = __ffs(pending) - 1;
    pending &= pending - 1;
    // expect: W64-007
    const int wr = __shfl(r, who);
    if (lane == who) out[blockIdx.x * blockDim.x + threadIdx.x] = wr;
  }
}
