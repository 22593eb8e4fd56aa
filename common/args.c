#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "args.h"
#include "util.h"

const char *model_arg(int argc, char **argv, const char *day, void (*usage)(void)) {
    const char *model_dir = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) { usage(); exit(0); }
        else if (!strcmp(argv[i], "--model") && i + 1 < argc) model_dir = argv[++i];
        else { usage(); die("%s: unknown or incomplete argument '%s' (see --help)", day, argv[i]); }
    }
    return model_dir;
}
