/* fuzz target: model.safetensors.index.json (common/model/safetensors.c), beside the seed model's two
 * shards (seeds.c: model/shards/), then the tiny forward pass on what it accepts. */
#include <string.h>
#include <unistd.h>
#include "fuzz.h"
#include "util.h"

static Config cfg;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    config_load(&cfg, fuzz_data("model/config.json"));
    const char *shards[] = {"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"};
    for (int i = 0; i < 2; i++) {
        char from[600];
        snprintf(from, sizeof from, "%s", fuzz_data("model/shards/"));
        strncat(from, shards[i], sizeof from - strlen(from) - 1);
        if (symlink(from, fuzz_path(shards[i]))) die("cannot link %s into %s", from, fuzz_dir());
    }
    return 0;
}

static void forward(void *dir) { fuzz_forward(&cfg, dir); }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n) {
    fuzz_write("model.safetensors.index.json", data, n);
    fuzz_try(forward, (void *)fuzz_dir());
    return 0;
}
