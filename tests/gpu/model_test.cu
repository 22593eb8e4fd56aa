/* model_test: the GPU model against the fp32 CPU reference (synthetic tiny shapes) and
 * against itself: the four modes agree, every row of a batch equals the same prompt run
 * alone, synthetic weights are the same every time, the step counts are the lesson's. The
 * same for int8 weights (both ways to run them) against the int8 CPU reference, on the tiny
 * shapes and on the tiny-llama fixture, prompt and decode steps; and the weight bytes a step
 * moves, fp16 against int8. Beyond the week, persistent mode against graph mode, where it
 * runs (else skipped, saying why), and its refusals: one sentence each. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "check.h"
#include "model/config.h"
#include "gpu/gpu_model.h"
#include "model/model.h"
#include "model/safetensors.h"
#include "model/theory.h"
#include "model/eager_ops.h"
#include "util.h"

enum { NEW = 10 };

/* A 2-layer Llama with the fixture's shapes (GQA 4/2, head_dim 16) and a small vocabulary. */
static Config tiny(void) {
    Config c;
    config_tinyllama(&c);
    c.vocab = 512, c.dim = 64, c.ffn_dim = 176, c.n_layers = 2, c.n_heads = 4, c.n_kv_heads = 2;
    c.head_dim = 16, c.max_seq = 128;
    return c;
}

static void prompt(int *ids, int n, int seed, int vocab) {
    ids[0] = 1;
    for (int i = 1; i < n; i++) ids[i] = 2 + (int)(synth_mix((uint64_t)seed * 1000 + i) % (uint64_t)(vocab - 2));
}

/* prefill + NEW-1 steps for `batch` rows; out[r * NEW + i] */
static void run(GpuModel *m, const int *ids, const int *lens, int batch, Mode mode, int *out) {
    int tok[64];
    gpu_prefill_rows(m, mode, ids, lens, batch, NULL);
    for (int i = 0; i < NEW; i++) {
        if (i) gpu_decode_step(m, mode);
        gpu_last_tokens(m, tok);
        for (int r = 0; r < batch; r++) out[r * NEW + i] = tok[r];
    }
}

static int first_diff(const int *a, const int *b, int n) {
    for (int i = 0; i < n; i++)
        if (a[i] != b[i]) return i;
    return -1;
}

/* CPU fp32 vs GPU fp16 logits at every prompt position, same synthetic weights */
static void cpu_vs_gpu(void) {
    Config c = tiny();
    enum { N = 24 };
    int ids[N];
    prompt(ids, N, 7, c.vocab);
    GpuModelOpts o = {};
    o.seed = 3, o.max_batch = 1, o.quiet = 1, o.config = &c;
    GpuModel *g = gpu_model_open(&o);
    float *lg = (float *)xmalloc(sizeof(float) * N * c.vocab), *lc = (float *)xmalloc(sizeof(float) * N * c.vocab);
    CpuModel *cm = cpu_model_open(&c, NULL, 3, N);
    cpu_forward(cm, ids, N, 0, lc, 1);
    const Mode prefills[2] = {MODE_FUSED, MODE_EAGER};   /* the token path, and PyTorch eager's ops */
    for (int k = 0; k < 2; k++) {
        gpu_prefill(g, prefills[k], ids, N, 1, lg);
        double worst = 0, scale = 0;
        for (int i = 0; i < N * c.vocab; i++) worst = fmax(worst, fabs(lg[i] - lc[i])), scale = fmax(scale, fabs(lc[i]));
        CHECK(worst < 2e-2 + 1e-2 * scale, "tiny synthetic, %s prefill: GPU logits differ from the CPU's by %.4f (max "
              "|logit| %.3f)", mode_name(prefills[k]), worst, scale);
        printf("tiny synthetic, %s prefill: max |gpu - cpu| logit = %.5f (max |logit| %.3f)\n", mode_name(prefills[k]),
               worst, scale);
    }
    cpu_model_free(cm);
    free(lg), free(lc);
    gpu_model_free(g);
}

/* int8 against the int8 CPU reference (cpu_model_quantize_int8), for both ways to run it in
 * every mode: the logits of the prompt's last token, then of NEW - 1 decode steps, each fed the
 * GPU's own token on both sides (so a near-tie that tips does not part the two sequences).
 * model_dir: a checkpoint (the fixture), within 2e-2 as the issue asks; NULL: the tiny
 * synthetic shapes, within the fp16 test's bound. */
static void int8_vs_cpu(const char *model_dir) {
    Config c = tiny();
    char path[1100];
    SafeTensors st;
    if (model_dir) {
        snprintf(path, sizeof path, "%s/config.json", model_dir);
        config_load(&c, path);
        st_open(&st, model_dir);
    }
    enum { N = 13 };
    int ids[N], tok;
    prompt(ids, N, 11, c.vocab);
    CpuModel *cm = cpu_model_open(&c, model_dir ? &st : NULL, 3, N + NEW);
    cpu_model_quantize_int8(cm);
    float *lc = (float *)xmalloc(sizeof(float) * c.vocab), *lg = (float *)xmalloc(sizeof(float) * c.vocab);
    const char *what = model_dir ? "fixture" : "tiny synthetic";
    for (int q = QUANT_INT8; q <= QUANT_INT8_UNFUSED; q++) {
        GpuModelOpts o = {};
        o.model_dir = model_dir, o.seed = 3, o.max_batch = 1, o.quiet = 1, o.config = model_dir ? NULL : &c;
        o.quant = (Quant)q;
        GpuModel *g = gpu_model_open(&o);
        for (int mode = 0; mode < MODE_PERSISTENT; mode++) {     /* persistent refuses int8 (main) */
            double worst = 0, scale = 0;
            gpu_prefill(g, (Mode)mode, ids, N, 1, NULL);
            cpu_forward(cm, ids, N, 0, lc, 0);
            for (int i = 0; i < NEW; i++) {
                if (i) {
                    gpu_decode_step(g, (Mode)mode);
                    cpu_forward(cm, &tok, 1, N + i - 1, lc, 0);
                }
                gpu_last_logits(g, lg);
                gpu_last_tokens(g, &tok);
                for (int v = 0; v < c.vocab; v++) worst = fmax(worst, fabs(lg[v] - lc[v])), scale = fmax(scale, fabs(lc[v]));
            }
            const double limit = model_dir ? 2e-2 : 2e-2 + 1e-2 * scale;
            CHECK(worst < limit, "%s %s %s: GPU logits differ from the int8 CPU reference's by %.4f (limit %.4f)", what,
                  quant_name((Quant)q), mode_name((Mode)mode), worst, limit);
            printf("%s %s %s: max |gpu - cpu int8| logit over the prompt and %d steps = %.5f (max |logit| %.3f)\n", what,
                   quant_name((Quant)q), mode_name((Mode)mode), NEW - 1, worst, scale);
        }
        gpu_model_free(g);
    }
    cpu_model_free(cm);
    if (model_dir) st_close(&st);
    free(lc), free(lg);
}

/* prefill + NEW - 1 steps of prompt ids (20 tokens) in each of the lesson's four modes; out[mode][i] */
static void modes(GpuModel *m, const int *ids, int (*out)[NEW]) {
    int lens[1] = {20};
    for (int mode = 0; mode < MODE_PERSISTENT; mode++) run(m, ids, lens, 1, (Mode)mode, out[mode]);
}

/* every row of a batch = the same prompt run alone (rows of different lengths; 3 rows: norm in
 * the GEMV, 32: rmsnorm kernels and the split GEMV), in fused and graph mode */
static void rows_alone(GpuModel *m, const char *what) {
    const int vocab = gpu_model_config(m)->vocab;
    int ids[32 * 24], lens[32], one[32][NEW], all[32 * NEW], at = 0;
    for (int r = 0; r < 32; r++) {
        lens[r] = 8 + r % 13;
        prompt(ids + at, lens[r], 100 + r, vocab);
        at += lens[r];
    }
    for (int r = 0, off = 0; r < 32; off += lens[r], r++) run(m, ids + off, &lens[r], 1, MODE_FUSED, one[r]);
    for (int mode = MODE_FUSED; mode <= MODE_GRAPH; mode++)
        for (int B = 3; B <= 32; B += 29) {
            run(m, ids, lens, B, (Mode)mode, all);
            int bad = 0;
            for (int r = 0; r < B; r++) {
                int d = first_diff(all + r * NEW, one[r], NEW);
                if (d >= 0) bad++, printf("%s %s batch %d row %d: token %d is %d, alone %d\n", what, mode_name((Mode)mode),
                                          B, r, d, all[r * NEW + d], one[r][d]);
            }
            CHECK(bad == 0, "%s %s batch %d: %d rows differ from the same prompt run alone", what, mode_name((Mode)mode), B,
                  bad);
        }
}

/* gpu_mode_refusal's answer: one sentence, not empty, one line */
static int sentence(const char *s) { return s && *s && !strchr(s, '\n'); }

/* Persistent mode (beyond the week) against graph mode at batch 1, 4, 9, 16 and 32, rows of
 * different lengths: where it runs, every row's greedy tokens equal graph mode's for the same
 * prompt run alone, the last step's logits are within 2e-2 of graph's at the same batch, and a
 * second run gives the same tokens and bit-identical logits. Where it does not, the refusal is one
 * sentence (batch 1 and 4 are then skipped, saying why; more rows than it takes may be refused,
 * never hang). */
static void persistent(GpuModel *m) {
    const int vocab = gpu_model_config(m)->vocab, batches[] = {1, 4, 9, 16, 32};
    int ids[32 * 24], lens[32], one[32][NEW], at = 0;
    static int g[32 * NEW], p[2][32 * NEW];
    float *lg = (float *)xmalloc(sizeof(float) * 32 * vocab), *lp[2];
    for (int k = 0; k < 2; k++) lp[k] = (float *)xmalloc(sizeof(float) * 32 * vocab);
    for (int r = 0; r < 32; r++) {
        lens[r] = 8 + r % 13;
        prompt(ids + at, lens[r], 200 + r, vocab);
        at += lens[r];
    }
    for (int r = 0, off = 0; r < 32; off += lens[r], r++) run(m, ids + off, &lens[r], 1, MODE_GRAPH, one[r]);
    for (size_t i = 0; i < sizeof batches / sizeof batches[0]; i++) {
        const int B = batches[i];
        const char *no = gpu_mode_refusal(m, MODE_PERSISTENT, B);
        if (no) {
            CHECK(sentence(no), "persistent batch %d: the refusal is not one sentence: \"%s\"", B, no);
            if (B <= 4) SKIP("persistent batch %d: not run: %s", B, no);
            else printf("persistent batch %d: refused: %s\n", B, no);
            continue;
        }
        run(m, ids, lens, B, MODE_GRAPH, g);
        gpu_last_logits(m, lg);
        for (int k = 0; k < 2; k++) {
            run(m, ids, lens, B, MODE_PERSISTENT, p[k]);
            gpu_last_logits(m, lp[k]);
        }
        int bad = 0;
        for (int r = 0; r < B; r++) {
            const int d = first_diff(p[0] + r * NEW, one[r], NEW);
            if (d >= 0) bad++, printf("persistent batch %d row %d: token %d is %d, graph alone %d\n", B, r, d,
                                      p[0][r * NEW + d], one[r][d]);
        }
        CHECK(bad == 0, "persistent batch %d: %d rows' tokens differ from graph mode's for the same prompt alone", B, bad);
        double worst = 0, scale = 0;
        for (int v = 0; v < B * vocab; v++) worst = fmax(worst, fabs(lp[0][v] - lg[v])), scale = fmax(scale, fabs(lg[v]));
        CHECK(worst <= 2e-2, "persistent batch %d: the last step's logits differ from graph's by %.4f (limit 2e-2)", B, worst);
        const int same = !memcmp(p[0], p[1], sizeof(int) * B * NEW) && !memcmp(lp[0], lp[1], sizeof(float) * B * vocab);
        CHECK(same, "persistent batch %d: two runs differ (tokens or logits)", B);
        printf("persistent batch %d: tokens = graph's alone, max |dlogit| vs graph %.5f (max |logit| %.3f), two runs %s\n",
               B, worst, scale, same ? "bit-identical" : "differ");
    }
    free(lg), free(lp[0]), free(lp[1]);
}

int main(void) {
    cpu_vs_gpu();
    int8_vs_cpu(NULL);
    char fix[1024];
    struct stat sb;
    snprintf(fix, sizeof fix, "%s/fixtures/tiny-llama", shared_dir());
    if (stat(fix, &sb) == 0) int8_vs_cpu(fix);
    else printf("int8 on the fixture: skipped (no %s: set SHARED)\n", fix);

    /* synthetic TinyLlama: same weights every time */
    GpuModelOpts o = {};
    o.seed = 1, o.max_batch = 32, o.max_seq = 256, o.quiet = 1;
    GpuModel *m = gpu_model_open(&o);
    unsigned long long sum1 = gpu_model_checksum(m);
    gpu_model_free(m);
    m = gpu_model_open(&o);
    unsigned long long sum2 = gpu_model_checksum(m);
    CHECK(sum1 == sum2, "synthetic weights differ between two loads (checksum %llx vs %llx)", sum1, sum2);
    printf("synthetic checksum %016llx twice\n", sum1);
    const int vocab = gpu_model_config(m)->vocab;

    /* the four modes, batch 1 */
    int ids[20], out[MODE_COUNT][NEW];
    prompt(ids, 20, 1, vocab);
    modes(m, ids, out);
    for (int mode = 0; mode < MODE_PERSISTENT; mode++) {
        int d = first_diff(out[mode], out[MODE_EAGER], NEW);
        CHECK(d < 0, "mode %s differs from eager at token %d (%d vs %d)", mode_name((Mode)mode), d,
              d < 0 ? 0 : out[mode][d], d < 0 ? 0 : out[MODE_EAGER][d]);
    }
    printf("tokens:");
    for (int i = 0; i < NEW; i++) printf(" %d", out[MODE_GRAPH][i]);
    printf("\n");
    StepCounts e = gpu_step_counts(m, MODE_EAGER), f = gpu_step_counts(m, MODE_FUSED), g = gpu_step_counts(m, MODE_GRAPH);
    CHECK(e.gemms == 155, "eager: %d linear layers per step, expected 155", e.gemms);
    CHECK(e.kernels == eager_ops_per_pass(gpu_model_config(m)->n_layers),
          "eager: %d launches per step, model/eager_ops.c lists %d", e.kernels, eager_ops_per_pass(gpu_model_config(m)->n_layers));
    CHECK(f.kernels < e.kernels / 3, "fused: %d kernels per step vs eager %d", f.kernels, e.kernels);
    CHECK(g.host_launches == 1 && g.kernels == f.kernels, "graph: %d host launches, %d kernels", g.host_launches,
          g.kernels);
    printf("kernels per step: eager %d (%d gemms), fused %d (%d gemms), graph %d in 1 launch\n", e.kernels, e.gemms,
           f.kernels, f.gemms, g.kernels);

    rows_alone(m, "fp16");
    persistent(m);
    const StepCounts f16 = f;
    gpu_model_free(m);

    /* int8, synthetic TinyLlama: the same weights every load; fused = graph and eager =
     * graph_eager (the same kernels; eager's dequantized cuBLAS and fused's int8 GEMV round
     * differently, so those two may part at a near-tie: printed, not checked); rows alone; and
     * the counts: int8 keeps the fused launches, unfused adds a dequantize kernel per linear
     * layer, and the weight bytes a step moves are 2 per weight (fp16), 1 + 4 per row (int8),
     * 5 + 4 per row (unfused: int8 read, fp16 written and read again) */
    for (int q = QUANT_INT8; q <= QUANT_INT8_UNFUSED; q++) {
        const char *qn = quant_name((Quant)q);
        o.quant = (Quant)q;
        m = gpu_model_open(&o);
        sum1 = gpu_model_checksum(m);
        gpu_model_free(m);
        m = gpu_model_open(&o);
        sum2 = gpu_model_checksum(m);
        CHECK(sum1 == sum2, "%s: the quantized weights differ between two loads (checksum %llx vs %llx)", qn, sum1, sum2);
        const char *no = gpu_mode_refusal(m, MODE_PERSISTENT, 1);
        CHECK(sentence(no), "%s: persistent mode reads fp16 weights only; it should refuse these in one sentence, not %s%s%s",
              qn, no ? "\"" : "run", no ? no : "", no ? "\"" : "");
        printf("%s persistent: refused: %s\n", qn, no ? no : "(runs)");
        const Config *c = gpu_model_config(m);
        CHECK(gpu_model_weight_bytes(m) == (long long)int8_weight_bytes(c), "%s: %lld weight bytes, expected %.0f", qn,
              gpu_model_weight_bytes(m), int8_weight_bytes(c));
        modes(m, ids, out);
        const int dfg = first_diff(out[MODE_FUSED], out[MODE_GRAPH], NEW), deg = first_diff(out[MODE_EAGER], out[MODE_GRAPH_EAGER], NEW);
        CHECK(dfg < 0 && deg < 0, "%s: fused and graph part at token %d, eager and graph_eager at %d", qn, dfg, deg);
        printf("%s tokens:", qn);
        for (int i = 0; i < NEW; i++) printf(" %d", out[MODE_GRAPH][i]);
        const int dfe = first_diff(out[MODE_FUSED], out[MODE_EAGER], NEW);
        printf(" (eager %s)\n", dfe < 0 ? "the same" : "parts from fused at a near-tie");
        const StepCounts qe = gpu_step_counts(m, MODE_EAGER), qf = gpu_step_counts(m, MODE_FUSED);
        const double lin = linear_params(c), rows = linear_rows(c);
        const int unfused = q == QUANT_INT8_UNFUSED, gemv_layers = 4 * c->n_layers + 1;
        CHECK(qf.kernels == f16.kernels + (unfused ? gemv_layers : 0) && qe.kernels == e.kernels + e.gemms,
              "%s: %d kernels a fused step (fp16 %d), %d eager (fp16 %d)", qn, qf.kernels, f16.kernels, qe.kernels, e.kernels);
        CHECK(qf.gemms == f16.gemms && qe.gemms == e.gemms, "%s: %d and %d linear layers a step", qn, qf.gemms, qe.gemms);
        CHECK(f16.weight_bytes == (long long)(2 * lin), "fp16: %lld weight bytes a fused step, expected %.0f",
              f16.weight_bytes, 2 * lin);
        const double want = unfused ? 5 * lin + 4 * rows : lin + 4 * rows;
        CHECK(qf.weight_bytes == (long long)want && qe.weight_bytes == (long long)(5 * lin + 4 * rows),
              "%s: %lld weight bytes a fused step (expected %.0f), %lld eager (expected %.0f)", qn, qf.weight_bytes, want,
              qe.weight_bytes, 5 * lin + 4 * rows);
        printf("%s: kernels a step fused %d, eager %d; weight GB a fused step %.3f (fp16 %.3f: %.3fx)\n", qn, qf.kernels,
               qe.kernels, qf.weight_bytes / 1e9, f16.weight_bytes / 1e9, (double)qf.weight_bytes / f16.weight_bytes);
        rows_alone(m, qn);
        gpu_model_free(m);
    }
    return check_done("model_test");
}
