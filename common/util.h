/* util: the few helpers every file needs. die() prints one sentence and exits 1; the
 * sentence should name the file or field at fault and what to do about it. */
#ifndef KIT_UTIL_H
#define KIT_UTIL_H
#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
void *xmalloc(size_t n);                 /* dies when out of memory */
void *xcalloc(size_t n, size_t size);
char *read_file(const char *path, size_t *len);   /* NUL-terminated; NULL if unreadable */
int file_exists(const char *path);
double now_ms(void);                     /* CLOCK_MONOTONIC, milliseconds */
uint64_t now_ns(void);
/* half <-> float on the host (IEEE fp16 and bfloat16), round to nearest even */
float half_to_float(uint16_t h);
uint16_t float_to_half(float f);
float bf16_to_float(uint16_t b);

#ifdef __cplusplus
}
#endif
#endif
