// porter: redirects `#include "hip/hip_bf16.h"` to the HIP-to-CUDA mapping header (nvcc builds).
#pragma once
#include "../hip2cuda.h"
