/* profile_table: the profiler's table, torch.profiler's key_averages (kernel rows only),
 * from a trace window: one row per kernel name with the model parts its calls belonged to,
 * calls and GPU time per step, share, avg +- sd per call, and for the linear layers the
 * weight bytes the calls read, hence GB/s. Host C, tested on made-up records. */
#ifndef KIT_PROFILE_TABLE_H
#define KIT_PROFILE_TABLE_H
#include <stdint.h>
#include <stdio.h>
#include "model/config.h"
#include "parts.h"
#include "measure/trace.h"
#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const TNameTime *nt;   /* the window's numbers for this kernel name */
    unsigned parts;        /* bit p set: some call belonged to part p */
    double bytes;          /* weight bytes the calls read (linear layers, once per op) */
} ProfRow;

/* Weight bytes one call of each linear part reads (fp16); 0 for the other parts. */
void linear_part_bytes(const Config *c, double bytes[P_COUNT]);
/* One row per name of w, in w's order (total time, descending), from the kernels starting
 * inside [t0, t1] (w = trace_window(t, t0, t1, ...)). part_bytes may be NULL. Owned array. */
ProfRow *profile_rows(const Trace *t, const TraceWindow *w, uint64_t t0, uint64_t t1,
                      const double part_bytes[P_COUNT]);
/* "void ns::foo<int, 4>(float*, int)" -> "foo<int, 4>", cut to cap-1 chars ("..." at the end). */
void kernel_short_name(const char *name, char *out, size_t cap);
/* The parts of a row: "norm", "q/k/v/o", ... cut to cap-1 chars. */
void parts_label(unsigned parts, char *out, size_t cap);
/* The key_averages-style table of the first `top` rows (all when top <= 0). */
void profile_table_print(FILE *f, const TraceWindow *w, const ProfRow *rows, int top);

#ifdef __cplusplus
}
#endif
#endif
