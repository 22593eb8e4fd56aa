/* gpu: kernel_check and the facts about the GPU at hand (gpu.h). */
#include <stdio.h>
#include <stdlib.h>
#include "gpu.h"
#include "launch.h"
#include "theory.h"

void kernel_check(const char *file, int line, const char *what) {
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) die("%s:%d: kernel %s did not launch: %s", file, line, what, cudaGetErrorString(e));
#ifdef KIT_DEBUG
    /* A synchronize inside a capture would invalidate the graph: skip it there. Asking the
     * legacy stream fails with cudaErrorStreamCaptureImplicit while a blocking stream
     * captures; the launch path's flag covers non-blocking ones. */
    cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
    cudaError_t q = cudaStreamIsCapturing(cudaStreamLegacy, &st);
    if (g_launch.capturing || q == cudaErrorStreamCaptureImplicit || st != cudaStreamCaptureStatusNone) {
        cudaGetLastError();   /* clear the query's error, if any */
        return;
    }
    e = cudaDeviceSynchronize();
    if (e != cudaSuccess) die("%s:%d: kernel %s failed while running: %s", file, line, what, cudaGetErrorString(e));
#endif
}

static int attr(cudaDeviceAttr a, int dev) {
    int v = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&v, a, dev));
    return v;
}

/* an attribute of the current device, asked the first time only (*v = 0 until then) */
static int once(int *v, cudaDeviceAttr a) {
    if (!*v) {
        int dev;
        CUDA_CHECK(cudaGetDevice(&dev));
        *v = attr(a, dev);
    }
    return *v;
}
int gpu_cc_major(void) { static int cc; return once(&cc, cudaDevAttrComputeCapabilityMajor); }
int gpu_sm_count(void) { static int n; return once(&n, cudaDevAttrMultiProcessorCount); }
int gpu_smem_optin(void) { static int n; return once(&n, cudaDevAttrMaxSharedMemoryPerBlockOptin); }
int gpu_smem_per_sm(void) { static int n; return once(&n, cudaDevAttrMaxSharedMemoryPerMultiprocessor); }
int gpu_smem_reserved(void) { static int n; return once(&n, cudaDevAttrReservedSharedMemoryPerBlock); }

void gpu_require(const char *instead) {
    int n = 0, drv = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e == cudaSuccess && n > 0) return;
    if (cudaDriverGetVersion(&drv) != cudaSuccess || drv == 0)
        die("no usable CUDA GPU: no NVIDIA driver is loaded here; check that nvidia-smi lists a GPU (%s)", instead);
    die("no usable CUDA GPU (%s): check that nvidia-smi lists a GPU and that its driver (CUDA %d.%d) is at "
        "least as new as this build's toolkit (CUDA %d.%d) (%s)", e != cudaSuccess ? cudaGetErrorString(e) : "none found",
        drv / 1000, drv % 1000 / 10, CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10, instead);
}

void gpu_facts(GpuFacts *g) {
    int dev = 0;
    gpu_require("the CPU tests need none: make test");
    CUDA_CHECK(cudaGetDevice(&dev));
    GpuFacts f = {};
    cudaDeviceProp p;
    CUDA_CHECK(cudaGetDeviceProperties(&p, dev));
    snprintf(f.name, sizeof f.name, "%s", p.name);
    f.cc_major = attr(cudaDevAttrComputeCapabilityMajor, dev);
    f.cc_minor = attr(cudaDevAttrComputeCapabilityMinor, dev);
    f.sms = attr(cudaDevAttrMultiProcessorCount, dev);
    f.l2_bytes = attr(cudaDevAttrL2CacheSize, dev);
    size_t free_b = 0, total_b = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    f.mem_bytes = (long long)total_b;
    f.mem_free_bytes = (long long)free_b;
    /* CUDA 13's cudaDeviceProp has no memory clock or bus width: ask the attributes. */
    f.mem_clock_khz = attr(cudaDevAttrMemoryClockRate, dev);
    f.bus_width_bits = attr(cudaDevAttrGlobalMemoryBusWidth, dev);
    f.bw_gbs = f.mem_clock_khz * 1e3 * (f.bus_width_bits / 8.0) * 2 / 1e9;
    f.fp16_tflops = peak_fp16_tflops(f.cc_major, f.cc_minor, f.name, &f.peak_source);
    f.ridge = f.fp16_tflops > 0 && f.bw_gbs > 0 ? ridge_point(f.fp16_tflops, f.bw_gbs) : 0;
    f.has_bf16_tc = f.cc_major >= 8;
    *g = f;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double gpu_measure_copy(GpuFacts *g, size_t bytes) {
    enum { REPS = 10 };
    if (bytes < 4 * (size_t)g->l2_bytes) bytes = 4 * (size_t)g->l2_bytes;   /* out of L2's reach */
    void *src, *dst;
    CUDA_CHECK(cudaMalloc(&src, bytes));
    CUDA_CHECK(cudaMalloc(&dst, bytes));
    CUDA_CHECK(cudaMemset(src, 1, bytes));
    cudaEvent_t a, b;
    CUDA_CHECK(cudaEventCreate(&a));
    CUDA_CHECK(cudaEventCreate(&b));
    double ms[REPS];
    CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, 0));   /* warm-up */
    for (int i = 0; i < REPS; i++) {
        float t;
        CUDA_CHECK(cudaEventRecord(a, 0));
        CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, 0));
        CUDA_CHECK(cudaEventRecord(b, 0));
        CUDA_CHECK(cudaEventSynchronize(b));
        CUDA_CHECK(cudaEventElapsedTime(&t, a, b));
        ms[i] = t;
    }
    qsort(ms, REPS, sizeof ms[0], cmp_double);
    double median = (ms[REPS / 2 - 1] + ms[REPS / 2]) / 2;
    CUDA_CHECK(cudaEventDestroy(a));
    CUDA_CHECK(cudaEventDestroy(b));
    CUDA_CHECK(cudaFree(src));
    CUDA_CHECK(cudaFree(dst));
    g->copy_gbs = 2.0 * bytes / (median * 1e-3) / 1e9;   /* read + written */
    return g->copy_gbs;
}

void gpu_facts_print(const GpuFacts *g) {
    int drv = 0, rt = 0;
    CUDA_CHECK(cudaDriverGetVersion(&drv));
    CUDA_CHECK(cudaRuntimeGetVersion(&rt));
    printf("gpu_name=%s\n", g->name);
    printf("cc=%d.%d\n", g->cc_major, g->cc_minor);
    printf("cuda_driver=%d.%d cuda_runtime=%d.%d\n", drv / 1000, drv % 1000 / 10, rt / 1000, rt % 1000 / 10);
    printf("sms=%d\n", g->sms);
    printf("l2_mb=%.1f\n", g->l2_bytes / 1048576.0);
    printf("mem_gb=%.1f mem_free_gb=%.1f\n", g->mem_bytes / 1e9, g->mem_free_bytes / 1e9);
    printf("bw_gbs=%.1f (memory clock %d MHz x %d-bit bus x 2)\n", g->bw_gbs, g->mem_clock_khz / 1000,
           g->bus_width_bits);
    if (g->fp16_tflops > 0) printf("fp16_tflops=%.1f (%s)\n", g->fp16_tflops, g->peak_source);
    else printf("fp16_tflops=unknown (%s; compute-bound floors are left out)\n", g->peak_source);
    if (g->ridge > 0) printf("ridge=%.1f FLOP/byte\n", g->ridge);
    else printf("ridge=unknown\n");
    printf("bf16_tensor_cores=%s\n", g->has_bf16_tc ? "yes" : "no");
    if (g->copy_gbs > 0) printf("copy_gbs=%.1f (device-to-device copy, read + written, median of 10)\n", g->copy_gbs);
}
