// porter emulate: __half lives in hip_fp16.h
#pragma once
#include "cuda_runtime.h"
#include "../hip/hip_fp16.h"
