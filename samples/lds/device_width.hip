// Blocks sized by the device's wavefront width, asked at run time (hipDeviceProp_t::warpSize,
// hipDeviceGetAttribute(hipDeviceAttributeWarpSize)): on the analysis target that width is the target's own (64 on
// gfx942), so the launch fixes the block. A template kernel also hands its shared tile to the file's own device
// function through a call that libclang leaves unresolved (its arguments depend on T): the helper's accesses are
// judged with this call's pointer and lane values.
#include "hip/hip_runtime.h"

// Writes blockDim.y consecutive slots from (row, col) of a tile with rows `stride` elements apart.
template <typename T>
__device__ void fillRun(T* tile, int row, int col, int stride, T value) {
  for (int k = 0; k < blockDim.y; ++k) {
    // expect: LDS-001
    tile[row * stride + col + k] = value;
  }
}

// Bug on a 64-wide block: lane x starts at column (x * 4) & 63, so lanes x and x + 8 of a row land 32 slots apart,
// on one bank (2-way). The tile's one-element padding does not help: the conflict is inside a row.
template <typename T>
__global__ void runsOfFour(const T* in, T* out) {
  extern __shared__ char raw[];
  T* tile = reinterpret_cast<T*>(raw);
  const int stride = blockDim.x + 1;
  const int col = (threadIdx.x * blockDim.y) & (blockDim.x - 1);
  const int row = (threadIdx.x * blockDim.y) / blockDim.x + threadIdx.y * blockDim.y;
  fillRun(tile, row, col, stride, in[threadIdx.x]);
  __syncthreads();
  out[threadIdx.x] = tile[threadIdx.y * stride + threadIdx.x];
}

template <typename T>
void launchRuns(const T* in, T* out, int n) {
  hipDeviceProp_t prop;
  hipGetDeviceProperties(&prop, 0);
  const dim3 threads(prop.warpSize, 4, 1);
  runsOfFour<<<n, threads, 2 * threads.x * threads.y * threads.y * sizeof(T)>>>(in, out);
}

// Writes one slot per lane of its own row: with rows blockDim.x + 1 apart every lane of a wavefront has its own bank.
template <typename T>
__device__ void fillRow(T* tile, int stride, T value) {
  // ok: LDS-001
  tile[threadIdx.y * stride + threadIdx.x] = value;
}

template <typename T>
__global__ void ownRows(const T* in, T* out) {
  extern __shared__ char raw[];
  T* tile = reinterpret_cast<T*>(raw);
  fillRow(tile, blockDim.x + 1, in[threadIdx.x]);
  __syncthreads();
  out[threadIdx.x] = tile[threadIdx.y * (blockDim.x + 1) + threadIdx.x];
}

template <typename T>
void launchRows(const T* in, T* out, int n) {
  hipDeviceProp_t prop;
  hipGetDeviceProperties(&prop, 0);
  const dim3 threads(prop.warpSize, 4, 1);
  ownRows<<<n, threads, threads.y * (threads.x + 1) * sizeof(T)>>>(in, out);
}

// Bug on a 64-wide block: even slots, 2-way in each 32-lane phase. Under the 16-wide block that 256 assumed threads
// in rows of 16 would give, lanes of two rows read the same dwords and nothing would conflict.
__global__ void evenSlots(float* out) {
  __shared__ float s[128];
  // expect: LDS-001
  s[threadIdx.x * 2] = out[threadIdx.x];
  __syncthreads();
  out[threadIdx.y * blockDim.x + threadIdx.x] = s[threadIdx.x];
}

// Lane x writes slot x: conflict-free at any block width.
__global__ void ownSlots(float* out) {
  __shared__ float s[64];
  // ok: LDS-001
  s[threadIdx.x] = out[threadIdx.x];
  __syncthreads();
  out[threadIdx.y * blockDim.x + threadIdx.x] = s[blockDim.x - 1 - threadIdx.x];
}

void launchSlots(float* out, int n) {
  int width = 0;
  hipDeviceGetAttribute(&width, hipDeviceAttributeWarpSize, 0);
  evenSlots<<<n, dim3(width, 16)>>>(out);
  ownSlots<<<n, dim3(width, 16)>>>(out);
}
