/* harness: fuzz_try and the bookkeeping behind it (fuzz.h), the temp folder, the inputs. */
#include <cjson/cJSON.h>
#include <ftw.h>
#include <setjmp.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>
#include "fuzz.h"
#include "model/model.h"
#include "model/safetensors.h"
#include "util.h"

/* the real functions, under the names -Wl,--wrap gives them */
void __real_exit(int code) __attribute__((noreturn));
void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
FILE *__real_fopen(const char *path, const char *mode);
int __real_fclose(FILE *f);
void *__real_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
int __real_munmap(void *addr, size_t len);

/* ---- what the call in progress holds ------------------------------------------------- */
static jmp_buf *back;                /* set while fuzz_try runs a call */
static void **live;                  /* its allocations: an open-addressing set, NULL = empty */
static size_t live_cap, live_n;
static FILE *files[64];              /* its open files */
static struct { void *addr; size_t len; } maps[64];   /* its mappings */
static int n_files, n_maps;

static size_t slot_of(const void *p) { return (size_t)(((uintptr_t)p >> 4) * 0x9E3779B97F4A7C15ull >> 32); }

static void live_add(void *p) {
    if (!back || !p) return;
    if (2 * (live_n + 1) > live_cap) {   /* grow to keep the set at most half full */
        size_t old_cap = live_cap;
        void **old = live;
        live_cap = old_cap ? 2 * old_cap : 4096;
        live = __real_calloc(live_cap, sizeof *live);
        if (!live) abort();
        live_n = 0;
        for (size_t i = 0; i < old_cap; i++) {
            if (!old[i]) continue;
            size_t j = slot_of(old[i]) & (live_cap - 1);
            while (live[j]) j = (j + 1) & (live_cap - 1);
            live[j] = old[i], live_n++;
        }
        __real_free(old);
    }
    size_t i = slot_of(p) & (live_cap - 1);
    while (live[i] && live[i] != p) i = (i + 1) & (live_cap - 1);
    if (!live[i]) live[i] = p, live_n++;
}
/* Removes p, moving back the entries after it that would no longer be found. */
static void live_remove(void *p) {
    if (!live_n || !p) return;
    size_t mask = live_cap - 1, i = slot_of(p) & mask;
    while (live[i] != p) {
        if (!live[i]) return;
        i = (i + 1) & mask;
    }
    live[i] = NULL, live_n--;
    for (size_t j = (i + 1) & mask; live[j]; j = (j + 1) & mask) {
        size_t home = slot_of(live[j]) & mask;
        int stays = i <= j ? i < home && home <= j : i < home || home <= j;   /* home in (i, j] */
        if (!stays) live[i] = live[j], live[j] = NULL, i = j;
    }
}

void *__wrap_malloc(size_t n) { void *p = __real_malloc(n); live_add(p); return p; }
void *__wrap_calloc(size_t n, size_t size) { void *p = __real_calloc(n, size); live_add(p); return p; }
void *__wrap_realloc(void *p, size_t n) {
    void *q = __real_realloc(p, n);
    if (q || !n) live_remove(p);
    live_add(q);
    return q;
}
void __wrap_free(void *p) { live_remove(p); __real_free(p); }
FILE *__wrap_fopen(const char *path, const char *mode) {
    FILE *f = __real_fopen(path, mode);
    if (f && back) {
        if (n_files == 64) abort();
        files[n_files++] = f;
    }
    return f;
}
int __wrap_fclose(FILE *f) {
    for (int i = 0; i < n_files; i++)
        if (files[i] == f) files[i] = files[--n_files];
    return __real_fclose(f);
}
void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off) {
    void *p = __real_mmap(addr, len, prot, flags, fd, off);
    if (p != MAP_FAILED && back) {
        if (n_maps == 64) abort();
        maps[n_maps].addr = p, maps[n_maps++].len = len;
    }
    return p;
}
int __wrap_munmap(void *addr, size_t len) {
    for (int i = 0; i < n_maps; i++)
        if (maps[i].addr == addr) maps[i] = maps[--n_maps];
    return __real_munmap(addr, len);
}
void __wrap_exit(int code) __attribute__((noreturn));
void __wrap_exit(int code) {
    if (back) longjmp(*back, 1);
    __real_exit(code);
}

/* cJSON allocates through the same bookkeeping. */
static void *json_malloc(size_t n) { return __wrap_malloc(n); }
static void json_free(void *p) { __wrap_free(p); }
__attribute__((constructor)) static void hooks(void) {
    cJSON_Hooks h = {json_malloc, json_free};
    cJSON_InitHooks(&h);
}

static void forget(void) {
    if (live) memset(live, 0, live_cap * sizeof *live);
    live_n = 0, n_files = 0, n_maps = 0;
}

int fuzz_try(void (*fn)(void *ctx), void *ctx) {
    jmp_buf here;
    if (back) abort();                                   /* not nested */
    forget();
    if (setjmp(here)) {                                  /* it died: give back what it held */
        back = NULL;
        for (size_t i = 0; i < live_cap; i++)
            if (live[i]) __real_free(live[i]);
        for (int i = 0; i < n_files; i++) __real_fclose(files[i]);
        for (int i = 0; i < n_maps; i++) __real_munmap(maps[i].addr, maps[i].len);
        forget();
        return 1;
    }
    back = &here;
    fn(ctx);
    back = NULL;
    forget();                                            /* what it returned is the caller's */
    return 0;
}

/* ---- the model ------------------------------------------------------------------------- */
void fuzz_forward(const Config *c, const char *dir) {
    SafeTensors st;
    st_open(&st, dir);
    CpuModel *m = cpu_model_open(c, &st, 0, 3);
    int ids[2] = {c->bos_id, c->vocab - 1};
    float *logits = xmalloc(sizeof(float) * 2 * c->vocab);
    cpu_forward(m, ids, 2, 0, logits, 1);
    int next = argmax_f32(logits + c->vocab, c->vocab);
    FUZZ_ASSERT(next >= 0 && next < c->vocab, "argmax %d outside the vocab", next);
    cpu_forward(m, &next, 1, 2, logits, 0);
    free(logits);
    cpu_model_free(m);
    st_close(&st);
}

/* ---- files ------------------------------------------------------------------------------ */
static char dir[256];

static int remove_one(const char *path, const struct stat *s, int flag, struct FTW *f) { return remove(path); }
static void remove_dir(void) { if (*dir) nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS); }

const char *fuzz_dir(void) {
    if (*dir) return dir;
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/kit_fuzz.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) { perror(dir); abort(); }
    atexit(remove_dir);
    return dir;
}

const char *fuzz_path(const char *name) {
    static char buf[4][512];
    static int i;
    char *b = buf[i++ & 3];
    snprintf(b, sizeof buf[0], "%s/%s", fuzz_dir(), name);
    return b;
}

const char *fuzz_write(const char *name, const uint8_t *data, size_t n) {
    const char *path = fuzz_path(name);
    FILE *f = __real_fopen(path, "wb");
    if (!f || fwrite(data, 1, n, f) != n || __real_fclose(f) != 0) { perror(path); abort(); }
    return path;
}

const char *fuzz_data(const char *name) {
    static char buf[4][512];
    static int i;
    const char *d = getenv("KIT_FUZZ_DATA");
    if (!d || !*d) {
        fprintf(stderr, "fuzz: set KIT_FUZZ_DATA to the folder the seed builder wrote (tests/cpu/fuzz.sh does)\n");
        abort();
    }
    char *b = buf[i++ & 3];
    snprintf(b, sizeof buf[0], "%s/%s", d, name);
    return b;
}

const char *fuzz_fixture(const char *name) {
    static char buf[512];
    const char *s = getenv("SHARED");
    snprintf(buf, sizeof buf, "%s/fixtures/%s", s && *s ? s : "../shared", name);
    return buf;
}

void fuzz_write_two(const uint8_t *data, size_t n, const char *first, const char *second) {
    size_t i = 0;
    while (i + 2 <= n && !((i == 0 || data[i - 1] == '\n') && !memcmp(data + i, "%%", 2) &&
                           (i + 2 == n || data[i + 2] == '\n')))
        i++;
    if (i + 2 > n) i = n;                                   /* no "%%" line: all of it is the first */
    size_t after = i + 3 < n ? i + 3 : n;
    fuzz_write(first, data, i);
    fuzz_write(second, data + after, n - after);
}
