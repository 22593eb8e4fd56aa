/* test_eager_ops: the kit's eager step (its op table, model/eager_ops.c, which the step is held
 * to while it is captured) against PyTorch eager's decode step in the two real torch.profiler
 * traces of ../shared/fixtures/torch-trace/. For every ProfilerStep: the kernels, less cuBLAS's
 * split-K reduce kernels, are the table's in order, each of the table's class (from the
 * kernel's name) and launched by the table's aten op; a layer's kernels are counted by class
 * and by part, and each layer of the trace is the table's layer. (The GPU test holds the kit's
 * own kernels, CUPTI's record of one eager step, to the same table and to the trace's 925 a
 * step within 2%.) Then the class of the kit's own kernel names. Prints the per-layer
 * comparison. */
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "measure/trace_json.h"
#include "model/eager_ops.h"

enum { LAYERS = 22 };   /* TinyLlama's, the traces' shape */

/* one step's kernels (start inside the GPU-side window), in order; returns how many */
static int step_kernels(const TraceJson *tj, const TraceStep *s, const TKernel **out, int cap) {
    int n = 0;
    for (int i = 0; i < tj->t.nk; i++)
        if (tj->t.k[i].start >= s->gpu0 && tj->t.k[i].start < s->gpu1 && n < cap) out[n++] = &tj->t.k[i];
    return n;
}

static void count_layer(const EagerOp *ops, int n, int by_class[OC_COUNT], int by_part[P_COUNT]) {
    for (int i = 0; i < n; i++) by_class[ops[i].cls]++, by_part[ops[i].part]++;
}

static void one_trace(const char *file, int print) {
    char path[1024], err[512];
    snprintf(path, sizeof path, "%s/fixtures/torch-trace/%s", shared_dir(), file);
    TraceJson tj;
    if (trace_json_read(path, &tj, err, sizeof err) != 0) {
        CHECK(0, "%s", err);
        return;
    }
    const int want = eager_ops_per_pass(LAYERS);
    int steps = 0;
    for (int si = 0; si < tj.nsteps; si++) {
        if (!tj.steps[si].has_gpu) continue;
        steps++;
        static const TKernel *k[4096];
        const int nk = step_kernels(&tj, &tj.steps[si], k, 4096);
        /* the table's ops, in order, against the kernels; a GEMM's split-K reduce is cuBLAS's own */
        int i = 0, reduces = 0, first_bad = -1;
        int layer_class[LAYERS][OC_COUNT] = {{0}}, layer_part[LAYERS][P_COUNT] = {{0}};
        for (int j = 0; j < nk; j++) {
            const OpClass cls = op_class_of_kernel(k[j]->name);
            if (cls == OC_GEMM_REDUCE) {
                reduces++;
                CHECK(j > 0 && op_class_of_kernel(k[j - 1]->name) == OC_GEMM, "%s step %ld: a split-K reduce at kernel "
                      "%d follows no GEMM", file, tj.steps[si].number, j);
                continue;
            }
            int layer;
            const EagerOp *op = eager_op_at(LAYERS, i, &layer);
            if (first_bad < 0 && (!op || op->cls != cls || !k[j]->op || strcmp(op->aten, k[j]->op))) {
                first_bad = i;
                CHECK(0, "%s step %ld, op %d: the trace has a %s kernel from %s (%.80s), the table %s (%s, %s)", file,
                      tj.steps[si].number, i, op_class_name(cls), k[j]->op ? k[j]->op : "no op", k[j]->name,
                      op ? op->op : "nothing", op ? op_class_name(op->cls) : "-", op ? op->aten : "-");
            }
            if (op && layer >= 0) layer_class[layer][cls]++, layer_part[layer][op->part]++;
            i++;
        }
        CHECK(first_bad < 0, "%s step %ld: the kernels follow the table", file, tj.steps[si].number);
        CHECK(i == want, "%s step %ld: %d kernels besides cuBLAS's reduces, the table lists %d", file,
              tj.steps[si].number, i, want);
        CHECK(reduces <= LAYERS * 7 + 2, "%s step %ld: %d split-K reduces, more than one a GEMM", file,
              tj.steps[si].number, reduces);
        /* per layer: the same counts by class and by part as the table's layer */
        int table_class[OC_COUNT] = {0}, table_part[P_COUNT] = {0};
        count_layer(EAGER_LAYER, EAGER_LAYER_N, table_class, table_part);
        int layers_same = 0;
        for (int l = 0; l < LAYERS; l++)
            layers_same += !memcmp(layer_class[l], table_class, sizeof table_class) &&
                           !memcmp(layer_part[l], table_part, sizeof table_part);
        CHECK(layers_same == LAYERS, "%s step %ld: %d of %d layers have the table's counts by class and part", file,
              tj.steps[si].number, layers_same, LAYERS);
        if (print && steps == 1) {
            printf("%s, step %ld: %d kernels = %d ops + %d split-K reduces; the table: %d before the layers, %d x %d, "
                   "%d after\n", file, tj.steps[si].number, nk, i, reduces, EAGER_HEAD_N, LAYERS, EAGER_LAYER_N,
                   EAGER_TAIL_N);
            printf("  one layer, by part (kit table | trace layer 0):");
            for (int p = 0; p < P_COUNT; p++)
                if (table_part[p] || layer_part[0][p])
                    printf(" %s %d|%d", part_name((Part)p), table_part[p], layer_part[0][p]);
            printf("\n  one layer, by class:");
            for (int c = 0; c < OC_COUNT; c++)
                if (table_class[c] || layer_class[0][c]) printf(" %s %d|%d", op_class_name((OpClass)c), table_class[c], layer_class[0][c]);
            printf(" (+%d split-K reduce a layer in the trace)\n", reduces / LAYERS);
        }
    }
    CHECK(steps == 3, "%s: %d ProfilerSteps with a GPU side, expected 3", file, steps);
    trace_json_free(&tj);
}

/* the class of this kit's kernel names, as CUPTI gives them */
static void kit_names(void) {
    static const struct { const char *name; OpClass cls; } cases[] = {
        {"embed(int const*, __half const*, __half*, int)", OC_GATHER},
        {"void elementwise_map<Pow2, float, float>(Pow2, float const*, View, float*, long long)", OC_ELEMENTWISE},
        {"void elementwise_zip<AddH, __half, __half, __half>(AddH, __half const*, __half const*, View, __half*, long long)",
         OC_ELEMENTWISE},
        {"elementwise_arange(int*, int, int)", OC_ELEMENTWISE},
        {"void copy_cast<__half, float>(__half const*, View, float*, long long)", OC_COPY},
        {"reduce_mean_rows(float const*, float*, int)", OC_REDUCE},
        {"void cat_last<__half>(__half const*, int, int, __half const*, int, int, __half*, long long)", OC_CAT},
        {"cat_kv_cache(__half const*, int const*, int const*, __half*, int, int, int, int)", OC_CAT},
        {"void attn_kv<64, 1>(AttnArgs)", OC_ATTENTION},
        {"argmax(__half const*, int, int*, int*, int)", OC_REDUCE},
        {"nvjet_sm90_hsh_64x8_64x16_4x1_v_bz_splitK_TNT", OC_GEMM},
        {"void cublasLt::splitKreduce_kernel<32, 16, int, float, __half, float, __half, false>(...)", OC_GEMM_REDUCE},
        {"turing_fp16_s1688gemm_fp16_128x128_ldg8_f2f_tn", OC_GEMM},
        {"void gemv2T_kernel_val<int, int, __half, __half, float, 128, 16, 4, 4, false, false>(...)", OC_GEMM},
        {"void at::native::vectorized_elementwise_kernel<4, at::native::rsqrt_kernel_cuda(...)", OC_ELEMENTWISE},
        {"void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda(...)", OC_COPY},
        {"void at::native::(anonymous namespace)::CatArrayBatchedCopy<...>", OC_CAT},
        {"fmha_cutlassF_f16_aligned_64x64_rf_sm75(PyTorchMemEffAttention::AttentionKernel<...>::Params)", OC_ATTENTION},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        CHECK(op_class_of_kernel(cases[i].name) == cases[i].cls, "%s: class %s, expected %s", cases[i].name,
              op_class_name(op_class_of_kernel(cases[i].name)), op_class_name(cases[i].cls));
}

int main(void) {
    kit_names();
    CHECK(eager_ops_per_pass(LAYERS) == 903, "TinyLlama's eager pass: %d launches, 13 + 22 x 40 + 10 = 903 expected",
          eager_ops_per_pass(LAYERS));
    need_fixtures("test_eager_ops");
    one_trace("trace_hf_eager_b1.json", 1);
    one_trace("trace_hf_eager_b1_host2.json.gz", 0);
    return check_done("test_eager_ops");
}
