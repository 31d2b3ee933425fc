// Code written for ROCm spells __host__ __device__ as HIP's __HOST_DEVICE__ (hip/amd_detail/host_defines.h).
// Parsed without that macro, the struct below would end at its first such member and every later member and
// every kernel using them would be lost; with it, the scratch rows are judged like any other.
#include "hip/hip_runtime.h"

struct Pair {
  float2 v;
  __HOST_DEVICE__ Pair& operator=(const Pair& rhs) {
    v = rhs.v;
    return *this;
  }
  __device__ void store_to(float2* out, int i) const { out[i] = v; }
};

// Bug: rows padded to 33 pairs, but the column each lane writes turns with the lane as well: a stride of 34
// pairs (68 dwords) per lane, so in each 16-lane ds_write_b64 phase lanes l and l + 8 share their banks: 2-way.
__global__ void turned_rows(const float2* in, float2* out) {
  __shared__ Pair scratch[64 * 33];
  const int lane = threadIdx.x;
  Pair p;
  for (int j = 0; j < 32; ++j) {
    p.v = in[(blockIdx.x * 32 + j) * 64 + lane];
    // expect: LDS-001
    scratch[lane * 33 + (lane + j) % 32] = p;
  }
  __syncthreads();
  // ok: LDS-001
  scratch[lane].store_to(out, blockIdx.x * 64 + lane);
}

// The same rows without the turn: 66 dwords per lane, the 16 lanes of a phase on 16 distinct bank pairs.
__global__ void plain_rows(const float2* in, float2* out) {
  __shared__ Pair scratch[64 * 33];
  const int lane = threadIdx.x;
  Pair p;
  for (int j = 0; j < 32; ++j) {
    p.v = in[(blockIdx.x * 32 + j) * 64 + lane];
    // ok: LDS-001
    scratch[lane * 33 + j] = p;
  }
  __syncthreads();
  // ok: LDS-001
  scratch[lane].store_to(out, blockIdx.x * 64 + lane);
}

// Declarations whose name a macro of the project spells: a namespace opened by a macro (rocPRIM's
// BEGIN_ROCPRIM_NAMESPACE, `namespace rocprim {`) and a kernel a macro names. libclang places them in the macro's
// expansion, not in the file; they are still the file's code, and the one-float-per-row stores are judged.
#define BEGIN_LIB_NAMESPACE namespace lib {
#define END_LIB_NAMESPACE }
#define ROW_KERNEL(name) __global__ void __launch_bounds__(64) name(float* out)

BEGIN_LIB_NAMESPACE
__global__ void __launch_bounds__(64) rows_in_namespace(float* out) {
  __shared__ float rows[64 * 32];
  // expect: LDS-001
  rows[threadIdx.x * 32] = out[threadIdx.x];
  __syncthreads();
  // ok: LDS-001
  out[threadIdx.x] = rows[threadIdx.x];
}
END_LIB_NAMESPACE

ROW_KERNEL(rows_of_a_macro) {
  __shared__ float rows[64 * 32];
  // expect: LDS-001
  rows[threadIdx.x * 32] = out[threadIdx.x];
  __syncthreads();
  // ok: LDS-001
  out[threadIdx.x] = rows[threadIdx.x];
}
