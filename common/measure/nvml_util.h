/* nvml_util: what nvidia-smi's "GPU-Util" (utilization.gpu) says while a loop runs. NVML
 * defines it as the share of the last sample period (1/6 s to 1 s, by product) in which
 * at least one kernel was running: a GPU that runs a 4 us kernel every 40 us reads 100%.
 * The lesson's first trap (mistake #13); day11 prints it beside the busy ratio. */
#ifndef KIT_NVML_UTIL_H
#define KIT_NVML_UTIL_H
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif

enum { NVML_PERIOD_MS = 20, NVML_MAX_SAMPLES = 1024 };
/* Starts a thread that reads utilization.gpu of the GPU at pci_bus_id every NVML_PERIOD_MS.
 * Returns 0, or -1 with the reason in why when NVML is not available (nothing to stop). */
int nvml_sampler_start(const char *pci_bus_id, char *why, size_t cap);
/* Stops it: the median of its samples in %, and their count in *n (NAN when none). */
double nvml_sampler_stop(int *n);

#ifdef __cplusplus
}
#endif
#endif
