/* The profiler's table on made-up kernel records: short names, the name -> part mapping of
 * the rows, GEMM calls (a split-K GEMM is one call), weight bytes and GB/s, the layout. */
#include <string.h>
#include "check.h"
#include "measure/profile_table.h"
#include "measure/trace.h"

static void short_is(const char *name, size_t cap, const char *want) {
    char got[256];
    kernel_short_name(name, got, cap);
    CHECK(strcmp(got, want) == 0, "short name of %s: got '%s', want '%s'", name, got, want);
}

static TKernel K(uint64_t start_us, double dur_us, uint64_t ext, int part, const char *name) {
    TKernel k = {.start = start_us * 1000, .end = start_us * 1000 + (uint64_t)(dur_us * 1000),
                 .ext = ext, .part = ext ? part : P_OTHER, .layer = ext ? 0 : -1,
                 .is_gemm = ext && part_is_gemm((Part)part), .name = name};
    return k;
}

#define GEMV "void gemv_f16<128>(__half const*, __half const*, __half*, int, int)"
#define CUBLAS "sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize64x64x64_warpgroupsize1x1x1"
#define SPLITK "void cublasLt::splitKreduce_kernel<32, 16, int, float, __half, float, __half>(float const*)"
#define ADD "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::Half>, " \
            "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<c10::Half>, at::detail::Array<char*, 3>)"
#define CAT "void at::native::(anonymous namespace)::CatArrayBatchedCopy<c10::Half, unsigned int, 4, 64, 64>" \
            "(c10::Half*, at::native::(anonymous namespace)::CatArrInputTensorMetadata<c10::Half, unsigned int, 64, 64>, " \
            "at::native::(anonymous namespace)::TensorSizeStride<unsigned int, 4u>, int, unsigned int)"

static void test_names(void) {
    short_is(GEMV, 64, "gemv_f16<128>");
    short_is(ADD, 41, "vectorized_elementwise_kernel<4, at::...");
    short_is(CAT, 64, "CatArrayBatchedCopy<c10::Half, unsigned int, 4, 64, 64>");
    short_is("fmha_cutlassF_f16_aligned_64x64_rf_sm75", 64, "fmha_cutlassF_f16_aligned_64x64_rf_sm75");
    short_is("rmsnorm_kernel(__half*, __half const*, float, int)", 64, "rmsnorm_kernel");
    short_is("abcdefghijklmnopqrstuvwxyz", 11, "abcdefg...");
    short_is(NULL, 8, "?");

    char lab[64];
    parts_label((1u << P_Q) | (1u << P_K) | (1u << P_LM_HEAD), lab, sizeof lab);
    CHECK(strcmp(lab, "q/k/lm_head") == 0, "parts label: %s", lab);
    parts_label(0, lab, sizeof lab);
    CHECK(strcmp(lab, "-") == 0, "empty parts label: %s", lab);
    parts_label((1u << P_Q) | (1u << P_K) | (1u << P_V) | (1u << P_O), lab, 6);
    CHECK(strcmp(lab, "q/...") == 0, "cut parts label: %s", lab);
}

/* Untagged kernels get the part their name says, the way the lesson's table is read. */
static void test_name_to_part(void) {
    struct { const char *name; Part want; } guess[] = {
        {GEMV, P_LINEAR}, {CUBLAS, P_LINEAR}, {"turing_fp16_s1688gemm_fp16_128x128_ldg8_f2f_tn", P_LINEAR},
        {"void gemv2T_kernel_val<int, int, __half, __half, float, 128, 16, 4, 4, false, false>(int)", P_LINEAR},
        {SPLITK, P_LINEAR}, {ADD, P_ELEMENTWISE},
        {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float>>>(int)", P_NORM},
        {"fmha_cutlassF_f16_aligned_64x64_rf_sm75", P_ATTN}, {"flash_fwd_kernel<Flash_fwd_kernel_traits>", P_ATTN},
        {CAT, P_KV_APPEND}, {"mystery_kernel", P_OTHER},
    };
    int n = sizeof guess / sizeof guess[0];
    Trace t = {0};
    for (int i = 0; i < n; i++) {
        TKernel k = K(10 * i, 1 + i, 0, 0, guess[i].name);
        trace_add_kernel(&t, &k);
    }
    TKernel tagged = K(500, 100, 77, P_DOWN, "mystery_kernel");   /* a tag wins over the name */
    trace_add_kernel(&t, &tagged);
    TraceWindow w = trace_window(&t, 0, 1000000, 1);
    ProfRow *rows = profile_rows(&t, &w, 0, 1000000, NULL);
    CHECK(w.n_names == n, "%d names, got %d", n, w.n_names);
    for (int r = 0; r < w.n_names; r++) {
        unsigned want = 0;
        for (int i = 0; i < n; i++)
            if (strcmp(guess[i].name, rows[r].nt->name) == 0) want = 1u << guess[i].want;
        if (strcmp(rows[r].nt->name, "mystery_kernel") == 0) want |= 1u << P_DOWN;
        char got[64], exp[64];
        parts_label(rows[r].parts, got, sizeof got);
        parts_label(want, exp, sizeof exp);
        CHECK(rows[r].parts == want, "row %s: parts %s, want %s", rows[r].nt->name, got, exp);
    }
    free(rows);
    trace_window_free(&w);
    trace_free(&t);
}

static void test_bytes(double pb[P_COUNT]) {
    Config c = {.vocab = 32000, .dim = 2048, .ffn_dim = 5632, .n_layers = 22, .n_heads = 32,
                .n_kv_heads = 4, .head_dim = 64};
    linear_part_bytes(&c, pb);
    CHECK(pb[P_Q] == 8388608 && pb[P_K] == 1048576 && pb[P_V] == 1048576 && pb[P_O] == 8388608,
          "attention projection bytes %.0f %.0f %.0f %.0f", pb[P_Q], pb[P_K], pb[P_V], pb[P_O]);
    CHECK(pb[P_GATE] == 23068672 && pb[P_GATE_UP] == 2 * 23068672.0 && pb[P_LM_HEAD] == 131072000,
          "ffn / lm_head bytes %.0f %.0f %.0f", pb[P_GATE], pb[P_GATE_UP], pb[P_LM_HEAD]);
    CHECK(pb[P_QKV] == pb[P_Q] + pb[P_K] + pb[P_V], "fused qkv bytes");
    double per_step = pb[P_LM_HEAD];
    int linears[] = {P_Q, P_K, P_V, P_O, P_GATE, P_UP, P_DOWN};
    for (int l = 0; l < 22; l++)
        for (int i = 0; i < 7; i++) per_step += pb[linears[i]];
    CHECK(per_step == 2068840448.0, "linear bytes per step %.0f, want 2068840448", per_step);
    CHECK(pb[P_NORM] == 0 && pb[P_LINEAR] == 0, "no bytes for norm and an untagged linear");
}

/* Two made-up decode steps: q and k GEMVs, a split-K lm_head (two kernels, one tag), three
 * untagged elementwise kernels; one more kernel outside the window. */
static void test_table(const double pb[P_COUNT]) {
    Trace t = {0};
    uint64_t ext = 1;
    for (int s = 0; s < 2; s++) {
        uint64_t t0 = 100 + s * 1000;
        TKernel ks[] = {
            K(t0 + 0, 10, ext, P_Q, GEMV), K(t0 + 20, 2, ext + 1, P_K, GEMV),
            K(t0 + 30, 1, 0, 0, ADD), K(t0 + 40, 1, 0, 0, ADD), K(t0 + 50, 1 + s, 0, 0, ADD),
            K(t0 + 60, 20, ext + 2, P_LM_HEAD, CUBLAS), K(t0 + 90, 1, ext + 2, P_LM_HEAD, SPLITK),
        };
        ext += 3;
        for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) trace_add_kernel(&t, &ks[i]);
    }
    TKernel late = K(5000, 50, 0, 0, "mystery_kernel");
    trace_add_kernel(&t, &late);

    TraceWindow w = trace_window(&t, 0, 3000000, 2);
    ProfRow *rows = profile_rows(&t, &w, 0, 3000000, pb);
    CHECK(w.n_names == 4, "4 kernel names in the window, got %d", w.n_names);
    CHECK(w.gemms_per_step == 3, "3 GEMM calls per step (split-K is one call), got %g", w.gemms_per_step);
    CHECK(strcmp(rows[0].nt->name, CUBLAS) == 0 && rows[0].parts == 1u << P_LM_HEAD,
          "row 1 is the lm_head GEMM: %s", rows[0].nt->name);
    CHECK(rows[0].bytes == 2 * pb[P_LM_HEAD], "lm_head bytes once per call: %.0f", rows[0].bytes);
    CHECK(strcmp(rows[1].nt->name, GEMV) == 0 && rows[1].parts == ((1u << P_Q) | (1u << P_K)),
          "row 2 is the GEMV of q and k");
    CHECK(rows[1].bytes == 2 * (pb[P_Q] + pb[P_K]), "GEMV bytes %.0f", rows[1].bytes);
    CHECK(strcmp(rows[2].nt->name, ADD) == 0 && rows[2].bytes == 0 && rows[2].parts == 1u << P_ELEMENTWISE,
          "row 3 is the elementwise add");
    CHECK(strcmp(rows[3].nt->name, SPLITK) == 0 && rows[3].bytes == 0 && rows[3].parts == 1u << P_LM_HEAD,
          "row 4 is split-K's reduction, with no bytes of its own");

    FILE *f = tmpfile();
    profile_table_print(f, &w, rows, 3);
    rewind(f);
    char lines[16][512];
    int nl = 0;
    while (nl < 16 && fgets(lines[nl], sizeof lines[nl], f)) nl++;
    fclose(f);
    CHECK(nl == 8, "3 rows + header + 3 rules + footer = 8 lines, got %d", nl);
    CHECK(strstr(lines[1], "Name (kernel)") && strstr(lines[1], "Model part") && strstr(lines[1], "Calls/step") &&
          strstr(lines[1], "GB/s"), "header: %s", lines[1]);
    CHECK(strncmp(lines[3], "sm90_xmma_gemm_f16f16_f16f32_f32_tn_n...", 40) == 0, "row 1: %s", lines[3]);
    CHECK(strstr(lines[3], "lm_head") && strstr(lines[3], "      1.0") && strstr(lines[3], "20.0") &&
          strstr(lines[3], "54.8%") && strstr(lines[3], "20.00 +- 0.00") && strstr(lines[3], " 6554\n"),
          "row 1 numbers: %s", lines[3]);
    CHECK(strncmp(lines[4], "gemv_f16<128>", 13) == 0 && strstr(lines[4], "q/k") && strstr(lines[4], "      2.0") &&
          strstr(lines[4], " 786\n"), "row 2: %s", lines[4]);
    CHECK(strncmp(lines[5], "vectorized_elementwise_kernel<4, at::...", 40) == 0 && strstr(lines[5], "elementwise") &&
          strstr(lines[5], "1.17 +- 0.41") && strstr(lines[5], "    -\n"), "row 3: %s", lines[5]);
    for (int i = 0; i < 7; i++)
        CHECK(strlen(lines[i]) == strlen(lines[1]), "line %d is %zu wide, the header %zu", i, strlen(lines[i]),
              strlen(lines[1]));
    CHECK(strstr(lines[7], "3 of 4 kernel names") && strstr(lines[7], "36.5 us"), "footer: %s", lines[7]);

    free(rows);
    trace_window_free(&w);
    TraceWindow empty = trace_window(&t, 1, 2, 3);
    rows = profile_rows(&t, &empty, 1, 2, pb);
    CHECK(empty.n_names == 0 && empty.gemms_per_step == 0, "an empty window has no rows");
    free(rows);
    trace_window_free(&empty);
    trace_free(&t);
}

int main(void) {
    double pb[P_COUNT];
    test_names();
    test_name_to_part();
    test_bytes(pb);
    test_table(pb);
    return check_done("test_profile_table");
}
