/* gemm: y = x Wᵀ in fp16 through cuBLAS, and random fp16 buffers (gemm.h). */
#include <cuda_fp16.h>
#include "gpu/gemm.h"
#include "gpu/gpu.h"
#include "model/model.h"

/* cuBLAS is column-major: y [out x tokens] = op(W) [out x in] · x [in x tokens], where the
 * row-major W reads as its transpose with leading dimension `in`. */
void gemm_linear_f16(cublasHandle_t h, const void *W, const void *x, void *y, int tokens, int in, int out) {
    const float one = 1.0f, zero = 0.0f;
    CUBLAS_CHECK(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, out, tokens, in, &one, W, CUDA_R_16F, in,
                              x, CUDA_R_16F, in, &zero, y, CUDA_R_16F, out, CUBLAS_COMPUTE_32F,
                              CUBLAS_GEMM_DEFAULT));
}

double gemm_flops(int tokens, int in, int out) { return 2.0 * tokens * (double)in * out; }

__global__ void fill_random_f16(__half *p, size_t n, uint64_t seed) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = __float2half(synth_value(seed, 0, (long long)i, 0));
}

void *gpu_random_f16(size_t n, uint64_t seed) {
    __half *p;
    CUDA_CHECK(cudaMalloc(&p, n * sizeof *p));
    fill_random_f16<<<1024, 256>>>(p, n, seed);
    KERNEL_CHECK("fill_random_f16");
    return p;
}
