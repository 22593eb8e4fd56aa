/* args: the one flag most days take. --model DIR (real weights; default: the synthetic
 * TinyLlama), --help (print usage, exit 0); anything else is one sentence and exit 1. */
#ifndef KIT_ARGS_H
#define KIT_ARGS_H
#ifdef __cplusplus
extern "C" {
#endif

const char *model_arg(int argc, char **argv, const char *day, void (*usage)(void));

#ifdef __cplusplus
}
#endif
#endif
