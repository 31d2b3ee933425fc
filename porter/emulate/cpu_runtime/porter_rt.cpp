// porter emulate: the fiber scheduler, guarded device memory and fault/deadlock/timeout reporting.
//
// Execution model: blocks are handed to worker OS threads (an atomic counter); a worker runs one block at a time,
// every GPU thread of the block as a fiber on that worker. Lanes run until they block at a cross-lane op
// (wave_op), at __syncthreads (block_barrier) or exit. The scheduler then resolves one wavefront at a time:
// a group of lanes blocked at the same call site exchanges values and continues. When every live lane of the
// block waits at __syncthreads the barrier opens; if some exited or wait at another barrier it is a deadlock.
#include "porter_rt.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cstdarg>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#if !defined(__x86_64__)
#error "porter emulate's context switch is written for x86-64"
#endif

// Hand-rolled context switch: saves callee-saved registers on the current stack, swaps stack pointers.
// ucontext's swapcontext makes a sigprocmask system call per switch, which dominates a shuffle.
extern "C" void porter_swap_ctx(void** save_sp, void* load_sp);
extern "C" void porter_fiber_start();
asm(R"(
    .text
    .globl porter_swap_ctx
    .hidden porter_swap_ctx
    .type porter_swap_ctx,@function
porter_swap_ctx:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size porter_swap_ctx, .-porter_swap_ctx

    .globl porter_fiber_start
    .hidden porter_fiber_start
    .type porter_fiber_start,@function
porter_fiber_start:
    movq %r12, %rdi
    call *%r13
    ud2
    .size porter_fiber_start, .-porter_fiber_start
)");

namespace porter {

thread_local Lane* cur_lane __attribute__((tls_model("initial-exec"))) = nullptr;
thread_local BlockCtx* cur_block __attribute__((tls_model("initial-exec"))) = nullptr;
int g_wave_size = 64;
unsigned g_max_threads = 0;
size_t g_max_shared = 0;
char g_arch[32] = "unset";

namespace {

constexpr size_t kPage = 4096;
constexpr size_t kGuardAfter = 64 * 1024;  // PROT_NONE bytes after each buffer
constexpr int kMaxWorkers = 256;
constexpr int kMaxAllocs = 16384;

int g_workers = 1;
int g_diag_fd = 2;
double g_timeout_s = 60.0;
size_t g_stack_bytes = 128 * 1024;
std::atomic<bool> g_fatal{false};

struct Worker {
    int id = 0;
    void* sched_sp = nullptr;
    std::vector<Lane> lanes;
    char* stacks = nullptr;
    size_t stacks_len = 0;
    BlockCtx block{};
    std::vector<char> dyn;
    Body body = nullptr;
    void* closure = nullptr;
    unsigned nthreads = 0;
    std::atomic<Lane*> running{nullptr};
};
thread_local Worker* tl_worker __attribute__((tls_model("initial-exec"))) = nullptr;
std::atomic<Worker*> g_slots[kMaxWorkers];

struct Alloc {
    uintptr_t map_base, map_len, user, bytes;
    char name[64];
    std::atomic<bool> freed;
};
Alloc g_allocs[kMaxAllocs];
std::atomic<int> g_nallocs{0};

struct Stats {
    std::atomic<uint64_t> lanes{0}, blocks{0}, wave_ops{0}, barriers{0};
    double seconds = 0;
} g_stats;

struct Warn {
    std::string kind, msg;
    unsigned line = 0;
    uint64_t count = 0;
};
std::mutex g_warn_mu;
std::map<std::pair<std::string, unsigned>, Warn> g_warns;

std::mutex g_wd_mu;
std::condition_variable g_wd_cv;
bool g_wd_done = false;

// ---- JSON output (the Python side reads one object per line) ----
void json_escape(std::string& o, const char* s) {
    o += '"';
    for (; s && *s; ++s) {
        unsigned char c = static_cast<unsigned char>(*s);
        if (c == '"' || c == '\\') {
            o += '\\';
            o += char(c);
        } else if (c < 0x20) {
            char b[8];
            std::snprintf(b, sizeof b, "\\u%04x", c);
            o += b;
        } else {
            o += char(c);
        }
    }
    o += '"';
}
void emit(const std::string& line) {
    std::string s = line + "\n";
    ssize_t r = ::write(g_diag_fd, s.data(), s.size());
    (void)r;
}
std::string where(const BlockCtx* b, const Lane* l) {
    char buf[256];
    std::snprintf(buf, sizeof buf, "\"block\":[%u,%u,%u],\"thread\":[%u,%u,%u],\"wave\":%u,\"lane\":%u",
                  b->block_idx.x, b->block_idx.y, b->block_idx.z, l->tid.x, l->tid.y, l->tid.z, l->wave, l->lane);
    return buf;
}
std::string who(const BlockCtx* b, const Lane* l) {
    char buf[200];
    std::snprintf(buf, sizeof buf, "block (%u,%u,%u) thread (%u,%u,%u) (wavefront %u, lane %u)", b->block_idx.x,
                  b->block_idx.y, b->block_idx.z, l->tid.x, l->tid.y, l->tid.z, l->wave, l->lane);
    return buf;
}
[[noreturn]] void fatal(const char* kind, const std::string& message, const std::string& extra) {
    if (g_fatal.exchange(true)) {
        for (;;) pause();  // another thread is already reporting and exiting
    }
    std::string o = "{\"event\":\"error\",\"kind\":";
    json_escape(o, kind);
    o += ",\"message\":";
    json_escape(o, message.c_str());
    if (!extra.empty()) o += "," + extra;
    o += "}";
    emit(o);
    _exit(3);
}

void warn_once(const char* kind, unsigned line, const std::function<std::string()>& make) {
    std::lock_guard<std::mutex> g(g_warn_mu);
    Warn& w = g_warns[{kind, line}];
    if (w.count++ == 0) {
        w.kind = kind;
        w.line = line;
        w.msg = make();
    }
}

// ---- fibers ----
extern "C" void porter_fiber_main(Lane* l) {
    Worker* w = tl_worker;
    w->body(w->closure);
    l->st = LaneState::Exited;
    porter_swap_ctx(&l->sp, w->sched_sp);
    __builtin_unreachable();
}

void init_fiber(Lane& l) {
    uintptr_t top = (reinterpret_cast<uintptr_t>(l.stack_lo) + g_stack_bytes) & ~uintptr_t(15);
    auto* sp = reinterpret_cast<uint64_t*>(top - 56);  // 6 saved registers + return address; see porter_swap_ctx
    sp[0] = 0;                                             // r15
    sp[1] = 0;                                             // r14
    sp[2] = reinterpret_cast<uint64_t>(&porter_fiber_main);  // r13: function called by porter_fiber_start
    sp[3] = reinterpret_cast<uint64_t>(&l);                // r12: its argument
    sp[4] = 0;                                             // rbx
    sp[5] = 0;                                             // rbp
    sp[6] = reinterpret_cast<uint64_t>(&porter_fiber_start);
    l.sp = sp;
}

inline void to_scheduler(Lane* l) { porter_swap_ctx(&l->sp, tl_worker->sched_sp); }

// ---- wavefront exchange ----
bool same_bits(const Lane& a, const Lane& b) {
    int n = a.val_bytes < 0 ? -a.val_bytes : a.val_bytes;
    uint64_t m = n >= 8 ? ~0ull : ((1ull << (8 * n)) - 1);
    return (a.val & m) == (b.val & m);
}

void resolve(Worker& w, unsigned lo, unsigned hi) {
    const unsigned W = unsigned(g_wave_size);
    Lane* L = &w.lanes[lo];
    const unsigned n = hi - lo;
    // Lanes blocked at different call sites are in divergent branches: the earliest site (source line) runs first,
    // with only its lanes active, as a GPU runs one side of a branch with the others masked off.
    int first = -1;
    for (unsigned i = 0; i < n; ++i) {
        if (L[i].st != LaneState::WaveOp) continue;
        if (first < 0 || L[i].line < L[first].line || (L[i].line == L[first].line && L[i].op < L[first].op))
            first = int(i);
    }
    const Op op = L[first].op;
    const unsigned line = L[first].line;
    uint64_t g = 0;
    for (unsigned i = 0; i < n; ++i)
        if (L[i].st == LaneState::WaveOp && L[i].line == line && L[i].op == op) g |= 1ull << i;
    g_stats.wave_ops.fetch_add(1, std::memory_order_relaxed);
    const uint64_t existing = n >= 64 ? ~0ull : ((1ull << n) - 1);
    const uint64_t mask = L[first].mask;
    if (mask != ~0ull) {
        if (g & ~mask) {
            warn_once("mask-excludes-active-lanes", line, [&] {
                char b[320];
                std::snprintf(b, sizeof b,
                              "mask 0x%016llx leaves out active lanes 0x%016llx at wave size %u (a 32-bit mask on a "
                              "64-lane wavefront?); first at %s",
                              (unsigned long long)mask, (unsigned long long)(g & ~mask), W,
                              who(&w.block, &L[first]).c_str());
                return std::string(b);
            });
        }
        if (mask & existing & ~g) {
            warn_once("mask-names-inactive-lanes", line, [&] {
                char b[320];
                std::snprintf(b, sizeof b, "mask 0x%016llx names lanes 0x%016llx that are not at this operation; %s",
                              (unsigned long long)mask, (unsigned long long)(mask & existing & ~g),
                              who(&w.block, &L[first]).c_str());
                return std::string(b);
            });
        }
    }
    auto members = [&](auto&& f) {
        for (uint64_t m = g; m; m &= m - 1) f(L[__builtin_ctzll(m)]);
    };
    switch (op) {
        case Op::Shfl:
        case Op::ShflUp:
        case Op::ShflDown:
        case Op::ShflXor:
            // Index arithmetic of HIP's __shfl* (amd_warp_functions.h) followed by ds_bpermute, which reads lane
            // (index mod wave size) and returns 0 for a lane that is not active.
            members([&](Lane& me) {
                const int self = int(me.lane), width = me.width, a = me.arg;
                int idx = self;
                switch (op) {
                    case Op::Shfl: idx = (a & (width - 1)) + (self & ~(width - 1)); break;
                    case Op::ShflUp: idx = self - a; if (idx < (self & ~(width - 1))) idx = self; break;
                    case Op::ShflDown: idx = ((self & (width - 1)) + a >= width) ? self : self + a; break;
                    default: idx = self ^ a; if (idx >= ((self + width) & ~(width - 1))) idx = self; break;
                }
                idx &= int(W - 1);
                if ((g >> idx) & 1) {
                    me.result = L[idx].val;
                } else {
                    me.result = 0;
                    warn_once("shuffle-reads-inactive-lane", line, [&] {
                        char b[320];
                        std::snprintf(b, sizeof b,
                                      "%s read lane %d, which is not active at this shuffle (%s; the GPU returns 0)",
                                      who(&w.block, &me).c_str(), idx,
                                      idx >= int(n) ? "past the end of a partial wavefront" : "inactive or exited");
                        return std::string(b);
                    });
                }
            });
            break;
        case Op::Ballot:
        case Op::Any:
        case Op::All: {
            uint64_t bits = 0;
            members([&](Lane& me) { if (me.val & 0xffffffffull) bits |= 1ull << me.lane; });
            members([&](Lane& me) {
                me.result = op == Op::Ballot ? (bits & me.mask) : op == Op::Any ? uint64_t(bits != 0)
                                                                                 : uint64_t(bits == g);
            });
            break;
        }
        case Op::ActiveMask:
        case Op::SyncWarp: members([&](Lane& me) { me.result = g; }); break;
        case Op::MatchAny:
            members([&](Lane& me) {
                uint64_t r = 0;
                members([&](Lane& o) { if (same_bits(me, o)) r |= 1ull << o.lane; });
                me.result = r & me.mask;
            });
            break;
        case Op::MatchAll: {
            bool all = true;
            members([&](Lane& me) { all = all && same_bits(me, L[first]); });
            members([&](Lane& me) { me.result = all ? (g & me.mask) : 0; });
            break;
        }
        default: {
            const bool sgn = L[first].val_bytes < 0;
            int64_t acc = 0;
            bool init = false;
            members([&](Lane& me) {
                int64_t v = sgn ? int64_t(int32_t(uint32_t(me.val))) : int64_t(uint32_t(me.val));
                if (!init) { acc = v; init = true; return; }
                switch (op) {
                    case Op::ReduceAdd: acc += v; break;
                    case Op::ReduceMin: acc = v < acc ? v : acc; break;
                    case Op::ReduceMax: acc = v > acc ? v : acc; break;
                    case Op::ReduceAnd: acc &= v; break;
                    case Op::ReduceOr: acc |= v; break;
                    default: acc ^= v; break;
                }
            });
            members([&](Lane& me) { me.result = uint64_t(uint32_t(acc)); });
            break;
        }
    }
    members([&](Lane& me) { me.st = LaneState::Runnable; });
}

// ---- block barrier ----
void barrier_phase(Worker& w, bool& done) {
    const unsigned N = w.nthreads;
    unsigned nexit = 0;
    Lane *first_exit = nullptr, *first_bar = nullptr, *other = nullptr;
    for (unsigned i = 0; i < N; ++i) {
        Lane& l = w.lanes[i];
        if (l.st == LaneState::Exited) {
            ++nexit;
            if (!first_exit) first_exit = &l;
        } else if (!first_bar) {
            first_bar = &l;
        } else if (!other && l.bar_line != first_bar->bar_line) {
            other = &l;
        }
    }
    if (nexit == N) {
        done = true;
        return;
    }
    char line_info[64];
    std::snprintf(line_info, sizeof line_info, ",\"line\":%u", first_bar->bar_line);
    if (nexit > 0) {
        char b[600];
        std::snprintf(b, sizeof b,
                      "deadlock: __syncthreads() at %s:%u is reached by %u of %u threads of the block, but %s and %u "
                      "other thread(s) exited without reaching it",
                      first_bar->bar_file ? first_bar->bar_file : "?", first_bar->bar_line, N - nexit, N,
                      who(&w.block, first_exit).c_str(), nexit - 1);
        char c[96];
        std::snprintf(c, sizeof c, ",\"waiting\":%u,\"exited\":%u,\"threads\":%u", N - nexit, nexit, N);
        fatal("deadlock", b, where(&w.block, first_exit) + line_info + c);
    }
    if (other) {
        char b[600];
        std::snprintf(b, sizeof b,
                      "deadlock: threads of one block wait at different __syncthreads(): %s at line %u, %s at line %u",
                      who(&w.block, first_bar).c_str(), first_bar->bar_line, who(&w.block, other).c_str(),
                      other->bar_line);
        fatal("deadlock", b, where(&w.block, other) + line_info);
    }
    int count = 0;
    for (unsigned i = 0; i < N; ++i) count += w.lanes[i].bar_pred;
    for (unsigned i = 0; i < N; ++i) {
        Lane& l = w.lanes[i];
        l.result = l.bar_kind == 1 ? uint64_t(count)
                 : l.bar_kind == 2 ? uint64_t(count == int(N))
                 : l.bar_kind == 3 ? uint64_t(count > 0) : 0;
        l.st = LaneState::Runnable;
    }
    g_stats.barriers.fetch_add(1, std::memory_order_relaxed);
}

void run_block(Worker& w, uint64_t bid) {
    BlockCtx& b = w.block;
    b.block_idx.x = unsigned(bid % b.grid_dim.x);
    b.block_idx.y = unsigned((bid / b.grid_dim.x) % b.grid_dim.y);
    b.block_idx.z = unsigned(bid / (uint64_t(b.grid_dim.x) * b.grid_dim.y));
    cur_block = &b;
    const unsigned N = w.nthreads, W = unsigned(g_wave_size);
    for (unsigned i = 0; i < N; ++i) {
        Lane& l = w.lanes[i];
        l.tid.x = i % b.block_dim.x;
        l.tid.y = (i / b.block_dim.x) % b.block_dim.y;
        l.tid.z = i / (b.block_dim.x * b.block_dim.y);
        l.linear = i;
        l.wave = i / W;
        l.lane = i % W;
        l.st = LaneState::Runnable;
        l.bar_line = 0;
        init_fiber(l);
    }
    const unsigned nwaves = (N + W - 1) / W;
    for (bool done = false; !done;) {
        for (unsigned wv = 0; wv < nwaves; ++wv) {
            const unsigned lo = wv * W, hi = std::min(N, lo + W);
            for (;;) {
                bool waiting = false;
                for (unsigned i = lo; i < hi; ++i) {
                    Lane& l = w.lanes[i];
                    if (l.st == LaneState::Runnable) {
                        cur_lane = &l;
                        w.running.store(&l, std::memory_order_relaxed);
                        porter_swap_ctx(&w.sched_sp, l.sp);
                    }
                    waiting |= l.st == LaneState::WaveOp;
                }
                if (!waiting) break;
                resolve(w, lo, hi);
            }
        }
        barrier_phase(w, done);
    }
    cur_lane = nullptr;
    w.running.store(nullptr, std::memory_order_relaxed);
    g_stats.blocks.fetch_add(1, std::memory_order_relaxed);
    g_stats.lanes.fetch_add(N, std::memory_order_relaxed);
}

void setup_altstack() {
    // Faults (including a fiber's stack overflow) are reported from an alternate signal stack.
    stack_t ss{};
    ss.ss_size = 64 * 1024;
    ss.ss_sp = mmap(nullptr, ss.ss_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ss.ss_flags = 0;
    sigaltstack(&ss, nullptr);
}

void worker_main(int id, Body body, void* closure, uint3_ grid, uint3_ block, size_t shmem, uint64_t nblocks,
                 std::atomic<uint64_t>* next) {
    Worker w;
    w.id = id;
    w.body = body;
    w.closure = closure;
    w.nthreads = block.x * block.y * block.z;
    w.block.grid_dim = grid;
    w.block.block_dim = block;
    w.lanes.resize(w.nthreads);
    const size_t per = g_stack_bytes + kPage;
    w.stacks_len = per * w.nthreads;
    w.stacks = static_cast<char*>(
        mmap(nullptr, w.stacks_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0));
    if (w.stacks == MAP_FAILED) fatal("runtime", "cannot map fiber stacks", "");
    for (unsigned i = 0; i < w.nthreads; ++i) {
        mprotect(w.stacks + i * per, kPage, PROT_NONE);  // guard page: a fiber's stack overflow faults
        w.lanes[i].stack_lo = w.stacks + i * per + kPage;
    }
    // Dynamic shared memory starts as 0xff bytes (NaN as float) so reads before writes show up in results.
    w.dyn.assign(shmem + 16, char(0xff));
    w.block.dyn_shared = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(w.dyn.data()) + 15) & ~uintptr_t(15));
    tl_worker = &w;
    setup_altstack();
    g_slots[id].store(&w);
    for (uint64_t b; (b = next->fetch_add(1)) < nblocks;) run_block(w, b);
    g_slots[id].store(nullptr);
    tl_worker = nullptr;
    cur_block = nullptr;
    munmap(w.stacks, w.stacks_len);
}

// ---- fault reporting (async-signal context: only snprintf/write/_exit) ----
size_t append(char* buf, size_t pos, size_t cap, const char* fmt, ...) __attribute__((format(printf, 4, 5)));
size_t append(char* buf, size_t pos, size_t cap, const char* fmt, ...) {
    if (pos >= cap) return pos;
    va_list ap;
    va_start(ap, fmt);
    int n = std::vsnprintf(buf + pos, cap - pos, fmt, ap);
    va_end(ap);
    return n < 0 ? pos : std::min(cap - 1, pos + size_t(n));
}
size_t append_escaped(char* buf, size_t pos, size_t cap, const char* s) {
    pos = append(buf, pos, cap, "\"");
    for (; s && *s && pos + 8 < cap; ++s) {
        if (*s == '"' || *s == '\\') buf[pos++] = '\\';
        if (static_cast<unsigned char>(*s) >= 0x20) buf[pos++] = *s;
    }
    buf[pos] = 0;
    return append(buf, pos, cap, "\"");
}

void on_fault(int sig, siginfo_t* si, void* uctx) {
    if (g_fatal.exchange(true)) {
        for (;;) pause();
    }
    static char buf[4096];
    const size_t cap = sizeof buf;
    auto* uc = static_cast<ucontext_t*>(uctx);
    const uintptr_t addr = reinterpret_cast<uintptr_t>(si->si_addr);
    const uintptr_t pc = uc ? uintptr_t(uc->uc_mcontext.gregs[REG_RIP]) : 0;
    const bool is_write = uc && (uc->uc_mcontext.gregs[REG_ERR] & 2);
    const char* sname = sig == SIGSEGV ? "SIGSEGV" : sig == SIGBUS ? "SIGBUS" : sig == SIGFPE ? "SIGFPE"
                      : sig == SIGILL ? "SIGILL" : sig == SIGABRT ? "SIGABRT" : "signal";
    char what[512];
    what[0] = 0;
    const char* kind = "crash";
    if (sig == SIGSEGV || sig == SIGBUS) {
        const int na = g_nallocs.load(std::memory_order_acquire);
        const Alloc* best = nullptr;
        for (int i = 0; i < na; ++i) {
            const Alloc& a = g_allocs[i];
            if (addr >= a.map_base && addr < a.map_base + a.map_len) { best = &a; break; }
            if (a.map_base <= addr && (!best || a.map_base > best->map_base)) best = &a;
        }
        if (best && addr >= best->map_base && addr < best->map_base + best->map_len) {
            kind = "out-of-bounds";
            const long long off = (long long)(addr - best->user);
            if (best->freed.load())
                std::snprintf(what, sizeof what, "%s of buffer '%s' after hipFree (byte offset %lld)",
                              is_write ? "write" : "read", best->name, off);
            else if (addr >= best->user)
                std::snprintf(what, sizeof what,
                              "out-of-bounds %s of buffer '%s': byte offset %lld, %lld byte(s) past its end "
                              "(size %llu bytes)",
                              is_write ? "write" : "read", best->name, off, off - (long long)best->bytes,
                              (unsigned long long)best->bytes);
            else
                std::snprintf(what, sizeof what, "out-of-bounds %s of buffer '%s': byte offset %lld (before its start)",
                              is_write ? "write" : "read", best->name, off);
        } else {
            for (int i = 0; i < kMaxWorkers; ++i) {
                Worker* w = g_slots[i].load();
                if (w && addr >= uintptr_t(w->stacks) && addr < uintptr_t(w->stacks) + w->stacks_len) {
                    kind = "stack-overflow";
                    std::snprintf(what, sizeof what,
                                  "fiber stack overflow (%zu KiB per GPU thread; raise PORTER_EMULATE_STACK_KB)",
                                  g_stack_bytes / 1024);
                }
            }
            if (!what[0]) {
                std::snprintf(what, sizeof what, "invalid %s at address 0x%llx%s%s", is_write ? "write" : "read",
                              (unsigned long long)addr, best ? "; nearest buffer below it: " : "",
                              best ? best->name : "");
            }
        }
    } else if (sig == SIGFPE) {
        std::snprintf(what, sizeof what, "arithmetic exception (integer division by zero?)");
    } else if (sig == SIGABRT) {
        std::snprintf(what, sizeof what, "abort() (a failed assert?)");
    } else {
        std::snprintf(what, sizeof what, "%s", sname);
    }
    size_t p = append(buf, 0, cap, "{\"event\":\"error\",\"kind\":\"%s\",\"signal\":\"%s\",\"message\":", kind, sname);
    char msg[900];
    Lane* l = cur_lane;
    BlockCtx* b = cur_block;
    if (l && b)
        std::snprintf(msg, sizeof msg, "%s in block (%u,%u,%u) thread (%u,%u,%u) (wavefront %u, lane %u)", what,
                      b->block_idx.x, b->block_idx.y, b->block_idx.z, l->tid.x, l->tid.y, l->tid.z, l->wave, l->lane);
    else
        std::snprintf(msg, sizeof msg, "%s in host code", what);
    p = append_escaped(buf, p, cap, msg);
    if (l && b)
        p = append(buf, p, cap, ",\"block\":[%u,%u,%u],\"thread\":[%u,%u,%u],\"wave\":%u,\"lane\":%u", b->block_idx.x,
                   b->block_idx.y, b->block_idx.z, l->tid.x, l->tid.y, l->tid.z, l->wave, l->lane);
    p = append(buf, p, cap, ",\"address\":%llu,\"write\":%s", (unsigned long long)addr, is_write ? "true" : "false");
    Dl_info info;
    if (pc && dladdr(reinterpret_cast<void*>(pc), &info) && info.dli_fname) {
        p = append(buf, p, cap, ",\"pc_object\":");
        p = append_escaped(buf, p, cap, info.dli_fname);
        p = append(buf, p, cap, ",\"pc_offset\":%llu", (unsigned long long)(pc - uintptr_t(info.dli_fbase)));
    }
    p = append(buf, p, cap, "}\n");
    ssize_t r = ::write(g_diag_fd, buf, p);
    (void)r;
    _exit(3);
}

void watchdog() {
    std::unique_lock<std::mutex> lk(g_wd_mu);
    if (g_wd_cv.wait_for(lk, std::chrono::duration<double>(g_timeout_s), [] { return g_wd_done; })) return;
    std::string running;
    for (int i = 0; i < kMaxWorkers; ++i) {
        Worker* w = g_slots[i].load();
        Lane* l = w ? w->running.load() : nullptr;
        if (l) running += (running.empty() ? "" : "; ") + who(&w->block, l);
    }
    char b[200];
    std::snprintf(b, sizeof b, "the kernel did not finish within %.1f s", g_timeout_s);
    std::string msg = b;
    if (!running.empty())
        msg += "; running: " + running +
               " (a lane that spins waiting for another lane never yields in the emulator)";
    fatal("timeout", msg, "");
}

}  // namespace

uint64_t wave_op(Op op, uint64_t val, int val_bytes, int arg, int width, uint64_t mask, unsigned line) {
    Lane* l = cur_lane;
    l->op = op;
    l->val = val;
    l->val_bytes = val_bytes;
    l->arg = arg;
    l->width = width <= 0 ? g_wave_size : width;
    l->mask = mask;
    l->line = line;
    l->st = LaneState::WaveOp;
    to_scheduler(l);
    return l->result;
}

int block_barrier(int kind, int pred, unsigned line, const char* file) {
    Lane* l = cur_lane;
    l->bar_kind = kind;
    l->bar_pred = pred;
    l->bar_line = line;
    l->bar_file = file;
    l->st = LaneState::Barrier;
    to_scheduler(l);
    return int(l->result);
}

char* dyn_shared() { return cur_block->dyn_shared; }

void launch(Body body, void* closure, uint3_ grid, uint3_ block, size_t shmem) {
    const uint64_t nthreads = uint64_t(block.x) * block.y * block.z;
    const uint64_t nblocks = uint64_t(grid.x) * grid.y * grid.z;
    if (nthreads == 0 || nthreads > g_max_threads) {
        fatal("invalid-launch", "block of " + std::to_string(nthreads) + " threads (must be 1.." +
              std::to_string(g_max_threads) + " on " + g_arch + ")", "");
    }
    if (nblocks == 0) fatal("invalid-launch", "empty grid", "");
    if (shmem > g_max_shared) {
        fatal("invalid-launch", "dynamic shared memory of " + std::to_string(shmem) + " bytes exceeds " + g_arch +
              "'s " + std::to_string(g_max_shared / 1024) + " KiB LDS per workgroup", "");
    }
    std::atomic<uint64_t> next{0};
    const int nw = int(std::min<uint64_t>(uint64_t(std::max(1, std::min(g_workers, kMaxWorkers))), nblocks));
    auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> ts;
    for (int i = 0; i < nw; ++i) ts.emplace_back(worker_main, i, body, closure, grid, block, shmem, nblocks, &next);
    for (auto& t : ts) t.join();
    g_stats.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void* dev_malloc(size_t bytes, const char* name) {
    const int i = g_nallocs.load();
    if (i >= kMaxAllocs) fatal("runtime", "too many device allocations", "");
    const size_t data = std::max(kPage, (bytes + kPage - 1) / kPage * kPage);
    const size_t len = kPage + data + kGuardAfter;
    char* base = static_cast<char*>(
        mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0));
    if (base == MAP_FAILED) fatal("runtime", "device allocation failed", "");
    mprotect(base, kPage, PROT_NONE);
    mprotect(base + kPage + data, kGuardAfter, PROT_NONE);
    // The buffer ends exactly at the guard (alignment: the largest power of two dividing its size, at most 16),
    // so the first byte past the end faults.
    size_t align = bytes ? (bytes & (~bytes + 1)) : 16;
    if (align > 16) align = 16;
    const uintptr_t end = uintptr_t(base) + kPage + data;
    Alloc& a = g_allocs[i];
    a.map_base = uintptr_t(base);
    a.map_len = len;
    a.user = (end - bytes) & ~uintptr_t(align - 1);
    a.bytes = bytes;
    std::snprintf(a.name, sizeof a.name, "%s", name ? name : "?");
    a.freed.store(false);
    g_nallocs.store(i + 1, std::memory_order_release);
    return reinterpret_cast<void*>(a.user);
}

void dev_free(void* p) {
    const int na = g_nallocs.load();
    for (int i = 0; i < na; ++i) {
        Alloc& a = g_allocs[i];
        if (a.user == uintptr_t(p) && !a.freed.load()) {
            // Keep the range reserved and inaccessible so a use after free is reported, not silently reused.
            mprotect(reinterpret_cast<void*>(a.map_base), a.map_len, PROT_NONE);
            a.freed.store(true);
            return;
        }
    }
}

void warn(const char* kind, const char* msg, unsigned line) {
    warn_once(kind, line, [&] { return std::string(msg); });
}

}  // namespace porter

using namespace porter;

extern "C" __attribute__((visibility("default"))) void porter_rt_limits(unsigned max_threads, size_t max_shared,
                                                                        const char* arch) {
    g_max_threads = max_threads;
    g_max_shared = max_shared;
    std::snprintf(g_arch, sizeof(g_arch), "%s", arch);
}

extern "C" __attribute__((visibility("default"))) void porter_rt_configure(int wave_size, int workers,
                                                                           const char* diag_path, double timeout_s,
                                                                           size_t stack_bytes) {
    g_wave_size = wave_size;
    g_workers = workers;
    g_timeout_s = timeout_s;
    if (stack_bytes) g_stack_bytes = (stack_bytes + kPage - 1) / kPage * kPage;
    if (diag_path && *diag_path) {
        int fd = ::open(diag_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (fd >= 0) g_diag_fd = fd;
    }
    setup_altstack();
    struct sigaction sa{};
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (int s : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) sigaction(s, &sa, nullptr);
    if (timeout_s > 0) std::thread(watchdog).detach();
}

extern "C" __attribute__((visibility("default"))) void* porter_rt_malloc(size_t bytes, const char* name) {
    return dev_malloc(bytes, name);
}

extern "C" __attribute__((visibility("default"))) void porter_rt_finish() {
    {
        std::lock_guard<std::mutex> g(g_wd_mu);
        g_wd_done = true;
    }
    g_wd_cv.notify_all();
    std::lock_guard<std::mutex> g(g_warn_mu);
    for (auto& kv : g_warns) {
        std::string o = "{\"event\":\"warning\",\"kind\":";
        json_escape(o, kv.second.kind.c_str());
        o += ",\"line\":" + std::to_string(kv.second.line) + ",\"count\":" + std::to_string(kv.second.count) +
             ",\"message\":";
        json_escape(o, kv.second.msg.c_str());
        o += "}";
        emit(o);
    }
    char b[256];
    std::snprintf(b, sizeof b,
                  "{\"event\":\"stats\",\"lanes\":%llu,\"blocks\":%llu,\"wave_ops\":%llu,\"barriers\":%llu,"
                  "\"seconds\":%.6f,\"wave_size\":%d,\"workers\":%d}",
                  (unsigned long long)g_stats.lanes.load(), (unsigned long long)g_stats.blocks.load(),
                  (unsigned long long)g_stats.wave_ops.load(), (unsigned long long)g_stats.barriers.load(),
                  g_stats.seconds, g_wave_size, g_workers);
    emit(b);
}
