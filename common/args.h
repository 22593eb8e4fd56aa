/* args: the flags the days take. --model DIR (real weights; default: the synthetic
 * TinyLlama), --help (print usage, exit 0), and where a day asks for them:
 *   --dispatch-us N   the emulated dispatcher's host cost per launch (default 40 us: the
 *                     lesson's "30-50 us of CPU per op" for PyTorch eager on a T4 host)
 *   --verbose         every sample line, not only the summary block
 * Anything else is one sentence and exit 1. */
#ifndef KIT_ARGS_H
#define KIT_ARGS_H
#ifdef __cplusplus
extern "C" {
#endif

enum { ARG_DISPATCH = 1, ARG_VERBOSE = 2 };
#define DISPATCH_US_DEFAULT 40.0
typedef struct { const char *model_dir; double dispatch_us; int verbose; } DayArgs;

DayArgs day_args(int argc, char **argv, const char *day, void (*usage)(void), int flags);
/* day_args with --model alone */
const char *model_arg(int argc, char **argv, const char *day, void (*usage)(void));

#ifdef __cplusplus
}
#endif
#endif
