/* gpu: kernel_check and the facts about the GPU at hand (gpu.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpu/gpu.h"
#include "gpu/launch.h"
#include "model/theory.h"

void kernel_check(const char *file, int line, const char *what) {
    cudaError_t e = cudaGetLastError();
    if (e == cudaErrorNoKernelImageForDevice || e == cudaErrorUnsupportedPtxVersion || e == cudaErrorInvalidPtx)
        die("%s:%d: kernel %s did not launch: %s. This build holds no code this GPU and driver can run; "
            "rebuild for the GPU at hand: make clean && make (it builds SASS for it, never PTX for the driver "
            "to compile)", file, line, what, cudaGetErrorString(e));
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
/* A Colab T4 (Turing TU104, datasheet and the CUDA occupancy tables for cc 7.5) */
enum { T4_CC_MAJOR = 7, T4_CC_MINOR = 5, T4_SMS = 40, T4_SMEM = 64 * 1024, T4_THREADS_PER_SM = 1024,
       T4_BLOCKS_PER_SM = 16, T4_REGS_PER_SM = 64 * 1024 };
static const double T4_MEM_BYTES = 15360.0 * 1048576;   /* what nvidia-smi shows on Colab: 15360 MiB */

int gpu_t4(void) {
    static int t4 = -1;
    if (t4 < 0) {
        const char *e = getenv("KIT_GPU");
        t4 = e && !strcmp(e, "t4");
        if (e && *e && !t4) die("KIT_GPU=%s: the one GPU the kit emulates is t4 (KIT_GPU=t4); unset it to use the GPU at hand", e);
    }
    return t4;
}
int gpu_cc_major(void) { static int cc; return gpu_t4() ? T4_CC_MAJOR : once(&cc, cudaDevAttrComputeCapabilityMajor); }
int gpu_sm_count(void) { static int n; return gpu_t4() ? T4_SMS : once(&n, cudaDevAttrMultiProcessorCount); }
int gpu_smem_optin(void) { static int n; return gpu_t4() ? T4_SMEM : once(&n, cudaDevAttrMaxSharedMemoryPerBlockOptin); }
int gpu_smem_per_sm(void) { static int n; return gpu_t4() ? T4_SMEM : once(&n, cudaDevAttrMaxSharedMemoryPerMultiprocessor); }
int gpu_smem_reserved(void) { static int n; return gpu_t4() ? 0 : once(&n, cudaDevAttrReservedSharedMemoryPerBlock); }

int gpu_blocks_per_sm(const void *kernel, int threads, size_t dyn_smem) {
    int n;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, threads, dyn_smem));
    if (gpu_t4()) {
        cudaFuncAttributes fa;
        CUDA_CHECK(cudaFuncGetAttributes(&fa, kernel));
        const size_t smem = fa.sharedSizeBytes + dyn_smem;
        const int regs = fa.numRegs * threads;
        n = min(n, min(T4_BLOCKS_PER_SM, T4_THREADS_PER_SM / threads));
        if (smem) n = min(n, (int)(T4_SMEM / smem));
        if (regs) n = min(n, T4_REGS_PER_SM / regs);
    }
    return n;
}

void gpu_mem_info(size_t *free_b, size_t *total_b) {
    CUDA_CHECK(cudaMemGetInfo(free_b, total_b));
    if (gpu_t4() && *total_b > T4_MEM_BYTES) {   /* what is in use stays in use, on a T4-sized card */
        const size_t used = *total_b - *free_b, t4 = (size_t)T4_MEM_BYTES;
        *total_b = t4;
        *free_b = used < t4 ? t4 - used : 0;
    }
}

__global__ void arch_probe(void) {}
int gpu_code_arch(void) {
    static int arch;
    if (!arch) {
        cudaFuncAttributes fa;
        cudaError_t e = cudaFuncGetAttributes(&fa, arch_probe);
        if (e == cudaErrorNoKernelImageForDevice || e == cudaErrorInvalidDeviceFunction)
            die("this build holds no code for this GPU (%s); rebuild for the GPU at hand: make clean && make", cudaGetErrorString(e));
        CUDA_CHECK(e);
        arch = fa.ptxVersion ? fa.ptxVersion : fa.binaryVersion;
    }
    return arch;
}
int gpu_sm90_paths(void) { return gpu_cc_major() >= 9 && gpu_code_arch() >= 90; }

/* under KIT_GPU=t4, what every row made here says of itself */
static void emulation_note(char *buf, size_t size, int dev) {
    cudaDeviceProp p;
    CUDA_CHECK(cudaGetDeviceProperties(&p, dev));
    snprintf(buf, size, "emulated T4 path on %s: timings are that GPU's", p.name);
}

void gpu_start(void) {
    static int done;
    if (done) return;
    done = 1;
    int n = 0, dev = 0, drv = 0, rt = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
        if (cudaDriverGetVersion(&drv) != cudaSuccess || drv == 0)
            die("no usable CUDA GPU: no NVIDIA driver is loaded here; check that nvidia-smi lists a GPU "
                "(the CPU tests need none: make test; bin/tinyllama --cpu runs the model on the CPU)");
        die("no usable CUDA GPU (%s): check that nvidia-smi lists a GPU and that its driver (CUDA %d.%d) is at "
            "least as new as this build's toolkit (CUDA %d.%d); without a GPU, bin/tinyllama --cpu runs the model "
            "on the CPU", e != cudaSuccess ? cudaGetErrorString(e) : "none found",
            drv / 1000, drv % 1000 / 10, CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10);
    }
    CUDA_CHECK(cudaGetDevice(&dev));
    const int major = attr(cudaDevAttrComputeCapabilityMajor, dev), minor = attr(cudaDevAttrComputeCapabilityMinor, dev);
    if (major * 10 + minor < 75)
        die("this GPU has compute capability %d.%d; the kit's kernels need 7.5 (a T4) or newer", major, minor);
    CUDA_CHECK(cudaDriverGetVersion(&drv));
    CUDA_CHECK(cudaRuntimeGetVersion(&rt));
    if (drv < rt)
        printf("note: the driver supports CUDA %d.%d, older than this build's runtime (CUDA %d.%d): it runs through "
               "CUDA's minor-version compatibility, which runs SASS built for this GPU but cannot JIT-compile the "
               "newer toolkit's PTX; make builds SASS for the GPU at hand (ARCH=%d%d)\n", drv / 1000, drv % 1000 / 10,
               rt / 1000, rt % 1000 / 10, major, minor);
    if (gpu_t4()) {
        char tag[300];
        emulation_note(tag, sizeof tag, dev);
        printf("note: %s (KIT_GPU=t4: cc 7.5, 40 SMs, 64 KB shared memory, 15 GB; kernels compiled for sm_%d)\n", tag,
               gpu_code_arch());
    }
}

void gpu_facts(GpuFacts *g) {
    int dev = 0;
    gpu_start();
    CUDA_CHECK(cudaGetDevice(&dev));
    GpuFacts f = {};
    cudaDeviceProp p;
    CUDA_CHECK(cudaGetDeviceProperties(&p, dev));
    snprintf(f.name, sizeof f.name, "%s", p.name);
    /* the bandwidth, peak and name stay the GPU's own (its timings are what is measured);
     * under KIT_GPU=t4 the limits that pick code paths are the T4's */
    f.cc_major = gpu_t4() ? T4_CC_MAJOR : attr(cudaDevAttrComputeCapabilityMajor, dev);
    f.cc_minor = gpu_t4() ? T4_CC_MINOR : attr(cudaDevAttrComputeCapabilityMinor, dev);
    f.sms = gpu_sm_count();
    f.l2_bytes = attr(cudaDevAttrL2CacheSize, dev);
    size_t free_b = 0, total_b = 0;
    gpu_mem_info(&free_b, &total_b);
    f.mem_bytes = (long long)total_b;
    f.mem_free_bytes = (long long)free_b;
    /* CUDA 13's cudaDeviceProp has no memory clock or bus width: ask the attributes. */
    f.mem_clock_khz = attr(cudaDevAttrMemoryClockRate, dev);
    f.bus_width_bits = attr(cudaDevAttrGlobalMemoryBusWidth, dev);
    f.bw_gbs = f.mem_clock_khz * 1e3 * (f.bus_width_bits / 8.0) * 2 / 1e9;
    f.fp16_tflops = peak_fp16_tflops(attr(cudaDevAttrComputeCapabilityMajor, dev), attr(cudaDevAttrComputeCapabilityMinor, dev),
                                     f.name, &f.peak_source);
    f.ridge = f.fp16_tflops > 0 && f.bw_gbs > 0 ? ridge_point(f.fp16_tflops, f.bw_gbs) : 0;
    f.has_bf16_tc = f.cc_major >= 8;
    if (gpu_t4()) emulation_note(f.emulated, sizeof f.emulated, dev);
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

void gpu_facts_print(const GpuFacts *g, int verbose) {
    int drv = 0, rt = 0;
    CUDA_CHECK(cudaDriverGetVersion(&drv));
    CUDA_CHECK(cudaRuntimeGetVersion(&rt));
    if (!verbose) {
        printf("gpu_name=\"%s\" cc=%d.%d%s code_arch=sm_%d bw_gbs=%.0f", g->name, g->cc_major, g->cc_minor,
               gpu_t4() ? " t4_path=emulated" : "", gpu_code_arch(), g->bw_gbs);
        if (g->copy_gbs > 0) printf(" copy_gbs=%.0f", g->copy_gbs);
        printf(" cuda_driver=%d.%d cuda_runtime=%d.%d (--verbose: every fact)\n", drv / 1000, drv % 1000 / 10,
               rt / 1000, rt % 1000 / 10);
        return;
    }
    printf("gpu_name=%s\n", g->name);
    printf("cc=%d.%d%s\n", g->cc_major, g->cc_minor, gpu_t4() ? " (emulated T4 limits)" : "");
    printf("code_arch=sm_%d (what the running kernels were compiled for; sm_90 paths %s)\n", gpu_code_arch(),
           gpu_sm90_paths() ? "on" : "off");
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
