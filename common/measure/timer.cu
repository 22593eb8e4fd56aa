/* timer: bench(): warm up, synchronize, time samples, report the median and the spread (timer.h). */
#include "measure/timer.h"
#include "gpu/gpu.h"

/* The L2 scrub buffer: allocated once (2 x L2) and kept, so no cudaMalloc/cudaFree,
 * which may synchronize, happens between the caller's work and the first sample. */
static void *g_scrub;
static size_t g_scrub_bytes;

static void scrub_l2(cudaStream_t s) {
    if (!g_scrub) {
        int dev, l2;
        CUDA_CHECK(cudaGetDevice(&dev));
        CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
        g_scrub_bytes = 2 * (size_t)l2;
        CUDA_CHECK(cudaMalloc(&g_scrub, g_scrub_bytes));
    }
    CUDA_CHECK(cudaMemsetAsync(g_scrub, 0, g_scrub_bytes, s));
}

BenchResult bench(BenchFn fn, void *ctx, BenchOpts o) {
    BenchResult r = {};
    int warmup = o.warmup == 0 ? 3 : o.warmup < 0 ? 0 : o.warmup;
    int iters = o.iters <= 0 ? 10 : o.iters > 1024 ? 1024 : o.iters;
    for (int i = 0; i < warmup; i++) fn(ctx);
    if (!o.no_sync_before) CUDA_CHECK(cudaDeviceSynchronize());

    cudaEvent_t a = NULL, b = NULL;
    if (o.use_events) {
        CUDA_CHECK(cudaEventCreate(&a));
        CUDA_CHECK(cudaEventCreate(&b));
    }
    for (int i = 0; i < iters; i++) {
        int sync_before = i > 0 || !o.no_sync_before;
        if (o.l2_scrub) scrub_l2(o.stream);
        if (sync_before) CUDA_CHECK(cudaDeviceSynchronize());
        if (o.use_events) {
            float ms;
            CUDA_CHECK(cudaEventRecord(a, o.stream));
            fn(ctx);
            CUDA_CHECK(cudaEventRecord(b, o.stream));
            CUDA_CHECK(cudaEventSynchronize(b));
            CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
            r.samples_ms[i] = ms;
        } else {
            double t0 = now_ms();
            fn(ctx);
            CUDA_CHECK(cudaDeviceSynchronize());
            r.samples_ms[i] = now_ms() - t0;
        }
    }
    if (o.use_events) {
        CUDA_CHECK(cudaEventDestroy(a));
        CUDA_CHECK(cudaEventDestroy(b));
    }
    r.n = iters;
    r.s = stats_of(r.samples_ms, r.n);
    return r;
}

Stats time_launches_us(int reps, void (*launch)(int i, void *ctx), void *ctx, cudaStream_t stream) {
    cudaEvent_t e0, e1;
    CUDA_CHECK(cudaEventCreate(&e0));
    CUDA_CHECK(cudaEventCreate(&e1));
    double us[5];
    for (int r = -1; r < 5; r++) {
        CUDA_CHECK(cudaEventRecord(e0, stream));
        for (int i = 0; i < reps; i++) launch(i, ctx);
        CUDA_CHECK(cudaEventRecord(e1, stream));
        CUDA_CHECK(cudaEventSynchronize(e1));
        float ms;
        CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
        if (r >= 0) us[r] = 1e3 * ms / reps;
    }
    CUDA_CHECK(cudaEventDestroy(e0));
    CUDA_CHECK(cudaEventDestroy(e1));
    return stats_of(us, 5);
}
