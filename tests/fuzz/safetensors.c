/* fuzz target: a model.safetensors header (common/model/safetensors.c), then the tiny forward pass
 * (common/model/model.c) on what it accepts. The input is the header's JSON; the file is its length,
 * the input, then the seed model's tensors in F32 (seeds.c: model/data.bin), so every mutation
 * lands in the header. The config is the seed model's (model/config.json). */
#include <string.h>
#include "fuzz.h"
#include "util.h"

static Config cfg;
static char *tensors;
static size_t tensors_n;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    config_load(&cfg, fuzz_data("model/config.json"));
    tensors = read_file(fuzz_data("model/data.bin"), &tensors_n);
    if (!tensors) die("cannot read %s; run tests/cpu/fuzz.sh", fuzz_data("model/data.bin"));
    return 0;
}

static void forward(void *dir) { fuzz_forward(&cfg, dir); }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n) {
    uint8_t *file = xmalloc(8 + n + tensors_n);
    for (int i = 0; i < 8; i++) file[i] = (uint8_t)((uint64_t)n >> (8 * i));
    memcpy(file + 8, data, n);
    memcpy(file + 8 + n, tensors, tensors_n);
    fuzz_write("model.safetensors", file, 8 + n + tensors_n);
    free(file);
    fuzz_try(forward, (void *)fuzz_dir());
    return 0;
}
