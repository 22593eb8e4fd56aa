/* replay: a measured decode step replayed on a model of a GPU's timeline.
 *
 * Day 11 measures where a step's time goes on the GPU at hand. To say what the same step
 * would do on another GPU (a student's T4, a GPU 2x or 10x faster: mistake #14), the kit
 * replays it on one stream with two rules:
 *
 *   start_i = max(submit_i + latency, end_{i-1} + gap)     the GPU cannot run a kernel before
 *                                                          the host has launched it, nor before
 *                                                          the kernel ahead of it has finished
 *   dur_i   = max(bytes_i / (bw x e), flops_i / (peak x f)) + c     per kernel class
 *
 * submit_i is when the host began op i's launch call, from the launch path's own clock in an
 * untraced run (a tracer would stretch the host side it is meant to replay); in a graph every
 * kernel's submit is the graph launch's. bytes and flops are what the launch site says the op
 * moves and computes (gpu/launch.h's op_cost); bw is what a device-to-device copy reaches on
 * the GPU (not its datasheet: no kernel sees that), so e carries over to a GPU whose copy was
 * measured. e and c are fitted per kernel class on the GPU at hand from the kernel-only trace
 * (replay_fit); f is assumed, as no decode op at batch 1 is compute-bound; the latency comes
 * from the full trace, the gap between two graph nodes and the synchronize's cost from the
 * untraced TPOT. Then the step's TPOT is max(last end, the host's hand-over) + sync, its busy
 * ratio the kernels' time over that, its gaps the idle stretches between kernels.
 *
 * An op is one launch from the host (op_begin); its kernels are counted as one: cuBLAS's
 * split-K reduce after a GEMM is part of the GEMM's op. Plain C, no CUDA: the tests replay
 * hand-made steps without a GPU, and bin/forecast replays day11's saved steps. */
#ifndef KIT_REPLAY_H
#define KIT_REPLAY_H
#include <stddef.h>
#include "model/eager_ops.h"
#ifdef __cplusplus
extern "C" {
#endif

/* A replay class: eager_ops.h's OpClass, and the kit's own GEMV kernels (the fused step's
 * gemv_*), whose speed is not cuBLAS's, as a class of their own. */
enum { RC_GEMV = OC_COUNT, RC_COUNT };
const char *replay_class_name(int cls);          /* op_class_name, and "gemv" */
int replay_class_from_name(const char *name);    /* the inverse; -1 if no class has that name */
int replay_class_of_kernel(const char *kernel);  /* op_class_of_kernel, "gemv*" -> RC_GEMV */

typedef struct {
    int cls;               /* the replay class of its first kernel */
    double bytes, flops;   /* what it moves to and from memory; 2 x its multiply-adds (0: none worth a model) */
    double submit_us;      /* host: when its launch call began, us from the step's start (untraced) */
    double dur_us;         /* measured GPU time of its kernels, each charged from the later of its start
                            * and the previous kernel's end (so under programmatic dependent launch the
                            * overlap is not counted twice); NAN when not measured */
} ReplayOp;

typedef struct {
    char name[40];         /* the configuration: <mode>_b<batch>_d<dispatch> */
    int graph;             /* replayed from one graph launch: every op's submit_us is the graph's */
    int pdl;               /* its kernels are launched with programmatic dependent launch */
    double host_end_us;    /* when the host had handed the whole step over (before the synchronize) */
    double tpot_ms, busy_pct;   /* measured (untraced TPOT, kernel-trace busy), to compare; NAN if not */
    int n;
    ReplayOp *ops;         /* n ops, in launch order (owned by whoever filled it) */
} ReplayStep;

/* What the model needs of a GPU. */
typedef struct {
    char name[32];         /* "h200", "t4", "2x", ... */
    double bw_gbs;         /* what a device-to-device copy reaches on it, GB/s (read + written over time): e
                            * is a fraction of it, so e carries over to a GPU whose copy was measured */
    double tflops;         /* dense fp16 tensor-core peak, TFLOP/s */
    int pdl;               /* programmatic dependent launch exists (sm_90+); else every kernel pays gap_us */
} ReplayGpu;

/* A Colab T4: about 240 GB/s by a device-to-device copy (its datasheet: 320), 65 TFLOP/s fp16
 * tensor (the datasheet's), sm_75: no PDL. */
extern const ReplayGpu REPLAY_T4;
#define REPLAY_T4_DATASHEET_GBS 320.0

/* gpu k times faster in every kernel, named "<k>x": bandwidth and peak x k; replay it with a
 * c_scale of 1 / k for each op's fixed cost (mistake #14's "a GPU 2x faster"). */
ReplayGpu replay_faster(const ReplayGpu *gpu, double k);

/* The fitted and measured constants, per class where they depend on the kernel. */
typedef struct {
    double e[RC_COUNT];        /* bandwidth efficiency against a copy: bytes / (bw x e) (0 < e <= REPLAY_E_MAX) */
    double f[RC_COUNT];        /* compute efficiency: flops / (peak x f) */
    double c_us[RC_COUNT];     /* fixed cost per op, us (>= 0) */
    int n[RC_COUNT];           /* ops each class was fitted on (0: not fitted; the class replays with the
                                * pooled e and f and the median c of the fitted classes) */
    int e_pooled[RC_COUNT];    /* e taken from the pooled fit: the class's own bytes are too few to show it */
    double latency_us;         /* launch call begins -> its kernel starts on an idle GPU (measured) */
    double gap_us;             /* idle between two kernels queued back to back, without PDL */
    double gap_pdl_us;         /* the same under PDL (= gap_us where the GPU has none) */
    double sync_us;            /* last kernel ends -> the host's synchronize returns (fitted: the median
                                * residual of the fit's steps) */
} ReplayFit;

/* f where no fitted op is compute-bound (batch 1 and 32 decode never is): an assumption, printed. */
#define REPLAY_F_ASSUMED 0.6
/* A class whose largest op's bandwidth time is under this share of its median duration shows
 * no bandwidth term: its e is the pooled one, and only c is fitted. */
#define REPLAY_E_VISIBLE 0.25
/* A kernel that only reads can outrun a copy, which turns the bus around between reads and
 * writes, by some; a class fitted faster than this says its bytes came from a cache or were
 * miscounted, and takes the pooled e. */
#define REPLAY_E_MAX 1.25

/* Fits e and c per class on the ops with a measured dur_us (least squares of dur = bytes /
 * (bw e) + c, e in (0, REPLAY_E_MAX], c >= 0; f = REPLAY_F_ASSUMED), on the GPU gpu; latency_us,
 * gap_us and gap_pdl_us must be set in *fit before the call (measured from a trace). Then
 * sync_us from the measured TPOT of the steps that are not graphs (of all, if all are), and
 * last the gaps again from the graph steps among them, where there are any: a kernel trace
 * of a graph shows its kernels nearly touching (CUPTI's records leave out most of the cost
 * between two nodes), so the gap is what each graph step's untraced TPOT leaves after its
 * kernels, latency and sync, shared over its boundaries (all such steps' leftovers over all
 * their boundaries; gap_us from the steps without PDL, gap_pdl_us from those with it). Returns
 * 0, or -1 with one sentence in err (no op has a duration, a GPU with no bandwidth). */
int replay_fit(const ReplayStep *steps, int nsteps, const ReplayGpu *gpu, ReplayFit *fit, char *err, size_t cap);

/* The fit replay_fit makes for one class, on any set of timed ops: dur_us = bytes / (bw_gbs x e)
 * + c_us by least squares (c >= 0), for a class that moves bytes enough to show its slope (see
 * REPLAY_E_VISIBLE, REPLAY_E_MAX). Day09 fits its GEMV sweep with it, so the curve and the
 * timeline model read the same c and e off the same rule. Returns 1 and sets *e, *c_us, or 0
 * when the ops cannot show a bandwidth (and leaves them). */
int replay_fit_line(const double *bytes, const double *dur_us, int n, double bw_gbs, double *e, double *c_us);

/* f of class cls from one of its ops timed alone at a size where its FLOPs show (a calibration
 * the fit's batch-1 steps cannot give: dur_us = flops / (peak f) + c, the class's c as fitted).
 * Sets fit->f[cls] and returns it; where the time is within 1.2x what the op's bytes take at
 * the class's e, the FLOPs do not show, and it returns NAN and leaves f as it was. */
double replay_fit_f(ReplayFit *fit, const ReplayGpu *gpu, int cls, double bytes, double flops, double dur_us);

/* An op's modelled duration on gpu with fit's class constants, c scaled by c_scale (1 = as
 * fitted; the sensitivity line uses 0.5 and 2). */
double replay_dur_us(const ReplayOp *op, const ReplayGpu *gpu, const ReplayFit *fit, double c_scale);

typedef struct {
    double tpot_ms;        /* max(last end, host_end_us) + sync_us */
    double gpu_ms;         /* sum of the modelled durations */
    double busy_pct;       /* 100 gpu_ms / tpot_ms */
    double gap_median_us;  /* of the idle stretches between kernels inside the step (0 when none) */
    int gaps;              /* how many */
    int host_bound;        /* ops that started at their submit + latency, not at the kernel ahead's end */
} ReplayResult;

/* Replays one step on gpu (its pdl decides gap_us or gap_pdl_us for a step launched with PDL). */
ReplayResult replay_step(const ReplayStep *s, const ReplayGpu *gpu, const ReplayFit *fit, double c_scale);

/* ---- results/replay.tsv: the steps and the fit, for bin/forecast ----------------------- */
/* One tab-separated file: a line per fit constant, per class, per step and per op (the format
 * is documented at the top of the file it writes). Returns 0, or -1 with err naming the file. */
int replay_write(const char *path, const ReplayGpu *gpu, const ReplayFit *fit, const ReplayStep *steps, int n,
                 char *err, size_t cap);
/* Reads it back: *steps (malloc'd, each with its malloc'd ops) and their count; -1 with one
 * sentence naming the file and line when it is not such a file. */
int replay_read(const char *path, ReplayGpu *gpu, ReplayFit *fit, ReplayStep **steps, int *n, char *err, size_t cap);
void replay_steps_free(ReplayStep *steps, int n);

#ifdef __cplusplus
}
#endif
#endif
