/* trace_write_chrome: a small trace written and parsed back with cJSON: the Kineto-style
 * fields Perfetto and chrome://tracing need, names escaped, the window respected, and each
 * launch call joined to its kernel by a flow pair sharing one id. */
#include <math.h>
#include <string.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include "check.h"
#include "measure/trace.h"
#include "util.h"

static const char *WEIRD = "void k<\"quoted\", \\back\\slash>(int)";

static Trace make_trace(uint64_t *tag) {
    Trace t = {0};
    TApi a1 = {1000, 1300, 11, 42, 211, "cudaLaunchKernel"};
    TApi a2 = {1400, 1600, 12, 42, 211, "cudaLaunchKernel"};
    TApi g = {2000, 2100, 13, 42, 311, "cudaGraphLaunch"};
    TApi outside = {90000, 90100, 14, 42, 211, "cudaLaunchKernel"};
    TApi sync = {2100, 5000, 15, 42, 131, "cudaStreamSynchronize"};
    trace_add_api(&t, &a1); trace_add_api(&t, &a2); trace_add_api(&t, &g);
    trace_add_api(&t, &outside); trace_add_api(&t, &sync);
    *tag = launch_tag_encode(P_LM_HEAD, -1, 123456);
    TKernel k1 = {1500, 2500, 11, 7, 0, *tag, P_LM_HEAD, -1, 1, "gemv_f16_kernel(__half const*, int)", NULL};
    TKernel k2 = {2600, 2700, 12, 7, 0, 0, P_OTHER, -1, 0, WEIRD, NULL};
    TKernel k3 = {3000, 3100, 13, 7, 0, launch_tag_encode(P_NORM, 3, 9), P_NORM, 3, 0, "rmsnorm_kernel(...)", NULL};
    TKernel k4 = {3100, 3300, 13, 7, 0, launch_tag_encode(P_Q, 3, 10), P_Q, 3, 1, "gemv_f16_kernel(__half const*, int)", NULL};
    TKernel late = {95000, 96000, 14, 7, 0, 0, P_OTHER, -1, 0, "late_kernel", NULL};
    trace_add_kernel(&t, &k1); trace_add_kernel(&t, &k2); trace_add_kernel(&t, &k3);
    trace_add_kernel(&t, &k4); trace_add_kernel(&t, &late);
    TRange r = {1000, 2700, 42, "decode_step"};
    trace_add_nvtx(&t, &r);
    TMem m = {4000, 4500, 16, 7, 4096, 0, 2}, s = {4600, 4700, 17, 7, 256, 1, 0};
    trace_add_mem(&t, &m); trace_add_mem(&t, &s);
    return t;
}

static const char *str(const cJSON *o, const char *k) { return cJSON_GetStringValue(cJSON_GetObjectItem(o, k)); }
static double num(const cJSON *o, const char *k) {
    const cJSON *v = cJSON_GetObjectItem(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}
static int has(const char *cat, const char *want) { return cat && strcmp(cat, want) == 0; }

int main(void) {
    uint64_t tag;
    Trace t = make_trace(&tag);
    char path[] = "/tmp/kit_trace_XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    CHECK(trace_write_chrome(&t, 1000, 50000, path) == 0, "trace written");
    char *text = read_file(path, NULL);
    cJSON *root = text ? cJSON_Parse(text) : NULL;
    CHECK(root != NULL, "the trace parses as JSON");
    if (!root) return check_done("test_trace_json");
    const cJSON *ev = cJSON_GetObjectItem(root, "traceEvents");
    CHECK(cJSON_IsArray(ev) && cJSON_GetArraySize(ev) > 0, "traceEvents is a non-empty array");
    CHECK(has(str(root, "displayTimeUnit"), "ms"), "displayTimeUnit ms");

    int n_api = 0, n_kernel = 0, n_nvtx = 0, n_memcpy = 0, n_memset = 0, n_s = 0, n_f = 0, n_meta = 0;
    int fields_ok = 1, args_ok = 1, weird_ok = 0, tag_ok = 0, gpu_named = 0, min_ts_ok = 1;
    const cJSON *e;
    cJSON_ArrayForEach(e, ev) {
        const char *ph = str(e, "ph"), *cat = str(e, "cat"), *name = str(e, "name");
        if (!ph || !name) { fields_ok = 0; continue; }
        if (strcmp(ph, "M") == 0) {
            n_meta++;
            const char *label = str(cJSON_GetObjectItem(e, "args"), "name");
            gpu_named |= strcmp(name, "process_name") == 0 && label && strcmp(label, "GPU 0") == 0;
            continue;
        }
        if (strcmp(ph, "X") == 0) {
            fields_ok &= cat && !isnan(num(e, "ts")) && num(e, "dur") >= 0 && !isnan(num(e, "pid")) && !isnan(num(e, "tid"));
            min_ts_ok &= num(e, "ts") >= 0;
            n_api += has(cat, "cuda_runtime");
            n_nvtx += has(cat, "user_annotation");
            n_memcpy += has(cat, "gpu_memcpy");
            n_memset += has(cat, "gpu_memset");
            if (has(cat, "kernel")) {
                n_kernel++;
                const cJSON *a = cJSON_GetObjectItem(e, "args");
                args_ok &= a && !isnan(num(a, "device")) && !isnan(num(a, "stream")) && !isnan(num(a, "correlation")) &&
                           !isnan(num(a, "External id")) && str(a, "part") && !isnan(num(a, "layer"));
                weird_ok |= strcmp(name, WEIRD) == 0;
                tag_ok |= a && num(a, "correlation") == 11 && (uint64_t)num(a, "External id") == tag &&
                          has(str(a, "part"), "lm_head") && num(a, "layer") == -1;
            }
        }
        if (strcmp(ph, "s") == 0 || strcmp(ph, "f") == 0) {
            fields_ok &= has(cat, "ac2g") && !isnan(num(e, "id")) && !isnan(num(e, "ts"));
            n_s += ph[0] == 's';
            n_f += ph[0] == 'f';
            if (ph[0] == 'f') fields_ok &= has(str(e, "bp"), "e");
        }
    }
    CHECK(fields_ok, "every event has ph/name; X events cat/ts/dur/pid/tid; flows cat/id/ts/bp");
    CHECK(min_ts_ok, "timestamps start at 0 or later");
    CHECK(n_api == 4, "runtime calls in the window: %d, want 4 (not the one at 90 us)", n_api);
    CHECK(n_kernel == 4, "kernels in the window: %d, want 4", n_kernel);
    CHECK(n_nvtx == 1 && n_memcpy == 1 && n_memset == 1, "NVTX %d memcpy %d memset %d", n_nvtx, n_memcpy, n_memset);
    CHECK(args_ok, "kernel args: device stream correlation \"External id\" part layer");
    CHECK(tag_ok, "the tag survives as \"External id\" with part lm_head");
    CHECK(weird_ok, "a name with quotes and backslashes comes back intact");
    CHECK(n_meta >= 4 && gpu_named, "process/thread names (GPU 0)");
    CHECK(n_s == 3 && n_f == 3, "one flow per launch call (the graph's once): %d s, %d f", n_s, n_f);

    /* each flow start sits on its launch call; each end at its kernel, on the GPU track */
    int pairs_ok = 1;
    cJSON_ArrayForEach(e, ev) {
        if (!has(str(e, "ph"), "s")) continue;
        double id = num(e, "id"), ts = num(e, "ts");
        int ends = 0, on_call = 0, on_kernel = 0;
        const cJSON *x;
        cJSON_ArrayForEach(x, ev) {
            const char *ph = str(x, "ph"), *cat = str(x, "cat");
            if (has(ph, "f") && num(x, "id") == id) {
                ends++;
                const cJSON *y;
                cJSON_ArrayForEach(y, ev)
                    on_kernel |= has(str(y, "cat"), "kernel") && num(y, "ts") == num(x, "ts") &&
                                 num(y, "pid") == num(x, "pid") && num(y, "tid") == num(x, "tid") &&
                                 num(cJSON_GetObjectItem(y, "args"), "correlation") == id;
            }
            if (has(ph, "X") && has(cat, "cuda_runtime") && num(cJSON_GetObjectItem(x, "args"), "correlation") == id)
                on_call = ts >= num(x, "ts") && ts <= num(x, "ts") + num(x, "dur") && num(x, "pid") == num(e, "pid") &&
                          num(x, "tid") == num(e, "tid");
        }
        pairs_ok &= ends == 1 && on_call && on_kernel;
    }
    CHECK(pairs_ok, "flow pairs share ids; start on the call, end on the kernel");

    cJSON_Delete(root);
    free(text);
    unlink(path);
    CHECK(trace_write_chrome(&t, 0, 1, "/nonexistent/dir/trace.json") == -1, "an unwritable path returns -1");
    trace_free(&t);
    return check_done("test_trace_json");
}
