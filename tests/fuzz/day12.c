/* fuzz target: day12's page (day12_report/report.c, report_write) and its charts
 * (common/report/chart.c) from a rows.tsv and a gaps file: the input is the rows, a line "%%", then
 * results/gaps_eager_b1_d0.tsv. Invariant:
 * REPORT.md holds no "nan" or "inf" but in "invalid (inf)" (a measurement that is not finite),
 * unless the input's own text (a note, a key) brought the word in. */
#include <ctype.h>
#include <string.h>
#include "report.h"
#include "fuzz.h"
#include "report/rows.h"
#include "util.h"

/* The PNG encoder (libstb) took 85% of the time and is not the kit's code: this target links
 * its own stbi_write_png, which the executable's definition puts before the library's. It
 * reads every pixel (ASan checks the canvas's bounds) and writes a small file in its place. */
int stbi_write_png(const char *path, int w, int h, int comp, const void *data, int stride) {
    FUZZ_ASSERT(w > 0 && h > 0 && comp == 3 && stride == 3 * w && data, "a PNG of %d x %d x %d", w, h, comp);
    unsigned sum = 0;
    for (long i = 0; i < (long)h * stride; i++) sum += ((const unsigned char *)data)[i];
    FILE *f = fopen(path, "w");
    if (!f) return 0;
    fprintf(f, "%d x %d, sum %u\n", w, h, sum);
    return fclose(f) == 0;
}

/* A whole word "nan" or "inf", in any case, not inside "invalid (inf)" or "invalid (-inf)". */
static int has_nan_or_inf(const char *s) {
    for (const char *p = s; *p; p++) {
        if (strncasecmp(p, "nan", 3) && strncasecmp(p, "inf", 3)) continue;
        int starts = p == s || !isalnum((unsigned char)p[-1]), ends = !isalnum((unsigned char)p[3]);
        int invalid = (p - s >= 9 && !strncmp(p - 9, "invalid (", 9)) || (p - s >= 10 && !strncmp(p - 10, "invalid (-", 10));
        if (starts && ends && !invalid) return 1;
    }
    return 0;
}

static void page(void *unused) {
    report_write(fuzz_dir());
    Row *rows;
    int n = rows_read(fuzz_path("rows.tsv"), &rows), words = 0;
    for (int i = 0; i < n; i++)
        words |= has_nan_or_inf(rows[i].day) | has_nan_or_inf(rows[i].key) | has_nan_or_inf(rows[i].unit) |
                 has_nan_or_inf(rows[i].note);
    free(rows);
    char *md = read_file(fuzz_path("REPORT.md"), NULL);
    FUZZ_ASSERT(md, "no REPORT.md");
    FUZZ_ASSERT(words || !has_nan_or_inf(md), "REPORT.md shows nan or inf outside 'invalid (inf)'");
    free(md);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n) {
    fuzz_write_two(data, n, "rows.tsv", "gaps_eager_b1_d0.tsv");
    remove(fuzz_path("REPORT.md"));
    fuzz_try(page, NULL);
    return 0;
}
