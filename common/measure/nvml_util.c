/* nvml_util: nvidia-smi's utilization.gpu, sampled while a loop runs (nvml_util.h).
 * libnvidia-ml comes with the driver, not the toolkit, so it is opened at run time: a
 * machine without it (CI, a container without the driver's libraries) gets "not available"
 * and nothing fails. The five entry points used are declared here by their C ABI, which
 * NVML has kept since its v2 names (CUDA 5). */
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "measure/nvml_util.h"
#include "measure/stats.h"

typedef int nvmlReturn_t;                              /* 0 = NVML_SUCCESS */
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct { unsigned int gpu, memory; } nvmlUtilization_t;

static struct {
    nvmlReturn_t (*init)(void);
    nvmlReturn_t (*by_pci)(const char *, nvmlDevice_t *);
    nvmlReturn_t (*util)(nvmlDevice_t, nvmlUtilization_t *);
    const char *(*error)(nvmlReturn_t);
    nvmlDevice_t dev;
    pthread_t thread;
    volatile int stop;
    double samples[NVML_MAX_SAMPLES];
    int n;
} g;

static int open_nvml(const char *pci_bus_id, char *why, size_t cap) {
    static int state;                                  /* 0 not tried, 1 ready, -1 unavailable */
    static char reason[200];
    if (state) {
        snprintf(why, cap, "%s", reason);
        return state;
    }
    state = -1;
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW);
    if (!lib) {
        snprintf(reason, sizeof reason, "libnvidia-ml.so.1 (the driver's NVML) is not on this machine");
    } else if (!(g.init = (nvmlReturn_t (*)(void))dlsym(lib, "nvmlInit_v2")) ||
               !(g.by_pci = (nvmlReturn_t (*)(const char *, nvmlDevice_t *))dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2")) ||
               !(g.util = (nvmlReturn_t (*)(nvmlDevice_t, nvmlUtilization_t *))dlsym(lib, "nvmlDeviceGetUtilizationRates")) ||
               !(g.error = (const char *(*)(nvmlReturn_t))dlsym(lib, "nvmlErrorString"))) {
        snprintf(reason, sizeof reason, "libnvidia-ml.so.1 lacks the NVML v2 entry points");
    } else {
        nvmlReturn_t r = g.init();
        if (r == 0) r = g.by_pci(pci_bus_id, &g.dev);
        nvmlUtilization_t u;
        if (r == 0) r = g.util(g.dev, &u);
        if (r == 0) state = 1;
        else snprintf(reason, sizeof reason, "NVML: %s", g.error(r));
    }
    snprintf(why, cap, "%s", reason);
    return state;
}

static void *sample_loop(void *arg) {
    (void)arg;
    const struct timespec period = {0, NVML_PERIOD_MS * 1000000L};
    while (!g.stop && g.n < NVML_MAX_SAMPLES) {
        nanosleep(&period, NULL);
        nvmlUtilization_t u;
        if (!g.stop && g.util(g.dev, &u) == 0) g.samples[g.n++] = u.gpu;
    }
    return NULL;
}

int nvml_sampler_start(const char *pci_bus_id, char *why, size_t cap) {
    if (open_nvml(pci_bus_id, why, cap) < 0) return -1;
    g.n = 0;
    g.stop = 0;
    if (pthread_create(&g.thread, NULL, sample_loop, NULL) != 0) {
        snprintf(why, cap, "could not start the sampling thread");
        return -1;
    }
    return 0;
}

double nvml_sampler_stop(int *n) {
    g.stop = 1;
    pthread_join(g.thread, NULL);
    *n = g.n;
    return g.n ? stats_of(g.samples, g.n).median : NAN;
}
