/* The kit's test harness: CHECK(cond, fmt, ...) counts a pass or prints the failure,
 * SKIP(fmt, ...) counts a check that cannot run here and prints why ("skipped: ..."), and
 * check_done() prints "N passed, N failed[, N skipped]" (tests/run.sh adds these lines up)
 * and returns the exit code. SHARED (env, default ../shared) is where the fixtures live. */
#ifndef KIT_CHECK_H
#define KIT_CHECK_H
#include <stdio.h>
#include <stdlib.h>

static int check_pass_, check_fail_, check_skip_;
#define CHECK(cond, ...)                                                          \
    do {                                                                          \
        if (cond) check_pass_++;                                                  \
        else {                                                                    \
            check_fail_++;                                                        \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                           \
            printf(__VA_ARGS__);                                                  \
            printf("\n");                                                         \
        }                                                                         \
    } while (0)

#define SKIP(...)                                                                 \
    do {                                                                          \
        check_skip_++;                                                            \
        printf("skipped: ");                                                      \
        printf(__VA_ARGS__);                                                      \
        printf("\n");                                                             \
    } while (0)

static inline const char *shared_dir(void) {
    const char *s = getenv("SHARED");
    return s && *s ? s : "../shared";
}
/* Tests that read the course's fixtures call this first: without them (a student's clone)
 * the test is skipped, loudly, instead of failing for want of a file; with
 * KIT_REQUIRE_FIXTURES set (CI) it fails. */
#include <sys/stat.h>
static inline void need_fixtures(const char *name) {
    char p[1024];
    struct stat st;
    snprintf(p, sizeof p, "%s/fixtures", shared_dir());
    if (stat(p, &st) == 0) return;
    int required = getenv("KIT_REQUIRE_FIXTURES") != NULL;   /* CI: a missing fixture fails */
    printf("%s: 0 passed, %d failed, %d skipped (no fixtures at %s: set SHARED to the course's shared folder)\n",
           name, required, !required, p);
    exit(required);
}
static inline int check_done(const char *name) {
    if (check_skip_) printf("%s: %d passed, %d failed, %d skipped\n", name, check_pass_, check_fail_, check_skip_);
    else printf("%s: %d passed, %d failed\n", name, check_pass_, check_fail_);
    return check_fail_ ? 1 : 0;
}
#endif
