// porter emulate: HIP-on-CPU runtime, internal interface shared by the headers, the runtime and the runner.
// Each GPU thread is a fiber; lanes of a wavefront are scheduled together and every cross-lane operation is a
// wavefront-synchronous exchange resolved by the per-worker scheduler (see porter_rt.cpp).
#pragma once
#include <cstddef>
#include <cstdint>

namespace porter {

struct uint3_ { unsigned x, y, z; };

enum class LaneState : int { Runnable, WaveOp, Barrier, Exited };

// Cross-lane operations; the scheduler computes the results for a whole group at once.
enum class Op : int { Shfl, ShflUp, ShflDown, ShflXor, Ballot, Any, All, ActiveMask, MatchAny, MatchAll, SyncWarp,
                      ReduceAdd, ReduceMin, ReduceMax, ReduceAnd, ReduceOr, ReduceXor };

struct Lane {
    void* sp = nullptr;          // saved stack pointer while switched out
    char* stack_lo = nullptr;    // lowest usable byte (a guard page sits below it)
    uint3_ tid{};                // threadIdx
    unsigned linear = 0, wave = 0, lane = 0;
    LaneState st = LaneState::Runnable;
    // exchange slot: written by the lane before it blocks, read/written by the scheduler
    Op op = Op::SyncWarp;
    unsigned line = 0;           // call-site line (__builtin_LINE), groups lanes that reached the same op
    int width = 64, arg = 0;
    uint64_t mask = ~0ull, val = 0, result = 0;
    int val_bytes = 4;
    // barrier slot
    unsigned bar_line = 0;
    int bar_kind = 0, bar_pred = 0;
    const char* bar_file = nullptr;
};

struct LaunchState;

struct BlockCtx {
    uint3_ block_idx{};
    uint3_ block_dim{};
    uint3_ grid_dim{};
    char* dyn_shared = nullptr;
};

// Thread-local "current" pointers: initial-exec TLS keeps threadIdx & co. a single load (the library is small).
extern thread_local Lane* cur_lane __attribute__((tls_model("initial-exec")));
extern thread_local BlockCtx* cur_block __attribute__((tls_model("initial-exec")));

extern int g_wave_size;          // chosen at run time (64 or 32); warpSize reads it
// the emulated target's launch limits and name, from its porter/targets file (porter_rt_limits)
extern unsigned g_max_threads;
extern size_t g_max_shared;
extern char g_arch[32];

// Lane blocks at a cross-lane op; returns the exchanged result bits.
uint64_t wave_op(Op op, uint64_t val, int val_bytes, int arg, int width, uint64_t mask, unsigned line);
// Lane blocks at the block barrier; kind 0 plain, 1 count, 2 and, 3 or; returns the reduced predicate.
int block_barrier(int kind, int pred, unsigned line, const char* file);

char* dyn_shared();

// Kernel body as seen by the scheduler: called once per lane with the closure.
using Body = void (*)(void* closure);
void launch(Body body, void* closure, uint3_ grid, uint3_ block, size_t shmem);

// Guarded device allocations (buffer ends at a PROT_NONE guard region: overruns fault and are reported).
void* dev_malloc(size_t bytes, const char* name);
void dev_free(void* p);
void warn(const char* kind, const char* msg, unsigned line);

}  // namespace porter

extern "C" {
// configuration and allocation entry points used by the runner through dlsym
void porter_rt_configure(int wave_size, int workers, const char* diag_path, double timeout_s, size_t stack_bytes);
void* porter_rt_malloc(size_t bytes, const char* name);
void porter_rt_finish();
}
