/* launch: the one path every kernel launch and cuBLAS call of the model goes through. It
 * counts the op, tags it with its model part and layer (NVTX range named after the op,
 * CUPTI external correlation id when a trace is running), and can busy-wait on the host
 * first, to emulate a Python framework's per-op dispatcher: a time drawn from the
 * distribution of gpu/dispatch.h, scaled so that its median is dispatch_us. */
#ifndef KIT_LAUNCH_H
#define KIT_LAUNCH_H
#include "parts.h"
#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    double dispatch_us;             /* the median host busy-wait before each launch (0 = none) */
    long long ops;                  /* ops launched from the host since launch_reset() */
    long long gemms;                /* of which linear layers */
    long long weight_bytes;         /* bytes of weights the linear layers read (and the unfused int8
                                     * path's dequantize kernels write), as launched */
    long long per_part[P_COUNT];
    int capturing;                  /* inside a CUDA-graph capture: no dispatch wait */
    unsigned long long tag;         /* the current op's launch_tag_encode(), 0 outside an op */
    unsigned seq;                   /* op sequence number, part of the tag */
} LaunchState;
extern LaunchState g_launch;

void launch_reset(void);
void op_begin(Part part, int layer, const char *op);   /* before the launch */
void op_end(void);                                     /* after it (and its KERNEL_CHECK) */
/* The op's cost, for the timeline model (measure/replay.h): the bytes its kernels move to and
 * from memory and its FLOPs (2 x its multiply-adds; 0 where there are none worth modelling),
 * said by the launch site before op_begin. An op launched without one records NAN. */
void op_cost(double bytes, double flops);

/* A record of the ops launched between launch_record(rec, cap) and launch_record_stop(),
 * which returns how many there were (the first cap of them are in rec): the eager step's
 * check against its table, and the submit times and costs the timeline model replays. */
typedef struct {
    const char *op;
    Part part;
    int layer;
    double bytes, flops;   /* op_cost's (NAN: none given) */
    double t_ms;           /* now_ms() when the launch call began, after the dispatcher's wait */
} OpRecord;
void launch_record(OpRecord *rec, int cap);
int launch_record_stop(void);

#ifdef __cplusplus
}
#endif

#ifdef __CUDACC__
/* LAUNCH(part, layer, "op", kernel, grid, block, smem, stream, args...) */
#define LAUNCH(part, layer, opname, kernel, grid, block, smem, stream, ...)      \
    do {                                                                       \
        op_begin(part, layer, opname);                                         \
        kernel<<<grid, block, smem, stream>>>(__VA_ARGS__);                    \
        KERNEL_CHECK(opname);                                                  \
        op_end();                                                              \
    } while (0)
#endif
#endif
