/* fuzz target: the answer checker's claims (common/report/claims.c) over rows (common/report/rows.c). The
 * input is a rows.tsv, a line "%%", then a claims file. Invariant: a claim that holds used
 * only finite numbers; one that does not hold, or is not run, says why only when a side was not
 * finite or a row was missing. */
#include <string.h>
#include "report/claims.h"
#include "fuzz.h"

static void check(void *unused) {
    Row *rows;
    Claim *claims;
    int nrows = rows_read(fuzz_path("rows.tsv"), &rows);
    int n = claims_read(fuzz_path("claims.tsv"), &claims);
    for (int i = 0; i < n; i++) {
        ClaimResult r = claim_eval(&claims[i], "claims.tsv", rows, nrows);
        if (r.verdict == CLAIM_TRUE)
            FUZZ_ASSERT(!strstr(r.used, "inf") && !strstr(r.used, "nan") && !*r.why, "'%s' held with %s", claims[i].expr,
                        r.used);
        if (r.verdict == CLAIM_NOT_RUN) FUZZ_ASSERT(*r.why, "'%s' not run, and no row named", claims[i].expr);
    }
    claims_free(claims, n);
    free(rows);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n) {
    fuzz_write_two(data, n, "rows.tsv", "claims.tsv");
    fuzz_try(check, NULL);
    return 0;
}
