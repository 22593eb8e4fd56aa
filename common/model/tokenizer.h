/* tokenizer: the Llama/TinyLlama tokenizer.json (BPE with byte fallback, "▁" for spaces),
 * encoding and decoding exactly as Hugging Face tokenizers does. */
#ifndef KIT_TOKENIZER_H
#define KIT_TOKENIZER_H
#ifdef __cplusplus
extern "C" {
#endif

typedef struct Tokenizer Tokenizer;
Tokenizer *tok_load(const char *path);             /* dies naming the file and field */
int tok_vocab(const Tokenizer *t);
/* Encodes text (with BOS first when add_bos); returns the count, or -1 if more than
 * max_ids would be needed. */
int tok_encode(const Tokenizer *t, const char *text, int add_bos, int *ids, int max_ids);
/* Decodes ids (special tokens skipped, byte tokens fused to UTF-8, the leading space
 * stripped); returns a malloc'd string, or NULL with *bad_id set to an unknown id. */
char *tok_decode(const Tokenizer *t, const int *ids, int n, int *bad_id);
void tok_free(Tokenizer *t);

#ifdef __cplusplus
}
#endif
#endif
