/* claims: the claims file and the expression language of its claims (claims.h). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "claims.h"
#include "util.h"

/* ---- the expression language: a recursive-descent evaluator over one line ---------- */
typedef struct {
    const char *where;              /* the position reached */
    const char *file; int line;     /* for error messages */
    const Row *rows; int nrows;
    ClaimResult r;                  /* why: the first row that was not there, or a side not finite */
    int missing;
} Expr;

static void fail(Expr *e, const char *what) {
    die("%s line %d: %s %s%.20s%s; see the grammar in common/claims.h", e->file, e->line, what,
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
        if (end == e->where) fail(e, "expected a number");
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
    const char *start = e->where + strspn(e->where, " \t");
    double a = sum(e);
    /* two-character operators first, so "<=" is not read as "<" */
    static const char *const ops[] = {"<=", ">=", "==", "!=", "<", ">"};
    int op = -1;
    for (int i = 0; i < 6 && op < 0; i++)
        if (eat(e, ops[i])) op = i;
    if (op < 0) fail(e, "expected a comparison (< <= > >= == !=)");
    double b = sum(e);
    if (!isfinite(a) || !isfinite(b)) {   /* inf == 5 would hold within any relative tolerance */
        if (!e->r.why[0])
            snprintf(e->r.why, sizeof e->r.why, "the %s side of '%.*s' is %g, not a finite number",
                     isfinite(a) ? "right" : "left", (int)(e->where - start) < 80 ? (int)(e->where - start) : 80,
                     start, isfinite(a) ? b : a);
        return 0;
    }
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
    if (e.missing) e.r.verdict = CLAIM_NOT_RUN;
    else {
        e.r.verdict = ok ? CLAIM_TRUE : CLAIM_FALSE;
        if (ok) e.r.why[0] = 0;
    }
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
