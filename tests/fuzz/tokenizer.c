/* fuzz target: loading a tokenizer.json (common/model/tokenizer.c), then encoding a few texts with
 * what it accepts and decoding the ids: every id encode gives must decode. */
#include <string.h>
#include "fuzz.h"
#include "model/tokenizer.h"
#include "util.h"

static const char *const TEXTS[] = {
    "Hello world! The cat sat on the mat.", "  two spaces, a\ttab\nand a newline", "<s> special </s> <unk>",
    "é ü ß 中文 🦙", "\xff\xfe not UTF-8 \xc3", "",
};

static void load(void *path) {
    Tokenizer *t = tok_load(path);
    int ids[512], bad = 0;
    for (size_t i = 0; i < sizeof TEXTS / sizeof TEXTS[0]; i++) {
        int n = tok_encode(t, TEXTS[i], 1, ids, 512);
        FUZZ_ASSERT(n >= 0, "text %zu needs more than 512 ids", i);
        char *s = tok_decode(t, ids, n, &bad);
        FUZZ_ASSERT(s, "encode gave id %d, which decode refuses", bad);
        free(s);
    }
    int unknown = tok_vocab(t);
    FUZZ_ASSERT(!tok_decode(t, &unknown, 1, &bad) && bad == unknown, "id %d = the vocab size decoded", unknown);
    tok_free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n) {
    fuzz_try(load, (void *)fuzz_write("tokenizer.json", data, n));
    return 0;
}
