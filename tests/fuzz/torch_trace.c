/* fuzz target: a Chrome trace, torch.profiler's or the kit's, through bin/trace_stats's reader
 * and analysis (common/measure/trace_json.c, common/measure/trace_steps.c). The reader reports bad input in
 * its err string and never dies; the analysis runs on whatever it accepted. Invariants: a
 * refused trace says why; an accepted one has at least one window, and every busy ratio and
 * host-bound share it computes lies in [0, 1]. */
#include <math.h>
#include <string.h>
#include "fuzz.h"
#include "measure/trace_json.h"
#include "measure/trace_steps.h"

static int unit(double v) { return isnan(v) || (v >= 0 && v <= 1 + 1e-9); }

typedef struct { const uint8_t *data; size_t n; } Input;

static void read_trace(void *ctx) {
    const Input *in = ctx;
    TraceJson tj;
    char err[256] = "";
    if (trace_json_parse((const char *)in->data, in->n, &tj, err, sizeof err) != 0) {
        FUZZ_ASSERT(*err, "a refused trace without a reason");
        return;
    }
    TraceStats s = trace_stats(&tj);
    FUZZ_ASSERT(s.nsteps >= 1, "%d windows", s.nsteps);
    for (int i = 0; i < s.nsteps; i++)
        FUZZ_ASSERT(unit(s.step[i].v[TS_BUSY]) && unit(s.step[i].v[TS_HOST_BOUND]) && unit(s.step[i].v[TS_HOST_BOUND_GAPS]),
                    "step %d: busy %g, host-bound %g / %g", i, s.step[i].v[TS_BUSY], s.step[i].v[TS_HOST_BOUND],
                    s.step[i].v[TS_HOST_BOUND_GAPS]);
    trace_stats_free(&s);
    trace_json_free(&tj);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n) {
    Input in = {data, n};
    fuzz_try(read_trace, &in);
    return 0;
}
