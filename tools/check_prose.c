/* check_prose: every number the kit's prose quotes from its measurements, held against the
 * reference runs.
 *
 *   bin/check_prose [--fix] [--ref answers/reference] FILE...
 *
 * The prose is what a student reads: the essay at the top of each day's source (its first
 * block comment), answers/README.md, README.md, and a notebook's markdown cells (where a
 * notebook's failures name its cell, 1-based, in place of a line). A number in it either quotes a row of the kit,
 * in DESIGN.md's form
 *
 *     `key` 0.83-0.85 ms (H200)          the measured column, every reference run within
 *     `key`'s theory 1.58-1.60 ms (H200) the theory column (also used where a row has no
 *                                        measured value, as forecast rows do: "(H200 runs)")
 *
 * (a single value, or a range with "-" or an en dash; the unit is optional; the GPU in
 * parentheses may come later in the same sentence, shared by the quotes before it), or says
 * where it comes from: within the sentence before it (at most MARK_BACK characters) or in a
 * parenthesis right after it, one of the words in MARKS ("the lesson: 15-30 ms", "datasheet:
 * 320 GB/s", "71-87 tok/s (published)"). A number with a unit (UNITS) that is neither fails.
 *
 * A quote fails when its row is in none of the runs made on the GPU it names, or when any
 * such run's value lies outside the quoted range widened by half the last printed digit
 * ("0.83-0.85" holds 0.825 to 0.855). A quote naming a GPU no reference run was made on is
 * reported and passes: an instructor's A100 quote does not break make test on the kit's runs.
 * The runs are FILE's --ref folder's runs/rows_*.tsv (the GPU of each from its day07 gpu row)
 * with pytorch/rows.tsv, the PyTorch run on the same machine, added to each.
 *
 * Prints each failure as file:line: what, then quotes=N ok=N failed=N unmarked=N reported=N;
 * exit 1 on any failure or unmarked number, or when no quote was checked at all.
 *
 * --fix (after make reference moved the rows): rewrites each quote that a run now lies outside
 * to the runs' range, at the quote's own precision, and says so on its line. It changes the
 * numbers only: read the sentence around each, whose words may no longer hold. */
#include <ctype.h>
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"
#include "report/notebook.h"
#include "report/rows.h"

enum { MAX_RUNS = 16, MARK_BACK = 120, MARK_AHEAD = 40, GPU_AHEAD = 400 };

/* Words that say a number is not the kit's measurement (case-insensitive). */
static const char *MARKS[] = {"lesson", "datasheet", "published", "fixture", "seed 0", "assum", "default",
                              "quiz", "nominal", "bar ", "bars", "threshold", "setting", "set to", "e.g.",
                              "for example", "cap", "limit", "budget", "target", "pytorch's trace", NULL};
/* Units a number may carry, longest first where one begins another. */
static const char *UNITS[] = {"TFLOP/s", "tok/s", "GB/s", "TB/s", "kernels", "GB", "MB", "KB", "ms", "µs", "us",
                              "%", "×", "x", "s", NULL};

typedef struct {
    char gpu[32];
    Row *rows;
    int n;
} Run;
static Run g_runs[MAX_RUNS];
static int g_nruns;
static int g_quotes, g_ok, g_failed, g_unmarked, g_reported, g_fix, g_fixed;

/* --fix: a stale quote's numbers rewritten to the runs' range, applied to the file at its end */
typedef struct { int from, to; char with[64]; } Edit;
static Edit g_edits[1024];
static int g_nedits;

/* lo-hi at the quote's own precision (one value where they round alike), in its dash */
static void requote(char *out, size_t cap, double lo, double hi, double half, const char *dash, int md) {
    const int d = (int)lround(-log10(2 * half));
    char a[32], b[32];
    snprintf(a, sizeof a, "%.*f", d > 0 ? d : 0, lo);
    snprintf(b, sizeof b, "%.*f", d > 0 ? d : 0, hi);
    if (!strcmp(a, b)) snprintf(out, cap, "%s", a);
    else snprintf(out, cap, "%s%s%s", a, dash ? dash : lo < 0 ? " to " : md ? "\xe2\x80\x93" : "-", b);
}

/* "NVIDIA H200, driver ..." -> "H200"; "Tesla T4" -> "T4"; "NVIDIA A100-SXM4-80GB" -> "A100" */
static void short_gpu(const char *note, char *out, size_t cap) {
    static const char *VENDOR[] = {"NVIDIA ", "Tesla ", "GeForce ", "Quadro ", NULL};
    for (int again = 1; again;) {
        again = 0;
        for (int i = 0; VENDOR[i]; i++)
            if (!strncmp(note, VENDOR[i], strlen(VENDOR[i]))) note += strlen(VENDOR[i]), again = 1;
    }
    size_t n = strcspn(note, " ,-");
    if (n >= cap) n = cap - 1;
    memcpy(out, note, n);
    out[n] = 0;
}

static void load_runs(const char *ref) {
    char pat[1024], pyt[1024];
    snprintf(pat, sizeof pat, "%s/runs/rows_*.tsv", ref);
    snprintf(pyt, sizeof pyt, "%s/pytorch/rows.tsv", ref);
    Row *py = NULL;
    const int npy = file_exists(pyt) ? rows_read(pyt, &py) : 0;
    glob_t gl;
    if (glob(pat, 0, NULL, &gl) != 0 || gl.gl_pathc == 0)
        die("check_prose: no reference run matches %s; make reference writes them (or give --ref)", pat);
    for (size_t i = 0; i < gl.gl_pathc && g_nruns < MAX_RUNS; i++) {
        Run *r = &g_runs[g_nruns];
        r->n = rows_read(gl.gl_pathv[i], &r->rows);
        if (r->n < 0) die("check_prose: %s is not a rows.tsv", gl.gl_pathv[i]);
        int amb;
        const Row *g = rows_find(r->rows, r->n, "day07", "gpu", &amb);
        if (!g) die("check_prose: %s has no day07 gpu row, so its GPU is unknown", gl.gl_pathv[i]);
        short_gpu(g->note, r->gpu, sizeof r->gpu);
        if (npy > 0) {
            r->rows = realloc(r->rows, sizeof(Row) * (size_t)(r->n + npy));
            if (!r->rows) die("check_prose: out of memory");
            memcpy(r->rows + r->n, py, sizeof(Row) * (size_t)npy);
            r->n += npy;
        }
        g_nruns++;
    }
    globfree(&gl);
    free(py);
}

/* ---- the text: a file's prose, its lines joined, each character's line kept ---------- */
typedef struct {
    char *t;      /* the prose, whitespace runs and comment stars folded into one space; '\n' ends a paragraph */
    int *line;    /* the source line of each character */
    int *off;     /* and its byte offset in the file (-1: a folded space) */
    int n;
} Text;

static void put(Text *x, char c, int line, int off) {
    x->t[x->n] = c, x->line[x->n] = line, x->off[x->n] = off, x->n++;
}

/* The essay of a .c/.cu file is its first block comment; a .md file is all its text outside
 * fenced code blocks. Blank lines become '\n', the rest of the layout one space. */
static int ends_with(const char *s, const char *tail) {
    return strlen(s) >= strlen(tail) && !strcmp(s + strlen(s) - strlen(tail), tail);
}

static Text text_of(const char *path) {
    size_t len;
    char *src = read_file(path, &len);
    if (!src) die("check_prose: cannot read %s", path);
    int *cell = NULL;   /* a notebook: its markdown cells, each line's cell number in place of its line */
    if (ends_with(path, ".ipynb")) {
        char *md = notebook_markdown(src, &cell);
        if (!md) die("check_prose: %s is not a notebook (no cells array)", path);
        free(src);
        src = md, len = strlen(md);
    }
    const int md = cell || ends_with(path, ".md");
    Text x = {xmalloc(len + 2), xmalloc(sizeof(int) * (len + 2)), xmalloc(sizeof(int) * (len + 2)), 0};
    const char *p = src, *end = src + len;
    if (!md) {
        const char *a = strstr(src, "/*"), *b = a ? strstr(a + 2, "*/") : NULL;
        if (!a || !b) die("check_prose: %s has no block comment to read as its essay", path);
        p = a + 2, end = b;
    }
    int line = 1, fence = 0;
    for (const char *q = src; q < p; q++) line += *q == '\n';
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol) eol = end;
        const char *s = p;
        while (s < eol && (*s == ' ' || *s == '\t')) s++;
        if (!md && s < eol && *s == '*' && (s + 1 == eol || s[1] != '/')) s++;   /* " * " of a comment */
        if (md && !strncmp(s, "```", 3)) fence = !fence, s = eol;
        if (fence) s = eol;
        int blank = 1;
        for (const char *q = s; q < eol; q++) blank &= isspace((unsigned char)*q);
        if (blank) {
            if (x.n && x.t[x.n - 1] != '\n') put(&x, '\n', line, -1);
        } else {
            if (x.n && x.t[x.n - 1] != '\n' && x.t[x.n - 1] != ' ') put(&x, ' ', line, -1);
            for (const char *q = s; q < eol; q++) {
                const char c = *q == '\t' ? ' ' : *q;
                if (c == ' ' && x.n && x.t[x.n - 1] == ' ') continue;
                put(&x, c, line, (int)(q - src));
            }
        }
        p = eol + 1, line++;
    }
    x.t[x.n] = 0;
    if (cell)
        for (int i = 0; i < x.n; i++) x.line[i] = cell[x.line[i]], x.off[i] = -1;   /* --fix leaves notebooks */
    free(src), free(cell);
    return x;
}

/* ---- numbers ------------------------------------------------------------------------ */
/* A number at t[i]: [-|+|U+2212] digits [. digits], not inside a word; its length, and the half
 * of its last digit; 0 if none. */
static int number_at(const char *t, int i, double *v, double *half) {
    if (i > 0 && (isalnum((unsigned char)t[i - 1]) || t[i - 1] == '_' || t[i - 1] == '.')) return 0;
    int j = i, neg = 0;
    if (t[j] == '-' || t[j] == '+') neg = t[j] == '-', j++;
    else if (!strncmp(t + j, "\xe2\x88\x92", 3)) neg = 1, j += 3;   /* a minus sign */
    if (!isdigit((unsigned char)t[j])) return 0;
    const int d0 = j;
    while (isdigit((unsigned char)t[j])) j++;
    int decimals = 0;
    if (t[j] == '.' && isdigit((unsigned char)t[j + 1])) {
        j++;
        while (isdigit((unsigned char)t[j])) j++, decimals++;
    }
    if (isalpha((unsigned char)t[j]) && t[j] != 'x' && !(t[j] == 's' && !isalpha((unsigned char)t[j + 1])) &&
        strncmp(t + j, "ms", 2) && strncmp(t + j, "us", 2) && strncmp(t + j, "GB", 2) && strncmp(t + j, "MB", 2) &&
        strncmp(t + j, "KB", 2) && strncmp(t + j, "TB", 2))
        return 0;                                           /* sm_75, 4th, v29, 3D: a name, not a number */
    *v = strtod(t + d0, NULL) * (neg ? -1 : 1);
    *half = 0.5 * pow(10, -decimals);
    return j - i;
}

/* The unit at t[i] (after at most one space): its length including the space, its index in
 * UNITS; -1 if none. "x" and "s" only right after the number or a space, and not inside a word. */
static int unit_at(const char *t, int i, int *len) {
    const int sp = t[i] == ' ';
    for (int u = 0; UNITS[u]; u++) {
        const size_t n = strlen(UNITS[u]);
        if (strncmp(t + i + sp, UNITS[u], n)) continue;
        const unsigned char after = (unsigned char)t[i + sp + n];
        if (isalnum(after) && strcmp(UNITS[u], "kernels")) continue;
        if (!strcmp(UNITS[u], "x") && sp) continue;          /* "2 x 3": a product, not a ratio */
        *len = sp + (int)n;
        return u;
    }
    return -1;
}

/* A range at t[i]: a number, then optionally "-", an en dash or " to " and a number; the unit
 * after it. Returns its length (0: none); half[0] and half[1]: half the last digit of each end. */
static int range_at(const char *t, int i, double *lo, double *hi, double *half, int *unit, int *numbers,
                    const char **dash_used) {
    int n = number_at(t, i, lo, &half[0]);
    if (!n) return 0;
    *hi = *lo, half[1] = half[0];
    *dash_used = NULL;
    int j = i + n, k;
    const char *dash = !strncmp(t + j, "\xe2\x80\x93", 3) ? "\xe2\x80\x93" : t[j] == '-' ? "-" : !strncmp(t + j, " to ", 4) ? " to " : NULL;
    if (dash && (k = number_at(t, j + (int)strlen(dash), hi, &half[1])) > 0 && !(dash[0] == '-' && t[j + 1] == '-')) {
        j += (int)strlen(dash) + k;
        *dash_used = dash;
    }
    *numbers = j - i;
    int ul = 0;
    *unit = unit_at(t, j, &ul);
    return j - i + (*unit >= 0 ? ul : 0);
}

/* the end of the sentence that holds t[i]: ". " before an upper-case letter or a backtick,
 * a paragraph's end, or the text's */
static int sentence_end(const char *t, int i) {
    for (; t[i] && t[i] != '\n'; i++)
        if (t[i] == '.' && t[i + 1] == ' ' && (isupper((unsigned char)t[i + 2]) || t[i + 2] == '`')) return i;
    return i;
}
static int sentence_start(const char *t, int i) {
    for (; i > 0 && t[i - 1] != '\n'; i--)
        if (t[i - 1] == ' ' && i >= 2 && t[i - 2] == '.' && (isupper((unsigned char)t[i]) || t[i] == '`')) return i;
    return i;
}

/* "(H200)" or "(H200 runs)" at or after t[i], before the sentence ends: the GPU's name */
static int gpu_after(const char *t, int i, int end, char *gpu, size_t cap) {
    for (int j = i; j < end && j < i + GPU_AHEAD; j++) {
        if (t[j] != '(' || !isupper((unsigned char)t[j + 1])) continue;
        int k = j + 1;
        while (isalnum((unsigned char)t[k])) k++;
        int digits = 0;
        for (int m = j + 1; m < k; m++) digits |= isdigit((unsigned char)t[m]);
        if (!digits || (t[k] != ')' && strncmp(t + k, " runs)", 6))) continue;
        snprintf(gpu, cap, "%.*s", k - j - 1, t + j + 1);
        return 1;
    }
    return 0;
}

static int has_mark(const char *t, int from, int to) {
    for (int i = from; i < to; i++)
        for (int m = 0; MARKS[m]; m++)
            if (!strncasecmp(t + i, MARKS[m], strlen(MARKS[m]))) return 1;
    return 0;
}

static void fail(const char *path, const Text *x, int i, const char *fmt, const char *a, const char *b) {
    printf("%s:%d: ", path, x->line[i]);
    printf(fmt, a, b);
    printf("\n");
}

/* ---- one quote: `key` [ 's theory [column] ] value-or-range [unit] ... (GPU) ---------- */
static int check_quote(const char *path, const Text *x, int k0, int k1, char *marked) {
    const char *t = x->t;
    char key[96];
    if (k1 - k0 - 1 <= 0 || k1 - k0 - 1 >= (int)sizeof key) return 0;
    snprintf(key, sizeof key, "%.*s", k1 - k0 - 1, t + k0 + 1);
    for (const char *c = key; *c; c++)
        if (!isalnum((unsigned char)*c) && *c != '_' && *c != '.') return 0;
    int i = k1 + 1, theory = 0;
    if (!strncmp(t + i, "'s theory column", 16)) i += 16, theory = 1;
    else if (!strncmp(t + i, "'s theory", 9)) i += 9, theory = 1;
    if (t[i] != ' ') return 0;
    i++;
    double lo, hi, half[2];
    int unit, numbers;
    const char *dash;
    const int n = range_at(t, i, &lo, &hi, half, &unit, &numbers, &dash);
    if (!n) return 0;
    const int end = sentence_end(t, i);
    char gpu[32];
    if (!gpu_after(t, i + n, end, gpu, sizeof gpu)) {
        fail(path, x, k0, "`%s`: a quoted number with no GPU named after it in its sentence, as \"(H200)\"%s", key, "");
        g_failed++;
        return 1;
    }
    memset(marked + k0, 1, (size_t)(i + n - k0));
    g_quotes++;
    char day[16] = "", *dot = strchr(key, '.');
    const char *bare = key;
    if (dot) snprintf(day, sizeof day, "%.*s", (int)(dot - key), key), bare = dot + 1;
    int runs = 0, found = 0, outside = 0;
    double vmin = INFINITY, vmax = -INFINITY;
    char why[256] = "";
    for (int r = 0; r < g_nruns; r++) {
        if (strcmp(g_runs[r].gpu, gpu)) continue;
        runs++;
        int amb;
        const Row *row = rows_find(g_runs[r].rows, g_runs[r].n, *day ? day : NULL, bare, &amb);
        if (!row) continue;
        found++;
        const double v = theory || isnan(row->measured) ? row->theory : row->measured;
        vmin = fmin(vmin, v), vmax = fmax(vmax, v);
        if (!(v >= lo - half[0] - 1e-12 && v <= hi + half[1] + 1e-12) && !outside++)
            snprintf(why, sizeof why, "run %d's %s is %.6g, outside %.6g-%.6g", r + 1,
                     theory || isnan(row->measured) ? "theory" : "value", v, lo, hi);
    }
    if (!runs) {
        printf("%s:%d: `%s` (%s): no reference run on that GPU; reported, not checked\n", path, x->line[k0], key, gpu);
        g_reported++;
    } else if (found < runs) {
        fail(path, x, k0, "`%s`: no such row in the %s reference runs", key, gpu);
        g_failed++;
    } else if (outside) {
        printf("%s:%d: `%s` %.*s (%s): %s", path, x->line[k0], key, n, t + i, gpu, why);
        const int a = x->off[i], b = x->off[i + numbers - 1];
        if (g_fix && a >= 0 && b - a == numbers - 1 && g_nedits < (int)(sizeof g_edits / sizeof g_edits[0]) &&
            isfinite(vmin)) {
            Edit *e = &g_edits[g_nedits++];
            e->from = a, e->to = b + 1;
            const size_t pl = strlen(path);
            requote(e->with, sizeof e->with, vmin, vmax, fmin(half[0], half[1]), dash,
                    pl > 3 && !strcmp(path + pl - 3, ".md"));
            printf("; fixed: %s", e->with);
            g_fixed++;
        } else
            g_failed++;
        printf("\n");
    } else
        g_ok++;
    return 1;
}

static void check_file(const char *path) {
    Text x = text_of(path);
    const char *t = x.t;
    char *marked = xcalloc((size_t)x.n + 1, 1);
    /* quotes first; the inside of every backtick pair is code or a key, never a loose number */
    for (int i = 0; i < x.n; i++) {
        if (t[i] != '`') continue;
        const char *close = strchr(t + i + 1, '`');
        if (!close || memchr(t + i + 1, '\n', (size_t)(close - t - i - 1))) continue;
        const int j = (int)(close - t);
        memset(marked + i, 1, (size_t)(j - i + 1));
        check_quote(path, &x, i, j, marked);
        i = j;
    }
    /* then every number with a unit that no quote holds and no mark excuses */
    for (int i = 0; i < x.n; i++) {
        if (marked[i]) continue;
        double lo, hi, half[2];
        int unit, numbers;
        const char *dash;
        const int n = range_at(t, i, &lo, &hi, half, &unit, &numbers, &dash);
        if (!n) continue;
        if (unit >= 0) {
            const int s0 = sentence_start(t, i), from = i - MARK_BACK > s0 ? i - MARK_BACK : s0;
            int to = i + n;
            if (t[to] == ' ' && t[to + 1] == '(') to += 1;
            if (t[to] == '(') {
                const char *cl = strchr(t + to, ')');
                if (cl && cl - t - to < MARK_AHEAD) to = (int)(cl - t);
            }
            if (!has_mark(t, from, to)) {
                printf("%s:%d: \"%.*s\": a number with a unit that neither quotes a row (`key` value (GPU)) nor "
                       "says where it comes from (the lesson, a datasheet, published)\n", path, x.line[i], n, t + i);
                g_unmarked++;
            }
        }
        i += n - 1;
    }
    if (g_nedits) {   /* back to front, so each edit's offsets still hold */
        size_t len;
        char *src = read_file(path, &len);
        FILE *f = src ? fopen(path, "w") : NULL;
        if (!f) die("check_prose --fix: cannot rewrite %s", path);
        int at = 0;
        for (int e = 0; e < g_nedits; e++) {
            fwrite(src + at, 1, (size_t)(g_edits[e].from - at), f);
            fputs(g_edits[e].with, f);
            at = g_edits[e].to;
        }
        fwrite(src + at, 1, len - (size_t)at, f);
        if (fclose(f)) die("check_prose --fix: cannot write %s", path);
        free(src);
        g_nedits = 0;
    }
    free(marked), free(x.t), free(x.line), free(x.off);
}

int main(int argc, char **argv) {
    const char *ref = "answers/reference";
    int first = 1;
    for (; first < argc && argv[first][0] == '-'; first++) {
        if (!strcmp(argv[first], "--fix")) g_fix = 1;
        else if (!strcmp(argv[first], "--ref") && first + 1 < argc) ref = argv[++first];
        else break;
    }
    if (first >= argc) {
        fprintf(stderr, "usage: check_prose [--fix] [--ref answers/reference] FILE...\n");
        return 2;
    }
    load_runs(ref);
    for (int a = first; a < argc; a++) check_file(argv[a]);
    printf("check_prose: quotes=%d ok=%d failed=%d unmarked=%d reported=%d", g_quotes, g_ok, g_failed, g_unmarked,
           g_reported);
    if (g_fix) printf(" fixed=%d", g_fixed);
    printf(" (reference runs: %d", g_nruns);
    for (int r = 0; r < g_nruns; r++) printf("%s%s", r ? ", " : " on ", g_runs[r].gpu);
    printf(")\n");
    return g_failed || g_unmarked || !g_quotes ? 1 : 0;
}
