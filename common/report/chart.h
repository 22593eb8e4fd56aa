/* chart: small PNG charts for the report (stb_image_write + stb_easy_font), no plotting
 * library. Four kinds: horizontal bars, lines/points, a histogram and a CPU/GPU timeline.
 * Every call writes one PNG and returns 0, or prints one line saying why not and returns -1.
 * Same input -> same bytes.
 *
 *   ChartRef floor = {2.3, "floor 2.3 ms"};
 *   Chart c = {0};
 *   c.title = "TPOT by mode"; c.xlabel = "ms per token"; c.refs = &floor; c.nrefs = 1;
 *   ChartBar b[] = {{"eager", 22.1, 0}, {"fused", 15.0, 0}, {"graph", 9.3, 0x009E73}};
 *   if (chart_bars(&c, "results/tpot.png", b, 3)) ...   (also C++: no designated fields)
 */
#ifndef KIT_CHART_H
#define KIT_CHART_H
#include <stdint.h>
#include "measure/trace.h"
#ifdef __cplusplus
extern "C" {
#endif

/* A reference line across the plot at `value` on the value axis (x for bars and
 * histograms, y for line charts), drawn dashed with its label. */
typedef struct { double value; const char *label; } ChartRef;

typedef struct {
    const char *title;
    const char *xlabel, *ylabel;  /* axis titles, units included: "gap (us)" */
    int width, height;            /* pixels; 0 -> 1000 x 600 */
    int logx, logy;               /* log10 axes (values <= 0 are left out) */
    int density;                  /* chart_hist: each set as a % of its own count, so a small set shows */
    const ChartRef *refs; int nrefs;
} Chart;

/* Colours are 0xRRGGBB; 0 picks the next colour of the kit's palette. */
typedef struct { const char *label; double value; unsigned rgb; } ChartBar;
typedef struct {
    const char *name;             /* legend entry */
    const double *x, *y; int n;   /* points in drawing order */
    unsigned rgb;
    int points_only;              /* 1: scatter, 0: line with point marks */
} ChartSeries;
typedef struct { const char *name; const double *v; int n; unsigned rgb; } ChartSample;

/* One bar per item, top to bottom in the given order, value printed at the bar's end;
 * c->xlabel names the value axis. */
int chart_bars(const Chart *c, const char *path, const ChartBar *bars, int n);
/* Several named series on shared axes. */
int chart_lines(const Chart *c, const char *path, const ChartSeries *s, int ns);
/* Counts of each sample set in `bins` equal bins (equal in log space when c->logx), sets
 * side by side within a bin; y is the count, or with c->density each set's % of its own. */
int chart_hist(const Chart *c, const char *path, const ChartSample *s, int ns, int bins);
/* The timeline of [t0, t1] (CUPTI ns; width 0 -> 1200, the height fits the lanes): a CPU lane of runtime calls (launch calls dark,
 * others grey) above one GPU lane per stream of kernels coloured by model part; white is
 * idle. x axis in us from t0; a legend of the parts shown. */
int chart_timeline(const Chart *c, const char *path, const Trace *t, uint64_t t0, uint64_t t1);

/* The RGB of a model part (parts.h), as a chart colour. */
unsigned chart_part_rgb(int part);

#ifdef __cplusplus
}
#endif
#endif
