/* gemm: one linear layer, y = x Wᵀ, in fp16 with fp32 accumulation through cublasGemmEx,
 * on random buffers: for timing matrix multiplies outside the model (day07's first call
 * of each shape, day08's 8192² matmul). */
#ifndef KIT_GEMM_H
#define KIT_GEMM_H
#include <stddef.h>
#include <stdint.h>
#include <cublas_v2.h>
#ifdef __cplusplus
extern "C" {
#endif

/* W [out, in] row-major (nn.Linear's layout), x [tokens, in], y [tokens, out], all fp16,
 * on the handle's stream. Does not synchronize. */
void gemm_linear_f16(cublasHandle_t h, const void *W, const void *x, void *y, int tokens, int in, int out);
/* 2 x tokens x in x out */
double gemm_flops(int tokens, int in, int out);
/* n fp16 values of std 0.02 (model.h's synthetic weights), filled on the GPU; cudaFree it. */
void *gpu_random_f16(size_t n, uint64_t seed);

#ifdef __cplusplus
}
#endif
#endif
