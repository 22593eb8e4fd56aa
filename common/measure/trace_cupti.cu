/* trace_cupti: the collector behind trace.h, on CUPTI's Activity API.
 *
 * CUPTI hands over buffers of records, from its own thread when one fills and from ours
 * in trace_flush(). Records wait in g_pend (under g_mu) and trace_flush() moves them into
 * the caller's Trace, joining each kernel to its tag:
 *   - an eager launch: the launch path pushed launch_tag_encode() as a CUSTOM0 external
 *     correlation id around it; CUPTI reports (correlation id -> external id) records;
 *   - a graph replay: all kernels carry the cudaGraphLaunch's correlation id, so the tag
 *     comes from the graph node instead: while a graph is captured, the RESOURCE callback
 *     sees each node created (g_launch.tag is the op's tag then) and each node cloned
 *     into an executable graph, and keeps graph node id -> tag.
 * Driver API calls are traced too, because cuBLAS launches its kernels through the driver;
 * a driver call's record is kept only when work on the GPU carries its correlation id and
 * no runtime call does (so a cudaLaunchKernel is not counted twice). Flush after a
 * synchronize: a driver launch whose kernel has not finished by then is left out. */
#include <cupti.h>
#include <cxxabi.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpu/launch.h"
#include "measure/trace.h"
#include "util.h"

/* ---- CUPTI's record versions: the one place that knows them -----------------------------
 * CUPTI hands over each record in the newest layout its library knows, and the library is
 * the toolkit's (linked with its rpath), so the struct is the newest that toolkit's headers
 * declare. CUDA 12.8 brought Memcpy6 and Synchronization2, 13.0 Kernel10. Each version only
 * appends fields, so the ones read here sit where they did in 12.4. */
#include <cuda.h>
#if CUDA_VERSION >= 13000
typedef CUpti_ActivityKernel10 KernelRecord;
#else
typedef CUpti_ActivityKernel9 KernelRecord;
#endif
#if CUDA_VERSION >= 12080
typedef CUpti_ActivityMemcpy6 MemcpyRecord;
typedef CUpti_ActivitySynchronization2 SyncRecord;
#else
typedef CUpti_ActivityMemcpy5 MemcpyRecord;
typedef CUpti_ActivitySynchronization SyncRecord;
#endif
typedef CUpti_ActivityMemset4 MemsetRecord;
typedef CUpti_ActivityMarker2 MarkerRecord;

/* ---- small maps --------------------------------------------------------------------- */

/* Correlation id -> external id, whether a runtime API call had that id and whether a
 * kernel, copy or memset did: a ring indexed by the id (ids only grow), so memory stays
 * fixed however long the run. */
typedef struct { uint32_t corr; uint16_t runtime, device; uint64_t ext; } CorrSlot;
enum { RING = 1 << 20 };
static CorrSlot *g_ring;

static CorrSlot *corr_slot(uint32_t corr) {
    CorrSlot *s = &g_ring[corr & (RING - 1)];
    if (s->corr != corr) *s = (CorrSlot){corr, 0, 0, 0};
    return s;
}
static const CorrSlot *corr_find(uint32_t corr) {
    const CorrSlot *s = &g_ring[corr & (RING - 1)];
    return s->corr == corr ? s : NULL;
}

/* uint64 -> uint64, open addressing (graph node id -> tag; key 0 unused). */
typedef struct { uint64_t *key, *val; size_t cap, n; } Map;

static uint64_t mix(uint64_t x) { x ^= x >> 33; x *= 0xff51afd7ed558ccdULL; return x ^ (x >> 33); }
static uint64_t map_get(const Map *m, uint64_t k) {
    for (size_t i = m->cap ? mix(k) & (m->cap - 1) : 0; m->cap && m->key[i]; i = (i + 1) & (m->cap - 1))
        if (m->key[i] == k) return m->val[i];
    return 0;
}
static void map_put(Map *m, uint64_t k, uint64_t v) {
    if (2 * (m->n + 1) > m->cap) {
        Map g = {(uint64_t *)xcalloc(m->cap ? 2 * m->cap : 1024, 8), NULL, m->cap ? 2 * m->cap : 1024, 0};
        g.val = (uint64_t *)xcalloc(g.cap, 8);
        for (size_t i = 0; i < m->cap; i++) if (m->key[i]) map_put(&g, m->key[i], m->val[i]);
        free(m->key); free(m->val);
        *m = g;
    }
    size_t i = mix(k) & (m->cap - 1);
    while (m->key[i] && m->key[i] != k) i = (i + 1) & (m->cap - 1);
    if (!m->key[i]) m->n++;
    m->key[i] = k;
    m->val[i] = v;
}

/* ---- state --------------------------------------------------------------------------- */

typedef struct { TKernel k; uint64_t node; } RawKernel;
typedef struct { uint32_t id, tid; uint64_t start; char *name; } OpenRange;

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static CUpti_SubscriberHandle g_sub;
static int g_active;
static Trace *g_out;
static Trace g_pend;                   /* API, memory, sync and NVTX records not yet moved */
static RawKernel *g_rk; static int g_nrk, g_caprk;
static TApi *g_drv; static int g_ndrv, g_capdrv;   /* driver calls, kept when they launched work themselves */
static OpenRange *g_open; static int g_nopen, g_capopen;
static Map g_node_tag;                 /* graph node id -> launch tag */
static Map g_names;                    /* hash of a mangled name -> index in g_name */
static char **g_name; static int g_nname;   /* pairs: mangled, demangled */

#define GROW(arr, n, cap) do { if ((n) == (cap)) { (cap) = (cap) ? 2 * (cap) : 256; \
    arr = (decltype(arr))realloc(arr, sizeof(*(arr)) * (cap)); if (!(arr)) die("trace: out of host memory"); } } while (0)

static char *dup_str(const char *s) {
    size_t n = strlen(s) + 1;
    return (char *)memcpy(xmalloc(n), s, n);
}

/* Demangled kernel names, each demangled once (CUPTI reports the mangled symbol). */
static const char *kernel_name(const char *mangled) {
    if (!mangled) return "?";
    uint64_t h = 1469598103934665603ULL;
    for (const char *c = mangled; *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211ULL;
    for (h = h ? h : 1;; h++) {                /* probe on the rare hash collision */
        uint64_t i = map_get(&g_names, h);
        if (!i) break;
        if (strcmp(g_name[2 * (i - 1)], mangled) == 0) return g_name[2 * (i - 1) + 1];
    }
    int status = 0;
    char *d = abi::__cxa_demangle(mangled, NULL, NULL, &status);
    if (status != 0 || !d) d = dup_str(mangled);
    g_name = (char **)realloc(g_name, sizeof(char *) * 2 * (g_nname + 1));
    if (!g_name) die("trace: out of host memory");
    g_name[2 * g_nname] = dup_str(mangled);
    g_name[2 * g_nname + 1] = d;
    map_put(&g_names, h, (uint64_t)++g_nname);
    return d;
}

/* "cudaLaunchKernel_v7000" -> "cudaLaunchKernel" (the name without CUPTI's version). */
static const char *api_name(CUpti_CallbackDomain dom, CUpti_CallbackId cbid) {
    static char *rt[CUPTI_RUNTIME_TRACE_CBID_SIZE], *drv[CUPTI_DRIVER_TRACE_CBID_SIZE];
    int is_rt = dom == CUPTI_CB_DOMAIN_RUNTIME_API;
    if (cbid >= (is_rt ? (unsigned)CUPTI_RUNTIME_TRACE_CBID_SIZE : (unsigned)CUPTI_DRIVER_TRACE_CBID_SIZE)) return "?";
    char **slot = is_rt ? &rt[cbid] : &drv[cbid];
    if (!*slot) {
        const char *n = NULL;
        if (cuptiGetCallbackName(dom, cbid, &n) != CUPTI_SUCCESS || !n) n = "?";
        char *s = dup_str(n), *v = strrchr(s, '_');
        if (v && v[1] == 'v' && v[2] && strspn(v + 2, "0123456789") == strlen(v + 2)) *v = 0;
        *slot = s;
    }
    return *slot;
}

/* ---- records ------------------------------------------------------------------------- */

static void take_record(const CUpti_Activity *r) {
    switch (r->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const KernelRecord *k = (const KernelRecord *)r;
        GROW(g_rk, g_nrk, g_caprk);
        RawKernel *o = &g_rk[g_nrk++];
        o->k = (TKernel){k->start, k->end, k->correlationId, k->streamId, k->deviceId, 0, P_OTHER, -1, 0,
                         kernel_name(k->name)};
        o->node = k->graphNodeId;
        corr_slot(k->correlationId)->device = 1;
        break;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
        const CUpti_ActivityAPI *a = (const CUpti_ActivityAPI *)r;
        int rt = r->kind == CUPTI_ACTIVITY_KIND_RUNTIME;
        TApi t = {a->start, a->end, a->correlationId, a->threadId, (int)a->cbid,
                  api_name(rt ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API, a->cbid)};
        if (rt) {
            corr_slot(a->correlationId)->runtime = 1;
            trace_add_api(&g_pend, &t);
        } else {
            GROW(g_drv, g_ndrv, g_capdrv);
            g_drv[g_ndrv++] = t;
        }
        break;
    }
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
        const CUpti_ActivityExternalCorrelation *e = (const CUpti_ActivityExternalCorrelation *)r;
        if (e->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0) corr_slot(e->correlationId)->ext = e->externalId;
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const MemcpyRecord *m = (const MemcpyRecord *)r;
        TMem t = {m->start, m->end, m->correlationId, m->streamId, m->bytes, 0, m->copyKind};
        trace_add_mem(&g_pend, &t);
        corr_slot(m->correlationId)->device = 1;
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        const MemsetRecord *m = (const MemsetRecord *)r;
        TMem t = {m->start, m->end, m->correlationId, m->streamId, m->bytes, 1, 0};
        trace_add_mem(&g_pend, &t);
        corr_slot(m->correlationId)->device = 1;
        break;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
        const SyncRecord *s = (const SyncRecord *)r;
        TSync t = {s->start, s->end, s->correlationId, (int)s->type};
        trace_add_sync(&g_pend, &t);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MARKER: {         /* NVTX push/pop: a start and an end record */
        const MarkerRecord *m = (const MarkerRecord *)r;
        uint32_t tid = m->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ? m->objectId.pt.threadId : 0;
        if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_START) {
            GROW(g_open, g_nopen, g_capopen);
            g_open[g_nopen++] = (OpenRange){m->id, tid, m->timestamp, dup_str(m->name ? m->name : "?")};
        } else if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_END) {
            for (int i = g_nopen - 1; i >= 0; i--) {
                if (g_open[i].id != m->id) continue;
                TRange t = {g_open[i].start, m->timestamp, g_open[i].tid, g_open[i].name};
                trace_add_nvtx(&g_pend, &t);
                free(g_open[i].name);
                g_open[i] = g_open[--g_nopen];
                break;
            }
        }
        break;
    }
    default: break;
    }
}

static void CUPTIAPI buffer_requested(uint8_t **buf, size_t *size, size_t *max_records) {
    *size = 8 << 20;
    *buf = (uint8_t *)aligned_alloc(8, *size);   /* NULL: CUPTI drops records and counts them */
    *max_records = 0;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buf, size_t size, size_t valid) {
    CUpti_Activity *r = NULL;
    size_t dropped = 0;
    pthread_mutex_lock(&g_mu);
    while (cuptiActivityGetNextRecord(buf, valid, &r) == CUPTI_SUCCESS) take_record(r);
    if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS) g_pend.dropped += dropped;
    pthread_mutex_unlock(&g_mu);
    free(buf);
}

/* Graph nodes: remember the op's tag for each node captured, and pass it on to the
 * node's copy in each executable graph (the id CUPTI's kernel records carry). */
static void CUPTIAPI on_callback(void *user, CUpti_CallbackDomain dom, CUpti_CallbackId cbid, const void *data) {
    if (dom != CUPTI_CB_DOMAIN_RESOURCE) return;
    const CUpti_GraphData *g = (const CUpti_GraphData *)((const CUpti_ResourceData *)data)->resourceDescriptor;
    uint64_t id = 0, orig = 0;
    if (!g || cuptiGetGraphNodeId(g->node, &id) != CUPTI_SUCCESS) return;
    if (cbid == CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED && cuptiGetGraphNodeId(g->originalNode, &orig) != CUPTI_SUCCESS) return;
    pthread_mutex_lock(&g_mu);
    uint64_t tag = cbid == CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED ? g_launch.tag
                 : cbid == CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED ? map_get(&g_node_tag, orig) : 0;
    if (tag) map_put(&g_node_tag, id, tag);
    pthread_mutex_unlock(&g_mu);
}

/* ---- the interface --------------------------------------------------------------------- */

/* Moves what waits in g_pend into the caller's trace, kernels joined to their tags. */
static void drain(void) {
    pthread_mutex_lock(&g_mu);
    Trace *t = g_out;
    for (int i = 0; i < g_nrk; i++) {
        TKernel k = g_rk[i].k;
        const CorrSlot *s = corr_find(k.corr);
        uint64_t tag = g_rk[i].node ? map_get(&g_node_tag, g_rk[i].node) : 0;
        k.ext = tag ? tag : s ? s->ext : 0;
        launch_tag_decode(k.ext, &k.part, &k.layer);
        k.is_gemm = k.ext && part_is_gemm((Part)k.part);
        trace_add_kernel(t, &k);
    }
    for (int i = 0; i < g_ndrv; i++) {         /* a driver call that launched work, not under the runtime */
        const CorrSlot *s = corr_find(g_drv[i].corr);
        if (s && s->device && !s->runtime) trace_add_api(t, &g_drv[i]);
    }
    for (int i = 0; i < g_pend.napi; i++) trace_add_api(t, &g_pend.api[i]);
    for (int i = 0; i < g_pend.nnvtx; i++) trace_add_nvtx(t, &g_pend.nvtx[i]);
    for (int i = 0; i < g_pend.nmem; i++) trace_add_mem(t, &g_pend.mem[i]);
    for (int i = 0; i < g_pend.nsync; i++) trace_add_sync(t, &g_pend.sync[i]);
    t->dropped += g_pend.dropped;
    trace_clear(&g_pend);
    g_nrk = g_ndrv = 0;
    pthread_mutex_unlock(&g_mu);
}

static const CUpti_ActivityKind KINDS[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,   /* never KIND_KERNEL: that one serializes kernels */
    CUPTI_ACTIVITY_KIND_RUNTIME,             /* from here on: the full trace only */
    CUPTI_ACTIVITY_KIND_DRIVER,
    CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET,
    CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, CUPTI_ACTIVITY_KIND_MARKER, CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION};
enum { N_KINDS = sizeof KINDS / sizeof KINDS[0] };
static int g_kinds;                    /* how many of KINDS are enabled: 1 (kernels) or N_KINDS */

/* One line: which call failed, why, and what to do; the caller goes on without a trace. */
static int unavailable(const char *what, CUptiResult r) {
    const char *s = NULL;
    cuptiGetResultString(r, &s);
    int drv = 0;
    cudaDriverGetVersion(&drv);
    const char *todo =
        r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED ? "another profiler is attached (Nsight Systems or Compute, "
                                                               "a second CUPTI client): run outside it"
        : r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES ? "the driver lets only administrators profile: run as root, or load "
                                                     "the driver with NVreg_RestrictProfilingToAdminUsers=0"
        : drv && drv < CUDA_VERSION ? "this CUPTI (from the build's toolkit) is newer than the driver: build with a toolkit "
                                      "no newer than the driver (nvidia-smi's CUDA Version), or update the driver"
                                    : "check that libcupti is the build toolkit's (make prints CUPTI_LIB) and that no "
                                      "other profiler runs";
    printf("trace: CUPTI unavailable: %s failed (%s): %s; continuing without a trace\n", what, s ? s : "?", todo);
    return -1;
}

static void disable_all(void) {
    for (int i = 0; i < g_kinds; i++) cuptiActivityDisable(KINDS[i]);
    g_kinds = 0;
}

/* NVTX finds CUPTI through this variable, read at the process's first NVTX call (the
 * model's first launch): a program that traces later calls this before it opens the model. */
void trace_bind_nvtx(void) {
    Dl_info dl;
    if (dladdr((void *)cuptiGetTimestamp, &dl) && dl.dli_fname) setenv("NVTX_INJECTION64_PATH", dl.dli_fname, 0);
}

/* Subscribes once per process (the graph-node callbacks and the buffers stay registered),
 * then enables the first `kinds` of KINDS. */
static int start(Trace *t, int kinds) {
    static int subscribed;
    if (g_active) trace_stop();
    if (!subscribed) {
        trace_bind_nvtx();
        if (!g_ring) g_ring = (CorrSlot *)xcalloc(RING, sizeof(CorrSlot));
        CUptiResult r = cuptiSubscribe(&g_sub, on_callback, NULL);
        if (r != CUPTI_SUCCESS) return unavailable("cuptiSubscribe", r);
        if ((r = cuptiEnableCallback(1, g_sub, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED)) != CUPTI_SUCCESS ||
            (r = cuptiEnableCallback(1, g_sub, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED)) != CUPTI_SUCCESS ||
            (r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed)) != CUPTI_SUCCESS) {
            cuptiUnsubscribe(g_sub);
            return unavailable("cuptiEnableCallback(graph nodes) or cuptiActivityRegisterCallbacks", r);
        }
        subscribed = 1;
    }
    for (int i = 0; i < kinds; i++) {
        CUptiResult r = cuptiActivityEnable(KINDS[i]);
        g_kinds = i + 1;
        if (r != CUPTI_SUCCESS) {
            char what[64];
            snprintf(what, sizeof what, "cuptiActivityEnable(kind %d)", (int)KINDS[i]);
            disable_all();
            return unavailable(what, r);
        }
    }
    g_out = t;
    g_active = 1;
    return 0;
}

int trace_start(Trace *t) { return start(t, N_KINDS); }
int trace_start_kernels(Trace *t) { return start(t, 1); }

void trace_flush(void) {
    if (!g_active) return;
    cuptiActivityFlushAll(0);
    drain();
}

void trace_stop(void) {
    if (!g_active) return;
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    drain();
    disable_all();
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);   /* what came in meanwhile */
    drain();
    g_active = 0;
    g_out = NULL;
}

int trace_active(void) { return g_active && g_kinds == N_KINDS; }
int trace_collecting(void) { return g_active; }

uint64_t trace_now(void) {
    uint64_t ts = 0;
    if (cuptiGetTimestamp(&ts) != CUPTI_SUCCESS) die("trace: cuptiGetTimestamp failed; is libcupti the toolkit's?");
    return ts;
}
