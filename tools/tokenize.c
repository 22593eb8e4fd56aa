/* tokenize: text -> Llama token ids, or ids -> text, with common/model/tokenizer.c (which encodes and
 * decodes exactly as Hugging Face tokenizers does).
 *   bin/tokenize --tokenizer FILE [--no-bos] -- TEXT      prints ids=1,15043,3186,29991
 *   bin/tokenize --tokenizer FILE --decode -- IDS         prints the text
 * The words after -- are joined with single spaces. IDS are numbers separated by commas or
 * spaces (never an empty one: "1,,2" is an error); an "ids=" prefix is allowed, so the first
 * form's output feeds the second. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "args.h"
#include "model/tokenizer.h"
#include "util.h"

#define DEFAULT_TOKENIZER "models/TinyLlama-1.1B-Chat-v1.0/tokenizer.json"

static const char USAGE[] =
    "usage: bin/tokenize [--tokenizer FILE] [--no-bos] -- TEXT   prints ids=1,15043,...\n"
    "       bin/tokenize [--tokenizer FILE] --decode -- IDS      prints the text\n"
    "  --tokenizer FILE  a Llama/TinyLlama tokenizer.json, by default\n"
    "                    " DEFAULT_TOKENIZER " (make model)\n"
    "                    or try ../shared/fixtures/llama-tokenizer/tokenizer.json\n"
    "  --no-bos          leave out the <s> (id 1) that starts every prompt\n"
    "  --decode          IDS like 1,15043,3186 (or ids=...) -> text; special tokens skipped\n"
    "Errors: one line on stderr, exit 1.\n";

static char *join(const char **words, int n) {
    size_t len = 1;
    for (int i = 0; i < n; i++) len += strlen(words[i]) + 1;
    char *s = xmalloc(len), *p = s;
    for (int i = 0; i < n; i++) p += sprintf(p, "%s%s", i ? " " : "", words[i]);
    *p = 0;
    return s;
}

/* "1,15043,3186", "1 15043 3186" or "ids=1,15043": the ids, at most max_ids. A comma stands
 * between two ids: ",," or a comma at either end is an empty id, refused (it would vanish
 * without a word, and the ids decoded would not be the ones written). Input with no id at
 * all returns 0, for the caller's "nothing to decode". */
static int parse_ids(const char *s, int *ids, int max_ids) {
    const char *all = s;
    if (!strncmp(s, "ids=", 4)) s += 4;
    int n = 0, empty = -1;      /* empty: how many ids came before the first empty one */
    int comma_owed = 1;         /* 1 until an id follows the last comma (or the start) */
    int commas = 0;
    while (*s) {
        if (*s == ',') {
            if (comma_owed && empty < 0) empty = n;
            comma_owed = 1;
            commas++;
            s++;
            continue;
        }
        if (*s == ' ' || *s == '\t' || *s == '\n') { s++; continue; }
        char *end;
        errno = 0;
        long v = strtol(s, &end, 10);
        if (end == s || errno || v < -2147483647L || v > 2147483647L)
            die("'%.20s' is not a token id; --decode takes ids like 1,15043,3186", s);
        if (n == max_ids) die("too many ids (more than %d)", max_ids);
        ids[n++] = (int)v;
        comma_owed = 0;
        s = end;
    }
    if (commas && comma_owed && empty < 0) empty = n;   /* a comma at the end */
    if (n > 0 && empty >= 0)
        die("'%.40s' holds an empty id at position %d (two commas with none between, or a comma at an end); "
            "--decode takes ids like 1,15043,3186", all, empty + 1);
    return n;
}

int main(int argc, char **argv) {
    const char *path = DEFAULT_TOKENIZER;
    const char **words = xmalloc(sizeof(char *) * argc);
    int decode = 0, no_bos = 0, nwords = 0;
    const ArgFlag flags[] = {
        {"--tokenizer", ARG_STRING, &path, 0, 0, "a tokenizer.json"},
        {"--decode", ARG_FLAG, &decode, 0, 0, "ids -> text"},
        {"--no-bos", ARG_FLAG, &no_bos, 0, 0, "no <s> first"},
        {0},
    };
    const ArgWords rest = {"TEXT or IDS", 0, argc, words, &nwords, 1};   /* the first word ends the flags */
    args_parse("tokenize", USAGE, argc, argv, flags, &rest);
    if (nwords == 0 && decode) die("nothing to decode: give the ids after --, e.g. -- 1,15043,3186");
    if (!path_exists(path))
        die("no tokenizer at %s; run make model, or pass --tokenizer "
            "../shared/fixtures/llama-tokenizer/tokenizer.json", path);
    char *input = join(words, nwords);
    size_t max_ids = 2 * strlen(input) + 8; /* more than any text can need */
    int *ids = xmalloc(sizeof(int) * max_ids);
    Tokenizer *t = tok_load(path);
    if (decode) {
        int n = parse_ids(input, ids, (int)max_ids), bad = 0;
        if (n == 0) die("nothing to decode: '%s' holds no ids; give them after --, e.g. -- 1,15043,3186", input);
        char *text = tok_decode(t, ids, n, &bad);
        if (!text) die("id %d is not a token of %s, whose vocab size is %d (ids 0..%d)", bad, path,
                       tok_vocab(t), tok_vocab(t) - 1);
        printf("%s\n", text);
        free(text);
    } else {
        int n = tok_encode(t, input, !no_bos, ids, (int)max_ids);
        if (n < 0) die("the text needs more than %zu ids (a bug: report it)", max_ids);
        printf("ids=");
        for (int k = 0; k < n; k++) printf("%s%d", k ? "," : "", ids[k]);
        printf("\n");
    }
    free(ids);
    free(input);
    free(words);
    tok_free(t);
    return 0;
}
