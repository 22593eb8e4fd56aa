/* Day 08 · What does an unsynchronized timer measure?
 *
 * The question (acceptance question 2): the CPU and the GPU are two machines. A kernel launch
 * puts work into a queue (a stream) and returns at once; the GPU runs it later. A wall-clock
 * timer read around the launches without cudaDeviceSynchronize() (torch.cuda.synchronize())
 * measures how long the host took to hand the work over, not how long the work took, and the
 * two have no fixed relation: about equal when the host is the bottleneck (many small kernels),
 * nothing alike when the GPU is. The lesson's rule: synchronize before and after, report the
 * median, and know which interval each clock measures (their difference is the host's part):
 *
 *   wall clock    sync; t0 = now; work; sync; t1 = now     what a user waits (TPOT, TTFT)
 *   CUDA events   record(a); work; record(b); elapsed(a,b)  the GPU's interval (one kernel)
 *
 * This program shows it in five parts:
 *   1. one decode step timed four ways (no sync; sync after only; sync before and after; CUDA
 *      events), eager (903 launches a step) and as a CUDA graph (one launch), each sample behind
 *      a queued 200-token prefill, someone else's tail: the sync *before* is for it
 *   2. an 8192 x 8192 fp16 matmul (2 x 8192^3 = 1.1e12 FLOP) timed without a sync, then synced
 *   3. the calls that wait although nobody asked them to, each behind 50 ms (the program's
 *      setting) of queued GPU work: a device-to-host cudaMemcpy (the .item() of C), cudaMalloc,
 *      cudaFree, a wait on the legacy default stream and one on a non-blocking stream
 *   4. bench() (common/measure/timer.cu, the lesson's) without and with its sync between the
 *      warm-up and the first sample (self-test 1); 5. events against the synced wall clock
 *      around the same call (mistake #5)
 *
 * Build and run:   make day08      (or: make bin/day08_timing && bin/day08_timing [--model DIR])
 * It prints the GPU in one line, then the rows below in their order, with a one-line reading
 * after parts 1 and 2; on stderr, a line per part. --verbose adds every other row (the graph
 * step's four timers, a launch for scale) and line (the samples, the floor, the prose); all
 * the rows go to results/rows.tsv either way.
 *
 * What to expect on a T4. Day11's timeline model forecasts the step: eager
 * `forecast_t4_tpot_ms_eager_b1_d0` 9.6-9.8 ms, of which
 * `forecast_t4_gpu_ms_per_step_eager_b1_d0` 9.2 ms are kernels, and graph
 * `forecast_t4_tpot_ms_graph_b1_d0` 9.8-9.9 ms (H200 runs), with the reference host's launches:
 *   time_nosync_ms        your host's time for the 903 launches, whatever the GPU: below the
 *                         synced step where the kernels set its pace, as the forecast says they
 *                         do on a T4 (a slower host comes closer). Graph: one launch, almost nothing
 *   time_sync_after_ms    the step plus what is left of the queued prefill
 *   time_sync_both_ms     the step: compare it with the forecast above
 *   time_events_ms        the GPU's interval: close to the synced step where the kernels fill it
 *   matmul_nosync_tflops  absurd on its face; the lesson's T4 example: 20 us, 55,000 TFLOP/s,
 *                         over 800 times the datasheet's 65
 *   matmul_synced_tflops  below the datasheet's 65 TFLOP/s (how far below is week 3's question)
 *   implicit_sync_*_ms    the copy, cudaFree and the legacy stream wait out the queued work;
 *                         cudaMalloc and the non-blocking stream need not (the driver decides:
 *                         each row's note says whether it waited)
 *   bench_range_pct_*     without the sync the first sample also holds the 3 warm-up matmuls, a
 *                         range near three times the median; with it, under the lesson's 10% bar
 *   events_minus_wall_us  negative, a few microseconds: the host's part outside the events
 * The reference runs' figures are in answers/reference/README.md ("day08").
 * It proves acceptance question 2 (the hand-over), self-test 1 and mistakes #4 and #5.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "args.h"
#include "measure/timer.h"
#include "gpu/gemm.h"
#include "gpu/gpu.h"
#include "gpu/gpu_model.h"
#include "model/prompt.h"
#include "report/rows.h"
#include "measure/stats.h"
#include "model/theory.h"

enum { PROMPT = 200, SAMPLES = 10, N_MATMUL = 8192, SECTIONS = 5 };
static const double QUEUED_MS = 50;   /* GPU work queued before each implicit-sync probe */
/* The answers the default prints, in the essay's order (--verbose: every row). */
static const char *const HEADLINES[] = {"time_nosync_ms", "time_sync_after_ms", "time_sync_both_ms", "time_events_ms",
                                        "matmul_nosync_tflops", "matmul_synced_tflops", "implicit_sync_d2h_ms",
                                        "implicit_sync_malloc_ms", "implicit_sync_free_ms", "implicit_sync_legacy_ms",
                                        "implicit_sync_nonblocking_ms", "bench_range_pct_nosync", "bench_range_pct_sync",
                                        "events_minus_wall_us", NULL};

static const char USAGE[] =
    "usage: day08_timing [--model DIR] [--verbose]\n"
    "  The same work timed without and with synchronization and with CUDA events; an\n"
    "  8192x8192 matmul's unsynced TFLOP/s; the calls that synchronize implicitly; bench()\n"
    "  with and without its sync before the first sample.\n"
    "  --model DIR   config.json + model.safetensors; default: TinyLlama's shape, synthetic weights\n"
    "  --verbose     every row and line, not only the answers\n";

/* GPU work of a known length: spin on the GPU's nanosecond clock for `ns`. */
__global__ void spin(unsigned long long ns) {
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now)); } while (now - start < ns);
}
static void queue_gpu_work(cudaStream_t s, double ms) {
    spin<<<1, 1, 0, s>>>((unsigned long long)(ms * 1e6));
    KERNEL_CHECK("spin");
}

/* ---- 1. one decode step, four timers ---------------------------------------------------- */
typedef enum { T_NOSYNC, T_SYNC_AFTER, T_SYNC_BOTH, T_EVENTS, T_WAYS } Way;
static const char *WAY_KEY[T_WAYS] = {"time_nosync_ms", "time_sync_after_ms", "time_sync_both_ms", "time_events_ms"};
static const char *WAY_NOTE[T_WAYS] = {"t0; step; t1 - the host handing the launches over",
                                       "t0; step; sync; t1 - includes what was left of the queued prefill",
                                       "sync; t0; step; sync; t1 - the step", "event; step; event - GPU time of the step"};

/* Median of SAMPLES: each sample queues a prefill first (not waited for), then times one
 * decode step the given way, then synchronizes outside the timed region. */
static double time_step(GpuModel *m, Mode mode, const int *ids, Way way, double *samples) {
    cudaStream_t s = gpu_model_stream(m);
    cudaEvent_t a, b;
    CUDA_CHECK(cudaEventCreate(&a));
    CUDA_CHECK(cudaEventCreate(&b));
    for (int i = 0; i < SAMPLES; i++) {
        gpu_prefill(m, MODE_FUSED, ids, PROMPT, 1, NULL);   /* the tail left in the queue */
        double t0, t1;
        float ev = 0;
        switch (way) {
        case T_NOSYNC:
            t0 = now_ms(); gpu_decode_step(m, mode); t1 = now_ms();
            break;
        case T_SYNC_AFTER:
            t0 = now_ms(); gpu_decode_step(m, mode); CUDA_CHECK(cudaDeviceSynchronize()); t1 = now_ms();
            break;
        case T_SYNC_BOTH:
            CUDA_CHECK(cudaDeviceSynchronize());
            t0 = now_ms(); gpu_decode_step(m, mode); CUDA_CHECK(cudaDeviceSynchronize()); t1 = now_ms();
            break;
        default:
            CUDA_CHECK(cudaEventRecord(a, s));
            gpu_decode_step(m, mode);
            CUDA_CHECK(cudaEventRecord(b, s));
            CUDA_CHECK(cudaEventSynchronize(b));
            CUDA_CHECK(cudaEventElapsedTime(&ev, a, b));
            t0 = 0; t1 = ev;
        }
        CUDA_CHECK(cudaDeviceSynchronize());
        samples[i] = t1 - t0;
    }
    CUDA_CHECK(cudaEventDestroy(a));
    CUDA_CHECK(cudaEventDestroy(b));
    return median_of(samples, SAMPLES);
}

/* ---- 2 and 4. the big matmul ------------------------------------------------------------- */
typedef struct { cublasHandle_t h; void *A, *B, *C; } Matmul;
static void matmul(void *p) {
    Matmul *mm = (Matmul *)p;
    gemm_linear_f16(mm->h, mm->B, mm->A, mm->C, N_MATMUL, N_MATMUL, N_MATMUL);
}

/* ---- 3. implicit synchronization --------------------------------------------------------- */
typedef enum { I_D2H, I_MALLOC, I_FREE, I_LEGACY, I_NONBLOCKING, I_LAUNCH, I_PROBES } Probe;
static const char *PROBE_KEY[I_PROBES] = {"implicit_sync_d2h_ms", "implicit_sync_malloc_ms", "implicit_sync_free_ms",
                                          "implicit_sync_legacy_ms", "implicit_sync_nonblocking_ms",
                                          "implicit_sync_launch_ms"};
static const char *PROBE_WHAT[I_PROBES] = {
    "cudaMemcpy 4 B device->host (.item())", "cudaMalloc 1 MB", "cudaFree 1 MB",
    "4 B copy + wait on the legacy default stream", "4 B copy + wait on a non-blocking stream",
    "a kernel launch on another stream (for scale)"};

/* Host time of one call while QUEUED_MS of work sits in `busy` (a blocking stream). */
static double probe(Probe p, cudaStream_t busy, cudaStream_t nonblocking, int *dev_word, int *pinned) {
    void *ptr = NULL;
    int word;
    if (p == I_FREE) CUDA_CHECK(cudaMalloc(&ptr, 1 << 20));
    CUDA_CHECK(cudaDeviceSynchronize());
    queue_gpu_work(busy, QUEUED_MS);
    double t0 = now_ms();
    switch (p) {
    case I_D2H: CUDA_CHECK(cudaMemcpy(&word, dev_word, sizeof word, cudaMemcpyDeviceToHost)); break;
    case I_MALLOC: CUDA_CHECK(cudaMalloc(&ptr, 1 << 20)); break;
    case I_FREE: CUDA_CHECK(cudaFree(ptr)); ptr = NULL; break;
    case I_LEGACY:
        CUDA_CHECK(cudaMemcpyAsync(pinned, dev_word, sizeof *pinned, cudaMemcpyDeviceToHost, cudaStreamLegacy));
        CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
        break;
    case I_NONBLOCKING:
        CUDA_CHECK(cudaMemcpyAsync(pinned, dev_word, sizeof *pinned, cudaMemcpyDeviceToHost, nonblocking));
        CUDA_CHECK(cudaStreamSynchronize(nonblocking));
        break;
    default: queue_gpu_work(nonblocking, 0);
    }
    double ms = now_ms() - t0;
    CUDA_CHECK(cudaDeviceSynchronize());
    if (ptr) CUDA_CHECK(cudaFree(ptr));
    return ms;
}

static void print_samples(const char *key, const double *x, int n) {
    detail("%s=", key);
    for (int i = 0; i < n; i++) detail("%s%.3f", i ? "," : "", x[i]);
    detail("\n");
}

/* ---- 5. one call, two clocks ------------------------------------------------------------- */
typedef struct { GpuModel *m; Mode mode; } StepCtx;
static void step_fn(void *p) {
    StepCtx *c = (StepCtx *)p;
    gpu_decode_step(c->m, c->mode);
}

/* Median over SAMPLES of (events - wall clock) around the same call, in microseconds. */
static double events_minus_wall_us(BenchFn fn, void *ctx, cudaStream_t s) {
    cudaEvent_t a, b;
    CUDA_CHECK(cudaEventCreate(&a));
    CUDA_CHECK(cudaEventCreate(&b));
    double d[SAMPLES];
    fn(ctx);   /* warm */
    for (int i = 0; i < SAMPLES; i++) {
        float ev;
        CUDA_CHECK(cudaDeviceSynchronize());
        double t0 = now_ms();
        CUDA_CHECK(cudaEventRecord(a, s));
        fn(ctx);
        CUDA_CHECK(cudaEventRecord(b, s));
        CUDA_CHECK(cudaDeviceSynchronize());
        double wall = now_ms() - t0;
        CUDA_CHECK(cudaEventElapsedTime(&ev, a, b));
        d[i] = (ev - wall) * 1e3;
    }
    CUDA_CHECK(cudaEventDestroy(a));
    CUDA_CHECK(cudaEventDestroy(b));
    return median_of(d, SAMPLES);
}

int main(int argc, char **argv) {
    const char *model_dir = NULL;
    int verbose = 0;
    const ArgFlag flags[] = {ARG_MODEL(&model_dir), ARG_VERBOSE(&verbose), {0}};
    args_parse("day08", USAGE, argc, argv, flags, NULL);
    setvbuf(stdout, NULL, _IOLBF, 0);          /* each line as it comes, in order with stderr's progress */
    rows_quiet(!verbose);
    rows_headlines(HEADLINES);
    printf("# Day 08: what does an unsynchronized timer measure?\n");
    GpuFacts g;
    gpu_facts(&g);
    rows_tag(g.emulated);                      /* KIT_GPU=t4: every row says it is the emulated T4 path */
    gpu_facts_print(&g, verbose);
    GpuModelOpts o = {.model_dir = model_dir, .seed = 1, .max_batch = 1, .quiet = !verbose};
    GpuModel *m = gpu_model_open(&o);
    const Config *c = gpu_model_config(m);
    if (verbose) config_print(c);
    double floor_ms = floor_tpot_ms(weight_bytes(c), g.bw_gbs);
    detail("floor_tpot_ms=%.3f (%.2f GB of weights / %.0f GB/s: no decode step can be faster)\n", floor_ms,
           weight_bytes(c) / 1e9, g.bw_gbs);
    int ids[PROMPT];
    prompt_ids(model_dir, c, PROMPT, ids);

    /* ---- 1. The same work, four timers. Eager is the lesson's HF eager (hundreds of
     * launches a step); graph replays the step with one launch, so the unsynced timer sees
     * almost nothing of it. Warm both first (the graph is captured on its first use). */
    progress(1, SECTIONS, "one decode step, four timers, eager and graph");
    detail("\n## 1. one decode step, four timers (a %d-token prefill is still queued before each sample)\n", PROMPT);
    double tail[SAMPLES];
    for (int i = 0; i < 3; i++) {
        gpu_prefill(m, MODE_FUSED, ids, PROMPT, 1, NULL);
        gpu_decode_step(m, MODE_EAGER);
        gpu_decode_step(m, MODE_GRAPH);
    }
    for (int i = 0; i < SAMPLES; i++) {
        CUDA_CHECK(cudaDeviceSynchronize());
        double t0 = now_ms();
        gpu_prefill(m, MODE_FUSED, ids, PROMPT, 1, NULL);
        CUDA_CHECK(cudaDeviceSynchronize());
        tail[i] = now_ms() - t0;
    }
    detail("queued_prefill_ms=%.3f (the tail each sample starts behind)\n", median_of(tail, SAMPLES));
    double way_ms[2][T_WAYS], samples[SAMPLES];
    Mode modes[2] = {MODE_EAGER, MODE_GRAPH};
    for (int k = 0; k < 2; k++) {
        StepCounts sc = gpu_step_counts(m, modes[k]);
        detail("mode=%s kernels_per_step=%d host_launches_per_step=%d\n", mode_name(modes[k]), sc.kernels,
               sc.host_launches);
        for (int w = 0; w < T_WAYS; w++) {
            way_ms[k][w] = time_step(m, modes[k], ids, (Way)w, samples);
            char key[64], note[160];
            snprintf(note, sizeof note, "%s, %s: %d launches", WAY_NOTE[w], mode_name(modes[k]), sc.host_launches);
            if (k == 0) snprintf(key, sizeof key, "%s", WAY_KEY[w]);
            else snprintf(key, sizeof key, "%.*s_graph_ms", (int)strlen(WAY_KEY[w]) - 3, WAY_KEY[w]);
            /* the unsynced timer is meant to come out under the floor: that is the lesson */
            if (w == T_NOSYNC) report("day08", key, floor_ms, way_ms[k][w], "ms", note);
            else report_floored("day08", key, floor_ms, way_ms[k][w], "ms", note);
            snprintf(key + strlen(key) - 3, 16, "_samples");
            print_samples(key, samples, SAMPLES);
        }
    }
    for (int k = 0; k < 2; k++)
        printf("reading: %s: no-sync / synced = %.3f; sync-after-only - synced = %.2f ms of the prefill inside the "
               "timer\n", mode_name(modes[k]), way_ms[k][T_NOSYNC] / way_ms[k][T_SYNC_BOTH],
               way_ms[k][T_SYNC_AFTER] - way_ms[k][T_SYNC_BOTH]);
    detail("reading: how close an unsynced timer comes depends on who is the bottleneck: when the host\n"
           "         is (hundreds of launches of small kernels), handing over takes about as long as the\n"
           "         work; when the GPU is (one graph launch), it sees almost nothing. No fixed relation.\n");

    /* ---- 2. The 8192² matmul without a sync: 2 x 8192³ = 1.1e12 FLOP "done" in the time
     * one launch takes. */
    progress(2, SECTIONS, "the big matmul, unsynced and synced");
    detail("\n## 2. an %dx%d fp16 matmul (%.2f TFLOP)\n", N_MATMUL, N_MATMUL, gemm_flops(N_MATMUL, N_MATMUL, N_MATMUL) / 1e12);
    Matmul mm;
    CUBLAS_CHECK(cublasCreate(&mm.h));
    size_t nn = (size_t)N_MATMUL * N_MATMUL;
    mm.A = gpu_random_f16(nn, 11);
    mm.B = gpu_random_f16(nn, 12);
    mm.C = gpu_random_f16(nn, 13);
    for (int i = 0; i < 3; i++) matmul(&mm);
    double nosync[SAMPLES];
    for (int i = 0; i < SAMPLES; i++) {
        CUDA_CHECK(cudaDeviceSynchronize());
        double t0 = now_ms();
        matmul(&mm);
        nosync[i] = now_ms() - t0;
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    double tf = gemm_flops(N_MATMUL, N_MATMUL, N_MATMUL) / 1e12;
    double nosync_ms = median_of(nosync, SAMPLES);
    BenchResult wall = bench(matmul, &mm, (BenchOpts){.warmup = 3, .iters = SAMPLES});
    BenchResult ev = bench(matmul, &mm, (BenchOpts){.warmup = 3, .iters = SAMPLES, .use_events = 1});
    double peak = g.fp16_tflops > 0 ? g.fp16_tflops : NAN;
    detail("matmul_nosync_ms=%.4f matmul_synced_ms=%.3f matmul_events_ms=%.3f\n", nosync_ms, wall.s.median, ev.s.median);
    report("day08", "matmul_nosync_tflops", peak, tf / (nosync_ms * 1e-3), "TFLOP/s", "no sync: the launch time, not the matmul");
    report("day08", "matmul_synced_tflops", peak, tf / (wall.s.median * 1e-3), "TFLOP/s", "bench(): sync before and after");
    if (g.fp16_tflops > 0)
        printf("reading: unsynced = %.0fx the peak of %.0f TFLOP/s (%s), impossible on its face; synced = %.0f%% of it\n",
               tf / (nosync_ms * 1e-3) / g.fp16_tflops, g.fp16_tflops, g.peak_source,
               100 * tf / (wall.s.median * 1e-3) / g.fp16_tflops);
    detail("reading: an absurd number is easy to catch; the dangerous ones are 3-5x off and look plausible\n");

    /* ---- 3. Implicit synchronization. `busy` is an ordinary (blocking) stream: the legacy
     * default stream waits for it, a non-blocking stream does not. */
    progress(3, SECTIONS, "calls that wait for the GPU");
    detail("\n## 3. calls that wait for the GPU (%.0f ms of work queued on another stream before each)\n", QUEUED_MS);
    cudaStream_t busy, nb;
    CUDA_CHECK(cudaStreamCreate(&busy));
    CUDA_CHECK(cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking));
    int *dev_word, *pinned;
    CUDA_CHECK(cudaMalloc(&dev_word, sizeof *dev_word));
    CUDA_CHECK(cudaMemset(dev_word, 0, sizeof *dev_word));
    CUDA_CHECK(cudaMallocHost(&pinned, sizeof *pinned));
    cudaEvent_t a, b;
    CUDA_CHECK(cudaEventCreate(&a));
    CUDA_CHECK(cudaEventCreate(&b));
    CUDA_CHECK(cudaEventRecord(a, busy));
    queue_gpu_work(busy, QUEUED_MS);
    CUDA_CHECK(cudaEventRecord(b, busy));
    CUDA_CHECK(cudaEventSynchronize(b));
    float spun;
    CUDA_CHECK(cudaEventElapsedTime(&spun, a, b));
    detail("queued_work_ms=%.2f (the spin kernel, by events)\n", spun);
    for (int p = 0; p < I_PROBES; p++) {
        double x[5];
        for (int i = 0; i < 5; i++) x[i] = probe((Probe)p, busy, nb, dev_word, pinned);
        double ms = median_of(x, 5);
        char note[160];
        snprintf(note, sizeof note, "%s: %s", PROBE_WHAT[p], ms > 0.5 * spun ? "waited for the queued work"
                                                                               : "did not wait");
        report("day08", PROBE_KEY[p], NAN, ms, "ms", note);
    }
    detail("reading: in a timer such calls make a missing sync look harmless; in serving code each one\n"
           "         drains the queue and leaves a gap on the GPU\n");

    /* ---- 4. bench() and its synchronize before the first sample (self-test 1): warm-up
     * launches return at once, so without it the first sample waits for their tail. */
    progress(4, SECTIONS, "bench() with and without its first sync");
    detail("\n## 4. bench() with and without the sync between warm-up and the first sample\n");
    BenchResult without = bench(matmul, &mm, (BenchOpts){.warmup = 3, .iters = SAMPLES, .no_sync_before = 1});
    BenchResult with = bench(matmul, &mm, (BenchOpts){.warmup = 3, .iters = SAMPLES});
    print_samples("bench_nosync_samples_ms", without.samples_ms, without.n);
    print_samples("bench_sync_samples_ms", with.samples_ms, with.n);
    detail("bench_first_sample_nosync_ms=%.3f bench_first_sample_sync_ms=%.3f median_ms=%.3f\n", without.samples_ms[0],
           with.samples_ms[0], with.s.median);
    report("day08", "bench_range_pct_nosync", 10, 100 * without.s.range_over_median, "%",
           "no sync before the first sample: it carries the 3 warm-ups' tail");
    report("day08", "bench_range_pct_sync", 10, 100 * with.s.range_over_median, "%", "bench() as written");

    /* ---- 5. Events against the wall clock (mistake #5), both around the very same call:
     * sync; t0; event a; work; event b; sync; t1. The events span from the moment the GPU
     * reaches a to the moment it reaches b; the wall clock also holds the host's time before
     * a reaches the GPU and the wake-up after the sync. */
    progress(5, SECTIONS, "CUDA events against the synced wall clock");
    detail("\n## 5. CUDA events vs the synced wall clock, around the same call (queue empty before it)\n");
    StepCtx eager = {m, MODE_EAGER}, graph = {m, MODE_GRAPH};
    gpu_prefill(m, MODE_FUSED, ids, PROMPT, 1, NULL);
    double d_eager = events_minus_wall_us(step_fn, &eager, gpu_model_stream(m));
    double d_graph = events_minus_wall_us(step_fn, &graph, gpu_model_stream(m));
    double d_mm = events_minus_wall_us(matmul, &mm, 0);
    detail("events_minus_wall_us: eager step %.1f, graph step %.1f, matmul %.1f\n", d_eager, d_graph, d_mm);
    report("day08", "events_minus_wall_us", NAN, d_eager, "us",
           "eager decode step, same call: -(host time outside the GPU's interval)");
    detail("events_minus_wall_queued_us=%.1f (section 1's eager step, events %.3f ms vs synced wall %.3f ms: with a\n"
           "    queue ahead the host runs ahead, the GPU meets no gaps, and the events see only kernel time)\n",
           (way_ms[0][T_EVENTS] - way_ms[0][T_SYNC_BOTH]) * 1e3, way_ms[0][T_EVENTS], way_ms[0][T_SYNC_BOTH]);
    detail("reading: neither is 'more accurate'; they time different intervals. TPOT is wall clock (what a\n"
           "         user waits), one kernel is events; their difference is overhead, itself a measurement\n");

    CUDA_CHECK(cudaEventDestroy(a));
    CUDA_CHECK(cudaEventDestroy(b));
    CUDA_CHECK(cudaFreeHost(pinned));
    CUDA_CHECK(cudaFree(dev_word));
    CUDA_CHECK(cudaStreamDestroy(busy));
    CUDA_CHECK(cudaStreamDestroy(nb));
    CUDA_CHECK(cudaFree(mm.A)); CUDA_CHECK(cudaFree(mm.B)); CUDA_CHECK(cudaFree(mm.C));
    CUBLAS_CHECK(cublasDestroy(mm.h));
    gpu_model_free(m);
    return rows_exit_code();   /* 1 when a row was below its floor */
}
