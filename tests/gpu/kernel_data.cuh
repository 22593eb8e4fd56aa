/* The kernel tests' inputs: seeded fp16 data (the same every run) and host -> GPU copies;
 * and the --bench timer. */
#ifndef KIT_KERNEL_DATA_CUH
#define KIT_KERNEL_DATA_CUH
#include <vector>
#include "gpu/gpu.h"
#include "model/model.h"
#include "measure/stats.h"

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
/* microseconds per launch(i), i < reps, on the default stream: five samples of reps launches
 * each, timed with CUDA events, after one to warm up */
template <typename F> static Stats time_launches_us(int reps, F launch) {
    cudaEvent_t e0, e1;
    CUDA_CHECK(cudaEventCreate(&e0));
    CUDA_CHECK(cudaEventCreate(&e1));
    double us[5];
    for (int r = -1; r < 5; r++) {
        CUDA_CHECK(cudaEventRecord(e0));
        for (int i = 0; i < reps; i++) launch(i);
        CUDA_CHECK(cudaEventRecord(e1));
        CUDA_CHECK(cudaEventSynchronize(e1));
        float ms;
        CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
        if (r >= 0) us[r] = 1e3 * ms / reps;
    }
    CUDA_CHECK(cudaEventDestroy(e0));
    CUDA_CHECK(cudaEventDestroy(e1));
    return stats_of(us, 5);
}
#endif
