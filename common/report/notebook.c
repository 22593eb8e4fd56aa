#include <stdlib.h>
#include <string.h>
#include "report/notebook.h"
#include "util.h"

char *notebook_source(const cJSON *src) {
    if (cJSON_IsString(src)) return strcpy(xmalloc(strlen(src->valuestring) + 1), src->valuestring);
    if (!cJSON_IsArray(src)) return NULL;
    size_t n = 1;
    const cJSON *s;
    cJSON_ArrayForEach(s, src) {
        if (!cJSON_IsString(s)) return NULL;
        n += strlen(s->valuestring);
    }
    char *out = xmalloc(n);
    out[0] = '\0';
    cJSON_ArrayForEach(s, src) strcat(out, s->valuestring);
    return out;
}

char *notebook_markdown(const char *json, int **cell_of_line) {
    cJSON *nb = cJSON_Parse(json);
    const cJSON *cells = cJSON_GetObjectItemCaseSensitive(nb, "cells"), *c;
    if (!cJSON_IsArray(cells)) {
        cJSON_Delete(nb);
        return NULL;
    }
    const int ncells = cJSON_GetArraySize(cells);
    size_t len = 0, cap = 1024;
    char *out = xmalloc(cap);
    size_t *start = xmalloc(sizeof(size_t) * (size_t)(ncells + 1));   /* where each cell's text begins in out */
    int *number = xmalloc(sizeof(int) * (size_t)(ncells + 1)), n = 0, k = 0;
    cJSON_ArrayForEach(c, cells) {
        k++;
        const cJSON *type = cJSON_GetObjectItemCaseSensitive(c, "cell_type");
        char *s = cJSON_IsString(type) && !strcmp(type->valuestring, "markdown")
                      ? notebook_source(cJSON_GetObjectItemCaseSensitive(c, "source")) : NULL;
        if (!s) continue;
        const size_t sl = strlen(s);
        while (len + sl + 3 > cap) {
            out = realloc(out, cap *= 2);
            if (!out) die("notebook: out of memory");
        }
        start[n] = len, number[n++] = k;
        memcpy(out + len, s, sl);
        len += sl;
        if (!sl || s[sl - 1] != '\n') out[len++] = '\n';
        out[len++] = '\n';                    /* a blank line: the cells are paragraphs apart */
        free(s);
    }
    out[len] = 0;
    int lines = 1;
    for (size_t i = 0; i < len; i++) lines += out[i] == '\n';
    int *cell = xmalloc(sizeof(int) * (size_t)(lines + 1)), line = 1, j = 0;
    cell[0] = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i == 0 || out[i - 1] == '\n') {      /* line `line` begins at i: the last cell starting at or before it */
            while (j + 1 < n && start[j + 1] <= i) j++;
            cell[line++] = n ? number[j] : 0;
        }
    }
    free(start), free(number);
    cJSON_Delete(nb);
    *cell_of_line = cell;
    return out;
}
