/* fuzz target: config.json (common/model/config.c). What config_load accepts, the kit can run: every
 * field inside its bound, and the parameter count and tensor list computed without overflow. */
#include <math.h>
#include "model/config.h"
#include "fuzz.h"
#include "model/model.h"

static void load(void *path) {
    Config c;
    config_load(&c, path);
    FUZZ_ASSERT(c.vocab >= 4 && c.dim >= 1 && c.ffn_dim >= 1 && c.n_layers >= 1 && c.max_seq >= 1,
                "a size below 1 was accepted");
    FUZZ_ASSERT(c.n_kv_heads >= 1 && c.n_heads % c.n_kv_heads == 0 && c.head_dim >= 2 && c.head_dim % 2 == 0,
                "heads %d/%d of %d accepted", c.n_heads, c.n_kv_heads, c.head_dim);
    FUZZ_ASSERT(c.bos_id >= 0 && c.bos_id < c.vocab && c.eos_id >= 0 && c.eos_id < c.vocab, "a token id outside vocab");
    FUZZ_ASSERT(c.norm_eps > 0 && isfinite(c.norm_eps) && c.rope_theta > 0 && isfinite(c.rope_theta),
                "eps %g theta %g accepted", c.norm_eps, c.rope_theta);
    FUZZ_ASSERT(config_params(&c) > 0, "parameter count %lld", config_params(&c));
    FUZZ_ASSERT(model_tensors(&c, NULL) == 2 + 9 * c.n_layers + !c.tied, "tensor count");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n) {
    fuzz_try(load, (void *)fuzz_write("config.json", data, n));
    return 0;
}
