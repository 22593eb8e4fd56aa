/* Day 07 · Why is the first run slow?
 *
 * The question (acceptance question 1): the first generate() of a fresh process takes several
 * times longer than the second, and the model has nothing to do with it. What does a first run
 * pay for? The lesson's answer: the CUDA context (driver, library handles, the first blocks of
 * device memory: hundreds of milliseconds to seconds), a kernel chosen per matrix shape (cuBLAS
 * may try candidates the first time a shape appears, then caches its pick), and clocks rising
 * from idle. Warm-up runs pay for all of it outside the timed window.
 *
 * A process can be "first" only once, so this program starts itself again as fresh processes
 * (three rounds) and, in each, times what a first run pays for and a second does not:
 *
 *   context_ms          process start -> cudaFree(0) returned: exec, loading cudart and cuBLAS'
 *                       shared libraries, creating the context
 *   cublas_handle_ms    cublasCreate: the library's own set-up and workspace
 *   first_gemm_ms       the first GEMM of a shape, against second_gemm_ms, the same call again:
 *                       cuBLAS picks a kernel and the driver loads its module on first use
 *                       (lazy loading); a shape seen before in the process (v after k) is fast
 *   load_ms             the weights onto the GPU (without --model: generated there, seeded)
 *   first_generate_ms   the first generate against the second, split into the prefill, the
 *                       first decode step and the rest
 *
 * Then, in this process, the lesson's bench() on 10 warm generates (a 64-token prompt, 32 new
 * tokens, eager, batch 1) after at least 3 warm-ups and one second, held to the lesson's bar:
 * range / median under 10%. And two reconciliations with the lesson's arithmetic: the weights'
 * device memory (the lesson: 1.1e9 x 2 bytes = 2.2 GB in fp16; 4.4 GB would mean fp32) with
 * the dtype on disk against the one computed in (mistake #1: a T4 has no bf16 tensor cores; the
 * kit always computes in fp16), and whether Llama-2-7B fits (the lesson: 13.5 GB of weights +
 * 1.5 GB of framework = 15 GB, all of a T4's usable memory: nothing left for the KV cache).
 *
 * Build and run:   make day07      (or: make bin/day07_warmup && bin/day07_warmup [--model DIR])
 * It prints the GPU in one line, then the answers in the order above: the first-run rows, a
 * line splitting the first generate's excess (prefill, first step, the rest), the warm rows,
 * weight_gb with a reading on the dtype, fit_7b_gb; on stderr, a line per fresh process.
 * --verbose adds every other row and line: each layer's first and second GEMM, the memory
 * around the load, the warm samples, and every line the fresh processes print. All the rows
 * go to results/rows.tsv either way.
 *
 * What to expect on a T4:
 *   first_over_warm     several times, as the lesson says; the excess sits in the first prefill
 *                       and the first decode step, not in the later steps
 *   warm_generate_ms    the eager prefill plus 31 decode steps, each near day11's forecast
 *                       `forecast_t4_tpot_ms_eager_b1_d0` 9.6-9.8 ms (H200 runs)
 *   warm_range_pct      under 10 on a quiet machine; eager generates are host-bound, so a busy
 *                       or shared host (a Colab VM is one) can break the lesson's bar: the
 *                       fastest and slowest samples then say whether the prefill or the steps moved
 *   weight_gb           theory the weights' bytes; measured a little more (the KV cache, workspace)
 *   fit_7b_gb           theory what 7B needs; measured this GPU's memory; the note says whether
 *                       it fits and how many tokens of 7B's KV cache the rest would hold
 * The reference runs' figures are in answers/reference/README.md ("day07").
 * It proves acceptance question 1 (context, per-shape kernel selection and loading, first
 * allocations) and mistakes #1 (dtype) and #2 (the first run timed).
 */
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "args.h"
#include "measure/timer.h"
#include "gpu/gemm.h"
#include "gpu/gpu.h"
#include "gpu/gpu_model.h"
#include "model/prompt.h"
#include "report/rows.h"
#include "measure/stats.h"
#include "model/theory.h"
#include "model/tokenizer.h"

extern char **environ;

enum { ROUNDS = 3, PROMPT = 64, NEW_TOKENS = 32, GENERATES = 3 };
static const double FRAMEWORK_GB = 1.5;   /* the lesson's allowance for PyTorch + CUDA context */
/* The answers the default prints, in the essay's order (--verbose: every row). */
static const char *const HEADLINES[] = {"context_ms", "cublas_handle_ms", "first_gemm_ms", "second_gemm_ms", "load_ms",
                                        "first_generate_ms", "warm_generate_ms", "first_over_warm", "warm_range_pct",
                                        "weight_gb", "fit_7b_gb", NULL};

static const char USAGE[] =
    "usage: day07_warmup [--model DIR] [--verbose]\n"
    "  Times what the first run of a fresh process pays for (context, cuBLAS, first GEMM\n"
    "  of each shape, weight load, first generate), then 10 warm generates, the device\n"
    "  memory of the weights and whether Llama-2-7B fits on this GPU.\n"
    "  --model DIR   config.json + model.safetensors (+ tokenizer.json); default: TinyLlama's\n"
    "                shape with synthetic weights\n"
    "  --verbose     every row and line, the fresh processes' own lines among them (over a hundred)\n";

static void run_config(const char *model_dir, Config *c) {
    char path[4096];
    if (!model_dir) { config_tinyllama(c); return; }
    snprintf(path, sizeof path, "%s/config.json", model_dir);
    config_load(c, path);
}

/* The linear layers of one decode step, in the order they run: 7 per layer, then lm_head. */
typedef struct { const char *name; int in, out; } Linear;
static int linears(const Config *c, Linear *L) {
    int q = c->n_heads * c->head_dim, kv = c->n_kv_heads * c->head_dim;
    Linear all[] = {{"q", c->dim, q},          {"k", c->dim, kv},      {"v", c->dim, kv},
                    {"o", q, c->dim},          {"gate", c->dim, c->ffn_dim}, {"up", c->dim, c->ffn_dim},
                    {"down", c->ffn_dim, c->dim}, {"lm_head", c->dim, c->vocab}};
    memcpy(L, all, sizeof all);
    return (int)(sizeof all / sizeof all[0]);
}

static double ms_since(uint64_t t0_ns) { return (double)(now_ns() - t0_ns) / 1e6; }

/* ---- 1. In a fresh process -----------------------------------------------------------
 * The parent passes the moment it spawned us (CLOCK_MONOTONIC is one clock for every
 * process), so "process start" includes exec and the dynamic loader pulling in cudart and
 * cuBLAS, as a first run does. Each child prints key=value lines into a pipe. */
static void child_gemm(uint64_t t0, const Config *c) {
    printf("main_ms=%.3f\n", ms_since(t0));
    uint64_t t = now_ns();
    CUDA_CHECK(cudaFree(0));                       /* the idiom that forces the context now */
    printf("cudafree_ms=%.3f\ncontext_ms=%.3f\n", ms_since(t), ms_since(t0));
    cublasHandle_t h;
    t = now_ns();
    CUBLAS_CHECK(cublasCreate(&h));
    printf("cublas_handle_ms=%.3f\n", ms_since(t));

    Linear L[8];
    int n = linears(c, L);
    size_t maxw = 0, maxv = 0;
    for (int i = 0; i < n; i++) {
        if ((size_t)L[i].in * L[i].out > maxw) maxw = (size_t)L[i].in * L[i].out;
        if ((size_t)L[i].in > maxv) maxv = L[i].in;
        if ((size_t)L[i].out > maxv) maxv = L[i].out;
    }
    void *W = gpu_random_f16(maxw, 1), *x = gpu_random_f16(maxv, 2), *y = gpu_random_f16(maxv, 3);
    CUDA_CHECK(cudaDeviceSynchronize());
    for (int i = 0; i < n; i++)
        for (int rep = 0; rep < 2; rep++) {   /* batch 1: the decode step's shape */
            t = now_ns();
            gemm_linear_f16(h, W, x, y, 1, L[i].in, L[i].out);
            CUDA_CHECK(cudaDeviceSynchronize());
            printf("gemm_%s_%s_ms=%.4f\n", L[i].name, rep ? "second" : "first", ms_since(t));
        }
    CUDA_CHECK(cudaFree(W)); CUDA_CHECK(cudaFree(x)); CUDA_CHECK(cudaFree(y));
    CUBLAS_CHECK(cublasDestroy(h));
}

static void child_generate(uint64_t t0, const char *model_dir) {
    CUDA_CHECK(cudaFree(0));
    printf("context_ms=%.3f\n", ms_since(t0));
    GpuModelOpts o = {.model_dir = model_dir, .seed = 1, .max_batch = 1, .quiet = 1};
    uint64_t t = now_ns();
    GpuModel *m = gpu_model_open(&o);
    printf("open_ms=%.3f\nload_ms=%.3f\nload_bytes=%lld\n", ms_since(t), gpu_model_load_ms(m),
           gpu_model_weight_bytes(m));
    const Config *c = gpu_model_config(m);
    int ids[PROMPT], out[NEW_TOKENS];
    prompt_ids(model_dir, c, PROMPT, ids);
    static GenTiming g;   /* 32 KB: not on the stack */
    for (int k = 1; k <= GENERATES; k++) {
        t = now_ns();
        g = gpu_generate(m, ids, PROMPT, 1, NEW_TOKENS, MODE_EAGER, out, NULL, NULL);
        printf("generate_%d_ms=%.3f\nttft_%d_ms=%.3f\nfirst_step_%d_ms=%.3f\nstep_%d_ms=%.3f\n", k,
               ms_since(t), k, g.ttft_ms, k, g.n_steps ? g.step_ms[0] : NAN, k,
               median_of(g.step_ms, g.n_steps));
    }
    gpu_model_free(m);
}

/* ---- the parent's side: spawn, collect, summarise ---------------------------------------- */
typedef struct { int n; char key[96][48]; double val[96]; } KV;

static double kv_get(const KV *kv, const char *key) {
    for (int i = 0; i < kv->n; i++)
        if (strcmp(kv->key[i], key) == 0) return kv->val[i];
    return NAN;
}

static int g_verbose;   /* --verbose: every row, and every line the fresh processes print */
static void spawn_child(const char *kind, const char *model_dir, KV *kv, int round) {
    int fd[2];
    if (pipe(fd) != 0) die("day07: pipe() failed; too many open files?");
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
    posix_spawn_file_actions_addclose(&fa, fd[0]);
    char t0[32];
    char *argv[] = {(char *)"day07_warmup", (char *)"--child", (char *)kind, (char *)"--child-t0", t0,
                    (char *)(model_dir ? "--model" : NULL), (char *)model_dir, NULL};
    pid_t pid;
    fflush(stdout);
    snprintf(t0, sizeof t0, "%llu", (unsigned long long)now_ns());
    if (posix_spawn(&pid, "/proc/self/exe", &fa, NULL, argv, environ) != 0)
        die("day07: could not start /proc/self/exe as a child process");
    posix_spawn_file_actions_destroy(&fa);
    close(fd[1]);
    FILE *f = fdopen(fd[0], "r");
    char line[256];
    kv->n = 0;
    while (f && fgets(line, sizeof line, f)) {
        char *eq = strchr(line, '=');
        if (!eq || kv->n == 96) continue;
        *eq = 0;
        snprintf(kv->key[kv->n], sizeof kv->key[0], "%.47s", line);
        kv->val[kv->n++] = strtod(eq + 1, NULL);
        if (g_verbose) printf("%s%d.%s=%s", kind, round, line, eq + 1);   /* echo, prefixed with who said it */
    }
    if (f) fclose(f);
    int st = 0;
    waitpid(pid, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        die("day07: the fresh '%s' process failed (its message is above); fix that first", kind);
}

/* Median over the rounds of one key. */
static double over_rounds(const KV *kv, int n, const char *key) {
    double x[ROUNDS * 2];
    int k = 0;
    for (int i = 0; i < n; i++) {
        double v = kv_get(&kv[i], key);
        if (!isnan(v)) x[k++] = v;
    }
    return median_of(x, k);
}

/* bench() calls this: one whole generate, its TTFT and median step kept for the diagnosis. */
typedef struct {
    GpuModel *m;
    const int *ids;
    int calls;
    double ttft[64], step[64];
} GenCtx;
static void generate_once(void *p) {
    GenCtx *g = (GenCtx *)p;
    static GenTiming t;
    int out[NEW_TOKENS];
    t = gpu_generate(g->m, g->ids, PROMPT, 1, NEW_TOKENS, MODE_EAGER, out, NULL, NULL);
    if (g->calls < 64) {
        g->ttft[g->calls] = t.ttft_ms;
        g->step[g->calls] = median_of(t.step_ms, t.n_steps);
    }
    g->calls++;
}

int main(int argc, char **argv) {
    const char *model_dir = NULL, *t0_text = NULL;
    enum { GEMM, GENERATE };
    int child = -1;                                 /* -1: this is the parent */
    const ArgFlag flags[] = {
        ARG_MODEL(&model_dir),
        ARG_VERBOSE(&g_verbose),
        /* not in the usage: spawn_child starts this program again as a fresh process with these */
        {"--child", ARG_CHOICE, &child, 0, 0, "gemm|generate"},
        {"--child-t0", ARG_STRING, &t0_text, 0, 0, "the parent's now_ns() at the spawn"},
        {0},
    };
    args_parse("day07", USAGE, argc, argv, flags, NULL);
    Config c;
    run_config(model_dir, &c);
    if (child >= 0) {
        /* 64 bits of nanoseconds: the integer rule, outside the table's int */
        const uint64_t t0 = (uint64_t)arg_int("day07", "--child-t0", t0_text ? t0_text : "(none)", 0, INT64_MAX,
                                              "the parent's now_ns() at the spawn");
        if (child == GEMM) child_gemm(t0, &c);
        else child_generate(t0, model_dir);
        return 0;
    }

    setvbuf(stdout, NULL, _IOLBF, 0);          /* each line as it comes, in order with stderr's progress */
    rows_quiet(!g_verbose);
    rows_headlines(HEADLINES);
    printf("# Day 07: why is the first run slow?\n");
    GpuFacts g;
    gpu_facts(&g);
    rows_tag(g.emulated);                      /* KIT_GPU=t4: every row says it is the emulated T4 path */
    gpu_facts_print(&g, g_verbose);
    if (g_verbose) config_print(&c);
    if (!model_dir) detail("weights=synthetic (TinyLlama's shape, seeded values: timings and bytes are real, the text is not)\n");
    int drv = 0, rt = 0;
    CUDA_CHECK(cudaDriverGetVersion(&drv));
    CUDA_CHECK(cudaRuntimeGetVersion(&rt));
    char note[256];
    snprintf(note, sizeof note, "%.200s, driver %d.%d, runtime %d.%d", g.name, drv / 1000, drv % 1000 / 10,
             rt / 1000, rt % 1000 / 10);
    report("day07", "gpu", NAN, g.cc_major * 10 + g.cc_minor, "cc", note);

    /* ---- 2. Fresh processes: what a first run pays for ---------------------------------
     * This process already holds a context (it asked for the facts above), as a notebook
     * does; contexts are per process, so every child pays for its own. Each round runs a
     * "gemm" child (context, cuBLAS handle, first vs second GEMM of each shape) and a
     * "generate" child (context, weight load, first three generates), so neither warms the
     * other's kernels. */
    const char *ml = getenv("CUDA_MODULE_LOADING");
    detail("\n## fresh processes (%d rounds); CUDA_MODULE_LOADING=%s\n", ROUNDS,
           ml ? ml : "unset (lazy: a kernel's module loads on its first launch)");
    KV gk[ROUNDS], gn[ROUNDS], all[ROUNDS * 2];
    const int phases = 2 * ROUNDS + 1;         /* the fresh processes, then the warm generates */
    for (int r = 0; r < ROUNDS; r++) {
        char what[64];
        snprintf(what, sizeof what, "a fresh process: first GEMMs (round %d)", r + 1);
        progress(2 * r + 1, phases, what);
        spawn_child("gemm", model_dir, &gk[r], r + 1);
        snprintf(what, sizeof what, "a fresh process: load and first generates (round %d)", r + 1);
        progress(2 * r + 2, phases, what);
        spawn_child("generate", model_dir, &gn[r], r + 1);
        all[2 * r] = gk[r];
        all[2 * r + 1] = gn[r];
    }
    detail("\n## medians over the fresh processes\n");
    double ctx = over_rounds(all, 2 * ROUNDS, "context_ms");
    report("day07", "context_ms", NAN, ctx, "ms", "process start -> cudaFree(0) returned, fresh processes");
    detail("main_ms=%.1f (of which: exec + loading cudart and cuBLAS before main())\n", over_rounds(gk, ROUNDS, "main_ms"));
    report("day07", "cublas_handle_ms", NAN, over_rounds(gk, ROUNDS, "cublas_handle_ms"), "ms", "cublasCreate in a fresh process");

    /* The first call of a shape against its second call. A shape seen earlier in the same
     * process (v after k, o after q, up after gate) is already cheap on its first call: the
     * cost belongs to the shape and its kernel, not to the weights. */
    Linear L[8];
    int nl = linears(&c, L);
    double first_sum = 0, second_sum = 0;
    detail("\n## first vs second GEMM of each linear layer (batch 1, cublasGemmEx fp16, synced wall clock)\n");
    for (int i = 0; i < nl; i++) {
        char k1[64], k2[64];
        snprintf(k1, sizeof k1, "gemm_%s_first_ms", L[i].name);
        snprintf(k2, sizeof k2, "gemm_%s_second_ms", L[i].name);
        double a = over_rounds(gk, ROUNDS, k1), b = over_rounds(gk, ROUNDS, k2);
        int seen = 0;
        for (int j = 0; j < i; j++) seen |= L[j].in == L[i].in && L[j].out == L[i].out;
        detail("gemm=%-8s shape=%dx%d first_ms=%.3f second_ms=%.3f first_over_second=%.1f%s\n", L[i].name,
               L[i].out, L[i].in, a, b, a / b, seen ? " (shape already used in this process)" : "");
        first_sum += a;
        second_sum += b;
    }
    detail("gemm_first_sum_ms=%.3f gemm_second_sum_ms=%.3f\n", first_sum, second_sum);
    report("day07", "first_gemm_ms", NAN, over_rounds(gk, ROUNDS, "gemm_q_first_ms"), "ms",
           "q projection shape, first cuBLAS GEMM of a fresh process");
    report("day07", "second_gemm_ms", NAN, over_rounds(gk, ROUNDS, "gemm_q_second_ms"), "ms",
           "the same shape, called again");

    double load_ms = over_rounds(gn, ROUNDS, "load_ms"), load_bytes = over_rounds(gn, ROUNDS, "load_bytes");
    detail("\n");
    report("day07", "load_ms", NAN, load_ms, "ms", model_dir ? "safetensors -> fp16 on the GPU" : "synthetic weights generated on the GPU");
    report("day07", "load_gbs", NAN, load_bytes / (load_ms * 1e-3) / 1e9, "GB/s",
           model_dir ? "fp16 bytes on the GPU / load time (the page cache helps after round 1)" : "synthetic: GPU fill rate, not a disk");
    /* Where the first generate's extra time goes: generate 1 against generate 2 of the
     * same process, split into the prefill (TTFT), the first decode step and the rest. */
    double gen[2], ttft[2], step0[2], step[2];
    for (int k = 0; k < 2; k++) {
        char key[32];
        snprintf(key, sizeof key, "generate_%d_ms", k + 1); gen[k] = over_rounds(gn, ROUNDS, key);
        snprintf(key, sizeof key, "ttft_%d_ms", k + 1); ttft[k] = over_rounds(gn, ROUNDS, key);
        snprintf(key, sizeof key, "first_step_%d_ms", k + 1); step0[k] = over_rounds(gn, ROUNDS, key);
        snprintf(key, sizeof key, "step_%d_ms", k + 1); step[k] = over_rounds(gn, ROUNDS, key);
        detail("generate_%d: total_ms=%.2f ttft_ms=%.2f first_step_ms=%.3f median_step_ms=%.3f\n", k + 1, gen[k],
               ttft[k], step0[k], step[k]);
    }
    double excess = gen[0] - gen[1], ex_ttft = ttft[0] - ttft[1], ex_step0 = step0[0] - step0[1];
    printf("first_generate_excess_ms=%.2f (prefill %.2f, first decode step %.2f, other steps and host %.2f)\n",
           excess, ex_ttft, ex_step0, excess - ex_ttft - ex_step0);
    double first_gen = gen[0];

    /* ---- 3. This process: the model loaded, cudaMemGetInfo around the load (section 5 reads
     * it: the weights, the static KV cache, the workspaces) ------------------------------ */
    size_t free0, free1, total;
    CUDA_CHECK(cudaMemGetInfo(&free0, &total));
    GpuModelOpts o = {.model_dir = model_dir, .seed = 1, .max_batch = 1, .quiet = !g_verbose};
    GpuModel *m = gpu_model_open(&o);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemGetInfo(&free1, &total));
    const Config *mc = gpu_model_config(m);

    /* ---- 4. Warm: the lesson's bench(): warm-up generates, a synchronize, 10 samples.
     * The bar for a number you may compare with anything: range / median < 10%. The lesson
     * warms up 2-3 times; clocks and a busy host can take longer to settle (on the H200 VM
     * the kit was tested on, the first half second of eager generates ran 25% slower), so
     * the kit warms up for at least 3 generates and at least one second. */
    progress(phases, phases, "10 warm generates");
    detail("\n## 10 warm generates (prompt %d tokens, %d new, eager, batch 1)\n", PROMPT, NEW_TOKENS);
    int ids[PROMPT];
    prompt_ids(model_dir, mc, PROMPT, ids);
    static GenCtx gc;
    gc.m = m;
    gc.ids = ids;
    int warm = 0;
    const int kept = (int)(sizeof gc.ttft / sizeof gc.ttft[0]) - 10;   /* the samples' timings too */
    for (double t0 = now_ms(); (warm < 3 || now_ms() - t0 < 1000) && warm < kept; warm++) generate_once(&gc);
    BenchOpts bo = {.warmup = -1, .iters = 10};          /* warmed up above; bench still syncs */
    BenchResult r = bench(generate_once, &gc, bo);
    if (g_verbose) {
        printf("warm_samples_ms=");
        for (int i = 0; i < r.n; i++) printf("%s%.2f", i ? "," : "", r.samples_ms[i]);
        printf("\nwarm_median_ms=%.2f warm_min_ms=%.2f warm_max_ms=%.2f warm_mean_ms=%.2f warm_sd_ms=%.2f\n",
               r.s.median, r.s.min, r.s.max, r.s.mean, r.s.sd);
    }
    report("day07", "first_generate_ms", NAN, first_gen, "ms", "the first generate of a fresh process (model loaded)");
    char warm_note[64];
    snprintf(warm_note, sizeof warm_note, "median of 10 after %d warm-ups (>= 1 s)", warm);
    report("day07", "warm_generate_ms", NAN, r.s.median, "ms", warm_note);
    report("day07", "first_over_warm", NAN, first_gen / r.s.median, "x", "first generate / warm median");
    double range_pct = 100 * r.s.range_over_median;
    report("day07", "warm_range_pct", 10, range_pct, "%",
           range_pct < 10 ? "within the lesson's 10% bar" : "over the lesson's 10% bar: see the samples");
    /* Where the spread came from: which sample was slowest (an early one says the warm-up was
     * short; a later one, the machine), and whether its extra time, against the fastest, was
     * in the prefill (TTFT) or the decode steps. Rows, so the report can reason from them. */
    int lo = 0, hi = 0;
    for (int i = 1; i < r.n; i++) {
        if (r.samples_ms[i] < r.samples_ms[lo]) lo = i;
        if (r.samples_ms[i] > r.samples_ms[hi]) hi = i;
    }
    const int w = warm;        /* the call index = warm-up count + sample index */
    const double d_ttft = gc.ttft[w + hi] - gc.ttft[w + lo], d_steps = (gc.step[w + hi] - gc.step[w + lo]) * (NEW_TOKENS - 1);
    const double decode_pct = d_ttft + d_steps > 0 ? 100 * fmax(0, d_steps) / (fmax(0, d_ttft) + fmax(0, d_steps)) : NAN;
    detail("fastest: sample %d %.2f ms (ttft %.2f ms, median step %.3f ms)\n", lo + 1, r.samples_ms[lo], gc.ttft[w + lo],
           gc.step[w + lo]);
    detail("slowest: sample %d %.2f ms (ttft %.2f ms, median step %.3f ms)\n", hi + 1, r.samples_ms[hi], gc.ttft[w + hi],
           gc.step[w + hi]);
    report("day07", "warm_slowest_sample", NAN, hi + 1, "count", "which of the 10 warm samples was slowest (1 = the first)");
    report("day07", "warm_spread_decode_pct", NAN, decode_pct, "%",
           "of the slowest sample's extra time over the fastest, the share in the decode steps (the rest: the prefill)");
    if (range_pct >= 10)
        printf("reading: %s varied%s; other work on the GPU or host, or clocks changing, are the usual causes\n",
               decode_pct > 50 ? "the decode steps" : "the prefill (TTFT)",
               hi < 2 ? ", in one of the first samples: the warm-up was not long enough" : "");

    /* ---- 5. The weights in device memory, and their dtype ------------------------------ */
    detail("\n## the weights in this process\n");
    double used_gb = (double)(free0 - free1) / 1e9;
    double w_gb = weight_bytes(mc) / 1e9;
    double kv_gb = kv_bytes_per_token(mc) * mc->max_seq / 1e9;
    detail("mem_used_after_load_gb=%.3f expect_weights_gb=%.3f expect_kv_cache_gb=%.3f rest_gb=%.3f\n", used_gb,
           w_gb, kv_gb, used_gb - w_gb - kv_gb);
    snprintf(note, sizeof note, "device memory used by the load (weights + %.3f GB KV cache + workspace); %.2f GB would be fp32",
             kv_gb, 2 * w_gb);
    report("day07", "weight_gb", w_gb, used_gb, "GB", note);
    const char *disk = gpu_model_disk_dtype(m);
    detail("dtype_config=%s dtype_on_disk=%s dtype_computed=fp16 bf16_tensor_cores=%s\n", mc->dtype, disk,
           g.has_bf16_tc ? "yes" : "no");
    if (!g.has_bf16_tc)
        printf("reading: cc %d.%d has no bf16 tensor cores (they start at 8.0, Ampere): computing in bf16 here "
               "would fail or crawl (mistake #1); the kit converts %s to fp16 on load\n", g.cc_major, g.cc_minor, disk);
    else
        printf("reading: this GPU has bf16 tensor cores, but the kit computes in fp16 everywhere so that a T4 "
               "and this GPU run the same math\n");

    /* ---- 6. Would Llama-2-7B fit here? The lesson's arithmetic for this GPU -----------
     * Usable = free memory once a context exists. Weights + framework must fit, and what
     * is left holds the KV cache, 512 KB per token for 7B (MHA: every head keeps K and V). */
    detail("\n## will Llama-2-7B fit on this GPU?\n");
    Config l7;
    config_llama2_7b(&l7);
    FitGB f = fit_gb(&l7, FRAMEWORK_GB, 0);
    double gpu_gb = g.mem_bytes / 1e9, usable_gb = g.mem_free_bytes / 1e9;
    double left_gb = usable_gb - f.total_gb;
    double kv_tokens = left_gb > 0 ? left_gb * 1e9 / kv_bytes_per_token(&l7) : 0;
    detail("fit_7b: weights %.1f GB + framework %.1f GB = %.1f GB; this GPU %.1f GB, usable %.1f GB; "
           "left %.1f GB = %.0f tokens of KV at %.0f KB each\n", f.weights_gb, f.framework_gb, f.total_gb, gpu_gb,
           usable_gb, left_gb, kv_tokens, kv_bytes_per_token(&l7) / 1024);
    if (left_gb <= 0)
        snprintf(note, sizeof note, "does not fit: %.1f GB needed before any KV cache, %.1f GB usable", f.total_gb, usable_gb);
    else if (kv_tokens < l7.max_seq)
        snprintf(note, sizeof note, "weights fit, KV room for %.0f tokens only (< one %d-token context)", kv_tokens, l7.max_seq);
    else
        snprintf(note, sizeof note, "fits: %.1f GB left = %.0f tokens of KV (%.0f full %d-token contexts)", left_gb,
                 kv_tokens, kv_tokens / l7.max_seq, l7.max_seq);
    report("day07", "fit_7b_gb", f.total_gb, gpu_gb, "GB", note);
    FitGB t = fit_gb(mc, FRAMEWORK_GB, 0);
    detail("fit_this_model: %.2f GB + %.1f GB framework; KV %.1f KB per token -> room for %.0f tokens\n",
           t.weights_gb, t.framework_gb, kv_bytes_per_token(mc) / 1e3,
           (usable_gb - t.total_gb) * 1e9 / kv_bytes_per_token(mc));
    gpu_model_free(m);
    return 0;
}
