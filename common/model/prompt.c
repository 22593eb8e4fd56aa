/* prompt: the n-token prompt (prompt.h). */
#include <stdio.h>
#include "model/prompt.h"
#include "model/model.h"
#include "model/tokenizer.h"
#include "util.h"

static const char *TEXT =
    "The GPU reads every weight of the model once for each new token, so the time of one "
    "decoding step is at least the size of the weights divided by the memory bandwidth. "
    "Everything else the step spends is overhead: launching kernels, waiting for the host, "
    "and work that does not move the weights. ";

void prompt_ids(const char *model_dir, const Config *c, int n, int *ids) {
    char path[4096];
    snprintf(path, sizeof path, "%s/tokenizer.json", model_dir ? model_dir : "");
    if (n <= 0) return;
    ids[0] = c->bos_id;
    if (model_dir && path_exists(path)) {
        Tokenizer *t = tok_load(path);
        int text[256];
        int k = tok_encode(t, TEXT, 0, text, 256);
        tok_free(t);
        if (k <= 0) die("%s: the prompt text encoded to no tokens; check the tokenizer", path);
        for (int i = 1; i < n; i++) ids[i] = text[(i - 1) % k];
        return;
    }
    for (int i = 1; i < n; i++)   /* seeded ids, clear of the few special tokens at the start */
        ids[i] = 3 + (int)(synth_mix(0x50524F4D50ull + (uint64_t)i) % (uint64_t)(c->vocab - 3));
}
