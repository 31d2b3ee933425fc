// AMDGPU builtins as hand-tuned HIP (and TileLang's HIP output) call them directly.
#include <hip/hip_runtime.h>

__global__ void builtins(const int* x, int* rotated, int* rank, int* first) {
    int t = threadIdx.x;
    int lane = __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
    rotated[t] = __builtin_amdgcn_ds_bpermute(((lane + 1) % __builtin_amdgcn_wavefrontsize()) << 2, x[t]);
    rank[t] = lane;
    if (t % 3 != 0) {
        first[t] = __builtin_amdgcn_readfirstlane(x[t]);
    } else {
        first[t] = -1;
    }
}
