/* fuzz target: a Chrome trace, torch.profiler's or the kit's, through bin/trace_stats's reader
 * and analysis (common/measure/trace_json.c, common/measure/trace_steps.c). Each input is read
 * in memory (trace_json_parse) and then by one more way in, which its length chooses (n % 3):
 *   0: as a file, in small pieces (trace_json_read_pieces, 1 to 97 bytes as the length says):
 *      the boundaries between the reader's pieces fall everywhere;
 *   1: gzipped into a .gz file and read as bin/trace_stats reads it (trace_json_read, 1 MiB);
 *   2: that .gz cut short by one byte or more (its first two, gzip's magic, stay).
 * An input that is itself gzip data (it starts 1f 8b: tests/fuzz/regress/torch_trace/ has
 * one) reaches zlib's damaged-data paths through way 0.
 * Invariants: a refused trace says why (the analysis refuses only a trace whose steps hold
 * no kernel), and so does each median not measured; a complete file gives the same records
 * or the same sentence as memory (the file's prefixed with its path); a cut .gz is refused
 * as cut short (or on a bound, which the reader checks first); an accepted trace has at
 * least one window, and every busy ratio and host-bound share it computes lies in [0, 1];
 * its dispatch intervals are finite, and the emulated dispatcher's shape made from them
 * (gpu/dispatch.h, --dispatch-from) rises from p0 to p100 with 1 at the median, or is
 * refused with a sentence.
 * The reader reports bad input in its err string and never dies. */
#include <math.h>
#include <string.h>
#include <zlib.h>
#include "fuzz.h"
#include "gpu/dispatch.h"
#include "measure/trace_json.h"
#include "measure/trace_steps.h"

static int unit(double v) { return isnan(v) || (v >= 0 && v <= 1 + 1e-9); }

typedef struct { int rc; char err[512]; int nk, napi, nnvtx, nsteps; long events, skipped, cpu_ops; } Outcome;

typedef struct { const uint8_t *data; size_t n; const char *path; size_t piece; int analyse; Outcome *out; } Input;

static void analyse(const TraceJson *tj) {
    TraceStats s;
    char err[512] = "";
    if (trace_stats(tj, &s, err, sizeof err)) {
        FUZZ_ASSERT(*err && tj->nsteps > 0 && !s.step, "the analysis refused a trace without a reason, or without steps");
        return;
    }
    FUZZ_ASSERT(s.nsteps >= 1, "%d windows", s.nsteps);
    for (int k = 0; k < TS_COUNT; k++)
        FUZZ_ASSERT(!isnan(s.median[k]) == !s.why[k], "median %s: %g, why %s", trace_stat_key(k), s.median[k],
                    s.why[k] ? s.why[k] : "none");
    for (int i = 0; i < s.nsteps; i++)
        FUZZ_ASSERT(unit(s.step[i].v[TS_BUSY]) && unit(s.step[i].v[TS_HOST_BOUND]) && unit(s.step[i].v[TS_HOST_BOUND_GAPS]),
                    "step %d: busy %g, host-bound %g / %g", i, s.step[i].v[TS_BUSY], s.step[i].v[TS_HOST_BOUND],
                    s.step[i].v[TS_HOST_BOUND_GAPS]);
    for (int i = 0; i < s.n_dispatch; i++)
        FUZZ_ASSERT(isfinite(s.dispatch_us[i]), "dispatch interval %d of %d: %g", i, s.n_dispatch, s.dispatch_us[i]);
    DispatchShape d;
    if (dispatch_shape_from(s.dispatch_us, s.n_dispatch, &d, err, sizeof err) == 0) {
        int rising = d.median_us > 0 && d.n == s.n_dispatch;
        for (int i = 0; i < DISPATCH_NQ; i++)
            rising &= (i == 0 || d.q[i] >= d.q[i - 1]) && (DISPATCH_PCT[i] != 50 || d.q[i] == 1);
        FUZZ_ASSERT(rising, "the dispatcher's shape of %d intervals does not rise to 1 at the median", s.n_dispatch);
    } else FUZZ_ASSERT(*err, "the dispatcher's shape refused without a reason");
    trace_stats_free(&s);
}

/* One way in: in memory when path is NULL, else the file in pieces of in->piece bytes
 * (0: as bin/trace_stats reads it, trace_json_read). */
static void read_trace(void *ctx) {
    const Input *in = ctx;
    Outcome *o = in->out;
    TraceJson tj;
    o->rc = !in->path ? trace_json_parse((const char *)in->data, in->n, &tj, o->err, sizeof o->err)
          : in->piece ? trace_json_read_pieces(in->path, in->piece, &tj, o->err, sizeof o->err)
                      : trace_json_read(in->path, &tj, o->err, sizeof o->err);
    if (o->rc != 0) {
        FUZZ_ASSERT(o->rc == -1 && *o->err, "a refused trace without a reason (rc %d)", o->rc);
        return;
    }
    *o = (Outcome){0, "", tj.t.nk, tj.t.napi, tj.t.nnvtx, tj.nsteps, tj.events, tj.skipped, tj.cpu_ops};
    if (in->analyse) analyse(&tj);
    trace_json_free(&tj);
}

/* One way in, analysed or not (the records are compared; the analysis has run on them). */
static Outcome way_in(const uint8_t *data, size_t n, const char *path, size_t piece, int analysed) {
    Outcome o = {.rc = 1};
    Input in = {data, n, path, piece, analysed, &o};
    FUZZ_ASSERT(!fuzz_try(read_trace, &in), "the reader died (%s)", path ? path : "in memory");
    return o;
}

/* The file's sentence is "PATH: " and the in-memory one. */
static void same(const Outcome *mem, const Outcome *file, const char *path, const char *how) {
    size_t k = strlen(path);
    const char *sentence = !strncmp(file->err, path, k) && !strncmp(file->err + k, ": ", 2) ? file->err + k + 2 : file->err;
    FUZZ_ASSERT(mem->rc == file->rc, "%s: rc %d, in memory %d (%s / %s)", how, file->rc, mem->rc, file->err, mem->err);
    if (mem->rc) {
        FUZZ_ASSERT(!strcmp(sentence, mem->err), "%s: \"%s\", in memory \"%s\"", how, sentence, mem->err);
        return;
    }
    FUZZ_ASSERT(mem->nk == file->nk && mem->napi == file->napi && mem->nnvtx == file->nnvtx && mem->nsteps == file->nsteps &&
                mem->events == file->events && mem->skipped == file->skipped && mem->cpu_ops == file->cpu_ops,
                "%s: records %d/%d/%d steps %d events %ld, in memory %d/%d/%d steps %d events %ld", how, file->nk,
                file->napi, file->nnvtx, file->nsteps, file->events, mem->nk, mem->napi, mem->nnvtx, mem->nsteps, mem->events);
}

/* gzip (not zlib) data of data[0..n) into a buffer the caller frees; its length in *gz_n. */
static uint8_t *gzip_of(const uint8_t *data, size_t n, size_t *gz_n) {
    z_stream z = {0};
    FUZZ_ASSERT(deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK, "deflateInit2");
    size_t cap = deflateBound(&z, (uLong)n) + 32;
    uint8_t *out = malloc(cap);
    z.next_in = (Bytef *)data;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    FUZZ_ASSERT(out && deflate(&z, Z_FINISH) == Z_STREAM_END, "deflate");
    *gz_n = cap - z.avail_out;
    deflateEnd(&z);
    return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n) {
    Outcome mem = way_in(data, n, NULL, 0, 1);
    if (n % 3 == 0) {
        const char *plain = fuzz_write("trace.json", data, n);
        Outcome file = way_in(data, n, plain, 1 + n % 97, 0);
        if (!(n >= 2 && data[0] == 0x1f && data[1] == 0x8b))   /* gzip data: the file reader unpacks it */
            same(&mem, &file, plain, "the file in pieces");
        return 0;
    }
    size_t gz_n;
    uint8_t *gz = gzip_of(data, n, &gz_n);
    if (n % 3 == 1) {
        const char *packed = fuzz_write("trace.json.gz", gz, gz_n);
        Outcome zipped = way_in(data, n, packed, 0, 0);
        same(&mem, &zipped, packed, "gzipped");
    } else {
        size_t cut = 1 + n % (gz_n - 2);
        const char *short_gz = fuzz_write("cut.json.gz", gz, gz_n - cut);
        Outcome o = way_in(data, n, short_gz, 1 + n % 31, 0);
        FUZZ_ASSERT(o.rc == -1 && (strstr(o.err, "cut short") || strstr(o.err, "MiB") || strstr(o.err, "KiB")),
                    "a .gz %zu of %zu bytes short: %s", cut, gz_n, o.rc ? o.err : "accepted");
    }
    free(gz);
    return 0;
}
