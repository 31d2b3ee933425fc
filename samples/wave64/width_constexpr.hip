// warpSize where a constant is promised but clang does not check it here: the body of a constexpr function (its
// callers needing a constant may live in other files) and a constexpr member of a class whose template is declared in
// a header the parse did not read. ROCm 7's run-time warpSize makes both fail to compile.
#include <hip/hip_runtime.h>

// expect: W64-010
#define LANES warpSize

// expect: W64-010
__host__ __device__ constexpr int scratch_bytes(int arch = 0) { return arch < 700 ? 0 : LANES * 16; }

template <typename T>
class Pipe<T, ProtoWide> {     // the primary template and ProtoWide are declared nowhere this parse reads
 public:
  // expect: W64-010
  static constexpr int kWords = LANES * 4;
};

// A run-time use in a plain function: correct on ROCm 7.
__device__ int lanes_of(int warps) {
  // ok: W64-010
  return warps * LANES;
}

#if 0
// ok: W64-010
static constexpr int kSkipped = warpSize;
#endif

// A constexpr initializer or static_assert that goes on below its line is constant to its `;` (MIOpen's static CK
// reductions); a static_assert's message is text.
template <int BLOCK>
struct Tiles {
  __device__ static int per_block() {
    constexpr bool padded =
        // expect: W64-010
        (BLOCK % warpSize) > 0;
    static_assert(BLOCK % 64 == 0,
                  // ok: W64-010
                  "BLOCK must be a multiple of warpSize");
    return padded ? 1 : 0;
  }
};
