/* The int8 weight-only quantizer (common/model/model.h, model.c) on made-up rows: the scale is
 * max |w| / 127, ties round to even, values past the range clamp to +-127 (never -128), a
 * row of zeros has scale 0 and stays 0; then the int8 CPU reference on synthetic weights,
 * tied and untied: close to fp32, different from it, the same every time. The GPU's quantize
 * kernel calls the same two functions (tests/gpu/test_gemv.cu compares its bits with these). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "model/model.h"
#include "util.h"

/* quantize_row_int8 on w[0..n): the scale it returns and the q it writes */
static float quant(const float *w, int n, int8_t *q) { return quantize_row_int8(w, n, q); }

static void rounding(void) {
    /* max |w| = 127: scale 1, so w / scale = w and the ties are plain to see */
    const float w[] = {127, 2.5f, -2.5f, 3.5f, -3.5f, 0.5f, -0.5f, 1.5f, 126.5f, 0.49f, -126.51f};
    const int want[] = {127, 2, -2, 4, -4, 0, 0, 2, 126, 0, -127};
    const int n = sizeof w / sizeof w[0];
    int8_t q[16];
    float s = quant(w, n, q);
    CHECK(s == 1.0f, "max |w| = 127: scale %g, expected 1", s);
    for (int i = 0; i < n; i++) CHECK(q[i] == want[i], "w = %g at scale 1: q = %d, expected %d (ties to even)", w[i], q[i], want[i]);

    /* max |w| = 254 and negative: scale 2, w = 5 -> 2.5 -> 2, w = 7 -> 3.5 -> 4 */
    const float w2[] = {5, 7, -254, -1, 1};
    const int want2[] = {2, 4, -127, 0, 0};
    s = quant(w2, 5, q);
    CHECK(s == 2.0f, "max |w| = 254: scale %g, expected 2", s);
    for (int i = 0; i < 5; i++) CHECK(q[i] == want2[i], "w = %g at scale 2: q = %d, expected %d", w2[i], q[i], want2[i]);

    /* a row of zeros: scale 0, q 0, no NaN */
    const float z[4] = {0, 0, -0.0f, 0};
    memset(q, 55, sizeof q);
    s = quant(z, 4, q);
    CHECK(s == 0.0f, "a row of zeros: scale %g, expected 0", s);
    CHECK(!q[0] && !q[1] && !q[2] && !q[3], "a row of zeros: q = %d %d %d %d, expected 0", q[0], q[1], q[2], q[3]);

    /* clamping: a scale smaller than max |w| / 127 (as a caller's own scale could be) */
    CHECK(int8_round(200, 1) == 127 && int8_round(-1000, 1) == -127 && int8_round(-127.5f, 1) == -127,
          "past the range: %d %d %d, expected 127 -127 -127 (never -128)", int8_round(200, 1), int8_round(-1000, 1),
          int8_round(-127.5f, 1));
    CHECK(int8_round(3, 0) == 0 && int8_round(3, NAN) == 0 && int8_round(3, -1) == 0,
          "a zero, NaN or negative scale gives 0");
}

/* a made-up row of TinyLlama-sized weights: every q within half a step of w / scale, the
 * largest |w| at +-127, and q x scale within scale / 2 of w */
static void random_row(void) {
    enum { N = 2048 };
    float w[N];
    int8_t q[N];
    for (int k = 0; k < N; k++) w[k] = synth_value(7, 3, k, 0) * (k % 97 == 0 ? 9.f : 1.f);   /* a few outliers */
    const float s = quant(w, N, q);
    float absmax = 0;
    int at = 0, bad = 0;
    for (int k = 0; k < N; k++)
        if (fabsf(w[k]) > absmax) absmax = fabsf(w[k]), at = k;
    CHECK(s == absmax / 127.0f, "scale %.9g, expected max |w| / 127 = %.9g", s, absmax / 127.0f);
    CHECK(abs(q[at]) == 127, "the largest |w| maps to %d, expected +-127", q[at]);
    for (int k = 0; k < N; k++) bad += fabsf(q[k] * s - w[k]) > 0.5001f * s || abs(q[k]) > 127;
    CHECK(bad == 0, "%d of %d weights are more than half a step from q x scale", bad, N);
}

/* the int8 reference on a tiny synthetic model: logits close to fp32's, not equal to them,
 * the same twice; a tied model quantizes a copy of the embedding for lm_head */
static void reference(int tied) {
    Config c;
    config_tinyllama(&c);
    c.vocab = 256, c.dim = 64, c.ffn_dim = 176, c.n_layers = 2, c.n_heads = 4, c.n_kv_heads = 2, c.head_dim = 16;
    c.max_seq = 32, c.tied = tied;
    const int ids[] = {1, 17, 99, 3, 250, 42};
    float l32[256], l8[256], again[256];
    CpuModel *m = cpu_model_open(&c, NULL, 5, 0);
    cpu_forward(m, ids, 6, 0, l32, 0);
    cpu_model_free(m);
    for (int k = 0; k < 2; k++) {
        m = cpu_model_open(&c, NULL, 5, 0);
        cpu_model_quantize_int8(m);
        cpu_forward(m, ids, 6, 0, k ? again : l8, 0);
        cpu_model_free(m);
    }
    double d = 0, scale = 0;
    for (int i = 0; i < c.vocab; i++) d = fmax(d, fabs(l8[i] - l32[i])), scale = fmax(scale, fabs(l32[i]));
    CHECK(d > 0 && d < 0.05 * scale, "tied=%d: int8 logits differ from fp32 by %g (max |logit| %g): expected a "
          "small, non-zero difference", tied, d, scale);
    CHECK(!memcmp(l8, again, sizeof l8), "tied=%d: the int8 reference differs between two runs", tied);
    printf("tied=%d: max |int8 - fp32| logit = %.5f of max |logit| %.4f, top-1 %s\n", tied, d, scale,
           argmax_f32(l8, c.vocab) == argmax_f32(l32, c.vocab) ? "the same" : "differs");
}

int main(void) {
    rounding();
    random_row();
    reference(0);
    reference(1);
    return check_done("test_quant");
}
