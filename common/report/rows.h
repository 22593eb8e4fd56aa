/* rows: every measured item goes to results/rows.tsv (day key theory measured unit note)
 * and to stdout as key=value lines, through report(). A day's first report() of a run
 * drops that day's earlier rows and keeps the other days'. NAN theory = "no theory" ("-"). */
#ifndef KIT_ROWS_H
#define KIT_ROWS_H
#ifdef __cplusplus
extern "C" {
#endif

/* The results folder: $KIT_RESULTS or "results". */
const char *results_dir(void);
/* The same folder, created when missing: for programs that write files there. */
const char *results_mkdir(void);
/* Writes one row to results/rows.tsv (replacing the day's rows from earlier runs). */
void rows_write(const char *day, const char *key, double theory, double measured,
                const char *unit, const char *note);
/* Prints "key=measured unit theory=... note" as one greppable line. */
void rows_print(const char *key, double theory, double measured, const char *unit, const char *note);
/* Both: the one call a day's program makes for each measured item. */
void report(const char *day, const char *key, double theory, double measured,
            const char *unit, const char *note);
/* report() for a time that physics bounds from below (a TPOT or TTFT and its bandwidth
 * floor, the theory column). A measurement under its floor is an error, not a result: it
 * prints an error line that says what to check, its row's note starts with ROW_IMPOSSIBLE
 * (the answer check fails such a row), and rows_exit_code() turns 1. */
#define ROW_IMPOSSIBLE "IMPOSSIBLE"
void report_floored(const char *day, const char *key, double floor, double measured,
                    const char *unit, const char *note);
/* The emulated dispatcher a day ran with (gpu/dispatch.h: the process's shape, scaled to
 * median_us): dispatch_median_us, dispatch_p90_us and dispatch_mean_us as rows, each note
 * saying where the distribution came from, and dispatch_source="..." printed (a detail). */
void report_dispatch(const char *day, double median_us);
/* What a day's main() returns: 1 when a row was impossible, else 0. */
int rows_exit_code(void);
/* rows_quiet(1): report() writes its rows without printing them (a day's --verbose prints
 * them all; the rows are the same either way); an impossible row's error line still prints. */
void rows_quiet(int quiet);
/* A day's default output: rows_quiet(!verbose), and the keys it answers the lesson with (a
 * NULL-ended list, kept by pointer) print even when quiet. Each day names its list at the top,
 * in the lesson's order, beside the essay that explains them. */
void rows_headlines(const char *const *keys);
/* A line of a day's output that is not one of its answers (a section header, a table, a
 * reading that --verbose adds): printf, left out under rows_quiet. */
void detail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A tag added to every row's note from now on (KIT_GPU=t4: "emulated T4 path on ..."). */
void rows_tag(const char *tag);

/* Every control character of s (tab, newline, escape, ...) becomes a space, in place: the
 * escaping rows.tsv's notes get, for any text from outside that goes into one line (a kernel
 * name in a key=value line). Returns s. */
char *rows_one_line(char *s);

/* Reading back (day12, the answer checker). Non-finite values other than "-" (NAN, none)
 * are kept: a reader shows them as invalid. */
typedef struct { char day[16], key[64], unit[16], note[256]; double theory, measured; } Row;
/* Returns the count (0 if there is no file); dies naming the file and line when it is not
 * rows.tsv (a folder, a line that is not six fields, "nan" for a number). */
int rows_read(const char *path, Row **rows);
/* The first row with this key and day (day NULL or "": any day), or NULL; *ambiguous (when
 * not NULL) says whether several rows matched. */
const Row *rows_find(const Row *rows, int n, const char *day, const char *key, int *ambiguous);

#ifdef __cplusplus
}
#endif
#endif
