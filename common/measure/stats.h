/* stats: what the lessons report of a set of samples: the median and the spread, never a
 * mean alone. */
#ifndef KIT_STATS_H
#define KIT_STATS_H
#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int n;
    double median, min, max;
    double range_over_median;   /* (max - min) / median: the lesson's < 10% bar */
    double p10, p90;            /* linear interpolation between order statistics */
    double mean, sd;            /* sample sd (n - 1); printed beside the median only */
} Stats;

Stats stats_of(const double *x, int n);          /* does not reorder x */
double median_of(const double *x, int n);        /* stats_of(x, n).median; NAN when n <= 0 */
double percentile(const double *sorted, int n, double p);   /* p in [0, 100] */
double percentile_of(const double *x, int n, double p);     /* the same of unsorted x (not reordered); NAN when n <= 0 */

#ifdef __cplusplus
}
#endif
#endif
