// porter emulate: see hip_bf16.h
#pragma once
#include "hip_bf16.h"
