/* claims: the claims file, the expression language of its claims, their wrong measurements
 * and the forecast rows they can be read on (claims.h). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report/claims.h"
#include "util.h"

/* ---- the expression language: a recursive-descent evaluator over one line ---------- */
typedef struct {
    const char *where;              /* the position reached */
    const char *file; int line;     /* for error messages */
    const char *part;               /* "" in the claim, ", wrong measurement" in its edits */
    const Row *rows; int nrows;
    ClaimResult r;                  /* why: the first row that was not there, or value not finite */
    int missing, invalid;
} Expr;

static void fail(Expr *e, const char *what) {
    die("%s line %d%s: %s %s%.20s%s; see the grammar in common/report/claims.h", e->file, e->line, e->part,
        what, *e->where ? "at \"" : "at the end of the line", e->where, *e->where ? "\"" : "");
}
static void skip(Expr *e) { while (isspace((unsigned char)*e->where)) e->where++; }

/* v, noting the first value that is not a finite number (a row measured inf, 1e999, a division
 * by zero: what the text from..here gives) as the reason the claim is false. Infinity equals
 * nothing and bounds nothing, and 1 / inf = 0 must not hide it either. */
static double checked(Expr *e, double v, const char *from) {
    if (!isfinite(v) && !e->missing && !e->invalid) {
        int n = (int)(e->where - from);
        while (n > 0 && isspace((unsigned char)from[n - 1])) n--;
        snprintf(e->r.why, sizeof e->r.why, "%.*s%s is %g, not a finite number", n < 80 ? n : 80, from,
                 n < 80 ? "" : "...", v);
        e->invalid = 1;
    }
    return v;
}
static int eat(Expr *e, const char *tok) {
    skip(e);
    size_t n = strlen(tok);
    if (strncmp(e->where, tok, n) != 0) return 0;
    if (isalpha((unsigned char)tok[0]) && (isalnum((unsigned char)e->where[n]) || e->where[n] == '_'))
        return 0;   /* "and" must not match the start of "android" */
    e->where += n;
    return 1;
}

/* day.key: a row's name, read into day[16] and key[64] */
static void name(Expr *e, char *day, char *key) {
    skip(e);
    int n = 0;
    if (sscanf(e->where, "%15[a-z0-9].%63[A-Za-z0-9_]%n", day, key, &n) != 2 || strncmp(day, "day", 3))
        fail(e, "expected day.key (like day09.tpot_ms)");
    e->where += n;
}

/* day.key -> its measured (or theory) value; NAN and a note when it is missing. */
static double ref(Expr *e, int theory) {
    skip(e);
    const char *from = e->where;
    char day[16], key[64];
    name(e, day, key);
    const Row *r = rows_find(e->rows, e->nrows, day, key, NULL);
    double v = !r ? NAN : theory ? r->theory : r->measured;
    if (isnan(v)) {
        if (!e->missing)
            snprintf(e->r.why, sizeof e->r.why, "%s.%s %s", day, key,
                     !r ? "is not in the rows" : theory ? "has no theory value" : "was not measured");
        e->missing = 1;
        return NAN;
    }
    size_t len = strlen(e->r.used);
    snprintf(e->r.used + len, sizeof e->r.used - len, "%s%s%s.%s%s=%.4g", len ? "  " : "",
             theory ? "theory(" : "", day, key, theory ? ")" : "", v);
    return checked(e, v, from);
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
        const char *from = e->where;
        char *end;
        double v = strtod(e->where, &end);
        if (end == e->where) fail(e, "expected a number");
        e->where = end;
        return checked(e, v, from);
    }
    return ref(e, 0);
}
static double product(Expr *e) {
    skip(e);
    const char *from = e->where;
    double v = atom(e);
    for (;;) {
        if (eat(e, "*")) v = checked(e, v * atom(e), from);
        else if (eat(e, "/")) v = checked(e, v / atom(e), from);
        else return v;
    }
}
static double sum(Expr *e) {
    skip(e);
    const char *from = e->where;
    double v = product(e);
    for (;;) {
        if (eat(e, "+")) v = checked(e, v + product(e), from);
        else if (eat(e, "-")) v = checked(e, v - product(e), from);
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

ClaimResult claim_eval(const Claim *c, const char *file, const Row *rows, int nrows) {
    Expr e = {.where = c->expr, .file = file, .line = c->line, .part = "", .rows = rows, .nrows = nrows};
    int ok = compare(&e);
    while (eat(&e, "and")) ok &= compare(&e);
    skip(&e);
    if (*e.where) fail(&e, "unexpected text");
    e.r.verdict = e.missing ? CLAIM_NOT_RUN : e.invalid || !ok ? CLAIM_FALSE : CLAIM_TRUE;
    return e.r;
}

/* ---- a claim's wrong measurement: "day.key = arithmetic; ...", the rows edited in order ---- */
int claim_apply_wrong(const Claim *c, const char *file, Row *rows, int nrows, char *why, size_t cap) {
    Expr e = {.where = c->wrong, .file = file, .line = c->line, .part = ", wrong measurement", .rows = rows,
              .nrows = nrows};
    do {
        char day[16], key[64];
        const int theory = eat(&e, "theory");   /* theory(day.key) = ...: the row's theory column */
        if (theory && !eat(&e, "(")) fail(&e, "expected '(' after theory");
        name(&e, day, key);
        if (theory && !eat(&e, ")")) fail(&e, "expected ')' after theory(day.key");
        /* the caller's copy, ours to edit: the Expr reads the same rows, so each right side
         * sees the edits before it */
        Row *r = (Row *)rows_find(rows, nrows, day, key, NULL);
        if (!r)
            die("%s line %d, wrong measurement: it sets %s.%s, which is not in the rows; an edit changes a row "
                "that was measured: spell its day and key as rows.tsv does", file, c->line, day, key);
        if (!eat(&e, "=")) fail(&e, "expected '=' after the day.key an edit sets");
        double v = sum(&e);
        if (!e.missing && !e.invalid) *(theory ? &r->theory : &r->measured) = v;   /* after one fails, the rest only parse */
    } while (eat(&e, ";"));
    skip(&e);
    if (*e.where) fail(&e, "unexpected text");
    snprintf(why, cap, "%s", e.r.why);
    return !e.missing && !e.invalid;
}

/* ---- the forecast: each row with a twin forecast_<gpu>_<key> measured as forecast ------- */
int claims_forecast(Row *rows, int nrows, const char *gpu) {
    const size_t g = strlen(gpu);
    for (int i = 0; i < nrows; i++) rows[i].measured = NAN;   /* no forecast, no value */
    int n = 0;
    for (int i = 0; i < nrows; i++) {
        const char *k = rows[i].key;
        if (strncmp(k, "forecast_", 9) || strncmp(k + 9, gpu, g) || k[9 + g] != '_' || isnan(rows[i].theory)) continue;
        Row *twin = (Row *)rows_find(rows, nrows, rows[i].day, k + 10 + g, NULL);   /* ours: the caller's rows */
        if (!twin) continue;   /* forecast_t4_c_half_...: a variant of the T4, no row's twin */
        n += isnan(twin->measured);
        twin->measured = rows[i].theory;
    }
    return n;
}

/* ---- the file -------------------------------------------------------------------------- */
int claims_read(const char *path, Claim **claims) {
    FILE *f = open_regular(path);
    if (!f) die("cannot read %s; it lists the claims (question, expression, sentence[, wrong, mistake])", path);
    char line[2048];
    int lineno = 0, n = 0, cap = 0;
    *claims = NULL;
    while (read_line(f, line, sizeof line, path, &lineno)) {
        if (!*line || line[0] == '#' || strncmp(line, "question\t", 9) == 0) continue;
        char *text = xmalloc(strlen(line) + 1), *fld[5] = {0};
        strcpy(text, line);
        int k = 0;
        for (char *p = text; p; k++) {   /* split on every tab, counting the fields */
            if (k < 5) fld[k] = p;
            if ((p = strchr(p, '\t'))) *p++ = 0;
        }
        if (k != 3 && k != 5) {
            free(text);
            die("%s line %d is not 'question <TAB> expression <TAB> sentence', optionally followed by "
                "'<TAB> wrong <TAB> mistake' (it has %d fields); see common/report/claims.h", path, lineno, k);
        }
        for (int i = 3; i < k; i++)
            if (!fld[i][strspn(fld[i], " ")]) {
                free(text);
                die("%s line %d: its %s (field %d) is empty; give both the wrong measurement and the mistake, "
                    "or neither (three fields)", path, lineno, i == 3 ? "wrong measurement" : "mistake", i + 1);
            }
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            Claim *grown = realloc(*claims, sizeof(Claim) * cap);
            if (!grown) die("out of host memory reading %s", path);
            *claims = grown;
        }
        (*claims)[n++] = (Claim){fld[0], fld[1], fld[2], fld[3], fld[4], lineno};
    }
    fclose(f);
    if (!n)
        die("%s holds no claims; each line is 'question <TAB> expression <TAB> sentence', optionally followed by "
            "'<TAB> wrong <TAB> mistake'", path);
    return n;
}

void claims_free(Claim *claims, int n) {
    for (int i = 0; i < n; i++) free((char *)claims[i].question);   /* the line's copy */
    free(claims);
}
