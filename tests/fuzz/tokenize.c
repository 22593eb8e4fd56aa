/* fuzz target: encode and decode (common/model/tokenizer.c) with the fixture's Llama tokenizer. The
 * input is a text (up to its first NUL byte) and also a list of ids (its bytes, 4 a little-
 * endian id). Invariants: the ids of a text need at most one more id than its bytes, room
 * for one id fewer is refused, and they decode; a text of valid UTF-8 without "▁" and without
 * an added token's text (<unk> <s> </s>) decodes back to itself; decoding arbitrary ids either
 * names the first id that is not a token or gives valid UTF-8. */
#include <string.h>
#include "fuzz.h"
#include "model/tokenizer.h"
#include "util.h"

static Tokenizer *tok;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    tok = tok_load(fuzz_fixture("llama-tokenizer/tokenizer.json"));
    return 0;
}

/* UTF-8 as Rust (and so Hugging Face tokenizers) defines it, written out from the table of
 * well-formed byte sequences in the Unicode standard (table 3-7). */
static int valid_utf8(const unsigned char *s, size_t n) {
    static const struct { unsigned char first_lo, first_hi, second_lo, second_hi; int len; } rows[] = {
        {0x00, 0x7F, 0, 0, 1},       {0xC2, 0xDF, 0x80, 0xBF, 2}, {0xE0, 0xE0, 0xA0, 0xBF, 3},
        {0xE1, 0xEC, 0x80, 0xBF, 3}, {0xED, 0xED, 0x80, 0x9F, 3}, {0xEE, 0xEF, 0x80, 0xBF, 3},
        {0xF0, 0xF0, 0x90, 0xBF, 4}, {0xF1, 0xF3, 0x80, 0xBF, 4}, {0xF4, 0xF4, 0x80, 0x8F, 4},
    };
    for (size_t i = 0; i < n;) {
        int len = 0;
        for (size_t r = 0; r < sizeof rows / sizeof rows[0] && !len; r++)
            if (s[i] >= rows[r].first_lo && s[i] <= rows[r].first_hi) {
                len = rows[r].len;
                if (len > 1 && (i + 1 >= n || s[i + 1] < rows[r].second_lo || s[i + 1] > rows[r].second_hi)) return 0;
            }
        if (!len || i + len > n) return 0;
        for (int k = 2; k < len; k++)
            if ((s[i + k] & 0xC0) != 0x80) return 0;
        i += len;
    }
    return 1;
}

typedef struct { const uint8_t *data; size_t n; } Input;

static void run(void *arg) {
    const Input *in = arg;
    size_t len = strnlen((const char *)in->data, in->n);
    char *text = xmalloc(len + 1);
    memcpy(text, in->data, len);
    text[len] = 0;
    int cap = (int)len + 8, *ids = xmalloc(sizeof(int) * cap), bad = 0;
    int n = tok_encode(tok, text, 1, ids, cap);
    FUZZ_ASSERT(n >= 1 && n <= (int)len + 2, "%zu bytes gave %d ids", len, n);
    FUZZ_ASSERT(tok_encode(tok, text, 1, ids, n - 1) == -1, "%d ids fit in room for %d", n, n - 1);
    n = tok_encode(tok, text, 1, ids, cap);
    char *back = tok_decode(tok, ids, n, &bad);
    FUZZ_ASSERT(back, "encode gave id %d, which decode refuses", bad);
    if (valid_utf8((const unsigned char *)text, len) && !strstr(text, "\xe2\x96\x81") && !strstr(text, "<unk>") &&
        !strstr(text, "<s>") && !strstr(text, "</s>"))
        FUZZ_ASSERT(!strcmp(back, text), "round trip: \"%s\" came back as \"%s\"", text, back);
    free(back);
    free(text);
    free(ids);

    int m = (int)(in->n / 4 < 256 ? in->n / 4 : 256), first_bad = -1;
    int *raw = xmalloc(sizeof(int) * (m ? m : 1));
    for (int i = 0; i < m; i++) {
        raw[i] = (int)((uint32_t)in->data[4 * i] | (uint32_t)in->data[4 * i + 1] << 8 |
                       (uint32_t)in->data[4 * i + 2] << 16 | (uint32_t)in->data[4 * i + 3] << 24);
        if (first_bad < 0 && (raw[i] < 0 || raw[i] >= tok_vocab(tok))) first_bad = i;
    }
    char *s = tok_decode(tok, raw, m, &bad);
    if (first_bad >= 0) FUZZ_ASSERT(!s && bad == raw[first_bad], "id %d decoded (or another named)", raw[first_bad]);
    else FUZZ_ASSERT(s && valid_utf8((const unsigned char *)s, strlen(s)), "decoding ids gave no text or not UTF-8");
    free(s);
    free(raw);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n) {
    Input in = {data, n};
    fuzz_try(run, &in);
    return 0;
}
