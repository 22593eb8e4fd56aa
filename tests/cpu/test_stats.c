/* stats_of and percentile against values worked out by hand (numpy's default "linear"
 * percentile: rank p/100 * (n-1), interpolated). */
#include <math.h>
#include "check.h"
#include "measure/stats.h"

static int near(double a, double b) { return fabs(a - b) <= 1e-9 * (1 + fabs(b)); }

int main(void) {
    double odd[] = {3, 1, 2};
    Stats s = stats_of(odd, 3);
    CHECK(s.n == 3 && near(s.median, 2) && near(s.min, 1) && near(s.max, 3), "odd n: median/min/max");
    CHECK(near(s.p10, 1.2) && near(s.p90, 2.8), "odd n: p10 %g p90 %g, want 1.2 2.8", s.p10, s.p90);
    CHECK(near(s.mean, 2) && near(s.sd, 1), "odd n: mean %g sd %g", s.mean, s.sd);
    CHECK(near(s.range_over_median, 1), "odd n: range/median %g", s.range_over_median);
    CHECK(odd[0] == 3 && odd[1] == 1 && odd[2] == 2, "stats_of reordered its input");

    double even[] = {4, 1, 3, 2};
    s = stats_of(even, 4);
    CHECK(near(s.median, 2.5), "even n: median %g, want 2.5", s.median);
    CHECK(near(s.p10, 1.3) && near(s.p90, 3.7), "even n: p10 %g p90 %g, want 1.3 3.7", s.p10, s.p90);
    CHECK(near(s.sd, sqrt(5.0 / 3)), "even n: sample sd %g", s.sd);
    CHECK(near(s.range_over_median, 1.2), "even n: range/median %g", s.range_over_median);

    double ten[] = {10, 9, 8, 7, 6, 5, 4, 3, 2, 1};
    s = stats_of(ten, 10);
    CHECK(near(s.p10, 1.9) && near(s.p90, 9.1) && near(s.median, 5.5), "1..10: p10 %g p90 %g median %g", s.p10, s.p90, s.median);

    double eleven[] = {10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 5};
    s = stats_of(eleven, 11);
    CHECK(near(s.p10, 10) && near(s.p90, 90) && near(s.median, 50), "exact ranks: p10 %g p90 %g", s.p10, s.p90);

    double one[] = {7};
    s = stats_of(one, 1);
    CHECK(s.median == 7 && s.p10 == 7 && s.p90 == 7 && s.sd == 0 && s.range_over_median == 0, "one sample");
    s = stats_of(NULL, 0);
    CHECK(s.n == 0 && isnan(s.median) && isnan(s.p90), "no samples give NAN, not 0");

    double warm[] = {100, 104, 98, 101, 99};     /* the lesson's < 10% bar */
    s = stats_of(warm, 5);
    CHECK(near(s.range_over_median, 6.0 / 100), "range/median %g, want 0.06", s.range_over_median);

    double sorted[] = {1, 2, 3, 4};
    CHECK(near(percentile(sorted, 4, 0), 1) && near(percentile(sorted, 4, 100), 4), "percentile ends");
    CHECK(near(percentile(sorted, 4, 50), 2.5), "percentile 50");
    CHECK(near(percentile(sorted, 4, 25), 1.75), "percentile 25 = %g, want 1.75", percentile(sorted, 4, 25));

    /* infinities (a sample that was not finite): never a NaN where a value is defined */
    double with_inf[] = {5, 1, INFINITY};
    s = stats_of(with_inf, 3);
    CHECK(s.median == 5, "median of {5, 1, inf} = %g, want 5 (it was NaN: 0 x inf)", s.median);
    CHECK(isinf(s.p90) && s.p90 > 0, "p90 of {1, 5, inf} = %g, want inf", s.p90);
    double all_inf[] = {INFINITY, INFINITY, INFINITY, INFINITY};
    s = stats_of(all_inf, 4);
    CHECK(isinf(s.median) && s.median > 0, "median of four infs = %g, want inf (it was NaN: inf - inf)", s.median);
    double two[] = {5, INFINITY};
    CHECK(isinf(median_of(two, 2)), "median of {5, inf} = %g, want inf", median_of(two, 2));
    double both[] = {-INFINITY, INFINITY};
    CHECK(isnan(median_of(both, 2)), "median of {-inf, inf} = %g, want NaN (undefined)", median_of(both, 2));
    return check_done("test_stats");
}
