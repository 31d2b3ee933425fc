"""A tiny TileLang GEMM (fp16 in, fp32 accumulate, 128x128x32 tiles) used to test gfx942 compilation."""

import tilelang
import tilelang.language as T


def gemm(M: int = 256, N: int = 256, K: int = 256, block_M: int = 128, block_N: int = 128, block_K: int = 32,
         threads: int = 256):
    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), "float16")
            B_shared = T.alloc_shared((block_K, block_N), "float16")
            C_local = T.alloc_fragment((block_M, block_N), "float32")
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=2):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main


def lower_for_gfx942() -> tuple[str, int]:
    """(HIP source, dynamic shared memory bytes) of the GEMM lowered for gfx942."""
    from tilelang import tvm
    from tvm.target import Target

    tgt = Target({"kind": "hip", "mcpu": "gfx942"})
    with tgt:
        art = tilelang.lower(gemm(), target=tgt)
    dyn = 0
    for _, func in art.device_mod.functions.items():
        size = func.attrs.get("dyn_shared_memory_buf") if func.attrs is not None else None
        if size is not None:
            dyn = max(dyn, int(size))
    return art.kernel_source, dyn
