/* model: the Llama tensor list, the checkpoint check, and the fp32 CPU reference forward
 * pass. The reference is the kit's specification of the math, written to be read:
 *   x = embed[token]
 *   per layer:  x += o(attention(rope(q(norm(x))), rope(k(norm(x))), v(norm(x))))
 *               x += down(silu(gate(norm(x))) * up(norm(x)))
 *   logits = lm_head(norm(x))
 * with Hugging Face Llama's conventions: RMSNorm in fp32, rotate-half RoPE, grouped-query
 * attention (n_heads / n_kv_heads query heads share one key/value head). */
#include "model/model.h"
#include "util.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the tensors of a checkpoint ---- */

static int add(ModelTensor *out, int i, TensorKind kind, int layer, const char *name,
               long long rows, long long cols) {
    if (out) {
        ModelTensor *t = &out[i];
        if (layer >= 0) snprintf(t->name, sizeof t->name, "model.layers.%d.%s.weight", layer, name);
        else snprintf(t->name, sizeof t->name, "%s.weight", name);
        t->kind = kind;
        t->layer = layer;
        t->rows = rows;
        t->cols = cols;
    }
    return i + 1;
}

int model_tensors(const Config *c, ModelTensor *out) {
    long long d = c->dim, q = (long long)c->n_heads * c->head_dim, kv = (long long)c->n_kv_heads * c->head_dim;
    int i = add(out, 0, T_EMBED, -1, "model.embed_tokens", c->vocab, d);
    for (int l = 0; l < c->n_layers; l++) {
        i = add(out, i, T_ATTN_NORM, l, "input_layernorm", d, 0);
        i = add(out, i, T_Q, l, "self_attn.q_proj", q, d);
        i = add(out, i, T_K, l, "self_attn.k_proj", kv, d);
        i = add(out, i, T_V, l, "self_attn.v_proj", kv, d);
        i = add(out, i, T_O, l, "self_attn.o_proj", d, q);
        i = add(out, i, T_FFN_NORM, l, "post_attention_layernorm", d, 0);
        i = add(out, i, T_GATE, l, "mlp.gate_proj", c->ffn_dim, d);
        i = add(out, i, T_UP, l, "mlp.up_proj", c->ffn_dim, d);
        i = add(out, i, T_DOWN, l, "mlp.down_proj", d, c->ffn_dim);
    }
    i = add(out, i, T_FINAL_NORM, -1, "model.norm", d, 0);
    if (!c->tied) i = add(out, i, T_LM_HEAD, -1, "lm_head", c->vocab, d);
    return i;
}

static int is_norm(TensorKind k) { return k == T_ATTN_NORM || k == T_FFN_NORM || k == T_FINAL_NORM; }

static void shape_str(char *s, size_t n, int ndim, const long long *shape) {
    int w = snprintf(s, n, "[");
    for (int i = 0; i < ndim; i++) w += snprintf(s + w, n - w, i ? ", %lld" : "%lld", shape[i]);
    snprintf(s + w, n - w, "]");
}

void model_check(const Config *c, const SafeTensors *st) {
    int n = model_tensors(c, NULL);
    ModelTensor *ts = xmalloc(n * sizeof *ts);
    model_tensors(c, ts);
    for (int i = 0; i < n; i++) {
        const ModelTensor *m = &ts[i];
        long long want[2] = {m->rows, m->cols};
        int want_ndim = m->cols ? 2 : 1;
        char ws[64], fs[64];
        shape_str(ws, sizeof ws, want_ndim, want);
        const StTensor *t = st_find(st, m->name);
        if (!t) die("%s: tensor '%s' is missing (expected %s from config.json); the weights do not match the config",
                    st->paths[0], m->name, ws);
        if (t->ndim != want_ndim || t->shape[0] != want[0] || (want_ndim == 2 && t->shape[1] != want[1])) {
            shape_str(fs, sizeof fs, t->ndim, t->shape);
            die("%s: tensor '%s' has shape %s, expected %s from config.json; the weights do not match the config",
                t->file, m->name, fs, ws);
        }
    }
    free(ts);
}

long long model_weight_bytes_fp16(const Config *c) { return config_params(c) * 2; }

/* ---- the fp32 CPU reference ---- */

typedef struct {
    float *attn_norm, *q, *k, *v, *o;       /* q: [n_heads*head_dim, dim], k, v: [kv_dim, dim] */
    float *ffn_norm, *gate, *up, *down;     /* gate, up: [ffn_dim, dim], down: [dim, ffn_dim] */
} Layer;

struct CpuModel {
    Config c;
    int max_seq;
    float *embed, *final_norm, *lm_head;    /* lm_head == embed when tied */
    Layer *layers;
    float **owned;                          /* every weight buffer, to free */
    int n_owned;
    float *rope_cos, *rope_sin;             /* [max_seq, head_dim/2] */
    float *key_cache, *value_cache;         /* [n_layers, max_seq, kv_dim] */
};

/* One tensor to fp32: from the checkpoint (any supported dtype) or synthetic, rounded
 * through fp16 exactly as the GPU stores it. */
static float *load_tensor(const ModelTensor *m, int index, const SafeTensors *st, uint64_t seed) {
    long long n = m->rows * (m->cols ? m->cols : 1);
    float *w = xmalloc((size_t)n * sizeof *w);
    if (!st) {
        for (long long i = 0; i < n; i++)
            w[i] = half_to_float(float_to_half(synth_value(seed, index, i, is_norm(m->kind))));
        return w;
    }
    const StTensor *t = st_find(st, m->name);
    const unsigned char *p = t->data;
    for (long long i = 0; i < n; i++) {
        uint16_t h;
        if (t->dtype == DT_F32) { memcpy(&w[i], p + 4 * i, 4); continue; }
        memcpy(&h, p + 2 * i, 2);
        w[i] = t->dtype == DT_BF16 ? bf16_to_float(h) : half_to_float(h);
    }
    return w;
}

CpuModel *cpu_model_open(const Config *c, const SafeTensors *st, uint64_t seed, int max_seq) {
    if (st) model_check(c, st);
    CpuModel *m = xcalloc(1, sizeof *m);
    m->c = *c;
    m->max_seq = max_seq > 0 ? max_seq : c->max_seq;
    m->layers = xcalloc(c->n_layers, sizeof *m->layers);
    m->n_owned = model_tensors(c, NULL);
    ModelTensor *ts = xmalloc(m->n_owned * sizeof *ts);
    model_tensors(c, ts);
    m->owned = xmalloc(m->n_owned * sizeof *m->owned);
    for (int i = 0; i < m->n_owned; i++) {
        float *w = m->owned[i] = load_tensor(&ts[i], i, st, seed);
        Layer *L = ts[i].layer >= 0 ? &m->layers[ts[i].layer] : NULL;
        switch (ts[i].kind) {
        case T_EMBED: m->embed = w; break;
        case T_ATTN_NORM: L->attn_norm = w; break;
        case T_Q: L->q = w; break;
        case T_K: L->k = w; break;
        case T_V: L->v = w; break;
        case T_O: L->o = w; break;
        case T_FFN_NORM: L->ffn_norm = w; break;
        case T_GATE: L->gate = w; break;
        case T_UP: L->up = w; break;
        case T_DOWN: L->down = w; break;
        case T_FINAL_NORM: m->final_norm = w; break;
        case T_LM_HEAD: m->lm_head = w; break;
        default: break;
        }
    }
    free(ts);
    if (c->tied) m->lm_head = m->embed;

    /* RoPE tables as Hugging Face builds them in fp32: inv_freq[i] = theta^(-2i/head_dim),
     * angle = pos * inv_freq[i], used for the pair (i, i + head_dim/2). */
    int half = c->head_dim / 2;
    m->rope_cos = xmalloc((size_t)m->max_seq * half * sizeof(float));
    m->rope_sin = xmalloc((size_t)m->max_seq * half * sizeof(float));
    for (int i = 0; i < half; i++) {
        float inv_freq = 1.0f / powf(c->rope_theta, (float)(2 * i) / (float)c->head_dim);
        for (int p = 0; p < m->max_seq; p++) {
            float a = (float)p * inv_freq;
            m->rope_cos[(size_t)p * half + i] = cosf(a);
            m->rope_sin[(size_t)p * half + i] = sinf(a);
        }
    }
    size_t cache = (size_t)c->n_layers * m->max_seq * c->n_kv_heads * c->head_dim;
    m->key_cache = xcalloc(cache, sizeof(float));
    m->value_cache = xcalloc(cache, sizeof(float));
    return m;
}

void cpu_model_free(CpuModel *m) {
    if (!m) return;
    for (int i = 0; i < m->n_owned; i++) free(m->owned[i]);
    free(m->owned);
    free(m->layers);
    free(m->rope_cos);
    free(m->rope_sin);
    free(m->key_cache);
    free(m->value_cache);
    free(m);
}

/* a . b with four independent accumulators, so the adds do not wait on each other */
static float dot(const float *a, const float *b, int n) {
    float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    int i = 0;
    for (; i + 4 <= n; i += 4) {
        s0 += a[i] * b[i];
        s1 += a[i + 1] * b[i + 1];
        s2 += a[i + 2] * b[i + 2];
        s3 += a[i + 3] * b[i + 3];
    }
    for (; i < n; i++) s0 += a[i] * b[i];
    return (s0 + s1) + (s2 + s3);
}

/* out[t, r] = W[r, :] . x[t, :] for n tokens; W is [rows, cols] (row-major, as stored),
 * each row read once for all n tokens. */
static void matmul(float *out, const float *x, const float *W, int n, int cols, int rows) {
    for (int r = 0; r < rows; r++) {
        const float *w = W + (size_t)r * cols;
        for (int t = 0; t < n; t++) out[(size_t)t * rows + r] = dot(w, x + (size_t)t * cols, cols);
    }
}

/* out = x / sqrt(mean(x^2) + eps) * w, per token */
static void rmsnorm(float *out, const float *x, const float *w, int n, int dim, float eps) {
    for (int t = 0; t < n; t++, x += dim, out += dim) {
        float ss = dot(x, x, dim) / (float)dim;
        float scale = 1.0f / sqrtf(ss + eps);
        for (int i = 0; i < dim; i++) out[i] = x[i] * scale * w[i];
    }
}

/* rotate-half RoPE on one head vector at position pos: the pair is (i, i + head_dim/2) */
static void rope(float *v, const CpuModel *m, int pos) {
    int half = m->c.head_dim / 2;
    const float *cs = m->rope_cos + (size_t)pos * half, *sn = m->rope_sin + (size_t)pos * half;
    for (int i = 0; i < half; i++) {
        float a = v[i], b = v[i + half];
        v[i] = a * cs[i] - b * sn[i];
        v[i + half] = b * cs[i] + a * sn[i];
    }
}

/* in place: softmax over x[0..n) */
static void softmax(float *x, int n) {
    float mx = x[0], sum = 0;
    for (int i = 1; i < n; i++) mx = x[i] > mx ? x[i] : mx;
    for (int i = 0; i < n; i++) sum += x[i] = expf(x[i] - mx);
    for (int i = 0; i < n; i++) x[i] /= sum;
}

void cpu_forward(CpuModel *m, const int *tokens, int n, int pos, float *logits, int all_logits) {
    const Config *c = &m->c;
    int dim = c->dim, hd = c->head_dim, qdim = c->n_heads * hd, kvdim = c->n_kv_heads * hd;
    int group = c->n_heads / c->n_kv_heads;
    if (n < 1 || pos < 0 || pos + n > m->max_seq)
        die("cpu_forward: positions %d..%d do not fit the context of %d tokens", pos, pos + n - 1, m->max_seq);
    for (int t = 0; t < n; t++)
        if (tokens[t] < 0 || tokens[t] >= c->vocab)
            die("token id %d is outside the vocabulary (0..%d)", tokens[t], c->vocab - 1);

    float *x = xmalloc((size_t)n * dim * sizeof *x);          /* the residual stream */
    float *xn = xmalloc((size_t)n * dim * sizeof *xn);        /* normed input of a block */
    float *q = xmalloc((size_t)n * qdim * sizeof *q);
    float *att = xmalloc((size_t)n * qdim * sizeof *att);     /* attention output */
    float *gate = xmalloc((size_t)n * c->ffn_dim * sizeof *gate);
    float *up = xmalloc((size_t)n * c->ffn_dim * sizeof *up);
    float *scores = xmalloc((size_t)(pos + n) * sizeof *scores);
    float scale = 1.0f / sqrtf((float)hd);

    for (int t = 0; t < n; t++) memcpy(x + (size_t)t * dim, m->embed + (size_t)tokens[t] * dim, dim * sizeof *x);

    for (int l = 0; l < c->n_layers; l++) {
        const Layer *L = &m->layers[l];
        float *kc = m->key_cache + (size_t)l * m->max_seq * kvdim;   /* [max_seq, kv_dim] */
        float *vc = m->value_cache + (size_t)l * m->max_seq * kvdim;

        /* attention: q, k, v of the new tokens; k and v go straight into the cache */
        rmsnorm(xn, x, L->attn_norm, n, dim, c->norm_eps);
        matmul(q, xn, L->q, n, dim, qdim);
        matmul(kc + (size_t)pos * kvdim, xn, L->k, n, dim, kvdim);
        matmul(vc + (size_t)pos * kvdim, xn, L->v, n, dim, kvdim);
        for (int t = 0; t < n; t++) {
            for (int h = 0; h < c->n_heads; h++) rope(q + (size_t)t * qdim + h * hd, m, pos + t);
            for (int h = 0; h < c->n_kv_heads; h++) rope(kc + (size_t)(pos + t) * kvdim + h * hd, m, pos + t);
        }
        for (int t = 0; t < n; t++) {
            int len = pos + t + 1;                                   /* causal: keys 0..pos+t */
            for (int h = 0; h < c->n_heads; h++) {
                const float *qh = q + (size_t)t * qdim + h * hd;
                int kvh = h / group;
                for (int s = 0; s < len; s++) scores[s] = dot(qh, kc + (size_t)s * kvdim + kvh * hd, hd) * scale;
                softmax(scores, len);
                float *out = att + (size_t)t * qdim + h * hd;
                memset(out, 0, hd * sizeof *out);
                for (int s = 0; s < len; s++) {
                    const float *vs = vc + (size_t)s * kvdim + kvh * hd;
                    for (int i = 0; i < hd; i++) out[i] += scores[s] * vs[i];
                }
            }
        }
        matmul(xn, att, L->o, n, qdim, dim);
        for (size_t i = 0; i < (size_t)n * dim; i++) x[i] += xn[i];

        /* MLP: down(silu(gate(x)) * up(x)), silu(g) = g / (1 + e^-g) */
        rmsnorm(xn, x, L->ffn_norm, n, dim, c->norm_eps);
        matmul(gate, xn, L->gate, n, dim, c->ffn_dim);
        matmul(up, xn, L->up, n, dim, c->ffn_dim);
        for (size_t i = 0; i < (size_t)n * c->ffn_dim; i++) gate[i] = gate[i] / (1.0f + expf(-gate[i])) * up[i];
        matmul(xn, gate, L->down, n, c->ffn_dim, dim);
        for (size_t i = 0; i < (size_t)n * dim; i++) x[i] += xn[i];
    }

    /* final norm and lm_head, for every position or only the last */
    int first = all_logits ? 0 : n - 1;
    rmsnorm(xn, x + (size_t)first * dim, m->final_norm, n - first, dim, c->norm_eps);
    matmul(logits, xn, m->lm_head, n - first, dim, c->vocab);
    free(x); free(xn); free(q); free(att); free(gate); free(up); free(scores);
}

float quantize_row_int8(const float *w, int n, int8_t *q) {
    float absmax = 0;
    for (int k = 0; k < n; k++) absmax = fmaxf(absmax, fabsf(w[k]));
    const float scale = int8_scale(absmax);
    for (int k = 0; k < n; k++) q[k] = (int8_t)int8_round(w[k], scale);
    return scale;
}

/* W [rows][cols] in place: each row becomes q x scale, the weights int8 can represent. The GPU
 * computes scale x sum(q x) instead of sum((q x scale) x); the two differ by fp32 rounding
 * (about 1e-7 of a logit's size), far below what the tests compare. */
static void quantize_matrix(float *W, long long rows, int cols) {
    int8_t *q = xmalloc(cols);
    for (long long r = 0; r < rows; r++) {
        float *w = W + r * cols;
        const float scale = quantize_row_int8(w, cols, q);
        for (int k = 0; k < cols; k++) w[k] = q[k] * scale;
    }
    free(q);
}

void cpu_model_quantize_int8(CpuModel *m) {
    const Config *c = &m->c;
    const int d = c->dim, qd = c->n_heads * c->head_dim, kvd = c->n_kv_heads * c->head_dim;
    for (int l = 0; l < c->n_layers; l++) {
        Layer *L = &m->layers[l];
        quantize_matrix(L->q, qd, d);
        quantize_matrix(L->k, kvd, d);
        quantize_matrix(L->v, kvd, d);
        quantize_matrix(L->o, d, qd);
        quantize_matrix(L->gate, c->ffn_dim, d);
        quantize_matrix(L->up, c->ffn_dim, d);
        quantize_matrix(L->down, d, c->ffn_dim);
    }
    if (m->lm_head == m->embed) {        /* tied: lm_head gets a quantized copy, the embedding stays */
        m->owned = realloc(m->owned, (m->n_owned + 1) * sizeof *m->owned);
        if (!m->owned) die("out of memory");
        const size_t bytes = (size_t)c->vocab * d * sizeof(float);
        m->lm_head = m->owned[m->n_owned++] = memcpy(xmalloc(bytes), m->embed, bytes);
    }
    quantize_matrix(m->lm_head, c->vocab, d);
}

int argmax_f32(const float *x, int n) {
    int best = 0;
    for (int i = 1; i < n; i++)
        if (x[i] > x[best]) best = i;
    return best;
}
