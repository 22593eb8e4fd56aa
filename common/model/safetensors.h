/* safetensors: mmap one model.safetensors (or the shards named by
 * model.safetensors.index.json) and check every header field before anything is read. */
#ifndef KIT_SAFETENSORS_H
#define KIT_SAFETENSORS_H
#include <stddef.h>
#include "model/config.h"
#ifdef __cplusplus
extern "C" {
#endif

typedef enum { DT_F16, DT_BF16, DT_F32 } Dtype;
static inline int dtype_size(Dtype d) { return d == DT_F32 ? 4 : 2; }
const char *dtype_name(Dtype d);          /* "F16", "BF16", "F32" */

typedef struct {
    char name[96];
    Dtype dtype;
    int ndim;
    long long shape[4];
    size_t nbytes;
    const void *data;                     /* points into the mapping */
    const char *file;                     /* which file it lives in */
} StTensor;

typedef struct {
    int n;
    StTensor *t;                          /* sorted by name */
    int nfiles;
    void *maps[16];
    size_t sizes[16];
    char paths[16][512];
    size_t total_bytes;                   /* sum of tensor bytes */
} SafeTensors;

/* Opens DIR/model.safetensors or DIR/model.safetensors.index.json; dies with one
 * sentence naming the file (and tensor) on any inconsistency. */
void st_open(SafeTensors *st, const char *model_dir);
const StTensor *st_find(const SafeTensors *st, const char *name);   /* NULL if absent */
void st_close(SafeTensors *st);

#ifdef __cplusplus
}
#endif
#endif
