/* chart: every kind written, read back with stb_image: the size asked for, something drawn
 * in the plot, dark text pixels in the title band, and the same bytes when written twice; a
 * timeline's GPU lane as busy as its kernels. Bad calls (unwritable path, empty window) return -1. */
#include <math.h>
#include <string.h>
#include <unistd.h>
#include <stb/stb_image.h>
#include "report/chart.h"
#include "check.h"
#include "util.h"

static char dir[] = "/tmp/kit_chart_XXXXXX";

/* Pixels in the box [x0,x1) x [y0,y1) that are not white / that are the text colour. */
static int count(const unsigned char *px, int w, int x0, int y0, int x1, int y1, int ink_only) {
    int n = 0;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
            const unsigned char *p = px + ((size_t)y * w + x) * 3;
            n += ink_only ? p[0] == 0x20 && p[1] == 0x20 && p[2] == 0x20 : !(p[0] == 255 && p[1] == 255 && p[2] == 255);
        }
    return n;
}

typedef int (*Draw)(const char *path);

/* Draws twice, then checks the image. */
static void check_chart(const char *name, Draw draw, int want_w, int want_h) {
    char a[300], b[300];
    snprintf(a, sizeof a, "%s/%s.png", dir, name);
    snprintf(b, sizeof b, "%s/%s_again.png", dir, name);
    CHECK(draw(a) == 0 && draw(b) == 0, "%s: written", name);
    size_t na = 0, nb = 0;
    char *fa = read_file(a, &na), *fb = read_file(b, &nb);
    CHECK(fa && fb && na == nb && memcmp(fa, fb, na) == 0, "%s: same bytes twice (%zu, %zu)", name, na, nb);
    free(fa);
    free(fb);
    int w, h, ch;
    unsigned char *px = stbi_load(a, &w, &h, &ch, 3);
    CHECK(px != NULL, "%s: stb_image reads it back", name);
    if (!px) return;
    CHECK(w == want_w && (want_h == 0 ? h > 100 : h == want_h), "%s: %dx%d, want %dx%d", name, w, h, want_w, want_h);
    int plot = count(px, w, w / 4, h / 4, 3 * w / 4, 3 * h / 4, 0);
    CHECK(plot > w * h / 200, "%s: the plot area is not blank (%d pixels)", name, plot);
    int title = count(px, w, 0, 0, w, 50, 1);
    CHECK(title > 300, "%s: title text drawn (%d ink pixels)", name, title);
    int text = count(px, w, 0, 0, w, h, 1);
    CHECK(text > title + 300, "%s: labels drawn (%d ink pixels)", name, text);
    stbi_image_free(px);
}

static int bars(const char *path) {
    ChartRef floor = {0.46, "floor 0.46 ms"};
    Chart c = {0};
    c.title = "TPOT by mode"; c.xlabel = "ms per token"; c.refs = &floor; c.nrefs = 1;
    ChartBar b[] = {{"eager", 22.1, 0}, {"fused", 15.0, 0}, {"graph", 9.3, 0x009E73}, {"not run", NAN, 0}};
    return chart_bars(&c, path, b, 4);
}
static int lines(const char *path) {
    double x[] = {0, 5, 10, 20, 40}, y1[] = {9.1, 9.3, 12.4, 20.5, 38.0}, y2[] = {2.2, 2.3, NAN, 2.4, 2.3};
    ChartSeries s[] = {{"eager b1", x, y1, 5, 0, 0}, {"graph b1", x, y2, 5, 0, 1}};
    ChartRef refs[] = {{0.46, "floor"}, {30, "T4 eager"}};
    Chart c = {0};
    c.title = "TPOT vs dispatch cost"; c.xlabel = "dispatch (us)"; c.ylabel = "TPOT (ms)";
    c.width = 800; c.height = 500; c.refs = refs; c.nrefs = 2;
    return chart_lines(&c, path, s, 2);
}
static int loglines(const char *path) {
    double x[] = {16, 64, 256, 1024}, y[] = {0.5, 2, 8, 28};
    ChartSeries s[] = {{"prefill", x, y, 4, 0, 0}};
    Chart c = {0};
    c.title = "prefill TFLOP/s"; c.xlabel = "tokens"; c.ylabel = "TFLOP/s"; c.logx = c.logy = 1;
    return chart_lines(&c, path, s, 1);
}
static int hist(const char *path) {
    static double g1[300], g2[300];
    for (int i = 0; i < 300; i++) g1[i] = 3 + (i * 37 % 50) + (i % 31 == 0 ? 300 : 0), g2[i] = 1 + i % 4;
    ChartSample s[] = {{"eager", g1, 300, 0}, {"graph", g2, 300, 0}};
    ChartRef med = {10, "median"};
    Chart c = {0};
    c.title = "gaps"; c.xlabel = "gap (us)"; c.logx = 1; c.refs = &med; c.nrefs = 1;
    return chart_hist(&c, path, s, 2, 25);
}
static int timeline(const char *path) {
    Trace t = {0};
    uint64_t cpu = 0, gpu = 0;
    for (int i = 0; i < 40; i++) {
        TApi a = {cpu, cpu + 3000, (uint32_t)i + 1, 9, 211, "cudaLaunchKernel"};
        trace_add_api(&t, &a);
        uint64_t start = gpu > cpu + 4000 ? gpu : cpu + 4000;
        int part = i % 4 == 0 ? P_NORM : i % 4 == 1 ? P_QKV : i % 4 == 2 ? P_ATTN : P_DOWN;
        TKernel k = {start, start + (part == P_QKV || part == P_DOWN ? 8000 : 2000), (uint32_t)i + 1, 7, 0,
                     launch_tag_encode(part, 0, i), part, 0, part_is_gemm((Part)part), "k", NULL};
        trace_add_kernel(&t, &k);
        gpu = k.end;
        cpu += 5000;
    }
    Chart c = {0};
    c.title = "one step, eager";
    int rc = chart_timeline(&c, path, &t, 0, gpu);
    trace_free(&t);
    return rc;
}

/* The ink of a timeline of 1000 kernels of `ns` each, one every 100 ns over 100 us: every
 * kernel far narrower than a pixel (about 87 ns a pixel). Sum over the image of 765 - R - G - B. */
static double busy_ink(int ns) {
    Trace t = {0};
    for (int i = 0; i < 1000; i++) {
        TKernel k = {(uint64_t)i * 100, (uint64_t)i * 100 + ns, (uint32_t)i + 1, 7, 0, 0, P_OTHER, -1, 0, "rmsnorm", NULL};
        trace_add_kernel(&t, &k);
    }
    Chart c = {.title = "t"};
    char path[300];
    snprintf(path, sizeof path, "%s/busy%d.png", dir, ns);
    double ink = NAN;
    int w, h, ch;
    unsigned char *px = chart_timeline(&c, path, &t, 0, 100000) == 0 ? stbi_load(path, &w, &h, &ch, 3) : NULL;
    if (px) {
        ink = 0;
        for (long i = 0; i < (long)w * h; i++) ink += 765 - px[3 * i] - px[3 * i + 1] - px[3 * i + 2];
        stbi_image_free(px);
    }
    trace_free(&t);
    return ink;
}

int main(void) {
    if (!mkdtemp(dir)) { printf("cannot make a temp folder\n"); return 1; }
    /* a step busy 7% looks 7% busy: its GPU lane holds a tenth of the ink of one busy 70%
     * (each less the ink of the same picture with 1 ns kernels: the axes, labels, legend) */
    const double i0 = busy_ink(1), i7 = busy_ink(7), i70 = busy_ink(70);
    CHECK((i70 - i0) / (i7 - i0) > 8 && (i70 - i0) / (i7 - i0) < 12,
          "kernels narrower than a pixel are shaded by the time they cover: 70%% busy is %.1fx the ink of 7%%",
          (i70 - i0) / (i7 - i0));
    check_chart("bars", bars, 1000, 600);
    check_chart("lines", lines, 800, 500);
    check_chart("loglines", loglines, 1000, 600);
    check_chart("hist", hist, 1000, 600);
    check_chart("timeline", timeline, 1200, 0);

    /* bad calls */
    Chart c = {0};
    ChartBar b[] = {{"x", 1, 0}};
    CHECK(chart_bars(&c, "/nonexistent/dir/x.png", b, 1) == -1, "an unwritable path returns -1");
    Trace t = {0};
    char p[300];
    snprintf(p, sizeof p, "%s/empty.png", dir);
    CHECK(chart_timeline(&c, p, &t, 5, 5) == -1, "an empty window returns -1");
    CHECK(chart_lines(&c, p, NULL, 0) == 0 && chart_hist(&c, p, NULL, 0, 10) == 0 && chart_bars(&c, p, NULL, 0) == 0,
          "no data still draws empty axes");

    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) printf("could not remove %s\n", dir);
    return check_done("test_chart");
}
