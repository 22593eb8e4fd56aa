/* The kit's test harness: CHECK(cond, fmt, ...) counts a pass or prints the failure, and
 * check_done() prints "N passed, N failed" (tests/run.sh adds these lines up) and returns
 * the exit code. SHARED (env, default ../shared) is where the fixtures live. */
#ifndef KIT_CHECK_H
#define KIT_CHECK_H
#include <stdio.h>
#include <stdlib.h>

static int check_pass_, check_fail_;
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

static inline const char *shared_dir(void) {
    const char *s = getenv("SHARED");
    return s && *s ? s : "../shared";
}
static inline int check_done(const char *name) {
    printf("%s: %d passed, %d failed\n", name, check_pass_, check_fail_);
    return check_fail_ ? 1 : 0;
}
#endif
