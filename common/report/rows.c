/* rows: results/rows.tsv, the one table every day writes and day12 reads (rows.h). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "gpu/dispatch.h"
#include "report/rows.h"
#include "util.h"

#define HEADER "day\tkey\ttheory\tmeasured\tunit\tnote\n"

const char *results_dir(void) {
    const char *d = getenv("KIT_RESULTS");
    return d && *d ? d : "results";
}

static void mkdir_p(const char *dir) {
    char path[4096];
    snprintf(path, sizeof path, "%s", dir);
    for (char *p = path + 1; ; p++) {
        if (*p == '/' || *p == 0) {
            char c = *p;
            *p = 0;
            if (mkdir(path, 0755) != 0 && errno != EEXIST)
                die("cannot create the results folder %s (%s); set KIT_RESULTS to a writable folder",
                    path, strerror(errno));
            *p = c;
            if (!c) break;
        }
    }
}

const char *results_mkdir(void) {
    mkdir_p(results_dir());
    return results_dir();
}

/* Tabs and newlines would break the table (and any control character a line): they become
 * spaces. */
char *rows_one_line(char *s) {
    for (char *p = s; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f) *p = ' ';
    return s;
}
static void clean(char *dst, size_t cap, const char *src) {
    snprintf(dst, cap, "%s", src ? src : "");
    rows_one_line(dst);
}

static void fmt_num(char *dst, size_t cap, double v, const char *fmt) {
    if (isnan(v)) snprintf(dst, cap, "-");
    else snprintf(dst, cap, fmt, v);
}

/* The days this process has written: their first row drops the earlier run's rows. */
static char days_seen[32][16];
static int n_days_seen;

static int first_write_of(const char *day) {
    for (int i = 0; i < n_days_seen; i++)
        if (strcmp(days_seen[i], day) == 0) return 0;
    if (n_days_seen < 32) snprintf(days_seen[n_days_seen++], 16, "%s", day);
    return 1;
}

static char g_tag[128];
void rows_tag(const char *tag) { snprintf(g_tag, sizeof g_tag, "%s", tag ? tag : ""); }

/* the note as written: the tag at its end, kept whole however long the note (cap > 130) */
static void tagged(char *dst, size_t cap, const char *note) {
    char n[256];
    clean(n, sizeof n, note);
    size_t t = strlen(g_tag);
    if (!t) snprintf(dst, cap, "%s", n);
    else snprintf(dst, cap, "%.*s%s%s", (int)(cap - 3 - t), n, *n ? "; " : "", g_tag);
}

void rows_write(const char *day, const char *key, double theory, double measured,
                const char *unit, const char *note) {
    Row r = {0};
    if (strlen(day) >= sizeof r.day || strlen(key) >= sizeof r.key || strlen(unit) >= sizeof r.unit)
        die("row %s/%s: day, key or unit too long for rows.tsv (%zu, %zu, %zu chars at most)",
            day, key, sizeof r.day - 1, sizeof r.key - 1, sizeof r.unit - 1);
    const char *dir = results_dir();
    mkdir_p(dir);
    char path[4096], tmp[4200];
    snprintf(path, sizeof path, "%s/rows.tsv", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());

    Row *old = NULL;
    int n = rows_read(path, &old);
    int drop_day = first_write_of(day);

    char th[32], me[32], line[512];
    fmt_num(th, sizeof th, theory, "%.9g");
    fmt_num(me, sizeof me, measured, "%.9g");
    tagged(r.note, sizeof r.note, note);
    snprintf(line, sizeof line, "%s\t%s\t%s\t%s\t%s\t%s\n", day, key, th, me, unit, r.note);

    FILE *f = fopen(tmp, "w");
    if (!f) die("cannot write %s (%s); check that %s is writable", tmp, strerror(errno), dir);
    fputs(HEADER, f);
    int replaced = 0;
    for (int i = 0; i < n; i++) {
        int same_day = strcmp(old[i].day, day) == 0;
        if (same_day && drop_day) continue;
        if (same_day && strcmp(old[i].key, key) == 0) {
            if (!replaced) fputs(line, f);   /* a repeated key replaces the earlier row */
            replaced = 1;
            continue;
        }
        fmt_num(th, sizeof th, old[i].theory, "%.9g");
        fmt_num(me, sizeof me, old[i].measured, "%.9g");
        fprintf(f, "%s\t%s\t%s\t%s\t%s\t%s\n", old[i].day, old[i].key, th, me, old[i].unit, old[i].note);
    }
    if (!replaced) fputs(line, f);
    free(old);
    if (fclose(f) != 0 || rename(tmp, path) != 0)
        die("cannot write %s (%s); check that %s is writable", path, strerror(errno), dir);
}

void rows_print(const char *key, double theory, double measured, const char *unit, const char *note) {
    char th[32], clean_note[256];
    fmt_num(th, sizeof th, theory, "%.4g");
    tagged(clean_note, sizeof clean_note, note);
    printf("%s=%.4g unit=%s theory=%s", key, measured, unit, th);
    if (*clean_note) printf(" note=\"%s\"", clean_note);
    printf("\n");
    fflush(stdout);
}

static int g_quiet;
void rows_quiet(int quiet) { g_quiet = quiet; }
static const char *const *g_headlines;
void rows_headlines(const char *const *keys) { g_headlines = keys; }
static int headline(const char *key) {
    for (const char *const *k = g_headlines; k && *k; k++)
        if (!strcmp(*k, key)) return 1;
    return 0;
}

void detail(const char *fmt, ...) {
    if (g_quiet) return;
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
}

void report(const char *day, const char *key, double theory, double measured,
            const char *unit, const char *note) {
    if (!g_quiet || headline(key)) rows_print(key, theory, measured, unit, note);
    rows_write(day, key, theory, measured, unit, note);
}

/* The three numbers a reader needs to place the emulated dispatcher: its median (what
 * --dispatch-us sets, and what rows named _d<N> name), its p90 (the spread), and its mean
 * (launches x mean = the host time it adds to a step). Not measurements of the GPU: what the
 * day drew from, written down so the report and a reader know it. */
void report_dispatch(const char *day, double median_us) {
    const DispatchShape *s = dispatch_shape();
    char note[256];
    if (!(median_us > 0)) {
        report(day, "dispatch_median_us", NAN, 0, "us", "no emulated dispatcher (--dispatch-us 0): the kit's bare C launches");
        return;
    }
    detail("dispatch_source=\"%s\"\n", s->source);
    snprintf(note, sizeof note, "the emulated dispatcher's median busy-wait before each launch (--dispatch-us), drawn "
             "from %s", s->source);
    report(day, "dispatch_median_us", NAN, median_us, "us", note);
    snprintf(note, sizeof note, "p90 of the emulated dispatcher's draws, %.2fx their median (a real PyTorch host's "
             "gaps are a spread)", dispatch_quantile(s, 90));
    report(day, "dispatch_p90_us", NAN, median_us * dispatch_quantile(s, 90), "us", note);
    snprintf(note, sizeof note, "mean of the emulated dispatcher's draws, %.2fx their median: launches x this = the "
             "host time it adds to a step", dispatch_mean(s));
    report(day, "dispatch_mean_us", NAN, median_us * dispatch_mean(s), "us", note);
}

static int g_impossible;
int rows_exit_code(void) { return g_impossible ? 1 : 0; }

void report_floored(const char *day, const char *key, double floor, double measured,
                    const char *unit, const char *note) {
    if (!(floor > 0) || !(measured < floor)) {
        report(day, key, floor, measured, unit, note);
        return;
    }
    g_impossible++;
    char n[256];
    snprintf(n, sizeof n, "%s: below its floor (%.4g %s); %s", ROW_IMPOSSIBLE, floor, unit, note ? note : "");
    report(day, key, floor, measured, unit, n);
    printf("error: %s=%.4g %s is below its floor of %.4g %s (ratio %.2f < 1): no GPU moves its weights faster than "
           "its memory bandwidth, so this is a measurement error, not a result. Check that the kernels ran (a build "
           "for another GPU runs nothing: make clean && make), that the clock stopped after a synchronize, and that "
           "bw_gbs is this GPU's.\n", key, measured, unit, floor, unit, measured / floor);
    fflush(stdout);
}

/* Copies the next tab-separated field of *s into dst and advances; 0 when there is none or
 * it does not fit. */
static int field(char **s, char *dst, size_t cap) {
    if (!*s) return 0;
    char *tab = strchr(*s, '\t');
    size_t n = tab ? (size_t)(tab - *s) : strlen(*s);
    if (n >= cap) return 0;
    snprintf(dst, cap, "%.*s", (int)n, *s);
    *s = tab ? tab + 1 : NULL;
    return 1;
}

/* "-" is NAN (none); a number, inf included (a day may measure one: day12 and the checker
 * mark it invalid); "nan" is not a value, "-" says none. */
static int number(const char *s, double *v) {
    if (strcmp(s, "-") == 0) { *v = NAN; return 1; }
    char *end;
    *v = strtod(s, &end);
    return end != s && *end == 0 && !isnan(*v);
}

int rows_read(const char *path, Row **rows) {
    *rows = NULL;
    FILE *f = open_regular(path);
    if (!f) return 0;
    int n = 0, cap = 0, lineno = 0;
    char line[2048];
    while (read_line(f, line, sizeof line, path, &lineno)) {
        if (!*line || strncmp(line, "day\t", 4) == 0) continue;
        Row r = {0};
        char th[64], me[64], *s = line;
        if (!(field(&s, r.day, sizeof r.day) && field(&s, r.key, sizeof r.key) &&
              field(&s, th, sizeof th) && field(&s, me, sizeof me) &&
              field(&s, r.unit, sizeof r.unit) && field(&s, r.note, sizeof r.note)) ||
            !*r.day || !*r.key || !number(th, &r.theory) || !number(me, &r.measured))
            die("%s line %d is not 'day key theory measured unit note' (tab-separated; numbers or -; "
                "a day of 1 to 15 characters, a key of 1 to 63, a unit of 15 at most, a note of 255); "
                "delete the file and rerun the days", path, lineno);
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            Row *grown = realloc(*rows, sizeof(Row) * cap);
            if (!grown) die("out of memory reading %s", path);
            *rows = grown;
        }
        (*rows)[n++] = r;
    }
    fclose(f);
    return n;
}

const Row *rows_find(const Row *rows, int n, const char *day, const char *key, int *ambiguous) {
    const Row *hit = NULL;
    int count = 0;
    for (int i = 0; i < n; i++)
        if (strcmp(rows[i].key, key) == 0 && (!day || !*day || strcmp(rows[i].day, day) == 0)) {
            if (!hit) hit = &rows[i];
            count++;
        }
    if (ambiguous) *ambiguous = count > 1;
    return hit;
}
