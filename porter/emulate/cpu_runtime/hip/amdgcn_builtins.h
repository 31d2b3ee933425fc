// porter emulate: a few AMDGPU builtins that hand-written and generated HIP (e.g. TileLang) call directly,
// expressed with the emulated wavefront operations. MFMA/WMMA matrix builtins are not emulated.
#pragma once
#include <cstdint>
// ds_bpermute: lane (addr / 4) mod wave size; 0 from an inactive lane (the same exchange as __shfl).
inline int __builtin_amdgcn_ds_bpermute(int addr, int v, unsigned line = __builtin_LINE()) {
    return __shfl(v, addr >> 2, warpSize, line);
}
inline unsigned __builtin_amdgcn_mbcnt_lo(unsigned mask, unsigned acc) {
    unsigned lt = unsigned(__lanemask_lt() & 0xffffffffull);
    return acc + unsigned(__builtin_popcount(mask & lt));
}
inline unsigned __builtin_amdgcn_mbcnt_hi(unsigned mask, unsigned acc) {
    unsigned lt = unsigned(__lanemask_lt() >> 32);
    return acc + unsigned(__builtin_popcount(mask & lt));
}
inline int __builtin_amdgcn_readfirstlane(int v, unsigned line = __builtin_LINE()) {
    unsigned long long act = __activemask(line);
    return __shfl(v, __builtin_ctzll(act), warpSize, line);
}
inline int __builtin_amdgcn_readlane(int v, int lane, unsigned line = __builtin_LINE()) {
    return __shfl(v, lane, warpSize, line);
}
inline void __builtin_amdgcn_s_barrier(unsigned line = __builtin_LINE(), const char* file = __builtin_FILE()) {
    __syncthreads(line, file);
}
inline void __builtin_amdgcn_wave_barrier(unsigned line = __builtin_LINE()) { __syncwarp(~0ull, line); }
inline void __builtin_amdgcn_s_waitcnt(int) {}
inline void __builtin_amdgcn_sched_barrier(int) {}
inline void __builtin_amdgcn_s_sleep(int) {}
inline unsigned __builtin_amdgcn_workitem_id_x() { return threadIdx.x; }
inline unsigned __builtin_amdgcn_workitem_id_y() { return threadIdx.y; }
inline unsigned __builtin_amdgcn_workitem_id_z() { return threadIdx.z; }
inline unsigned __builtin_amdgcn_workgroup_id_x() { return blockIdx.x; }
inline unsigned __builtin_amdgcn_workgroup_id_y() { return blockIdx.y; }
inline unsigned __builtin_amdgcn_workgroup_id_z() { return blockIdx.z; }
inline int __builtin_amdgcn_wavefrontsize() { return warpSize; }
inline float __builtin_amdgcn_rcpf(float x) { return 1.0f / x; }
inline float __builtin_amdgcn_rsqf(float x) { return 1.0f / sqrtf(x); }
inline float __builtin_amdgcn_sqrtf(float x) { return sqrtf(x); }
inline float __builtin_amdgcn_exp2f(float x) { return exp2f(x); }
inline float __builtin_amdgcn_logf(float x) { return log2f(x); }
inline float __builtin_amdgcn_fmed3f(float a, float b, float c) {
    return fmaxf(fminf(a, b), fminf(fmaxf(a, b), c));
}
