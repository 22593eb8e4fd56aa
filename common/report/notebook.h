/* notebook: what the kit reads of a Jupyter notebook (nbformat 4 JSON): a cell's source, and
 * the text of its markdown cells, for tools/check_notebook.c and tools/check_prose.c. */
#ifndef KIT_NOTEBOOK_H
#define KIT_NOTEBOOK_H
#include <cjson/cJSON.h>

/* A cell's source as one string (a string, or an array of strings joined; malloc'd); NULL if
 * it is neither. */
char *notebook_source(const cJSON *source);
/* The markdown cells of the notebook text json, each cell's source followed by a blank line
 * (malloc'd); *cell_of_line (malloc'd) gives, for each line of it (1-based), the cell it comes
 * from (1-based, counting every cell). NULL when json is not a notebook with a cells array. */
char *notebook_markdown(const char *json, int **cell_of_line);

#endif
