/* test_attn: attention over the KV cache (common/kernels/attention.cu) against a CPU reference: the
 * softmax of q k^T / sqrt(head_dim) over positions 0..pos, times v, summed in double from the
 * same fp16 inputs. Both kernels:
 *   - decode: one query per row (row = t), its keys cut into slices (contexts of up to 2000
 *     keys: several) and merged, as a decode step launches it;
 *   - prompt (one_row): the queries of one row's prompt chunk, a tile of queries per block
 *     sharing each key load; also a chunk that starts mid-prompt (positions c0.., the keys
 *     before c0 already cached) and a row other than 0 of the cache.
 * Shapes: TinyLlama's (32 q heads, 4 kv heads, head_dim 64), the fixture's (4, 2, 16), and
 * odd groups (3 q heads a kv head; head_dim 32 and 128). Every output is checked for being
 * written (the output starts as NaN, and is NaN again before each later launch, so a launch
 * that writes nothing cannot pass), and a decode's first rows run alone are bit for bit the
 * same as among the others (on sm_90 up to ATTN_CLUSTER_ROWS rows merge slices in a cluster,
 * more through global memory). On sm_90 every launch is the decode step's (programmatic
 * dependent launch: the cached keys staged in shared memory before the wait) and gives the
 * same bits as a plain launch, which loads every key where it is used.
 *   build/tests/gpu/test_attn
 *   build/tests/gpu/test_attn --bench   a decode step's attention (TinyLlama's heads) at batch
 *                                       1 and 32, 22 layers' caches back to back as a step
 *                                       reads them: us per layer, at 264 and 1088 keys (the
 *                                       ends of make bench's and day09's runs) */
#include <math.h>
#include <string.h>
#include <vector>
#include "check.h"
#include "kernel_data.cuh"
#include "kernels/kernels.cuh"

/* T queries at (rows[t], pos[t]); prompt = they are all of rows[0]; a decode's queries have
 * 1..keys keys (keys = 0: 400) */
struct Case { const char *name; int nh, nkv, hd, T, prompt, c0, row, keys; };

static void check_case(const Case &c, uint64_t seed) {
    const int rows = c.prompt ? c.row + 1 : c.T, keys = c.keys ? c.keys : 400, max_seq = keys > 512 ? keys : 512;
    const int G = c.nh / c.nkv, qd = c.nh * c.hd;
    const int q_stride = qd + 2 * c.nkv * c.hd;   /* q inside the qkv rows, as the prefill keeps it */
    std::vector<int> row(c.T), pos(c.T);
    for (int t = 0; t < c.T; t++) {
        row[t] = c.prompt ? c.row : t;
        pos[t] = c.prompt ? c.c0 + t : (int)(synth_mix(seed + t) % keys);  /* decode: 1..keys keys */
    }
    const size_t cache = (size_t)rows * c.nkv * max_seq * c.hd;
    std::vector<half> q = random_half((size_t)c.T * q_stride, seed, 2.f), kc = random_half(cache, seed + 1, 2.f),
                      vc = random_half(cache, seed + 2, 1.f), out((size_t)c.T * qd, __ushort_as_half(0x7fff));
    half *dq = to_gpu(q), *dk = to_gpu(kc), *dv = to_gpu(vc), *dout = to_gpu(out);
    const std::vector<half> unwritten_out = out;   /* all NaN: what dout holds before each launch */
    int *drow = to_gpu(row), *dpos = to_gpu(pos);
    float *part;
    int *counter;
    CUDA_CHECK(cudaMalloc(&part, sizeof(float) * c.T * c.nkv * attn_part_floats(ATTN_MAX_SPLITS, G, c.hd)));
    CUDA_CHECK(cudaMalloc(&counter, sizeof(int) * c.T * c.nkv));
    CUDA_CHECK(cudaMemset(counter, 0, sizeof(int) * c.T * c.nkv));
    AttnArgs a = {dq, q_stride, c.prompt ? drow : NULL, dpos, dk, dv, dout, qd, c.T, c.nh, c.nkv, c.hd, max_seq,
                  c.prompt ? 1 : ATTN_MAX_SPLITS, part, counter, c.prompt};
    const int pdl = gpu_sm90_paths();   /* as a decode step launches it: old keys staged before the wait */
    k_attention(0, pdl, -1, &a);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(out.data(), dout, out.size() * sizeof(half), cudaMemcpyDeviceToHost));
    /* launches a again into a dout refilled with NaN, and copies it to dst: a launch that
     * writes nothing cannot match the first one's output */
    auto relaunch = [&](int with_pdl, std::vector<half> &dst) {
        CUDA_CHECK(cudaMemcpy(dout, unwritten_out.data(), out.size() * sizeof(half), cudaMemcpyHostToDevice));
        k_attention(0, with_pdl, -1, &a);
        CUDA_CHECK(cudaDeviceSynchronize());
        CUDA_CHECK(cudaMemcpy(dst.data(), dout, dst.size() * sizeof(half), cudaMemcpyDeviceToHost));
    };
    if (pdl) {                      /* the keys loaded where they are used give the same bits */
        std::vector<half> plain(out.size());
        relaunch(0, plain);
        CHECK(!memcmp(plain.data(), out.data(), out.size() * sizeof(half)),
              "%s: launched without programmatic dependent launch (no keys staged) it differs", c.name);
    }
    if (!c.prompt && c.T > 1) {     /* the first rows alone (on sm_90 a cluster merges a few rows' slices) */
        std::vector<half> few((size_t)c.T * qd);
        a.T = c.T < 4 ? c.T - 1 : 4;
        relaunch(pdl, few);
        CHECK(!memcmp(few.data(), out.data(), (size_t)a.T * qd * sizeof(half)),
              "%s: the first %d rows alone differ from the same rows among %d", c.name, a.T, c.T);
    }

    double worst = 0;
    int unwritten = 0;
    std::vector<double> p(max_seq);
    for (int t = 0; t < c.T; t++)
        for (int h = 0; h < c.nh; h++) {
            const half *qv = &q[(size_t)t * q_stride + h * c.hd];
            const size_t base = ((size_t)row[t] * c.nkv + h / G) * max_seq * c.hd;
            double mx = -INFINITY, sum = 0;
            for (int j = 0; j <= pos[t]; j++) {
                double s = 0;
                for (int d = 0; d < c.hd; d++) s += (double)__half2float(qv[d]) * __half2float(kc[base + (size_t)j * c.hd + d]);
                p[j] = s / sqrt((double)c.hd), mx = fmax(mx, p[j]);
            }
            for (int j = 0; j <= pos[t]; j++) p[j] = exp(p[j] - mx), sum += p[j];
            for (int d = 0; d < c.hd; d++) {
                double r = 0;
                for (int j = 0; j <= pos[t]; j++) r += p[j] * __half2float(vc[base + (size_t)j * c.hd + d]);
                const float v = __half2float(out[(size_t)t * qd + h * c.hd + d]);
                if (isnan(v)) unwritten++;
                else worst = fmax(worst, fabs(v - r / sum));
            }
        }
    CHECK(unwritten == 0, "%s: %d of %zu outputs not written", c.name, unwritten, out.size());
    /* v is in [-1, 1]: fp16 output rounding is <= 5e-4; P in fp16 adds ~1e-3 at worst */
    CHECK(worst < 3e-3, "%s: worst absolute error %.2e, expected < 3e-3", c.name, worst);
    printf("%-40s nh=%2d nkv=%d hd=%3d T=%3d: worst %.1e, every output written\n", c.name, c.nh, c.nkv, c.hd, c.T, worst);
    for (void *d : {(void *)dq, (void *)dk, (void *)dv, (void *)dout, (void *)drow, (void *)dpos, (void *)part,
                    (void *)counter})
        CUDA_CHECK(cudaFree(d));
}

/* ---- --bench: 22 layers' decode attention back to back, launched as the model launches it ---- */
static void bench(void) {
    const int nh = 32, nkv = 4, hd = 64, max_seq = 2048, layers = 22, reps = 10 * layers;
    const int pdl = gpu_sm90_paths(), q_stride = (nh + 2 * nkv) * hd;
    const size_t layer = (size_t)32 * nkv * max_seq * hd;
    half *q, *kc, *vc, *out;
    float *part;
    int *counter, *pos;
    CUDA_CHECK(cudaMalloc(&q, sizeof(half) * 32 * q_stride));
    CUDA_CHECK(cudaMemset(q, 0x11, sizeof(half) * 32 * q_stride));   /* small finite fp16 values */
    CUDA_CHECK(cudaMalloc(&kc, sizeof(half) * layer * layers));
    CUDA_CHECK(cudaMemset(kc, 0x22, sizeof(half) * layer * layers));
    CUDA_CHECK(cudaMalloc(&vc, sizeof(half) * layer * layers));
    CUDA_CHECK(cudaMemset(vc, 0x33, sizeof(half) * layer * layers));
    CUDA_CHECK(cudaMalloc(&out, sizeof(half) * 32 * nh * hd));
    CUDA_CHECK(cudaMalloc(&part, sizeof(float) * 32 * nkv * attn_part_floats(ATTN_MAX_SPLITS, nh / nkv, hd)));
    CUDA_CHECK(cudaMalloc(&counter, sizeof(int) * 32 * nkv));
    CUDA_CHECK(cudaMemset(counter, 0, sizeof(int) * 32 * nkv));
    CUDA_CHECK(cudaMalloc(&pos, sizeof(int) * 32));
    for (int L : {264, 1088})
        for (int T = 1; T <= 32; T += 31) {
            std::vector<int> p(32, L - 1);
            CUDA_CHECK(cudaMemcpy(pos, p.data(), sizeof(int) * 32, cudaMemcpyHostToDevice));
            AttnArgs a = {q, q_stride, NULL, pos, kc, vc, out, nh * hd, T, nh, nkv, hd, max_seq, ATTN_MAX_SPLITS,
                          part, counter, 0};
            const Stats s = time_launches_us(reps, [&](int i) {
                a.kc = kc + (i % layers) * layer, a.vc = vc + (i % layers) * layer;
                k_attention(0, pdl, -1, &a);
            });
            printf("attn_bench T=%d keys=%d us=%.2f range_us=%.2f-%.2f\n", T, L, s.median, s.min, s.max);
        }
    for (void *d : {(void *)q, (void *)kc, (void *)vc, (void *)out, (void *)part, (void *)counter, (void *)pos})
        CUDA_CHECK(cudaFree(d));
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "--bench")) {
        bench();
        return 0;
    }
    const Case cases[] = {
        {"decode, TinyLlama heads", 32, 4, 64, 5, 0, 0, 0},
        {"decode, TinyLlama heads, 32 rows", 32, 4, 64, 32, 0, 0, 0},
        {"decode, up to 2000 keys (several slices)", 32, 4, 64, 6, 0, 0, 0, 2000},
        {"decode, 32 rows, up to 2000 keys", 32, 4, 64, 32, 0, 0, 0, 2000},
        {"decode, the fixture's heads", 4, 2, 16, 7, 0, 0, 0, 1500},
        {"decode, 3 q heads a kv head, hd 128", 6, 2, 128, 3, 0, 0, 0, 1200},
        {"prompt, TinyLlama heads, 200 tokens", 32, 4, 64, 200, 1, 0, 0},
        {"prompt, one token", 32, 4, 64, 1, 1, 0, 0},
        {"prompt chunk from position 77, row 2", 32, 4, 64, 50, 1, 77, 2},
        {"prompt, the fixture's heads", 4, 2, 16, 33, 1, 0, 1},
        {"prompt, 3 q heads a kv head, hd 32", 6, 2, 32, 70, 1, 5, 0},
        {"prompt, 1 q head a kv head, hd 128", 2, 2, 128, 130, 1, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) check_case(cases[i], 1000 + 17 * i);
    return check_done("test_attn");
}
