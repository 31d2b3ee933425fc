// porter emulate: a HIP-on-CPU runtime header. Lets a hipified .hip file compile with the host g++ (C++17);
// kernels then run on the CPU with true 64-lane (or 32-lane, chosen at run time) wavefronts.
// Part of porter (Apache-2.0); written for emulation, not for speed or completeness.
#pragma once
#ifndef PORTER_HIP_RUNTIME_H
#define PORTER_HIP_RUNTIME_H

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <tuple>
#include <type_traits>
#include <utility>

#include "../porter_rt.h"

// ---- qualifiers -------------------------------------------------------------------------------------------
#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
// __shared__ is per-block storage: a block's lanes all run on one worker OS thread and a worker runs one block at
// a time, so thread_local storage is exactly "one copy per resident block" (block scope thread_local is static).
#define __shared__ thread_local
#define __forceinline__ inline __attribute__((always_inline))
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
#define __builtin_assume(x) ((void)0)
#define HIP_KERNEL_NAME(...) __VA_ARGS__
#define HIP_DYNAMIC_SHARED(type, var) type* const var = reinterpret_cast<type*>(::porter::dyn_shared())
#define HIP_DYNAMIC_SHARED_ATTRIBUTE
#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__ 1
#endif
#define __HIP_PLATFORM_HCC__ 1
#define __HIPCC__ 1
#define PORTER_EMULATE 1

// ---- vector types ----------------------------------------------------------------------------------------
using uint3 = ::porter::uint3_;
#define PORTER_VEC2(T, N, A) struct __attribute__((aligned(A))) N##2 { T x, y; }; \
    inline N##2 make_##N##2(T x, T y) { return N##2{x, y}; }
#define PORTER_VEC3(T, N) struct N##3 { T x, y, z; }; \
    inline N##3 make_##N##3(T x, T y, T z) { return N##3{x, y, z}; }
#define PORTER_VEC4(T, N, A) struct __attribute__((aligned(A))) N##4 { T x, y, z, w; }; \
    inline N##4 make_##N##4(T x, T y, T z, T w) { return N##4{x, y, z, w}; }
#define PORTER_VEC1(T, N) struct N##1 { T x; }; inline N##1 make_##N##1(T x) { return N##1{x}; }
PORTER_VEC1(float, float) PORTER_VEC2(float, float, 8) PORTER_VEC3(float, float) PORTER_VEC4(float, float, 16)
PORTER_VEC1(double, double) PORTER_VEC2(double, double, 16) PORTER_VEC3(double, double) PORTER_VEC4(double, double, 16)
PORTER_VEC1(int, int) PORTER_VEC2(int, int, 8) PORTER_VEC3(int, int) PORTER_VEC4(int, int, 16)
PORTER_VEC1(unsigned int, uint) PORTER_VEC2(unsigned int, uint, 8) PORTER_VEC4(unsigned int, uint, 16)
PORTER_VEC2(short, short, 4) PORTER_VEC4(short, short, 8)
PORTER_VEC2(unsigned short, ushort, 4) PORTER_VEC4(unsigned short, ushort, 8)
PORTER_VEC2(signed char, char, 2) PORTER_VEC4(signed char, char, 4)
PORTER_VEC2(unsigned char, uchar, 2) PORTER_VEC4(unsigned char, uchar, 4)
PORTER_VEC2(long long, longlong, 16) PORTER_VEC2(unsigned long long, ulonglong, 16)
inline uint3 make_uint3(unsigned x, unsigned y, unsigned z) { return uint3{x, y, z}; }

struct dim3 {
    unsigned x, y, z;
    constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    constexpr operator uint3() const { return uint3{x, y, z}; }
};

// ---- built-in variables ----------------------------------------------------------------------------------
#define threadIdx (::porter::cur_lane->tid)
#define blockIdx (::porter::cur_block->block_idx)
#define blockDim (::porter::cur_block->block_dim)
#define gridDim (::porter::cur_block->grid_dim)
// Chosen at run time like ROCm 7's warpSize: not a constant expression. A variable, not a macro, so that
// hipDeviceProp_t::warpSize still names the member.
static const int& warpSize = ::porter::g_wave_size;
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

inline unsigned __lane_id() { return ::porter::cur_lane->lane; }
inline unsigned __porter_wave_mask() { return 0; }

// ---- barriers --------------------------------------------------------------------------------------------
inline void __syncthreads(unsigned line = __builtin_LINE(), const char* file = __builtin_FILE()) {
    ::porter::block_barrier(0, 0, line, file);
}
inline int __syncthreads_count(int p, unsigned line = __builtin_LINE(), const char* file = __builtin_FILE()) {
    return ::porter::block_barrier(1, p != 0, line, file);
}
inline int __syncthreads_and(int p, unsigned line = __builtin_LINE(), const char* file = __builtin_FILE()) {
    return ::porter::block_barrier(2, p != 0, line, file);
}
inline int __syncthreads_or(int p, unsigned line = __builtin_LINE(), const char* file = __builtin_FILE()) {
    return ::porter::block_barrier(3, p != 0, line, file);
}
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

// ---- cross-lane operations: every one is a wavefront-synchronous exchange --------------------------------
namespace porter {
template <class T> inline uint64_t to_bits(T v) {
    static_assert(sizeof(T) <= 8 && std::is_trivially_copyable<T>::value, "cross-lane ops move at most 8 bytes");
    uint64_t b = 0;
    std::memcpy(&b, &v, sizeof(T));
    return b;
}
template <class T> inline T from_bits(uint64_t b) {
    T v;
    std::memcpy(&v, &b, sizeof(T));
    return v;
}
template <class T> inline T xchg(Op op, T v, int arg, int width, uint64_t mask, unsigned line) {
    return from_bits<T>(wave_op(op, to_bits(v), int(sizeof(T)), arg, width, mask, line));
}
constexpr uint64_t kNoMask = ~0ull;
}  // namespace porter

template <class T> inline T __shfl(T v, int src, int width = warpSize, unsigned line = __builtin_LINE()) {
    return ::porter::xchg(::porter::Op::Shfl, v, src, width, ::porter::kNoMask, line);
}
template <class T> inline T __shfl_up(T v, unsigned d, int width = warpSize, unsigned line = __builtin_LINE()) {
    return ::porter::xchg(::porter::Op::ShflUp, v, int(d), width, ::porter::kNoMask, line);
}
template <class T> inline T __shfl_down(T v, unsigned d, int width = warpSize, unsigned line = __builtin_LINE()) {
    return ::porter::xchg(::porter::Op::ShflDown, v, int(d), width, ::porter::kNoMask, line);
}
template <class T> inline T __shfl_xor(T v, int m, int width = warpSize, unsigned line = __builtin_LINE()) {
    return ::porter::xchg(::porter::Op::ShflXor, v, m, width, ::porter::kNoMask, line);
}
template <class T>
inline T __shfl_sync(unsigned long long mask, T v, int src, int width = warpSize, unsigned line = __builtin_LINE()) {
    return ::porter::xchg(::porter::Op::Shfl, v, src, width, mask, line);
}
template <class T> inline T __shfl_up_sync(unsigned long long mask, T v, unsigned d, int width = warpSize,
                                           unsigned line = __builtin_LINE()) {
    return ::porter::xchg(::porter::Op::ShflUp, v, int(d), width, mask, line);
}
template <class T> inline T __shfl_down_sync(unsigned long long mask, T v, unsigned d, int width = warpSize,
                                             unsigned line = __builtin_LINE()) {
    return ::porter::xchg(::porter::Op::ShflDown, v, int(d), width, mask, line);
}
template <class T> inline T __shfl_xor_sync(unsigned long long mask, T v, int m, int width = warpSize,
                                            unsigned line = __builtin_LINE()) {
    return ::porter::xchg(::porter::Op::ShflXor, v, m, width, mask, line);
}
// HIP: 64-bit masks whatever the wave size (docs/hardware.md "Cross-lane operations on a 64-lane wavefront").
inline unsigned long long __ballot(int p, unsigned line = __builtin_LINE()) {
    return ::porter::wave_op(::porter::Op::Ballot, p != 0, 4, 0, 0, ::porter::kNoMask, line);
}
inline unsigned long long __ballot_sync(unsigned long long mask, int p, unsigned line = __builtin_LINE()) {
    return ::porter::wave_op(::porter::Op::Ballot, p != 0, 4, 0, 0, mask, line);
}
inline int __any(int p, unsigned line = __builtin_LINE()) {
    return int(::porter::wave_op(::porter::Op::Any, p != 0, 4, 0, 0, ::porter::kNoMask, line));
}
inline int __all(int p, unsigned line = __builtin_LINE()) {
    return int(::porter::wave_op(::porter::Op::All, p != 0, 4, 0, 0, ::porter::kNoMask, line));
}
inline int __any_sync(unsigned long long mask, int p, unsigned line = __builtin_LINE()) {
    return int(::porter::wave_op(::porter::Op::Any, p != 0, 4, 0, 0, mask, line));
}
inline int __all_sync(unsigned long long mask, int p, unsigned line = __builtin_LINE()) {
    return int(::porter::wave_op(::porter::Op::All, p != 0, 4, 0, 0, mask, line));
}
inline unsigned long long __activemask(unsigned line = __builtin_LINE()) {
    return ::porter::wave_op(::porter::Op::ActiveMask, 0, 4, 0, 0, ::porter::kNoMask, line);
}
inline void __syncwarp(unsigned long long mask = ::porter::kNoMask, unsigned line = __builtin_LINE()) {
    ::porter::wave_op(::porter::Op::SyncWarp, 0, 4, 0, 0, mask, line);
}
template <class T> inline unsigned long long __match_any(T v, unsigned line = __builtin_LINE()) {
    return ::porter::wave_op(::porter::Op::MatchAny, ::porter::to_bits(v), int(sizeof(T)), 0, 0, ::porter::kNoMask,
                             line);
}
template <class T>
inline unsigned long long __match_any_sync(unsigned long long mask, T v, unsigned line = __builtin_LINE()) {
    return ::porter::wave_op(::porter::Op::MatchAny, ::porter::to_bits(v), int(sizeof(T)), 0, 0, mask, line);
}
template <class T> inline unsigned long long __match_all(T v, int* pred, unsigned line = __builtin_LINE()) {
    unsigned long long m =
        ::porter::wave_op(::porter::Op::MatchAll, ::porter::to_bits(v), int(sizeof(T)), 0, 0, ::porter::kNoMask, line);
    *pred = m != 0;
    return m;
}
template <class T> inline unsigned long long __match_all_sync(unsigned long long mask, T v, int* pred,
                                                              unsigned line = __builtin_LINE()) {
    unsigned long long m =
        ::porter::wave_op(::porter::Op::MatchAll, ::porter::to_bits(v), int(sizeof(T)), 0, 0, mask, line);
    *pred = m != 0;
    return m;
}
#define PORTER_REDUCE(NAME, OP)                                                                                  \
    inline unsigned NAME(unsigned long long mask, unsigned v, unsigned line = __builtin_LINE()) {                \
        return unsigned(::porter::wave_op(::porter::Op::OP, v, 4, 0, 0, mask, line));                          \
    }                                                                                                            \
    inline int NAME(unsigned long long mask, int v, unsigned line = __builtin_LINE()) {                          \
        return int(::porter::wave_op(::porter::Op::OP, uint64_t(int64_t(v)), -4, 0, 0, mask, line));           \
    }
PORTER_REDUCE(__reduce_add_sync, ReduceAdd)
PORTER_REDUCE(__reduce_min_sync, ReduceMin)
PORTER_REDUCE(__reduce_max_sync, ReduceMax)
PORTER_REDUCE(__reduce_and_sync, ReduceAnd)
PORTER_REDUCE(__reduce_or_sync, ReduceOr)
PORTER_REDUCE(__reduce_xor_sync, ReduceXor)
#undef PORTER_REDUCE

inline unsigned long long __lanemask_lt() { return (1ull << __lane_id()) - 1; }
inline unsigned long long __lanemask_le() { return (2ull << __lane_id()) - 1; }
inline unsigned long long __lanemask_gt() { return ~__lanemask_le(); }
inline unsigned long long __lanemask_ge() { return ~__lanemask_lt(); }
inline unsigned long long __lanemask_eq() { return 1ull << __lane_id(); }

// ---- bit operations (32-bit forms see only 32 bits, exactly as on the GPU) -------------------------------
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffs(unsigned x) { return __builtin_ffs(int(x)); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline int __ffsll(unsigned long long x) { return __builtin_ffsll((long long)x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(unsigned(x)); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
inline unsigned __brev(unsigned x) {
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
    return __builtin_bswap32(x);
}
inline unsigned long long __brevll(unsigned long long x) {
    return (static_cast<unsigned long long>(__brev(unsigned(x))) << 32) | __brev(unsigned(x >> 32));
}
inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
    uint64_t v = (uint64_t(y) << 32) | x;
    unsigned r = 0;
    for (int i = 0; i < 4; ++i) r |= unsigned((v >> (8 * ((s >> (4 * i)) & 7))) & 0xff) << (8 * i);
    return r;
}
inline int __mul24(int a, int b) { return (a << 8 >> 8) * (b << 8 >> 8); }
inline unsigned __umul24(unsigned a, unsigned b) { return (a & 0xffffff) * (b & 0xffffff); }
inline int __mulhi(int a, int b) { return int((int64_t(a) * b) >> 32); }
inline unsigned __umulhi(unsigned a, unsigned b) { return unsigned((uint64_t(a) * b) >> 32); }
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
    return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}

// ---- atomics (real atomics: blocks run on several worker threads) ----------------------------------------
namespace porter {
template <class T, class F> inline T atomic_update(T* p, F f) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "atomics on 4- or 8-byte types");
    using B = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
    B* bp = reinterpret_cast<B*>(p);
    B old = __atomic_load_n(bp, __ATOMIC_RELAXED);
    for (;;) {
        T nv = f(from_bits<T>(old));
        B nb = B(to_bits(nv));
        if (__atomic_compare_exchange_n(bp, &old, nb, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) return from_bits<T>(old);
    }
}
}  // namespace porter
#define PORTER_ATOMIC_ALL(T)                                                                                     \
    inline T atomicAdd(T* p, T v) { return ::porter::atomic_update(p, [v](T o) { return static_cast<T>(o + v); }); }         \
    inline T atomicSub(T* p, T v) { return ::porter::atomic_update(p, [v](T o) { return static_cast<T>(o - v); }); }         \
    inline T atomicMax(T* p, T v) { return ::porter::atomic_update(p, [v](T o) { return o < v ? v : o; }); }    \
    inline T atomicMin(T* p, T v) { return ::porter::atomic_update(p, [v](T o) { return v < o ? v : o; }); }    \
    inline T atomicExch(T* p, T v) { return ::porter::atomic_update(p, [v](T) { return v; }); }                 \
    inline T atomicAdd_system(T* p, T v) { return atomicAdd(p, v); }                                              \
    inline T unsafeAtomicAdd(T* p, T v) { return atomicAdd(p, v); }
PORTER_ATOMIC_ALL(int)
PORTER_ATOMIC_ALL(unsigned)
PORTER_ATOMIC_ALL(unsigned long long)
PORTER_ATOMIC_ALL(long long)
PORTER_ATOMIC_ALL(float)
PORTER_ATOMIC_ALL(double)
#undef PORTER_ATOMIC_ALL
#define PORTER_ATOMIC_INT(T)                                                                                     \
    inline T atomicCAS(T* p, T cmp, T v) {                                                                       \
        __atomic_compare_exchange_n(p, &cmp, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);                      \
        return cmp;                                                                                              \
    }                                                                                                            \
    inline T atomicAnd(T* p, T v) { return __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST); }                        \
    inline T atomicOr(T* p, T v) { return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); }                          \
    inline T atomicXor(T* p, T v) { return __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST); }
PORTER_ATOMIC_INT(int)
PORTER_ATOMIC_INT(unsigned)
PORTER_ATOMIC_INT(unsigned long long)
#undef PORTER_ATOMIC_INT
inline unsigned atomicInc(unsigned* p, unsigned lim) {
    return ::porter::atomic_update(p, [lim](unsigned o) { return o >= lim ? 0u : o + 1; });
}
inline unsigned atomicDec(unsigned* p, unsigned lim) {
    return ::porter::atomic_update(p, [lim](unsigned o) { return (o == 0 || o > lim) ? lim : o - 1; });
}

// ---- device math ------------------------------------------------------------------------------------------
inline float __expf(float x) { return expf(x); }
inline float __exp10f(float x) { return exp10f(x); }
inline float __logf(float x) { return logf(x); }
inline float __log2f(float x) { return log2f(x); }
inline float __log10f(float x) { return log10f(x); }
inline float __sinf(float x) { return sinf(x); }
inline float __cosf(float x) { return cosf(x); }
inline float __tanf(float x) { return tanf(x); }
inline void __sincosf(float x, float* s, float* c) { sincosf(x, s, c); }
inline float __powf(float x, float y) { return powf(x, y); }
inline float __fdividef(float x, float y) { return x / y; }
inline float __frcp_rn(float x) { return 1.0f / x; }
inline float __fsqrt_rn(float x) { return sqrtf(x); }
inline float __frsqrt_rn(float x) { return 1.0f / sqrtf(x); }
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / sqrt(x); }
inline float rcbrtf(float x) { return 1.0f / cbrtf(x); }
inline float __saturatef(float x) { return x < 0.f ? 0.f : (x > 1.f ? 1.f : x); }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline double __fma_rn(double a, double b, double c) { return fma(a, b, c); }
inline float __int_as_float(int x) { return ::porter::from_bits<float>(uint32_t(x)); }
inline float __uint_as_float(unsigned x) { return ::porter::from_bits<float>(x); }
inline int __float_as_int(float x) { return int(uint32_t(::porter::to_bits(x))); }
inline unsigned __float_as_uint(float x) { return unsigned(::porter::to_bits(x)); }
inline double __longlong_as_double(long long x) { return ::porter::from_bits<double>(uint64_t(x)); }
inline long long __double_as_longlong(double x) { return (long long)::porter::to_bits(x); }
inline int __float2int_rn(float x) { return int(nearbyintf(x)); }
inline int __float2int_rz(float x) { return int(x); }
inline int __float2int_rd(float x) { return int(floorf(x)); }
inline int __float2int_ru(float x) { return int(ceilf(x)); }
inline unsigned __float2uint_rn(float x) { return unsigned(nearbyintf(x)); }
inline float __int2float_rn(int x) { return float(x); }
inline float __uint2float_rn(unsigned x) { return float(x); }
inline int __double2int_rn(double x) { return int(nearbyint(x)); }
inline float __double2float_rn(double x) { return float(x); }
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a < b ? b : a; }
inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned max(unsigned a, unsigned b) { return a < b ? b : a; }
inline unsigned min(int a, unsigned b) { return min(unsigned(a), b); }
inline unsigned min(unsigned a, int b) { return min(a, unsigned(b)); }
inline unsigned max(int a, unsigned b) { return max(unsigned(a), b); }
inline unsigned max(unsigned a, int b) { return max(a, unsigned(b)); }
inline long long min(long long a, long long b) { return a < b ? a : b; }
inline long long max(long long a, long long b) { return a < b ? b : a; }
inline unsigned long long min(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline unsigned long long max(unsigned long long a, unsigned long long b) { return a < b ? b : a; }
inline float min(float a, float b) { return fminf(a, b); }
inline float max(float a, float b) { return fmaxf(a, b); }
inline double min(double a, double b) { return fmin(a, b); }
inline double max(double a, double b) { return fmax(a, b); }
inline unsigned umin(unsigned a, unsigned b) { return min(a, b); }
inline unsigned umax(unsigned a, unsigned b) { return max(a, b); }
template <class T> inline T __ldg(const T* p) { return *p; }
inline long long clock64() { return (long long)__builtin_ia32_rdtsc(); }
inline long long wall_clock64() { return clock64(); }

#include "hip_fp16.h"
#include "amdgcn_builtins.h"
#include "../porter_host.h"

#endif  // PORTER_HIP_RUNTIME_H
