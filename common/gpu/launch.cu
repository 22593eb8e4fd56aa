/* launch: counting, tagging and the emulated dispatcher cost around every op. */
#include <nvtx3/nvToolsExt.h>
#include <cupti.h>
#include <math.h>
#include <string.h>
#include "gpu/dispatch.h"
#include "gpu/launch.h"
#include "measure/trace.h"
#include "util.h"

LaunchState g_launch;

void launch_reset(void) {
    g_launch.ops = g_launch.gemms = g_launch.weight_bytes = 0;
    memset(g_launch.per_part, 0, sizeof g_launch.per_part);
}

static int g_pushed_ext;   /* the current op pushed a CUPTI external correlation id */
static OpRecord *g_rec;    /* launch_record's buffer, NULL when not recording */
static int g_rec_cap, g_rec_n;
static double g_bytes = NAN, g_flops = NAN;   /* op_cost's, for the next op_begin */

void op_cost(double bytes, double flops) { g_bytes = bytes, g_flops = flops; }

void launch_record(OpRecord *rec, int cap) { g_rec = rec, g_rec_cap = cap, g_rec_n = 0; }
int launch_record_stop(void) {
    g_rec = NULL;
    return g_rec_n;
}

void op_begin(Part part, int layer, const char *op) {
    if (!g_launch.capturing) dispatch_wait(g_launch.dispatch_us);   /* a graph's replay pays none */
    if (g_rec) {
        const OpRecord r = {op, part, layer, g_bytes, g_flops, now_ms()};
        if (g_rec_n < g_rec_cap) g_rec[g_rec_n] = r;
        g_rec_n++;
    }
    g_bytes = g_flops = NAN;
    g_launch.ops++;
    if (part_is_gemm(part)) g_launch.gemms++;
    if ((int)part >= 0 && part < P_COUNT) g_launch.per_part[part]++;
    g_launch.seq++;
    g_launch.tag = launch_tag_encode(part, layer, g_launch.seq);
    nvtxRangePushA(op);
    g_pushed_ext = trace_active();
    if (g_pushed_ext &&
        cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, g_launch.tag) != CUPTI_SUCCESS)
        die("launch.cu: CUPTI refused the external correlation id of op %s; run without the trace", op);
}

void op_end(void) {
    if (g_pushed_ext) {
        uint64_t id;
        if (cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &id) != CUPTI_SUCCESS)
            die("launch.cu: CUPTI could not pop the external correlation id; run without the trace");
        g_pushed_ext = 0;
    }
    nvtxRangePop();
    g_launch.tag = 0;
}
