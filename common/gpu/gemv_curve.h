/* gemv_curve: the kit's batch-1 GEMV timed alone on matrices from 1 MB to 268 MB, fp16 and
 * int8, to show what a kernel costs beyond its bytes.
 *
 * A decode step is GEMVs. Each takes time = c + bytes / (bandwidth x e): c, what a kernel pays
 * whatever its size (its first loads in flight, x into shared memory, the last block's sums and
 * epilogue), and e, how much of a copy's bandwidth it streams at once it is going. int8 halves
 * the bytes and leaves c. On a matrix whose time is mostly c, int8 gains little; on one whose
 * time is mostly bytes, up to 2x. TinyLlama's matrices (8-131 MB in fp16) sit where c still
 * counts; Llama-2-7B's (34-262 MB), where the lesson's 1.47x was measured, sit further out.
 *
 * Each shape runs as in a step: the lm_head epilogue (y = W x stored), one row of x, launched
 * back to back with the model's launch (programmatic dependent launch on sm_90), the weights
 * rotated over copies that fill at least 4x the L2, so every launch reads its weights from
 * DRAM. Time per launch from CUDA events around 50 launches, five samples after a warm-up
 * (measure/timer.h's time_launches_us). */
#ifndef KIT_GEMV_CURVE_H
#define KIT_GEMV_CURVE_H
#include "measure/stats.h"

typedef struct {
    const char *key;        /* row key part: "tl_gate_up", "7b_down", "sq8192" */
    const char *model;      /* "TinyLlama", "Llama-2-7B", or "" (a shape of the sweep only) */
    const char *what;       /* "gate/up", "down", ... or "square" */
    int N, K;               /* W is N x K */
} GemvShape;

enum { GEMV_CURVE_SHAPES = 14 };
extern const GemvShape GEMV_CURVE[GEMV_CURVE_SHAPES];   /* in order of size */

typedef struct {
    const GemvShape *shape;
    int int8;               /* 0 fp16 weights, 1 int8 with a fp32 scale per row */
    double bytes;           /* what it reads of W: N x K x 2, or N x K + 4 N */
    Stats us;               /* per launch, over the five samples */
} GemvPoint;

/* Times every shape whose fp16 weights take at most max_ms at copy_gbs (a copy's bandwidth,
 * GB/s): fp16 then int8 for each. Returns the points written (at most 2 x GEMV_CURVE_SHAPES). */
int gemv_curve(double copy_gbs, double max_ms, GemvPoint *out);

#endif
