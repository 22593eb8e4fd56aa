/* config.c: both Hugging Face hub forms of config.json, and the built-in TinyLlama config
 * equal to the real one; the tensor list and parameter count that follow from it. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "model/config.h"
#include "model/model.h"

int main(void) {
    need_fixtures("test_config");
    char path[1024];
    Config c, old, built;

    /* new form (transformers 5): dtype, rope_parameters.rope_theta, head_dim */
    snprintf(path, sizeof path, "%s/fixtures/tiny-llama/config.json", shared_dir());
    config_load(&c, path);
    CHECK(c.vocab == 32000 && c.dim == 64 && c.ffn_dim == 176 && c.n_layers == 2, "tiny shape %d %d %d %d",
          c.vocab, c.dim, c.ffn_dim, c.n_layers);
    CHECK(c.n_heads == 4 && c.n_kv_heads == 2 && c.head_dim == 16, "tiny heads %d/%d x %d", c.n_heads,
          c.n_kv_heads, c.head_dim);
    CHECK(c.max_seq == 256 && c.bos_id == 1 && c.eos_id == 2 && !c.tied, "tiny max_seq/bos/eos/tied");
    CHECK(c.norm_eps == 1e-5f && c.rope_theta == 10000.0f, "tiny eps %g theta %g", c.norm_eps, c.rope_theta);
    CHECK(!strcmp(c.dtype, "bfloat16"), "tiny dtype %s", c.dtype);

    /* old form (the one students download): torch_dtype, top-level rope_theta, no head_dim */
    snprintf(path, sizeof path, "%s/fixtures/tinyllama-config/config.json", shared_dir());
    config_load(&old, path);
    CHECK(old.head_dim == 64, "head_dim derived as hidden_size / heads: %d", old.head_dim);
    CHECK(old.rope_theta == 10000.0f && !strcmp(old.dtype, "bfloat16"), "old form theta %g dtype %s",
          old.rope_theta, old.dtype);

    /* the built-in config is TinyLlama's, field by field */
    config_tinyllama(&built);
    CHECK(built.vocab == old.vocab && built.dim == old.dim && built.ffn_dim == old.ffn_dim, "built-in shape");
    CHECK(built.n_layers == old.n_layers && built.n_heads == old.n_heads && built.n_kv_heads == old.n_kv_heads,
          "built-in layers/heads");
    CHECK(built.head_dim == old.head_dim && built.max_seq == old.max_seq, "built-in head_dim/max_seq");
    CHECK(built.norm_eps == old.norm_eps && built.rope_theta == old.rope_theta, "built-in eps/theta");
    CHECK(built.bos_id == old.bos_id && built.eos_id == old.eos_id && built.tied == old.tied, "built-in ids/tied");
    CHECK(!strcmp(built.dtype, old.dtype), "built-in dtype %s vs %s", built.dtype, old.dtype);

    /* 1,100,048,384 parameters: 2 x 65.5M embedding/lm_head + 22 x 44.0M + the final norm */
    CHECK(config_params(&built) == 1100048384LL, "params %lld", config_params(&built));
    CHECK(model_weight_bytes_fp16(&built) == 2200096768LL, "fp16 bytes %lld", model_weight_bytes_fp16(&built));

    /* the tensor list: embed + 9 per layer + final norm + lm_head, in checkpoint order */
    ModelTensor ts[201];
    CHECK(model_tensors(&built, NULL) == 201, "tensor count %d", model_tensors(&built, NULL));
    model_tensors(&built, ts);
    CHECK(!strcmp(ts[0].name, "model.embed_tokens.weight") && ts[0].rows == 32000 && ts[0].cols == 2048, "embed");
    CHECK(!strcmp(ts[2].name, "model.layers.0.self_attn.q_proj.weight") && ts[2].kind == T_Q, "q %s", ts[2].name);
    CHECK(ts[3].rows == 256 && ts[3].cols == 2048, "k_proj [%lld, %lld], want [256, 2048]", ts[3].rows, ts[3].cols);
    CHECK(!strcmp(ts[198].name, "model.layers.21.mlp.down_proj.weight") && ts[198].cols == 5632, "down %s",
          ts[198].name);
    CHECK(!strcmp(ts[199].name, "model.norm.weight") && ts[199].cols == 0, "final norm");
    CHECK(!strcmp(ts[200].name, "lm_head.weight") && ts[200].layer == -1, "lm_head");
    built.tied = 1;
    CHECK(model_tensors(&built, NULL) == 200, "tied: no lm_head");
    return check_done("test_config");
}
