/* util: the few helpers every file needs. die() prints one sentence and exits 1; the
 * sentence should name the file or field at fault and what to do about it. */
#ifndef KIT_UTIL_H
#define KIT_UTIL_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#ifdef __cplusplus
extern "C" {
#endif

void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
void *xmalloc(size_t n);                 /* dies when out of memory */
void *xcalloc(size_t n, size_t size);
/* fopen(path, "rb") of a regular file: NULL when it cannot be opened (missing, no permission);
 * dies naming it when it is a folder, a FIFO or a device, which would read as empty or wait. */
FILE *open_regular(const char *path);
char *read_file(const char *path, size_t *len);   /* NUL-terminated; NULL if unreadable */
/* Reads the next line of f (path: for the message) into buf without its "\n" or "\r\n" and
 * counts it in *lineno; 0 at the end. A line longer than cap - 1 characters is an error
 * naming the file and the line, never split in two. */
int read_line(FILE *f, char *buf, int cap, const char *path, int *lineno);
int file_exists(const char *path);       /* a regular file is there */
int path_exists(const char *path);       /* anything is there: a file, a folder, a FIFO ... */
double now_ms(void);                     /* CLOCK_MONOTONIC, milliseconds */
/* One progress line on stderr, "[i/n] what (12 s)", seconds since the first call: long work
 * (a T4 takes minutes) says it is alive without adding to the day's stdout. */
void progress(int i, int n, const char *what);
uint64_t now_ns(void);
/* half <-> float on the host (IEEE fp16 and bfloat16), round to nearest even */
float half_to_float(uint16_t h);
uint16_t float_to_half(float f);
float bf16_to_float(uint16_t b);

#ifdef __cplusplus
}
#endif
#endif
