/* median_rows: several runs' rows.tsv into one, each measured value the median of the runs
 * that have it (theory, unit and note from the first run that has the row).
 *
 *   bin/median_rows OUT.tsv runs/rows_1.tsv runs/rows_2.tsv runs/rows_3.tsv
 *
 * make reference uses it: the reference report's numbers are medians over three make all
 * runs, not one lucky or unlucky run. A row present in only some runs is kept with the
 * median of those, and its note says in how many. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report/rows.h"
#include "measure/stats.h"
#include "util.h"

enum { MAX_RUNS = 16 };

int main(int argc, char **argv) {
    if (argc < 3 || argc - 2 > MAX_RUNS) die("usage: %s OUT.tsv RUN1.tsv [RUN2.tsv ...] (1 to %d runs)", argv[0], MAX_RUNS);
    const int runs = argc - 2;
    Row *r[MAX_RUNS];
    int n[MAX_RUNS];
    for (int i = 0; i < runs; i++)
        if ((n[i] = rows_read(argv[i + 2], &r[i])) == 0) die("%s: no rows (is it a rows.tsv of a make all run?)", argv[i + 2]);
    FILE *out = fopen(argv[1], "w");
    if (!out) die("cannot write %s", argv[1]);
    fprintf(out, "day\tkey\ttheory\tmeasured\tunit\tnote\n");
    int written = 0;
    for (int i = 0; i < runs; i++)
        for (int j = 0; j < n[i]; j++) {
            const Row *a = &r[i][j];
            int seen = 0;                    /* written already, from an earlier run */
            for (int p = 0; p < i && !seen; p++)
                for (int q = 0; q < n[p] && !seen; q++) seen = !strcmp(r[p][q].day, a->day) && !strcmp(r[p][q].key, a->key);
            if (seen) continue;
            double v[MAX_RUNS];
            int k = 0;
            for (int p = i; p < runs; p++)
                for (int q = 0; q < n[p]; q++)
                    if (!strcmp(r[p][q].day, a->day) && !strcmp(r[p][q].key, a->key) && !isnan(r[p][q].measured)) {
                        v[k++] = r[p][q].measured;
                        break;
                    }
            char th[32] = "-", me[32] = "-";
            if (!isnan(a->theory)) snprintf(th, sizeof th, "%.9g", a->theory);
            if (k) snprintf(me, sizeof me, "%.9g", median_of(v, k));
            fprintf(out, "%s\t%s\t%s\t%s\t%s\t%s%s\n", a->day, a->key, th, me, a->unit, a->note,
                    k == runs ? "" : k ? " (median of fewer runs)" : "");
            written++;
        }
    if (fclose(out) != 0) die("cannot finish writing %s", argv[1]);
    printf("median_rows: %d rows, medians over %d runs -> %s\n", written, runs, argv[1]);
    for (int i = 0; i < runs; i++) free(r[i]);
    return 0;
}
