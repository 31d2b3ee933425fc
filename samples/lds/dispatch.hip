// A kernel library in the PyTorch-extension shape: the kernels are templates over a traits struct and are reached
// only through host templates that the end of the file instantiates explicitly; those launch through a
// BOOL_SWITCH lambda and a local kernel pointer, with the CUDA spelling of the stream type (hipify runs at build
// time). Element type, block size and padded row width are known only through that chain.
#include "hip/hip_runtime.h"

#define BOOL_SWITCH(COND, NAME, ...)     \
  [&] {                                  \
    if (COND) {                          \
      static constexpr bool NAME = true; \
      return __VA_ARGS__();              \
    } else {                             \
      static constexpr bool NAME = false; \
      return __VA_ARGS__();              \
    }                                    \
  }()

struct RowParams {
  const void* x;
  void* out;
  int width;
  int rows;
  bool scale;
};

template <int kNThreads_, int kWidth_, int kPad_, typename T_>
struct RowTraits {
  using T = T_;
  static constexpr int kNThreads = kNThreads_;
  static constexpr int kWidth = kWidth_;
  static constexpr int kRow = 128 / sizeof(T);           // 128 bytes of a row: 8 threads of 16 bytes
  static constexpr int kPad = kPad_ * (16 / sizeof(T));  // padding in 16-byte vectors
  static constexpr int kRows = 64;
  static constexpr int kPer = kRows * kRow / kNThreads;  // column elements per thread
};

// Rows padded by one 16-byte vector (144 bytes). The transposed column walk puts lanes of four row groups on one
// bank; the 16-byte reads of the first kWidth - 1 rows pair rows r and r + 2 inside gfx942's ds_read_b128 lane
// groups ({0-3, 20-23}, ...), which NVIDIA's 8-lane phases never do; the 16-byte stores (8-lane phases) are clean.
template <typename K, bool kScale>
__global__ __launch_bounds__(K::kNThreads) void paddedRows(RowParams p) {
  using T = typename K::T;
  __shared__ T tile[K::kRows][K::kRow + K::kPad];
  const int tid = threadIdx.x;
  const int r = tid / 8, c = tid % 8;
  for (int l = 0; l < K::kRows; l += K::kNThreads / 8) {
    // ok: LDS-001, LDS-002
    reinterpret_cast<uint4*>(tile[l + r])[c] = reinterpret_cast<const uint4*>(p.x)[(l + r) * 8 + c];
  }
  __syncthreads();
  const int row = tid / (K::kRows / K::kPer), col = tid % (K::kRows / K::kPer);
  T acc = 0;
  for (int i = 0; i < K::kPer; ++i) {
    // expect: LDS-001
    acc += tile[col * K::kPer + i][row];
  }
  if (kScale) acc *= T(2);
  reinterpret_cast<T*>(p.out)[tid] = acc;
  if (r < K::kWidth - 1 && p.rows > 0) {
    // expect: LDS-002
    reinterpret_cast<uint4*>(p.out)[K::kNThreads + tid] = reinterpret_cast<uint4*>(tile[r])[c];
  }
}

// The same traffic on unpadded rows, read back by rows: every access is conflict-free on gfx942.
template <typename K, bool kScale>
__global__ __launch_bounds__(K::kNThreads) void plainRows(RowParams p) {
  using T = typename K::T;
  __shared__ T tile[K::kRows][K::kRow];
  const int tid = threadIdx.x;
  const int r = tid / 8, c = tid % 8;
  for (int l = 0; l < K::kRows; l += K::kNThreads / 8) {
    // ok: LDS-001, LDS-002
    reinterpret_cast<uint4*>(tile[l + r])[c] = reinterpret_cast<const uint4*>(p.x)[(l + r) * 8 + c];
  }
  __syncthreads();
  // ok: LDS-001
  T v = tile[tid / K::kRow][tid % K::kRow];
  if (kScale) v *= T(2);
  reinterpret_cast<T*>(p.out)[tid] = v;
  if (r < K::kWidth - 1) {
    // ok: LDS-001, LDS-002
    reinterpret_cast<uint4*>(p.out)[K::kNThreads + tid] = reinterpret_cast<uint4*>(tile[r])[c];
  }
}

template <int kNThreads, int kWidth, int kPad, typename T>
void rows_launch(RowParams& p, cudaStream_t stream) {
  BOOL_SWITCH(p.scale, kScale, [&] {
    using K = RowTraits<kNThreads, kWidth, kPad, T>;
    auto padded = &paddedRows<K, kScale>;
    auto plain = &plainRows<K, kScale>;
    if (kPad) {
      padded<<<p.rows / K::kRows, K::kNThreads, 0, stream>>>(p);
    } else {
      plain<<<p.rows / K::kRows, K::kNThreads, 0, stream>>>(p);
    }
  });
}

template <typename T>
void rows_cuda(RowParams& p, cudaStream_t stream) {
  if (p.width == 2) {
    rows_launch<128, 2, 1, T>(p, stream);
    rows_launch<128, 2, 0, T>(p, stream);
  } else if (p.width == 4) {
    rows_launch<128, 4, 1, T>(p, stream);
    rows_launch<128, 4, 0, T>(p, stream);
  }
}

template void rows_cuda<float>(RowParams& p, cudaStream_t stream);

// Device functions passed as a template argument: the kernel that calls them is instantiated with each one, and
// the host template launches it with 16 x 16 threads, so a 32-lane phase holds two threadIdx.y rows.
using tile_fn = void (*)(float* out, const float* in, int ld);

// Rows u + 8 * ty: the two threadIdx.y rows of a phase read rows 8 apart (256 dwords), the same banks.
__device__ void stridedRows(float* out, const float* in, int ld) {
  __shared__ float rows_s[128][32];
  for (int y = threadIdx.y / 2; y < 128; y += 8) {
    // ok: LDS-001
    rows_s[y][threadIdx.x + 16 * (threadIdx.y % 2)] = in[y * ld + threadIdx.x + 16 * (threadIdx.y % 2)];
  }
  __syncthreads();
  float acc = 0.f;
  for (int u = 0; u < 8; ++u) {
    // expect: LDS-001
    acc += rows_s[u + 8 * threadIdx.y][threadIdx.x];
  }
  out[threadIdx.y * 16 + threadIdx.x] = acc;
}

// Rows u + 8 * (ty / 2), the column shifted by 16 for odd ty: the two rows of a phase use all 32 banks once.
__device__ void packedRows(float* out, const float* in, int ld) {
  __shared__ float packed_s[128][32];
  for (int y = threadIdx.y / 2; y < 128; y += 8) {
    // ok: LDS-001
    packed_s[y][threadIdx.x + 16 * (threadIdx.y % 2)] = in[y * ld + threadIdx.x + 16 * (threadIdx.y % 2)];
  }
  __syncthreads();
  float acc = 0.f;
  for (int u = 0; u < 8; ++u) {
    // ok: LDS-001
    acc += packed_s[u + 8 * (threadIdx.y / 2)][threadIdx.x + 16 * (threadIdx.y % 2)];
  }
  out[threadIdx.y * 16 + threadIdx.x] = acc;
}

template <tile_fn F>
__global__ void __launch_bounds__(256) tileKernel(float* out, const float* in, int ld) {
  F(out + blockIdx.x * 256, in, ld);
}

template <tile_fn F>
void tile_launch(float* out, const float* in, int ld, int n) {
  tileKernel<F><<<n, dim3(16, 16)>>>(out, in, ld);
}

void tile_all(float* out, const float* in, int ld, int n) {
  tile_launch<stridedRows>(out, in, ld, n);
  tile_launch<packedRows>(out, in, ld, n);
}
