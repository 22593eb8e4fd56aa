/* eager_ops: the kernels PyTorch eager launches for one forward pass of transformers'
 * LlamaForCausalLM, in order, as a table: the spec of the kit's eager step
 * (gpu/gpu_eager.cu launches exactly this list and checks itself against it while a step is
 * captured; tests/cpu/test_eager_ops.c holds it against a real torch.profiler trace).
 *
 * One forward pass = EAGER_HEAD, then EAGER_LAYER once per layer, then EAGER_TAIL. Each entry
 * is one launch: the op's name in the kit (its NVTX range and trace tag), the aten op whose
 * kernel it stands for, the kernel's class, and the model part. A GEMM may bring a second
 * kernel of its own: cuBLAS splits the reduction of a long K over blocks and adds the slices
 * in a splitKreduce kernel when its heuristics say so (down_proj, K = 5632, on an H200); that
 * kernel is cuBLAS's choice for the GPU, not an op, so it is not in the table (class
 * OC_GEMM_REDUCE when a trace shows one). */
#ifndef KIT_EAGER_OPS_H
#define KIT_EAGER_OPS_H
#include "parts.h"
#ifdef __cplusplus
extern "C" {
#endif

/* What the table mirrors: the torch.profiler trace of ../shared/fixtures/torch-trace/ */
#define EAGER_MIRRORS "transformers 5.17 with torch 2.11"

/* A kernel's class, what a torch.profiler table shows by its name */
typedef enum {
    OC_GATHER,          /* index_select (the embedding) */
    OC_ELEMENTWISE,     /* one value out per value in: mul, add, pow, rsqrt, neg, silu, cos, sin, arange */
    OC_COPY,            /* a dtype change (.to(float32), .to(float16), .float()) */
    OC_REDUCE,          /* a row reduced to one value: mean, argmax */
    OC_CAT,             /* torch.cat: rotate_half, the rotary table, the KV cache */
    OC_GEMM,            /* a matmul: the linear layers, the rotary frequencies */
    OC_GEMM_REDUCE,     /* cuBLAS's split-K reduce after a GEMM */
    OC_ATTENTION,       /* scaled_dot_product_attention */
    OC_OTHER,
    OC_COUNT
} OpClass;
const char *op_class_name(OpClass c);   /* "gather", "elementwise", ... */
/* The class of a kernel from its name: PyTorch's (indexSelectSmallIndex, *elementwise_kernel*,
 * direct_copy / float16_copy, reduce_kernel, CatArrayBatchedCopy, nvjet / cutlass / *gemm*,
 * splitKreduce, *sdpa* / flash / fmha), cuBLAS's on any GPU, and this kit's (embed,
 * elementwise_*, copy_*, reduce_*, argmax, cat_*, attn_*). */
OpClass op_class_of_kernel(const char *kernel_name);

typedef struct {
    const char *op;     /* the kit's op: what op_begin() is called with */
    const char *aten;   /* the outermost aten op that launches PyTorch's kernel */
    OpClass cls;
    Part part;
} EagerOp;

extern const EagerOp EAGER_HEAD[], EAGER_LAYER[], EAGER_TAIL[];
extern const int EAGER_HEAD_N, EAGER_LAYER_N, EAGER_TAIL_N;
/* launches of one forward pass of n_layers layers (without cuBLAS's own second kernels) */
int eager_ops_per_pass(int n_layers);
/* the i-th launch of a pass (0 <= i < eager_ops_per_pass), and its layer (-1 outside the layers) */
const EagerOp *eager_op_at(int n_layers, int i, int *layer);

#ifdef __cplusplus
}
#endif
#endif
