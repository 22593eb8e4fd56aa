/* eager_ops: PyTorch eager's kernels for transformers' Llama, one forward pass, in order.
 * Read off the fixture trace (torch 2.11, transformers 5.17, an H200, batch 1; 925 kernels a
 * decode step = 13 + 22 x 41 + 10, the 41 including down_proj's split-K reduce), each kernel
 * joined to the aten op that launched it. The comments quote modeling_llama.py. */
#include <string.h>
#include "model/eager_ops.h"

const char *op_class_name(OpClass c) {
    static const char *n[] = {"gather", "elementwise", "copy", "reduce", "cat", "gemm", "gemm_reduce", "attention", "other"};
    return c >= 0 && c < OC_COUNT ? n[c] : "?";
}

static int has(const char *s, const char *sub) { return strstr(s, sub) != NULL; }

OpClass op_class_of_kernel(const char *k) {
    if (!k) return OC_OTHER;
    /* the order matters: CatArrayBatchedCopy is a cat, not a copy; splitKreduce a GEMM's own
     * reduce, not a reduction of the model; a kernel named for its functor says its class */
    if (has(k, "splitKreduce") || has(k, "splitK_reduce") || (has(k, "reduce_kernel") && has(k, "cublas")))
        return OC_GEMM_REDUCE;
    if (has(k, "CatArray") || has(k, "cat_")) return OC_CAT;
    if (has(k, "sdpa") || has(k, "flash") || has(k, "fmha") || has(k, "attn_") || has(k, "attention"))
        return OC_ATTENTION;
    if (has(k, "indexSelect") || has(k, "index_select") || !strncmp(k, "embed", 5)) return OC_GATHER;
    if (has(k, "reduce_kernel") || has(k, "reduce_") || !strncmp(k, "argmax", 6)) return OC_REDUCE;
    if (has(k, "copy")) return OC_COPY;
    if (has(k, "nvjet") || has(k, "gemm") || has(k, "gemv") || has(k, "cutlass") || has(k, "xmma") ||
        has(k, "cublas"))
        return OC_GEMM;
    if (has(k, "elementwise")) return OC_ELEMENTWISE;
    return OC_OTHER;
}

/* LlamaModel.forward before the layers, and LlamaRotaryEmbedding.forward */
const EagerOp EAGER_HEAD[] = {
    {"embed", "aten::embedding", OC_GATHER, P_EMBED},                  /* self.embed_tokens(input_ids) */
    {"cache_position.arange", "aten::arange", OC_ELEMENTWISE, P_ROPE},  /* torch.arange(seq_len) */
    {"cache_position.add", "aten::add", OC_ELEMENTWISE, P_ROPE},        /*   + past_seen_tokens */
    {"inv_freq.float", "aten::to", OC_COPY, P_ROPE},                    /* inv_freq[None, :, None].float().expand() */
    {"position_ids.float", "aten::to", OC_COPY, P_ROPE},                /* position_ids[:, None, :].float() */
    {"freqs", "aten::matmul", OC_GEMM, P_ROPE},                         /* inv_freq_expanded @ position_ids_expanded */
    {"emb.cat", "aten::cat", OC_CAT, P_ROPE},                           /* torch.cat((freqs, freqs), dim=-1) */
    {"cos", "aten::cos", OC_ELEMENTWISE, P_ROPE},                       /* emb.cos() */
    {"cos.scale", "aten::mul", OC_ELEMENTWISE, P_ROPE},                 /*   * self.attention_scaling */
    {"sin", "aten::sin", OC_ELEMENTWISE, P_ROPE},                       /* emb.sin() */
    {"sin.scale", "aten::mul", OC_ELEMENTWISE, P_ROPE},                 /*   * self.attention_scaling */
    {"cos.to_fp16", "aten::to", OC_COPY, P_ROPE},                       /* cos.to(dtype=x.dtype) */
    {"sin.to_fp16", "aten::to", OC_COPY, P_ROPE},                       /* sin.to(dtype=x.dtype) */
};

/* LlamaRMSNorm.forward: 8 kernels */
#define RMSNORM                                                                                         \
    {"norm.to_fp32", "aten::to", OC_COPY, P_NORM},           /* hidden_states.to(torch.float32) */     \
    {"norm.pow", "aten::pow", OC_ELEMENTWISE, P_NORM},       /* hidden_states.pow(2) */                \
    {"norm.mean", "aten::mean", OC_REDUCE, P_NORM},          /*   .mean(-1, keepdim=True) */           \
    {"norm.add_eps", "aten::add", OC_ELEMENTWISE, P_NORM},   /* variance + self.variance_epsilon */    \
    {"norm.rsqrt", "aten::rsqrt", OC_ELEMENTWISE, P_NORM},   /* torch.rsqrt(...) */                    \
    {"norm.mul", "aten::mul", OC_ELEMENTWISE, P_NORM},       /* hidden_states * torch.rsqrt(...) */    \
    {"norm.to_fp16", "aten::to", OC_COPY, P_NORM},           /* hidden_states.to(input_dtype) */       \
    {"norm.weight", "aten::mul", OC_ELEMENTWISE, P_NORM}     /* self.weight * hidden_states */

/* apply_rotary_pos_emb for q or k: 5 kernels (the slices are views) */
#define ROPE(x)                                                                                         \
    {x ".mul_cos", "aten::mul", OC_ELEMENTWISE, P_ROPE},     /* q * cos */                             \
    {x ".neg", "aten::neg", OC_ELEMENTWISE, P_ROPE},         /* rotate_half: -x2 */                    \
    {x ".rotate_half", "aten::cat", OC_CAT, P_ROPE},         /* rotate_half: torch.cat((-x2, x1)) */   \
    {x ".mul_sin", "aten::mul", OC_ELEMENTWISE, P_ROPE},     /* rotate_half(q) * sin */                \
    {x ".add", "aten::add", OC_ELEMENTWISE, P_ROPE}          /* (q * cos) + (rotate_half(q) * sin) */

/* LlamaDecoderLayer.forward: 40 launches (41 kernels with down_proj's split-K reduce) */
const EagerOp EAGER_LAYER[] = {
    RMSNORM,                                                             /* input_layernorm */
    {"q_proj", "aten::linear", OC_GEMM, P_Q},
    {"k_proj", "aten::linear", OC_GEMM, P_K},
    {"v_proj", "aten::linear", OC_GEMM, P_V},
    ROPE("q"),
    ROPE("k"),
    {"cache.k_cat", "aten::cat", OC_CAT, P_KV_APPEND},                   /* DynamicLayer.update: torch.cat */
    {"cache.v_cat", "aten::cat", OC_CAT, P_KV_APPEND},                   /*   ([self.keys, key_states], -2) */
    {"attention", "aten::scaled_dot_product_attention", OC_ATTENTION, P_ATTN},   /* sdpa */
    {"o_proj", "aten::linear", OC_GEMM, P_O},
    {"residual.add", "aten::add", OC_ELEMENTWISE, P_RESIDUAL},           /* residual + hidden_states */
    RMSNORM,                                                             /* post_attention_layernorm */
    {"gate_proj", "aten::linear", OC_GEMM, P_GATE},
    {"act_fn", "aten::silu", OC_ELEMENTWISE, P_SILU_MUL},                /* self.act_fn(self.gate_proj(x)) */
    {"up_proj", "aten::linear", OC_GEMM, P_UP},
    {"act.mul", "aten::mul", OC_ELEMENTWISE, P_SILU_MUL},                /*   * self.up_proj(x) */
    {"down_proj", "aten::linear", OC_GEMM, P_DOWN},
    {"residual.add", "aten::add", OC_ELEMENTWISE, P_RESIDUAL},
};

/* LlamaModel.norm, LlamaForCausalLM.lm_head, and the greedy pick */
const EagerOp EAGER_TAIL[] = {
    RMSNORM,
    {"lm_head", "aten::linear", OC_GEMM, P_LM_HEAD},
    {"argmax", "aten::argmax", OC_REDUCE, P_ARGMAX},                     /* logits[:, -1].argmax(-1) */
};

const int EAGER_HEAD_N = sizeof EAGER_HEAD / sizeof EAGER_HEAD[0];
const int EAGER_LAYER_N = sizeof EAGER_LAYER / sizeof EAGER_LAYER[0];
const int EAGER_TAIL_N = sizeof EAGER_TAIL / sizeof EAGER_TAIL[0];

int eager_ops_per_pass(int n_layers) { return EAGER_HEAD_N + n_layers * EAGER_LAYER_N + EAGER_TAIL_N; }

const EagerOp *eager_op_at(int n_layers, int i, int *layer) {
    *layer = -1;
    if (i < 0) return NULL;
    if (i < EAGER_HEAD_N) return &EAGER_HEAD[i];
    i -= EAGER_HEAD_N;
    if (i < n_layers * EAGER_LAYER_N) {
        *layer = i / EAGER_LAYER_N;
        return &EAGER_LAYER[i % EAGER_LAYER_N];
    }
    i -= n_layers * EAGER_LAYER_N;
    return i < EAGER_TAIL_N ? &EAGER_TAIL[i] : NULL;
}
