// porter emulate: CUDA source (as written for NVIDIA, not hipified) on the HIP-on-CPU runtime. The CUDA runtime API
// maps onto porter's HIP one; code still runs with the emulator's wave size (64 as gfx942, or 32).
#pragma once
#ifndef PORTER_CUDA_RUNTIME_H
#define PORTER_CUDA_RUNTIME_H
#include "../hip/hip_runtime.h"
#include "../hip/hip_bf16.h"
// nvcc's headers reach the bfloat16 names through cuda_runtime.h / cublas_v2.h; CUDA files rely on it
typedef __hip_bfloat16 __nv_bfloat16;
typedef __hip_bfloat162 __nv_bfloat162;
struct __nv_bfloat16_raw { unsigned short x; };

typedef hipError_t cudaError_t;
typedef hipStream_t cudaStream_t;
typedef hipEvent_t cudaEvent_t;
typedef hipMemcpyKind cudaMemcpyKind;
// hipDeviceProp_t and the fields CUDA host code reads that gfx942 also has (zero where unknown)
struct cudaDeviceProp : hipDeviceProp_t {
    int l2CacheSize, maxThreadsPerMultiProcessor, regsPerBlock, clockRate, memoryClockRate, memoryBusWidth;
    size_t sharedMemPerMultiprocessor, sharedMemPerBlockOptin;
};
enum cudaDeviceAttr { cudaDevAttrWarpSize = hipDeviceAttributeWarpSize,
                      cudaDevAttrMaxThreadsPerBlock = hipDeviceAttributeMaxThreadsPerBlock,
                      cudaDevAttrMultiProcessorCount = hipDeviceAttributeMultiprocessorCount,
                      cudaDevAttrMaxSharedMemoryPerBlock = hipDeviceAttributeMaxSharedMemoryPerBlock };
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = hipFuncAttributeMaxDynamicSharedMemorySize };
enum cudaDataType_t { CUDA_R_16F = 2, CUDA_R_32F = 0, CUDA_R_64F = 1, CUDA_R_16BF = 14, CUDA_R_8I = 3, CUDA_R_32I = 10 };
typedef cudaDataType_t cudaDataType;
#define cudaSuccess hipSuccess
#define cudaErrorInvalidValue hipErrorInvalidValue
#define cudaErrorMemoryAllocation hipErrorOutOfMemory
#define cudaMemcpyHostToHost hipMemcpyHostToHost
#define cudaMemcpyHostToDevice hipMemcpyHostToDevice
#define cudaMemcpyDeviceToHost hipMemcpyDeviceToHost
#define cudaMemcpyDeviceToDevice hipMemcpyDeviceToDevice
#define cudaMemcpyDefault hipMemcpyDefault
#define cudaStreamDefault hipStreamDefault
#define cudaStreamNonBlocking hipStreamNonBlocking
#define cudaMalloc hipMalloc
#define cudaMallocManaged hipMallocManaged
#define cudaMallocHost hipHostMalloc
#define cudaFreeHost hipHostFree
#define cudaFree hipFree
#define cudaMemcpy hipMemcpy
#define cudaMemcpyAsync hipMemcpyAsync
#define cudaMemset hipMemset
#define cudaMemsetAsync hipMemsetAsync
#define cudaMemcpyToSymbol hipMemcpyToSymbol
#define cudaMemcpyFromSymbol hipMemcpyFromSymbol
#define cudaDeviceSynchronize hipDeviceSynchronize
#define cudaStreamSynchronize hipStreamSynchronize
#define cudaStreamCreate hipStreamCreate
#define cudaStreamCreateWithFlags hipStreamCreateWithFlags
#define cudaStreamDestroy hipStreamDestroy
#define cudaEventCreate hipEventCreate
#define cudaEventRecord hipEventRecord
#define cudaEventSynchronize hipEventSynchronize
#define cudaEventElapsedTime hipEventElapsedTime
#define cudaEventDestroy hipEventDestroy
#define cudaGetLastError hipGetLastError
#define cudaPeekAtLastError hipPeekAtLastError
#define cudaGetErrorString hipGetErrorString
#define cudaGetErrorName hipGetErrorName
#define cudaGetDevice hipGetDevice
#define cudaSetDevice hipSetDevice
#define cudaGetDeviceCount hipGetDeviceCount
#define cudaFuncSetAttribute hipFuncSetAttribute
using std::isfinite;   // CUDA declares the classification functions in the global namespace
using std::isinf;
using std::isnan;
// cache-hinted loads and stores: plain memory accesses on the CPU
#define PORTER_LOAD(NAME) template <class T> inline T NAME(const T* p) { return *p; }
#define PORTER_STORE(NAME) template <class T> inline void NAME(T* p, T v) { *p = v; }
PORTER_LOAD(__ldcs) PORTER_LOAD(__ldcg) PORTER_LOAD(__ldca) PORTER_LOAD(__ldlu) PORTER_LOAD(__ldcv)
PORTER_STORE(__stcs) PORTER_STORE(__stcg) PORTER_STORE(__stwb) PORTER_STORE(__stwt)
#undef PORTER_LOAD
#undef PORTER_STORE
inline cudaError_t cudaDeviceGetAttribute(int* v, cudaDeviceAttr a, int d) {
    return hipDeviceGetAttribute(v, hipDeviceAttribute_t(a), d);
}
inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int d) {
    std::memset(p, 0, sizeof(*p));
    return hipGetDeviceProperties(p, d);
}
#endif
