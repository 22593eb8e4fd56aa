/* trace_steps: the lesson's numbers of a trace read by trace_json, per ProfilerStep and
 * their median over the steps, with the kit's own window analysis (trace_window_host):
 *   - a step is the GPU-side ProfilerStep#N range (gpu_user_annotation) where there is
 *     one, else the CPU-side one; a kernel belongs to it when it starts inside; the host's
 *     records (launch calls, cpu_ops) come from the CPU-side range. No steps: one window.
 *     Windows that overlap (never in one profiling session) are cut to end where the next
 *     begins, with a warning: a record counts in one step only;
 *   - busy = union of kernel intervals / (first kernel start -> last kernel end), gaps
 *     between the merged intervals, p90 as stats.h computes it (numpy's linear);
 *   - host_bound = the part of each gap before its kernel's launch call began (joined by
 *     correlation id), summed, over all gap time; host_bound_gaps = day11's share of whole
 *     gaps whose launch call began after the GPU ran dry;
 *   - gpu_us = the union of kernel intervals (day11's gpu_ms_per_step), top-3 shares of
 *     all kernel time inside the steps (sums of durations);
 *   - linear = cpu_op aten::linear per CPU-side step (aten::mm + aten::addmm when the trace
 *     has no aten::linear; the GEMM ops of the kit's tags when it has no cpu_op at all);
 *   - cpu_per_launch_us = from one launch call's start to the next one's: the host's time
 *     per launched kernel; dispatch_us = that minus the launch call itself: what
 *     --dispatch-us must add in front of the kit's own launch call to emulate the run;
 *   - the dispatch intervals, pooled over the steps: inside each CPU-side window, the launch
 *     calls sorted by start, and for each but the first, its start less the end of the call
 *     before it (trace.h's TraceWindow.dispatch_ns). Their distribution is what the kit's
 *     emulated dispatcher draws from (gpu/dispatch.h: its built-in table, --dispatch-from);
 *   - longest_pause_us = the longest of a step's dispatch intervals, and pause_op where it
 *     ends: one pause a step that the median hides (a library's first call for a new shape);
 *   - host_ranges = the host-side ranges the tracer recorded in the CPU-side window, the
 *     ProfilerStep mark itself left out: cpu_op and user_annotation events of a torch trace
 *     (the aten ops torch.profiler records beside CUPTI's records), the NVTX op ranges of the
 *     kit's own. */
#ifndef KIT_TRACE_STEPS_H
#define KIT_TRACE_STEPS_H
#include "measure/trace_json.h"
#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    TS_KERNELS, TS_LAUNCHES, TS_LINEAR, TS_BUSY, TS_SPAN_US, TS_GPU_US, TS_GAPS, TS_GAP_MEDIAN_US,
    TS_GAP_P90_US, TS_HOST_BOUND, TS_HOST_BOUND_GAPS, TS_CPU_PER_LAUNCH_US, TS_LAUNCH_CALL_US,
    TS_DISPATCH_US, TS_LONGEST_PAUSE_US, TS_HOST_RANGES, TS_COUNT
} TraceStat;

/* "kernels", "launches", "linear", "busy", ...: the printed keys, in TraceStat order. */
const char *trace_stat_key(TraceStat s);

typedef struct { long number; double v[TS_COUNT]; } StepStats;   /* NAN: not defined here */
typedef struct { char name[96], parts[64]; double share, calls_per_step; } TopKernel;

typedef struct {
    int nsteps;               /* ProfilerSteps, or 1 window: the whole trace */
    const char *windows;      /* "gpu_user_annotation", "user_annotation", "mixed", "whole_trace" */
    const char *linear_from;  /* "aten::linear", "aten::mm+aten::addmm", "gemm_kernels" */
    StepStats *step;          /* nsteps (owned) */
    double median[TS_COUNT];  /* over the steps, NANs left out */
    const char *why[TS_COUNT];  /* for each median that is NAN: why it was not measured */
    TopKernel top[3]; int ntop;
    double *dispatch_us;      /* the dispatch intervals of every step, step after step, in us (owned) */
    char pause_op[128];       /* where each step's longest pause ends: the aten op (a torch trace) or the
                               * kernel whose launch call ends it, "" when no step has one, or words saying
                               * that the steps differ */
    int n_dispatch;
    /* What looks wrong in the trace but leaves numbers to report (overlapping windows,
     * absurd times): one line each, naming the step or event; the first 4 kept. */
    char warning[4][400]; int nwarnings, warnings_left_out;
} TraceStats;

/* Returns 0, or -1 with one sentence in err when no kernel starts inside any step's window
 * (prof.step() misplaced): nothing measured, *s empty. A value not measured is NAN, never 0:
 * the launch values and host-bound shares of a trace without launch calls, the host-bound
 * shares where no gap's kernel joins its launch call, the kernel values of a window without
 * kernels (warned); the medians' why says why. */
int trace_stats(const TraceJson *tj, TraceStats *s, char *err, size_t cap);
void trace_stats_free(TraceStats *s);

#ifdef __cplusplus
}
#endif
#endif
