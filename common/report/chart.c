/* chart: PNG charts drawn into an RGB buffer (chart.h). Text is stb_easy_font's quads,
 * scaled; everything else is filled rectangles. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stb/stb_easy_font.h>
#include <stb/stb_image_write.h>
#include "report/chart.h"
#include "util.h"

#define INK    0x202020u
#define AXIS   0x606060u
#define GRID   0xE6E6E6u
#define WHITE  0xFFFFFFu
#define TEXT_H 14                       /* cap height of scale-2 text, pixels */

/* Okabe-Ito, without the yellow that vanishes on white. */
static const unsigned palette[] = {0x0072B2, 0xD55E00, 0x009E73, 0xCC79A7, 0xE69F00, 0x56B4E9, 0x000000};
static unsigned pick(unsigned rgb, int i) { return rgb ? rgb : palette[i % 7]; }

unsigned chart_part_rgb(int part) {
    unsigned char c[3];
    part_color((Part)part, c);
    return (unsigned)c[0] << 16 | c[1] << 8 | c[2];
}

/* ---- the canvas ----------------------------------------------------------------------- */

typedef struct {
    int w, h;
    unsigned char *px;
    int cx0, cy0, cx1, cy1;             /* drawing is clipped to [cx0, cx1) x [cy0, cy1) */
} Canvas;

static Canvas canvas(int w, int h) {
    Canvas c = {w, h, xmalloc((size_t)w * h * 3), 0, 0, w, h};
    memset(c.px, 255, (size_t)w * h * 3);
    return c;
}
static void clip(Canvas *c, int x0, int y0, int x1, int y1) { c->cx0 = x0; c->cy0 = y0; c->cx1 = x1; c->cy1 = y1; }
static void unclip(Canvas *c) { clip(c, 0, 0, c->w, c->h); }

static void fill(Canvas *c, int x0, int y0, int x1, int y1, unsigned rgb) {
    if (x0 < c->cx0) x0 = c->cx0;
    if (y0 < c->cy0) y0 = c->cy0;
    if (x1 > c->cx1) x1 = c->cx1;
    if (y1 > c->cy1) y1 = c->cy1;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
            unsigned char *p = c->px + ((size_t)y * c->w + x) * 3;
            p[0] = rgb >> 16; p[1] = (rgb >> 8) & 255; p[2] = rgb & 255;
        }
}
static void hline(Canvas *c, int x0, int x1, int y, int thick, unsigned rgb) { fill(c, x0, y, x1, y + thick, rgb); }
static void vline(Canvas *c, int x, int y0, int y1, int thick, unsigned rgb) { fill(c, x, y0, x + thick, y1, rgb); }
static void box(Canvas *c, int x0, int y0, int x1, int y1, unsigned rgb) {
    hline(c, x0, x1, y0, 1, rgb); hline(c, x0, x1, y1 - 1, 1, rgb);
    vline(c, x0, y0, y1, 1, rgb); vline(c, x1 - 1, y0, y1, 1, rgb);
}
static void dashed(Canvas *c, int x0, int y0, int x1, int y1, unsigned rgb) {   /* horizontal or vertical */
    for (int x = x0, y = y0; x <= x1 && y <= y1; x += (x1 > x0) * 12, y += (y1 > y0) * 12) {
        if (x1 > x0) fill(c, x, y - 1, x + 7 < x1 ? x + 7 : x1, y + 1, rgb);
        else fill(c, x - 1, y, x + 1, y + 7 < y1 ? y + 7 : y1, rgb);
        if (x0 == x1 && y0 == y1) break;
    }
}
static void line(Canvas *c, double x0, double y0, double x1, double y1, unsigned rgb) {
    int steps = (int)fmax(fabs(x1 - x0), fabs(y1 - y0)) + 1;
    for (int i = 0; i <= steps; i++) {
        int x = (int)lround(x0 + (x1 - x0) * i / steps), y = (int)lround(y0 + (y1 - y0) * i / steps);
        fill(c, x - 1, y - 1, x + 1, y + 1, rgb);
    }
}
/* Marker shapes differ per series so they read without colour: square, disc, triangle, diamond. */
static void marker(Canvas *c, int cx, int cy, int shape, unsigned rgb) {
    const int r = 5;
    for (int dy = -r; dy <= r; dy++)
        for (int dx = -r; dx <= r; dx++) {
            int in = shape % 4 == 0 ? abs(dx) <= r - 1 && abs(dy) <= r - 1
                   : shape % 4 == 1 ? dx * dx + dy * dy <= r * r
                   : shape % 4 == 2 ? dy >= -r && 2 * abs(dx) <= dy + r
                   : abs(dx) + abs(dy) <= r;
            if (in) fill(c, cx + dx, cy + dy, cx + dx + 1, cy + dy + 1, rgb);
        }
}

/* ---- text ----------------------------------------------------------------------------- */

/* stb_easy_font takes printable ASCII only. */
static void ascii(char *dst, size_t cap, const char *s) {
    snprintf(dst, cap, "%s", s ? s : "");
    for (char *p = dst; *p; p++)
        if ((unsigned char)*p < 32 || (unsigned char)*p > 126) *p = '?';
}
static int text_w(const char *s, int scale) {
    char buf[512];
    ascii(buf, sizeof buf, s);
    return stb_easy_font_width(buf) * scale;
}
/* Draws s with its top-left at (x, y); up != 0 turns it to read bottom to top with (x, y)
 * its bottom-left. Each quad is an axis-aligned rectangle, so turning it is exact. */
static void text_at(Canvas *c, int x, int y, const char *s, int scale, unsigned rgb, int up) {
    static char quads[1 << 17];
    char buf[512];
    ascii(buf, sizeof buf, s);
    int n = stb_easy_font_print(0, 0, buf, NULL, quads, sizeof quads);
    for (int q = 0; q < n; q++) {
        float *v0 = (float *)(quads + q * 64), *v2 = (float *)(quads + q * 64 + 32);
        int qx0 = (int)(v0[0] * scale), qy0 = (int)(v0[1] * scale);
        int qx1 = (int)(v2[0] * scale), qy1 = (int)(v2[1] * scale);
        if (up) fill(c, x + qy0, y - qx1, x + qy1, y - qx0, rgb);
        else fill(c, x + qx0, y + qy0, x + qx1, y + qy1, rgb);
    }
}
enum { LEFT, CENTER, RIGHT };
static void text(Canvas *c, int x, int y, const char *s, int scale, unsigned rgb, int align) {
    int w = text_w(s, scale);
    text_at(c, align == LEFT ? x : align == CENTER ? x - w / 2 : x - w, y, s, scale, rgb, 0);
}
/* Shortens s to at most max_w pixels at scale 2, ending it with ".." when cut. */
static void fit(char *dst, size_t cap, const char *s, int max_w) {
    char full[512];
    snprintf(full, sizeof full, "%s", s ? s : "");
    snprintf(dst, cap, "%s", full);
    for (int n = (int)strlen(full); n > 0 && text_w(dst, 2) > max_w; n--)
        snprintf(dst, cap, "%.*s..", n - 1, full);
}
static void fmt_num(char *dst, size_t cap, double v) {
    if (isnan(v)) snprintf(dst, cap, "-");
    else if (v == floor(v) && fabs(v) < 1e7) snprintf(dst, cap, "%.0f", v);
    else if (fabs(v) >= 1e6 || fabs(v) < 1e-3) snprintf(dst, cap, "%.3g", v);
    else snprintf(dst, cap, "%.4g", v);
}

/* ---- axes ----------------------------------------------------------------------------- */

typedef struct {
    double lo, hi, step;                /* step: linear tick spacing */
    int log;
    int p0, p1;                         /* pixels of lo and hi */
} Axis;

static double nice_step(double range) {
    double e = pow(10, floor(log10(range / 5))), f = range / 5 / e;
    return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * e;
}
/* The largest (down) or smallest (up) of 1, 2, 5 x 10^k beyond v > 0. */
static double snap125(double v, int up) {
    double e = pow(10, floor(log10(v))), m[4] = {1, 2, 5, 10};
    double r = up ? 10 * e : e;
    for (int i = 0; i < 4; i++) {
        double c = m[i] * e * (1 + (up ? -1e-9 : 1e-9));
        if (up ? c >= v && m[i] * e < r : c <= v) r = m[i] * e;
    }
    return r;
}
/* An axis over [mn, mx], widened to round ticks unless exact; log axes to 1, 2, 5 x 10^k. */
static Axis axis_fit(double mn, double mx, int log_, int with_zero, int exact) {
    Axis a = {.log = log_};
    if (!(mn <= mx)) mn = 0, mx = 1;       /* no data */
    if (log_) {
        if (mx <= 0) mn = 1, mx = 10;
        if (mn <= 0) mn = mx / 10;
        a.lo = snap125(mn, 0);
        a.hi = snap125(mx, 1);
        if (a.hi <= a.lo) a.hi = snap125(a.lo * 1.5, 1);
        return a;
    }
    if (with_zero) mn = fmin(mn, 0), mx = fmax(mx, 0);
    if (mx == mn) mn -= fabs(mn) > 0 ? fabs(mn) / 2 : 1, mx += fabs(mx) > 0 ? fabs(mx) / 2 : 1;
    a.step = nice_step(mx - mn);
    a.lo = exact ? mn : floor(mn / a.step + 1e-9) * a.step;
    a.hi = exact ? mx : ceil(mx / a.step - 1e-9) * a.step;
    return a;
}
static double frac(const Axis *a, double v) {
    if (a->log) return (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo));
    return (v - a->lo) / (a->hi - a->lo);
}
static double pix(const Axis *a, double v) { return a->p0 + frac(a, v) * (a->p1 - a->p0); }
static int usable(const Axis *a, double v) { return isfinite(v) && (!a->log || v > 0); }

/* The tick values: round steps, or decades (with 2 and 5 between when there are few). */
static int ticks(const Axis *a, double *t, int cap) {
    int n = 0;
    if (!a->log) {
        for (double v = ceil(a->lo / a->step - 1e-9) * a->step; v <= a->hi + a->step * 1e-9 && n < cap; v += a->step)
            t[n++] = fabs(v) < a->step * 1e-9 ? 0 : v;
        return n;
    }
    int few = a->hi / a->lo <= 300;       /* then 2 and 5 between the decades too */
    for (double d = pow(10, floor(log10(a->lo) + 1e-9)); d <= a->hi * (1 + 1e-9) && n < cap; d *= 10)
        for (int m = 1; m <= 5 && n < cap; m += m == 1 ? 1 : 3)
            if ((m == 1 || few) && d * m >= a->lo * (1 - 1e-9) && d * m <= a->hi * (1 + 1e-9)) t[n++] = d * m;
    return n;
}

/* ---- the frame: title, plot box, grid, ticks, axis titles, reference lines ------------- */

typedef struct { int x0, y0, x1, y1; } Rect;

static int default_w(const Chart *c) { return c->width > 0 ? c->width : 1000; }
static int default_h(const Chart *c) { return c->height > 0 ? c->height : 600; }

static int title_scale(const Chart *c, int w) { return text_w(c->title, 3) < w - 40 ? 3 : 2; }
static int title_h(const Chart *c, int w) { return c->title ? 14 + 7 * title_scale(c, w) + 22 : 16; }
/* Draws the title (bold, centred); returns where the plot may begin. */
static int title(Canvas *cv, const Chart *c) {
    if (!c->title) return title_h(c, cv->w);
    int scale = title_scale(c, cv->w);
    char buf[512];
    fit(buf, sizeof buf, c->title, (cv->w - 40) * 2 / scale);
    text(cv, cv->w / 2, 14, buf, scale, INK, CENTER);
    text(cv, cv->w / 2 + 1, 14, buf, scale, INK, CENTER);    /* bold */
    return title_h(c, cv->w);
}

static int tick_label_w(const Axis *a) {
    double t[64];
    int n = ticks(a, t, 64), w = 0;
    for (int i = 0; i < n; i++) {
        char s[32];
        fmt_num(s, sizeof s, t[i]);
        if (text_w(s, 2) > w) w = text_w(s, 2);
    }
    return w;
}

/* Gridlines and tick labels for x (below the plot) or y (left of it). */
static void draw_ticks(Canvas *cv, Rect p, const Axis *a, int is_x) {
    double t[64];
    int n = ticks(a, t, 64);
    for (int i = 0; i < n; i++) {
        int q = (int)lround(pix(a, t[i]));
        char s[32];
        fmt_num(s, sizeof s, t[i]);
        if (is_x) {
            vline(cv, q, p.y0, p.y1, 1, GRID);
            vline(cv, q, p.y1, p.y1 + 6, 1, AXIS);
            text(cv, q, p.y1 + 10, s, 2, INK, CENTER);
        } else {
            hline(cv, p.x0, p.x1, q, 1, GRID);
            hline(cv, p.x0 - 6, p.x0, q, 1, AXIS);
            text(cv, p.x0 - 10, q - TEXT_H / 2, s, 2, INK, RIGHT);
        }
    }
}

/* Reference lines: dashed, across the plot. Vertical ones (x values) have their labels in
 * a band above the plot, one row each; horizontal ones label themselves at the right end. */
#define REF_ROW (TEXT_H + 10)
static int ref_rows(const Chart *c) {
    int n = 0;
    for (int i = 0; i < c->nrefs; i++) n += c->refs[i].label != NULL;
    return n;
}
static void draw_refs(Canvas *cv, Rect p, const Chart *c, const Axis *a, int vertical) {
    for (int i = 0, row = 0; i < c->nrefs; i++) {
        double v = c->refs[i].value;
        const char *label = c->refs[i].label;
        int w = label ? text_w(label, 2) + 8 : 0, lx, ly;
        row += label != NULL;
        if (!usable(a, v) || frac(a, v) < -1e-9 || frac(a, v) > 1 + 1e-9) continue;
        int q = (int)lround(pix(a, v));
        if (vertical) {
            ly = p.y0 - (ref_rows(c) - row + 1) * REF_ROW;
            lx = q - w / 2 < 4 ? 4 : q - w / 2 + w > cv->w - 4 ? cv->w - 4 - w : q - w / 2;
            dashed(cv, q, label ? ly + TEXT_H + 6 : p.y0, q, p.y1, INK);
        } else {
            dashed(cv, p.x0, q, p.x1, q, INK);
            lx = p.x1 - 4 - w;
            ly = q - TEXT_H - 10 > p.y0 ? q - TEXT_H - 10 : q + 6;
        }
        if (label) {
            fill(cv, lx, ly, lx + w, ly + TEXT_H + 6, WHITE);
            text(cv, lx + 4, ly + 3, label, 2, INK, LEFT);
        }
    }
}

/* Lays out the plot rectangle for a chart with a numeric x axis and (when y is given) a
 * numeric y axis, a legend column of legend_w pixels on the right, and draws the frame.
 * Vertical reference lines (values on x) get a band on top for their labels. */
static Rect frame(Canvas *cv, const Chart *c, Axis *x, Axis *y, int left_w, int legend_w, int vertical_refs) {
    int top = title(cv, c) + (vertical_refs ? ref_rows(c) * REF_ROW : 0);
    Rect p;
    p.x0 = 20 + (c->ylabel ? TEXT_H + 16 : 0) + (y ? tick_label_w(y) + 14 : left_w);
    p.x1 = cv->w - 30 - legend_w;
    p.y0 = top;
    p.y1 = cv->h - 16 - TEXT_H - 14 - (c->xlabel ? TEXT_H + 16 : 0);
    x->p0 = p.x0; x->p1 = p.x1 - 1;
    if (y) { y->p0 = p.y1 - 1; y->p1 = p.y0; }
    draw_ticks(cv, p, x, 1);
    if (y) draw_ticks(cv, p, y, 0);
    if (c->xlabel) text(cv, (p.x0 + p.x1) / 2, cv->h - 14 - TEXT_H, c->xlabel, 2, INK, CENTER);
    if (c->ylabel) text_at(cv, 16, (p.y0 + p.y1) / 2 + text_w(c->ylabel, 2) / 2, c->ylabel, 2, INK, 1);
    return p;
}
/* The plot's border; "no data" inside when nothing was drawn. */
static void frame_box(Canvas *cv, Rect p, int drawn) {
    box(cv, p.x0, p.y0, p.x1, p.y1 + 1, AXIS);
    if (!drawn) text(cv, (p.x0 + p.x1) / 2, (p.y0 + p.y1) / 2 - TEXT_H / 2, "no data", 2, AXIS, CENTER);
}

typedef struct { const char *name; unsigned rgb; int shape; } Legend;   /* shape -1: a swatch */

static int legend_w(const Legend *l, int n) {
    int w = 0;
    for (int i = 0; i < n; i++)
        if (l[i].name && text_w(l[i].name, 2) > w) w = text_w(l[i].name, 2);
    return w ? (w > 320 ? 320 : w) + 40 : 0;
}
static void legend_column(Canvas *cv, Rect p, const Legend *l, int n) {
    int x = p.x1 + 16, y = p.y0 + 4;
    for (int i = 0; i < n; i++, y += TEXT_H + 12) {
        if (!l[i].name) continue;
        char s[256];
        fit(s, sizeof s, l[i].name, 320);
        if (l[i].shape < 0) fill(cv, x, y, x + 14, y + 14, l[i].rgb);
        else { hline(cv, x - 2, x + 16, y + 6, 2, l[i].rgb); marker(cv, x + 7, y + 7, l[i].shape, l[i].rgb); }
        text(cv, x + 22, y, s, 2, INK, LEFT);
    }
}

static int write_png(Canvas *cv, const char *path) {
    int ok = stbi_write_png(path, cv->w, cv->h, 3, cv->px, cv->w * 3);
    free(cv->px);
    if (!ok) { printf("cannot write the chart %s; check that its folder exists and is writable\n", path); return -1; }
    return 0;
}

/* ---- bars ----------------------------------------------------------------------------- */

int chart_bars(const Chart *c, const char *path, const ChartBar *bars, int n) {
    double mn = INFINITY, mx = -INFINITY;
    int drawn = 0;
    for (int i = 0; i < n; i++)
        if (isfinite(bars[i].value) && (!c->logx || bars[i].value > 0))
            mn = fmin(mn, bars[i].value), mx = fmax(mx, bars[i].value), drawn = 1;
    for (int i = 0; i < c->nrefs; i++)
        if (isfinite(c->refs[i].value)) mn = fmin(mn, c->refs[i].value), mx = fmax(mx, c->refs[i].value);
    if (isfinite(mx)) mx *= mx > 0 ? 1.08 : 1;           /* room for the value labels */
    Axis x = axis_fit(mn, mx, c->logx, 1, 0);
    int w = default_w(c), h = c->height > 0 ? c->height : (n * 34 + 190 > 600 ? n * 34 + 190 : 600);
    int label_w = 0;
    for (int i = 0; i < n; i++)
        if (text_w(bars[i].label, 2) > label_w) label_w = text_w(bars[i].label, 2);
    if (label_w > w * 2 / 5) label_w = w * 2 / 5;
    Canvas cv = canvas(w, h);
    Chart noy = *c;
    noy.ylabel = NULL;                  /* the bars' labels are the y axis */
    Rect p = frame(&cv, &noy, &x, NULL, label_w + 14, 50, 1);
    double slot = (double)(p.y1 - p.y0) / (n > 0 ? n : 1);
    double base = x.log ? x.lo : fmax(x.lo, fmin(0, x.hi));
    for (int i = 0; i < n; i++) {
        int yc = (int)(p.y0 + slot * (i + 0.5)), half = (int)fmin(slot * 0.36, 22);
        char s[256], v[32];
        fit(s, sizeof s, bars[i].label, label_w);
        text(&cv, p.x0 - 12, yc - TEXT_H / 2, s, 2, INK, RIGHT);
        fmt_num(v, sizeof v, bars[i].value);
        if (!usable(&x, bars[i].value)) {
            text(&cv, p.x0 + 6, yc - TEXT_H / 2, "n/a", 2, AXIS, LEFT);
            continue;
        }
        int a = (int)lround(pix(&x, base)), b = (int)lround(pix(&x, bars[i].value));
        clip(&cv, p.x0, p.y0, p.x1, p.y1);
        fill(&cv, a < b ? a : b, yc - half, (a < b ? b : a) + 1, yc + half, pick(bars[i].rgb, 0));
        unclip(&cv);
        text(&cv, (a <= b ? b : a) + 6, yc - TEXT_H / 2, v, 2, INK, LEFT);   /* past the bar's right end */
    }
    draw_refs(&cv, p, c, &x, 1);
    frame_box(&cv, p, drawn);
    return write_png(&cv, path);
}

/* ---- lines ---------------------------------------------------------------------------- */

int chart_lines(const Chart *c, const char *path, const ChartSeries *s, int ns) {
    double xmn = INFINITY, xmx = -INFINITY, ymn = INFINITY, ymx = -INFINITY;
    for (int k = 0; k < ns; k++)
        for (int i = 0; i < s[k].n; i++) {
            double xv = s[k].x[i], yv = s[k].y[i];
            if (!isfinite(xv) || !isfinite(yv) || (c->logx && xv <= 0) || (c->logy && yv <= 0)) continue;
            xmn = fmin(xmn, xv); xmx = fmax(xmx, xv); ymn = fmin(ymn, yv); ymx = fmax(ymx, yv);
        }
    for (int i = 0; i < c->nrefs; i++)
        if (isfinite(c->refs[i].value) && (!c->logy || c->refs[i].value > 0))
            ymn = fmin(ymn, c->refs[i].value), ymx = fmax(ymx, c->refs[i].value);
    Axis x = axis_fit(xmn, xmx, c->logx, 0, 0), y = axis_fit(ymn, ymx, c->logy, 1, 0);
    Legend *l = xcalloc((size_t)ns + 1, sizeof(Legend));
    for (int k = 0; k < ns; k++) l[k] = (Legend){s[k].name, pick(s[k].rgb, k), k};
    Canvas cv = canvas(default_w(c), default_h(c));
    Rect p = frame(&cv, c, &x, &y, 0, legend_w(l, ns), 0);
    draw_refs(&cv, p, c, &y, 0);
    clip(&cv, p.x0, p.y0, p.x1, p.y1 + 1);
    for (int k = 0; k < ns; k++) {
        unsigned rgb = pick(s[k].rgb, k);
        int have_prev = 0;
        double px = 0, py = 0;
        for (int i = 0; i < s[k].n; i++) {
            if (!usable(&x, s[k].x[i]) || !usable(&y, s[k].y[i])) { have_prev = 0; continue; }
            double qx = pix(&x, s[k].x[i]), qy = pix(&y, s[k].y[i]);
            if (have_prev && !s[k].points_only) line(&cv, px, py, qx, qy, rgb);
            px = qx; py = qy; have_prev = 1;
        }
        for (int i = 0; i < s[k].n; i++)
            if (usable(&x, s[k].x[i]) && usable(&y, s[k].y[i]))
                marker(&cv, (int)lround(pix(&x, s[k].x[i])), (int)lround(pix(&y, s[k].y[i])), k, rgb);
    }
    unclip(&cv);
    frame_box(&cv, p, isfinite(xmx));
    legend_column(&cv, p, l, ns);
    free(l);
    return write_png(&cv, path);
}

/* ---- histogram ------------------------------------------------------------------------ */

int chart_hist(const Chart *c, const char *path, const ChartSample *s, int ns, int bins) {
    if (bins < 1) bins = 1;
    double mn = INFINITY, mx = -INFINITY;
    for (int k = 0; k < ns; k++)
        for (int i = 0; i < s[k].n; i++)
            if (isfinite(s[k].v[i]) && (!c->logx || s[k].v[i] > 0))
                mn = fmin(mn, s[k].v[i]), mx = fmax(mx, s[k].v[i]);
    if (!(mn <= mx)) mn = c->logx ? 1 : 0, mx = c->logx ? 10 : 1;
    if (mn == mx) mn = c->logx ? mn / 2 : mn - 0.5, mx = c->logx ? mx * 2 : mx + 0.5;
    /* bins over [mn, mx] exactly, in log space when logx */
    double lo = c->logx ? log10(mn) : mn, hi = c->logx ? log10(mx) : mx;
    double *count = xcalloc((size_t)ns * bins + 1, sizeof(double)), top = 0;
    for (int k = 0; k < ns; k++) {
        int total = 0;
        for (int i = 0; i < s[k].n; i++) {
            double v = s[k].v[i];
            if (!isfinite(v) || (c->logx && v <= 0)) continue;
            int b = (int)(((c->logx ? log10(v) : v) - lo) / (hi - lo) * bins);
            b = b < 0 ? 0 : b >= bins ? bins - 1 : b;
            count[k * bins + b]++, total++;
        }
        for (int b = 0; b < bins; b++) {
            if (c->density && total) count[k * bins + b] *= 100.0 / total;
            top = fmax(top, count[k * bins + b]);
        }
    }
    Axis x = axis_fit(mn, mx, c->logx, 0, 0), y = axis_fit(0, top, 0, 1, 0);
    if (y.step < 1 && !c->density) { y.step = 1; y.hi = ceil(y.hi); }   /* counts are whole */
    Legend *l = xcalloc((size_t)ns + 1, sizeof(Legend));
    for (int k = 0; k < ns; k++) l[k] = (Legend){s[k].name, pick(s[k].rgb, k), -1};
    Chart cc = *c;
    if (!cc.ylabel) cc.ylabel = c->density ? "share of its set (%)" : "count";
    Canvas cv = canvas(default_w(c), default_h(c));
    Rect p = frame(&cv, &cc, &x, &y, 0, ns > 1 || (ns == 1 && s[0].name) ? legend_w(l, ns) : 0, 1);
    clip(&cv, p.x0, p.y0, p.x1, p.y1);
    for (int b = 0; b < bins; b++) {
        double e0 = lo + (hi - lo) * b / bins, e1 = lo + (hi - lo) * (b + 1) / bins;
        double a = pix(&x, c->logx ? pow(10, e0) : e0), z = pix(&x, c->logx ? pow(10, e1) : e1);
        for (int k = 0; k < ns; k++) {
            const double n = count[k * bins + b];
            if (!(n > 0)) continue;
            int bx0 = (int)lround(a + (z - a) * k / ns), bx1 = (int)lround(a + (z - a) * (k + 1) / ns);
            int by = (int)lround(pix(&y, n));
            fill(&cv, bx0, by, bx1 > bx0 + 1 ? bx1 - 1 : bx0 + 1, p.y1, pick(s[k].rgb, k));
        }
    }
    unclip(&cv);
    draw_refs(&cv, p, c, &x, 1);
    frame_box(&cv, p, top > 0);
    if (ns > 1 || (ns == 1 && s[0].name)) legend_column(&cv, p, l, ns);
    free(l);
    free(count);
    return write_png(&cv, path);
}

/* ---- timeline ------------------------------------------------------------------------- */

/* Lays out the legend in rows from x0 to x1 starting at y; draws it when cv is given.
 * Returns the number of rows. */
static int legend_rows(Canvas *cv, const Legend *l, int n, int x0, int x1, int y) {
    int x = x0, rows = 1;
    for (int i = 0; i < n; i++) {
        int ew = text_w(l[i].name, 2) + 44;
        if (x + ew > x1 && x > x0) x = x0, y += TEXT_H + 12, rows++;
        if (cv) {
            fill(cv, x, y, x + 14, y + 14, l[i].rgb);
            box(cv, x, y, x + 14, y + 14, AXIS);
            text(cv, x + 20, y, l[i].name, 2, INK, LEFT);
        }
        x += ew;
    }
    return rows;
}

/* The lanes of a timeline: host threads (id = tid), then GPU streams (id = device << 32 | stream). */
typedef struct { long id; int gpu; char name[48]; } Lane;

static int timeline_lanes(const Trace *t, uint64_t t0, uint64_t t1, Lane *lanes, int cap) {
    int n = 0, n_cpu;
    for (int i = 0; i < t->napi && n < cap / 2; i++) {
        const TApi *a = &t->api[i];
        int seen = a->end < t0 || a->start > t1;
        for (int j = 0; j < n && !seen; j++) seen = lanes[j].id == (long)a->tid;
        if (!seen) lanes[n++] = (Lane){(long)a->tid, 0, ""};
    }
    n_cpu = n;
    for (int i = 0; i < t->nk && n < cap; i++) {
        const TKernel *k = &t->k[i];
        long id = (long)k->device << 32 | k->stream;
        int seen = k->end < t0 || k->start > t1;
        for (int j = n_cpu; j < n && !seen; j++) seen = lanes[j].id == id;
        if (!seen) lanes[n++] = (Lane){id, 1, ""};
    }
    for (int j = 0; j < n; j++) {
        if (lanes[j].gpu) snprintf(lanes[j].name, 48, "GPU stream %ld", lanes[j].id & 0xffffffff);
        else if (n_cpu == 1) snprintf(lanes[j].name, 48, "CPU calls");
        else snprintf(lanes[j].name, 48, "CPU thread %ld", lanes[j].id);
    }
    return n;
}

/* A box from start to end (ns) in a lane, at least one pixel wide. */
static void time_box(Canvas *cv, const Axis *x, uint64_t t0, uint64_t start, uint64_t end, int y0, int y1,
                     unsigned rgb) {
    int xa = (int)floor(pix(x, ((double)start - (double)t0) / 1e3));
    int xb = (int)ceil(pix(x, ((double)end - (double)t0) / 1e3));
    fill(cv, xa, y0, xb > xa ? xb : xa + 1, y1, rgb);
}

/* A GPU lane, pixel column by column: each column shaded by the share of its time some kernel
 * ran (white to the colour of the part that covered most of it), so a kernel narrower than a
 * pixel shows as a tint, not a full pixel, and a step busy 7% looks 7% busy. Kernels wider than
 * 4 pixels get a line where they begin. */
static void gpu_lane(Canvas *cv, const Axis *x, Rect p, const Trace *t, long id, uint64_t t0, uint64_t t1, int y0,
                     int y1) {
    const int w = p.x1 - p.x0 + 1;
    double *cov = xcalloc((size_t)w, sizeof(double)), *most = xcalloc((size_t)w, sizeof(double));
    unsigned *rgb = xcalloc((size_t)w, sizeof(unsigned));
    int *starts = xcalloc((size_t)w, sizeof(int));     /* columns where a kernel wider than 4 pixels begins */
    for (int i = 0; i < t->nk; i++) {
        const TKernel *k = &t->k[i];
        if (((long)k->device << 32 | k->stream) != id || k->end < t0 || k->start > t1) continue;
        const double fa = pix(x, ((double)k->start - (double)t0) / 1e3) - p.x0;
        const double fb = pix(x, ((double)k->end - (double)t0) / 1e3) - p.x0;
        const unsigned colour = chart_part_rgb(trace_kernel_part(k));
        for (int c = (int)floor(fa) < 0 ? 0 : (int)floor(fa); c < w && c < fb; c++) {
            const double o = fmin(fb, c + 1) - fmax(fa, c);
            if (o <= 0) continue;
            cov[c] += o;
            if (o > most[c]) most[c] = o, rgb[c] = colour;
        }
        if (fb - fa >= 4 && fa >= 0 && fa < w) starts[(int)floor(fa)] = 1;
    }
    for (int c = 0; c < w; c++) {
        if (cov[c] <= 0) continue;
        const double f = fmin(1, cov[c]);
        unsigned mix = 0;
        for (int sh = 0; sh < 24; sh += 8) {
            const double v = f * ((rgb[c] >> sh) & 0xFF) + (1 - f) * ((WHITE >> sh) & 0xFF);
            mix |= (unsigned)lround(v) << sh;
        }
        fill(cv, p.x0 + c, y0, p.x0 + c + 1, y1, mix);
    }
    for (int c = 0; c < w; c++)
        if (starts[c]) vline(cv, p.x0 + c, y0, y1, 1, INK);   /* on top of the shading */
    free(cov), free(most), free(rgb), free(starts);
}

int chart_timeline(const Chart *c, const char *path, const Trace *t, uint64_t t0, uint64_t t1) {
    if (t1 <= t0) { printf("chart %s: the timeline window is empty (t1 <= t0)\n", path); return -1; }
    Lane lanes[64];
    int n = timeline_lanes(t, t0, t1, lanes, 64), label_w = 0;
    for (int j = 0; j < n; j++)
        if (text_w(lanes[j].name, 2) > label_w) label_w = text_w(lanes[j].name, 2);
    /* the legend: the two kinds of host calls, idle, then the parts on screen */
    int shown[P_COUNT] = {0};
    for (int i = 0; i < t->nk; i++)
        if (t->k[i].end >= t0 && t->k[i].start <= t1) shown[trace_kernel_part(&t->k[i])] = 1;
    Legend l[P_COUNT + 3] = {{"launch call", 0x404040, -1}, {"other runtime call", 0xB8B8B8, -1}, {"idle", WHITE, -1}};
    int nl = 3;
    for (int q = 0; q < P_COUNT; q++)
        if (shown[q]) l[nl++] = (Legend){part_name((Part)q), chart_part_rgb(q), -1};

    const int lane_h = 44, lane_gap = 10;
    int w = c->width > 0 ? c->width : 1200, x0 = 20 + label_w + 14;
    int axis_h = 16 + 2 * TEXT_H + 26;       /* tick labels and the axis title */
    int h = title_h(c, w) + n * (lane_h + lane_gap) + axis_h + legend_rows(NULL, l, nl, x0, w - 30, 0) * (TEXT_H + 12) + 10;
    if (c->height > h) h = c->height;
    Canvas cv = canvas(w, h);
    int top = title(&cv, c);
    Rect p = {x0, top, w - 30, top + n * (lane_h + lane_gap) - lane_gap};
    Axis x = axis_fit(0, (double)(t1 - t0) / 1e3, 0, 1, 1);
    x.p0 = p.x0; x.p1 = p.x1 - 1;
    draw_ticks(&cv, p, &x, 1);
    text(&cv, (p.x0 + p.x1) / 2, p.y1 + 16 + TEXT_H + 10, c->xlabel ? c->xlabel : "time (us)", 2, INK, CENTER);
    for (int j = 0; j < n; j++) {
        int y0 = p.y0 + j * (lane_h + lane_gap), y1 = y0 + lane_h;
        fill(&cv, p.x0, y0, p.x1, y1, WHITE);
        text(&cv, p.x0 - 12, (y0 + y1) / 2 - TEXT_H / 2, lanes[j].name, 2, INK, RIGHT);
        box(&cv, p.x0 - 1, y0 - 1, p.x1 + 1, y1 + 1, GRID);
        clip(&cv, p.x0, p.y0, p.x1, p.y1);
        for (int pass = 0; pass < 2 && !lanes[j].gpu; pass++)       /* launch calls on top */
            for (int i = 0; i < t->napi; i++) {
                const TApi *a = &t->api[i];
                if ((long)a->tid == lanes[j].id && a->end >= t0 && a->start <= t1 && trace_is_launch_call(a->name) == pass)
                    time_box(&cv, &x, t0, a->start, a->end, y0 + 6, y1 - 6, pass ? 0x404040 : 0xB8B8B8);
            }
        if (lanes[j].gpu) gpu_lane(&cv, &x, p, t, lanes[j].id, t0, t1, y0, y1);
        unclip(&cv);
    }
    legend_rows(&cv, l, nl, x0, w - 30, p.y1 + axis_h);
    return write_png(&cv, path);
}
