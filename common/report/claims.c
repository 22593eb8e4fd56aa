/* claims: the claims file and the expression language of its claims (claims.h). */
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
    const Row *rows; int nrows;
    ClaimResult r;                  /* why: the first row that was not there, or value not finite */
    int missing, invalid;
} Expr;

static void fail(Expr *e, const char *what) {
    die("%s line %d: %s %s%.20s%s; see the grammar in common/report/claims.h", e->file, e->line, what,
        *e->where ? "at \"" : "at the end of the line", e->where, *e->where ? "\"" : "");
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

/* day.key -> its measured (or theory) value; NAN and a note when it is missing. */
static double ref(Expr *e, int theory) {
    skip(e);
    const char *from = e->where;
    char day[16], key[64];
    int n = 0;
    if (sscanf(e->where, "%15[a-z0-9].%63[A-Za-z0-9_]%n", day, key, &n) != 2 || strncmp(day, "day", 3))
        fail(e, "expected day.key (like day09.tpot_ms)");
    e->where += n;
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
    Expr e = {.where = c->expr, .file = file, .line = c->line, .rows = rows, .nrows = nrows};
    int ok = compare(&e);
    while (eat(&e, "and")) ok &= compare(&e);
    skip(&e);
    if (*e.where) fail(&e, "unexpected text");
    e.r.verdict = e.missing ? CLAIM_NOT_RUN : e.invalid || !ok ? CLAIM_FALSE : CLAIM_TRUE;
    return e.r;
}

/* ---- the file -------------------------------------------------------------------------- */
int claims_read(const char *path, Claim **claims) {
    FILE *f = open_regular(path);
    if (!f) die("cannot read %s; it lists the claims (question, expression, sentence)", path);
    char line[2048];
    int lineno = 0, n = 0, cap = 0;
    *claims = NULL;
    while (read_line(f, line, sizeof line, path, &lineno)) {
        if (!*line || line[0] == '#' || strncmp(line, "question\t", 9) == 0) continue;
        char *text = xmalloc(strlen(line) + 1), *fld[3];
        strcpy(text, line);
        int k = 0;
        for (char *p = text; k < 3 && p; k++) {   /* split on the first two tabs */
            fld[k] = p;
            if ((p = strchr(p, '\t'))) *p++ = 0;
        }
        if (k != 3) {
            free(text);
            die("%s line %d is not 'question <TAB> expression <TAB> sentence'", path, lineno);
        }
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            Claim *grown = realloc(*claims, sizeof(Claim) * cap);
            if (!grown) die("out of host memory reading %s", path);
            *claims = grown;
        }
        (*claims)[n++] = (Claim){fld[0], fld[1], fld[2], lineno};
    }
    fclose(f);
    if (!n) die("%s holds no claims; each line is 'question <TAB> expression <TAB> sentence'", path);
    return n;
}

void claims_free(Claim *claims, int n) {
    for (int i = 0; i < n; i++) free((char *)claims[i].question);   /* the line's copy */
    free(claims);
}
