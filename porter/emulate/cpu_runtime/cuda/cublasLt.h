// porter emulate: cuBLASLt handle types only (see cublas_v2.h)
#pragma once
#include "cublas_v2.h"
typedef struct porter_cublaslt* cublasLtHandle_t;
typedef struct porter_cublaslt_desc* cublasLtMatmulDesc_t;
typedef struct porter_cublaslt_layout* cublasLtMatrixLayout_t;
typedef struct porter_cublaslt_pref* cublasLtMatmulPreference_t;
cublasStatus_t cublasLtCreate(cublasLtHandle_t*);
cublasStatus_t cublasLtDestroy(cublasLtHandle_t);
