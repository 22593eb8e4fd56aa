/* fuzz.h: what the kit's libFuzzer targets share (harness.c). Each target tests/fuzz/NAME.c
 * defines LLVMFuzzerTestOneInput and is built by `make fuzz` (clang, -fsanitize=fuzzer,
 * address,undefined); tests/cpu/fuzz.sh runs them.
 *
 * The kit reports bad input with die(): one sentence, exit 1. A fuzz target meets millions
 * of bad inputs, so the targets are linked with -Wl,--wrap for exit, malloc, calloc, realloc,
 * free, fopen, fclose, mmap and munmap (cJSON allocates through the same functions): inside
 * fuzz_try() an exit jumps back, and whatever the interrupted call had allocated, opened or
 * mapped is freed, closed and unmapped, so the next input starts clean. A call that returns
 * keeps what it made: the target frees it, and LeakSanitizer reports what it does not. */
#ifndef KIT_FUZZ_H
#define KIT_FUZZ_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "model/config.h"

/* Runs fn(ctx); 1 when it died (exit was called), 0 when it returned. Not nested. */
int fuzz_try(void (*fn)(void *ctx), void *ctx);
/* This process's own temporary folder (made on first use, removed at exit), and a path in it. */
const char *fuzz_dir(void);
const char *fuzz_path(const char *name);   /* fuzz_dir()/name, in one of 4 rotating buffers */
/* Writes data to fuzz_dir()/name; returns its path. */
const char *fuzz_write(const char *name, const uint8_t *data, size_t n);
/* A file the seed builder (seeds.c) made: $KIT_FUZZ_DATA/name (fuzz.sh sets it). */
const char *fuzz_data(const char *name);
/* The course's fixtures folder: $SHARED/fixtures/name (default ../shared). */
const char *fuzz_fixture(const char *name);
/* An input of two files: writes the bytes before its first line "%%" to fuzz_dir()/first,
 * and those after it (none when there is no such line) to fuzz_dir()/second. */
void fuzz_write_two(const uint8_t *data, size_t n, const char *first, const char *second);

/* The weights in folder dir (st_open) under config c, then the tiny forward pass on the CPU
 * reference: two prompt tokens and a decode step (the targets for safetensors and the index). */
void fuzz_forward(const Config *c, const char *dir);

/* An invariant: when it does not hold, the input is a finding (abort, with the reason). */
#define FUZZ_ASSERT(cond, ...) do { if (!(cond)) { fprintf(stderr, "fuzz invariant: " __VA_ARGS__); \
    fprintf(stderr, " (%s:%d)\n", __FILE__, __LINE__); abort(); } } while (0)

#endif
