/* claims: answers/claims.tsv, the quiz answers' checkable claims, and the small language they
 * are written in, evaluated over the measured rows (rows.h).
 *
 * A claims file holds one claim a line: question <TAB> expression <TAB> sentence ('#' lines,
 * blank lines and the "question" header are skipped). An expression, e.g.
 *
 *   day07.first_generate_ms >= 2 * day07.warm_generate_ms
 *   day08.matmul_nosync_tflops > theory(day08.matmul_nosync_tflops)
 *   day11.busy_eager_b1_d14 < day11.busy_eager_b1_d0 and day11.busy_eager_b1_d14 < 50
 *
 * day.key is that row's measured value, theory(day.key) its theory column; numbers,
 * + - * / and parentheses; comparisons < <= > >= == != ('==' means equal to 6 significant
 * digits); comparisons joined by 'and'. A claim is true, false, or not run when a row it needs
 * is missing or unmeasured (not a pass, not a failure). Any value in a claim that is not a
 * finite number (a row measured inf, 1e999, a division by zero, also where 1 / inf = 0 would
 * hide it) makes the claim false, with that reason: infinity equals nothing and bounds nothing. */
#ifndef KIT_CLAIMS_H
#define KIT_CLAIMS_H
#include "report/rows.h"
#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const char *question, *expr, *sentence;   /* the line's three fields */
    int line;                                 /* its line number in the file */
} Claim;

/* Reads a claims file; dies naming it when it cannot be read, is a folder, has a line that is
 * not three fields or is longer than 2047 characters, or holds no claim. Returns the count;
 * free the claims with claims_free. */
int claims_read(const char *path, Claim **claims);
void claims_free(Claim *claims, int n);

typedef enum { CLAIM_FALSE, CLAIM_TRUE, CLAIM_NOT_RUN } Verdict;
typedef struct {
    Verdict verdict;
    char why[192];      /* not run: the first row missing; false: the first value not finite */
    char used[512];     /* "day.key=value ..." for the printout */
} ClaimResult;

/* Evaluates one claim over the rows; a grammar error dies naming file and the claim's line. */
ClaimResult claim_eval(const Claim *c, const char *file, const Row *rows, int nrows);

#ifdef __cplusplus
}
#endif
#endif
