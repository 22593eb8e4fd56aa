/* claims: answers/claims.tsv, the quiz answers' checkable claims, and the small language they
 * are written in, evaluated over the measured rows (rows.h).
 *
 * A claims file holds one claim a line, three tab-separated fields or five ('#' lines, blank
 * lines and the "question" header are skipped):
 *
 *   question <TAB> expression <TAB> sentence [<TAB> wrong <TAB> mistake]
 *
 * The expression is the claim, e.g.
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
 * hide it) makes the claim false, with that reason: infinity equals nothing and bounds nothing.
 *
 * The two last fields come together or not at all. wrong is the plausible wrong measurement
 * that must break the claim, written as edits of the rows: statements joined by ';', each
 * "day.key = arithmetic" with the right side in the language above (numbers, day.key,
 * theory(day.key), + - * / and parentheses; no comparison), e.g.
 *
 *   day08.matmul_nosync_tflops = day08.matmul_synced_tflops * 1.05
 *   day09.tpot_ms_events_graph = day09.tpot_ms_events_graph / 100; day09.ttft_ms_events_graph = 0.1
 *
 * An edit sets the measured value of its row, which must be there ("theory(day.key) = ..." sets
 * its theory column: a model's forecast made the wrong way); the edits apply in order,
 * each right side read on the rows as edited so far. mistake says in words what the student
 * did to measure that ("the unsynced loop synchronized after all (a .item() inside it)").
 * A claim that its wrong measurement does not break cannot tell that mistake from a right
 * measurement: bin/check_answers --wrong checks every claim for it. */
#ifndef KIT_CLAIMS_H
#define KIT_CLAIMS_H
#include "report/rows.h"
#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const char *question, *expr, *sentence;   /* the line's first three fields */
    const char *wrong, *mistake;              /* its last two; NULL on a line of three */
    int line;                                 /* its line number in the file */
} Claim;

/* Reads a claims file; dies naming it when it cannot be read, is a folder, has a line that is
 * neither three fields nor five, gives an empty wrong or mistake, is longer than 2047
 * characters, or holds no claim. Returns the count; free the claims with claims_free. */
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

/* Applies claim c's wrong measurement (c->wrong, not NULL) to rows, in place: give it a copy.
 * Returns 1 when every edit was applied; 0 when one could not be, why saying which value its
 * right side lacked (a row missing or unmeasured) or that it is not a finite number (a wrong
 * measurement is a number too; inf would break any claim and show nothing). Dies naming file,
 * the claim's line and the key when an edit sets a row that is not there, and on a grammar
 * error. */
int claim_apply_wrong(const Claim *c, const char *file, Row *rows, int nrows, char *why, size_t cap);

/* The rows as day11's timeline model forecasts them for one GPU (gpu "t4"), in place. A row
 * forecast_<gpu>_<key> is the twin of the row <key> of its own day: its theory column holds
 * the model's forecast of that row on the GPU. One whose <key> no row of its day has
 * (forecast_t4_c_half_..., the T4 with each op's fixed cost halved) is no twin, nor is one
 * with no theory. Every row with a twin takes the forecast as its measured value; every other
 * row becomes unmeasured, its theory kept. A claim evaluated on these rows is thus "not run" exactly when it reads the
 * measured value of a row with no forecast; theory(day.key) reads the row's own theory (a
 * floor, a peak), forecast or not. Returns how many rows took a forecast. */
int claims_forecast(Row *rows, int nrows, const char *gpu);

#ifdef __cplusplus
}
#endif
#endif
