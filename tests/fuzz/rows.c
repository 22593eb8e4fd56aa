/* fuzz target: reading results/rows.tsv (common/report/rows.c). Invariant: every row it accepts has
 * a day and a key. */
#include "fuzz.h"
#include "report/rows.h"

static void read_rows(void *path) {
    Row *rows;
    int n = rows_read(path, &rows);
    for (int i = 0; i < n; i++) {
        const Row *r = &rows[i];
        FUZZ_ASSERT(*r->day && *r->key, "row %d without a day or key", i);
    }
    free(rows);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n) {
    fuzz_try(read_rows, (void *)fuzz_write("rows.tsv", data, n));
    return 0;
}
