/* tokenizer_check: common/model/tokenizer.c under AddressSanitizer/UBSan (tests/cpu/tokenize_cli.sh
 * runs it). With no argument: loads the fixture, encodes and decodes every text of
 * tests/data/tokenizer_cases.json, decodes an unknown id. With a FILE: only loads it (the
 * bad tokenizer.json files, which must die with one sentence and no sanitizer report). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "check.h"
#include "model/tokenizer.h"
#include "util.h"

int main(int argc, char **argv) {
    if (argc > 1) {
        tok_free(tok_load(argv[1]));
        return 0;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/fixtures/llama-tokenizer/tokenizer.json", shared_dir());
    Tokenizer *t = tok_load(path);
    char *json = read_file("tests/data/tokenizer_cases.json", NULL);
    cJSON *root = json ? cJSON_Parse(json) : NULL;
    if (!root) die("cannot read tests/data/tokenizer_cases.json; run it from the repository root");
    for (const cJSON *c = cJSON_GetObjectItem(root, "cases")->child; c; c = c->next) {
        const char *text = cJSON_GetObjectItem(c, "text")->valuestring;
        int cap = (int)strlen(text) + 2, *ids = xmalloc(sizeof(int) * cap), bad = -1;
        int n = tok_encode(t, text, 1, ids, cap), same = n == cJSON_GetArraySize(cJSON_GetObjectItem(c, "ids"));
        for (int i = 0; same && i < n; i++) same = ids[i] == cJSON_GetArrayItem(cJSON_GetObjectItem(c, "ids"), i)->valueint;
        CHECK(same, "encode \"%s\": %d ids, not Hugging Face's", text, n);
        char *d = tok_decode(t, ids, n > 0 ? n : 0, &bad);
        CHECK(d && !strcmp(d, cJSON_GetObjectItem(c, "decoded")->valuestring), "decode of \"%s\"", text);
        CHECK(tok_encode(t, text, 1, ids, n - 1) == -1, "encode \"%s\" into %d ids", text, n - 1);
        free(d);
        free(ids);
    }
    int bad = 0, unknown[] = {1, 32000};
    CHECK(!tok_decode(t, unknown, 2, &bad) && bad == 32000, "id 32000 must be refused");
    unsigned char junk[] = {0xff, 'a', 0xc3, ' ', 0xe6, 0x8e, 0}; /* not UTF-8 */
    int ids[32];
    int n = tok_encode(t, (const char *)junk, 1, ids, 32);
    char *d = tok_decode(t, ids, n, &bad);
    CHECK(n > 0 && d, "bytes that are not UTF-8 must still encode and decode");
    free(d);
    cJSON_Delete(root);
    free(json);
    tok_free(t);
    return check_done("tokenizer_check");
}
