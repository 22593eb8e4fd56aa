/* parse_check DIR: everything the kit reads from a model folder, under AddressSanitizer:
 * config.json, model.safetensors (+ the tensor check), tokenizer.json when present, then a
 * 2-token fp32 forward. Bad input must end in one "error:" sentence, never a sanitizer report. */
#include <stdio.h>
#include <stdlib.h>
#include "model/model.h"
#include "model/tokenizer.h"
#include "util.h"

int main(int argc, char **argv) {
    if (argc != 2) die("usage: parse_check MODEL_DIR");
    char path[1024];
    Config c;
    snprintf(path, sizeof path, "%s/config.json", argv[1]);
    config_load(&c, path);
    SafeTensors st;
    st_open(&st, argv[1]);
    model_check(&c, &st);
    snprintf(path, sizeof path, "%s/tokenizer.json", argv[1]);
    if (path_exists(path)) tok_free(tok_load(path));
    CpuModel *m = cpu_model_open(&c, &st, 0, 2);
    int ids[2] = {c.bos_id < c.vocab ? c.bos_id : 0, c.vocab - 1};
    float *logits = xmalloc(sizeof(float) * 2 * c.vocab);
    cpu_forward(m, ids, 2, 0, logits, 1);
    printf("parse_check: %s ok, argmax %d %d\n", argv[1], argmax_f32(logits, c.vocab),
           argmax_f32(logits + c.vocab, c.vocab));
    free(logits);
    cpu_model_free(m);
    st_close(&st);
    return 0;
}
