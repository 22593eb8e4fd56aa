/* dispatch: the emulated Python dispatcher, the host's cost before each launch.
 *
 * In PyTorch eager every op passes through Python and the dispatcher before its kernel is
 * launched: the lesson's 30-50 us of CPU per op on a T4's host. The kit launches from C in a
 * few microseconds, so to reproduce the lesson's regime on any GPU the launch path (op_begin,
 * gpu/launch.cu) busy-waits before each launch from the host. How long is not a constant:
 * a real trace's host gaps are a spread, short between a cuBLAS call's two kernels, long
 * where Python builds a module's arguments, and a constant would make the gap histogram a
 * single spike. So each wait is drawn from a distribution measured in a real torch.profiler
 * trace:
 *
 *   - the shape: the host time between launch calls (from the end of one launch call to the
 *     start of the next, inside each ProfilerStep, measure/trace_steps.h), stored as its
 *     quantiles at DISPATCH_PCT's percentiles, each divided by the median (so q = 1 at p50);
 *   - a draw: u uniform in [0, 1) from a seeded splitmix64 generator, then the inverse CDF,
 *     linear between the stored quantiles, times the median asked for (--dispatch-us N:
 *     N is the median). The same seed gives the same waits, launch for launch;
 *   - the built-in shape (DISPATCH_BUILTIN, dispatch.c) is the one measured from the course's
 *     fixture trace; --dispatch-from TRACE.json[.gz] takes shape and median from a student's
 *     own trace through the same reader (bin/trace_stats's), and --dispatch-us beside it
 *     rescales that trace's median.
 *
 * Plain C, no CUDA: the tests draw from it without a GPU. */
#ifndef KIT_DISPATCH_H
#define KIT_DISPATCH_H
#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

enum { DISPATCH_NQ = 29 };
/* The percentiles the shape is stored at: every 5 in the body, finer in both tails (a few
 * percent of the intervals are the ~1 us between two kernels of one op; the top 0.1% are
 * the rare long stalls, and a wide last segment would put too much weight on them). */
extern const double DISPATCH_PCT[DISPATCH_NQ];

typedef struct {
    double q[DISPATCH_NQ];   /* the host time at DISPATCH_PCT[i], over the median: q at p50 = 1 */
    double median_us;        /* the median of the intervals it was measured from */
    int n;                   /* how many intervals */
    char source[160];        /* where it came from, in a few words, for the rows' notes */
} DispatchShape;

/* The shape measured from the course's fixture trace (dispatch.c says which and how). */
extern const DispatchShape DISPATCH_BUILTIN;
#define DISPATCH_SEED 0x6b69742d64697370ull   /* "kit-disp": any fixed number would do */

/* ---- the distribution, pure functions of a shape --------------------------------------- */
/* The quantile at percentile p (0..100) over the median, linear between the stored ones. */
double dispatch_quantile(const DispatchShape *s, double p);
/* The mean over the median: the stored distribution's, the piecewise-linear one a draw
 * follows. What sets a step's host time: launches x median x this. */
double dispatch_mean(const DispatchShape *s);
/* One draw, in us, for u in [0, 1): median_us x dispatch_quantile(s, 100 u); 0 when median_us
 * is 0 (no dispatcher). */
double dispatch_sample(const DispatchShape *s, double median_us, double u);
/* splitmix64: the next 64 bits of the stream in *state, and a uniform [0, 1) from them. */
uint64_t dispatch_next(uint64_t *state);
double dispatch_uniform(uint64_t *state);

/* Sorts the intervals (us) in place and fills *out with their shape: median, quantiles over
 * it, count; source left empty. A negative interval (calls of two threads overlapping) counts
 * as 0. Returns 0, or -1 with one sentence in err: fewer than DISPATCH_MIN_INTERVALS
 * intervals, or a median of 0 (nothing to scale). */
enum { DISPATCH_MIN_INTERVALS = 10 };
int dispatch_shape_from(double *intervals_us, int n, DispatchShape *out, char *err, size_t cap);
/* The shape of a torch.profiler trace (or the kit's own results/trace_*.json), read by
 * bin/trace_stats's reader and analysis (measure/trace_json.h, measure/trace_steps.h): the
 * intervals of every ProfilerStep pooled. 0, or -1 with one sentence naming the file. */
int dispatch_shape_from_trace(const char *path, DispatchShape *out, char *err, size_t cap);
/* The shape as the C initializer DISPATCH_BUILTIN is written with (bin/trace_stats
 * --dispatch-table prints it; a test holds dispatch.c to it). */
void dispatch_print_table(const DispatchShape *s);

/* ---- the process's dispatcher: the shape op_begin draws from and its generator ---------- */
const DispatchShape *dispatch_shape(void);    /* DISPATCH_BUILTIN until dispatch_use */
void dispatch_use(const DispatchShape *s);    /* copies it; NULL: back to the built-in */
void dispatch_seed(uint64_t seed);            /* the generator starts at DISPATCH_SEED */
/* One draw scaled to median_us, from the process's shape and generator. */
double dispatch_draw(double median_us);
/* op_begin's call: busy-waits one draw (the host is busy, as Python would be, not asleep).
 * median_us <= 0 returns at once. Returns the microseconds waited. */
double dispatch_wait(double median_us);

/* What a program does with its --dispatch-us (NAN when not given) and --dispatch-from (NULL
 * when not given), right after parsing: with a trace, its shape becomes the process's (one
 * sentence naming the file and exit 1 when it cannot give one, before any GPU work); returns
 * the median to use: --dispatch-us when given, else the trace's median, else default_us
 * (args.h's DISPATCH_US_DEFAULT for the days). */
double dispatch_setup(const char *prog, double median_us, const char *trace, double default_us);

#ifdef __cplusplus
}
#endif
#endif
