/* parts: the model parts a kernel can belong to. The launch path tags every op with one;
 * the profiler (day10) groups GPU time by them; charts colour them. */
#ifndef KIT_PARTS_H
#define KIT_PARTS_H
#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    P_EMBED, P_NORM, P_Q, P_K, P_V, P_QKV, P_ROPE, P_KV_APPEND, P_ATTN, P_O, P_RESIDUAL,
    P_GATE, P_UP, P_GATE_UP, P_SILU_MUL, P_DOWN, P_LM_HEAD, P_ARGMAX, P_OTHER,
    P_LINEAR,       /* some linear layer, which one unknown (an untagged gemm/gemv kernel) */
    P_ELEMENTWISE,  /* some elementwise op, which one unknown */
    P_DEQUANT,      /* int8 weights back to fp16 for an fp16 linear layer (the unfused int8 path) */
    P_COUNT
} Part;

const char *part_name(Part p);          /* "embed", "norm", "q", ..., "other", "linear", "elementwise", "dequant" */
int part_from_name(const char *name);   /* inverse of part_name; -1 if unknown */
int part_is_gemm(Part p);               /* the linear layers: q k v qkv o gate up gate_up down lm_head linear */
/* What the lesson's table does by eye: guess the part from a kernel's name alone, as
 * specific as the name allows (gemm/gemv/cutlass -> linear, fmha/flash -> attn,
 * reduce_kernel -> norm (RMSNorm's mean), CatArrayBatchedCopy -> kv_append,
 * elementwise -> elementwise; this kit's gemv_*, rmsnorm*, rope*, ... by their prefix).
 * Returns P_OTHER when the name says nothing. Used when a kernel carries no tag. */
Part part_from_kernel_name(const char *kernel_name);
/* The same guess for a kernel of a torch.profiler trace, from the aten op that launched it
 * (its outermost one): linear/addmm/mm -> linear; matmul/bmm, attention, softmax -> attn;
 * pow/mean/rsqrt, *norm* -> norm; any other op -> elementwise. */
Part part_from_op_name(const char *op_name);
/* The lesson's families of kernels (its profiler table, by family, not by kernel name): the
 * linear layers; elementwise (RMSNorm's pieces, RoPE, the residual add, silu * up); the
 * attention core; and beyond its three, the KV cache's append and the rest (embedding, argmax,
 * int8's dequantize). */
typedef enum { F_LINEAR, F_ELEMENTWISE, F_ATTENTION, F_KV_APPEND, F_REST, F_COUNT } Family;
Family part_family(Part p);
const char *family_name(Family f);      /* "linear", "elementwise", "attention", "kv_append", "rest" */
/* A fixed colour per part (RGB), for charts and the trace. */
void part_color(Part p, unsigned char rgb[3]);

#ifdef __cplusplus
}
#endif
#endif
