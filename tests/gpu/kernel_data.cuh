/* The kernel tests' inputs: seeded fp16 data (the same every run) and host -> GPU copies
 * (their --bench times with measure/timer.h's time_launches_us). */
#ifndef KIT_KERNEL_DATA_CUH
#define KIT_KERNEL_DATA_CUH
#include <vector>
#include "gpu/gpu.h"
#include "model/model.h"
#include "measure/stats.h"
#include "measure/timer.h"        /* time_launches_us, for --bench */

/* n values uniform in bias + [-scale, scale), from seed */
static std::vector<half> random_half(size_t n, uint64_t seed, float scale, float bias = 0.f) {
    std::vector<half> v(n);
    for (size_t i = 0; i < n; i++) {
        const float u = (float)(synth_mix(seed * 0x9E3779B97F4A7C15ull + i) >> 40) / (float)(1 << 24);
        v[i] = __float2half(bias + scale * (u * 2.f - 1.f));
    }
    return v;
}
template <typename T> static T *to_gpu(const std::vector<T> &v) {
    T *d;
    CUDA_CHECK(cudaMalloc(&d, v.size() * sizeof(T)));
    CUDA_CHECK(cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
    return d;
}
#endif
