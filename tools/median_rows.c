/* median_rows: several runs' rows.tsv into one, each row the one written by the run whose
 * measured value is the median of the runs that measured it.
 *
 *   bin/median_rows OUT.tsv runs/rows_1.tsv runs/rows_2.tsv runs/rows_3.tsv
 *
 * make reference uses it: the reference report's numbers are medians over three make all
 * runs, not one lucky or unlucky run. The whole row comes from the median run, its theory
 * and note too, because a note often speaks of its own value ("+7.6% over theory"): beside
 * another run's value it would say what no run measured. With an even count of runs the
 * median is the lower of the two middle values, for the same reason: a value some run
 * measured, never an average of two. A row present (or measured) in only some runs is kept,
 * the median of those, and its note says in how many.
 *
 * The runs must agree on what they measured: a key in two units (two builds of the kit
 * mixed) or a key twice in one run (not a rows.tsv that rows_write wrote) is an error. The
 * output is a rows.tsv its readers take: the note is cut to fit rows.tsv's 255 bytes with
 * its "(median of ...)" kept, and infinite values stay "inf" (a median of inf is inf). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "args.h"
#include "report/rows.h"
#include "util.h"

#define MAX_RUNS 16

typedef struct { double value; int run; } Measured;

/* by value, ties by run: the same median run whatever qsort's order */
static int by_value(const void *pa, const void *pb) {
    const Measured *a = pa, *b = pb;
    if (a->value != b->value) return a->value < b->value ? -1 : 1;
    return a->run - b->run;
}

/* note + suffix into dst (cap bytes with its NUL), the note cut first, at a UTF-8 character
 * boundary, so the suffix always fits whole */
static void note_with(char *dst, size_t cap, const char *note, const char *suffix) {
    size_t room = cap - 1 - strlen(suffix), len = strlen(note);
    if (len > room) {
        len = room;
        while (len > 0 && ((unsigned char)note[len] & 0xC0) == 0x80) len--;   /* not inside a character */
    }
    snprintf(dst, cap, "%.*s%s", (int)len, note, suffix);
}

#define STR_(x) #x
#define STR(x) STR_(x)   /* MAX_RUNS as text */
static const char USAGE[] =
    "usage: bin/median_rows OUT.tsv RUN1.tsv [RUN2.tsv ...]\n"
    "  Writes OUT.tsv: each row the one of the run whose measured value is the median of the runs'\n"
    "  (1 to " STR(MAX_RUNS) " runs' rows.tsv); make reference uses it.\n";

int main(int argc, char **argv) {
    const char *files[1 + MAX_RUNS];
    int nfiles = 0;
    const ArgWords words = {"OUT.tsv and 1 to " STR(MAX_RUNS) " RUN.tsv", 2, 1 + MAX_RUNS, files, &nfiles, 0};
    args_parse("median_rows", USAGE, argc, argv, NULL, &words);
    const char *out_path = files[0], **run_path = files + 1;
    const int runs = nfiles - 1;
    Row *r[MAX_RUNS];
    int n[MAX_RUNS];
    for (int i = 0; i < runs; i++) {
        if ((n[i] = rows_read(run_path[i], &r[i])) == 0) die("%s: no rows (is it a rows.tsv of a make all run?)", run_path[i]);
        for (int j = 0; j < n[i]; j++) {
            int twice;
            rows_find(r[i], n[i], r[i][j].day, r[i][j].key, &twice);
            if (twice)
                die("%s holds %s.%s twice, and a run measures each key once; use the rows.tsv of one make all run "
                    "(results/rows.tsv), or delete one of the two lines", run_path[i], r[i][j].day, r[i][j].key);
        }
    }
    FILE *out = fopen(out_path, "w");
    if (!out) die("cannot write %s; check that its folder exists and is writable", out_path);
    fprintf(out, "day\tkey\ttheory\tmeasured\tunit\tnote\n");
    int written = 0;
    for (int i = 0; i < runs; i++)
        for (int j = 0; j < n[i]; j++) {
            const Row *a = &r[i][j];
            int seen = 0;                    /* written already, from an earlier run */
            for (int p = 0; p < i && !seen; p++) seen = rows_find(r[p], n[p], a->day, a->key, NULL) != NULL;
            if (seen) continue;
            Measured m[MAX_RUNS];
            int k = 0;
            for (int p = i; p < runs; p++) {
                const Row *b = rows_find(r[p], n[p], a->day, a->key, NULL);
                if (!b) continue;
                if (strcmp(b->unit, a->unit))
                    die("%s.%s is in '%s' in %s but in '%s' in %s: a median needs one unit; use runs of one build "
                        "of the kit", a->day, a->key, a->unit, run_path[i], b->unit, run_path[p]);
                if (!isnan(b->measured)) m[k++] = (Measured){b->measured, p};
            }
            const Row *pick = a;             /* measured by no run: the first run's row as it is */
            if (k) {
                qsort(m, k, sizeof *m, by_value);
                const int median_run = m[(k - 1) / 2].run;
                pick = rows_find(r[median_run], n[median_run], a->day, a->key, NULL);
            }
            char th[32] = "-", me[32] = "-", suffix[48] = "", note[sizeof pick->note];
            if (!isnan(pick->theory)) snprintf(th, sizeof th, "%.9g", pick->theory);
            if (!isnan(pick->measured)) snprintf(me, sizeof me, "%.9g", pick->measured);
            if (k && k < runs) snprintf(suffix, sizeof suffix, " (median of %d of %d runs)", k, runs);
            note_with(note, sizeof note, pick->note, *pick->note ? suffix : suffix + (*suffix == ' '));
            fprintf(out, "%s\t%s\t%s\t%s\t%s\t%s\n", a->day, a->key, th, me, a->unit, note);
            written++;
        }
    if (fclose(out) != 0) die("cannot finish writing %s; check that its disk is not full", out_path);
    printf("median_rows: %d rows, medians over %d runs -> %s\n", written, runs, out_path);
    for (int i = 0; i < runs; i++) free(r[i]);
    return 0;
}
