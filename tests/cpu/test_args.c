/* args.c: the one parser's rules. Integers with junk, out of range, negative; reals NaN, inf,
 * junk; zero where a range holds it and where it does not; a flag last with no value; an unknown
 * flag; choices; the count of words; --help; and args_parse's exits (0 with the usage on stdout,
 * 1 with one sentence on stderr) in a child process. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"
#include "args.h"

static int n_new, batch, mode, verbose, nwords;
static double dispatch_us, scale;
static const char *model, *dispatch_from, *word[2];
static const ArgFlag FLAGS[] = {
    {"--new", ARG_INT, &n_new, 2, 4096, "tokens to generate"},
    {"--batch", ARG_INT, &batch, -3, 256, "rows"},
    {"--scale", ARG_REAL, &scale, 0.5, 2, "a factor"},
    {"--mode", ARG_CHOICE, &mode, 0, 0, "eager|fused|graph"},
    {"--verbose", ARG_FLAG, &verbose, 0, 0, "every line"},
    ARG_MODEL(&model),
    ARG_DISPATCH_US(&dispatch_us),
    ARG_DISPATCH_FROM(&dispatch_from),
    {0},
};
static const ArgWords WORDS = {"claims.tsv and rows.tsv", 1, 2, word, &nwords, 0};
static char err[1024];

/* args_read on "prog" and the words given (NULL-terminated); resets every destination first */
static int parse(const ArgWords *w, ...) {
    char *argv[16] = {"prog"};
    int argc = 1;
    va_list ap;
    va_start(ap, w);
    for (char *s; (s = va_arg(ap, char *)) != NULL && argc < 15;) argv[argc++] = s;
    va_end(ap);
    n_new = batch = mode = verbose = nwords = -99, dispatch_us = scale = -99, model = dispatch_from = word[0] = word[1] = NULL;
    err[0] = 0;
    return args_read("prog", "usage: prog [--new N] A [B]\n  more\n", argc, argv, FLAGS, w, err, sizeof err);
}
#define SAID(s) (strstr(err, s) != NULL)

/* args_parse in a child: its exit code, what it printed on stdout and on stderr */
static int child(char **argv, int argc, char *out, char *errs, size_t cap) {
    int po[2], pe[2];
    if (pipe(po) || pipe(pe)) return -1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(po[1], 1), dup2(pe[1], 2);
        args_parse("prog", "usage: prog [--new N] A [B]\n", argc, argv, FLAGS, &WORDS);
        exit(7);   /* parsed: neither exit happened */
    }
    close(po[1]), close(pe[1]);
    int st = 0;
    waitpid(pid, &st, 0);
    ssize_t a = read(po[0], out, cap - 1), b = read(pe[0], errs, cap - 1);
    out[a > 0 ? a : 0] = 0, errs[b > 0 ? b : 0] = 0;
    close(po[0]), close(pe[0]);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int main(void) {
    /* valid input lands in the destinations */
    CHECK(parse(&WORDS, "--new", "64", "--scale", "1.5", "--mode", "graph", "--verbose", "--model", "m", "a", NULL) == 0
              && n_new == 64 && scale == 1.5 && mode == 2 && verbose == 1 && !strcmp(model, "m") && nwords == 1
              && !strcmp(word[0], "a"), "a valid line: %s", err);
    CHECK(parse(&WORDS, "a", "--new", "2", "b", NULL) == 0 && n_new == 2 && nwords == 2 && !strcmp(word[1], "b"),
          "flags among the words: %s", err);
    CHECK(parse(&WORDS, "--model", "--new", "a", NULL) == 0 && !strcmp(model, "--new"), "a value is the next word");
    CHECK(parse(&WORDS, "--", "--new", NULL) == 0 && nwords == 1 && !strcmp(word[0], "--new") && n_new == -99,
          "-- ends the flags");
    CHECK(parse(&WORDS, "-", NULL) == 0 && !strcmp(word[0], "-"), "- alone is a word");

    /* integers: the whole text, base 10, in range */
    CHECK(parse(&WORDS, "--new", "3x", "a", NULL) < 0
              && !strcmp(err, "prog: --new 3x: give a whole number from 2 to 4096 (tokens to generate)"),
          "trailing junk: %s", err);
    CHECK(parse(&WORDS, "--new", "1", NULL) < 0 && SAID("--new 1: give a whole number from 2 to 4096"), "below: %s", err);
    CHECK(parse(&WORDS, "--new", "4097", NULL) < 0 && SAID("--new 4097:"), "above");
    CHECK(parse(&WORDS, "--new", "4096", "a", NULL) == 0 && n_new == 4096, "the top end is taken");
    CHECK(parse(&WORDS, "--new", "-5", NULL) < 0 && SAID("--new -5: give a whole number from 2"), "negative: %s", err);
    CHECK(parse(&WORDS, "--batch", "-3", "a", NULL) == 0 && batch == -3, "negative where the range holds it");
    CHECK(parse(&WORDS, "--new", "99999999999999999999", NULL) < 0, "past long long");
    CHECK(parse(&WORDS, "--new", "0x10", NULL) < 0, "hex");
    CHECK(parse(&WORDS, "--new", "64.0", NULL) < 0 && parse(&WORDS, "--new", "1e2", NULL) < 0, "a real for an int");
    CHECK(parse(&WORDS, "--new", " 64", NULL) < 0 && parse(&WORDS, "--new", "64 ", NULL) < 0, "spaces");
    CHECK(parse(&WORDS, "--new", "", NULL) < 0 && n_new == -99, "empty");

    /* reals: the whole text, finite, in range */
    CHECK(parse(&WORDS, "--scale", "nan", NULL) < 0 && !strcmp(err, "prog: --scale nan: give a number from 0.5 to 2 (a factor)"),
          "NaN: %s", err);
    CHECK(parse(&WORDS, "--scale", "inf", NULL) < 0 && parse(&WORDS, "--scale", "-inf", NULL) < 0, "inf");
    CHECK(parse(&WORDS, "--scale", "1.5x", NULL) < 0 && parse(&WORDS, "--scale", "x", NULL) < 0, "junk");
    CHECK(parse(&WORDS, "--scale", "2.0001", NULL) < 0 && parse(&WORDS, "--scale", "0.4", NULL) < 0, "out of range");
    CHECK(parse(&WORDS, "--scale", "2", "a", NULL) == 0 && scale == 2 && parse(&WORDS, "--scale", ".5", "a", NULL) == 0
              && scale == 0.5, "both ends taken");

    /* zero: in the range or not */
    CHECK(parse(&WORDS, "--dispatch-us", "0", "a", NULL) == 0 && dispatch_us == 0, "--dispatch-us 0 is in its range");
    CHECK(parse(&WORDS, "--dispatch-us", "1000", "a", NULL) == 0 && dispatch_us == 1000, "--dispatch-us 1000");
    CHECK(parse(&WORDS, "--dispatch-us", "1000.5", NULL) < 0 && SAID("--dispatch-us 1000.5: give a number from 0 to 1000 (")
              && SAID("0 = no dispatcher"), "--dispatch-us above 1000: %s", err);
    CHECK(parse(&WORDS, "--dispatch-us", "-0.1", NULL) < 0, "--dispatch-us below 0");
    CHECK(parse(&WORDS, "a", NULL) == 0 && dispatch_us == -99, "--dispatch-us not given: its destination as it was "
          "(a program presets NAN, so dispatch_setup tells 'not given' from 0)");
    CHECK(parse(&WORDS, "--dispatch-from", "t.json.gz", "--dispatch-us", "20", "a", NULL) == 0 &&
              !strcmp(dispatch_from, "t.json.gz") && dispatch_us == 20, "--dispatch-from TRACE beside --dispatch-us");
    CHECK(parse(&WORDS, "a", "--dispatch-from", NULL) < 0 && SAID("--dispatch-from needs a value (a torch.profiler trace"),
          "--dispatch-from without its trace: %s", err);
    CHECK(parse(&WORDS, "--scale", "0", NULL) < 0 && SAID("from 0.5 to 2"), "0 outside a range");
    CHECK(parse(&WORDS, "--batch", "0", "a", NULL) == 0 && batch == 0, "0 inside an int range");

    /* a flag last, an unknown flag */
    CHECK(parse(&WORDS, "a", "--new", NULL) < 0 && !strcmp(err, "prog: --new needs a value (tokens to generate)"),
          "missing value: %s", err);
    CHECK(parse(&WORDS, "a", "--mode", NULL) < 0 && SAID("--mode needs a value (one of eager, fused or graph)"),
          "missing choice: %s", err);
    CHECK(parse(&WORDS, "--bogus", "a", NULL) < 0 && !strcmp(err, "prog: unknown option --bogus (see --help)"),
          "unknown: %s", err);
    CHECK(parse(&WORDS, "--new=5", "a", NULL) < 0 && SAID("unknown option --new=5"), "--flag=value is not a form");
    CHECK(parse(NULL, "a", NULL) < 0 && SAID("unexpected argument 'a'"), "a word where none are taken: %s", err);

    /* choices */
    CHECK(parse(&WORDS, "--mode", "eager", "a", NULL) == 0 && mode == 0, "the first choice");
    CHECK(parse(&WORDS, "--mode", "fuse", NULL) < 0 && !strcmp(err, "prog: --mode fuse: give one of eager, fused or graph"),
          "a prefix: %s", err);
    CHECK(parse(&WORDS, "--mode", "graphs", NULL) < 0 && parse(&WORDS, "--mode", "", NULL) < 0
              && parse(&WORDS, "--mode", "eager|fused", NULL) < 0, "longer, empty, two");

    /* the count of words */
    CHECK(parse(&WORDS, NULL) < 0 && !strcmp(err, "prog: no claims.tsv and rows.tsv given (usage: prog [--new N] A [B])"),
          "none: %s", err);
    CHECK(parse(&WORDS, "a", "b", "c", NULL) < 0
              && !strcmp(err, "prog: claims.tsv and rows.tsv wanted, 3 given (usage: prog [--new N] A [B])"), "three: %s", err);
    const ArgWords one = {"trace", 1, 1, word, &nwords, 0};
    CHECK(parse(&one, "x.json", "y.json", NULL) < 0 && !strcmp(err, "prog: one trace at a time: x.json and y.json"),
          "one at a time: %s", err);
    const ArgWords rest = {"text", 0, 2, word, &nwords, 1};
    CHECK(parse(&rest, "--new", "8", "hi", "--new", NULL) == 0 && n_new == 8 && nwords == 2 && !strcmp(word[1], "--new"),
          "rest: the first word ends the flags");
    CHECK(parse(&rest, NULL) == 0 && nwords == 0, "no word where none are needed");

    /* --help wherever the flags are read, not as a value or after -- */
    CHECK(parse(&WORDS, "--new", "8", "-h", NULL) == 1 && parse(&WORDS, "--help", "--bogus", NULL) == 1, "--help and -h");
    CHECK(parse(&WORDS, "--bogus", "--help", NULL) < 0, "an error before --help is the error");
    CHECK(parse(&WORDS, "--model", "--help", "a", NULL) == 0, "--help as a value");

    /* args_parse's exits */
    char out[4096], errs[4096];
    char *help[] = {"prog", "--help"}, *bad[] = {"prog", "--new", "3x", "a"}, *good[] = {"prog", "a"};
    int rc = child(help, 2, out, errs, sizeof out);
    CHECK(rc == 0 && !strncmp(out, "usage: prog", 11) && !*errs, "--help: exit %d, usage on stdout", rc);
    rc = child(bad, 4, out, errs, sizeof out);
    CHECK(rc == 1 && !*out && !strcmp(errs, "error: prog: --new 3x: give a whole number from 2 to 4096 (tokens to generate)\n"),
          "a bad value: exit %d, one sentence [%s]", rc, errs);
    rc = child(good, 2, out, errs, sizeof out);
    CHECK(rc == 7 && !*out && !*errs, "valid: args_parse returns (exit %d)", rc);
    return check_done("test_args");
}
