/* trace_check FILE: the trace reader and its analysis (trace_json_read, trace_stats) under
 * AddressSanitizer, for tests/cpu/trace_stats.sh's bad input: it must end in one "error:"
 * sentence, never a sanitizer report.
 * trace_check --sweep FILE: every prefix of FILE, and FILE with each byte replaced by each
 * of a few characters that change JSON's structure, through trace_json_parse (the entry
 * point a fuzz target calls): each one parses, or fails with a sentence. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "measure/trace_json.h"
#include "measure/trace_steps.h"
#include "util.h"

static long ok, failed;

static void parse(const char *bytes, size_t len) {
    TraceJson tj;
    char err[512];
    TraceStats s;
    if (trace_json_parse(bytes, len, &tj, err, sizeof err) == 0) {
        int rc = trace_stats(&tj, &s, err, sizeof err);
        if (rc && !err[0]) die("trace_stats failed without a sentence on %zu bytes", len);
        trace_stats_free(&s);
        trace_json_free(&tj);
        if (rc) failed++; else ok++;
    } else {
        if (!err[0]) die("trace_json_parse failed without a sentence on %zu bytes", len);
        failed++;
    }
}

int main(int argc, char **argv) {
    if (argc == 3 && !strcmp(argv[1], "--sweep")) {
        size_t n;
        char *text = read_file(argv[2], &n);
        if (!text) die("cannot read %s", argv[2]);
        for (size_t i = 0; i < n; i++) parse(text, i);
        static const char swaps[] = "{}[]\",:\\0-e \x01";
        for (size_t i = 0; i < n; i++) {
            char was = text[i];
            for (size_t j = 0; j < sizeof swaps - 1; j++) {
                text[i] = swaps[j];
                parse(text, n);
            }
            text[i] = was;
        }
        printf("sweep: %ld parses of %s: %ld parsed, %ld failed with a sentence\n", ok + failed, argv[2], ok, failed);
        free(text);
        return 0;
    }
    if (argc != 2) die("usage: trace_check FILE | trace_check --sweep FILE");
    TraceJson tj;
    char err[512];
    if (trace_json_read(argv[1], &tj, err, sizeof err)) die("%s", err);
    TraceStats s;
    if (trace_stats(&tj, &s, err, sizeof err)) die("%s: %s", argv[1], err);
    printf("trace_check: %s: %d kernels, %d steps, busy %.4g\n", argv[1], tj.t.nk, s.nsteps, s.median[TS_BUSY]);
    trace_stats_free(&s);
    trace_json_free(&tj);
    return 0;
}
