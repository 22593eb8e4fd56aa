/* trace_json + trace_stats: (1) the kit's own trace, written by trace_write_chrome from
 * made-up records and read back, gives what trace_window computes on the records
 * themselves, also through bin/trace_stats; (2) a small torch.profiler-shaped trace made by
 * hand: CPU and GPU ProfilerStep sides, a step with only its CPU side, ops nested around the
 * launching op (the part guess), runtime and driver launches, the part of a gap before its
 * launch call, skipped kinds, quotes and brackets inside strings; the same as a top-level
 * array and gzipped. The fixture (a real trace) and bad input: tests/cpu/trace_stats.sh. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "check.h"
#include "measure/trace_json.h"
#include "measure/trace_steps.h"
#include "util.h"

static int near(double a, double b) { return fabs(a - b) <= 1e-9 * (1 + fabs(b)); }

/* ---- 1. the kit's trace, round trip ----------------------------------------------------- */

static const char MEAN[] = "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<c10::Half, "
                          "at::native::MeanOps<float, float, float, float>, unsigned int, c10::Half, 4> >(...)";

static void test_kit_trace(void) {
    /* launch call (ns), kernel (ns), the launch path's tag (-1: none) */
    static const struct { uint64_t c0, c1, k0, k1; int part; const char *call, *kernel; } recs[] = {
        {1000, 3000, 5000, 10000, P_NORM, "cudaLaunchKernel", "rmsnorm_kernel"},
        {12000, 15000, 20000, 35000, P_Q, "cudaLaunchKernel", "gemv_f16_kernel(int)"},
        {20000, 26000, 40000, 45000, P_ATTN, "cudaLaunchKernelExC_v11060", "attn_decode_kernel"},
        {44000, 47000, 45000, 50000, P_LM_HEAD, "cudaLaunchKernel", "gemv_f16_kernel(int)"},
        {60000, 62000, 70000, 80000, -1, "cudaLaunchKernel", MEAN},
    };
    Trace t = {0};
    for (uint32_t i = 0; i < sizeof recs / sizeof recs[0]; i++) {
        TApi a = {recs[i].c0, recs[i].c1, i + 1, 42, 211, recs[i].call};
        TKernel k = {recs[i].k0, recs[i].k1, i + 1, 7, 0, 0, P_OTHER, -1, 0, recs[i].kernel, NULL};
        if (recs[i].part >= 0) {
            k.ext = launch_tag_encode(recs[i].part, 3, i);
            launch_tag_decode(k.ext, &k.part, &k.layer);
            k.is_gemm = part_is_gemm((Part)k.part);
        }
        trace_add_api(&t, &a);
        trace_add_kernel(&t, &k);
    }
    TApi sync = {80000, 90000, 6, 42, 131, "cudaStreamSynchronize"};
    trace_add_api(&t, &sync);
    TRange r = {1000, 50000, 42, "decode_step"};
    trace_add_nvtx(&t, &r);
    TMem m = {82000, 83000, 7, 7, 4096, 0, 2};
    trace_add_mem(&t, &m);
    TraceWindow w = trace_window(&t, 0, 100000, 1);

    char path[] = "/tmp/kit_trace_read_XXXXXX";
    close(mkstemp(path));
    CHECK(trace_write_chrome(&t, 0, 100000, path) == 0, "kit trace written");
    TraceJson tj;
    char err[512];
    int rc = trace_json_read(path, &tj, err, sizeof err);
    CHECK(rc == 0, "kit trace read back: %s", rc ? err : "ok");
    if (rc) { trace_free(&t); trace_window_free(&w); return; }
    CHECK(tj.t.nk == 5 && tj.t.napi == 6 && tj.t.nnvtx == 1 && tj.cpu_ops == 0 && tj.nsteps == 0,
          "records: %d kernels %d calls %d ranges", tj.t.nk, tj.t.napi, tj.t.nnvtx);
    int tags_ok = 1;
    for (int i = 0; i < tj.t.nk; i++) {   /* sorted by start, like the records were made */
        tags_ok &= tj.t.k[i].start == t.k[i].start && tj.t.k[i].end == t.k[i].end && tj.t.k[i].corr == t.k[i].corr &&
                   tj.t.k[i].ext == t.k[i].ext && trace_kernel_part(&tj.t.k[i]) == trace_kernel_part(&t.k[i]) &&
                   tj.t.k[i].is_gemm == t.k[i].is_gemm && !strcmp(tj.t.k[i].name, t.k[i].name);
    }
    CHECK(tags_ok, "times (ns), correlation, launch tags, parts and names survive the JSON");
    CHECK(tj.events == 29 && tj.skipped == 17 && tj.nskip == 3, "skipped: %ld of %ld (6 metadata, 10 flow ends, a memcpy) "
          "in %d kinds", tj.skipped, tj.events, tj.nskip);

    TraceStats s;
    rc = trace_stats(&tj, &s, err, sizeof err);
    CHECK(rc == 0, "kit trace analysed: %s", rc ? err : "ok");
    const double *v = s.median;
    CHECK(s.nsteps == 1 && !strcmp(s.windows, "whole_trace") && !strcmp(s.linear_from, "gemm_kernels"),
          "no ProfilerStep: one window (%s), linear from the kit's tags (%s)", s.windows, s.linear_from);
    CHECK(v[TS_KERNELS] == w.kernels && v[TS_LAUNCHES] == w.launch_calls_per_step && v[TS_LINEAR] == w.gemms_per_step,
          "counts: kernels %g launches %g linear %g, want %d %g %g", v[TS_KERNELS], v[TS_LAUNCHES], v[TS_LINEAR],
          w.kernels, w.launch_calls_per_step, w.gemms_per_step);
    CHECK(near(v[TS_BUSY], w.busy_ratio) && near(v[TS_SPAN_US], w.span_ns / 1e3) && near(v[TS_GPU_US], w.busy_ns / 1e3),
          "busy %g span %g gpu %g", v[TS_BUSY], v[TS_SPAN_US], v[TS_GPU_US]);
    CHECK(v[TS_GAPS] == w.n_gaps && near(v[TS_GAP_MEDIAN_US], w.gap.median / 1e3) && near(v[TS_GAP_P90_US], w.gap.p90 / 1e3),
          "gaps %g median %g p90 %g", v[TS_GAPS], v[TS_GAP_MEDIAN_US], v[TS_GAP_P90_US]);
    CHECK(near(v[TS_HOST_BOUND], w.host_wait_share) && near(v[TS_HOST_BOUND_GAPS], w.host_bound_share) &&
          w.host_wait_share > 0 && w.host_wait_share < w.host_bound_share,
          "host-bound %g (part of the gaps) and %g (whole gaps)", v[TS_HOST_BOUND], v[TS_HOST_BOUND_GAPS]);
    CHECK(near(v[TS_CPU_PER_LAUNCH_US], w.launch_interval_ns.median / 1e3) &&
          near(v[TS_LAUNCH_CALL_US], w.launch_api_ns.median / 1e3) &&
          near(v[TS_DISPATCH_US], v[TS_CPU_PER_LAUNCH_US] - v[TS_LAUNCH_CALL_US]), "launch interval, call, dispatch");
    /* the calls at 1-3, 12-15, 20-26, 44-47, 60-62 us: from one's end to the next one's start */
    CHECK(w.n_dispatch == 4 && w.dispatch_ns[0] == 9000 && w.dispatch_ns[1] == 5000 && w.dispatch_ns[2] == 18000 &&
          w.dispatch_ns[3] == 13000, "the window's dispatch intervals: %d, want 9, 5, 18, 13 us", w.n_dispatch);
    CHECK(s.n_dispatch == 4 && near(s.dispatch_us[0], 9) && near(s.dispatch_us[1], 5) && near(s.dispatch_us[2], 18) &&
          near(s.dispatch_us[3], 13), "trace_stats' dispatch intervals, the same in us: %d", s.n_dispatch);
    CHECK(s.ntop == 3 && !strcmp(s.top[0].name, "gemv_f16_kernel") && !strcmp(s.top[0].parts, "q/lm_head") &&
          near(s.top[0].share, 20.0 / 40) && !strncmp(s.top[1].name, "reduce_kernel<512, 1,", 21) &&
          !strcmp(s.top[1].parts, "norm"), "top: %s (%s) %g, %s (%s)", s.top[0].name, s.top[0].parts, s.top[0].share,
          s.top[1].name, s.top[1].parts);
    trace_stats_free(&s);
    trace_json_free(&tj);

    /* the program on the same file */
    char cmd[256], line[512];
    snprintf(cmd, sizeof cmd, "bin/trace_stats %s 2>&1", path);
    FILE *p = popen(cmd, "r");
    int kernels_line = 0, windows_line = 0;
    while (p && fgets(line, sizeof line, p)) {
        kernels_line |= !strcmp(line, "kernels=5\n");
        windows_line |= !strncmp(line, "steps=1 windows=whole_trace", 27);
    }
    int status = p ? pclose(p) : -1;
    CHECK(status == 0 && kernels_line && windows_line, "bin/trace_stats on the kit trace: exit %d, kernels=5 %d, one window %d",
          status, kernels_line, windows_line);
    unlink(path);
    trace_window_free(&w);
    trace_free(&t);
}

/* ---- 2. a torch.profiler-shaped trace -------------------------------------------------- */

#define X(cat, name, ts, dur, more) "{\"ph\": \"X\", \"cat\": \"" cat "\", \"name\": \"" name "\", \"pid\": 1, " \
                                   "\"tid\": 1, \"ts\": " #ts ", \"dur\": " #dur more "}"
#define K(name, ts, dur, corr, ext) "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"" name "\", \"pid\": 0, \"tid\": 7, " \
    "\"ts\": " #ts ", \"dur\": " #dur ", \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": " #corr \
    ", \"External id\": " #ext "}}"
#define CALL(cat, name, ts, dur, corr, ext) X(cat, name, ts, dur, ", \"args\": {\"correlation\": " #corr ", \"External id\": " #ext "}")
#define OP(name, ts, dur, ext) X("cpu_op", name, ts, dur, ", \"args\": {\"External id\": " #ext "}")

/* Step 7: CPU side 100-200 us, GPU side 150-250. Kernels (us): 150-170 linear (driver
 * launch at 115), 175-180 mul (launched at 142), 190-200 attention (launched at 185, after
 * the GPU ran dry at 180: 5 of that 10 us gap before the call), 210-230 linear again,
 * 240-245 a kernel of no op (its name says norm). Step 8 has only its CPU side, 300-500,
 * with one kernel; the one at 600 is in no step. */
#define EVENTS                                                                                                   \
    "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": 0, \"args\": {\"name\": \"python3\"}},\n"   \
    X("user_annotation", "ProfilerStep#7", 100, 100, "") ",\n"                                                 \
    X("gpu_user_annotation", "ProfilerStep#7", 150, 100, "") ",\n"                                             \
    OP("aten::linear", 110, 20, 1) ",\n" OP("aten::mm", 112, 15, 2) ",\n"                                      \
    CALL("cuda_driver", "cuLaunchKernelEx", 115, 5, 10, 2) ",\n" K("nvjet_x", 150, 20, 10, 2) ",\n"            \
    "{\"ph\": \"s\", \"id\": 10, \"pid\": 1, \"tid\": 1, \"ts\": 115, \"cat\": \"ac2g\", \"name\": \"ac2g\"},\n"  \
    OP("aten::mul", 140, 10, 3) ",\n" CALL("cuda_runtime", "cudaLaunchKernel", 142, 4, 11, 3) ",\n"             \
    K("elementwise_mul", 175, 5, 11, 3) ",\n"                                                                  \
    OP("aten::scaled_dot_product_attention", 150, 40, 4) ",\n" OP("aten::mul", 160, 30, 5) \
    ",\n" CALL("cuda_runtime", "cudaLaunchKernel", 185, 3, 12, 5) ",\n" K("vectorized_elementwise_kernel", 190, 10, 12, 5) ",\n"   \
    OP("aten::linear", 195, 4, 6) ",\n" OP("aten::mm", 195.5, 3, 7) ",\n"                                      \
    CALL("cuda_runtime", "cudaLaunchKernel", 196, 2, 13, 7) ",\n" K("nvjet_x", 210, 20, 13, 7) ",\n"           \
    CALL("cuda_runtime", "cudaLaunchKernel", 199, 2, 14, 0) ",\n"                                              \
    K("void at::native::reduce_kernel<MeanOps<float>>(\\\"}]{[\\\")", 240, 5, 14, 99) ",\n"                     \
    X("python_function", "forward", 100, 1, "") ",\n" X("gpu_memcpy", "Memcpy DtoH", 246, 1, "") ",\n"        \
    X("user_annotation", "ProfilerStep#8", 300, 200, "") ",\n" OP("aten::add", 340, 20, 8) ",\n"               \
    CALL("cuda_runtime", "cudaLaunchKernel", 350, 2, 15, 8) ",\n" K("elementwise_mul", 400, 10, 15, 8) ",\n"    \
    CALL("cuda_runtime", "cudaLaunchKernel", 550, 2, 16, 0) ",\n" K("late", 600, 10, 16, 0) "\n"

static const char *TORCH_DOC = "{\"schemaVersion\": 1, \"traceEvents\": [\n" EVENTS "], \"traceName\": \"t\"}";
static const char *TORCH_ARRAY = "[\n" EVENTS "]";

static void check_torch(const TraceJson *tj, const char *what) {
    CHECK(tj->t.nk == 7 && tj->t.napi == 7 && tj->cpu_ops == 8 && tj->nsteps == 2 && tj->events == 29,
          "%s: %d kernels %d calls %ld ops %d steps %ld events", what, tj->t.nk, tj->t.napi, tj->cpu_ops, tj->nsteps,
          tj->events);
    CHECK(tj->skipped == 4 && tj->nskip == 4, "%s: skipped %ld in %d kinds (M, ac2g, python_function, gpu_memcpy)",
          what, tj->skipped, tj->nskip);
    CHECK(tj->nsteps == 2 && tj->steps[0].number == 7 && tj->steps[0].has_cpu && tj->steps[0].has_gpu &&
          tj->steps[0].gpu0 == 150000 && tj->steps[0].cpu1 == 200000 && tj->steps[1].number == 8 && !tj->steps[1].has_gpu,
          "%s: steps 7 (both sides) and 8 (CPU side only)", what);
    static const int want[] = {P_LINEAR, P_ELEMENTWISE, P_ATTN, P_LINEAR, P_NORM, P_ELEMENTWISE, P_OTHER};
    int parts_ok = 1;
    for (int i = 0; i < tj->t.nk && i < 7; i++) parts_ok &= trace_kernel_part(&tj->t.k[i]) == want[i];
    CHECK(parts_ok, "%s: parts from the outermost op: linear (aten::linear around aten::mm), elementwise, attn "
                    "(sdpa around its mul: the outermost op decides, not the kernel name), linear, norm (no op: the name), "
                    "elementwise, other", what);

    TraceStats s;
    char err[512];
    int rc = trace_stats(tj, &s, err, sizeof err);
    CHECK(rc == 0, "%s: analysed: %s", what, rc ? err : "ok");
    if (rc) return;
    const double *v = s.step[0].v;
    CHECK(s.nsteps == 2 && !strcmp(s.windows, "mixed") && !strcmp(s.linear_from, "aten::linear"), "%s: %s, %s", what,
          s.windows, s.linear_from);
    CHECK(v[TS_KERNELS] == 5 && v[TS_LAUNCHES] == 5 && v[TS_LINEAR] == 2, "%s: step 7 counts %g %g %g", what,
          v[TS_KERNELS], v[TS_LAUNCHES], v[TS_LINEAR]);
    CHECK(near(v[TS_BUSY], 60.0 / 95) && near(v[TS_SPAN_US], 95) && near(v[TS_GPU_US], 60), "%s: busy %g", what, v[TS_BUSY]);
    CHECK(v[TS_GAPS] == 4 && near(v[TS_GAP_MEDIAN_US], 10), "%s: gaps 5, 10, 10, 10", what);
    CHECK(near(v[TS_HOST_BOUND], 5.0 / 35) && near(v[TS_HOST_BOUND_GAPS], 10.0 / 35), "%s: host-bound %g, whole gaps %g",
          what, v[TS_HOST_BOUND], v[TS_HOST_BOUND_GAPS]);
    CHECK(near(v[TS_CPU_PER_LAUNCH_US], 19) && near(v[TS_LAUNCH_CALL_US], 3) && near(v[TS_DISPATCH_US], 16),
          "%s: launches 27, 43, 11, 3 us apart (median 19), calls 3 us: dispatch 16 (%g %g %g)", what,
          v[TS_CPU_PER_LAUNCH_US], v[TS_LAUNCH_CALL_US], v[TS_DISPATCH_US]);
    CHECK(s.n_dispatch == 4 && near(s.dispatch_us[0], 22) && near(s.dispatch_us[1], 39) && near(s.dispatch_us[2], 8) &&
          near(s.dispatch_us[3], 1), "%s: the dispatch intervals, from the calls' ends (120, 146, 188, 198 us) to the "
          "next starts (142, 185, 196, 199), step 8's lone call none: %d (%g %g %g %g)",
          what, s.n_dispatch, s.n_dispatch > 0 ? s.dispatch_us[0] : NAN, s.n_dispatch > 1 ? s.dispatch_us[1] : NAN,
          s.n_dispatch > 2 ? s.dispatch_us[2] : NAN, s.n_dispatch > 3 ? s.dispatch_us[3] : NAN);
    v = s.step[1].v;
    CHECK(s.step[1].number == 8 && v[TS_KERNELS] == 1 && v[TS_LINEAR] == 0 && near(v[TS_BUSY], 1) && v[TS_GAPS] == 0 &&
          isnan(v[TS_HOST_BOUND]) && isnan(v[TS_CPU_PER_LAUNCH_US]), "%s: step 8 by its CPU side: one kernel", what);
    CHECK(s.median[TS_KERNELS] == 3 && near(s.median[TS_BUSY], (60.0 / 95 + 1) / 2) &&
          near(s.median[TS_HOST_BOUND], 5.0 / 35), "%s: medians leave undefined values out", what);
    CHECK(s.ntop == 3 && !strcmp(s.top[0].name, "nvjet_x") && !strcmp(s.top[0].parts, "linear") &&
          near(s.top[0].share, 40.0 / 70) && !strcmp(s.top[1].name, "elementwise_mul") &&
          !strcmp(s.top[1].parts, "elementwise") && near(s.top[1].calls_per_step, 1) && !strcmp(s.top[2].parts, "attn"),
          "%s: top %s %s %g / %s %s / %s", what, s.top[0].name, s.top[0].parts, s.top[0].share, s.top[1].name,
          s.top[1].parts, s.top[2].parts);
    trace_stats_free(&s);
}

static void test_torch_trace(void) {
    TraceJson tj;
    char err[512];
    int rc = trace_json_parse(TORCH_DOC, strlen(TORCH_DOC), &tj, err, sizeof err);
    CHECK(rc == 0, "the torch-shaped trace parses: %s", rc ? err : "ok");
    if (!rc) check_torch(&tj, "object");
    trace_json_free(&tj);
    CHECK(tj.t.k == NULL && tj.steps == NULL && tj.events == 0, "trace_json_free empties it");

    rc = trace_json_parse(TORCH_ARRAY, strlen(TORCH_ARRAY), &tj, err, sizeof err);
    CHECK(rc == 0, "the same events as a top-level array: %s", rc ? err : "ok");
    if (!rc) check_torch(&tj, "array");
    trace_json_free(&tj);

    char path[] = "/tmp/kit_trace_gz_XXXXXX";
    close(mkstemp(path));
    gzFile f = gzopen(path, "wb");
    CHECK(f && gzwrite(f, TORCH_DOC, (unsigned)strlen(TORCH_DOC)) == (int)strlen(TORCH_DOC) && gzclose(f) == Z_OK,
          "gzipped copy written");
    rc = trace_json_read(path, &tj, err, sizeof err);
    CHECK(rc == 0, "the gzipped copy reads: %s", rc ? err : "ok");
    if (!rc) check_torch(&tj, "gzip");
    trace_json_free(&tj);
    unlink(path);

    rc = trace_json_read("/nonexistent/trace.json", &tj, err, sizeof err);
    CHECK(rc == -1 && strstr(err, "/nonexistent/trace.json: no such file"), "a missing file: %s", err);
}

/* ---- 3. values the trace cannot give: not measured (NAN, and why), never 0 ------------- */

static void test_not_measured(void) {
    static const char *doc =
        "{\"traceEvents\": [{\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"name\":\"ProfilerStep#2\",\"ts\":0,\"dur\":100},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"ts\":10,\"dur\":5,\"args\":{\"correlation\":1}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"b\",\"ts\":30,\"dur\":5,\"args\":{\"correlation\":2}},"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"ts\":5,\"dur\":1,\"args\":{\"correlation\":99}}]}";
    TraceJson tj;
    TraceStats s;
    char err[512];
    int rc = trace_json_parse(doc, strlen(doc), &tj, err, sizeof err);
    CHECK(rc == 0, "a trace whose launch call joins no kernel: %s", rc ? err : "ok");
    if (rc) return;
    rc = trace_stats(&tj, &s, err, sizeof err);
    CHECK(rc == 0 && s.median[TS_GAPS] == 1 && s.median[TS_LAUNCHES] == 1 && isnan(s.median[TS_HOST_BOUND]) &&
          isnan(s.median[TS_HOST_BOUND_GAPS]) && s.why[TS_HOST_BOUND] &&
          strstr(s.why[TS_HOST_BOUND], "no gap's kernel has its launch call in the trace") && !s.why[TS_GAPS],
          "one gap, one launch call, the gap's kernel joins none: host_bound not measured (%g), why: %s",
          s.median[TS_HOST_BOUND], s.why[TS_HOST_BOUND] ? s.why[TS_HOST_BOUND] : "none");
    trace_stats_free(&s);
    trace_json_free(&tj);
}

/* ---- 4. gzip that went wrong after it was written ------------------------------------ */

/* A trace of n kernels (about 95 bytes each), gzipped at level 0: deflate's stored blocks,
 * the JSON bytes as they are, so one of them can be changed in the file. */
static void write_stored_trace(const char *path, int n) {
    gzFile f = gzopen(path, "wb0");
    gzputs(f, "{\"traceEvents\": [\n");
    for (int i = 0; i < n; i++)
        gzprintf(f, "%s{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k%d\", \"ts\": %d, \"dur\": 5, "
                    "\"args\": {\"correlation\": %d}}\n", i ? "," : "", i % 7, 10 + 10 * i, i + 1);
    gzputs(f, "]}\n");
    CHECK(gzclose(f) == Z_OK, "stored gzip trace written");
}

static void test_damaged_gzip(void) {
    char path[] = "/tmp/kit_trace_damaged_XXXXXX", err[512];
    close(mkstemp(path));
    write_stored_trace(path, 30000);   /* 2.8 MB: past the reader's first 1 MiB piece */
    TraceJson tj;
    int rc = trace_json_read(path, &tj, err, sizeof err);
    CHECK(rc == 0 && tj.t.nk == 30000, "the stored gzip trace reads: %s", rc ? err : "ok");
    trace_json_free(&tj);
    /* one ':' at about 100 KB becomes '#': the JSON breaks there, gzip's check at the end */
    FILE *f = fopen(path, "r+b");
    int c = 0;
    fseek(f, 100000, SEEK_SET);
    while ((c = fgetc(f)) != EOF && c != ':') {}
    fseek(f, -1, SEEK_CUR);
    fputc('#', f);
    fclose(f);
    rc = trace_json_read(path, &tj, err, sizeof err);
    CHECK(rc == -1 && strstr(err, "its gzip data is damaged (zlib: incorrect data check)") && !strstr(err, "JSON"),
          "a changed byte in a gzip file is gzip damage, not bad JSON: %s", err);
    unlink(path);
}

int main(void) {
    test_kit_trace();
    test_torch_trace();
    test_not_measured();
    test_damaged_gzip();
    return check_done("test_trace_read");
}
