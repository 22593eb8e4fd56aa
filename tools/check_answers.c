/* check_answers: every checkable claim of answers/ against the measured rows.
 *
 *   bin/check_answers answers/claims.tsv results/rows.tsv [--mine FILE]
 *
 * claims.tsv holds one claim a line: question <TAB> expression <TAB> sentence; the
 * expressions are a tiny language over the rows (common/report/claims.h), e.g.
 *
 *   day07.first_generate_ms >= 2 * day07.warm_generate_ms
 *   day08.matmul_nosync_tflops > theory(day08.matmul_nosync_tflops)
 *
 * Each claim prints ✓, ✗ (with the values used, the reason when a side is not a finite
 * number, and the sentence it claimed), or "not run" when a row it needs is missing (not a
 * pass, not a failure). Exit status 1 when any claim is ✗, or when none could be checked: a
 * grader that checked nothing has passed nothing. A claims file with no claim, or a file that
 * cannot be read, is an error.
 *
 * --mine FILE: a student's own numbers, one a line, "day10.gemms_per_step = 155" or
 * "gemms_per_step: 155" (text after the number is ignored, # starts a comment). Each is
 * compared with the measured value: within or outside 10% of it. Any outside -> exit 1, and
 * so is a file that compared nothing (no number in it, or none whose row was measured: a
 * misspelt key is "not run", never a pass). A UTF-8 byte-order mark at the start (Windows
 * Notepad writes one) is skipped: it marks the encoding and holds no number. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "args.h"
#include "report/claims.h"
#include "report/rows.h"
#include "util.h"

#define TOLERANCE 0.10      /* --mine: within 10% of the measured value */

static Row *rows;
static int nrows;

/* "day10.gemms_per_step = 155" or "gemms_per_step: 155"; returns outside-10% count. rows_path
 * only names the rows file in the messages. */
static int check_mine(const char *path, const char *rows_path) {
    FILE *f = open_regular(path);
    if (!f) die("cannot read %s (--mine); write one number a line, like 'day10.gemms_per_step = 155'", path);
    char line[512];
    int lineno = 0, within = 0, outside = 0, not_run = 0;
    printf("\nyour numbers against the measured ones (%s), tolerance: within %.0f%% of measured\n",
           path, TOLERANCE * 100);
    while (read_line(f, line, sizeof line, path, &lineno)) {
        if (lineno == 1 && !strncmp(line, "\xEF\xBB\xBF", 3)) memmove(line, line + 3, strlen(line + 3) + 1);
        line[strcspn(line, "#")] = 0;
        char day[16] = "", key[64];
        double mine;
        if (sscanf(line, " %15[a-z0-9].%63[A-Za-z0-9_] %*[=:] %lf", day, key, &mine) != 3) {
            day[0] = 0;
            if (sscanf(line, " %63[A-Za-z0-9_] %*[=:] %lf", key, &mine) != 2) {
                if (strspn(line, " \t") == strlen(line)) continue;
                die("%s line %d is not 'day.key = number' or 'key: number'", path, lineno);
            }
        }
        int ambiguous;
        const Row *r = rows_find(rows, nrows, day, key, &ambiguous);
        if (ambiguous) die("%s line %d: several days have %s; write it as day.key", path, lineno, key);
        if (!r || isnan(r->measured)) {
            if (r) printf("- %s = %g: not run (%s.%s was not measured)\n", key, mine, r->day, r->key);
            else printf("- %s = %g: not run (%s has no row %s%s%s: check its spelling, or run its day)\n", key, mine,
                        rows_path, day, *day ? "." : "", key);
            not_run++;
            continue;
        }
        double m = r->measured;
        int finite = isfinite(mine) && isfinite(m);
        int ok = finite && (m == 0 ? mine == 0 : fabs(mine - m) <= TOLERANCE * fabs(m));
        printf("%s %s.%s = %g, measured %.4g %s: %s\n", ok ? "✓" : "✗", r->day, r->key, mine, m, r->unit,
               ok ? "within 10%" : finite ? "outside 10%" : "not a finite number, so not within 10%");
        within += ok;
        outside += !ok;
    }
    fclose(f);
    printf("mine=%d within=%d outside=%d not_run=%d\n", within + outside + not_run, within, outside, not_run);
    /* as for the claims: a check that compared nothing has passed nothing */
    if (within + outside + not_run == 0)
        die("%s (--mine) holds no number: write one a line, like 'day10.gemms_per_step = 155' (# starts a comment)",
            path);
    if (within + outside == 0)
        die("no number of %s (--mine) could be compared (%d not run): %s has no measured row for any of their keys; "
            "check the spelling of each (day.key as in %s), or run their days (make all)",
            path, not_run, rows_path, rows_path);
    return outside;
}

static const char USAGE[] =
    "usage: bin/check_answers answers/claims.tsv results/rows.tsv [--mine FILE]\n"
    "  Every checkable claim of claims.tsv against the measured rows: ✓, ✗ or not run; exit 1 when\n"
    "  any claim is ✗ or none could be checked.\n"
    "  --mine FILE  your own numbers, one a line ('day10.gemms_per_step = 155'), each against the\n"
    "               measured value: within or outside 10% of it\n";

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);   /* in order with die()'s messages on stderr */
    const char *mine = NULL, *files[2];
    int nfiles = 0;
    const ArgFlag flags[] = {{"--mine", ARG_STRING, &mine, 0, 0, "a file of your numbers, one a line"}, {0}};
    const ArgWords words = {"claims.tsv and rows.tsv", 2, 2, files, &nfiles, 0};
    args_parse("check_answers", USAGE, argc, argv, flags, &words);
    const char *claims_path = files[0], *rows_path = files[1];
    Claim *claims;
    int total = claims_read(claims_path, &claims);
    nrows = rows_read(rows_path, &rows);
    if (nrows == 0) printf("%s has no rows yet: run the days first (make all)\n", rows_path);

    int ok = 0, bad = 0, not_run = 0;
    for (int i = 0; i < nrows; i++)    /* a time under its floor fails the run, whatever the claims say */
        if (strncmp(rows[i].note, ROW_IMPOSSIBLE, strlen(ROW_IMPOSSIBLE)) == 0) {
            printf("✗ %s.%s = %.4g %s: a measurement error, not a result (%s)\n", rows[i].day, rows[i].key,
                   rows[i].measured, rows[i].unit, rows[i].note);
            bad++;
        }
    /* Two passes: the claims, then the ones marked "machine" (a bar the machine moves as much
     * as the method): printed in a section of their own, counted, never hidden, but not
     * deciding the exit code. */
    int m_ok = 0, m_bad = 0, m_not_run = 0, machines = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < total; i++) {
            const Claim *c = &claims[i];
            const size_t ql = strlen(c->question);
            const int machine = ql > 8 && !strcmp(c->question + ql - 8, " machine");
            if (machine != pass) continue;
            if (machine && !machines++)
                printf("machine-dependent bars (reported, not failing the check: a busy or shared machine breaks "
                       "them, not the method):\n");
            ClaimResult r = claim_eval(c, claims_path, rows, nrows);
            if (r.verdict == CLAIM_NOT_RUN) {
                char day[16] = "";
                sscanf(r.why, "%15[a-z0-9]", day);
                printf("- %-3s not run (make %s): %s  %s\n", c->question, day, r.why, c->expr);
                *(machine ? &m_not_run : &not_run) += 1;
                continue;
            }
            printf("%s %-3s %s\n", r.verdict == CLAIM_TRUE ? "✓" : "✗", c->question, c->expr);
            if (*r.used) printf("      %s\n", r.used);
            if (r.verdict == CLAIM_FALSE) {
                if (*r.why) printf("      invalid: %s\n", r.why);
                printf("      claimed: %s\n", c->sentence);
            }
            *(machine ? &m_ok : &ok) += r.verdict == CLAIM_TRUE;
            *(machine ? &m_bad : &bad) += r.verdict == CLAIM_FALSE;
        }
    printf("claims=%d ok=%d failed=%d not_run=%d", total - machines, ok, bad, not_run);
    if (machines) printf(" machine=%d machine_ok=%d machine_failed=%d machine_not_run=%d", machines, m_ok, m_bad, m_not_run);
    printf("%s\n", not_run + m_not_run ? "  (not run is not a pass: run the days named above)" : "");
    claims_free(claims, total);
    int outside = mine ? check_mine(mine, rows_path) : 0;
    free(rows);
    if (ok + bad + m_ok + m_bad == 0)
        die("no claim of %s could be checked: every one needs a row that %s does not have; run the days (make all)",
            claims_path, rows_path);
    return bad || outside ? 1 : 0;
}
