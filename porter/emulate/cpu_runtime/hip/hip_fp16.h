// porter emulate: __half basics on the CPU (storage is _Float16; arithmetic goes through float).
#pragma once
#include "hip_runtime.h"
#ifndef PORTER_HIP_FP16_H
#define PORTER_HIP_FP16_H
struct __half {
    _Float16 v;
    __half() = default;
    __half(float f) : v(static_cast<_Float16>(f)) {}
    __half(double f) : v(static_cast<_Float16>(f)) {}
    __half(int i) : v(static_cast<_Float16>(i)) {}
    operator float() const { return static_cast<float>(v); }
};
struct __half2 { __half x, y; };
using half = __half;
using half2 = __half2;
inline __half __float2half(float f) { return __half(f); }
inline __half __float2half_rn(float f) { return __half(f); }
inline float __half2float(__half h) { return float(h); }
inline __half __hadd(__half a, __half b) { return __half(float(a) + float(b)); }
inline __half __hsub(__half a, __half b) { return __half(float(a) - float(b)); }
inline __half __hmul(__half a, __half b) { return __half(float(a) * float(b)); }
inline __half __hdiv(__half a, __half b) { return __half(float(a) / float(b)); }
inline __half __hfma(__half a, __half b, __half c) { return __half(float(a) * float(b) + float(c)); }
inline __half __hneg(__half a) { return __half(-float(a)); }
inline __half __hmax(__half a, __half b) { return float(a) < float(b) ? b : a; }
inline __half __hmin(__half a, __half b) { return float(b) < float(a) ? b : a; }
inline bool __hgt(__half a, __half b) { return float(a) > float(b); }
inline bool __hlt(__half a, __half b) { return float(a) < float(b); }
inline bool __heq(__half a, __half b) { return float(a) == float(b); }
inline __half2 __floats2half2_rn(float a, float b) { return __half2{__half(a), __half(b)}; }
inline __half2 __float2half2_rn(float a) { return __half2{__half(a), __half(a)}; }
inline __half2 __halves2half2(__half a, __half b) { return __half2{a, b}; }
inline float __low2float(__half2 h) { return float(h.x); }
inline float __high2float(__half2 h) { return float(h.y); }
inline __half __low2half(__half2 h) { return h.x; }
inline __half __high2half(__half2 h) { return h.y; }
inline __half2 __hadd2(__half2 a, __half2 b) { return __half2{__hadd(a.x, b.x), __hadd(a.y, b.y)}; }
inline __half2 __hmul2(__half2 a, __half2 b) { return __half2{__hmul(a.x, b.x), __hmul(a.y, b.y)}; }
inline float2 __half22float2(__half2 h) { return float2{float(h.x), float(h.y)}; }
inline __half2 __float22half2_rn(float2 f) { return __half2{__half(f.x), __half(f.y)}; }
inline __half hexp(__half a) { return __half(expf(float(a))); }
inline __half hsqrt(__half a) { return __half(sqrtf(float(a))); }
#endif
