/* args: every program's command line, by one set of rules. A program declares its flags in a
 * table (name, kind, where the value goes, the inclusive range of a number, a few words saying
 * what the value is) and its other words, and calls args_parse once, first thing:
 *   integers  the whole text is a base-10 integer (strtoll, nothing left over) within the range
 *   reals     the whole text is a number (strtod, nothing left over), finite, within the range
 *   zero      a range holds 0 or it does not; where a day must refuse a value its range holds
 *             (day09 and day11 always measure the bare-C rows that --dispatch-us 0 would
 *             repeat), the day says so in a sentence of its own after parsing
 *   --help, -h  the usage on stdout, exit 0
 * Anything else (a bad value, a flag last with no value, an unknown flag, too few or too many
 * words) is one sentence naming the program, the flag and what it takes, and exit 1:
 *   error: bench: --new 3x: give a whole number from 2 to 4096 (tokens to generate)
 * A flag's value is the next word, whatever it is; "--" ends the flags. */
#ifndef KIT_ARGS_H
#define KIT_ARGS_H
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    ARG_FLAG,     /* no value: *(int *)dest = 1 */
    ARG_INT,      /* *(int *)dest, from lo to hi */
    ARG_REAL,     /* *(double *)dest, from lo to hi */
    ARG_STRING,   /* *(const char **)dest: the word as given */
    ARG_CHOICE,   /* *(int *)dest: the value's place in what, "eager|fused|graph" -> 0, 1, 2 */
} ArgKind;

typedef struct {
    const char *name;   /* "--new" */
    ArgKind kind;
    void *dest;
    double lo, hi;      /* ARG_INT, ARG_REAL: the values taken, both ends included */
    const char *what;   /* what the value is, "tokens to generate"; ARG_CHOICE: the names, | between */
} ArgFlag;              /* a table of them ends with {0} */

typedef struct {
    const char *what;   /* what the words are, for "no trace given" or "claims.tsv and rows.tsv wanted" */
    int min, max;       /* how many may come */
    const char **dest;  /* room for max words */
    int *n;             /* how many came */
    int rest;           /* 1: the first word ends the flags (bin/tokenize's TEXT may begin with -) */
} ArgWords;

/* The flags every program that takes them shares. The emulated dispatcher (gpu/dispatch.h)
 * busy-waits before each launch a time drawn from a distribution measured in a real PyTorch
 * trace; --dispatch-us sets its median, --dispatch-from takes shape and median from a trace.
 * The days default to DISPATCH_US_DEFAULT, the median of the course's fixture trace (13.9 us
 * of host time per launch beyond the launch call; its mean is 1.5x that, and the lesson's
 * T4 host spends 30-50 us per op). A program sets its --dispatch-us destination to NAN
 * before parsing, so dispatch_setup can tell "not given" (the trace's own median) from a value. */
#define DISPATCH_US_DEFAULT 14.0
#define ARG_DISPATCH_US(dest) {"--dispatch-us", ARG_REAL, (dest), 0, 1000, \
    "the median microseconds the emulated dispatcher busy-waits before each launch; 0 = no dispatcher, the kit's bare C launches"}
#define ARG_DISPATCH_FROM(dest) {"--dispatch-from", ARG_STRING, (dest), 0, 0, \
    "a torch.profiler trace (.json or .json.gz) whose host time between launch calls the emulated dispatcher draws from"}
#define ARG_VERBOSE(dest) {"--verbose", ARG_FLAG, (dest), 0, 0, \
    "every row and line, not only the day's answers (all of them go to results/rows.tsv either way)"}
#define ARG_MODEL(dest) {"--model", ARG_STRING, (dest), 0, 0, "a folder with config.json and model.safetensors"}

/* Parses argv[1..] into the flags' and words' destinations (NULL words: the program takes none);
 * on --help prints usage and exits 0, on anything wrong dies with the sentence. */
void args_parse(const char *prog, const char *usage, int argc, char **argv, const ArgFlag *flags,
                const ArgWords *words);
/* The same without exiting: 0 parsed, 1 --help asked (nothing printed), -1 err holds the sentence. */
int args_read(const char *prog, const char *usage, int argc, char **argv, const ArgFlag *flags,
              const ArgWords *words, char *err, size_t cap);
/* The integer rule for a number that is not a flag's int (day07's child's start time, 64 bits). */
long long arg_int(const char *prog, const char *flag, const char *text, long long lo, long long hi,
                  const char *what);

#ifdef __cplusplus
}
#endif
#endif
