// porter emulate: CUDA's bfloat16 names (cuda_runtime.h) for porter's CPU bfloat16 (hip_bf16.h)
#pragma once
#include "cuda_runtime.h"
