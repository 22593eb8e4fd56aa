/* stats: median and spread of a sample set (stats.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "measure/stats.h"
#include "util.h"

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* numpy's default ("linear"): rank p/100 * (n-1), interpolated between neighbours. A rank that
 * lands on a sample, or between equal ones, is that sample; between a number and an infinity it
 * is the infinity (the median of {5, inf} is not finite), never the NaN that 0 x inf or
 * inf - inf would make. */
double percentile(const double *sorted, int n, double p) {
    if (n <= 0) return NAN;
    double rank = p / 100.0 * (n - 1);
    int lo = (int)floor(rank);
    if (lo < 0) return sorted[0];
    if (lo >= n - 1) return sorted[n - 1];
    const double f = rank - lo, a = sorted[lo], b = sorted[lo + 1];
    if (f == 0 || a == b) return a;
    if (isinf(a) || isinf(b)) return isinf(a) && isinf(b) ? NAN : isinf(a) ? a : b;
    return a + f * (b - a);
}

Stats stats_of(const double *x, int n) {
    Stats s = {.n = n};
    if (n <= 0) {
        s.median = s.min = s.max = s.range_over_median = s.p10 = s.p90 = s.mean = s.sd = NAN;
        return s;
    }
    double *v = xmalloc(sizeof(double) * n);
    memcpy(v, x, sizeof(double) * n);
    qsort(v, n, sizeof(double), cmp_double);
    s.min = v[0];
    s.max = v[n - 1];
    s.median = percentile(v, n, 50);
    s.p10 = percentile(v, n, 10);
    s.p90 = percentile(v, n, 90);
    s.range_over_median = s.median != 0 ? (s.max - s.min) / s.median : NAN;
    double sum = 0;
    for (int i = 0; i < n; i++) sum += v[i];
    s.mean = sum / n;
    double ss = 0;
    for (int i = 0; i < n; i++) ss += (v[i] - s.mean) * (v[i] - s.mean);
    s.sd = n > 1 ? sqrt(ss / (n - 1)) : 0;
    free(v);
    return s;
}

double median_of(const double *x, int n) { return stats_of(x, n).median; }

double percentile_of(const double *x, int n, double p) {
    if (n <= 0) return NAN;
    double *s = xmalloc(sizeof(double) * (size_t)n);
    memcpy(s, x, sizeof(double) * (size_t)n);
    qsort(s, (size_t)n, sizeof(double), cmp_double);
    const double v = percentile(s, n, p);
    free(s);
    return v;
}
