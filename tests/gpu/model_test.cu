/* model_test: the GPU model against the fp32 CPU reference (synthetic tiny shapes) and
 * against itself: the four modes agree, every row of a batch equals the same prompt run
 * alone, synthetic weights are the same every time, the step counts are the lesson's. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "gpu_model.h"
#include "model.h"
#include "util.h"

enum { NEW = 10 };

/* A 2-layer Llama with the fixture's shapes (GQA 4/2, head_dim 16) and a small vocabulary. */
static Config tiny(void) {
    Config c;
    config_tinyllama(&c);
    c.vocab = 512, c.dim = 64, c.hidden = 176, c.n_layers = 2, c.n_heads = 4, c.n_kv_heads = 2;
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
    gpu_prefill_rows(m, ids, lens, batch, NULL);
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
    gpu_prefill(g, ids, N, 1, lg);
    CpuModel *cm = cpu_model_open(&c, NULL, 3, N);
    cpu_forward(cm, ids, N, 0, lc, 1);
    double worst = 0, scale = 0;
    for (int i = 0; i < N * c.vocab; i++) worst = fmax(worst, fabs(lg[i] - lc[i])), scale = fmax(scale, fabs(lc[i]));
    CHECK(worst < 2e-2 + 1e-2 * scale, "tiny synthetic: GPU logits differ from the CPU's by %.4f (max |logit| %.3f)",
          worst, scale);
    printf("tiny synthetic: max |gpu - cpu| logit = %.5f (max |logit| %.3f)\n", worst, scale);
    cpu_model_free(cm);
    free(lg), free(lc);
    gpu_model_free(g);
}

int main(void) {
    cpu_vs_gpu();

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
    int ids[32 * 24], lens[32], out[MODE_COUNT][NEW], one[32][NEW], all[32 * NEW];
    prompt(ids, 20, 1, vocab);
    lens[0] = 20;
    for (int mode = 0; mode < MODE_COUNT; mode++) {
        run(m, ids, lens, 1, (Mode)mode, out[mode]);
        int d = first_diff(out[mode], out[MODE_EAGER], NEW);
        CHECK(d < 0, "mode %s differs from eager at token %d (%d vs %d)", mode_name((Mode)mode), d,
              d < 0 ? 0 : out[mode][d], d < 0 ? 0 : out[MODE_EAGER][d]);
    }
    printf("tokens:");
    for (int i = 0; i < NEW; i++) printf(" %d", out[MODE_GRAPH][i]);
    printf("\n");
    StepCounts e = gpu_step_counts(m, MODE_EAGER), f = gpu_step_counts(m, MODE_FUSED), g = gpu_step_counts(m, MODE_GRAPH);
    CHECK(e.gemms == 155, "eager: %d linear layers per step, expected 155", e.gemms);
    CHECK(e.kernels >= 300 && e.kernels <= 450, "eager: %d kernels per step, expected 300..450", e.kernels);
    CHECK(f.kernels < e.kernels / 3, "fused: %d kernels per step vs eager %d", f.kernels, e.kernels);
    CHECK(g.host_launches == 1 && g.kernels == f.kernels, "graph: %d host launches, %d kernels", g.host_launches,
          g.kernels);
    printf("kernels per step: eager %d (%d gemms), fused %d (%d gemms), graph %d in 1 launch\n", e.kernels, e.gemms,
           f.kernels, f.gemms, g.kernels);

    /* batch rows = the same prompts alone; rows of different lengths */
    int at = 0;
    for (int r = 0; r < 32; r++) {
        lens[r] = 8 + r % 13;
        prompt(ids + at, lens[r], 100 + r, vocab);
        at += lens[r];
    }
    for (int r = 0, off = 0; r < 32; off += lens[r], r++) run(m, ids + off, &lens[r], 1, MODE_FUSED, one[r]);
    for (int mode = MODE_FUSED; mode <= MODE_GRAPH; mode++)
        for (int B = 3; B <= 32; B += 29) {           /* norm in the GEMV (3 rows); rmsnorm kernels (32) */
            run(m, ids, lens, B, (Mode)mode, all);
            int bad = 0;
            for (int r = 0; r < B; r++) {
                int d = first_diff(all + r * NEW, one[r], NEW);
                if (d >= 0) bad++, printf("%s batch %d row %d: token %d is %d, alone %d\n", mode_name((Mode)mode), B,
                                          r, d, all[r * NEW + d], one[r][d]);
            }
            CHECK(bad == 0, "%s batch %d: %d rows differ from the same prompt run alone", mode_name((Mode)mode), B, bad);
        }
    gpu_model_free(m);
    return check_done("model_test");
}
