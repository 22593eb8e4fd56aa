/* check_notebook: the kit's notebook (week2.ipynb) is one Jupyter and Colab open, saved clean,
 * whose make commands the Makefile knows and whose torch cell is README.md's.
 *
 *   bin/check_notebook [--targets FILE] [--readme README.md] [--list-make] NOTEBOOK
 *
 * Always, the notebook's own form (nbformat 4):
 *   - valid JSON (the line and column where it stops being JSON), an object with nbformat 4,
 *     an integer nbformat_minor, a metadata object whose kernelspec is python3, and a non-empty
 *     cells array;
 *   - every cell an object with cell_type (markdown, code or raw), source (a string or an array
 *     of strings) and metadata (an object); from nbformat_minor 5 on, an id as nbformat 4.5 has
 *     it (1 to 64 of A-Z a-z 0-9 - _), no two alike;
 *   - every code cell saved without what a run left: outputs [] and execution_count null.
 * --targets FILE: every make target named in a code cell's `!make ...` line (or such a line
 *   commented out, `# !make model`: a command the reader is told to type) is a line of FILE,
 *   the Makefile's targets as the caller got them from make itself (tests/cpu/notebook.sh:
 *   make -pRrq, as tests/cpu/readme_targets.sh does for README.md). The targets are the words
 *   after make up to a shell separator, less options (and the argument of -C -f -I -o -W,
 *   and a count after -j or -l) and VAR=value.
 * --list-make: prints each such target as "cell N: make TARGET" (what --targets checks).
 * --readme FILE: the notebook's torch cell is README.md's copy of it, byte for byte. The torch
 *   cell is the one code cell with a line that starts with "!" and names torch_decode.py; its
 *   copy is the one fenced block (``` lines) of FILE with such a line. The comparison: the
 *   block's lines, each ending in a newline, against the cell's source joined, with one newline
 *   added at its end when it has none (a notebook's last source line has none); nothing else
 *   is forgiven (spaces, blank lines, a comment), so the two cannot drift apart silently.
 *
 * Prints each failure as "NOTEBOOK: cell N: what" (N counts from 1), then "check_notebook:
 * NOTEBOOK: N cells, N make targets, N failures"; exit 1 on any failure. An unreadable file or
 * a bad command line: one sentence, exit 1. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "report/notebook.h"
#include "util.h"

#define TORCH_MARK "torch_decode.py"

static const char *g_nb;
static int g_failures, g_targets;

static void fail(int cell, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(int cell, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (cell > 0) printf("%s: cell %d: ", g_nb, cell);
    else printf("%s: ", g_nb);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    g_failures++;
}

/* The next line of *p (its length in *len, no newline); NULL at the end. */
static const char *next_line(const char **p, size_t *len) {
    if (!**p) return NULL;
    const char *line = *p, *nl = strchr(line, '\n');
    *len = nl ? (size_t)(nl - line) : strlen(line);
    *p = nl ? nl + 1 : line + *len;
    if (*len && line[*len - 1] == '\r') (*len)--;
    return line;
}

/* Does this line (len bytes) start with "!" and name the torch script? */
static int torch_line(const char *line, size_t len) {
    while (len && (*line == ' ' || *line == '\t')) line++, len--;
    if (!len || *line != '!') return 0;
    for (size_t i = 0; i + strlen(TORCH_MARK) <= len; i++)
        if (!strncmp(line + i, TORCH_MARK, strlen(TORCH_MARK))) return 1;
    return 0;
}

static int in_list(char **list, int n, const char *word) {
    for (int i = 0; i < n; i++)
        if (!strcmp(list[i], word)) return 1;
    return 0;
}

/* The make targets of one `!make ...` line of cell `cell`: listed and/or checked against targets. */
static void make_line(int cell, const char *line, size_t len, char **targets, int ntargets, int list) {
    char buf[1024], orig[1024];   /* buf is cut into words; orig is the line, for the message */
    if (len >= sizeof buf) len = sizeof buf - 1;
    memcpy(buf, line, len);
    buf[len] = '\0';
    strcpy(orig, buf);
    char *p = buf;
    while (*p == ' ' || *p == '\t') p++;
    if (*p == '#') {                       /* a command commented out: "# !make model" */
        p++;
        while (*p == ' ' || *p == '\t') p++;
    }
    if (strncmp(p, "!make", 5) || (p[5] && p[5] != ' ' && p[5] != '\t')) return;
    int skip_next = 0, skip_count = 0;
    for (char *w = strtok(p + 5, " \t"); w; w = strtok(NULL, " \t")) {
        if (strchr(";&|#<>)", w[0]) || (isdigit((unsigned char)w[0]) && strchr(w, '>'))) break;
        if (skip_next) { skip_next = 0; continue; }
        if (skip_count) {
            skip_count = 0;
            if (isdigit((unsigned char)w[0]) || w[0] == '$') continue;
        }
        if (w[0] == '-') {
            if (!strcmp(w, "-C") || !strcmp(w, "-f") || !strcmp(w, "-I") || !strcmp(w, "-o") || !strcmp(w, "-W"))
                skip_next = 1;
            else if (!strcmp(w, "-j") || !strcmp(w, "-l"))
                skip_count = 1;
            continue;
        }
        if (strchr(w, '=')) continue;
        g_targets++;
        if (list) printf("cell %d: make %s\n", cell, w);
        if (targets && !in_list(targets, ntargets, w))
            fail(cell, "`%s` names make target %s, which the Makefile does not have", orig, w);
    }
}

static int valid_id(const char *id) {
    size_t n = strlen(id);
    if (n < 1 || n > 64) return 0;
    for (const char *c = id; *c; c++)
        if (!isalnum((unsigned char)*c) && *c != '-' && *c != '_') return 0;
    return 1;
}

/* --readme: the README's fenced block with the torch line, as text (each line + "\n"), and its line. */
static char *readme_block(const char *path, int *at) {
    char *text = read_file(path, NULL);
    if (!text) die("cannot read %s (--readme): give README.md's path", path);
    char *found = NULL;
    int nfound = 0, lineno = 0, start = 0, inside = 0, has_torch = 0;
    size_t cap = strlen(text) + 1, used = 0;
    char *block = xmalloc(cap);
    const char *p = text, *line;
    size_t len;
    while ((line = next_line(&p, &len))) {
        lineno++;
        if (len >= 3 && !strncmp(line, "```", 3)) {
            if (inside && has_torch) {
                block[used] = '\0';
                if (++nfound == 1) { found = strcpy(xmalloc(used + 1), block); *at = start; }
            }
            inside = !inside, used = 0, has_torch = 0, start = lineno + 1;
            continue;
        }
        if (!inside) continue;
        memcpy(block + used, line, len);
        used += len;
        block[used++] = '\n';
        has_torch |= torch_line(line, len);
    }
    free(block);
    free(text);
    if (nfound != 1) {
        printf("%s: %d fenced blocks with a line that starts with ! and names %s, not 1\n", path, nfound, TORCH_MARK);
        g_failures++;
        free(found);
        return NULL;
    }
    return found;
}

/* The first line where a and b differ, both quoted, for the failure message. */
static void first_difference(const char *a, const char *b, int *line, char *la, char *lb, size_t cap) {
    *line = 1;
    const char *sa = a, *sb = b;
    while (*a && *a == *b) {
        if (*a == '\n') (*line)++, sa = a + 1, sb = b + 1;
        a++, b++;
    }
    snprintf(la, cap, "%.*s", (int)strcspn(sa, "\n"), sa);
    snprintf(lb, cap, "%.*s", (int)strcspn(sb, "\n"), sb);
}

int main(int argc, char **argv) {
    const char *targets_path = NULL, *readme = NULL;
    int list = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--targets") && i + 1 < argc) targets_path = argv[++i];
        else if (!strcmp(argv[i], "--readme") && i + 1 < argc) readme = argv[++i];
        else if (!strcmp(argv[i], "--list-make")) list = 1;
        else if (argv[i][0] == '-' || g_nb)
            die("usage: check_notebook [--targets FILE] [--readme README.md] [--list-make] NOTEBOOK (%s?)", argv[i]);
        else g_nb = argv[i];
    }
    if (!g_nb) die("usage: check_notebook [--targets FILE] [--readme README.md] [--list-make] NOTEBOOK");

    char **targets = NULL, *t = NULL;   /* t: the --targets file, cut into the lines targets points at */
    int ntargets = 0;
    if (targets_path) {
        t = read_file(targets_path, NULL);
        if (!t) die("cannot read %s (--targets): one make target a line, e.g. from make -pRrq", targets_path);
        int cap = 64;
        targets = xmalloc(cap * sizeof *targets);
        for (char *w = strtok(t, "\r\n"); w; w = strtok(NULL, "\r\n")) {
            if (ntargets == cap) {
                cap *= 2;
                targets = realloc(targets, cap * sizeof *targets);
                if (!targets) die("out of memory reading %s", targets_path);
            }
            targets[ntargets++] = w;
        }
        if (!ntargets) die("%s (--targets) lists no make target", targets_path);
    }

    size_t n;
    char *text = read_file(g_nb, &n);
    if (!text) die("cannot read %s: give the notebook's path (week2.ipynb)", g_nb);
    const char *end = NULL;
    cJSON *nb = cJSON_ParseWithLengthOpts(text, n + 1, &end, 1);   /* n + 1: cJSON wants the NUL counted */
    if (!nb) {
        const char *at = cJSON_GetErrorPtr();
        int line = 1, col = 1;
        for (const char *c = text; at && c < at && c < text + n; c++) {
            if (*c == '\n') line++, col = 1;
            else col++;
        }
        fail(0, "not valid JSON (it stops being JSON at line %d, column %d)", line, col);
        printf("check_notebook: %s: 0 cells, 0 make targets, %d failures\n", g_nb, g_failures);
        free(text), free(targets), free(t);
        return 1;
    }
    const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(nb, "nbformat");
    const cJSON *minor = cJSON_GetObjectItemCaseSensitive(nb, "nbformat_minor");
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(nb, "metadata");
    const cJSON *cells = cJSON_GetObjectItemCaseSensitive(nb, "cells");
    if (!cJSON_IsObject(nb)) fail(0, "not a notebook: its JSON is not an object");
    if (!cJSON_IsNumber(fmt)) fail(0, "no nbformat number (the kit's notebook is nbformat 4)");
    else if (fmt->valuedouble != 4) fail(0, "nbformat is %g, not 4 (the kit's notebook is nbformat 4)", fmt->valuedouble);
    if (!cJSON_IsNumber(minor) || minor->valuedouble != (int)minor->valuedouble || minor->valueint < 0)
        fail(0, "nbformat_minor is missing or not a whole number");
    const cJSON *ks = cJSON_GetObjectItemCaseSensitive(meta, "kernelspec");
    const cJSON *ksname = cJSON_GetObjectItemCaseSensitive(ks, "name");
    if (!cJSON_IsObject(meta)) fail(0, "no metadata object at the top");
    else if (!cJSON_IsString(ksname) || strcmp(ksname->valuestring, "python3"))
        fail(0, "metadata.kernelspec.name is not python3 (the kernel Colab and Jupyter start)");
    if (!cJSON_IsArray(cells) || cJSON_GetArraySize(cells) == 0) fail(0, "no cells (a non-empty cells array)");

    const int with_ids = cJSON_IsNumber(minor) && minor->valueint >= 5;
    char *torch_cell = NULL;
    int ncells = cJSON_GetArraySize(cells), ntorch = 0, torch_at = 0;
    char **ids = xcalloc(ncells + 1, sizeof *ids);
    for (int i = 0; cJSON_IsArray(cells) && i < ncells; i++) {
        const int c = i + 1;
        const cJSON *cell = cJSON_GetArrayItem(cells, i);
        if (!cJSON_IsObject(cell)) { fail(c, "not an object"); continue; }
        const cJSON *type = cJSON_GetObjectItemCaseSensitive(cell, "cell_type");
        const cJSON *src = cJSON_GetObjectItemCaseSensitive(cell, "source");
        const cJSON *cmeta = cJSON_GetObjectItemCaseSensitive(cell, "metadata");
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(cell, "id");
        const char *t = cJSON_IsString(type) ? type->valuestring : NULL;
        if (!t) fail(c, "no cell_type");
        else if (strcmp(t, "markdown") && strcmp(t, "code") && strcmp(t, "raw"))
            fail(c, "cell_type %s is none of markdown, code, raw", t);
        if (!cJSON_IsObject(cmeta)) fail(c, "no metadata object");
        if (with_ids) {
            if (!cJSON_IsString(id) || !valid_id(id->valuestring))
                fail(c, "no id of 1 to 64 letters, digits, - and _ (nbformat 4.5 and later need one)");
            else {
                for (int j = 0; j < i; j++)
                    if (ids[j] && !strcmp(ids[j], id->valuestring)) fail(c, "id %s is cell %d's too", id->valuestring, j + 1);
                ids[i] = id->valuestring;
            }
        }
        char *s = notebook_source(src);
        if (!s) { fail(c, "no source (a string or an array of strings)"); continue; }
        if (t && !strcmp(t, "code")) {
            const cJSON *outs = cJSON_GetObjectItemCaseSensitive(cell, "outputs");
            const cJSON *count = cJSON_GetObjectItemCaseSensitive(cell, "execution_count");
            if (!cJSON_IsArray(outs)) fail(c, "a code cell without an outputs array");
            else if (cJSON_GetArraySize(outs)) fail(c, "saved with %d outputs: clear them (outputs [])", cJSON_GetArraySize(outs));
            if (!cJSON_IsNull(count))
                fail(c, "saved with an execution_count: clear it (execution_count null)");
            const char *p = s, *line;
            size_t len;
            int torch = 0;
            while ((line = next_line(&p, &len))) {
                make_line(c, line, len, targets, ntargets, list);
                torch |= torch_line(line, len);
            }
            if (torch && ++ntorch == 1) { torch_cell = s; torch_at = c; continue; }
        }
        free(s);
    }
    if (readme) {
        int at = 0;
        char *block = readme_block(readme, &at);
        if (ntorch != 1) fail(0, "%d code cells with a line that starts with ! and names %s, not 1", ntorch, TORCH_MARK);
        if (block && torch_cell) {
            size_t k = strlen(torch_cell);
            char *cell = xmalloc(k + 2);
            strcpy(cell, torch_cell);
            if (!k || cell[k - 1] != '\n') strcat(cell, "\n");
            if (strcmp(cell, block)) {
                int line;
                char la[256], lb[256];
                first_difference(cell, block, &line, la, lb, sizeof la);
                fail(torch_at, "the torch cell is not README.md's copy (the fenced block at %s line %d): its line %d is "
                     "\"%s\", README's \"%s\"", readme, at, line, la, lb);
            }
            free(cell);
        }
        free(block);
    }
    free(torch_cell);
    free(ids);
    printf("check_notebook: %s: %d cells, %d make targets, %d failures\n", g_nb, ncells, g_targets, g_failures);
    cJSON_Delete(nb);
    free(text), free(targets), free(t);
    return g_failures ? 1 : 0;
}
