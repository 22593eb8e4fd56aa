/* tokenizer: the Llama-2 / TinyLlama tokenizer.json, encoded and decoded the way Hugging Face
 * tokenizers does it (tokenizer.h).
 *   encode: split out the added tokens (<unk> <s> </s>), then per remaining piece of text:
 *           "▁" + text with " " -> "▁", one symbol per character (a character missing from
 *           the vocab becomes its UTF-8 bytes as <0xXX> tokens), then BPE: always merge the
 *           adjacent pair of lowest merge rank (leftmost on ties) until none is left.
 *   decode: drop special tokens, "▁" -> " ", runs of <0xXX> fused back into UTF-8 (a run
 *           that is not valid UTF-8 gives one U+FFFD per byte), strip one leading space. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "model/tokenizer.h"
#include "util.h"

#define SPACE "\xe2\x96\x81" /* U+2581 "▁", SentencePiece's visible space */

typedef struct { uint64_t key; int rank, id; } Merge; /* key = left<<32 | right, +1; 0 = empty */
typedef struct { const char *text; int len, id; } Added;

struct Tokenizer {
    int n;                 /* ids are 0..n-1 */
    char **piece;          /* id -> text (NULL for an id no token has) */
    int *piece_len;
    unsigned char *special;/* id -> skipped by decode */
    char *arena;           /* the bytes of every piece */
    int *slot, slot_mask;  /* open-addressing hash: piece -> id (model vocab only) */
    Merge *merge;          /* open-addressing hash: (left, right) -> (rank, merged id) */
    int merge_mask;
    int byte_id[256];      /* <0xXX> */
    Added *added;
    int n_added;
    int pre[4], n_pre, post[4], n_post; /* the post processor's special tokens around the text */
};

/* The pipeline this file implements, as the Llama-2 tokenizer.json spells it. */
static const char *LLAMA_NORMALIZER =
    "{\"type\":\"Sequence\",\"normalizers\":[{\"type\":\"Prepend\",\"prepend\":\"\\u2581\"},"
    "{\"type\":\"Replace\",\"pattern\":{\"String\":\" \"},\"content\":\"\\u2581\"}]}";
static const char *LLAMA_DECODER =
    "{\"type\":\"Sequence\",\"decoders\":[{\"type\":\"Replace\",\"pattern\":{\"String\":\"\\u2581\"},"
    "\"content\":\" \"},{\"type\":\"ByteFallback\"},{\"type\":\"Fuse\"},"
    "{\"type\":\"Strip\",\"content\":\" \",\"start\":1,\"stop\":0}]}";

/* ---- hashing ------------------------------------------------------------------------ */
static uint32_t hash_bytes(const char *s, int len) {
    uint32_t h = 2166136261u; /* FNV-1a */
    for (int i = 0; i < len; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}
static int pow2_above(int n) {
    int m = 1;
    while (m < 2 * n) m <<= 1;
    return m;
}
static int vocab_id(const Tokenizer *t, const char *s, int len) {
    for (uint32_t i = hash_bytes(s, len) & t->slot_mask;; i = (i + 1) & t->slot_mask) {
        int id = t->slot[i];
        if (id < 0) return -1;
        if (t->piece_len[id] == len && memcmp(t->piece[id], s, len) == 0) return id;
    }
}
static uint64_t pair_key(int left, int right) { return ((uint64_t)left << 32 | (uint32_t)right) + 1; }
static uint32_t hash_key(uint64_t k) { return (uint32_t)((k * 0x9E3779B97F4A7C15ull) >> 32); }
static const Merge *merge_of(const Tokenizer *t, int left, int right) {
    uint64_t k = pair_key(left, right);
    for (uint32_t i = hash_key(k) & t->merge_mask;; i = (i + 1) & t->merge_mask) {
        if (t->merge[i].key == k) return &t->merge[i];
        if (t->merge[i].key == 0) return NULL;
    }
}

/* Length of the valid UTF-8 character at s (Rust's rules: no overlongs, no surrogates,
 * nothing past U+10FFFF), or 0 if there is none. */
static int utf8_char(const unsigned char *s, int n) {
    unsigned c = s[0];
    int len = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3
            : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    if (len == 0 || len > n) return 0;
    for (int i = 1; i < len; i++) if ((s[i] & 0xC0) != 0x80) return 0;
    if (len == 3 && ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] > 0x9F))) return 0;
    if (len == 4 && ((c == 0xF0 && s[1] < 0x90) || (c == 0xF4 && s[1] > 0x8F))) return 0;
    return len;
}

/* ---- loading ------------------------------------------------------------------------- */
#define ONLY_LLAMA "this tokenizer reads only the Llama-2 / TinyLlama tokenizer.json"
#define MAX_ID (1 << 24)

typedef cJSON_bool (*IsType)(const cJSON *const);
static const cJSON *need(const char *path, const cJSON *obj, const char *key, const char *where,
                         IsType is, const char *what) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!is(v))
        die("%s: %s is missing or not %s; use a Llama tokenizer.json from the Hugging Face hub", path,
            where, what);
    return v;
}
static int is_id(const cJSON *v) {
    return cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble <= MAX_ID &&
           v->valuedouble == (int)v->valuedouble;
}
static int need_id(const char *path, const cJSON *v, const char *where) {
    if (!is_id(v)) die("%s: %s is not an id in 0..%d; the file is damaged", path, where, MAX_ID);
    return (int)v->valuedouble;
}
static int is_unset(const cJSON *v) {
    return !v || cJSON_IsNull(v) || cJSON_IsFalse(v) || (cJSON_IsString(v) && !*v->valuestring);
}

/* Everything around the vocab and merges must be Llama's, or the ids would silently differ. */
static void check_pipeline(const char *path, const cJSON *root, const cJSON *model) {
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(model, "type");
    if (type && (!cJSON_IsString(type) || strcmp(type->valuestring, "BPE")))
        die("%s: model.type is not \"BPE\"; " ONLY_LLAMA, path);
    if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(model, "byte_fallback")))
        die("%s: model.byte_fallback is not true; " ONLY_LLAMA, path);
    const char *unset[] = {"dropout", "continuing_subword_prefix", "end_of_word_suffix",
                           "ignore_merges"};
    for (int i = 0; i < 4; i++)
        if (!is_unset(cJSON_GetObjectItemCaseSensitive(model, unset[i])))
            die("%s: model.%s is set (Llama's is null); " ONLY_LLAMA, path, unset[i]);
    if (!is_unset(cJSON_GetObjectItemCaseSensitive(root, "pre_tokenizer")))
        die("%s: pre_tokenizer is set (Llama's is null); " ONLY_LLAMA, path);
    const char *key[] = {"normalizer", "decoder"}, *want[] = {LLAMA_NORMALIZER, LLAMA_DECODER};
    const char *what[] = {"Prepend \"▁\", Replace \" \" with \"▁\"",
                          "Replace \"▁\" with \" \", ByteFallback, Fuse, Strip one leading space"};
    for (int i = 0; i < 2; i++) {
        cJSON *w = cJSON_Parse(want[i]);
        int same = cJSON_Compare(cJSON_GetObjectItemCaseSensitive(root, key[i]), w, 1);
        cJSON_Delete(w);
        if (!same) die("%s: %s is not Llama's (%s); " ONLY_LLAMA, path, key[i], what[i]);
    }
}

static void set_piece(Tokenizer *t, int id, const char *s, char **arena) {
    int len = (int)strlen(s);
    t->piece[id] = memcpy(*arena, s, len + 1);
    t->piece_len[id] = len;
    *arena += len + 1;
}

/* model.vocab (piece -> id) and the added tokens' ids: id -> piece, and the piece hash. */
static void load_vocab(Tokenizer *t, const char *path, const cJSON *vocab, const cJSON *added) {
    size_t bytes = 1;
    for (const cJSON *e = vocab->child; e; e = e->next) {
        if (!is_id(e))
            die("%s: model.vocab[\"%s\"] is not an id in 0..%d; the file is damaged", path, e->string,
                MAX_ID);
        if ((int)e->valuedouble >= t->n) t->n = (int)e->valuedouble + 1;
        bytes += strlen(e->string) + 1;
    }
    for (const cJSON *e = added->child; e; e = e->next) {
        int id = need_id(path, cJSON_GetObjectItemCaseSensitive(e, "id"), "added_tokens[].id");
        if (id >= t->n) t->n = id + 1;
        bytes += strlen(need(path, e, "content", "added_tokens[].content", cJSON_IsString, "a string")
                            ->valuestring) + 1;
    }
    t->piece = xcalloc(t->n, sizeof *t->piece);
    t->piece_len = xcalloc(t->n, sizeof *t->piece_len);
    t->special = xcalloc(t->n, 1);
    char *arena = t->arena = xmalloc(bytes);
    t->slot_mask = pow2_above(cJSON_GetArraySize(vocab)) - 1;
    t->slot = xmalloc(sizeof(int) * (t->slot_mask + 1));
    memset(t->slot, 0xff, sizeof(int) * (t->slot_mask + 1));
    for (const cJSON *e = vocab->child; e; e = e->next) {
        int id = (int)e->valuedouble;
        if (t->piece[id])
            die("%s: model.vocab gives id %d to two pieces; the file is damaged", path, id);
        if (vocab_id(t, e->string, (int)strlen(e->string)) >= 0)
            die("%s: model.vocab lists \"%s\" twice; the file is damaged", path, e->string);
        set_piece(t, id, e->string, &arena);
        uint32_t i = hash_bytes(t->piece[id], t->piece_len[id]) & t->slot_mask;
        while (t->slot[i] >= 0) i = (i + 1) & t->slot_mask;
        t->slot[i] = id;
    }
    for (const cJSON *e = added->child; e; e = e->next) {
        int id = (int)cJSON_GetObjectItemCaseSensitive(e, "id")->valuedouble;
        const char *s = cJSON_GetObjectItemCaseSensitive(e, "content")->valuestring;
        if (!t->piece[id]) set_piece(t, id, s, &arena);
        else if (strcmp(t->piece[id], s))
            die("%s: added token \"%s\" has id %d, which model.vocab gives to \"%s\"", path, s, id,
                t->piece[id]);
    }
    for (int b = 0; b < 256; b++) {
        char name[8];
        snprintf(name, sizeof name, "<0x%02X>", b);
        if ((t->byte_id[b] = vocab_id(t, name, 6)) < 0)
            die("%s: model.vocab has no %s; byte fallback needs all 256 byte tokens", path, name);
    }
}

/* The added tokens that encode finds in the text (and decode skips when special). */
static void load_added(Tokenizer *t, const char *path, const cJSON *added) {
    t->added = xcalloc(cJSON_GetArraySize(added) + 1, sizeof *t->added);
    for (const cJSON *e = added->child; e; e = e->next) {
        int id = (int)cJSON_GetObjectItemCaseSensitive(e, "id")->valuedouble;
        const char *flags[] = {"single_word", "lstrip", "rstrip", "normalized"};
        for (int f = 0; f < 4; f++)
            if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, flags[f])))
                die("%s: added token \"%s\" has %s true (Llama's are false); " ONLY_LLAMA, path,
                    t->piece[id], flags[f]);
        if (t->piece_len[id] == 0) die("%s: added token %d is empty; the file is damaged", path, id);
        t->added[t->n_added++] = (Added){t->piece[id], t->piece_len[id], id};
        t->special[id] = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "special"));
    }
}

static int merge_part(const Tokenizer *t, const char *path, int i, const char *s, int len) {
    int id = vocab_id(t, s, len);
    if (id < 0) die("%s: model.merges[%d] uses \"%.*s\", which is not in model.vocab", path, i, len, s);
    return id;
}
/* Merge rank r: "a b" or ["a", "b"]. The later of two equal pairs wins, as in tokenizers. */
static void load_merges(Tokenizer *t, const char *path, const cJSON *merges) {
    t->merge_mask = pow2_above(cJSON_GetArraySize(merges)) - 1;
    t->merge = xcalloc(t->merge_mask + 1, sizeof *t->merge);
    int longest = 0, r = 0;
    for (int id = 0; id < t->n; id++) if (t->piece_len[id] > longest) longest = t->piece_len[id];
    char *ab = xmalloc(2 * (size_t)longest + 1);
    for (const cJSON *m = merges->child; m; m = m->next, r++) {
        const char *a, *b;
        int la;
        if (cJSON_IsString(m) && strchr(m->valuestring, ' ')) {
            a = m->valuestring;
            b = strchr(a, ' ') + 1;
            la = (int)(b - 1 - a);
        } else if (cJSON_IsArray(m) && cJSON_GetArraySize(m) == 2 && cJSON_IsString(m->child) &&
                   cJSON_IsString(m->child->next)) {
            a = m->child->valuestring;
            b = m->child->next->valuestring;
            la = (int)strlen(a);
        } else {
            die("%s: model.merges[%d] is neither \"a b\" nor [\"a\", \"b\"]; the file is damaged", path,
                r);
        }
        int lb = (int)strlen(b);
        int left = merge_part(t, path, r, a, la), right = merge_part(t, path, r, b, lb);
        memcpy(ab, a, la);
        memcpy(ab + la, b, lb);
        uint64_t k = pair_key(left, right);
        uint32_t i = hash_key(k) & t->merge_mask;
        while (t->merge[i].key != 0 && t->merge[i].key != k) i = (i + 1) & t->merge_mask;
        t->merge[i] = (Merge){k, r, merge_part(t, path, r, ab, la + lb)};
    }
    free(ab);
}

/* The post processor's "single" template: the special tokens before and after the text. */
static void load_template(Tokenizer *t, const char *path, const cJSON *root) {
    const cJSON *pp = cJSON_GetObjectItemCaseSensitive(root, "post_processor");
    if (is_unset(pp)) return;
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(pp, "type");
    if (!cJSON_IsString(type) || strcmp(type->valuestring, "TemplateProcessing"))
        die("%s: post_processor is not a TemplateProcessing; " ONLY_LLAMA, path);
    const cJSON *single = need(path, pp, "single", "post_processor.single", cJSON_IsArray, "a list");
    const cJSON *specials =
        need(path, pp, "special_tokens", "post_processor.special_tokens", cJSON_IsObject, "an object");
    int after = 0; /* past the text ($A) */
    for (const cJSON *e = single->child; e; e = e->next) {
        if (cJSON_GetObjectItemCaseSensitive(e, "Sequence")) { after = 1; continue; }
        const cJSON *sp = cJSON_GetObjectItemCaseSensitive(e, "SpecialToken");
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(sp, "id");
        if (!cJSON_IsString(name))
            die("%s: post_processor.single has an entry that is neither Sequence nor SpecialToken",
                path);
        const cJSON *ids = need(path, cJSON_GetObjectItemCaseSensitive(specials, name->valuestring),
                                "ids", "post_processor.special_tokens[].ids", cJSON_IsArray, "a list");
        for (const cJSON *v = ids->child; v; v = v->next) {
            int *n = after ? &t->n_post : &t->n_pre, id = need_id(path, v, "post_processor ids");
            if (*n == 4) die("%s: post_processor.single adds more than 4 special tokens", path);
            if (id >= t->n || !t->piece[id])
                die("%s: post_processor adds id %d, which no token has", path, id);
            (after ? t->post : t->pre)[(*n)++] = id;
        }
    }
}

Tokenizer *tok_load(const char *path) {
    size_t size;
    char *json = read_file(path, &size);
    if (!json) die("cannot read %s; pass the tokenizer.json of the model (make model fetches it)", path);
    cJSON *root = cJSON_ParseWithLength(json, size);
    free(json);
    if (!cJSON_IsObject(root))
        die("%s is not a JSON object; the file is truncated or not a tokenizer.json", path);
    const cJSON *model = need(path, root, "model", "model", cJSON_IsObject, "an object");
    const cJSON *vocab = need(path, model, "vocab", "model.vocab", cJSON_IsObject, "an object");
    const cJSON *merges = need(path, model, "merges", "model.merges", cJSON_IsArray, "a list");
    const cJSON *added = need(path, root, "added_tokens", "added_tokens", cJSON_IsArray, "a list");
    check_pipeline(path, root, model);
    Tokenizer *t = xcalloc(1, sizeof *t);
    load_vocab(t, path, vocab, added);
    load_added(t, path, added);
    load_merges(t, path, merges);
    load_template(t, path, root);
    cJSON_Delete(root);
    return t;
}

int tok_vocab(const Tokenizer *t) { return t->n; }

void tok_free(Tokenizer *t) {
    if (!t) return;
    free(t->piece);
    free(t->piece_len);
    free(t->special);
    free(t->arena);
    free(t->slot);
    free(t->merge);
    free(t->added);
    free(t);
}

/* ---- encoding ------------------------------------------------------------------------ */
typedef struct { int id, prev, next; } Sym; /* a doubly linked list; id -1 = merged away */
typedef struct { int rank, pos, id; } Cand; /* a merge waiting in the heap */

static int before(Cand a, Cand b) { return a.rank != b.rank ? a.rank < b.rank : a.pos < b.pos; }
static void heap_push(Cand *h, int *n, Cand c) {
    int i = (*n)++;
    for (; i > 0 && before(c, h[(i - 1) / 2]); i = (i - 1) / 2) h[i] = h[(i - 1) / 2];
    h[i] = c;
}
static Cand heap_pop(Cand *h, int *n) {
    Cand top = h[0], last = h[--*n];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= *n) break;
        if (c + 1 < *n && before(h[c + 1], h[c])) c++;
        if (!before(h[c], last)) break;
        h[i] = h[c];
        i = c;
    }
    h[i] = last;
    return top;
}
static void push_pair(const Tokenizer *t, const Sym *s, int pos, Cand *h, int *nh) {
    const Merge *m = merge_of(t, s[pos].id, s[s[pos].next].id);
    if (m) heap_push(h, nh, (Cand){m->rank, pos, m->id});
}

/* BPE over one normalized piece of text, as tokenizers' Word::merge_all does it (including
 * how it recognizes a stale heap entry: by the merged id alone). Appends to ids. */
static int bpe(const Tokenizer *t, const char *text, int len, int *ids, int n, int max_ids) {
    Sym *s = xmalloc(sizeof(Sym) * (len + 1));
    int ns = 0;
    for (int i = 0; i < len;) {
        int cl = utf8_char((const unsigned char *)text + i, len - i), id = -1;
        if (cl) id = vocab_id(t, text + i, cl);
        if (id >= 0) s[ns++].id = id;
        else for (int b = 0; b < (cl ? cl : 1); b++) s[ns++].id = t->byte_id[(unsigned char)text[i + b]];
        i += cl ? cl : 1;
    }
    for (int i = 0; i < ns; i++) s[i].prev = i - 1, s[i].next = i + 1 < ns ? i + 1 : -1;
    Cand *h = xmalloc(sizeof(Cand) * (3 * ns + 1));
    int nh = 0;
    for (int i = 0; i + 1 < ns; i++) push_pair(t, s, i, h, &nh);
    while (nh > 0) {
        Cand c = heap_pop(h, &nh);
        int right = s[c.pos].next;
        if (s[c.pos].id < 0 || right < 0) continue;
        const Merge *m = merge_of(t, s[c.pos].id, s[right].id);
        if (!m || m->id != c.id) continue;
        s[c.pos].id = c.id;
        s[c.pos].next = s[right].next;
        s[right].id = -1;
        if (s[right].next >= 0) s[s[right].next].prev = c.pos;
        if (s[c.pos].prev >= 0) push_pair(t, s, s[c.pos].prev, h, &nh);
        if (s[c.pos].next >= 0) push_pair(t, s, c.pos, h, &nh);
    }
    for (int i = 0; ns > 0 && i >= 0; i = s[i].next) {
        if (n >= max_ids) { n = -1; break; }
        ids[n++] = s[i].id;
    }
    free(h);
    free(s);
    return n;
}

/* The normalizer on one piece between added tokens: "▁" first, every " " as "▁". */
static int encode_text(const Tokenizer *t, const char *text, int len, int *ids, int n, int max_ids) {
    if (len == 0 || n < 0) return n;
    char *norm = xmalloc(3 * (size_t)len + 3), *q = norm;
    memcpy(q, SPACE, 3), q += 3;
    for (int i = 0; i < len; i++) {
        if (text[i] == ' ') memcpy(q, SPACE, 3), q += 3;
        else *q++ = text[i];
    }
    n = bpe(t, norm, (int)(q - norm), ids, n, max_ids);
    free(norm);
    return n;
}

static int put(int *ids, int n, int max_ids, int id) {
    if (n < 0 || n >= max_ids) return -1;
    ids[n] = id;
    return n + 1;
}

int tok_encode(const Tokenizer *t, const char *text, int add_bos, int *ids, int max_ids) {
    int n = 0;
    for (int i = 0; add_bos && i < t->n_pre; i++) n = put(ids, n, max_ids, t->pre[i]);
    const char *start = text;
    for (const char *p = text; n >= 0; p++) {
        const Added *hit = NULL; /* leftmost, then longest, as tokenizers' Aho-Corasick does */
        for (int k = 0; k < t->n_added; k++)
            if (!strncmp(p, t->added[k].text, t->added[k].len) && (!hit || t->added[k].len > hit->len))
                hit = &t->added[k];
        if (!hit && *p) continue;
        n = encode_text(t, start, (int)(p - start), ids, n, max_ids);
        if (!hit) break;
        n = put(ids, n, max_ids, hit->id);
        p += hit->len - 1;
        start = p + 1;
    }
    for (int i = 0; add_bos && i < t->n_post; i++) n = put(ids, n, max_ids, t->post[i]);
    return n;
}

/* ---- decoding ------------------------------------------------------------------------ */
static int byte_token(const char *s, int len) {
    static const char hex[] = "0123456789ABCDEF0123456789abcdef";
    if (len != 6 || memcmp(s, "<0x", 3) || s[5] != '>') return -1;
    const char *hi = memchr(hex, s[3], 32), *lo = memchr(hex, s[4], 32);
    if (!hi || !lo) return -1;
    return ((hi - hex) % 16) * 16 + (lo - hex) % 16;
}

/* A run of byte tokens at out[from..to): kept if it is valid UTF-8, else one U+FFFD per byte
 * (tokenizers' ByteFallback). Returns the new end. */
static int close_bytes(char *out, int from, int to) {
    for (int i = from; i < to;) {
        int cl = utf8_char((unsigned char *)out + i, to - i);
        if (!cl) {
            for (int j = 0; j < to - from; j++) memcpy(out + from + 3 * j, "\xef\xbf\xbd", 3);
            return from + 3 * (to - from);
        }
        i += cl;
    }
    return to;
}

char *tok_decode(const Tokenizer *t, const int *ids, int n, int *bad_id) {
    size_t cap = 1;
    for (int i = 0; i < n; i++) {
        if (ids[i] < 0 || ids[i] >= t->n || !t->piece[ids[i]]) {
            if (bad_id) *bad_id = ids[i];
            return NULL;
        }
        cap += t->piece_len[ids[i]]; /* a byte token: 6 chars in, 3 bytes at most out */
    }
    char *out = xmalloc(cap);
    int len = 0, run = -1; /* run: where the current run of byte tokens started */
    for (int i = 0; i < n; i++) {
        if (t->special[ids[i]]) continue;
        const char *s = t->piece[ids[i]];
        int sl = t->piece_len[ids[i]], b = byte_token(s, sl);
        if (b >= 0) {
            if (run < 0) run = len;
            out[len++] = (char)b;
            continue;
        }
        if (run >= 0) len = close_bytes(out, run, len), run = -1;
        for (int j = 0; j < sl;) {
            if (j + 3 <= sl && !memcmp(s + j, SPACE, 3)) out[len++] = ' ', j += 3;
            else out[len++] = s[j++];
        }
    }
    if (run >= 0) len = close_bytes(out, run, len);
    out[len] = 0;
    if (out[0] == ' ') memmove(out, out + 1, len);
    return out;
}
