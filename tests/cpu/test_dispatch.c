/* The emulated dispatcher's distribution (common/gpu/dispatch.c), without a GPU:
 *   (1) the built-in table: percentiles rising, its quantiles rising, exactly 1 at the median;
 *   (2) the draws: the same seed gives the same waits, another seed others; over many draws
 *       the median, p90 and mean are the table's, scaled to the median asked for; a median
 *       twice as large doubles every draw; 0 draws 0 and waits nothing; a wait lasts its draw;
 *   (3) a shape from made-up intervals (worked out by hand), and the sentences for too few
 *       intervals and a median of 0;
 *   (4) the fixture traces: the table the code derives from trace_hf_eager_b1.json is the
 *       committed one, to its printed digits, and both traces' medians and p90s are the ones
 *       measured independently (Python on the same JSON: 2772 intervals, median 13.9 us, p90
 *       40.3; the slower host 31.2 and 98.2); dispatch_setup: --dispatch-us, --dispatch-from
 *       and both, and a file that is not there. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "gpu/dispatch.h"
#include "measure/stats.h"
#include "measure/trace_json.h"
#include "measure/trace_steps.h"
#include "util.h"

enum { DRAWS = 200000 };

static int near_rel(double a, double b, double rel) { return fabs(a - b) <= rel * fabs(b); }

static void table(void) {
    const DispatchShape *s = &DISPATCH_BUILTIN;
    int rising = DISPATCH_PCT[0] == 0 && DISPATCH_PCT[DISPATCH_NQ - 1] == 100, at50 = 0;
    for (int i = 0; i < DISPATCH_NQ; i++) {
        if (i) rising &= DISPATCH_PCT[i] > DISPATCH_PCT[i - 1] && s->q[i] >= s->q[i - 1];
        if (DISPATCH_PCT[i] == 50) at50 = s->q[i] == 1;
    }
    CHECK(rising, "the percentiles run from 0 to 100 and the table's quantiles never fall");
    CHECK(at50 && dispatch_quantile(s, 50) == 1, "the table is 1 at the median (q(50) = %g)", dispatch_quantile(s, 50));
    CHECK(dispatch_quantile(s, -5) == s->q[0] && dispatch_quantile(s, 100) == s->q[DISPATCH_NQ - 1] &&
              dispatch_quantile(s, 150) == s->q[DISPATCH_NQ - 1], "below 0 and above 100: the table's ends");
    const double mid = dispatch_quantile(s, 52.5);   /* halfway between p50 (1) and p55 */
    CHECK(fabs(mid - (1 + s->q[15]) / 2) < 1e-12, "linear between the stored quantiles: q(52.5) = %g", mid);
    CHECK(*s->source && strstr(s->source, "torch") && s->n == 2772, "the built-in shape says where it came from");
}

static int by_value(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void draws(void) {
    const DispatchShape *s = &DISPATCH_BUILTIN;
    uint64_t a = 42, b = 42, c = 43;
    int same = 1, differ = 0;
    for (int i = 0; i < 1000; i++) {
        const double x = dispatch_uniform(&a), y = dispatch_uniform(&b), z = dispatch_uniform(&c);
        same &= x == y && x >= 0 && x < 1;
        differ += x != z;
    }
    CHECK(same, "the same seed draws the same numbers in [0, 1)");
    CHECK(differ > 990, "another seed draws others (%d of 1000 differ)", differ);

    /* the process's dispatcher, reseeded: the same waits again */
    double first[8], again[8];
    dispatch_use(NULL);
    dispatch_seed(7);
    for (int i = 0; i < 8; i++) first[i] = dispatch_draw(14);
    dispatch_seed(7);
    for (int i = 0; i < 8; i++) again[i] = dispatch_draw(14);
    CHECK(!memcmp(first, again, sizeof first), "dispatch_seed(7) twice: the same eight draws");

    /* many draws: the table's median, p90 and mean at the median asked for */
    double *v = xmalloc(sizeof(double) * DRAWS);
    uint64_t st = DISPATCH_SEED;
    double sum = 0;
    for (int i = 0; i < DRAWS; i++) sum += v[i] = dispatch_sample(s, 14, dispatch_uniform(&st));
    qsort(v, DRAWS, sizeof(double), by_value);
    const double med = percentile(v, DRAWS, 50), p90 = percentile(v, DRAWS, 90), mean = sum / DRAWS;
    CHECK(near_rel(med, 14, 0.01), "%d draws at a median of 14 us: median %.3f us", DRAWS, med);
    CHECK(near_rel(p90, 14 * dispatch_quantile(s, 90), 0.02), "p90 %.2f us, the table's %.2f", p90,
          14 * dispatch_quantile(s, 90));
    CHECK(near_rel(mean, 14 * dispatch_mean(s), 0.01), "mean %.2f us, the table's %.2f (%.3fx the median)", mean,
          14 * dispatch_mean(s), dispatch_mean(s));
    CHECK(v[0] >= 14 * s->q[0] - 1e-9 && v[DRAWS - 1] <= 14 * s->q[DISPATCH_NQ - 1] + 1e-9,
          "every draw within the table's ends (%.3f to %.2f us)", v[0], v[DRAWS - 1]);
    free(v);

    int doubled = 1, zero = 1;
    for (int i = 0; i < 1000; i++) {
        const double u = dispatch_uniform(&st);
        doubled &= fabs(dispatch_sample(s, 28, u) - 2 * dispatch_sample(s, 14, u)) < 1e-9;
        zero &= dispatch_sample(s, 0, u) == 0;
    }
    CHECK(doubled, "a median twice as large draws twice as long, draw for draw");
    CHECK(zero && dispatch_draw(0) == 0 && dispatch_draw(-3) == 0, "a median of 0: no wait drawn");
    uint64_t t0 = now_ns();
    const double w0 = dispatch_wait(0);
    CHECK(w0 == 0 && now_ns() - t0 < 1000000, "dispatch_wait(0) returns at once");
    t0 = now_ns();
    double waited = 0;
    for (int i = 0; i < 20; i++) waited += dispatch_wait(5);
    const double elapsed_us = (now_ns() - t0) / 1e3;
    CHECK(waited > 0 && elapsed_us >= waited, "twenty waits at a median of 5 us last their draws: %.1f us for %.1f drawn",
          elapsed_us, waited);
}

static void shape_by_hand(void) {
    DispatchShape s;
    char err[512];
    double v[101];
    for (int i = 0; i < 101; i++) v[i] = 101 - i;   /* 101 .. 1, out of order */
    v[100] = -4;                                    /* overlapping calls: counts as 0 */
    CHECK(dispatch_shape_from(v, 101, &s, err, sizeof err) == 0, "101 intervals make a shape: %s", err);
    /* sorted: 0, 2, 3, ..., 101; median (rank 50) 51 */
    CHECK(s.n == 101 && s.median_us == 51, "median %g of %d, want 51 of 101", s.median_us, s.n);
    CHECK(s.q[0] == 0 && fabs(s.q[DISPATCH_NQ - 1] - 101.0 / 51) < 1e-12, "ends %g and %g, want 0 and 101/51", s.q[0],
          s.q[DISPATCH_NQ - 1]);
    CHECK(fabs(dispatch_quantile(&s, 90) - 91.0 / 51) < 1e-12, "p90 %g, want 91/51", dispatch_quantile(&s, 90));
    CHECK(fabs(dispatch_quantile(&s, 1) - 2.0 / 51) < 1e-12, "p1 %g, want 2/51 (rank 1)", dispatch_quantile(&s, 1));

    double few[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    CHECK(dispatch_shape_from(few, 9, &s, err, sizeof err) == -1 && strstr(err, "9 intervals") && strstr(err, "too few"),
          "9 intervals are too few: %s", err);
    double zeros[20] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 5};
    CHECK(dispatch_shape_from(zeros, 20, &s, err, sizeof err) == -1 && strstr(err, "median") && strstr(err, "0 us"),
          "a median of 0 cannot be scaled: %s", err);
}

/* The fixture, or a skip (a failure where the fixtures are required). */
static int fixture(char *path, size_t cap, const char *file) {
    snprintf(path, cap, "%s/fixtures/torch-trace/%s", shared_dir(), file);
    if (file_exists(path)) return 1;
    if (getenv("KIT_REQUIRE_FIXTURES")) CHECK(0, "%s is missing", path);
    else SKIP("%s is missing (set SHARED to the course's shared folder)", path);
    return 0;
}

static void fixtures(void) {
    char path[1024], err[1024];
    DispatchShape s;
    if (fixture(path, sizeof path, "trace_hf_eager_b1.json")) {
        int rc = dispatch_shape_from_trace(path, &s, err, sizeof err);
        CHECK(rc == 0, "the fixture gives a shape: %s", rc ? err : "ok");
        int same = rc == 0;
        double worst = 0;
        for (int i = 0; rc == 0 && i < DISPATCH_NQ; i++) {
            const double d = fabs(s.q[i] - DISPATCH_BUILTIN.q[i]);
            if (d > worst) worst = d;
        }
        same &= worst <= 0.5e-4 + 1e-12 && fabs(s.median_us - DISPATCH_BUILTIN.median_us) <= 0.5e-3 + 1e-12 &&
                s.n == DISPATCH_BUILTIN.n;
        CHECK(same, "the committed table is the fixture's (largest difference %.2g; median %.4f us, %d intervals): "
                    "regenerate it with bin/trace_stats --dispatch-table (common/gpu/dispatch.c)", worst, s.median_us, s.n);
        CHECK(s.n == 2772 && fabs(s.median_us - 13.93) < 0.01 && fabs(s.median_us * dispatch_quantile(&s, 90) - 40.26) < 0.02,
              "the fixture's 2772 intervals, median 13.93 us, p90 40.26 us, as measured independently: %d, %.3f, %.3f",
              s.n, s.median_us, s.median_us * dispatch_quantile(&s, 90));
        CHECK(strstr(s.source, "trace_hf_eager_b1.json: 2772 launch intervals in 3 ProfilerSteps"), "source: %s", s.source);

        /* the raw intervals' mean over their median (1.48): the table's piecewise-linear mean is close */
        TraceJson tj;
        TraceStats ts;
        if (trace_json_read(path, &tj, err, sizeof err) == 0 && trace_stats(&tj, &ts, err, sizeof err) == 0) {
            double sum = 0;
            for (int i = 0; i < ts.n_dispatch; i++) sum += ts.dispatch_us[i];
            const double ratio = sum / ts.n_dispatch / s.median_us;
            CHECK(fabs(ratio - 1.483) < 0.005 && fabs(dispatch_mean(&s) - ratio) < 0.02,
                  "mean / median: the intervals' %.3f (1.483 measured independently), the table's %.3f", ratio,
                  dispatch_mean(&s));
            trace_stats_free(&ts);
            trace_json_free(&tj);
        } else CHECK(0, "the fixture reads: %s", err);

        /* dispatch_setup: the trace's shape and median, or its shape at --dispatch-us's median */
        dispatch_use(NULL);
        CHECK(dispatch_setup("test", NAN, NULL, 14) == 14 && dispatch_shape() == &DISPATCH_BUILTIN,
              "nothing given: the default median, the built-in shape");
        CHECK(dispatch_setup("test", 0, NULL, 14) == 0 && dispatch_setup("test", 30, NULL, 14) == 30,
              "--dispatch-us 0 and 30: those medians");
        const double m = dispatch_setup("test", NAN, path, 14);
        CHECK(fabs(m - s.median_us) < 1e-12 && dispatch_shape() != &DISPATCH_BUILTIN &&
                  !memcmp(dispatch_shape()->q, s.q, sizeof s.q), "--dispatch-from alone: the trace's median (%g) and shape", m);
        CHECK(dispatch_setup("test", 20, path, 14) == 20 && !memcmp(dispatch_shape()->q, s.q, sizeof s.q),
              "--dispatch-from with --dispatch-us 20: the trace's shape at a median of 20");
        dispatch_use(NULL);
        CHECK(dispatch_shape() == &DISPATCH_BUILTIN, "dispatch_use(NULL): the built-in again");
    }
    if (fixture(path, sizeof path, "trace_hf_eager_b1_host2.json.gz")) {
        int rc = dispatch_shape_from_trace(path, &s, err, sizeof err);
        CHECK(rc == 0 && s.n == 2772 && fabs(s.median_us - 31.22) < 0.01 &&
                  fabs(s.median_us * dispatch_quantile(&s, 90) - 98.22) < 0.05,
              "the slower host's trace: 2772 intervals, median 31.22 us, p90 98.22 us: %d, %.3f, %.3f (%s)", s.n,
              s.median_us, s.median_us * dispatch_quantile(&s, 90), rc ? err : "ok");
        CHECK(rc == 0 && fabs(dispatch_quantile(&s, 90) - dispatch_quantile(&DISPATCH_BUILTIN, 90)) < 0.3,
              "nearly the built-in shape at p90: %.2fx against %.2fx the median", dispatch_quantile(&s, 90),
              dispatch_quantile(&DISPATCH_BUILTIN, 90));
    }
    const char *missing = "/nonexistent/trace.json";
    CHECK(dispatch_shape_from_trace(missing, &s, err, sizeof err) == -1 && strstr(err, missing),
          "a trace that is not there: a sentence naming it (%s)", err);
}

int main(void) {
    table();
    draws();
    shape_by_hand();
    fixtures();
    return check_done("test_dispatch");
}
