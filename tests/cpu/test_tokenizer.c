/* test_tokenizer: common/model/tokenizer.c against Hugging Face tokenizers 0.23.2 on the Llama-2
 * tokenizer.json fixture. tests/data/tokenizer_cases.json holds what tokenizers produced on the
 * GPU machine: ids (with BOS) and decode(ids, skip_special_tokens) per text, and a few decodes
 * of bare ids; tests/data/tokenizer_random.json the same for random texts and random ids.
 * Also: the round trip, merges written as ["a","b"] pairs, byte runs that are not UTF-8, the
 * error returns, and a 2,000-token encode, timed and printed (a figure, not a bound). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include "check.h"
#include "measure/stats.h"
#include "model/tokenizer.h"
#include "util.h"

#define MAX_IDS 8192

static int to_ints(const cJSON *list, int *out) {
    int n = 0;
    for (const cJSON *e = list->child; e && n < MAX_IDS; e = e->next) out[n++] = e->valueint;
    return n;
}
static int same(const int *a, int na, const int *b, int nb) {
    return na == nb && memcmp(a, b, sizeof(int) * na) == 0;
}
static void print_ids(const char *label, const int *ids, int n) {
    printf("    %s:", label);
    for (int i = 0; i < n; i++) printf("%s%d", i ? "," : " ", ids[i]);
    printf("\n");
}

/* The fixture with its merges rewritten as ["a", "b"] pairs, in a temporary file. */
static void write_pairs_copy(const char *from, char *to) {
    char *json = read_file(from, NULL);
    cJSON *root = cJSON_Parse(json);
    cJSON *merges = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "model"), "merges");
    cJSON *pairs = cJSON_CreateArray();
    for (cJSON *m = merges->child; m; m = m->next) {
        char *space = strchr(m->valuestring, ' ');
        *space = 0;
        const char *two[2] = {m->valuestring, space + 1};
        cJSON_AddItemToArray(pairs, cJSON_CreateStringArray(two, 2));
    }
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(root, "model"), "merges", pairs);
    char *out = cJSON_PrintUnformatted(root);
    strcpy(to, "/tmp/kit_tokenizer_pairs_XXXXXX");
    int fd = mkstemp(to);
    FILE *f = fdopen(fd, "w");
    fputs(out, f);
    fclose(f);
    free(out);
    cJSON_Delete(root);
    free(json);
}

int main(void) {
    need_fixtures("test_tokenizer");
    char path[1024], pairs_path[64];
    snprintf(path, sizeof path, "%s/fixtures/llama-tokenizer/tokenizer.json", shared_dir());
    double t0 = now_ms();
    Tokenizer *t = tok_load(path);
    printf("load_ms=%.1f vocab=%d\n", now_ms() - t0, tok_vocab(t));
    CHECK(tok_vocab(t) == 32000, "vocab %d, want 32000", tok_vocab(t));
    write_pairs_copy(path, pairs_path);
    Tokenizer *tp = tok_load(pairs_path);
    unlink(pairs_path);

    char *json = read_file("tests/data/tokenizer_cases.json", NULL);
    cJSON *root = json ? cJSON_Parse(json) : NULL;
    if (!root) die("cannot read tests/data/tokenizer_cases.json; run the test from the repository root");
    static int ids[MAX_IDS], want[MAX_IDS];
    int n_cases = 0;
    for (const cJSON *c = cJSON_GetObjectItem(root, "cases")->child; c; c = c->next, n_cases++) {
        const char *text = cJSON_GetObjectItem(c, "text")->valuestring;
        const char *decoded = cJSON_GetObjectItem(c, "decoded")->valuestring;
        int nw = to_ints(cJSON_GetObjectItem(c, "ids"), want);
        int n = tok_encode(t, text, 1, ids, MAX_IDS);
        CHECK(same(ids, n, want, nw), "encode \"%s\": %d ids, want %d", text, n, nw);
        if (!same(ids, n, want, nw)) print_ids("got ", ids, n), print_ids("want", want, nw);
        n = tok_encode(tp, text, 1, ids, MAX_IDS);
        CHECK(same(ids, n, want, nw), "encode \"%s\" with merges as pairs differs", text);
        n = tok_encode(t, text, 0, ids, MAX_IDS);
        CHECK(same(ids, n, want + 1, nw - 1), "encode \"%s\" without BOS differs", text);

        int bad = -1;
        char *d = tok_decode(t, want, nw, &bad);
        CHECK(d && !strcmp(d, decoded), "decode of \"%s\" gave \"%s\", want \"%s\"", text, d, decoded);
        free(d);
        if (!strcmp(decoded, text)) {
            n = tok_encode(t, text, 1, ids, MAX_IDS);
            d = tok_decode(t, ids, n, &bad);
            CHECK(d && !strcmp(d, text), "round trip of \"%s\" gave \"%s\"", text, d);
            free(d);
        }
    }
    CHECK(n_cases == 23, "%d cases, want 23", n_cases);
    const cJSON *dt = cJSON_GetObjectItem(root, "decode_text")->child;
    const cJSON *di = cJSON_GetObjectItem(root, "decode_ids")->child;
    for (; di && dt; di = di->next, dt = dt->next) {
        int bad = -1, nw = to_ints(di, want);
        char *d = tok_decode(t, want, nw, &bad);
        CHECK(d && !strcmp(d, dt->valuestring), "decode gave \"%s\", want \"%s\"", d, dt->valuestring);
        free(d);
    }

    /* Random texts and random ids (tests/data/tokenizer_random.json, also from tokenizers). */
    char *rjson = read_file("tests/data/tokenizer_random.json", NULL);
    cJSON *rnd = rjson ? cJSON_Parse(rjson) : NULL;
    if (!rnd) die("cannot read tests/data/tokenizer_random.json; run the test from the repository root");
    int enc_bad = 0, enc_n = 0, dec_bad = 0, dec_n = 0;
    for (const cJSON *c = cJSON_GetObjectItem(rnd, "encode")->child; c; c = c->next, enc_n++) {
        const char *text = c->child->valuestring;
        int nw = to_ints(c->child->next, want), n = tok_encode(t, text, 1, ids, MAX_IDS);
        if (!same(ids, n, want, nw) && enc_bad++ < 3) printf("    differs: \"%s\"\n", text);
    }
    for (const cJSON *c = cJSON_GetObjectItem(rnd, "decode")->child; c; c = c->next, dec_n++) {
        int bad = -1, nw = to_ints(c->child, want);
        char *d = tok_decode(t, want, nw, &bad);
        if ((!d || strcmp(d, c->child->next->valuestring)) && dec_bad++ < 3)
            printf("    differs: \"%s\", want \"%s\"\n", d, c->child->next->valuestring);
        free(d);
    }
    CHECK(enc_n > 200 && enc_bad == 0, "%d of %d random texts encode differently", enc_bad, enc_n);
    CHECK(dec_n > 200 && dec_bad == 0, "%d of %d random id lists decode differently", dec_bad, dec_n);
    cJSON_Delete(rnd);
    free(rjson);

    /* Byte tokens (<0xXX> = id XX+3) fuse into UTF-8 as one run; a run that is not valid
     * UTF-8 as a whole becomes one U+FFFD per byte, as tokenizers' ByteFallback does. */
    struct { int n, ids[5]; const char *want; } bytes[] = {
        {3, {233, 145, 171}, "推"},
        {3, {263, 233, 145}, "a\xef\xbf\xbd\xef\xbf\xbd"},
        {4, {233, 145, 171, 233}, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},
        {5, {233, 145, 171, 29871, 233}, "推 \xef\xbf\xbd"},
        {2, {35, 263}, " a"}, /* <0x20> then "▁a": "  a" fused, then one space stripped */
    };
    for (size_t i = 0; i < sizeof bytes / sizeof bytes[0]; i++) {
        int bad = -1;
        char *d = tok_decode(t, bytes[i].ids, bytes[i].n, &bad);
        CHECK(d && !strcmp(d, bytes[i].want), "byte run %zu decoded to \"%s\", want \"%s\"", i, d,
              bytes[i].want);
        free(d);
    }

    /* The error returns. */
    int bad = 0, unknown[] = {1, 15043, 32000}, negative[] = {-5};
    CHECK(!tok_decode(t, unknown, 3, &bad) && bad == 32000, "id 32000 must be refused (bad_id %d)", bad);
    CHECK(!tok_decode(t, negative, 1, &bad) && bad == -5, "id -5 must be refused (bad_id %d)", bad);
    CHECK(tok_encode(t, "Hello world!", 1, ids, 3) == -1, "4 ids into room for 3 must give -1");
    CHECK(tok_encode(t, "Hello world!", 1, ids, 4) == 4, "4 ids into room for 4 must fit");
    CHECK(tok_encode(t, "Hello", 1, ids, 1) == -1, "BOS + 1 id into room for 1 must give -1");
    CHECK(tok_encode(t, "", 0, ids, 0) == 0, "nothing into no room is 0 ids");

    /* Speed, printed as a figure: the two long cases repeated until the text is over 2,000
     * tokens. Then the round trip of that text. */
    const cJSON *all = cJSON_GetObjectItem(root, "cases");
    const char *a = cJSON_GetObjectItem(cJSON_GetArrayItem(all, 21), "text")->valuestring;
    const char *b = cJSON_GetObjectItem(cJSON_GetArrayItem(all, 22), "text")->valuestring;
    char *text = xmalloc(MAX_IDS * 8);
    text[0] = 0;
    int n = 0;
    while (n < 2000) {
        strcat(strcat(strcat(text, a), b), " ");
        n = tok_encode(t, text, 1, ids, MAX_IDS);
    }
    double ms[5];
    for (int r = 0; r < 5; r++) {
        double s = now_ms();
        tok_encode(t, text, 1, ids, MAX_IDS);
        ms[r] = now_ms() - s;
    }
    Stats st = stats_of(ms, 5);
    /* a figure, not a test: a wall-clock bound would fail under sanitizers or a loaded machine */
    printf("encode_ms=%.3f tokens=%d chars=%zu (median of 5)\n", st.median, n, strlen(text));
    char *d = tok_decode(t, ids, n, &bad);
    CHECK(d && !strcmp(d, text), "round trip of the %d-token text differs", n);
    free(d);

    free(text);
    cJSON_Delete(root);
    free(json);
    tok_free(tp);
    tok_free(t);
    return check_done("test_tokenizer");
}
