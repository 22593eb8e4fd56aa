/* args: the one command-line parser (the rules are in args.h). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "args.h"
#include "util.h"

/* The whole text is the number: no space before it (strto* would skip one), nothing after. */
static int whole_int(const char *s, long long *v) {
    char *end;
    if (!*s || isspace((unsigned char)*s)) return 0;
    errno = 0;
    *v = strtoll(s, &end, 10);
    return !errno && !*end;
}
static int whole_real(const char *s, double *v) {
    char *end;
    if (!*s || isspace((unsigned char)*s)) return 0;
    *v = strtod(s, &end);
    return !*end && isfinite(*v);
}

static void int_sentence(char *err, size_t cap, const char *prog, const char *flag, const char *text,
                         long long lo, long long hi, const char *what) {
    snprintf(err, cap, "%s: %s %s: give a whole number from %lld to %lld (%s)", prog, flag, text, lo, hi, what);
}

long long arg_int(const char *prog, const char *flag, const char *text, long long lo, long long hi,
                  const char *what) {
    long long v;
    if (whole_int(text, &v) && v >= lo && v <= hi) return v;
    char err[1024];
    int_sentence(err, sizeof err, prog, flag, text, lo, hi, what);
    die("%s", err);
}

/* "eager|fused|graph" -> "eager, fused or graph" */
static void choices(char *out, size_t cap, const char *names) {
    size_t len = 0;
    for (const char *p = names; *p && len + 5 < cap; p++) {
        if (*p != '|') { out[len++] = *p; continue; }
        const char *sep = strchr(p + 1, '|') ? ", " : " or ";
        len += (size_t)snprintf(out + len, cap - len, "%s", sep);
        if (len >= cap) len = cap - 1;
    }
    out[len] = 0;
}
/* the place of text among the names, -1 when it is none of them */
static int choice_of(const char *text, const char *names) {
    size_t n = strlen(text);
    for (int i = 0; *names; i++) {
        size_t len = strcspn(names, "|");
        if (len == n && !strncmp(names, text, n)) return i;
        names += len + (names[len] == '|');
    }
    return -1;
}

/* one flag's value into its destination; 0, or -1 with the sentence in err */
static int take(const char *prog, const ArgFlag *f, const char *text, char *err, size_t cap) {
    long long i;
    double x;
    char names[256];
    switch (f->kind) {
    case ARG_INT:
        if (whole_int(text, &i) && i >= f->lo && i <= f->hi) { *(int *)f->dest = (int)i; return 0; }
        int_sentence(err, cap, prog, f->name, text, (long long)f->lo, (long long)f->hi, f->what);
        return -1;
    case ARG_REAL:
        if (whole_real(text, &x) && x >= f->lo && x <= f->hi) { *(double *)f->dest = x; return 0; }
        snprintf(err, cap, "%s: %s %s: give a number from %g to %g (%s)", prog, f->name, text, f->lo, f->hi, f->what);
        return -1;
    case ARG_CHOICE:
        if ((i = choice_of(text, f->what)) >= 0) { *(int *)f->dest = (int)i; return 0; }
        choices(names, sizeof names, f->what);
        snprintf(err, cap, "%s: %s %s: give one of %s", prog, f->name, text, names);
        return -1;
    case ARG_STRING: *(const char **)f->dest = text; return 0;
    case ARG_FLAG: *(int *)f->dest = 1; return 0;
    }
    return 0;
}

int args_read(const char *prog, const char *usage, int argc, char **argv, const ArgFlag *flags,
              const ArgWords *words, char *err, size_t cap) {
    int n = 0, flags_done = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!flags_done && !strcmp(a, "--")) { flags_done = 1; continue; }
        if (!flags_done && a[0] == '-' && a[1]) {
            if (!strcmp(a, "--help") || !strcmp(a, "-h")) return 1;
            const ArgFlag *f = flags;
            while (f && f->name && strcmp(f->name, a)) f++;
            if (!f || !f->name) { snprintf(err, cap, "%s: unknown option %s (see --help)", prog, a); return -1; }
            if (f->kind == ARG_FLAG) { take(prog, f, a, err, cap); continue; }
            if (i + 1 == argc) {
                char names[256];
                if (f->kind == ARG_CHOICE) choices(names, sizeof names, f->what);
                snprintf(err, cap, "%s: %s needs a value (%s%s)", prog, a, f->kind == ARG_CHOICE ? "one of " : "",
                         f->kind == ARG_CHOICE ? names : f->what);
                return -1;
            }
            if (take(prog, f, argv[++i], err, cap)) return -1;
            continue;
        }
        if (!words) {
            snprintf(err, cap, "%s: unexpected argument '%s': %s takes only the flags --help lists", prog, a, prog);
            return -1;
        }
        if (words->rest) flags_done = 1;
        if (n == 1 && words->max == 1) {
            snprintf(err, cap, "%s: one %s at a time: %s and %s", prog, words->what, words->dest[0], a);
            return -1;
        }
        if (n < words->max) words->dest[n] = a;
        n++;
    }
    if (!words) return 0;
    if (n < words->min || n > words->max) {
        const char *u = usage ? usage : "see --help";   /* its first line */
        int line = (int)strcspn(u, "\n");
        if (n == 0) snprintf(err, cap, "%s: no %s given (%.*s)", prog, words->what, line, u);
        else snprintf(err, cap, "%s: %s wanted, %d given (%.*s)", prog, words->what, n, line, u);
        return -1;
    }
    *words->n = n;
    return 0;
}

void args_parse(const char *prog, const char *usage, int argc, char **argv, const ArgFlag *flags,
                const ArgWords *words) {
    char err[1024];
    int r = args_read(prog, usage, argc, argv, flags, words, err, sizeof err);
    if (r > 0) { fputs(usage, stdout); exit(0); }
    if (r < 0) die("%s", err);
}
