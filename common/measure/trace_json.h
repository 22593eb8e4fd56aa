/* trace_json: a Chrome-trace JSON file read back into the kit's Trace records (trace.h):
 * torch.profiler's export_chrome_trace (Kineto's JSON) and the kit's own
 * results/trace_*.json (trace_write_chrome). The document is read once, front to back: a
 * small scanner cuts "traceEvents" into its events and cJSON parses one event at a time,
 * so memory holds the records, not the document. Gzipped files (.json.gz, which Kineto can
 * write) are read through zlib, plain ones the same way.
 *
 * What becomes what (Kineto's "cat"; the kit writes the same names), all "ph":"X":
 *   kernel                      -> Trace.k    (args.correlation; the kit's args.part kept)
 *   cuda_runtime, cuda_driver   -> Trace.api  (args.correlation)
 *   cpu_op, user_annotation     -> Trace.nvtx (the host's ranges)
 *   user_annotation / gpu_user_annotation "ProfilerStep#N" -> the CPU / GPU side of step N
 * Every other kind (flows, metadata, memcpy, python_function, ...) is skipped and counted.
 * A torch kernel's part is guessed from the outermost cpu_op around the op that launched it
 * ("External id"; part_from_op_name); a kit kernel keeps its tag's part. Times become ns.
 * Records come out sorted by start, steps by number. */
#ifndef KIT_TRACE_JSON_H
#define KIT_TRACE_JSON_H
#include <stddef.h>
#include <stdint.h>
#include "measure/trace.h"
#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    long number;                     /* N of ProfilerStep#N */
    uint64_t cpu0, cpu1, gpu0, gpu1; /* its CPU-side and GPU-side ranges, ns */
    int has_cpu, has_gpu;
} TraceStep;

typedef struct { char kind[32]; long n; } TraceSkip;

typedef struct {
    Trace t;
    TraceStep *steps; int nsteps;
    long cpu_ops;                    /* cpu_op events: > 0 for a torch.profiler trace */
    long events, skipped;            /* elements of traceEvents; those not used */
    TraceSkip skip[12]; int nskip;   /* the skipped kinds by cat (or ph), first 12 seen */
} TraceJson;

/* Memory is bounded by what is kept, never by one value: an event longer than
 * TRACE_JSON_MAX_EVENT bytes (a Kineto event is a few KB), a kept event's name longer than
 * TRACE_JSON_MAX_NAME, or more than TRACE_JSON_MAX_DOC bytes of JSON around traceEvents
 * (whitespace left out; Kineto writes a few KB there) is an error naming the event or byte.
 * Whitespace and events of the skipped kinds cost nothing but the time to read them. */
#define TRACE_JSON_MAX_EVENT (1 << 20)
#define TRACE_JSON_MAX_NAME (64 << 10)
#define TRACE_JSON_MAX_DOC (1 << 20)

/* A document in memory (the fuzz target's entry point). Returns 0, or -1 with one sentence
 * in err and *tj empty. A trace without kernel events is an error: nothing to analyse. */
int trace_json_parse(const char *bytes, size_t len, TraceJson *tj, char *err, size_t cap);
/* A file, plain or gzip, read in 1 MiB pieces; the same, the sentence naming the file.
 * Damaged or cut gzip data is reported as such, even where it garbled the JSON first. */
int trace_json_read(const char *path, TraceJson *tj, char *err, size_t cap);
/* The same in pieces of `piece` bytes (1 to 1 GiB): the tests and the fuzz target cut the
 * document at many places to see that no piece boundary changes the result. */
int trace_json_read_pieces(const char *path, size_t piece, TraceJson *tj, char *err, size_t cap);
void trace_json_free(TraceJson *tj);

#ifdef __cplusplus
}
#endif
#endif
