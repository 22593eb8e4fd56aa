/* rows.tsv: a day's first write drops its earlier rows and keeps the other days' in their
 * order; a repeated key replaces its row; NAN theory is "-"; rows_read/rows_find read it
 * back; a broken file is one clear error; rows_print's line; what rows_quiet, rows_headlines
 * and detail print (a day's default and its --verbose). KIT_RESULTS points at a fresh temp
 * folder. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"
#include "report/rows.h"

static char *slurp(const char *path) {
    static char buf[8192];
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    buf[n] = 0;
    if (f) fclose(f);
    return buf;
}

static void print_two(void) {
    rows_print("tpot_ms", 0.4613, 9.87654, "ms", "eager b1");
    rows_print("busy_eager_b1_d0", NAN, 55, "%", NULL);
    rows_print("gemms_per_step", 155, 155, "count", "a\tb");
}
static void floored_two(void) {
    rows_tag("emulated T4 path on X: timings are that GPU's");
    report_floored("dayx", "t_ok", 0.5, 1.0, "ms", "fine");
    printf("exit=%d\n", rows_exit_code());
    report_floored("dayx", "t_bad", 0.5, 0.2, "ms", "under");
    printf("exit=%d\n", rows_exit_code());
}
/* A day's default: quiet, a headline printed, a detail and the other rows not; an impossible
 * row's error line whatever the quiet; then --verbose's, everything. */
static void quiet_day(void) {
    static const char *const HEADLINES[] = {"answer", "floored", NULL};
    rows_headlines(HEADLINES);
    for (int verbose = 0; verbose < 2; verbose++) {
        rows_quiet(!verbose);
        printf("verbose=%d\n", verbose);
        report("dayq", "answer", NAN, 42, "ms", NULL);
        report("dayq", "other", NAN, 7, "ms", NULL);
        report_floored("dayq", "floored", 0.5, 0.1, "ms", NULL);
        report_floored("dayq", "quiet_floored", 0.5, 0.1, "ms", NULL);
        detail("a detail %d\n", 3);
    }
}
/* Runs fn in a child with stdout into a pipe; what it printed lands in buf. */
static void capture(void (*fn)(void), char *buf, size_t cap) {
    int fd[2];
    fflush(stdout);
    if (pipe(fd) != 0) { buf[0] = 0; return; }
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        fn();
        fflush(stdout);
        _exit(0);
    }
    close(fd[1]);
    size_t n = 0;
    for (ssize_t got; n < cap - 1 && (got = read(fd[0], buf + n, cap - 1 - n)) > 0;) n += (size_t)got;
    buf[n] = 0;
    close(fd[0]);
    waitpid(pid, NULL, 0);
}

int main(void) {
    char tmp[] = "/tmp/kit_rows_XXXXXX", dir[256], path[300];
    if (!mkdtemp(tmp)) { printf("cannot make a temp folder\n"); return 1; }
    snprintf(dir, sizeof dir, "%s/nested/results", tmp);      /* created on the first write */
    setenv("KIT_RESULTS", dir, 1);
    snprintf(path, sizeof path, "%s/rows.tsv", dir);
    CHECK(strcmp(results_dir(), dir) == 0, "results_dir follows KIT_RESULTS");

    Row *rows;
    CHECK(rows_read(path, &rows) == 0, "no file: no rows");
    free(rows);

    /* a first run of day07 and day08 */
    rows_write("day07", "load_ms", NAN, 812.5, "ms", "");
    rows_write("day08", "time_events_ms", 1.0, 1.25, "ms", "old");
    rows_write("day07", "weight_gb", 2.2, 2.25, "GB", "fp16");
    CHECK(strcmp(slurp(path), "day\tkey\ttheory\tmeasured\tunit\tnote\n"
                              "day07\tload_ms\t-\t812.5\tms\t\n"
                              "day08\ttime_events_ms\t1\t1.25\tms\told\n"
                              "day07\tweight_gb\t2.2\t2.25\tGB\tfp16\n") == 0, "file: %s", slurp(path));

    /* a second write of a key in the same run replaces it in place */
    rows_write("day07", "load_ms", NAN, 700, "ms", "again");
    int n = rows_read(path, &rows);
    CHECK(n == 3 && strcmp(rows[0].key, "load_ms") == 0 && rows[0].measured == 700 && isnan(rows[0].theory) &&
          strcmp(rows[0].note, "again") == 0, "repeated key replaced: %d rows, %s %g", n, rows[0].key, rows[0].measured);
    free(rows);

    /* "the next run" of day08: forget that this process wrote day08 by hand-writing a file
     * as another process would have left it, then write day09 and day08 from here */
    FILE *f = fopen(path, "w");
    fputs("day\tkey\ttheory\tmeasured\tunit\tnote\n"
          "day07\tload_ms\t-\t700\tms\tagain\n"
          "day10\tkernels_per_step\t-\t400\tcount\t\n"
          "day11\tbusy_eager_b1_d0\t-\t55\t%\t\n"
          "day10\tgemms_per_step\t155\t155\tcount\tall linear\n"
          "day12x\tstale\t1\t2\tx\t\n", f);
    fclose(f);
    report("day10", "gemms_per_step", 155, 156, "count", "one\textra\nline");
    report("day10", "top1_share", NAN, 61.5, "%", "gemv -> linear");
    n = rows_read(path, &rows);
    CHECK(n == 5, "5 rows after day10's rerun, got %d", n);
    CHECK(n == 5 && strcmp(rows[0].day, "day07") == 0 && strcmp(rows[1].day, "day11") == 0 &&
          strcmp(rows[2].day, "day12x") == 0, "other days kept, in order");
    CHECK(n == 5 && strcmp(rows[3].key, "gemms_per_step") == 0 && rows[3].measured == 156 &&
          strcmp(rows[4].key, "top1_share") == 0, "day10's old rows gone, new ones at the end");
    CHECK(n == 5 && strcmp(rows[3].note, "one extra line") == 0, "tabs/newlines in notes become spaces: '%s'", rows[3].note);
    const Row *r = rows_find(rows, n, NULL, "top1_share", NULL);
    CHECK(r && isnan(r->theory) && r->measured == 61.5 && strcmp(r->unit, "%") == 0, "rows_find + NAN theory");
    CHECK(rows_find(rows, n, NULL, "kernels_per_step", NULL) == NULL && rows_find(rows, n, "", "nope", NULL) == NULL, "rows_find misses");
    free(rows);

    /* precision survives the file */
    rows_write("day09", "tpot_ms", 0.4613377, 1.23456789012, "ms", "");
    n = rows_read(path, &rows);
    r = rows_find(rows, n, NULL, "tpot_ms", NULL);
    CHECK(r && fabs(r->measured - 1.23456789012) < 1e-8 && fabs(r->theory - 0.4613377) < 1e-9, "9 digits kept");
    free(rows);

    /* no temp files left behind */
    DIR *d = opendir(dir);
    int files = 0;
    for (struct dirent *e; d && (e = readdir(d));) files += e->d_name[0] != '.';
    if (d) closedir(d);
    CHECK(files == 1, "only rows.tsv in the folder, found %d files", files);

    /* rows_print: one greppable line, read from a child's stdout */
    char out[512];
    capture(print_two, out, sizeof out);
    CHECK(strcmp(out, "tpot_ms=9.877 unit=ms theory=0.4613 note=\"eager b1\"\n"
                      "busy_eager_b1_d0=55 unit=% theory=-\n"
                      "gemms_per_step=155 unit=count theory=155 note=\"a b\"\n") == 0, "rows_print: %s", out);

    /* report_floored: a time at or over its floor is an ordinary row; one under it is
     * marked IMPOSSIBLE, said in an error line, and turns the exit code to 1; rows_tag
     * ends every later note with the tag */
    char out2[2048];
    capture(floored_two, out2, sizeof out2);
    CHECK(strstr(out2, "t_ok=1 unit=ms theory=0.5 note=\"fine; emulated T4") && strstr(out2, "exit=0\n") &&
          strstr(out2, "error: t_bad=0.2 ms is below its floor of 0.5 ms") && strstr(out2, "exit=1\n"),
          "report_floored's lines: %s", out2);
    /* rows_quiet and rows_headlines: what a day prints by default and under --verbose */
    char out3[4096];
    capture(quiet_day, out3, sizeof out3);
    char *v1 = strstr(out3, "verbose=1\n"), quiet[4096] = "";
    if (v1) snprintf(quiet, sizeof quiet, "%.*s", (int)(v1 - out3), out3);
    const char *first = "verbose=0\nanswer=42 unit=ms theory=-\n";
    CHECK(v1 && !strncmp(quiet, first, strlen(first)), "quiet: the headline first: %s", out3);
    CHECK(v1 && strstr(quiet, "\nfloored=0.1 ") && strstr(quiet, "error: floored=0.1 ms is below its floor") &&
          strstr(quiet, "error: quiet_floored=0.1 ms is below its floor"),
          "quiet: a floored headline, and every impossible row's error line: %s", out3);
    CHECK(v1 && !strstr(quiet, "other=") && !strstr(quiet, "\nquiet_floored=") && !strstr(quiet, "a detail"),
          "quiet: no other row, no detail: %s", out3);
    CHECK(v1 && strstr(v1, "\nanswer=42 ") && strstr(v1, "\nother=7 ") && strstr(v1, "\nquiet_floored=0.1 ") &&
          strstr(v1, "\na detail 3\n"), "verbose: every row and the detail: %s", out3);
    Row *fr;
    int fn = rows_read(path, &fr);
    const Row *ok_row = rows_find(fr, fn, NULL, "t_ok", NULL), *bad_row = rows_find(fr, fn, NULL, "t_bad", NULL);
    CHECK(ok_row && !strncmp(ok_row->note, "fine; emulated T4 path on X: timings", 36), "the tag ends the note: %s",
          ok_row ? ok_row->note : "(no row)");
    CHECK(bad_row && !strncmp(bad_row->note, ROW_IMPOSSIBLE ": below its floor (0.5 ms); under", 42) &&
          strstr(bad_row->note, "; emulated T4 path on X: timings are that GPU's"), "the impossible row's note: %s",
          bad_row ? bad_row->note : "(no row)");
    free(fr);


    /* a day, a key: rows_find picks the day, or says that several days have the key */
    f = fopen(path, "w");
    fputs("day\tkey\ttheory\tmeasured\tunit\tnote\n"
          "day09\tratio\t1\tinf\tx\t\n"
          "day11\tratio\t-inf\t2\tx\t\n", f);
    fclose(f);
    n = rows_read(path, &rows);
    int amb = 0;
    r = rows_find(rows, n, "day11", "ratio", &amb);
    CHECK(r == &rows[1] && !amb, "rows_find by day and key");
    CHECK(rows_find(rows, n, NULL, "ratio", &amb) == &rows[0] && amb, "any day: the first, and ambiguous");
    CHECK(n == 2 && isinf(rows[0].measured) && rows[0].measured > 0 && isinf(rows[1].theory) && rows[1].theory < 0,
          "inf and -inf are read as measured (a reader marks them invalid)");
    free(rows);

    /* a broken file: one sentence and exit 1, not a crash, a silent zero or a cut field */
    const char *broken[] = {
        "day07\tload_ms\tabc\n",                                           /* too few fields */
        "day07\tload_ms\t-\tnan\tms\t\n",                                   /* nan is not "-" */
        "day07\tload_ms\tx1\t2\tms\t\n",                                    /* not a number */
        "day07\tkey_of_64_characters_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\t1\t2\tms\t\n",
        "day_of_16_chars_\tload_ms\t1\t2\tms\t\n",
        "\tload_ms\t1\t2\tms\t\n",                                           /* no day */
        "day07\t\t1\t2\tms\t\n",                                             /* no key */
    };
    for (int b = 0; b < 7; b++) {
        f = fopen(path, "w");
        fprintf(f, "day\tkey\ttheory\tmeasured\tunit\tnote\n%s", broken[b]);
        fclose(f);
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            if (!freopen("/dev/null", "w", stderr)) _exit(2);
            rows_read(path, &rows);
            _exit(0);
        }
        int status = 0;
        waitpid(pid, &status, 0);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 1, "broken rows.tsv %d exits 1 (status %d)", b, status);
    }

    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
    if (system(cmd) != 0) printf("could not remove %s\n", tmp);
    return check_done("test_rows");
}
