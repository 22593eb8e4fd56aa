/* tinyllama: generate greedy tokens with TinyLlama-1.1B, on the GPU in fp16 (the kit's
 * model layer) or on the CPU in fp32 (the reference every GPU number is checked against).
 *
 *   bin/tinyllama                                   synthetic weights, GPU, CUDA graph
 *   bin/tinyllama --model models/TinyLlama-1.1B-Chat-v1.0 --prompt "The llama is"
 *   bin/tinyllama --model ../shared/fixtures/tiny-llama --cpu --dump-logits /tmp/l.f32
 *   bin/tinyllama --quant int8 --vs-fp16 64        int8 weights, and what they trade against fp16
 *
 * Prints `tokens=` (the generated ids), `text=` when the model folder has a
 * tokenizer.json, and on the GPU ttft_ms, tpot_ms (median decode step), tpot_range
 * ((max - min) / median), kernels_per_step, gemms_per_step and step_weight_gb (the bytes of
 * weights a step's linear layers read, and unfused int8's dequantize kernels write).
 * --mode persistent (beyond the week: the whole step in one kernel) where it does not run (not
 * sm_90 code, the T4 switch, int8 weights, more rows than it takes) is one sentence and exit 1,
 * like any request this GPU cannot serve: `error: --mode persistent: not run: <why>`. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "args.h"
#include "model/config.h"
#include "gpu/dispatch.h"
#include "gpu/gpu_model.h"
#include "gpu/launch.h"
#include "model/model.h"
#include "model/safetensors.h"
#include "measure/stats.h"
#include "model/tokenizer.h"
#include "util.h"

static const char *USAGE =
    "usage: bin/tinyllama [--model DIR | --synthetic] [--cpu] [--prompt TEXT | --prompt-ids 1,2,3]\n"
    "                     [--new N] [--dump-logits FILE] [--seed N]\n"
    "                     [--mode eager|fused|graph|graph_eager|persistent] [--batch B] [--dispatch-us N]\n"
    "                     [--dispatch-from TRACE]\n"
    "                     [--quant fp16|int8|int8_unfused] [--vs-fp16 N]\n"
    "  --model DIR        config.json + model.safetensors (+ tokenizer.json); make model fetches them\n"
    "  --synthetic        TinyLlama's shapes with seeded weights (the default without --model)\n"
    "  --cpu              the fp32 CPU reference instead of the GPU\n"
    "  --prompt TEXT      needs DIR/tokenizer.json; --prompt-ids takes token ids instead\n"
    "                     (default ids: <s> The llama is a domesticated South American camelid)\n"
    "  --new N            tokens to generate (default 16)\n"
    "  --dump-logits FILE float32 little-endian [prompt_len x vocab]: logits at every prompt position\n"
    "  --seed N           synthetic weights' seed (default 1)\n"
    "  --mode M           GPU decode: eager, fused, graph (default) or graph_eager; beyond the week,\n"
    "                     persistent: the whole step in one kernel (sm_90, fp16, up to 8 rows)\n"
    "  --batch B          GPU batch rows, all with the same prompt (default 1)\n"
    "  --dispatch-us N    host busy-wait before each launch, like a Python dispatcher: drawn from a real\n"
    "                     PyTorch trace's host gaps, N their median (default 0: none; the days use 14)\n"
    "  --dispatch-from TRACE  draw the waits from your torch.profiler trace (its median, or --dispatch-us's)\n"
    "  --quant Q          the weights: fp16 (default); int8 weight-only, a scale per output row, which the\n"
    "                     fused and graph GEMVs read as int8; int8_unfused, each layer dequantized to fp16\n"
    "                     first (what eager does under either int8); with --cpu, the fp32 int8 reference\n"
    "  --vs-fp16 N        (GPU, int8) fp16 generates N tokens; both read them: top-1 agreement, max |dlogit|\n";

static const int DEFAULT_PROMPT[] = {1, 450, 11148, 3304, 338, 263, 21849, 630, 4275, 3082, 3949, 295, 333};

typedef struct {
    const char *model_dir, *prompt, *prompt_ids, *dump, *dispatch_from;
    int cpu, synthetic, n_new, batch, mode, quant, vs_fp16;
    double dispatch_us;
    unsigned long long seed;
} Args;

static Args parse_args(int argc, char **argv) {
    Args a = {};
    a.n_new = 16, a.batch = 1, a.mode = MODE_GRAPH, a.dispatch_us = NAN;   /* NAN: --dispatch-us not given */
    int seed = 1;   /* into a.seed after parsing: the table's integers are int */
    const ArgFlag flags[] = {
        ARG_MODEL(&a.model_dir),
        {"--synthetic", ARG_FLAG, &a.synthetic, 0, 0, "seeded weights"},
        {"--cpu", ARG_FLAG, &a.cpu, 0, 0, "the fp32 CPU reference"},
        {"--prompt", ARG_STRING, &a.prompt, 0, 0, "the prompt's text"},
        {"--prompt-ids", ARG_STRING, &a.prompt_ids, 0, 0, "token ids, e.g. 1,450,11148"},
        {"--dump-logits", ARG_STRING, &a.dump, 0, 0, "a file for the prompt's logits"},
        {"--new", ARG_INT, &a.n_new, 1, 1e9, "tokens to generate"},
        {"--seed", ARG_INT, &seed, 0, 1e9, "the synthetic weights' seed"},
        {"--batch", ARG_INT, &a.batch, 1, 1e9, "GPU batch rows"},
        ARG_DISPATCH_US(&a.dispatch_us),
        ARG_DISPATCH_FROM(&a.dispatch_from),
        {"--vs-fp16", ARG_INT, &a.vs_fp16, 1, 1e9, "tokens fp16 generates for the comparison"},
        {"--quant", ARG_CHOICE, &a.quant, 0, 0, "fp16|int8|int8_unfused"},                       /* Quant's order */
        {"--mode", ARG_CHOICE, &a.mode, 0, 0, "eager|fused|graph|graph_eager|persistent"},     /* Mode's order */
        {0},
    };
    args_parse("tinyllama", USAGE, argc, argv, flags, NULL);
    a.dispatch_us = dispatch_setup("tinyllama", a.dispatch_us, a.dispatch_from, 0);
    a.seed = (unsigned long long)seed;
    if (a.model_dir && a.synthetic) die("--model and --synthetic exclude each other; pick one");
    if (a.prompt && a.prompt_ids) die("--prompt and --prompt-ids exclude each other; pick one");
    if (a.vs_fp16 && (a.cpu || a.quant == QUANT_FP16))
        die("--vs-fp16 compares int8 with fp16 on the GPU: give it --quant int8 (or int8_unfused), without --cpu");
    return a;
}

/* The prompt as token ids (at most max_ids; one more means it does not fit). */
static int prompt_tokens(const Args *a, const Tokenizer *tok, const char *tok_path, int *ids, int max_ids) {
    int n = 0;
    if (a->prompt) {
        if (!tok) die("%s: --prompt needs this tokenizer.json (make model fetches it); or pass --prompt-ids",
                      tok_path ? tok_path : "--model DIR/tokenizer.json");
        n = tok_encode(tok, a->prompt, 1, ids, max_ids);
        return n < 0 ? max_ids + 1 : n;
    }
    if (!a->prompt_ids) {
        n = (int)(sizeof DEFAULT_PROMPT / sizeof DEFAULT_PROMPT[0]);
        memcpy(ids, DEFAULT_PROMPT, sizeof DEFAULT_PROMPT);
        return n;
    }
    for (const char *s = a->prompt_ids; *s; n++) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || (*end && *end != ',') || v < 0 || v > 2147483647L)
            die("--prompt-ids %s: expected comma-separated token ids, e.g. 1,450,11148", a->prompt_ids);
        if (n < max_ids) ids[n] = (int)v;
        s = *end ? end + 1 : end;
    }
    if (n == 0) die("--prompt-ids: the list is empty");
    return n;
}

static void write_logits(const char *path, const float *logits, size_t count) {
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(logits, sizeof(float), count, f) != count || fclose(f) != 0)
        die("%s: cannot write the logits file (--dump-logits)", path);
}

/* tokens= (the generated ids), then text= on one line (newlines shown as \n) when there
 * is a tokenizer */
static void print_result(const int *ids, int n, const Tokenizer *tok, const char *tok_path) {
    printf("tokens=");
    for (int i = 0; i < n; i++) printf(i ? ",%d" : "%d", ids[i]);
    printf("\n");
    if (!tok) return;
    int bad = 0;
    char *s = tok_decode(tok, ids, n, &bad);
    if (!s) die("%s: generated token id %d is not in this tokenizer's vocabulary", tok_path, bad);
    printf("text=");
    for (const char *p = s; *p; p++)
        if (*p == '\n') fputs("\\n", stdout);
        else putchar(*p);
    printf("\n");
    free(s);
}

/* The fp32 reference: prefill every prompt token, then one token at a time with the
 * KV cache, greedy. */
static void run_cpu(const Config *c, const Args *a, const int *ids, int n,
                    const Tokenizer *tok, const char *tok_path) {
    SafeTensors st;
    if (a->model_dir) st_open(&st, a->model_dir);
    CpuModel *m = cpu_model_open(c, a->model_dir ? &st : NULL, a->seed, n + a->n_new);
    if (a->quant != QUANT_FP16) cpu_model_quantize_int8(m);     /* int8 and int8_unfused: the same math */
    float *logits = (float *)xmalloc((size_t)n * c->vocab * sizeof(float));
    int *out = (int *)xmalloc(sizeof(int) * a->n_new);
    double *step_ms = (double *)xmalloc(sizeof(double) * a->n_new);
    double t0 = now_ms();
    cpu_forward(m, ids, n, 0, logits, a->dump != NULL);
    out[0] = argmax_f32(logits + (a->dump ? (size_t)(n - 1) * c->vocab : 0), c->vocab);
    double ttft = now_ms() - t0;
    if (a->dump) write_logits(a->dump, logits, (size_t)n * c->vocab);
    for (int i = 1; i < a->n_new; i++) {
        double t = now_ms();
        cpu_forward(m, &out[i - 1], 1, n + i - 1, logits, 0);
        out[i] = argmax_f32(logits, c->vocab);
        step_ms[i - 1] = now_ms() - t;
    }
    print_result(out, a->n_new, tok, tok_path);
    printf("quant=%s\n", a->quant == QUANT_FP16 ? "fp32 (the reference)" : "int8 (fp32 arithmetic on int8-representable weights)");
    printf("cpu_ttft_ms=%.3f\n", ttft);
    if (a->n_new > 1) printf("cpu_tpot_ms=%.3f\n", stats_of(step_ms, a->n_new - 1).median);
    free(out);
    free(step_ms);
    free(logits);
    cpu_model_free(m);
    if (a->model_dir) st_close(&st);
}

/* The GPU model: prefill + decode steps in the chosen mode, every row the same prompt. */
static void run_gpu(const Config *c, const Args *a, const int *ids, int n,
                    const Tokenizer *tok, const char *tok_path) {
    GpuModelOpts o = {};
    o.model_dir = a->model_dir, o.seed = a->seed, o.max_batch = a->batch, o.max_seq = 0, o.quiet = 0;
    o.quant = (Quant)a->quant;
    GpuModel *m = gpu_model_open(&o);
    const char *no = gpu_mode_refusal(m, (Mode)a->mode, a->batch);
    if (no) die("--mode %s: not run: %s", mode_name((Mode)a->mode), no);
    if (a->dump) {
        float *logits = (float *)xmalloc((size_t)n * c->vocab * sizeof(float));
        gpu_prefill(m, (Mode)a->mode, ids, n, 1, logits);
        write_logits(a->dump, logits, (size_t)n * c->vocab);
        free(logits);
    }
    g_launch.dispatch_us = a->dispatch_us;
    int *all = (int *)xmalloc(sizeof(int) * a->batch * a->n_new);
    GenTiming t = gpu_generate(m, ids, n, a->batch, a->n_new, (Mode)a->mode, all, NULL, NULL);
    int agree = 1;
    for (int r = 1; r < a->batch; r++) agree &= !memcmp(all, all + r * a->n_new, sizeof(int) * a->n_new);
    print_result(all, a->n_new, tok, tok_path);
    if (a->batch > 1) printf("rows_agree=%s\n", agree ? "yes" : "no (batch rows with the same prompt differ)");
    Stats s = stats_of(t.step_ms, t.n_steps);
    StepCounts k = gpu_step_counts(m, (Mode)a->mode);
    printf("mode=%s batch=%d dispatch_median_us=%g quant=%s\n", mode_name((Mode)a->mode), a->batch, a->dispatch_us,
           quant_name((Quant)a->quant));
    if (a->dispatch_us > 0) {
        const DispatchShape *d = dispatch_shape();
        printf("dispatch_p90_us=%.3g dispatch_mean_us=%.3g dispatch_source=\"%s\"\n", a->dispatch_us * dispatch_quantile(d, 90),
               a->dispatch_us * dispatch_mean(d), d->source);
    }
    printf("ttft_ms=%.3f\n", t.ttft_ms);
    if (t.n_steps > 0) {
        printf("tpot_ms=%.3f\n", s.median);
        printf("tpot_range=%.3f\n", s.range_over_median);
    }
    printf("kernels_per_step=%d\n", k.kernels);
    printf("gemms_per_step=%d\n", k.gemms);
    printf("step_weight_gb=%.4f\n", k.weight_bytes / 1e9);
    free(all);
    gpu_model_free(m);
}

/* What int8 trades: fp16 generates N greedy tokens; then the prompt and those tokens go through
 * the fp16 and the int8 model in one prefill each (teacher-forced: at every position both see
 * the same context, so one early difference does not change everything after it), and at the N
 * positions that predicted a generated token the two top-1 tokens and all logits are compared. */
static void vs_fp16(const Config *c, const Args *a, const int *ids, int n) {
    const int N = a->vs_fp16, len = n + N - 1;
    if (len >= c->max_seq) die("--vs-fp16 %d: the prompt (%d tokens) and %d more need %d positions; max_seq is %d",
                               N, n, N, len + 1, c->max_seq);
    GpuModelOpts o = {};
    o.model_dir = a->model_dir, o.seed = a->seed, o.max_batch = 1, o.quiet = 1;
    int *seq = (int *)xmalloc(sizeof(int) * (n + N));
    float *lg[2];
    memcpy(seq, ids, sizeof(int) * n);
    for (int k = 0; k < 2; k++) {       /* fp16, then the int8 choice */
        o.quant = k ? (Quant)a->quant : QUANT_FP16;
        GpuModel *m = gpu_model_open(&o);
        if (!k) gpu_generate(m, ids, n, 1, N, MODE_GRAPH, seq + n, NULL, NULL);
        lg[k] = (float *)xmalloc(sizeof(float) * len * c->vocab);
        gpu_prefill(m, MODE_GRAPH, seq, len, 1, lg[k]);
        gpu_model_free(m);
    }
    int agree = 0;
    double dmax = 0;
    for (int p = n - 1; p < len; p++) {
        const float *f = lg[0] + (size_t)p * c->vocab, *q = lg[1] + (size_t)p * c->vocab;
        agree += argmax_f32(f, c->vocab) == argmax_f32(q, c->vocab);
        for (int v = 0; v < c->vocab; v++) dmax = fmax(dmax, fabs((double)f[v] - q[v]));
    }
    printf("vs_fp16: top1_agree=%d/%d (%.1f%%) max_dlogit=%.4f (%s against fp16, teacher-forced on fp16's %d greedy "
           "tokens)\n", agree, N, 100.0 * agree / N, dmax, quant_name((Quant)a->quant), N);
    if (!a->model_dir)
        printf("vs_fp16: synthetic weights: uniform random weights give many near-tied logits, so int8's rounding "
               "flips more top-1 tokens than it would on a real checkpoint (make model fetches TinyLlama's)\n");
    free(lg[0]), free(lg[1]), free(seq);
}

int main(int argc, char **argv) {
    Args a = parse_args(argc, argv);
    Config c;
    char cfg_path[1024], tok_path[1024];
    if (a.model_dir) {
        snprintf(cfg_path, sizeof cfg_path, "%s/config.json", a.model_dir);
        snprintf(tok_path, sizeof tok_path, "%s/tokenizer.json", a.model_dir);
        config_load(&c, cfg_path);
    } else {
        config_tinyllama(&c);
        snprintf(cfg_path, sizeof cfg_path, "the built-in TinyLlama config");
        printf("synthetic weights (TinyLlama-1.1B's exact shapes, seed %llu): timings are real, the text is not"
               " (make model fetches the real weights)\n", a.seed);
    }
    config_print(&c);
    Tokenizer *tok = a.model_dir && path_exists(tok_path) ? tok_load(tok_path) : NULL;   /* a folder there dies */

    int *ids = (int *)xmalloc(sizeof(int) * (c.max_seq + 1));
    int n = prompt_tokens(&a, tok, a.model_dir ? tok_path : NULL, ids, c.max_seq);
    if (n > c.max_seq)
        die("%s: the prompt has %s%d tokens but max_position_embeddings is %d; shorten the prompt",
            cfg_path, a.prompt ? "more than " : "", a.prompt ? c.max_seq : n, c.max_seq);
    if (n + a.n_new - 1 > c.max_seq)
        die("%s: the prompt (%d tokens) and --new %d need %d positions but max_position_embeddings is %d; "
            "use --new %d or less", cfg_path, n, a.n_new, n + a.n_new - 1, c.max_seq, c.max_seq - n + 1);
    for (int i = 0; i < n; i++)
        if (ids[i] >= c.vocab) die("--prompt-ids: token id %d is outside the vocabulary (0..%d)", ids[i], c.vocab - 1);
    printf("prompt_tokens=%d\n", n);

    if (a.cpu) run_cpu(&c, &a, ids, n, tok, tok_path);
    else run_gpu(&c, &a, ids, n, tok, tok_path);
    if (a.vs_fp16) vs_fp16(&c, &a, ids, n);
    free(ids);
    if (tok) tok_free(tok);
    return 0;
}
