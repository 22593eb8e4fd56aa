/* prompt: the n-token prompt the days time. With a tokenizer.json beside the weights, a
 * paragraph of English encoded and repeated to length; otherwise BOS then seeded ids (the
 * synthetic default, where only the count matters). */
#ifndef KIT_PROMPT_H
#define KIT_PROMPT_H
#include "model/config.h"
#ifdef __cplusplus
extern "C" {
#endif

/* Fills ids[0..n) (ids[0] = BOS); model_dir may be NULL. */
void prompt_ids(const char *model_dir, const Config *c, int n, int *ids);

#ifdef __cplusplus
}
#endif
#endif
