/* bin/day12_report: the week's page for results/ ($KIT_RESULTS); the program is report.c. */
#include "report.h"
#include "report/rows.h"

int main(void) {
    report_write(results_dir());
    return 0;
}
