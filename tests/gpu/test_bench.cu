/* test_bench: gpu_facts and bench() on a real GPU. The facts are sane; every sample, by the
 * wall clock or by events, holds the whole ~20 us kernel it times (a timer that does not wait
 * for the kernel reads a few us); events read no more than the wall clock; and without the
 * synchronize before the first sample that sample absorbs work queued before the call (the
 * lesson's self-test 1). */
#include "measure/timer.h"
#include "check.h"
#include "gpu/gpu.h"

__global__ void spin(long long cycles) {
    long long t0 = clock64();
    while (clock64() - t0 < cycles) {}
}
static void run_spin(void *cycles) {
    spin<<<1, 1>>>(*(long long *)cycles);
    KERNEL_CHECK("spin");
}

static void print_result(const char *what, const BenchResult *r) {
    printf("%s: median %.4f ms, min %.4f, max %.4f, first %.4f, range/median %.1f%%\n", what, r->s.median, r->s.min,
           r->s.max, r->samples_ms[0], 100 * r->s.range_over_median);
}

int main(void) {
    GpuFacts g;
    gpu_facts(&g);
    gpu_measure_copy(&g, (size_t)1 << 30);
    gpu_facts_print(&g, 1);
    CHECK(g.name[0] && g.cc_major >= 7 && g.sms > 0, "facts: name %s, cc %d, sms %d", g.name, g.cc_major, g.sms);
    CHECK(g.bw_gbs > 0 && g.l2_bytes > 0 && g.mem_bytes > 0, "facts: bw %.1f, l2 %lld, mem %lld", g.bw_gbs, g.l2_bytes,
          g.mem_bytes);
    CHECK(g.copy_gbs > 0 && g.copy_gbs <= 1.05 * g.bw_gbs, "copy %.1f GB/s against %.1f", g.copy_gbs, g.bw_gbs);
    CHECK((g.fp16_tflops > 0) == (g.ridge > 0) && g.peak_source, "peak %.1f, ridge %.1f", g.fp16_tflops, g.ridge);
    CHECK(g.has_bf16_tc == (g.cc_major >= 8), "bf16 tensor cores flag");

    int khz = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
    long long short_cycles = 20LL * khz / 1000, long_cycles = 50LL * khz;   /* ~20 us, ~50 ms */
    const double kernel_ms = 0.0195;   /* at least 20 us: khz is the highest clock the SMs run at */

    BenchOpts o = {};
    o.iters = 20;
    BenchResult wall = bench(run_spin, &short_cycles, o);
    print_result("wall", &wall);
    CHECK(wall.n == 20, "wall: %d samples", wall.n);
    CHECK(wall.s.min >= kernel_ms, "wall: the fastest sample %.4f ms is shorter than the 20 us kernel", wall.s.min);

    o.use_events = 1;
    BenchResult ev = bench(run_spin, &short_cycles, o);
    print_result("events", &ev);
    CHECK(ev.n == 20, "events: %d samples", ev.n);
    CHECK(ev.s.min >= kernel_ms, "events: the fastest sample %.4f ms is shorter than the 20 us kernel", ev.s.min);
    CHECK(ev.s.median <= wall.s.median, "events %.4f ms above wall %.4f ms", ev.s.median, wall.s.median);

    o.use_events = 0;
    o.l2_scrub = 1;
    BenchResult scrub = bench(run_spin, &short_cycles, o);
    print_result("l2_scrub", &scrub);
    CHECK(scrub.s.min >= kernel_ms, "l2_scrub: the fastest sample %.4f ms is shorter than the 20 us kernel", scrub.s.min);

    /* Self-test 1: a 50 ms kernel is still running when bench() starts. */
    BenchOpts q = {};
    q.iters = 5;
    q.no_sync_before = 1;
    run_spin(&long_cycles);
    BenchResult nosync = bench(run_spin, &short_cycles, q);
    print_result("no_sync_before", &nosync);
    q.no_sync_before = 0;
    run_spin(&long_cycles);
    BenchResult sync = bench(run_spin, &short_cycles, q);
    print_result("sync_before", &sync);
    CHECK(nosync.samples_ms[0] > 20, "without the sync the first sample should absorb the 50 ms kernel (%.3f ms)",
          nosync.samples_ms[0]);
    CHECK(nosync.samples_ms[1] < 5, "second sample %.3f ms", nosync.samples_ms[1]);
    CHECK(sync.samples_ms[0] < 5, "with the sync the first sample is %.3f ms", sync.samples_ms[0]);
    return check_done("test_bench");
}
