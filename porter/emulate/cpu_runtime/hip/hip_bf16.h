// porter emulate: bfloat16 on the CPU (16-bit storage, round-to-nearest-even from float; arithmetic through float).
#pragma once
#include "hip_runtime.h"
#ifndef PORTER_HIP_BF16_H
#define PORTER_HIP_BF16_H
struct __attribute__((aligned(2))) __hip_bfloat16 {
    unsigned short x;
    __hip_bfloat16() = default;
    __hip_bfloat16(float f) : x(round(f)) {}
    __hip_bfloat16(double f) : x(round(float(f))) {}
    __hip_bfloat16(int i) : x(round(float(i))) {}
    operator float() const { return ::porter::from_bits<float>(uint32_t(x) << 16); }
    static unsigned short round(float f) {
        uint32_t b = uint32_t(::porter::to_bits(f));
        if ((b & 0x7f800000u) == 0x7f800000u && (b & 0x007fffffu)) return (unsigned short)((b >> 16) | 0x40);  // NaN
        return (unsigned short)((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
    }
};
struct __attribute__((aligned(4))) __hip_bfloat162 { __hip_bfloat16 x, y; };
typedef __hip_bfloat16 hip_bfloat16;
inline __hip_bfloat16 __float2bfloat16(float f) { return __hip_bfloat16(f); }
inline __hip_bfloat16 __float2bfloat16_rn(float f) { return __hip_bfloat16(f); }
inline float __bfloat162float(__hip_bfloat16 h) { return float(h); }
inline __hip_bfloat162 __floats2bfloat162_rn(float a, float b) { return __hip_bfloat162{__hip_bfloat16(a), __hip_bfloat16(b)}; }
inline __hip_bfloat162 __float2bfloat162_rn(float a) { return __hip_bfloat162{__hip_bfloat16(a), __hip_bfloat16(a)}; }
inline float2 __bfloat1622float2(__hip_bfloat162 h) { return float2{float(h.x), float(h.y)}; }
inline __hip_bfloat16 __hmax(__hip_bfloat16 a, __hip_bfloat16 b) { return float(a) < float(b) ? b : a; }
inline __hip_bfloat16 __hmin(__hip_bfloat16 a, __hip_bfloat16 b) { return float(b) < float(a) ? b : a; }
#endif
