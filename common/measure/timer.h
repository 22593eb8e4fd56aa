/* timer: the lesson's bench() in C. Warm up, synchronize, then time `iters` samples with the
 * wall clock (synchronize before and after each) or with CUDA events; report the median and
 * the spread. (bin/bench, tools/bench.cu, is another thing: the engine's benchmark.) */
#ifndef KIT_TIMER_H
#define KIT_TIMER_H
#include <cuda_runtime.h>
#include "measure/stats.h"

typedef void (*BenchFn)(void *ctx);

typedef struct {
    int warmup;          /* 0 = the default 3; -1 = none */
    int iters;           /* 0 = the default 10; at most 1024 */
    int use_events;      /* time with cudaEventRecord around fn on `stream` */
    int no_sync_before;  /* 1 = leave out the synchronize before the first sample (self-test 1) */
    int l2_scrub;        /* 1 = write a buffer larger than L2 before each sample */
    cudaStream_t stream; /* stream the events are recorded on (0 = legacy default) */
} BenchOpts;

typedef struct {
    Stats s;             /* of samples_ms */
    double samples_ms[1024];
    int n;
} BenchResult;

BenchResult bench(BenchFn fn, void *ctx, BenchOpts o);

/* Microseconds per launch(i, ctx), i < reps, issued back to back on `stream` as a step issues
 * its kernels: five samples of reps launches each between two CUDA events, after one to warm
 * up; the stats are over the five. (bench() above times a call with a synchronize around each
 * sample; this times launches that queue behind one another, the way kernels meet in a step.) */
Stats time_launches_us(int reps, void (*launch)(int i, void *ctx), void *ctx, cudaStream_t stream);
/* the same for a lambda: time_launches_us(200, [&](int i) { k_gemv(...); }) */
template <typename F> static inline Stats time_launches_us(int reps, F launch, cudaStream_t stream = 0) {
    return time_launches_us(reps, [](int i, void *f) { (*(F *)f)(i); }, &launch, stream);
}

#endif
