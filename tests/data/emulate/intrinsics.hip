// Exercises the rest of the cross-lane and bit intrinsics, for exact checks against numpy.
#include <hip/hip_runtime.h>

__global__ void lane_ops(const int* keys, unsigned long long* ballots, unsigned long long* matches, int* anyall,
                         int* bits, float* fmath) {
    int t = threadIdx.x;
    int lane = __lane_id();
    unsigned long long b = __ballot(keys[t] & 1);
    unsigned long long m = __match_any(keys[t]);
    int a = __any(keys[t] == 7);
    int l = __all(keys[t] >= 0);
    unsigned long long act = __activemask();
    __syncwarp();
    ballots[t] = b;
    matches[t] = m;
    anyall[3 * t] = a;
    anyall[3 * t + 1] = l;
    anyall[3 * t + 2] = __popcll(act);
    bits[4 * t] = __popc(unsigned(keys[t]));
    bits[4 * t + 1] = __ffs(keys[t]);
    bits[4 * t + 2] = __clz(keys[t]);
    bits[4 * t + 3] = int(__brev(unsigned(keys[t])));
    fmath[t] = __expf(float(lane) / 64.0f) + rsqrtf(float(t + 1)) + fmaxf(tanhf(float(t) - 3.0f), 0.0f) +
               __fdividef(1.0f, float(t + 1));
}

__global__ void atomics(int* imax, unsigned* umin, float* fadd, int* cas, int* exch) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    atomicMax(imax, t);
    atomicMin(umin, unsigned(1000 - t));
    atomicAdd(fadd, 0.5f);
    atomicCAS(cas, 0, t + 1);
    atomicExch(exch, 42);
}
