/* claims.c beyond the expression (tests/cpu/claims.sh has the language and the checker's
 * output): a claims line of three fields or five, and the forms that are neither; a wrong
 * measurement's edits, applied in order with theory() on the right, stopping at a value that
 * is missing or not finite, and dying at a row that is not there or a grammar error; and
 * the forecast rows, where only a true twin forecast_<gpu>_<key> of the same day stands in
 * for its row. Hand-made rows and claims in a fresh temp folder. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"
#include "report/claims.h"

static char dir[64], claims_path[128], rows_path[128];

static void put(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f)) { printf("cannot write %s\n", path); exit(1); }
}

/* fn in a child, its stderr into err: 1 when it died (exit 1), 0 when it returned */
static int died(void (*fn)(void), char *err, size_t cap) {
    int fd[2];
    fflush(stdout);
    if (pipe(fd)) return -1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], 2);
        close(fd[0]);
        fn();
        _exit(0);
    }
    close(fd[1]);
    size_t n = 0;   /* die() writes its sentence in pieces: read to the end */
    for (ssize_t got; n < cap - 1 && (got = read(fd[0], err + n, cap - 1 - n)) > 0;) n += (size_t)got;
    err[n] = 0;
    close(fd[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) && WEXITSTATUS(st) == 1;
}

static void read_claims(void) {
    Claim *c;
    claims_free(c, claims_read(claims_path, &c));
}

/* the one claim of claims_path, its wrong measurement applied to rows_path's rows */
static Row *rows;
static int nrows;
static char why[192];
static int apply_first(void) {
    Claim *c;
    int n = claims_read(claims_path, &c);
    int ok = n ? claim_apply_wrong(&c[0], claims_path, rows, nrows, why, sizeof why) : -1;
    claims_free(c, n);
    return ok;
}
static void apply_first_void(void) { apply_first(); }
static void wrong_line(const char *wrong) {   /* a claims file of one claim with this wrong field */
    char text[512];
    snprintf(text, sizeof text, "question\tclaim\tsentence\nQ1\tday09.a > 0\tsays so\t%s\tthe mistake\n", wrong);
    put(claims_path, text);
}
static double measured(const char *day, const char *key) {
    const Row *r = rows_find(rows, nrows, day, key, NULL);
    return r ? r->measured : -999;
}

static void test_fields(void) {
    put(claims_path, "# a comment\nquestion\tclaim\tsentence\n\n"
                     "A1\tday09.a > 0\tthree fields\n"
                     "A2 machine\tday09.b > day09.a\tfive fields\tday09.b = day09.a / 2\tthe loop lost its sync\n");
    Claim *c;
    int n = claims_read(claims_path, &c);
    CHECK(n == 2, "two claims, got %d", n);
    CHECK(n == 2 && !strcmp(c[0].question, "A1") && !strcmp(c[0].expr, "day09.a > 0") &&
          !strcmp(c[0].sentence, "three fields") && !c[0].wrong && !c[0].mistake && c[0].line == 4,
          "a line of three: no wrong, no mistake, line 4");
    CHECK(n == 2 && !strcmp(c[1].question, "A2 machine") && !strcmp(c[1].sentence, "five fields") &&
          c[1].wrong && !strcmp(c[1].wrong, "day09.b = day09.a / 2") && c[1].mistake &&
          !strcmp(c[1].mistake, "the loop lost its sync") && c[1].line == 5, "a line of five: its wrong and mistake");
    claims_free(c, n);

    /* neither three fields nor five, or an empty wrong or mistake: one sentence naming the line */
    const struct { const char *line, *says; } bad[] = {
        {"Q1\tday09.a > 0", "line 2 is not 'question <TAB> expression <TAB> sentence', optionally"},
        {"Q1\tday09.a > 0\tsays\tday09.a = 1", "(it has 4 fields)"},
        {"Q1\tday09.a > 0\tsays\t", "(it has 4 fields)"},   /* a tab after the sentence */
        {"Q1\tday09.a > 0\tsays\tday09.a = 1\tmistake\tmore", "(it has 6 fields)"},
        {"Q1\tday09.a > 0\tsays\t\tmistake", "line 2: its wrong measurement (field 4) is empty"},
        {"Q1\tday09.a > 0\tsays\tday09.a = 1\t  ", "line 2: its mistake (field 5) is empty"},
    };
    for (int i = 0; i < (int)(sizeof bad / sizeof bad[0]); i++) {
        char text[256], err[1024];
        snprintf(text, sizeof text, "question\tclaim\tsentence\n%s\n", bad[i].line);
        put(claims_path, text);
        CHECK(died(read_claims, err, sizeof err) && strstr(err, claims_path) && strstr(err, bad[i].says),
              "bad line %d dies naming the file and saying '%s': %s", i, bad[i].says, err);
    }
}

static void test_wrong(void) {
    put(rows_path, "day\tkey\ttheory\tmeasured\tunit\tnote\n"
                   "day09\ta\t-\t1\tx\t\n"
                   "day09\tb\t2\t3\tx\t\n"
                   "day09\tunmeasured\t5\t-\tx\t\n"
                   "day11\ta\t-\t100\tx\t\n");
    nrows = rows_read(rows_path, &rows);

    /* in order, each right side on the rows as edited so far; theory() reads the theory column */
    wrong_line("day09.a = day09.b * 2; day09.b = day09.a + theory(day09.b); day09.unmeasured = (day09.a - 1) / 5");
    CHECK(apply_first() == 1 && !*why, "three edits applied: %s", why);
    CHECK(measured("day09", "a") == 6 && measured("day09", "b") == 8 && measured("day09", "unmeasured") == 1,
          "a = 3 * 2, then b = 6 + 2, then an unmeasured row = 1: %g %g %g", measured("day09", "a"),
          measured("day09", "b"), measured("day09", "unmeasured"));
    CHECK(rows_find(rows, nrows, "day09", "b", NULL)->theory == 2, "an edit leaves the theory column alone");
    wrong_line("day11.a = -day09.a");
    CHECK(apply_first() == 1 && measured("day11", "a") == -6 && measured("day09", "a") == 6, "the day picks the row");
    /* theory(day.key) = ...: a model's figure made the wrong way sets the theory column */
    wrong_line("theory(day09.b) = day09.a / 3; day09.a = theory(day09.b)");
    CHECK(apply_first() == 1 && rows_find(rows, nrows, "day09", "b", NULL)->theory == 2 && measured("day09", "a") == 2 &&
              measured("day09", "b") == 8, "theory(day09.b) = 6 / 3, then a = 2, b's measured value untouched");

    /* a right side that cannot be computed: the edits before it stand, none after it is made */
    const struct { const char *wrong, *why; } stops[] = {
        {"day09.a = 7; day09.b = day09.zz; day09.a = 9", "day09.zz is not in the rows"},
        {"day09.a = 7; day09.b = theory(day09.b) + theory(day11.a); day09.a = 9", "day11.a has no theory value"},
        {"day09.a = 7; day09.b = day09.a / (day09.a - 7); day09.a = 9", "is inf, not a finite number"},
        {"day09.a = 7; day09.b = 1e999; day09.a = 9", "1e999 is inf, not a finite number"},
    };
    for (int i = 0; i < (int)(sizeof stops / sizeof stops[0]); i++) {
        free(rows);
        nrows = rows_read(rows_path, &rows);
        wrong_line(stops[i].wrong);
        CHECK(apply_first() == 0 && strstr(why, stops[i].why), "'%s' is not applied: %s", stops[i].wrong, why);
        CHECK(measured("day09", "a") == 7 && measured("day09", "b") == 3, "'%s': the first edit stands, no later one",
              stops[i].wrong);
    }
    free(rows);
    nrows = rows_read(rows_path, &rows);
    wrong_line("day09.unmeasured = day09.unmeasured + 1");
    CHECK(apply_first() == 0 && strstr(why, "day09.unmeasured was not measured"), "an unmeasured row on the right: %s",
          why);

    /* an edit of a row that is not there, or a grammar error: one sentence naming the line */
    const struct { const char *wrong, *says; } bad[] = {
        {"day09.nope = 1", "line 2, wrong measurement: it sets day09.nope, which is not in the rows"},
        {"day09.a = 1; day10.a = 2", "line 2, wrong measurement: it sets day10.a, which is not in the rows"},
        {"day09.a == 1", "line 2, wrong measurement: expected day.key"},
        {"day09.a = 1;", "line 2, wrong measurement: expected day.key (like day09.tpot_ms) at the end of the line"},
        {"day09.a = 1 < 2", "line 2, wrong measurement: unexpected text at \"< 2\""},
        {"day09.a", "line 2, wrong measurement: expected '=' after the day.key an edit sets"},
        {"a = 1", "line 2, wrong measurement: expected day.key"},
        {"day09.a = 1, day09.b = 2", "line 2, wrong measurement: unexpected text"},
    };
    for (int i = 0; i < (int)(sizeof bad / sizeof bad[0]); i++) {
        char err[1024];
        wrong_line(bad[i].wrong);
        CHECK(died(apply_first_void, err, sizeof err) && strstr(err, claims_path) && strstr(err, bad[i].says),
              "'%s' dies saying '%s': %s", bad[i].wrong, bad[i].says, err);
    }
    free(rows);
}

static void test_forecast(void) {
    put(rows_path, "day\tkey\ttheory\tmeasured\tunit\tnote\n"
                   "day09\ttpot_ms_eager\t0.46\t6\tms\t\n"
                   "day11\ttpot_ms_eager_b1_d14\t0.5\t10\tms\t\n"
                   "day11\tbusy_eager_b1_d14\t-\t30\t%\t\n"
                   "day11\tgpu_ms_per_step_graph_b1_d0\t-\t2\tms\t\n"
                   "day11\tforecast_t4_tpot_ms_eager_b1_d14\t12\t-\tms\t\n"
                   "day11\tforecast_t4_busy_eager_b1_d14\t40\t-\t%\t\n"
                   "day11\tforecast_t4_gpu_ms_per_step_graph_b1_d0\t-\t-\tms\tno theory: no forecast\n"
                   "day11\tforecast_t4_c_half_tpot_ms_eager_b1_d14\t11\t-\tms\ta variant, no row's twin\n"
                   "day11\tforecast_2x_tpot_ms_eager_b1_d14\t5\t-\tms\t\n"
                   "day11\tforecast_t4_tpot_ms_eager\t7\t-\tms\tday09's key, but in day11\n");
    nrows = rows_read(rows_path, &rows);
    int n = claims_forecast(rows, nrows, "t4");
    CHECK(n == 2, "two rows have a T4 twin, got %d", n);
    CHECK(measured("day11", "tpot_ms_eager_b1_d14") == 12 &&
              rows_find(rows, nrows, "day11", "tpot_ms_eager_b1_d14", NULL)->theory == 0.5,
          "a twin's theory becomes its row's measured value; the row's theory stays");
    CHECK(measured("day11", "busy_eager_b1_d14") == 40, "busy too");
    CHECK(isnan(measured("day09", "tpot_ms_eager")), "a twin of the same key in another day is no twin");
    CHECK(isnan(measured("day11", "gpu_ms_per_step_graph_b1_d0")), "a forecast row with no theory forecasts nothing");
    int measured_rows = 0;
    for (int i = 0; i < nrows; i++) measured_rows += !isnan(rows[i].measured);
    CHECK(measured_rows == 2, "every other row unmeasured (the variants and other GPUs too), %d measured",
          measured_rows);

    /* a claim reads the forecast; one that reads a row with no forecast is not run (not forecast) */
    Claim c = {.question = "Q", .line = 1,
               .expr = "day11.tpot_ms_eager_b1_d14 > 20 * theory(day11.tpot_ms_eager_b1_d14)"};
    ClaimResult r = claim_eval(&c, "claims.tsv", rows, nrows);
    CHECK(r.verdict == CLAIM_TRUE &&
              strstr(r.used, "day11.tpot_ms_eager_b1_d14=12  theory(day11.tpot_ms_eager_b1_d14)=0.5"),
          "a forecast claim, theory() from the row: %s", r.used);
    c.expr = "day11.busy_eager_b1_d14 < 50 and day09.tpot_ms_eager < day11.tpot_ms_eager_b1_d14";
    r = claim_eval(&c, "claims.tsv", rows, nrows);
    CHECK(r.verdict == CLAIM_NOT_RUN && !strcmp(r.why, "day09.tpot_ms_eager was not measured"), "not forecast: %s",
          r.why);
    free(rows);

    nrows = rows_read(rows_path, &rows);
    CHECK(claims_forecast(rows, nrows, "2x") == 1 && measured("day11", "tpot_ms_eager_b1_d14") == 5,
          "another GPU's twins");
    free(rows);
    nrows = rows_read(rows_path, &rows);
    CHECK(claims_forecast(rows, nrows, "t") == 0, "a GPU's name is whole: t is not t4");
    free(rows);
}

int main(void) {
    snprintf(dir, sizeof dir, "/tmp/kit_claims_XXXXXX");
    if (!mkdtemp(dir)) { printf("cannot make a temp folder\n"); return 1; }
    snprintf(claims_path, sizeof claims_path, "%s/claims.tsv", dir);
    snprintf(rows_path, sizeof rows_path, "%s/rows.tsv", dir);
    test_fields();
    test_wrong();
    test_forecast();
    remove(claims_path), remove(rows_path), rmdir(dir);
    return check_done("test_claims");
}
