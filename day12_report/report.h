/* Day 12's page (report.c): REPORT.md and its charts, written into the results folder. */
#ifndef DAY12_REPORT_H
#define DAY12_REPORT_H

/* Reads DIR/rows.tsv (and DIR/gaps_*.tsv, DIR/timeline_*.png), writes DIR/REPORT.md and the
 * PNG charts beside it, prints one line saying so; dies with one sentence naming the file
 * when DIR/rows.tsv is not a rows file or REPORT.md cannot be written. */
void report_write(const char *dir);

#endif
