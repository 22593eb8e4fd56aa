/* fuzz target: the answer checker's claims (common/report/claims.c) over rows (common/report/rows.c). The
 * input is a rows.tsv, a line "%%", then a claims file. Each claim is evaluated on the rows, on
 * the rows as forecast for a T4, and (a line of five fields) on the rows edited by its wrong
 * measurement. Invariants: a claim that holds used only finite numbers; one that does not hold,
 * or is not run, says why only when a side was not finite or a row was missing; the forecast
 * measures as many rows as it says; edits say why exactly when they were not applied. */
#include <math.h>
#include <string.h>
#include "report/claims.h"
#include "fuzz.h"

static void verdict(const Claim *c, const Row *rows, int nrows) {
    ClaimResult r = claim_eval(c, "claims.tsv", rows, nrows);
    if (r.verdict == CLAIM_TRUE)
        FUZZ_ASSERT(!strstr(r.used, "inf") && !strstr(r.used, "nan") && !*r.why, "'%s' held with %s", c->expr, r.used);
    if (r.verdict == CLAIM_NOT_RUN) FUZZ_ASSERT(*r.why, "'%s' not run, and no row named", c->expr);
}

static void copy_rows(Row *to, const Row *from, int n) {
    if (n) memcpy(to, from, sizeof(Row) * n);   /* no file: rows is NULL */
}

static void check(void *unused) {
    Row *rows;
    Claim *claims;
    int nrows = rows_read(fuzz_path("rows.tsv"), &rows);
    int n = claims_read(fuzz_path("claims.tsv"), &claims);
    Row *copy = malloc(sizeof(Row) * nrows + 1);
    copy_rows(copy, rows, nrows);
    int forecast = claims_forecast(copy, nrows, "t4"), measured = 0;
    for (int i = 0; i < nrows; i++) measured += !isnan(copy[i].measured);
    FUZZ_ASSERT(forecast == measured, "claims_forecast said %d rows, %d are measured", forecast, measured);
    for (int i = 0; i < n; i++) {
        verdict(&claims[i], rows, nrows);
        verdict(&claims[i], copy, nrows);
    }
    for (int i = 0; i < n; i++) {   /* last: an edit of a row that is not there dies */
        if (!claims[i].wrong) continue;
        char why[192];
        copy_rows(copy, rows, nrows);
        int applied = claim_apply_wrong(&claims[i], "claims.tsv", copy, nrows, why, sizeof why);
        FUZZ_ASSERT(applied == !*why, "'%s' applied=%d, why '%s'", claims[i].wrong, applied, why);
        if (applied) verdict(&claims[i], copy, nrows);
    }
    free(copy);
    claims_free(claims, n);
    free(rows);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n) {
    fuzz_write_two(data, n, "rows.tsv", "claims.tsv");
    fuzz_try(check, NULL);
    return 0;
}
