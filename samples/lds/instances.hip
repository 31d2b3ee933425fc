// A kernel template launched in more instantiations than porter analyzes (8 per template): the ones kept cover
// every argument value and, among those, the most combinations of two. Here the large-Q branch only exists for
// Q >= 64, so an unsigned char instance with a small Q would show none of its byte accesses.
#include "hip/hip_runtime.h"

template <int Q, typename T>
__global__ void __launch_bounds__(256) tileDot(const T* in, int* out) {
  if constexpr (Q >= 64) {
    // 65 elements per row: conflict-free for 4-byte T; for bytes lanes 0 and 2 are 130 bytes (32 dwords) apart
    __shared__ T tile[64][65];
    // 68 bytes per row for bytes (17 dwords), 65 words for int: every lane of a phase in its own bank
    __shared__ T wide[64][sizeof(T) == 1 ? 68 : 65];
    int lane = threadIdx.x % 64;
    // expect: LDS-001
    tile[lane][threadIdx.x / 64] = in[threadIdx.x];
    // ok: LDS-001
    wide[lane][threadIdx.x / 64] = in[threadIdx.x];
    __syncthreads();
    int acc = 0;
    for (int i = 0; i < 4; ++i) {
      // expect: LDS-001
      acc += tile[lane][i];
      // ok: LDS-001
      acc += wide[lane][i];
    }
    out[threadIdx.x] = acc + Q;
  } else {
    out[threadIdx.x] = Q;
  }
}

template <typename T>
void launchAll(const T* in, int* out, int q) {
  if (q == 1) tileDot<1, T><<<1, 256>>>(in, out);
  else if (q == 32) tileDot<32, T><<<1, 256>>>(in, out);
  else if (q == 64) tileDot<64, T><<<1, 256>>>(in, out);
  else if (q == 128) tileDot<128, T><<<1, 256>>>(in, out);
  else if (q == 256) tileDot<256, T><<<1, 256>>>(in, out);
  else if (q == 512) tileDot<512, T><<<1, 256>>>(in, out);
  else if (q == 1024) tileDot<1024, T><<<1, 256>>>(in, out);
  else if (q == 2048) tileDot<2048, T><<<1, 256>>>(in, out);
  else tileDot<4096, T><<<1, 256>>>(in, out);
}

void run(const int* words, const unsigned char* bytes, int* out, int q) {
  launchAll<int>(words, out, q);
  launchAll<unsigned char>(bytes, out, q);
}
