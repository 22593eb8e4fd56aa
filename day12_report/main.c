/* bin/day12_report: the week's page for results/ ($KIT_RESULTS); the program is report.c. */
#include "args.h"
#include "report.h"
#include "report/rows.h"

static const char USAGE[] =
    "usage: day12_report\n"
    "  Writes results/REPORT.md and its PNG charts from results/rows.tsv (and the gap lists and\n"
    "  timelines beside it) for the days that ran; KIT_RESULTS names another folder.\n";

int main(int argc, char **argv) {
    args_parse("day12", USAGE, argc, argv, NULL, NULL);
    report_write(results_dir());
    return 0;
}
