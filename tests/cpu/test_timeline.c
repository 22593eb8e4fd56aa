/* trace_window on made-up records: the busy ratio and the gaps (overlapping, nested,
 * unsorted, touching, empty, one kernel) and the part each gap waited for, which gaps the host caused (whole, and the part
 * before the launch call began), a separate host window, launch-call times, intervals and
 * launch delays, GEMMs per step as ops (a split-K cuBLAS call, graph replays), GPU time and
 * the path per part (overlapping kernels under programmatic dependent launch), GPU time per
 * name, and the launch tag. Times in ns. */
#include <math.h>
#include <string.h>
#include "check.h"
#include "measure/trace.h"

static int near(double a, double b) { return fabs(a - b) <= 1e-9 * (1 + fabs(b)); }

static void kernel(Trace *t, uint64_t start, uint64_t end, uint32_t corr, int part, int layer, uint32_t seq,
                   const char *name) {
    TKernel k = {start, end, corr, 7, 0, 0, P_OTHER, -1, 0, name, NULL};
    if (part >= 0) {
        k.ext = launch_tag_encode(part, layer, seq);
        launch_tag_decode(k.ext, &k.part, &k.layer);
        k.is_gemm = part_is_gemm((Part)k.part);
    }
    trace_add_kernel(t, &k);
}
static void api(Trace *t, uint64_t start, uint64_t end, uint32_t corr, const char *name) {
    TApi a = {start, end, corr, 1, 0, name};
    trace_add_api(t, &a);
}

static void test_intervals(void) {
    Trace t = {0};
    /* unsorted; [5,15] overlaps [0,10], [22,25] sits inside [20,30], [50,55] touches [40,50] */
    /* the two kernels that close a gap: one tagged norm, one tagged "other" (as a graph's
     * kernels are, with the graph launch's tag) whose name says rope */
    kernel(&t, 40, 50, 5, P_OTHER, 0, 0, "rope_e");
    kernel(&t, 22, 25, 4, -1, 0, 0, "d");
    kernel(&t, 0, 10, 1, -1, 0, 0, "a");
    kernel(&t, 20, 30, 3, P_NORM, 0, 0, "c");
    kernel(&t, 5, 15, 2, -1, 0, 0, "b");
    kernel(&t, 50, 55, 6, -1, 0, 0, "f");
    TraceWindow w = trace_window(&t, 0, 100, 1);
    CHECK(w.kernels == 6, "kernels %d", w.kernels);
    CHECK(near(w.gpu_ns, 48), "sum of durations %g, want 48", w.gpu_ns);
    CHECK(near(w.busy_ns, 40), "union %g, want 15 + 10 + 15 = 40", w.busy_ns);
    CHECK(near(w.span_ns, 55), "span %g, want 55", w.span_ns);
    CHECK(near(w.busy_ratio, 40.0 / 55), "busy ratio %g", w.busy_ratio);
    CHECK(w.n_gaps == 2 && near(w.gaps_ns[0], 5) && near(w.gaps_ns[1], 10), "gaps 5 and 10 (touching is no gap)");
    CHECK(near(w.gap_total_ns, 15) && near(w.gap.median, 7.5) && near(w.gap.max, 10), "gap stats");
    CHECK(w.gap_part[0] == P_NORM && w.gap_part[1] == P_ROPE,
          "what each gap waited for: the closing kernel's tag (%d), or its name where the tag says other (%d)",
          w.gap_part[0], w.gap_part[1]);
    trace_window_free(&w);

    /* the window: kernels that START inside [t0, t1] */
    w = trace_window(&t, 5, 40, 1);
    CHECK(w.kernels == 4 && near(w.span_ns, 50 - 5) && w.n_gaps == 2, "window [5,40]: %d kernels span %g", w.kernels, w.span_ns);
    trace_window_free(&w);

    w = trace_window(&t, 60, 100, 2);
    CHECK(w.kernels == 0 && w.n_gaps == 0 && w.gap.n == 0 && isnan(w.busy_ratio) && w.busy_ns == 0 &&
          w.kernels_per_step == 0 && w.n_names == 0, "an empty window");
    trace_window_free(&w);

    w = trace_window(&t, 45, 52, 1);
    CHECK(w.kernels == 1 && near(w.busy_ratio, 1) && w.n_gaps == 0, "one kernel: busy 1, no gaps");
    trace_window_free(&w);
    trace_free(&t);
    CHECK(t.k == NULL && t.nk == 0, "trace_free");
}

/* Gap A (10 -> 20): its kernel's launch began at 12, after the GPU ran dry at 10: host-bound.
 * Gap B (25 -> 40): the launch began at 20, before the GPU ran dry at 25: the GPU side. */
static void test_host_bound(void) {
    Trace t = {0};
    api(&t, 0, 3, 1, "cudaLaunchKernel");
    kernel(&t, 5, 10, 1, P_NORM, 0, 1, "k1");
    api(&t, 12, 15, 2, "cudaLaunchKernel");
    kernel(&t, 20, 25, 2, P_NORM, 0, 2, "k1");
    api(&t, 20, 26, 3, "cudaLaunchKernelExC_v11060");
    kernel(&t, 40, 45, 3, P_NORM, 0, 3, "k1");
    api(&t, 44, 47, 4, "cudaLaunchKernel_v7000");
    kernel(&t, 45, 50, 4, P_NORM, 0, 4, "k1");        /* starts before its call returned */
    api(&t, 50, 60, 5, "cudaStreamSynchronize");
    api(&t, 50, 51, 6, "cudaMalloc");
    TraceWindow w = trace_window(&t, 0, 100, 2);
    CHECK(w.n_gaps == 2 && near(w.gaps_ns[0], 10) && near(w.gaps_ns[1], 15), "two gaps");
    CHECK(near(w.host_bound_ns, 10) && near(w.host_bound_share, 10.0 / 25), "host-bound %g share %g",
          w.host_bound_ns, w.host_bound_share);
    CHECK(w.launch_api_ns.n == 4 && near(w.launch_api_ns.median, 3) && near(w.launch_api_ns.max, 6),
          "launch calls: n %d median %g max %g", w.launch_api_ns.n, w.launch_api_ns.median, w.launch_api_ns.max);
    CHECK(near(w.launch_calls_per_step, 2), "launch calls per step %g", w.launch_calls_per_step);
    CHECK(near(w.host_wait_ns, 2) && near(w.host_wait_share, 2.0 / 25),
          "host wait: gap A before its call began (10 -> 12) only: %g share %g", w.host_wait_ns, w.host_wait_share);
    CHECK(w.launch_interval_ns.n == 3 && near(w.launch_interval_ns.median, 12) && near(w.launch_interval_ns.max, 24),
          "launch call to launch call 12, 8, 24: n %d median %g", w.launch_interval_ns.n, w.launch_interval_ns.median);
    /* delays: 5-3=2, 20-15=5, 40-26=14, 45-47<0 -> 0 */
    CHECK(w.launch_delay_ns.n == 4 && near(w.launch_delay_ns.min, 0) && near(w.launch_delay_ns.max, 14) &&
          near(w.launch_delay_ns.median, 3.5), "launch delay clamp: min %g median %g", w.launch_delay_ns.min,
          w.launch_delay_ns.median);
    CHECK(trace_api_by_corr(&t, 3) && strcmp(trace_api_by_corr(&t, 3)->name, "cudaLaunchKernelExC_v11060") == 0 &&
          trace_api_by_corr(&t, 99) == NULL, "trace_api_by_corr");
    trace_window_free(&w);
    /* the host's records from their own window: kernels all, launch calls from [10, 30] only */
    w = trace_window_host(&t, 0, 100, 10, 30, 1);
    CHECK(w.kernels == 4 && w.n_gaps == 2 && near(w.host_wait_ns, 2), "host window: kernels and gaps unchanged");
    CHECK(w.launch_api_ns.n == 2 && near(w.launch_calls_per_step, 2) && w.launch_interval_ns.n == 1 &&
          near(w.launch_interval_ns.median, 8), "host window [10, 30]: the calls at 12 and 20");
    trace_window_free(&w);
    trace_free(&t);

    /* no launch record at all: never host-bound; no gaps: share 0 */
    Trace u = {0};
    kernel(&u, 0, 10, 1, -1, 0, 0, "x");
    kernel(&u, 20, 30, 2, -1, 0, 0, "x");
    w = trace_window(&u, 0, 100, 1);
    CHECK(w.n_gaps == 1 && w.host_bound_ns == 0 && w.host_wait_ns == 0 && w.launch_delay_ns.n == 0 &&
          w.launch_interval_ns.n == 0, "gaps without launch records");
    trace_window_free(&w);
    trace_clear(&u);
    CHECK(u.nk == 0, "trace_clear");
    w = trace_window(&u, 0, 100, 1);
    CHECK(w.host_bound_share == 0 && w.gap_total_ns == 0, "no gaps: host-bound share 0");
    trace_window_free(&w);
    trace_free(&u);
}

static const char *GEMV = "gemv_f16_kernel(__half const*, __half const*, __half*, int, int)";
static const char *CUBLAS = "sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize64x64x64_cublas";
static const char *SPLITK = "void cublasLt::splitKreduce_kernel<32, 16, int, float, __half>(...)";

static void test_gemms(void) {
    Trace t = {0};
    uint32_t corr = 1, seq = 1;
    /* eager step 1: q, o, a split-K lm_head (two launches, one tag), an rmsnorm */
    for (int step = 0; step < 2; step++) {
        uint64_t b = 1000 * step;
        api(&t, b + 0, b + 1, corr, "cudaLaunchKernel");
        kernel(&t, b + 2, b + 10, corr++, P_Q, 0, seq++, GEMV);
        api(&t, b + 10, b + 11, corr, "cudaLaunchKernel");
        kernel(&t, b + 12, b + 20, corr++, P_O, 0, seq++, GEMV);
        api(&t, b + 20, b + 21, corr, "cuLaunchKernel");
        kernel(&t, b + 22, b + 60, corr++, P_LM_HEAD, -1, seq, CUBLAS);
        api(&t, b + 21, b + 22, corr, "cuLaunchKernel");
        kernel(&t, b + 60, b + 62, corr++, P_LM_HEAD, -1, seq++, SPLITK);
        api(&t, b + 62, b + 63, corr, "cudaLaunchKernel");
        kernel(&t, b + 64, b + 66, corr++, P_NORM, 0, seq++, "rmsnorm_kernel(...)");
    }
    TraceWindow w = trace_window(&t, 0, 5000, 2);
    CHECK(near(w.gemms_per_step, 3), "eager: GEMMs per step %g, want 3 (q, o, lm_head)", w.gemms_per_step);
    CHECK(near(w.kernels_per_step, 5), "kernels per step %g", w.kernels_per_step);
    CHECK(near(w.parts[P_LM_HEAD].total_ns, 2 * 40) && w.parts[P_LM_HEAD].calls == 4, "lm_head time");
    CHECK(near(w.parts[P_Q].share, 16.0 / w.gpu_ns), "q share");
    CHECK(near(w.parts[P_LM_HEAD].path_ns, 2 * 40) && near(w.parts[P_NORM].path_ns, 2 * 2),
          "path: back-to-back kernels are charged their own time");
    CHECK(w.n_names == 4 && strcmp(w.names[0].name, CUBLAS) == 0 && w.names[0].part == P_LM_HEAD &&
          strcmp(w.names[1].name, GEMV) == 0 && w.names[1].calls == 4 && near(w.names[1].avg_ns, 8) &&
          near(w.names[1].sd_ns, 0) && near(w.names[1].total_ns, 32), "names sorted by total time");
    double share = 0;
    for (int i = 0; i < w.n_names; i++) share += w.names[i].share;
    CHECK(near(share, 1), "name shares add to 1");
    trace_window_free(&w);

    /* programmatic dependent launch: each kernel starts before the one before ends and waits;
     * the path charges a kernel from the previous end, and the parts add up to the busy time */
    trace_clear(&t);
    kernel(&t, 0, 10, 1, P_QKV, 0, 1, GEMV);
    kernel(&t, 2, 14, 2, P_ATTN, 0, 2, "attn_kv");
    kernel(&t, 3, 30, 3, P_O, 0, 3, GEMV);
    kernel(&t, 12, 31, 4, P_GATE_UP, 0, 4, GEMV);
    kernel(&t, 40, 45, 5, P_DOWN, 0, 5, GEMV);     /* after a gap: its own time */
    w = trace_window(&t, 0, 100, 1);
    CHECK(near(w.parts[P_QKV].path_ns, 10) && near(w.parts[P_ATTN].path_ns, 4) && near(w.parts[P_O].path_ns, 16) &&
          near(w.parts[P_GATE_UP].path_ns, 1) && near(w.parts[P_DOWN].path_ns, 5),
          "path 10/4/16/1/5, got %g/%g/%g/%g/%g", w.parts[P_QKV].path_ns, w.parts[P_ATTN].path_ns,
          w.parts[P_O].path_ns, w.parts[P_GATE_UP].path_ns, w.parts[P_DOWN].path_ns);
    double path = 0;
    for (int p = 0; p < P_COUNT; p++) path += w.parts[p].path_ns;
    CHECK(near(path, w.busy_ns) && near(w.busy_ns, 36) && near(w.gpu_ns, 73), "the path adds up to the busy time "
          "(%g of %g), the GPU times to more (%g)", path, w.busy_ns, w.gpu_ns);
    trace_window_free(&w);

    /* graph replays: one cudaGraphLaunch per step; its kernels share its correlation id and
     * carry the captured ops' tags, the same tags every replay */
    trace_clear(&t);
    for (int step = 0; step < 3; step++) {
        uint64_t b = 10000 + 1000 * step;
        uint32_t c = 100 + step;
        api(&t, b, b + 5, c, "cudaGraphLaunch_v10000");
        kernel(&t, b + 10, b + 20, c, P_QKV, 0, 7, GEMV);
        kernel(&t, b + 20, b + 30, c, P_GATE_UP, 0, 8, CUBLAS);
        kernel(&t, b + 30, b + 32, c, P_GATE_UP, 0, 8, SPLITK);   /* same op, second kernel */
        kernel(&t, b + 32, b + 40, c, P_DOWN, 0, 9, GEMV);
        kernel(&t, b + 43, b + 45, c, P_RESIDUAL, 0, 10, "add_kernel");   /* a gap inside the graph */
    }
    w = trace_window(&t, 10000, 20000, 3);
    CHECK(near(w.gemms_per_step, 3), "graph: GEMMs per step %g, want 3", w.gemms_per_step);
    CHECK(near(w.launch_calls_per_step, 1), "graph: one launch call per step");
    /* 3 gaps inside replays (the graph's call began long before: not the host) and 2 between
     * replays, 45 -> 1010 (the next cudaGraphLaunch began after the GPU ran dry: the host) */
    CHECK(w.n_gaps == 5 && near(w.gap_total_ns, 3 * 3 + 2 * 965) && near(w.host_bound_ns, 2 * 965),
          "graph: %d gaps, %g ns, host-bound %g ns", w.n_gaps, w.gap_total_ns, w.host_bound_ns);
    trace_window_free(&w);

    /* untagged kernels: a guess from the name, one op per kernel */
    trace_clear(&t);
    kernel(&t, 0, 10, 1, -1, 0, 0, "turing_fp16_s1688gemm_fp16_128x128_ldg8_f2f_tn");
    kernel(&t, 10, 20, 2, -1, 0, 0, "turing_fp16_s1688gemm_fp16_128x128_ldg8_f2f_tn");
    kernel(&t, 20, 22, 3, -1, 0, 0, "void at::native::vectorized_elementwise_kernel<4, ...>");
    TRange r = {0, 5, 1, "q_proj"}, r2 = {10, 15, 1, "k_proj"};
    trace_add_nvtx(&t, &r);
    trace_add_nvtx(&t, &r2);
    w = trace_window(&t, 0, 100, 1);
    CHECK(near(w.gemms_per_step, 2), "untagged GEMMs counted by name: %g", w.gemms_per_step);
    CHECK(w.parts[P_LINEAR].calls == 2 && w.parts[P_ELEMENTWISE].calls == 1, "untagged parts by name");
    CHECK(near(w.nvtx_ops_per_step, 2), "NVTX ranges per step %g", w.nvtx_ops_per_step);
    trace_window_free(&w);
    trace_free(&t);
}

static void test_tag(void) {
    int part, layer, ok = 1;
    for (int p = 0; p < P_COUNT; p++)
        for (int l = -1; l < 255; l++) {
            uint64_t tag = launch_tag_encode(p, l, 0xFFFFFFFFu);
            launch_tag_decode(tag, &part, &layer);
            ok &= tag != 0 && part == p && layer == l && tag < (1ull << 53);
        }
    CHECK(ok, "launch tag round trip (part, layer; never 0; under 2^53)");
    CHECK(launch_tag_encode(P_Q, 3, 1) != launch_tag_encode(P_Q, 3, 2), "the sequence number is in the tag");
    launch_tag_decode(0, &part, &layer);
    CHECK(part == P_OTHER && layer == -1, "tag 0 = no tag");
}

int main(void) {
    test_intervals();
    test_host_bound();
    test_gemms();
    test_tag();
    return check_done("test_timeline");
}
