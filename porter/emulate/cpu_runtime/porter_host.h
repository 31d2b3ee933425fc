// porter emulate: host-side HIP API on host memory, and kernel launches through the fiber scheduler.
#pragma once

enum hipError_t { hipSuccess = 0, hipErrorInvalidValue = 1, hipErrorOutOfMemory = 2, hipErrorNotSupported = 801 };
enum hipMemcpyKind { hipMemcpyHostToHost = 0, hipMemcpyHostToDevice, hipMemcpyDeviceToHost, hipMemcpyDeviceToDevice,
                     hipMemcpyDefault };
enum hipDeviceAttribute_t { hipDeviceAttributeWarpSize = 87, hipDeviceAttributeMaxThreadsPerBlock = 56,
                            hipDeviceAttributeMultiprocessorCount = 63, hipDeviceAttributeMaxSharedMemoryPerBlock = 74 };
enum hipFuncAttribute { hipFuncAttributeMaxDynamicSharedMemorySize = 8 };
typedef struct porter_stream* hipStream_t;
typedef struct porter_event* hipEvent_t;
struct hipDeviceProp_t {
    char name[256];
    char gcnArchName[256];
    int warpSize, maxThreadsPerBlock, multiProcessorCount;
    size_t sharedMemPerBlock, totalGlobalMem;
    int major, minor;
};
#define hipStreamDefault 0
#define hipStreamNonBlocking 1

inline hipError_t hipMalloc(void** p, size_t n) { *p = ::porter::dev_malloc(n, "hipMalloc"); return hipSuccess; }
template <class T> inline hipError_t hipMalloc(T** p, size_t n) { return hipMalloc(reinterpret_cast<void**>(p), n); }
inline hipError_t hipMallocManaged(void** p, size_t n, unsigned = 0) { return hipMalloc(p, n); }
template <class T> inline hipError_t hipMallocManaged(T** p, size_t n, unsigned f = 0) {
    return hipMallocManaged(reinterpret_cast<void**>(p), n, f);
}
inline hipError_t hipHostMalloc(void** p, size_t n, unsigned = 0) { *p = std::malloc(n); return hipSuccess; }
template <class T> inline hipError_t hipHostMalloc(T** p, size_t n, unsigned f = 0) {
    return hipHostMalloc(reinterpret_cast<void**>(p), n, f);
}
inline hipError_t hipHostFree(void* p) { std::free(p); return hipSuccess; }
inline hipError_t hipFree(void* p) { ::porter::dev_free(p); return hipSuccess; }
inline hipError_t hipMemcpy(void* d, const void* s, size_t n, hipMemcpyKind) { std::memmove(d, s, n); return hipSuccess; }
inline hipError_t hipMemcpyAsync(void* d, const void* s, size_t n, hipMemcpyKind k, hipStream_t = nullptr) {
    return hipMemcpy(d, s, n, k);
}
inline hipError_t hipMemset(void* d, int v, size_t n) { std::memset(d, v, n); return hipSuccess; }
inline hipError_t hipMemsetAsync(void* d, int v, size_t n, hipStream_t = nullptr) { return hipMemset(d, v, n); }
template <class T> inline hipError_t hipMemcpyToSymbol(T& sym, const void* s, size_t n, size_t off = 0,
                                                       hipMemcpyKind = hipMemcpyHostToDevice) {
    std::memcpy(reinterpret_cast<char*>(&sym) + off, s, n);
    return hipSuccess;
}
template <class T> inline hipError_t hipMemcpyFromSymbol(void* d, const T& sym, size_t n, size_t off = 0,
                                                         hipMemcpyKind = hipMemcpyDeviceToHost) {
    std::memcpy(d, reinterpret_cast<const char*>(&sym) + off, n);
    return hipSuccess;
}
inline hipError_t hipDeviceSynchronize() { return hipSuccess; }
inline hipError_t hipStreamSynchronize(hipStream_t) { return hipSuccess; }
inline hipError_t hipStreamCreate(hipStream_t* s) { *s = nullptr; return hipSuccess; }
inline hipError_t hipStreamCreateWithFlags(hipStream_t* s, unsigned) { *s = nullptr; return hipSuccess; }
inline hipError_t hipStreamDestroy(hipStream_t) { return hipSuccess; }
inline hipError_t hipEventCreate(hipEvent_t* e) { *e = nullptr; return hipSuccess; }
inline hipError_t hipEventRecord(hipEvent_t, hipStream_t = nullptr) { return hipSuccess; }
inline hipError_t hipEventSynchronize(hipEvent_t) { return hipSuccess; }
inline hipError_t hipEventElapsedTime(float* ms, hipEvent_t, hipEvent_t) { *ms = 0.f; return hipSuccess; }
inline hipError_t hipEventDestroy(hipEvent_t) { return hipSuccess; }
inline hipError_t hipGetLastError() { return hipSuccess; }
inline hipError_t hipPeekAtLastError() { return hipSuccess; }
inline const char* hipGetErrorString(hipError_t e) { return e == hipSuccess ? "hipSuccess" : "hipError"; }
inline const char* hipGetErrorName(hipError_t e) { return hipGetErrorString(e); }
inline hipError_t hipGetDevice(int* d) { *d = 0; return hipSuccess; }
inline hipError_t hipSetDevice(int) { return hipSuccess; }
inline hipError_t hipGetDeviceCount(int* n) { *n = 1; return hipSuccess; }
inline hipError_t hipDeviceGetAttribute(int* v, hipDeviceAttribute_t a, int) {
    switch (a) {
        case hipDeviceAttributeWarpSize: *v = ::porter::g_wave_size; break;
        case hipDeviceAttributeMaxThreadsPerBlock: *v = int(::porter::g_max_threads); break;
        case hipDeviceAttributeMultiprocessorCount: *v = 304; break;
        case hipDeviceAttributeMaxSharedMemoryPerBlock: *v = int(::porter::g_max_shared); break;
        default: return hipErrorNotSupported;
    }
    return hipSuccess;
}
inline hipError_t hipGetDeviceProperties(hipDeviceProp_t* p, int) {
    std::memset(p, 0, sizeof(*p));
    std::snprintf(p->name, sizeof(p->name), "porter emulate (wave%d)", ::porter::g_wave_size);
    std::snprintf(p->gcnArchName, sizeof(p->gcnArchName), "%s", ::porter::g_wave_size == 64 ? ::porter::g_arch : "emu32");
    p->warpSize = ::porter::g_wave_size;
    p->maxThreadsPerBlock = int(::porter::g_max_threads);
    p->multiProcessorCount = 304;
    p->sharedMemPerBlock = ::porter::g_max_shared;
    p->totalGlobalMem = size_t(1) << 34;
    p->major = 9;
    p->minor = 4;
    return hipSuccess;
}
template <class F> inline hipError_t hipFuncSetAttribute(F, hipFuncAttribute, int) { return hipSuccess; }

namespace porter {
// A launch converts its arguments to the kernel's parameter types (as a GPU launch does) and every lane calls the
// kernel with its own copy of them.
template <class... P, class... A>
inline void launch_kernel(void (*k)(P...), dim3 g, dim3 b, size_t shmem, A&&... a) {
    struct Closure {
        void (*k)(P...);
        std::tuple<std::decay_t<P>...> args;
    };
    Closure c{k, std::tuple<std::decay_t<P>...>(std::forward<A>(a)...)};
    launch(+[](void* p) { auto* cl = static_cast<Closure*>(p); std::apply(cl->k, cl->args); }, &c,
           uint3_{g.x, g.y, g.z}, uint3_{b.x, b.y, b.z}, shmem);
}
template <class... P> struct Chevron {
    void (*k)(P...);
    dim3 g, b;
    size_t shmem;
    template <class... A> void operator()(A&&... a) const { launch_kernel(k, g, b, shmem, std::forward<A>(a)...); }
};
// `k<<<g, b, s, st>>>(args)` is rewritten by porter to `::porter::chevron(k, g, b, s, st)(args)`.
template <class... P>
inline Chevron<P...> chevron(void (*k)(P...), dim3 g, dim3 b, size_t shmem = 0, hipStream_t = nullptr) {
    return Chevron<P...>{k, g, b, shmem};
}
}  // namespace porter

#define hipLaunchKernelGGL(k, g, b, shmem, stream, ...) \
    ::porter::launch_kernel(k, dim3(g), dim3(b), size_t(shmem), ##__VA_ARGS__)
