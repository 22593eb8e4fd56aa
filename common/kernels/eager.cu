/* eager: PyTorch eager's kernels, one per aten op, for the eager step (gpu/gpu_eager.cu).
 *
 * PyTorch runs each op of transformers' Llama as its own kernel, whatever the op: a map over
 * a tensor (elementwise_kernel and its vectorized twin), a dtype change (a copy kernel), a
 * row reduction (reduce_kernel), a torch.cat (CatArrayBatchedCopy). These are the same four
 * classes of kernel here, written small: each reads and writes the bytes PyTorch's reads and
 * writes (a fresh output tensor where PyTorch allocates one), with PyTorch's rounding, so a
 * step of them costs about what PyTorch's costs on the GPU: one value a thread, 256 threads a
 * block, 32-bit indices. Like PyTorch, a map over tensors of one shape is its own kernel
 * (PyTorch's vectorized_elementwise_kernel; here the template's FLAT = true) and a map with
 * broadcasting or a slice another (its elementwise_kernel; FLAT = false), so the profiler's
 * table splits them as the student's does.
 *
 * Broadcasting and views: operand b of a binary map, and the input of a map or copy, is read
 * through a View, element i of the output reading (i / div) * mul + i % mod + off of the
 * input, which covers the shapes the model uses: the same shape (view_flat), one value per
 * row (view_rows: x * rsqrt(var)), one per column (view_cols: weight * x), a [T][hd] table
 * over T x heads x hd (view_heads: q * cos) and the upper half of each head (view_upper:
 * rotate_half's x2). */
#include "kernels/kernels.cuh"
#include "gpu/gpu.h"
#include "gpu/launch.h"

enum { EW_THREADS = 256 };
static int ew_grid(long long n) {
    if (n > (1LL << 31) - EW_THREADS) die("eager.cu: a tensor of %lld values; the eager kernels index with 32 bits", n);
    return (int)((n + EW_THREADS - 1) / EW_THREADS);
}
/* element i of a View; FLAT: the same shape, no index arithmetic (PyTorch's vectorized
 * kernels, against its strided elementwise_kernel for broadcasts and slices) */
template <bool FLAT> __device__ __forceinline__ int at(View v, int i) {
    return FLAT ? i : i / (int)v.div * (int)v.mul + i % (int)v.mod + (int)v.off;
}

/* the functors: what PyTorch's kernel of the same op computes, in its dtype */
struct Pow2 { __device__ float operator()(float x) const { return x * x; } };            /* pow(x, 2) */
struct AddScalar { float s; __device__ float operator()(float x) const { return x + s; } };
struct MulScalar { float s; __device__ float operator()(float x) const { return x * s; } };
struct Rsqrt { __device__ float operator()(float x) const { return rsqrtf(x); } };
struct Cos { __device__ float operator()(float x) const { return cosf(x); } };
struct Sin { __device__ float operator()(float x) const { return sinf(x); } };
struct Neg { __device__ half operator()(half x) const { return __hneg(x); } };
struct Silu { __device__ half operator()(half x) const { return f16(silu_f(f32(x))); } };
struct MulF { __device__ float operator()(float a, float b) const { return a * b; } };
struct MulH { __device__ half operator()(half a, half b) const { return f16(f32(a) * f32(b)); } };
struct AddH { __device__ half operator()(half a, half b) const { return f16(f32(a) + f32(b)); } };
struct AddI { __device__ int operator()(int a, int b) const { return a + b; } };

/* y[i] = f(x[view(i)]), one value a thread */
template <class F, class In, class Out, bool FLAT>
__global__ void elementwise_map(F f, const In *x, View xv, Out *y, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = f(x[at<FLAT>(xv, i)]);
}
/* y[i] = f(a[i], b[view(i)]) (y may be a: residual += in place writes what add writes) */
template <class F, class A, class B, class Out, bool FLAT>
__global__ void elementwise_zip(F f, const A *a, const B *b, View bv, Out *y, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = f(a[i], b[at<FLAT>(bv, i)]);
}
/* cache_position = arange(tokens): token t of a row is t % per_row */
__global__ void elementwise_arange(int *y, int per_row, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = i % per_row;
}
/* .to(dtype): the value in another type */
template <class In, class Out> __device__ __forceinline__ Out cast(In x) { return (Out)x; }
template <> __device__ __forceinline__ float cast<half, float>(half x) { return f32(x); }
template <> __device__ __forceinline__ half cast<float, half>(float x) { return f16(x); }
template <class In, class Out, bool FLAT>
__global__ void copy_cast(const In *x, View xv, Out *y, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = cast<In, Out>(x[at<FLAT>(xv, i)]);
}
/* .mean(-1): one block a row (the eager step's summation order since the kit's first eager
 * step: thread i adds x[i], x[i + 256], ..., then the block's tree) */
__global__ void reduce_mean_rows(const float *x, float *y, int dim) {
    const float *r = x + (long long)blockIdx.x * dim;
    float s = 0.f;
    for (int i = threadIdx.x; i < dim; i += blockDim.x) s += r[i];
    s = block_sum(s);
    if (threadIdx.x == 0) y[blockIdx.x] = s / dim;
}
/* torch.cat((a, b), dim=-1) of rows: row r is a's wa values (stride sa), then b's wb (stride sb) */
template <class T>
__global__ void cat_last(const T *a, int sa, int wa, const T *b, int sb, int wb, T *y, int rows) {
    const int w = wa + wb, i = blockIdx.x * blockDim.x + threadIdx.x, r = i / w, c = i % w;
    if (r < rows) y[i] = c < wa ? a[r * sa + c] : b[r * sb + c - wa];
}
/* The KV cache's torch.cat([self.keys, key_states], dim=-2), into the fixed cache: slot s (a
 * row's tokens first .. first + per_row - 1, at positions start .. start + per_row - 1) rewrites
 * positions 0 .. start + per_row - 1 of each of its kv heads: the past ones read and written
 * back (PyTorch's cat reads the old cache and writes the new one: the same bytes), the new
 * ones from x [tokens][nkv][hd]. 16 bytes a thread; blocks past a slot's length return at once
 * (the grid covers max_seq, so a captured graph replays at any length). The loads and stores
 * are volatile: the compiler would otherwise drop a store of the value just loaded there. */
__global__ void cat_kv_cache(const half *x, const int *row, const int *pos, half *cache, int per_row, int nkv,
                             int hd, int max_seq) {
    const int slot = blockIdx.y / nkv, head = blockIdx.y % nkv, v8 = hd / 8, first = slot * per_row;
    const int start = pos[first], len = start + per_row;
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;   /* 16-byte chunk of this head */
    if (i >= (long long)len * v8) return;
    const int p = (int)(i / v8), c = (int)(i % v8);
    const half *dst = cache + (((long long)row[first] * nkv + head) * max_seq + p) * hd + 8 * c;
    const half *src = p < start ? dst : x + ((long long)(first + p - start) * nkv + head) * hd + 8 * c;
    unsigned v0, v1, v2, v3;
    asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v0), "=r"(v1), "=r"(v2), "=r"(v3) : "l"(src));
    asm volatile("st.volatile.global.v4.u32 [%0], {%1, %2, %3, %4};" :: "l"(dst), "r"(v0), "r"(v1), "r"(v2), "r"(v3)
                 : "memory");
}

/* ---------------------------------------------------------------- launchers */
/* per: the bytes one output value costs, its inputs' and its own (the timeline model's op_cost) */
#define EW(op_part, layer, op, kernel, n, per, s, ...)                              \
    do {                                                                           \
        op_cost((double)(n) * (per), 0);                                           \
        LAUNCH(op_part, layer, op, kernel, ew_grid(n), EW_THREADS, 0, s, __VA_ARGS__); \
    } while (0)
static bool flat(View v, long long n) { return v.div == n && v.mul == 0 && v.mod == n && v.off == 0; }

void k_eager_pow2(cudaStream_t s, int layer, const char *op, const float *x, float *y, long long n) {
    EW(P_NORM, layer, op, (elementwise_map<Pow2, float, float, true>), n, 8, s, Pow2{}, x, view_flat(n), y, (int)n);
}
void k_eager_add_scalar(cudaStream_t s, Part p, int layer, const char *op, const float *x, float c, float *y,
                        long long n) {
    EW(p, layer, op, (elementwise_map<AddScalar, float, float, true>), n, 8, s, AddScalar{c}, x, view_flat(n), y, (int)n);
}
void k_eager_mul_scalar(cudaStream_t s, Part p, int layer, const char *op, const float *x, float c, float *y,
                        long long n) {
    EW(p, layer, op, (elementwise_map<MulScalar, float, float, true>), n, 8, s, MulScalar{c}, x, view_flat(n), y, (int)n);
}
void k_eager_rsqrt(cudaStream_t s, int layer, const char *op, const float *x, float *y, long long n) {
    EW(P_NORM, layer, op, (elementwise_map<Rsqrt, float, float, true>), n, 8, s, Rsqrt{}, x, view_flat(n), y, (int)n);
}
void k_eager_cos(cudaStream_t s, const char *op, const float *x, float *y, long long n) {
    EW(P_ROPE, -1, op, (elementwise_map<Cos, float, float, true>), n, 8, s, Cos{}, x, view_flat(n), y, (int)n);
}
void k_eager_sin(cudaStream_t s, const char *op, const float *x, float *y, long long n) {
    EW(P_ROPE, -1, op, (elementwise_map<Sin, float, float, true>), n, 8, s, Sin{}, x, view_flat(n), y, (int)n);
}
void k_eager_neg(cudaStream_t s, int layer, const char *op, const half *x, View xv, half *y, long long n) {
    EW(P_ROPE, layer, op, (elementwise_map<Neg, half, half, false>), n, 4, s, Neg{}, x, xv, y, (int)n);
}
void k_eager_silu(cudaStream_t s, int layer, const char *op, const half *x, half *y, long long n) {
    EW(P_SILU_MUL, layer, op, (elementwise_map<Silu, half, half, true>), n, 4, s, Silu{}, x, view_flat(n), y, (int)n);
}
void k_eager_mul_f32(cudaStream_t s, int layer, const char *op, const float *a, const float *b, View bv, float *y,
                     long long n) {
    if (flat(bv, n)) EW(P_NORM, layer, op, (elementwise_zip<MulF, float, float, float, true>), n, 12, s, MulF{}, a, b, bv, y, (int)n);
    else EW(P_NORM, layer, op, (elementwise_zip<MulF, float, float, float, false>), n, 12, s, MulF{}, a, b, bv, y, (int)n);
}
void k_eager_mul(cudaStream_t s, Part p, int layer, const char *op, const half *a, const half *b, View bv, half *y,
                 long long n) {
    if (flat(bv, n)) EW(p, layer, op, (elementwise_zip<MulH, half, half, half, true>), n, 6, s, MulH{}, a, b, bv, y, (int)n);
    else EW(p, layer, op, (elementwise_zip<MulH, half, half, half, false>), n, 6, s, MulH{}, a, b, bv, y, (int)n);
}
void k_eager_add(cudaStream_t s, Part p, int layer, const char *op, const half *a, const half *b, View bv, half *y,
                 long long n) {
    if (flat(bv, n)) EW(p, layer, op, (elementwise_zip<AddH, half, half, half, true>), n, 6, s, AddH{}, a, b, bv, y, (int)n);
    else EW(p, layer, op, (elementwise_zip<AddH, half, half, half, false>), n, 6, s, AddH{}, a, b, bv, y, (int)n);
}
void k_eager_add_int(cudaStream_t s, const char *op, const int *a, const int *b, View bv, int *y, long long n) {
    if (flat(bv, n)) EW(P_ROPE, -1, op, (elementwise_zip<AddI, int, int, int, true>), n, 12, s, AddI{}, a, b, bv, y, (int)n);
    else EW(P_ROPE, -1, op, (elementwise_zip<AddI, int, int, int, false>), n, 12, s, AddI{}, a, b, bv, y, (int)n);
}
void k_eager_arange(cudaStream_t s, const char *op, int *y, int per_row, int n) {
    EW(P_ROPE, -1, op, elementwise_arange, n, 4, s, y, per_row, n);
}
void k_eager_h2f(cudaStream_t s, Part p, int layer, const char *op, const half *x, float *y, long long n) {
    EW(p, layer, op, (copy_cast<half, float, true>), n, 6, s, x, view_flat(n), y, (int)n);
}
void k_eager_f2h(cudaStream_t s, Part p, int layer, const char *op, const float *x, half *y, long long n) {
    EW(p, layer, op, (copy_cast<float, half, true>), n, 6, s, x, view_flat(n), y, (int)n);
}
void k_eager_f2f(cudaStream_t s, const char *op, const float *x, View xv, float *y, long long n) {
    EW(P_ROPE, -1, op, (copy_cast<float, float, false>), n, 8, s, x, xv, y, (int)n);
}
void k_eager_i2f(cudaStream_t s, const char *op, const int *x, float *y, long long n) {
    EW(P_ROPE, -1, op, (copy_cast<int, float, true>), n, 8, s, x, view_flat(n), y, (int)n);
}
void k_eager_mean(cudaStream_t s, int layer, const char *op, const float *x, float *y, int T, int dim) {
    op_cost(4.0 * T * (dim + 1), 0);
    LAUNCH(P_NORM, layer, op, reduce_mean_rows, T, 256, 0, s, x, y, dim);
}
void k_eager_cat_f32(cudaStream_t s, const char *op, const float *a, int sa, int wa, const float *b, int sb, int wb,
                     float *y, long long rows) {
    EW(P_ROPE, -1, op, cat_last<float>, rows * (wa + wb), 8, s, a, sa, wa, b, sb, wb, y, (int)rows);
}
void k_eager_cat(cudaStream_t s, int layer, const char *op, const half *a, int sa, int wa, const half *b, int sb,
                 int wb, half *y, long long rows) {
    EW(P_ROPE, layer, op, cat_last<half>, rows * (wa + wb), 4, s, a, sa, wa, b, sb, wb, y, (int)rows);
}
void k_eager_cat_cache(cudaStream_t s, int layer, const char *op, const half *x, const int *row, const int *pos,
                       half *cache, int slots, int per_row, int nkv, int hd, int max_seq, int len) {
    const long long chunks = (long long)max_seq * (hd / 8);
    const dim3 grid((unsigned)((chunks + EW_THREADS - 1) / EW_THREADS), (unsigned)(slots * nkv));
    op_cost(2.0 * slots * nkv * len * hd * sizeof(half), 0);   /* each row's len positions read and written */
    LAUNCH(P_KV_APPEND, layer, op, cat_kv_cache, grid, EW_THREADS, 0, s, x, row, pos, cache, per_row, nkv, hd, max_seq);
}
