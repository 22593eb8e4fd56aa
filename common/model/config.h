/* config: the model's shape, from a Hugging Face config.json (both hub forms) or built in. */
#ifndef KIT_CONFIG_H
#define KIT_CONFIG_H
#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int vocab;          /* vocab_size */
    int dim;            /* hidden_size */
    int ffn_dim;        /* intermediate_size (the MLP's width; dim is the residual stream's) */
    int n_layers;       /* num_hidden_layers */
    int n_heads;        /* num_attention_heads */
    int n_kv_heads;     /* num_key_value_heads (GQA) */
    int head_dim;       /* head_dim, or hidden_size / num_attention_heads */
    int max_seq;        /* max_position_embeddings */
    float norm_eps;     /* rms_norm_eps */
    float rope_theta;   /* rope_theta, or rope_parameters.rope_theta */
    int bos_id, eos_id;
    int tied;           /* tie_word_embeddings (lm_head shares the embedding) */
    char dtype[16];     /* torch_dtype / dtype as written: "bfloat16", "float16", "float32" */
} Config;

/* Reads path (a config.json); dies naming the file and the missing or invalid field. */
void config_load(Config *c, const char *path);
/* TinyLlama-1.1B-Chat-v1.0's config, for the synthetic default. */
void config_tinyllama(Config *c);
/* Parameter count: embedding + layers + final norm + lm_head (untied). */
long long config_params(const Config *c);
/* One line: "layers=22 dim=2048 heads=32/4 head_dim=64 ffn=5632 vocab=32000 ..." */
void config_print(const Config *c);

#ifdef __cplusplus
}
#endif
#endif
