// porter: redirects `#include "hip/hip_runtime_api.h"` to the HIP-to-CUDA mapping header (nvcc builds).
#pragma once
#include "../hip2cuda.h"
