// Does not compile: an undeclared identifier.
__global__ void broken(float* out) { out[threadIdx.x] = not_declared; }
