/* trace: what happened on the CPU and the GPU, from CUPTI's Activity API, and what the
 * lessons compute from it: kernels per step, GPU time per model part, the busy ratio, the
 * gaps and whether the host caused them, and a Chrome-trace JSON that Perfetto opens.
 * All timestamps are CUPTI's, in nanoseconds. The records and the analysis are plain C
 * (trace.c, tested on made-up records); the collection is CUDA (trace_cupti.cu). */
#ifndef KIT_TRACE_H
#define KIT_TRACE_H
#include <stdint.h>
#include "parts.h"
#include "measure/stats.h"
#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    uint64_t start, end;
    uint32_t corr;          /* correlation id of the API call that launched it */
    uint32_t stream, device;
    uint64_t ext;           /* external correlation id pushed by the launch path, 0 if none */
    int part, layer;        /* decoded from ext (launch_tag_decode); P_OTHER / -1 if none */
    int is_gemm;            /* tagged as a linear layer by the launch path */
    const char *name;       /* demangled kernel name (owned by the trace) */
    const char *op;         /* a torch trace's: the outermost aten op that launched it (its Trace.nvtx
                             * range's name, owned by the trace); NULL otherwise */
} TKernel;

typedef struct {
    uint64_t start, end;
    uint32_t corr, tid;
    int cbid;               /* CUPTI runtime callback id */
    const char *name;       /* "cudaLaunchKernel", "cudaLaunchKernelExC", "cudaGraphLaunch", ... */
} TApi;

typedef struct { uint64_t start, end; uint32_t tid; const char *name; } TRange;   /* NVTX */
typedef struct { uint64_t start, end; uint32_t corr, stream; uint64_t bytes; int is_memset; int copy_kind; } TMem;
typedef struct { uint64_t start, end; uint32_t corr; int type; } TSync;              /* synchronization */

typedef struct {
    TKernel *k; int nk, capk;
    TApi *api; int napi, capapi;
    TRange *nvtx; int nnvtx, capnvtx;
    TMem *mem; int nmem, capmem;
    TSync *sync; int nsync, capsync;
    uint64_t dropped;       /* records CUPTI reported as dropped */
} Trace;

/* Appending records (the collector uses these; tests build traces by hand). Strings are
 * copied. trace_clear() keeps the arrays for reuse. */
void trace_add_kernel(Trace *t, const TKernel *k);
void trace_add_api(Trace *t, const TApi *a);
void trace_add_nvtx(Trace *t, const TRange *r);
void trace_add_mem(Trace *t, const TMem *m);
void trace_add_sync(Trace *t, const TSync *s);
void trace_clear(Trace *t);
void trace_free(Trace *t);
const TApi *trace_api_by_corr(const Trace *t, uint32_t corr);   /* NULL if none */
/* A kernel's part: its tag's when it has one (other than "other", the tag a graph's kernels
 * carry from the op that launched the graph), else the guess from its name. */
int trace_kernel_part(const TKernel *k);
/* cudaLaunchKernel*, cudaLaunchCooperativeKernel*, cudaGraphLaunch* and their driver twins. */
int trace_is_launch_call(const char *api_name);

/* The launch path's external correlation id: part, layer and a sequence number in 64 bits. */
uint64_t launch_tag_encode(int part, int layer, uint32_t seq);
void launch_tag_decode(uint64_t tag, int *part, int *layer);

typedef struct { const char *name; int part; int calls; double total_ns, avg_ns, sd_ns, share; } TNameTime;
/* path_ns: the part's share of what the window waits on. Kernels are taken in the order they
 * end, each charged from the previous end (or its own start, if later) to its own end, so the
 * parts' path_ns add up to busy_ns. Under programmatic dependent launch kernels overlap (the
 * next one starts and waits), and their GPU times add up to more than the step. */
typedef struct { int calls; double total_ns, share, path_ns; } TPartTime;

/* Everything a day prints about a window [t0, t1] holding `steps` decode steps. */
typedef struct {
    int steps;
    int kernels;                 /* kernel records starting inside the window */
    int gemms;                   /* GEMM ops (cuBLAS calls) counted over the window's steps */
    double kernels_per_step, gemms_per_step, nvtx_ops_per_step, launch_calls_per_step;
    double gpu_ns;               /* sum of kernel durations */
    double busy_ns, span_ns, busy_ratio;
    int n_gaps;
    double *gaps_ns;             /* n_gaps gaps, in timeline order (owned) */
    int *gap_part;               /* the part of the kernel that closes each: what the GPU waited for (owned) */
    Stats gap;                   /* of gaps_ns, in ns */
    double gap_total_ns, host_bound_ns, host_bound_share;   /* whole gaps whose launch call began after the GPU ran dry */
    double host_wait_ns, host_wait_share;   /* of those gaps only the part before the launch call began */
    int n_gaps_joined;           /* gaps whose closing kernel's launch call is in the trace: 0, and the
                                  * host-bound shares above are 0 without having been measured */
    Stats launch_api_ns;         /* duration of cudaLaunchKernel* calls */
    Stats launch_interval_ns;    /* from one launch call's start to the next one's: the host's time per launch */
    double *dispatch_ns;         /* for each launch call after the first (by start): the time from the end of
                                  * the call before it to its start, the host's time per launch beyond the
                                  * call itself (what the emulated dispatcher draws from); n_dispatch of them,
                                  * in the calls' order (owned) */
    int n_dispatch;
    double longest_dispatch_ns;  /* the longest of them: the host's longest pause between two launches */
    uint32_t longest_dispatch_corr;   /* the correlation id of the launch call that ended it */
    Stats launch_delay_ns;       /* kernel start - end of its launch call (>= 0) */
    TPartTime parts[P_COUNT];
    TNameTime *names; int n_names;   /* sorted by total time, descending (owned) */
} TraceWindow;

TraceWindow trace_window(const Trace *t, uint64_t t0, uint64_t t1, int steps);
/* The same with the host's records (API calls, NVTX ranges) taken from their own window
 * [h0, h1]: a torch.profiler step has a CPU-side and a GPU-side ProfilerStep range. */
TraceWindow trace_window_host(const Trace *t, uint64_t t0, uint64_t t1, uint64_t h0, uint64_t h1, int steps);
void trace_window_free(TraceWindow *w);
/* Chrome-trace JSON (Kineto-style cat/args) of the window; returns 0 on success. */
int trace_write_chrome(const Trace *t, uint64_t t0, uint64_t t1, const char *path);

/* ---- collection (trace_cupti.cu) ---- */
/* Starts CUPTI activity collection into *t: every kind (kernels, runtime and driver calls,
 * copies, syncs, NVTX ranges, the launch path's tags). Returns 0 when it works; when CUPTI
 * cannot start (another profiler attached, too few privileges, a driver older than CUPTI)
 * prints one line saying which call failed and what to do, and returns -1, and the caller
 * goes on without a trace. A running trace is stopped first. */
int trace_start(Trace *t);
/* The lightest trace: kernel records alone (no API calls, no tags; graph kernels still get
 * their node's tag). It slows each launch far less than the full trace; the days measure
 * both costs (day11). */
int trace_start_kernels(Trace *t);
/* NVTX ranges (the op names on the CPU track) reach CUPTI only if it is named before the
 * process's first NVTX call, the model's first launch: call this before gpu_model_open when
 * the trace starts later. With no trace running, CUPTI's NVTX hook then sees each range. */
void trace_bind_nvtx(void);
void trace_flush(void);          /* moves CUPTI's buffered records into the Trace */
void trace_stop(void);
int trace_active(void);          /* a full trace runs: the launch path tags its ops */
int trace_collecting(void);      /* either trace runs */
uint64_t trace_now(void);        /* CUPTI's clock, to mark windows */

#ifdef __cplusplus
}
#endif
#endif
