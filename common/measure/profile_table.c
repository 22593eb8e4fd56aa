/* profile_table: the key_averages-style kernel table of a trace window (profile_table.h). */
#include <stdlib.h>
#include <string.h>
#include "measure/profile_table.h"
#include "util.h"

void linear_part_bytes(const Config *c, double bytes[P_COUNT]) {
    double d = c->dim, q = (double)c->n_heads * c->head_dim, kv = (double)c->n_kv_heads * c->head_dim;
    memset(bytes, 0, sizeof(double) * P_COUNT);
    bytes[P_Q] = d * q * 2;
    bytes[P_K] = bytes[P_V] = d * kv * 2;
    bytes[P_QKV] = bytes[P_Q] + bytes[P_K] + bytes[P_V];
    bytes[P_O] = q * d * 2;
    bytes[P_GATE] = bytes[P_UP] = bytes[P_DOWN] = d * c->ffn_dim * 2.0;
    bytes[P_GATE_UP] = 2 * bytes[P_GATE];
    bytes[P_LM_HEAD] = (double)c->vocab * d * 2;
}

static const Trace *g_sort_trace;   /* qsort has no context argument */
static int by_start(const void *a, const void *b) {
    uint64_t x = g_sort_trace->k[*(const int *)a].start, y = g_sort_trace->k[*(const int *)b].start;
    return (x > y) - (x < y);
}

ProfRow *profile_rows(const Trace *t, const TraceWindow *w, uint64_t t0, uint64_t t1,
                      const double part_bytes[P_COUNT]) {
    ProfRow *rows = xcalloc((size_t)w->n_names + 1, sizeof(ProfRow));
    for (int r = 0; r < w->n_names; r++) rows[r].nt = &w->names[r];
    int n = 0, *idx = xmalloc(sizeof(int) * (size_t)(t->nk + 1));
    for (int i = 0; i < t->nk; i++)
        if (t->k[i].start >= t0 && t->k[i].start <= t1) idx[n++] = i;
    g_sort_trace = t;
    qsort(idx, n, sizeof(int), by_start);
    /* An op's weights are read once however many kernels it ran (cuBLAS's split-K adds a
     * reduction kernel): the bytes go to the first kernel of each launch tag. */
    uint64_t last_tag = 0;
    for (int j = 0; j < n; j++) {
        const TKernel *k = &t->k[idx[j]];
        const char *name = k->name ? k->name : "(unnamed)";
        int r = 0;
        while (r < w->n_names && strcmp(w->names[r].name, name) != 0) r++;
        if (r == w->n_names) continue;
        int part = trace_kernel_part(k);
        rows[r].parts |= 1u << part;
        if (!part_is_gemm((Part)part)) continue;
        int first = !k->ext || k->ext != last_tag;   /* an op's kernels are adjacent in time */
        last_tag = k->ext;
        if (first && part_bytes) rows[r].bytes += part_bytes[part];
    }
    free(idx);
    return rows;
}

static void cut(char *out, size_t cap, const char *s, size_t len) {
    if (cap == 0) return;
    if (len <= cap - 1) {
        memcpy(out, s, len);
        out[len] = 0;
    } else if (cap > 4) {
        memcpy(out, s, cap - 4);
        strcpy(out + cap - 4, "...");
    } else {
        memcpy(out, s, cap - 1);
        out[cap - 1] = 0;
    }
}

void kernel_short_name(const char *name, char *out, size_t cap) {
    static const char anon[] = "(anonymous namespace)::";
    char buf[1024];
    size_t n = 0;
    const char *s = name ? name : "?";
    if (strncmp(s, "void ", 5) == 0) s += 5;
    while (*s && n < sizeof buf - 1) {
        if (strncmp(s, anon, sizeof anon - 1) == 0) { s += sizeof anon - 1; continue; }
        buf[n++] = *s++;
    }
    buf[n] = 0;
    /* Outside the template brackets: namespaces end at the last "::", parameters start at "(". */
    size_t from = 0, to = n;
    int depth = 0;
    for (size_t i = 0; i < n; i++) {
        char c = buf[i];
        if (c == '<') depth++;
        else if (c == '>' && depth > 0) depth--;
        else if (depth == 0 && c == '(') { to = i; break; }
        else if (depth == 0 && c == ':' && buf[i + 1] == ':') from = i + 2;
    }
    while (to > from && buf[to - 1] == ' ') to--;
    cut(out, cap, buf + from, to - from);
}

void parts_label(unsigned parts, char *out, size_t cap) {
    char buf[256] = "";
    size_t n = 0;
    for (int p = 0; p < P_COUNT && n < sizeof buf - 1; p++)
        if (parts & (1u << p))
            n += snprintf(buf + n, sizeof buf - n, "%s%s", n ? "/" : "", part_name((Part)p));
    if (n >= sizeof buf) n = sizeof buf - 1;
    cut(out, cap, n ? buf : "-", n ? n : 1);
}

void profile_table_print(FILE *f, const TraceWindow *w, const ProfRow *rows, int top) {
    static const char rule[] = "-----------------------------------------------------------------"
                               "-----------------------------------------------------------------";
    int n = top > 0 && top < w->n_names ? top : w->n_names;
    int steps = w->steps > 0 ? w->steps : 1, width = 130;
    fprintf(f, "%.*s\n", width, rule);
    fprintf(f, "%-40s  %-28s  %10s  %11s  %6s  %17s  %6s\n", "Name (kernel)", "Model part",
            "Calls/step", "GPU us/step", "Share", "Avg us +- sd", "GB/s");
    fprintf(f, "%.*s\n", width, rule);
    for (int i = 0; i < n; i++) {
        const TNameTime *nt = rows[i].nt;
        char name[41], parts[29], gbs[16] = "-", avg[32];
        kernel_short_name(nt->name, name, sizeof name);
        parts_label(rows[i].parts, parts, sizeof parts);
        if (rows[i].bytes > 0 && nt->total_ns > 0) snprintf(gbs, sizeof gbs, "%.0f", rows[i].bytes / nt->total_ns);
        snprintf(avg, sizeof avg, "%.2f +- %.2f", nt->avg_ns / 1e3, nt->sd_ns / 1e3);
        fprintf(f, "%-40s  %-28s  %10.1f  %11.1f  %5.1f%%  %17s  %6s\n", name, parts,
                (double)nt->calls / steps, nt->total_ns / 1e3 / steps, 100 * nt->share, avg, gbs);
    }
    fprintf(f, "%.*s\n", width, rule);
    fprintf(f, "%d of %d kernel names shown; GPU time per step %.1f us (sum of kernel durations, %d steps)\n",
            n, w->n_names, w->gpu_ns / 1e3 / steps, steps);
}
