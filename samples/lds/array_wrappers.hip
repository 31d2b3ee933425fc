// A __shared__ object of a class that holds one array and hands it out: `s[i]` through its `operator[]`, or
// `T* p = s` through its `operator T*()` (the "uninitialized array" idiom: no constructor runs for shared
// memory). The object is the array it holds: its element is the array's (or, for raw byte storage sized
// `N * sizeof(T)`, the class's type argument T) and its accesses are checked like a plain array's.
#include "hip/hip_runtime.h"

template <typename T, int N>
struct held_array {
  __device__ T &operator[](int i) { return data_[i]; }
  __device__ operator T *() { return data_; }
  T data_[N];
};

template <typename T, int N>
struct raw_array {
  __device__ T &operator[](int i) { return reinterpret_cast<T *>(data_)[i]; }
  alignas(T) unsigned char data_[N * sizeof(T)];
};

// One partial sum per row of 64 columns; the first `rows` lanes read their row's total: lanes 64 elements
// apart, every one in the same bank (4-way for rows = 4, up to 32-way).
template <typename T, int ROWS, int COLS>
__global__ void row_totals(const T *in, T *out, int rows) {
  __shared__ raw_array<T, ROWS * COLS> sums;
  const int tid = threadIdx.x;
  // ok: LDS-001
  sums[tid] = in[tid];
  __syncthreads();
  if (tid < rows)
    // expect: LDS-001
    out[tid] = sums[tid * COLS];
}

// A transpose through the pointer the object converts to: unpadded, the write puts the lanes of a row D
// elements apart (32-way for D = 32); the padded look-alike (D + 1 per row) is conflict-free.
template <int D, typename T>
__global__ __launch_bounds__(D * D) void transpose_dot(const T *in, T *out) {
  __shared__ held_array<T, D * D> tile;
  T *t = tile;
  // expect: LDS-001
  t[threadIdx.x * D + threadIdx.y] = in[threadIdx.y * D + threadIdx.x];
  __syncthreads();
  // ok: LDS-001
  out[threadIdx.y * D + threadIdx.x] = t[threadIdx.y * D + threadIdx.x];
}

template <int D, typename T>
__global__ __launch_bounds__(D * D) void transpose_dot_padded(const T *in, T *out) {
  __shared__ held_array<T, D * (D + 1)> tile;
  T *t = tile;
  // ok: LDS-001
  t[threadIdx.x * (D + 1) + threadIdx.y] = in[threadIdx.y * D + threadIdx.x];
  __syncthreads();
  // ok: LDS-001
  out[threadIdx.y * D + threadIdx.x] = t[threadIdx.y * (D + 1) + threadIdx.x];
}

// The same wrapper in a kernel template the file never launches: the object's type depends on the pattern's own
// parameters (held_array<V, B>), so its element and length are read from the class template's one field: V,
// open (judged at 4 bytes, as for float), and B. A Blelloch up-sweep puts neighbouring lanes 2 * i elements
// apart (32-way at i = 16 once 32 lanes take part); the unit-stride load and write-back are conflict-free.
template <int B, typename V>
__global__ void sweep_up(V *x) {
  __shared__ held_array<V, B> part;
  const int t = threadIdx.x;
  // ok: LDS-001
  part[t] = x[t];
  __syncthreads();
  for (int i = 1; i < B; i <<= 1) {
    const int bi = i * (2 * t + 2) - 1;
    if (bi < B)
      // expect: LDS-001
      part[bi] += part[i * (2 * t + 1) - 1];
    __syncthreads();
  }
  // ok: LDS-001
  x[t] = part[t];
}

// A class template with more than the array in it is not read as the array (its layout is the class's):
// nothing is reported through it, even at a 32-element lane stride.
template <typename T, int N>
struct counted_array {
  __device__ T &operator[](int i) { return data_[i]; }
  T data_[N];
  int used_;
};

template <int B, typename V>
__global__ void strided_counted(V *x) {
  __shared__ counted_array<V, B> c;
  // ok: LDS-001
  c[32 * threadIdx.x] = x[threadIdx.x];
}

void launch(float *a, float *b, int rows) {
  row_totals<float, 4, 64><<<1, 64>>>(a, b, rows);
  transpose_dot<32, float><<<1, dim3(32, 32)>>>(a, b);
  transpose_dot_padded<32, float><<<1, dim3(32, 32)>>>(a, b);
}
