/* gpu: the error-check family and the facts about the GPU at hand (CUDA code only). */
#ifndef KIT_GPU_H
#define KIT_GPU_H
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include "util.h"

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) \
    die("%s:%d: %s failed: %s", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); } while (0)
#define CUBLAS_CHECK(x) do { cublasStatus_t s_ = (x); if (s_ != CUBLAS_STATUS_SUCCESS) \
    die("%s:%d: %s failed: %s", __FILE__, __LINE__, #x, cublasGetStatusString(s_)); } while (0)
/* After every kernel launch: the launch error always; with DEBUG=1 also a synchronize
 * (skipped while a stream is being captured into a graph), so a fault names its kernel. */
void kernel_check(const char *file, int line, const char *what);
#define KERNEL_CHECK(what) kernel_check(__FILE__, __LINE__, what)

typedef struct {
    char name[256];
    int cc_major, cc_minor, sms;
    long long l2_bytes, mem_bytes, mem_free_bytes;
    int mem_clock_khz, bus_width_bits;
    double bw_gbs;             /* memory clock x bus width x 2 (DDR), GB/s = 1e9 B/s */
    double fp16_tflops;        /* dense fp16 tensor-core peak from the datasheet; 0 = unknown */
    const char *peak_source;   /* where that figure comes from */
    double ridge;              /* fp16_tflops / bw: FLOP per byte; 0 when the peak is unknown */
    int has_bf16_tc;           /* cc >= 8.0 */
    double copy_gbs;           /* measured device-to-device copy (read + write); 0 = not measured */
    char emulated[300];        /* KIT_GPU=t4: "emulated T4 path on <GPU>: timings are that GPU's", else "";
                                * a program that writes rows tags them with it (rows_tag) */
} GpuFacts;

/* KIT_GPU=t4: the host takes a Colab T4's limits on any newer GPU (compute capability 7.5,
 * 40 SMs, 64 KB of shared memory per block and per SM, 1024 threads per SM, 15 GB), so the
 * T4's code paths run and are tested there; timings stay the GPU's own. Every limit below
 * answers with the T4's under it. */
int gpu_t4(void);
/* The current device's compute capability (major), asked once. */
int gpu_cc_major(void);
int gpu_sm_count(void);      /* its SMs, asked once */
int gpu_smem_optin(void);    /* the shared memory one block may ask for (bytes), asked once */
int gpu_smem_per_sm(void);   /* an SM's shared memory (bytes), asked once */
int gpu_smem_reserved(void); /* what the system keeps of it for each resident block (bytes), asked once */
/* The blocks of `kernel` that fit on one SM at once (cudaOccupancy..., capped by the T4's
 * limits under KIT_GPU=t4). */
int gpu_blocks_per_sm(const void *kernel, int threads, size_t dyn_smem);
/* cudaMemGetInfo, with the T4's 15 GB under KIT_GPU=t4 */
void gpu_mem_info(size_t *free_b, size_t *total_b);
/* What the running kernels were compiled for: the architecture of the PTX they came from
 * (__CUDA_ARCH__ / 10, e.g. 75 or 90), asked once of a probe kernel (every .cu of the kit
 * is built with the same -gencode flags). A path that needs sm_90 instructions (programmatic
 * dependent launch, clusters, bulk copies) is taken only when this and the GPU both allow
 * it (gpu_sm90_paths): a compute_75 build run on an H200 has those branches compiled out. */
int gpu_code_arch(void);
int gpu_sm90_paths(void);    /* gpu_cc_major() >= 9 && gpu_code_arch() >= 90 */
/* Once per process, before the first model or measurement: refuses a GPU older than the
 * T4 (7.5), says in one line when the driver is older than this build's runtime and when
 * the T4 path is emulated. gpu_facts and gpu_model_open call it. */
void gpu_start(void);
/* Dies with one sentence when there is no usable GPU. */
void gpu_facts(GpuFacts *g);
/* Measures a device-to-device copy of `bytes` (median of several), fills g->copy_gbs. */
double gpu_measure_copy(GpuFacts *g, size_t bytes);
/* What every day prints first: by default one line (gpu_name=, cc=, code_arch=, bw_gbs=,
 * cuda_driver=, cuda_runtime=, copy_gbs= when measured); verbose: the block of greppable
 * key=value lines, one fact a line, with where each comes from. */
void gpu_facts_print(const GpuFacts *g, int verbose);

#endif
