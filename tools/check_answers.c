/* check_answers: every checkable claim of answers/ against the measured rows.
 *
 *   bin/check_answers answers/claims.tsv results/rows.tsv [--mine FILE | --wrong | --forecast GPU]
 *
 * claims.tsv holds one claim a line: question <TAB> expression <TAB> sentence, and in five
 * fields the wrong measurement it must catch and the mistake behind it (<TAB> wrong <TAB>
 * mistake); the expressions are a tiny language over the rows (common/report/claims.h), e.g.
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
 * Notepad writes one) is skipped: it marks the encoding and holds no number.
 *
 * The two other flags ask about the claims, not about the run (so rows marked IMPOSSIBLE are
 * left to the plain check), and each excludes the others:
 *
 * --wrong: can each claim tell a wrong measurement from a right one? A claim's wrong field
 * edits the rows as a plausible mistake would have measured them (a lost synchronize, a
 * profiler left running, a cold first run); its mistake says what the student did. A claim
 * that holds on the rows as given is evaluated again on a copy with its edits applied, and
 * must fail there: "✗ as it must be". One that still holds, or is not run, under its wrong
 * measurement cannot tell that mistake from a right measurement; one with no wrong field
 * names no mistake it catches: both are missed. One that does not hold on the rows as given
 * is "not checked" (failing under the edits would show nothing; the plain check reports it).
 * Machine claims are checked like the others: the mistake moves them as much as any.
 * Prints wrong=N (the claims) caught=N missed=N not_checked=N; exit 1 when any was missed or
 * none was checked.
 *
 * --forecast GPU (t4): would the claims hold on that GPU, as day11's timeline model forecasts
 * it? Every row with a twin forecast_GPU_<key> in its day (its theory: the model's forecast of
 * that row) takes the forecast as its measured value; every other row is unmeasured, its
 * theory kept (claims_forecast). A claim is forecast when every value it reads measured has a
 * forecast; theory(day.key) reads the row's own theory (a floor, a peak) and does not count
 * (a claim of theory alone would be forecast trivially, but --wrong misses it: no edit of a
 * measurement can break it).
 * One that reads a measured value with no forecast is "not forecast": printed, neither a pass
 * nor a failure. Machine claims are counted like the others: a model has no busy neighbour.
 * Prints forecast=GPU claims=N ok=N failed=N not_forecast=N; exit 1 when a forecast claim is
 * ✗ or none is forecast. */
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
    "usage: bin/check_answers answers/claims.tsv results/rows.tsv [--mine FILE | --wrong | --forecast GPU]\n"
    "  Every checkable claim of claims.tsv against the measured rows: ✓, ✗ or not run; exit 1 when\n"
    "  any claim is ✗ or none could be checked.\n"
    "  --mine FILE     your own numbers, one a line ('day10.gemms_per_step = 155'), each against the\n"
    "                  measured value: within or outside 10% of it\n"
    "  --wrong         each claim on the rows edited as its wrong measurement (claims.tsv's fourth\n"
    "                  field) would give them: it must fail there, or it cannot tell that mistake\n"
    "                  from a right measurement; exit 1 when one does not, or has no wrong field\n"
    "  --forecast GPU  each claim on day11's forecast for GPU (t4): each row measured as its twin\n"
    "                  forecast_GPU_<key> forecasts it; a claim reading a row with no forecast is\n"
    "                  not forecast; exit 1 when a forecast claim is ✗ or none is forecast\n";

/* A claim marked "machine" (question "A1 machine"): a bar the machine moves as much as the method. */
static int is_machine(const Claim *c) {
    const size_t ql = strlen(c->question);
    return ql > 8 && !strcmp(c->question + ql - 8, " machine");
}

/* ✓ or ✗, the values used, and for ✗ why and what the claim said. */
static void print_verdict(const Claim *c, const ClaimResult *r) {
    printf("%s %-3s %s\n", r->verdict == CLAIM_TRUE ? "✓" : "✗", c->question, c->expr);
    if (*r->used) printf("      %s\n", r->used);
    if (r->verdict == CLAIM_FALSE) {
        if (*r->why) printf("      invalid: %s\n", r->why);
        printf("      claimed: %s\n", c->sentence);
    }
}

/* The plain check (and --mine): the exit code. */
static int check_plain(const Claim *claims, int total, const char *claims_path, const char *rows_path,
                       const char *mine) {
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
            const int machine = is_machine(c);
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
            print_verdict(c, &r);
            *(machine ? &m_ok : &ok) += r.verdict == CLAIM_TRUE;
            *(machine ? &m_bad : &bad) += r.verdict == CLAIM_FALSE;
        }
    printf("claims=%d ok=%d failed=%d not_run=%d", total - machines, ok, bad, not_run);
    if (machines) printf(" machine=%d machine_ok=%d machine_failed=%d machine_not_run=%d", machines, m_ok, m_bad, m_not_run);
    printf("%s\n", not_run + m_not_run ? "  (not run is not a pass: run the days named above)" : "");
    int outside = mine ? check_mine(mine, rows_path) : 0;
    if (ok + bad + m_ok + m_bad == 0)
        die("no claim of %s could be checked: every one needs a row that %s does not have; run the days (make all)",
            claims_path, rows_path);
    return bad || outside ? 1 : 0;
}

/* --wrong: each claim that holds on the rows must fail on a copy edited as its mistake would
 * have measured them. The exit code. */
static int check_wrong(const Claim *claims, int total, const char *claims_path, const char *rows_path) {
    printf("each claim under its wrong measurement (the edits of %s's fourth field, on a copy of %s): "
           "it must fail there\n", claims_path, rows_path);
    Row *edited = xmalloc(sizeof(Row) * nrows);
    static const char CANNOT_TELL[] = "the claim cannot tell that mistake from a right measurement";
    int caught = 0, missed = 0, unchecked = 0;
    for (int i = 0; i < total; i++) {
        const Claim *c = &claims[i];
        if (!c->wrong) {
            printf("MISSED %-3s %s\n      no wrong measurement: every claim must name the mistake it catches "
                   "(%s line %d needs fields 4 and 5: wrong, mistake)\n", c->question, c->expr, claims_path, c->line);
            missed++;
            continue;
        }
        ClaimResult right = claim_eval(c, claims_path, rows, nrows);
        if (right.verdict != CLAIM_TRUE) {
            printf("- %-3s not checked: it does not hold on %s as given (%s), so failing under its wrong "
                   "measurement would show nothing  %s\n", c->question, rows_path,
                   right.verdict == CLAIM_FALSE ? "✗" : right.why, c->expr);
            unchecked++;
            continue;
        }
        memcpy(edited, rows, sizeof(Row) * nrows);
        char why[192];
        const int applied = claim_apply_wrong(c, claims_path, edited, nrows, why, sizeof why);
        ClaimResult r = applied ? claim_eval(c, claims_path, edited, nrows) : (ClaimResult){.verdict = CLAIM_NOT_RUN};
        if (r.verdict == CLAIM_FALSE) printf("✗ as it must be  %s  %s\n", c->question, c->expr);
        else printf("MISSED %-3s %s\n", c->question, c->expr);
        printf("      wrong measurement: %s\n      edits: %s\n      right: %s\n", c->mistake, c->wrong, right.used);
        if (applied) printf("      wrong: %s\n", r.used);
        if (!applied) printf("      its edits could not be applied (%s): %s\n", why, CANNOT_TELL);
        else if (r.verdict == CLAIM_NOT_RUN) printf("      not run under them (%s): %s\n", r.why, CANNOT_TELL);
        else if (r.verdict == CLAIM_TRUE) printf("      it still holds under them: %s\n", CANNOT_TELL);
        else if (*r.why) printf("      invalid: %s\n", r.why);
        caught += r.verdict == CLAIM_FALSE;
        missed += r.verdict != CLAIM_FALSE;
    }
    free(edited);
    printf("wrong=%d caught=%d missed=%d not_checked=%d\n", total, caught, missed, unchecked);
    if (caught + missed == 0)
        die("no claim of %s could be checked under its wrong measurement: none holds on %s as given; "
            "run the days (make all), or check against answers/reference/rows.tsv", claims_path, rows_path);
    return missed ? 1 : 0;
}

/* --forecast GPU: each claim on the rows as the timeline model forecasts them. The exit code. */
static int check_forecast(const Claim *claims, int total, const char *claims_path, const char *rows_path,
                          const char *gpu) {
    if (!*gpu) die("--forecast: name the GPU, as day11's forecast rows do (t4 reads forecast_t4_<key>)");
    const int twins = claims_forecast(rows, nrows, gpu);
    printf("the claims on the forecast for %s: %d rows of %s take as measured the forecast of their twin "
           "forecast_%s_<key>; every other row is unmeasured\n", gpu, twins, rows_path, gpu);
    int ok = 0, bad = 0, not_forecast = 0;
    for (int i = 0; i < total; i++) {
        const Claim *c = &claims[i];
        ClaimResult r = claim_eval(c, claims_path, rows, nrows);
        if (r.verdict == CLAIM_NOT_RUN) {
            char day[16], key[64];
            /* unmeasured here means: no forecast; a row missing or with no theory says so itself */
            if (strstr(r.why, " was not measured") && sscanf(r.why, "%15[a-z0-9].%63[A-Za-z0-9_]", day, key) == 2)
                printf("- %-3s not forecast: %s.%s has no twin %s.forecast_%s_%s  %s\n", c->question, day, key, day,
                       gpu, key, c->expr);
            else printf("- %-3s not forecast: %s  %s\n", c->question, r.why, c->expr);
            not_forecast++;
            continue;
        }
        print_verdict(c, &r);
        ok += r.verdict == CLAIM_TRUE;
        bad += r.verdict == CLAIM_FALSE;
    }
    printf("forecast=%s claims=%d ok=%d failed=%d not_forecast=%d\n", gpu, total, ok, bad, not_forecast);
    if (ok + bad == 0) {
        if (!twins)
            die("%s has no row forecast_%s_<key> beside a row <key> of its day: check the GPU's name as day11's "
                "forecast rows spell it (forecast_t4_...), or run day11 (make day11)", rows_path, gpu);
        die("no claim of %s could be forecast for %s: each reads a measured row that none of the %d forecast rows "
            "of %s forecasts", claims_path, gpu, twins, rows_path);
    }
    return bad ? 1 : 0;
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);   /* in order with die()'s messages on stderr */
    const char *mine = NULL, *forecast = NULL, *files[2];
    int wrong = 0, nfiles = 0;
    const ArgFlag flags[] = {{"--mine", ARG_STRING, &mine, 0, 0, "a file of your numbers, one a line"},
                             {"--wrong", ARG_FLAG, &wrong, 0, 0, "each claim under its wrong measurement"},
                             {"--forecast", ARG_STRING, &forecast, 0, 0,
                              "the GPU whose forecast rows to read: t4 for forecast_t4_<key>"},
                             {0}};
    const ArgWords words = {"claims.tsv and rows.tsv", 2, 2, files, &nfiles, 0};
    args_parse("check_answers", USAGE, argc, argv, flags, &words);
    if ((mine != NULL) + wrong + (forecast != NULL) > 1)
        die("check_answers: --mine, --wrong and --forecast each ask a question of their own; give one of them");
    const char *claims_path = files[0], *rows_path = files[1];
    Claim *claims;
    int total = claims_read(claims_path, &claims);
    nrows = rows_read(rows_path, &rows);
    if (nrows == 0) printf("%s has no rows yet: run the days first (make all)\n", rows_path);
    int rc = wrong      ? check_wrong(claims, total, claims_path, rows_path)
             : forecast ? check_forecast(claims, total, claims_path, rows_path, forecast)
                        : check_plain(claims, total, claims_path, rows_path, mine);
    claims_free(claims, total);
    free(rows);
    return rc;
}
