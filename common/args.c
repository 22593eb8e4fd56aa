#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "args.h"
#include "util.h"

DayArgs day_args(int argc, char **argv, const char *day, void (*usage)(void), int flags) {
    DayArgs a = {NULL, DISPATCH_US_DEFAULT, 0};
    for (int i = 1; i < argc; i++) {
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) { usage(); exit(0); }
        else if (!strcmp(argv[i], "--model") && next) a.model_dir = argv[++i];
        else if ((flags & ARG_DISPATCH) && !strcmp(argv[i], "--dispatch-us") && next) {
            char *end;
            a.dispatch_us = strtod(next, &end);
            if (end == next || *end || !(a.dispatch_us > 0 && a.dispatch_us <= 1000))
                die("%s: --dispatch-us %s: give the host's cost per launch in microseconds, above 0 and at most 1000",
                    day, next);
            i++;
        } else if ((flags & ARG_VERBOSE) && !strcmp(argv[i], "--verbose")) a.verbose = 1;
        else { usage(); die("%s: unknown or incomplete argument '%s' (see --help)", day, argv[i]); }
    }
    return a;
}

const char *model_arg(int argc, char **argv, const char *day, void (*usage)(void)) {
    return day_args(argc, argv, day, usage, 0).model_dir;
}
