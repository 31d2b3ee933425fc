// porter emulate: the part of CUDA's cooperative groups that kernels use for block and warp-tile reductions,
// built on the emulator's __syncthreads and shuffles. A tile of N lanes is N consecutive threads of the block.
#pragma once
#include "cuda_runtime.h"
namespace cooperative_groups {
struct thread_block {
    void sync() const { __syncthreads(); }
    unsigned thread_rank() const { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }
    unsigned size() const { return blockDim.x * blockDim.y * blockDim.z; }
    unsigned num_threads() const { return size(); }
    dim3 group_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
    dim3 thread_index() const { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
};
inline thread_block this_thread_block() { return thread_block{}; }
template <unsigned N> struct thread_block_tile {
    unsigned rank() const { return this_thread_block().thread_rank(); }
    unsigned thread_rank() const { return rank() % N; }
    unsigned meta_group_rank() const { return rank() / N; }
    unsigned meta_group_size() const { return (this_thread_block().size() + N - 1) / N; }
    unsigned size() const { return N; }
    unsigned num_threads() const { return N; }
    void sync() const { __syncwarp(); }
    template <class T> T shfl(T v, int src) const { return __shfl(v, src, N); }
    template <class T> T shfl_down(T v, unsigned d) const { return __shfl_down(v, d, N); }
    template <class T> T shfl_up(T v, unsigned d) const { return __shfl_up(v, d, N); }
    template <class T> T shfl_xor(T v, int m) const { return __shfl_xor(v, m, N); }
};
template <unsigned N> inline thread_block_tile<N> tiled_partition(const thread_block&) { return {}; }
template <class T> struct plus { T operator()(T a, T b) const { return a + b; } };
template <class T> struct greater { T operator()(T a, T b) const { return a < b ? b : a; } };
template <class T> struct less { T operator()(T a, T b) const { return b < a ? b : a; } };
// every lane of the tile gets op over the tile's values (butterfly over the tile)
template <unsigned N, class T, class Op> inline T reduce(const thread_block_tile<N>& g, T v, Op op) {
    for (unsigned m = N / 2; m > 0; m /= 2) v = op(v, g.shfl_xor(v, int(m)));
    return v;
}
}  // namespace cooperative_groups
