// Shapes of real kernel libraries: template parameters in the extents, double buffers toggled by every thread,
// rows of a tile reinterpreted as another element type.
#include "hip/hip_runtime.h"

// The outer extent depends on a template parameter (never instantiated here), the rows do not: the strides are
// known, so the column read is still checked (32 lanes of a half-wave on one bank).
template <int ncols>
__global__ void partialSums(const float* x, float* out) {
  __shared__ float part[ncols][32][32];
  for (int j = 0; j < ncols; ++j) {
    // ok: LDS-001
    part[j][threadIdx.y][threadIdx.x] = x[j * 1024 + threadIdx.y * 32 + threadIdx.x];
  }
  __syncthreads();
  // expect: LDS-001
  out[threadIdx.y * 32 + threadIdx.x] = part[0][threadIdx.x][threadIdx.y];
}

// A double buffer index that every thread toggles alike only moves the whole access: the bank pattern is the
// one of the buffer itself.
__global__ void doubleBuffered(const float* in, float* out, int n) {
  __shared__ float tile[2][32][32];
  int cur = 0;
  for (int i = 0; i < n; ++i) {
    // ok: LDS-001
    tile[cur][threadIdx.y][threadIdx.x] = in[i * 1024 + threadIdx.y * 32 + threadIdx.x];
    __syncthreads();
    // expect: LDS-001
    out[i * 1024 + threadIdx.y * 32 + threadIdx.x] = tile[cur][threadIdx.x][threadIdx.y];
    cur ^= 1;
  }
}

// A padded tile whose rows are handed out as pointers (reinterpret_cast of tile[b][row]): the row itself is not
// an access, the subscript through the pointer is, and with 33 floats per row the column walk is conflict-free.
template <typename T>
__global__ void paddedRows(const T* src, T* dst, int n) {
  __shared__ float tile[2][32][33];
  int buf = 0;
  for (int i = 0; i < n; ++i) {
    T* row = reinterpret_cast<T*>(tile[buf][threadIdx.y]);
    row[threadIdx.x] = src[i * 1024 + threadIdx.y * 32 + threadIdx.x];
    __syncthreads();
    const T* col = reinterpret_cast<const T*>(tile[buf][threadIdx.x]);
    // ok: LDS-001
    dst[i * 1024 + threadIdx.y * 32 + threadIdx.x] = col[threadIdx.y];
    buf = (buf + 1) % 2;
  }
}
template __global__ void paddedRows<float>(const float*, float*, int);

// A pattern never instantiated in the file whose per-thread width a static_assert fixes: every build has
// PER_THREAD == 8, so each lane's slice pointer `mine` steps 8 floats per lane and the 32 lanes of a split fall
// on 4 banks (8-way as ds_write_b32), as in vLLM's ROCm AWQ split-K GEMV.
template <int PER_THREAD, int SPLITS>
__global__ __launch_bounds__(256) void splitPartials(const float* in, float* out) {
  static_assert(PER_THREAD == 8 && SPLITS > 0, "one slice of 8 partials per lane");
  extern __shared__ float partials[];
  int split = threadIdx.x / 32;
  int lane = threadIdx.x % 32;
  float* mine = &partials[split * 32 * PER_THREAD + lane * PER_THREAD];
  for (int i = 0; i < PER_THREAD; i++) {
    // expect: LDS-001
    mine[i] = in[threadIdx.x * PER_THREAD + i];
  }
  __syncthreads();
  if (split == 0) {
    // expect: LDS-001
    out[lane] = mine[0];
  }
}

// The same layout pinned to one partial per lane: consecutive lanes, consecutive banks.
template <int PER_THREAD>
__global__ __launch_bounds__(256) void splitSingles(const float* in, float* out) {
  static_assert(PER_THREAD == 1, "one partial per lane");
  extern __shared__ float partials[];
  int split = threadIdx.x / 32;
  int lane = threadIdx.x % 32;
  float* mine = &partials[split * 32 * PER_THREAD + lane * PER_THREAD];
  for (int i = 0; i < PER_THREAD; i++) {
    // ok: LDS-001
    mine[i] = in[threadIdx.x * PER_THREAD + i];
  }
  __syncthreads();
  if (split == 0) {
    // ok: LDS-001
    out[lane] = mine[0];
  }
}

void launchTemplates(const float* in, float* out, int n) {
  dim3 threads(32, 8);
  doubleBuffered<<<1, threads>>>(in, out, n);
  paddedRows<float><<<1, threads>>>(in, out, n);
}
