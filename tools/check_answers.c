/* check_answers: every checkable claim of answers/ against the measured rows.
 *
 *   bin/check_answers answers/claims.tsv results/rows.tsv [--mine FILE]
 *
 * claims.tsv holds one claim a line: question <TAB> expression <TAB> sentence. An
 * expression is a tiny language over the rows, e.g.
 *
 *   day07.first_generate_ms >= 2 * day07.warm_generate_ms
 *   day08.matmul_nosync_tflops > theory(day08.matmul_nosync_tflops)
 *   day11.busy_eager_b1_d40 < day11.busy_eager_b1_d0 and day11.busy_eager_b1_d40 < 50
 *
 * day.key is that row's measured value, theory(day.key) its theory column; numbers,
 * + - * / and parentheses; comparisons < <= > >= == != ('==' means equal to 6 significant
 * digits); comparisons joined by 'and'. Each claim prints ✓, ✗, or "not run" when a row it
 * needs is missing (not a pass, not a failure). Exit status 1 when any claim is ✗.
 *
 * --mine FILE: a student's own numbers, one a line, "day10.gemms_per_step = 155" or
 * "gemms_per_step: 155" (text after the number is ignored, # starts a comment). Each is
 * compared with the measured value: within or outside 10% of it. Any outside -> exit 1. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rows.h"
#include "util.h"

#define TOLERANCE 0.10      /* --mine: within 10% of the measured value */

static Row *rows;
static int nrows;

/* The row day.key, or NULL. A missing day matches any day, if only one has the key. */
static const Row *find(const char *day, const char *key, int *ambiguous) {
    const Row *hit = NULL;
    int n = 0;
    for (int i = 0; i < nrows; i++)
        if (strcmp(rows[i].key, key) == 0 && (!*day || strcmp(rows[i].day, day) == 0)) {
            if (!hit) hit = &rows[i];
            n++;
        }
    if (ambiguous) *ambiguous = n > 1;
    return hit;
}

/* ---- the expression language: a recursive-descent evaluator over one line ---------- */
typedef struct {
    const char *s, *where;          /* the text, and the position reached */
    const char *file; int line;     /* for error messages */
    char missing[128];              /* the first row that was not there */
    char used[512];                 /* "day.key=value ..." for the printout */
} Expr;

static void fail(Expr *e, const char *what) {
    die("%s line %d: %s %s%.20s%s; see the grammar at the top of tools/check_answers.c", e->file, e->line, what,
        *e->where ? "at \"" : "at the end of the line", e->where, *e->where ? "\"" : "");
}
static void skip(Expr *e) { while (isspace((unsigned char)*e->where)) e->where++; }
static int eat(Expr *e, const char *tok) {
    skip(e);
    size_t n = strlen(tok);
    if (strncmp(e->where, tok, n) != 0) return 0;
    if (isalpha((unsigned char)tok[0]) && (isalnum((unsigned char)e->where[n]) || e->where[n] == '_'))
        return 0;   /* "and" must not match the start of "android" */
    e->where += n;
    return 1;
}

/* day.key -> its measured (or theory) value; NAN and a note when it is missing. */
static double ref(Expr *e, int theory) {
    skip(e);
    char day[16], key[64];
    int n = 0;
    if (sscanf(e->where, "%15[a-z0-9].%63[A-Za-z0-9_]%n", day, key, &n) != 2 || strncmp(day, "day", 3))
        fail(e, "expected day.key (like day09.tpot_ms)");
    e->where += n;
    const Row *r = find(day, key, NULL);
    double v = !r ? NAN : theory ? r->theory : r->measured;
    if (isnan(v)) {
        if (!*e->missing)
            snprintf(e->missing, sizeof e->missing, "%s.%s %s", day, key,
                     !r ? "is not in the rows" : theory ? "has no theory value" : "was not measured");
        return NAN;
    }
    size_t len = strlen(e->used);
    snprintf(e->used + len, sizeof e->used - len, "%s%s%s.%s%s=%.4g", len ? "  " : "",
             theory ? "theory(" : "", day, key, theory ? ")" : "", v);
    return v;
}

static double sum(Expr *e);
static double atom(Expr *e) {
    skip(e);
    if (eat(e, "(")) {
        double v = sum(e);
        if (!eat(e, ")")) fail(e, "expected ')'");
        return v;
    }
    if (eat(e, "-")) return -atom(e);
    if (eat(e, "theory")) {
        if (!eat(e, "(")) fail(e, "expected '(' after theory");
        double v = ref(e, 1);
        if (!eat(e, ")")) fail(e, "expected ')' after theory(day.key");
        return v;
    }
    if (isdigit((unsigned char)*e->where) || *e->where == '.') {
        char *end;
        double v = strtod(e->where, &end);
        e->where = end;
        return v;
    }
    return ref(e, 0);
}
static double product(Expr *e) {
    double v = atom(e);
    for (;;) {
        if (eat(e, "*")) v *= atom(e);
        else if (eat(e, "/")) v /= atom(e);
        else return v;
    }
}
static double sum(Expr *e) {
    double v = product(e);
    for (;;) {
        if (eat(e, "+")) v += product(e);
        else if (eat(e, "-")) v -= product(e);
        else return v;
    }
}
static int compare(Expr *e) {
    double a = sum(e);
    /* two-character operators first, so "<=" is not read as "<" */
    static const char *const ops[] = {"<=", ">=", "==", "!=", "<", ">"};
    int op = -1;
    for (int i = 0; i < 6 && op < 0; i++)
        if (eat(e, ops[i])) op = i;
    if (op < 0) fail(e, "expected a comparison (< <= > >= == !=)");
    double b = sum(e);
    int eq = fabs(a - b) <= 1e-6 * fmax(fabs(a), fabs(b));
    switch (op) {
    case 0: return a <= b || eq;
    case 1: return a >= b || eq;
    case 2: return eq;
    case 3: return !eq;
    case 4: return a < b && !eq;
    default: return a > b && !eq;
    }
}
/* 1 true, 0 false; e->missing says when it could not be decided. */
static int claim(Expr *e) {
    int ok = compare(e);
    while (eat(e, "and")) ok &= compare(e);
    skip(e);
    if (*e->where) fail(e, "unexpected text");
    return ok;
}

/* ---- the two inputs ------------------------------------------------------------------ */
/* Splits "a\tb\tc" in place; returns the number of fields (at most max). */
static int split_tabs(char *line, char **f, int max) {
    int n = 0;
    for (char *p = line; n < max; ) {
        f[n++] = p;
        p = strchr(p, '\t');
        if (!p) break;
        *p++ = 0;
    }
    return n;
}

static int check_claims(const char *path, int *n_ok, int *n_bad, int *n_not_run) {
    FILE *f = fopen(path, "r");
    if (!f) die("cannot read %s; it lists the claims (question, expression, sentence)", path);
    char line[2048];
    int lineno = 0, total = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\r\n")] = 0;
        if (!*line || line[0] == '#' || strncmp(line, "question\t", 9) == 0) continue;
        char *fld[3];
        if (split_tabs(line, fld, 3) != 3)
            die("%s line %d is not 'question <TAB> expression <TAB> sentence'", path, lineno);
        Expr e = {.s = fld[1], .where = fld[1], .file = path, .line = lineno};
        int ok = claim(&e);
        total++;
        if (*e.missing) {
            char day[16] = "";
            sscanf(e.missing, "%15[a-z0-9]", day);
            printf("- %-3s not run (make %s): %s  %s\n", fld[0], day, e.missing, fld[1]);
            (*n_not_run)++;
        } else {
            printf("%s %-3s %s\n", ok ? "✓" : "✗", fld[0], fld[1]);
            if (*e.used) printf("      %s\n", e.used);
            if (!ok) printf("      claimed: %s\n", fld[2]);
            (*n_ok) += ok;
            (*n_bad) += !ok;
        }
    }
    fclose(f);
    return total;
}

/* "day10.gemms_per_step = 155" or "gemms_per_step: 155"; returns outside-10% count. */
static int check_mine(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) die("cannot read %s (--mine); write one number a line, like 'day10.gemms_per_step = 155'", path);
    char line[512];
    int lineno = 0, within = 0, outside = 0, not_run = 0;
    printf("\nyour numbers against the measured ones (%s), tolerance: within %.0f%% of measured\n",
           path, TOLERANCE * 100);
    while (fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "#\r\n")] = 0;
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
        const Row *r = find(day, key, &ambiguous);
        if (ambiguous) die("%s line %d: several days have %s; write it as day.key", path, lineno, key);
        if (!r || isnan(r->measured)) {
            printf("- %s = %g: not run (no measured %s%s%s yet)\n", key, mine, day, *day ? "." : "", key);
            not_run++;
            continue;
        }
        double m = r->measured;
        int ok = m == 0 ? mine == 0 : fabs(mine - m) <= TOLERANCE * fabs(m);
        printf("%s %s.%s = %g, measured %.4g %s: %s 10%%\n", ok ? "✓" : "✗", r->day, r->key,
               mine, m, r->unit, ok ? "within" : "outside");
        within += ok;
        outside += !ok;
    }
    fclose(f);
    printf("mine=%d within=%d outside=%d not_run=%d\n", within + outside + not_run, within, outside, not_run);
    return outside;
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);   /* in order with die()'s messages on stderr */
    const char *mine = NULL;
    if (argc == 5 && strcmp(argv[3], "--mine") == 0) mine = argv[4];
    else if (argc != 3)
        die("usage: %s answers/claims.tsv results/rows.tsv [--mine FILE]", argv[0]);
    nrows = rows_read(argv[2], &rows);
    if (nrows == 0) printf("%s has no rows yet: run the days first (make all)\n", argv[2]);

    int ok = 0, bad = 0, not_run = 0;
    for (int i = 0; i < nrows; i++)    /* a time under its floor fails the run, whatever the claims say */
        if (strncmp(rows[i].note, ROW_IMPOSSIBLE, strlen(ROW_IMPOSSIBLE)) == 0) {
            printf("✗ %s.%s = %.4g %s: a measurement error, not a result (%s)\n", rows[i].day, rows[i].key,
                   rows[i].measured, rows[i].unit, rows[i].note);
            bad++;
        }
    int total = check_claims(argv[1], &ok, &bad, &not_run);
    printf("claims=%d ok=%d failed=%d not_run=%d%s\n", total, ok, bad, not_run,
           not_run ? "  (not run is not a pass: run the days named above)" : "");
    int outside = mine ? check_mine(mine) : 0;
    free(rows);
    return bad || outside ? 1 : 0;
}
