/* util: die, allocation, files, clocks, and half/bfloat16 conversion on the host. */
#include "util.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

void die(const char *fmt, ...) {
    va_list ap;
    fflush(stdout);
    fputs("error: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) die("out of host memory allocating %zu bytes", n);
    return p;
}

void *xcalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) die("out of host memory allocating %zu x %zu bytes", n, size);
    return p;
}

FILE *open_regular(const char *path) {
    struct stat s;
    if (stat(path, &s) != 0) return NULL;
    if (!S_ISREG(s.st_mode))
        die("%s is %s, not a file; give the path of the file itself", path,
            S_ISDIR(s.st_mode) ? "a folder" : S_ISFIFO(s.st_mode) ? "a FIFO (named pipe)" : "a device or socket");
    return fopen(path, "rb");
}

char *read_file(const char *path, size_t *len) {
    FILE *f = open_regular(path);
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = xmalloc(cap + 1);
    for (;;) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap) break;
        cap *= 2;
        char *nb = realloc(buf, cap + 1);
        if (!nb) { free(buf); fclose(f); die("out of host memory reading %s", path); }
        buf = nb;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) { free(buf); return NULL; }
    buf[n] = 0;
    if (len) *len = n;
    return buf;
}

int read_line(FILE *f, char *buf, int cap, const char *path, int *lineno) {
    int c, n = 0;
    while ((c = getc(f)) != EOF && c != '\n') {
        if (c == '\r') {                     /* "\r\n" ends a line too */
            if ((c = getc(f)) == '\n') break;
            ungetc(c, f);
            c = '\r';
        }
        if (n == cap - 1) die("%s line %d is longer than %d characters; shorten it", path, *lineno + 1, cap - 1);
        buf[n++] = (char)c;
    }
    if (c == EOF && n == 0) return 0;
    buf[n] = 0;
    ++*lineno;
    return 1;
}

int path_exists(const char *path) {
    struct stat s;
    return stat(path, &s) == 0;
}

int file_exists(const char *path) {
    struct stat s;
    return stat(path, &s) == 0 && S_ISREG(s.st_mode);
}

uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

void progress(int i, int n, const char *what) {
    static double t0 = -1;
    if (t0 < 0) t0 = now_ms();
    fprintf(stderr, "[%d/%d] %s (%.0f s)\n", i, n, what, (now_ms() - t0) / 1e3);
}

double now_ms(void) { return (double)now_ns() * 1e-6; }

static uint32_t f32_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float bits_f32(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

/* fp16: 1 sign, 5 exponent (bias 15), 10 mantissa bits. */
float half_to_float(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    if (exp == 0x1f) return bits_f32(sign | 0x7f800000 | (man << 13));        /* inf, nan */
    if (exp == 0) {                                                           /* 0, subnormal */
        float v = (float)man * (1.0f / 16777216.0f);                          /* man * 2^-24 */
        return sign ? -v : v;
    }
    return bits_f32(sign | ((exp + 112) << 23) | (man << 13));
}

uint16_t float_to_half(float f) {
    uint32_t u = f32_bits(f);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000);
    uint32_t a = u & 0x7fffffff;
    if (a > 0x7f800000) return sign | 0x7e00;                                  /* nan */
    if (a >= 0x477ff000) return sign | 0x7c00;         /* rounds to >= 65520: inf */
    if (a < 0x38800000) {                              /* below 2^-14: subnormal or 0 */
        /* value / 2^-24, rounded to nearest even: shift the 24-bit significand */
        if (a < 0x33000000) return sign;               /* < 2^-25: rounds to 0 */
        uint32_t e = a >> 23, m = (a & 0x7fffff) | 0x800000;
        int shift = 126 - (int)e;                      /* 14..24 */
        uint32_t q = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
        q += (rem > half) | ((rem == half) & q);       /* nearest, ties to even */
        return sign | (uint16_t)q;
    }
    uint32_t q = ((a >> 13) - (112u << 10)), rem = a & 0x1fff;             /* rebias 127 -> 15 */
    q += (rem > 0x1000) | ((rem == 0x1000) & q);   /* nearest, ties to even; a carry bumps the exponent */
    return sign | (uint16_t)q;
}

float bf16_to_float(uint16_t b) { return bits_f32((uint32_t)b << 16); }
