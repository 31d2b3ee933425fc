// porter's HIP stub header: just enough of HIP for libclang to build a faithful device-side AST of hipified
// code. It is never compiled into anything. Semantics follow HIP on gfx942 (docs/hardware.md "Cross-lane operations on a 64-lane wavefront"):
// 64-bit ballot/activemask/match masks, shuffle width defaulting to warpSize, warpSize not a constant.
#pragma once
#ifndef PORTER_HIP_STUB_H
#define PORTER_HIP_STUB_H

#include <stddef.h>
#include <stdint.h>

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __forceinline__ inline __attribute__((always_inline))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __restrict__ __restrict
#define __align__(n) __attribute__((aligned(n)))
// hip/amd_detail/host_defines.h spells the pair as one macro, which hipified and ROCm-native code uses
#define __HOST_DEVICE__ __host__ __device__
#define __HIP__ 1
#define __HIPCC__ 1
#define __HIP_PLATFORM_AMD__ 1
#define __HIP_PLATFORM_HCC__ 1
// A HIP compile sees the ROCm version everywhere: clang's __clang_hip_runtime_wrapper.h, which the compiler
// force-includes, includes hip/hip_version.h, and that header (ROCm 6.4) defines these, so code under
// `#if HIP_VERSION >= 502` is what a ROCm build compiles. A version given with -D wins.
#ifndef HIP_VERSION
#define HIP_VERSION_MAJOR 6
#define HIP_VERSION_MINOR 4
#define HIP_VERSION_PATCH 43484
#define HIP_VERSION (HIP_VERSION_MAJOR * 10000000 + HIP_VERSION_MINOR * 100000 + HIP_VERSION_PATCH)
#endif
#define HIP_DYNAMIC_SHARED(type, var) extern __shared__ type var[];
#define HIP_KERNEL_NAME(...) __VA_ARGS__

struct __porter_builtin_dim3 { unsigned int x, y, z; };
extern const __device__ __porter_builtin_dim3 threadIdx;
extern const __device__ __porter_builtin_dim3 blockIdx;
extern const __device__ __porter_builtin_dim3 blockDim;
extern const __device__ __porter_builtin_dim3 gridDim;
// ROCm 7: warpSize is a runtime value in device code, not a constant expression.
extern const __device__ int warpSize;

#define hipThreadIdx_x (threadIdx.x)
#define hipThreadIdx_y (threadIdx.y)
#define hipThreadIdx_z (threadIdx.z)
#define hipBlockIdx_x (blockIdx.x)
#define hipBlockIdx_y (blockIdx.y)
#define hipBlockIdx_z (blockIdx.z)
#define hipBlockDim_x (blockDim.x)
#define hipBlockDim_y (blockDim.y)
#define hipBlockDim_z (blockDim.z)
#define hipGridDim_x (gridDim.x)
#define hipGridDim_y (gridDim.y)
#define hipGridDim_z (gridDim.z)

struct dim3 {
  unsigned int x, y, z;
  __host__ __device__ constexpr dim3(unsigned int x_ = 1, unsigned int y_ = 1, unsigned int z_ = 1) : x(x_), y(y_), z(z_) {}
};

// ---- vector types (sizes and alignment as in HIP; fields and HIP's make_<type><n> constructors) ----
#define PORTER_VEC(T, N, A)                                                      \
  struct __attribute__((aligned(A))) T##1 { N x; };                               \
  struct __attribute__((aligned(A * 2))) T##2 { N x, y; };                        \
  struct T##3 { N x, y, z; };                                                     \
  struct __attribute__((aligned(A * 4))) T##4 { N x, y, z, w; };                  \
  __host__ __device__ T##1 make_##T##1(N);                                        \
  __host__ __device__ T##2 make_##T##2(N, N);                                     \
  __host__ __device__ T##3 make_##T##3(N, N, N);                                  \
  __host__ __device__ T##4 make_##T##4(N, N, N, N);
PORTER_VEC(char, signed char, 1)
PORTER_VEC(uchar, unsigned char, 1)
PORTER_VEC(short, short, 2)
PORTER_VEC(ushort, unsigned short, 2)
PORTER_VEC(int, int, 4)
PORTER_VEC(uint, unsigned int, 4)
PORTER_VEC(float, float, 4)
PORTER_VEC(longlong, long long, 8)
PORTER_VEC(ulonglong, unsigned long long, 8)
PORTER_VEC(double, double, 8)
#undef PORTER_VEC

// ---- half and bfloat16 ----
// float conversions as HIP's headers have them: `float v = h; out[i] = v * 0.5f;` parses as the assignments it is
// __half_raw: the bits of a half (hip_fp16.h), which atomics built on atomicCAS convert to and from
struct __half_raw { unsigned short x; };
struct __attribute__((aligned(2))) __half {
  unsigned short __x;
  __host__ __device__ __half() = default;
  __host__ __device__ __half(float);
  __host__ __device__ __half(__half_raw);
  __host__ __device__ operator float() const;
  __host__ __device__ operator __half_raw() const;
};
struct __attribute__((aligned(4))) __half2 { __half x, y; };
typedef __half half;
typedef __half2 half2;
struct __attribute__((aligned(2))) __hip_bfloat16 {
  unsigned short __x;
  __host__ __device__ __hip_bfloat16() = default;
  __host__ __device__ __hip_bfloat16(float);
  __host__ __device__ operator float() const;
};
struct __attribute__((aligned(4))) __hip_bfloat162 { __hip_bfloat16 x, y; };
typedef __hip_bfloat16 hip_bfloat16;
typedef __hip_bfloat16 __nv_bfloat16;
__host__ __device__ __half __float2half(float);
__host__ __device__ float __half2float(__half);
__host__ __device__ __half2 __float2half2_rn(float);
__host__ __device__ __half2 __floats2half2_rn(float, float);
__host__ __device__ float2 __half22float2(__half2);
__host__ __device__ __half __int2half_rn(int);
__host__ __device__ int __half2int_rn(__half);
__host__ __device__ __half2 __halves2half2(__half, __half);
__host__ __device__ __half2 __half2half2(__half);
__host__ __device__ __half __low2half(__half2);
__host__ __device__ __half __high2half(__half2);
__host__ __device__ float __low2float(__half2);
__host__ __device__ float __high2float(__half2);
__host__ __device__ __hip_bfloat16 __float2bfloat16(float);
__host__ __device__ float __bfloat162float(__hip_bfloat16);
__device__ __half __hadd(__half, __half);
__device__ __half __hmul(__half, __half);
__device__ __half __hfma(__half, __half, __half);
__device__ __half2 __hadd2(__half2, __half2);
__device__ __half2 __hmul2(__half2, __half2);
__device__ __half2 __hfma2(__half2, __half2, __half2);
__device__ __half hexp(__half);
__device__ __half __hmax(__half, __half);

// ---- HIP's device-side C library (amd_device_functions.h): run by the calling thread ----
extern "C" __device__ void* memcpy(void* dst, const void* src, size_t n);
extern "C" __device__ void* memset(void* dst, int value, size_t n);
extern "C" __device__ int printf(const char* format, ...);

// ---- cross-lane operations (HIP signatures; masks are 64-bit) ----
#define PORTER_SHFL(T)                                                                            \
  __device__ T __shfl(T var, int src_lane, int width = warpSize);                                 \
  __device__ T __shfl_up(T var, unsigned int delta, int width = warpSize);                        \
  __device__ T __shfl_down(T var, unsigned int delta, int width = warpSize);                      \
  __device__ T __shfl_xor(T var, int lane_mask, int width = warpSize);                            \
  __device__ T __shfl_sync(unsigned long long mask, T var, int src_lane, int width = warpSize);   \
  __device__ T __shfl_up_sync(unsigned long long mask, T var, unsigned int delta, int width = warpSize);   \
  __device__ T __shfl_down_sync(unsigned long long mask, T var, unsigned int delta, int width = warpSize); \
  __device__ T __shfl_xor_sync(unsigned long long mask, T var, int lane_mask, int width = warpSize);
PORTER_SHFL(int)
PORTER_SHFL(unsigned int)
PORTER_SHFL(long)
PORTER_SHFL(unsigned long)
PORTER_SHFL(long long)
PORTER_SHFL(unsigned long long)
PORTER_SHFL(float)
PORTER_SHFL(double)
PORTER_SHFL(__half)
PORTER_SHFL(__half2)
#undef PORTER_SHFL

__device__ unsigned long long __ballot(int predicate);
__device__ unsigned long long __ballot_sync(unsigned long long mask, int predicate);
__device__ unsigned long long __activemask();
__device__ int __any(int predicate);
__device__ int __all(int predicate);
__device__ int __any_sync(unsigned long long mask, int predicate);
__device__ int __all_sync(unsigned long long mask, int predicate);
__device__ unsigned long long __match_any(int value);
__device__ unsigned long long __match_any_sync(unsigned long long mask, int value);
__device__ unsigned long long __match_all_sync(unsigned long long mask, int value, int* pred);
__device__ void __syncwarp(unsigned long long mask = ~0ull);
__device__ void __syncthreads();
__device__ int __syncthreads_count(int);
__device__ int __syncthreads_and(int);
__device__ int __syncthreads_or(int);
__device__ void __threadfence();
__device__ void __threadfence_block();
__device__ unsigned int __lane_id();
__device__ unsigned long long __lanemask_lt();
__device__ int __popc(unsigned int);
__device__ int __popcll(unsigned long long);
__device__ int __ffs(unsigned int);
__device__ int __ffs(int);
__device__ int __ffsll(unsigned long long);
__device__ int __ffsll(long long);
__device__ int __clz(int);
__device__ int __clzll(long long);
__device__ unsigned int __brev(unsigned int);
__device__ unsigned long long __brevll(unsigned long long);
__device__ int __mul24(int, int);
__device__ int __umul24(unsigned int, unsigned int);
__device__ unsigned long long clock64();
__device__ long long wall_clock64();
__device__ int __builtin_amdgcn_readfirstlane(int);

// ---- atomics ----
#define PORTER_ATOMIC(T)                         \
  __device__ T atomicAdd(T* address, T val);     \
  __device__ T atomicSub(T* address, T val);     \
  __device__ T atomicExch(T* address, T val);    \
  __device__ T atomicMin(T* address, T val);     \
  __device__ T atomicMax(T* address, T val);     \
  __device__ T atomicCAS(T* address, T compare, T val);
PORTER_ATOMIC(int)
PORTER_ATOMIC(unsigned int)
PORTER_ATOMIC(unsigned long long)
PORTER_ATOMIC(float)
PORTER_ATOMIC(double)
#undef PORTER_ATOMIC
__device__ int atomicAnd(int*, int);
__device__ int atomicOr(int*, int);
__device__ unsigned int atomicInc(unsigned int*, unsigned int);

// ---- device math: __device__-only overloads so host declarations from <cmath> never clash ----
#define PORTER_MATH1(name) __device__ float name##f(float); __device__ double name(double);
PORTER_MATH1(exp) PORTER_MATH1(exp2) PORTER_MATH1(log) PORTER_MATH1(log2) PORTER_MATH1(sqrt)
PORTER_MATH1(rsqrt) PORTER_MATH1(tanh) PORTER_MATH1(sin) PORTER_MATH1(cos) PORTER_MATH1(fabs)
PORTER_MATH1(floor) PORTER_MATH1(ceil) PORTER_MATH1(erf) PORTER_MATH1(round) PORTER_MATH1(log1p)
PORTER_MATH1(expm1) PORTER_MATH1(log10) PORTER_MATH1(exp10) PORTER_MATH1(sinh) PORTER_MATH1(cosh) PORTER_MATH1(trunc)
#undef PORTER_MATH1
__device__ float fmaxf(float, float);
__device__ float fminf(float, float);
__device__ double fmax(double, double);
__device__ double fmin(double, double);
__device__ float powf(float, float);
__device__ float fmaf(float, float, float);
__device__ void sincosf(float, float*, float*);
__device__ void sincospif(float, float*, float*);
__device__ float __expf(float);
__device__ float __logf(float);
__device__ float __fdividef(float, float);
__device__ float __frsqrt_rn(float);
__device__ float __saturatef(float);
__host__ __device__ float __int_as_float(int);
__host__ __device__ int __float_as_int(float);
__host__ __device__ int __float2int_rn(float);
__host__ __device__ long long __double_as_longlong(double);
__host__ __device__ double __longlong_as_double(long long);
// HIP's integer abs/min/max of device code; the int overloads take mixed operands (max(short_value, 0))
__device__ int abs(int);
__device__ long long llabs(long long);
template <class T> __host__ __device__ T min(T a, T b);
template <class T> __host__ __device__ T max(T a, T b);
__host__ __device__ int min(int, int);
__host__ __device__ int max(int, int);
#define INFINITY __builtin_inff()
#define NAN __builtin_nanf("")

// ---- host runtime API (declarations only) ----
typedef enum hipError_t { hipSuccess = 0, hipErrorInvalidValue = 1, hipErrorOutOfMemory = 2 } hipError_t;
typedef enum hipMemcpyKind { hipMemcpyHostToHost, hipMemcpyHostToDevice, hipMemcpyDeviceToHost,
                             hipMemcpyDeviceToDevice, hipMemcpyDefault } hipMemcpyKind;
typedef enum hipDeviceAttribute_t { hipDeviceAttributeWarpSize, hipDeviceAttributeMaxThreadsPerBlock,
                                    hipDeviceAttributeMultiprocessorCount, hipDeviceAttributeMaxSharedMemoryPerBlock } hipDeviceAttribute_t;
typedef struct ihipStream_t* hipStream_t;
// hip_runtime_api.h: the default stream-creation flags, which code also passes as the null stream of a launch
#define hipStreamDefault 0x00
typedef struct ihipEvent_t* hipEvent_t;
struct hipDeviceProp_t { char name[256]; int warpSize; int maxThreadsPerBlock; int multiProcessorCount;
                         size_t sharedMemPerBlock; int regsPerBlock; int major; int minor; char gcnArchName[256];
                         int maxThreadsDim[3]; int maxGridSize[3]; int maxThreadsPerMultiProcessor;
                         size_t totalGlobalMem; size_t sharedMemPerMultiprocessor; };
hipError_t hipMalloc(void** ptr, size_t size);
template <class T> hipError_t hipMalloc(T** ptr, size_t size);
hipError_t hipMallocManaged(void** ptr, size_t size, unsigned int flags = 0);
hipError_t hipFree(void* ptr);
hipError_t hipHostMalloc(void** ptr, size_t size, unsigned int flags = 0);
template <class T> hipError_t hipHostMalloc(T** ptr, size_t size, unsigned int flags = 0);
hipError_t hipHostFree(void* ptr);
hipError_t hipMemcpy(void* dst, const void* src, size_t size, hipMemcpyKind kind);
hipError_t hipMemcpyAsync(void* dst, const void* src, size_t size, hipMemcpyKind kind, hipStream_t stream = 0);
hipError_t hipMemset(void* dst, int value, size_t size);
hipError_t hipDeviceSynchronize();
hipError_t hipGetLastError();
hipError_t hipPeekAtLastError();
const char* hipGetErrorString(hipError_t);
hipError_t hipGetDevice(int*);
hipError_t hipSetDevice(int);
hipError_t hipGetDeviceProperties(hipDeviceProp_t*, int);
hipError_t hipDeviceGetAttribute(int* value, hipDeviceAttribute_t attr, int device);
hipError_t hipStreamCreate(hipStream_t*);
hipError_t hipStreamDestroy(hipStream_t);
hipError_t hipStreamSynchronize(hipStream_t);
hipError_t hipEventCreate(hipEvent_t*);
hipError_t hipEventRecord(hipEvent_t, hipStream_t = 0);
hipError_t hipEventSynchronize(hipEvent_t);
hipError_t hipEventElapsedTime(float*, hipEvent_t, hipEvent_t);
hipError_t hipEventDestroy(hipEvent_t);
hipError_t hipFuncSetAttribute(const void*, int, int);
template <class F> hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessor(int*, F, int, size_t);
template <class F> hipError_t hipOccupancyMaxPotentialBlockSize(int*, int*, F, size_t = 0, int = 0);
template <class T> hipError_t hipMemcpyToSymbol(const T& symbol, const void* src, size_t size, size_t offset = 0,
                                                hipMemcpyKind kind = hipMemcpyHostToDevice);
// The CUDA spellings of the runtime's types, for sources that are hipified only at build time (PyTorch
// extensions: torch's hipify rewrites them while building for ROCm). An unknown `cudaStream_t` in a host
// template's parameters makes clang drop the template with every explicit instantiation of it, and with them
// the kernel instantiations they launch. Projects that #define these names to the HIP ones still work.
typedef hipStream_t cudaStream_t;
typedef hipEvent_t cudaEvent_t;
typedef hipError_t cudaError_t;
constexpr hipError_t cudaSuccess = hipSuccess;
hipError_t cudaGetLastError();
const char* cudaGetErrorString(hipError_t);
// Keeps `<<<grid, block, shmem, stream>>>` launches in the AST.
extern "C" int __hipPushCallConfiguration(dim3 grid, dim3 block, size_t shmem = 0, hipStream_t stream = 0);
extern "C" hipError_t hipConfigureCall(dim3 grid, dim3 block, size_t shmem = 0, hipStream_t stream = 0);
#define hipLaunchKernelGGL(kernel, grid, block, shmem, stream, ...) \
  kernel<<<(grid), (block), (shmem), (stream)>>>(__VA_ARGS__)

// ---- cooperative groups (the parts hipified kernels use) ----
namespace cooperative_groups {
struct thread_group {
  __device__ void sync() const;
  __device__ unsigned int thread_rank() const;
  __device__ unsigned int size() const;
  __device__ unsigned int num_threads() const;
};
struct thread_block : thread_group {
  __device__ dim3 group_index() const;
  __device__ dim3 thread_index() const;
};
struct grid_group : thread_group {};
template <unsigned int Size>
struct thread_block_tile : thread_group {
  template <class T> __device__ T shfl(T var, int src) const;
  template <class T> __device__ T shfl_down(T var, unsigned int delta) const;
  template <class T> __device__ T shfl_up(T var, unsigned int delta) const;
  template <class T> __device__ T shfl_xor(T var, unsigned int mask) const;
  __device__ unsigned long long ballot(int pred) const;
  __device__ int any(int pred) const;
  __device__ int all(int pred) const;
  __device__ unsigned int meta_group_rank() const;
  __device__ unsigned int meta_group_size() const;
};
struct coalesced_group : thread_group {
  template <class T> __device__ T shfl(T var, int src) const;
  template <class T> __device__ T shfl_down(T var, unsigned int delta) const;
  __device__ unsigned long long ballot(int pred) const;
};
__device__ thread_block this_thread_block();
__device__ grid_group this_grid();
__device__ coalesced_group coalesced_threads();
template <unsigned int Size, class Parent> __device__ thread_block_tile<Size> tiled_partition(const Parent&);
__device__ thread_group tiled_partition(const thread_group&, unsigned int size);
template <class Group, class T, class Op> __device__ T reduce(const Group&, T value, Op op);
template <class T> struct plus { __device__ T operator()(T a, T b) const; };
template <class T> struct greater { __device__ T operator()(T a, T b) const; };
template <class T> struct less { __device__ T operator()(T a, T b) const; };
}  // namespace cooperative_groups

#endif  // PORTER_HIP_STUB_H
