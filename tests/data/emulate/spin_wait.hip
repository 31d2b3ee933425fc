// Lane 0 waits for a flag that lane 1 sets later: GPUs may make progress here, the emulator cannot
// (a lane runs until it blocks), so the run must stop at the timeout and say which thread was spinning.
#include <hip/hip_runtime.h>

__global__ void spin(volatile int* flag) {
    if (threadIdx.x == 0) {
        while (flag[0] == 0) {
        }
    } else if (threadIdx.x == 1) {
        flag[0] = 1;
    }
}
