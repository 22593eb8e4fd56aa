/* parts: names, colours and the kernel-name guess of the model parts (parts.h). */
#include <ctype.h>
#include <string.h>
#include "parts.h"

static const char *const names[P_COUNT] = {
    "embed", "norm", "q", "k", "v", "qkv", "rope", "kv_append", "attn", "o", "residual",
    "gate", "up", "gate_up", "silu_mul", "down", "lm_head", "argmax", "other",
    "linear", "elementwise", "dequant",
};

/* Families share a hue and differ in lightness: attention projections blue, FFN green. */
static const unsigned colors[P_COUNT] = {
    0x8C564B, 0xE69F00, 0x08519C, 0x3182BD, 0x6BAED6, 0x1F3A68, 0xCC79A7, 0x999933,
    0xD55E00, 0x9ECAE1, 0xF0E442, 0x006D2C, 0x31A354, 0x00441B, 0x882255, 0x74C476,
    0x332288, 0x44AA99, 0x7F7F7F, 0x4A6FA5, 0xB0B0B0, 0xAA3377,
};

const char *part_name(Part p) { return p >= 0 && p < P_COUNT ? names[p] : "?"; }

int part_from_name(const char *name) {
    for (int p = 0; p < P_COUNT; p++)
        if (name && strcmp(name, names[p]) == 0) return p;
    return -1;
}

Family part_family(Part p) {
    if (part_is_gemm(p)) return F_LINEAR;
    switch (p) {
    case P_NORM: case P_ROPE: case P_RESIDUAL: case P_SILU_MUL: case P_ELEMENTWISE: return F_ELEMENTWISE;
    case P_ATTN: return F_ATTENTION;
    case P_KV_APPEND: return F_KV_APPEND;
    default: return F_REST;
    }
}

const char *family_name(Family f) {
    static const char *const name[F_COUNT] = {"linear", "elementwise", "attention", "kv_append", "rest"};
    return f >= 0 && f < F_COUNT ? name[f] : "?";
}

int part_is_gemm(Part p) {
    switch (p) {
    case P_Q: case P_K: case P_V: case P_QKV: case P_O: case P_GATE: case P_UP:
    case P_GATE_UP: case P_DOWN: case P_LM_HEAD: case P_LINEAR: return 1;
    default: return 0;
    }
}

void part_color(Part p, unsigned char rgb[3]) {
    unsigned c = colors[p >= 0 && p < P_COUNT ? p : P_OTHER];
    rgb[0] = c >> 16; rgb[1] = (c >> 8) & 255; rgb[2] = c & 255;
}

/* This kit's kernels, by the prefix of their bare name. */
static const struct { const char *prefix; Part part; } kit_names[] = {
    {"gemv", P_LINEAR}, {"gemm", P_LINEAR}, {"dequantize", P_DEQUANT}, {"rmsnorm", P_NORM}, {"pow", P_NORM},
    {"mean", P_NORM}, {"rsqrt", P_NORM}, {"rope", P_ROPE}, {"attn", P_ATTN},
    {"silu_mul", P_SILU_MUL}, {"argmax", P_ARGMAX}, {"embed", P_EMBED},
    {"kv_append", P_KV_APPEND}, {"add", P_RESIDUAL}, {"residual", P_RESIDUAL},
    {"mul", P_ELEMENTWISE},
};

/* Library kernels (cuBLAS, CUTLASS, PyTorch, flash-attn), by a word anywhere in the
 * name; the first match wins, so the more specific words come first. */
static const struct { const char *word; Part part; } lib_words[] = {
    {"argmax", P_ARGMAX},               /* reduce_kernel<..., ArgMaxOps<...>> */
    {"flash_fwd", P_ATTN}, {"fmha", P_ATTN}, {"attention", P_ATTN}, {"softmax", P_ATTN},
    {"splitkreduce", P_LINEAR},         /* cuBLAS's split-K second kernel */
    {"rotary", P_ROPE},
    {"catarraybatchedcopy", P_KV_APPEND}, {"reshape_and_cache", P_KV_APPEND},
    {"rmsnorm", P_NORM}, {"rms_norm", P_NORM}, {"layernorm", P_NORM}, {"layer_norm", P_NORM},
    {"silu", P_SILU_MUL},
    {"gemm", P_LINEAR}, {"gemv", P_LINEAR}, {"cutlass", P_LINEAR}, {"xmma", P_LINEAR},
    {"cublas", P_LINEAR},
    {"pow", P_NORM}, {"rsqrt", P_NORM}, {"reduce_kernel", P_NORM},   /* RMSNorm in eager */
    {"indexselect", P_EMBED}, {"embedding", P_EMBED},
    {"elementwise", P_ELEMENTWISE},
};

/* The bare name: no "void ", no namespaces, no template arguments or parameters. */
static void bare_name(const char *s, char *out, size_t cap) {
    if (strncmp(s, "void ", 5) == 0) s += 5;
    const char *end = s + strcspn(s, "<(");
    for (const char *p = s; p + 1 < end; p++)
        if (p[0] == ':' && p[1] == ':') s = p + 2;
    size_t n = (size_t)(end - s) < cap - 1 ? (size_t)(end - s) : cap - 1;
    memcpy(out, s, n);
    out[n] = 0;
}

Part part_from_kernel_name(const char *kernel_name) {
    if (!kernel_name) return P_OTHER;
    char bare[128];
    bare_name(kernel_name, bare, sizeof bare);
    for (size_t i = 0; i < sizeof kit_names / sizeof kit_names[0]; i++)
        if (strncmp(bare, kit_names[i].prefix, strlen(kit_names[i].prefix)) == 0)
            return kit_names[i].part;
    char low[1024];
    size_t n = 0;
    for (; kernel_name[n] && n < sizeof low - 1; n++) low[n] = tolower((unsigned char)kernel_name[n]);
    low[n] = 0;
    for (size_t i = 0; i < sizeof lib_words / sizeof lib_words[0]; i++)
        if (strstr(low, lib_words[i].word)) return lib_words[i].part;
    return P_OTHER;
}

/* torch's ops by their bare name ("aten::linear" -> "linear"), then by a word in it. */
Part part_from_op_name(const char *op_name) {
    static const struct { const char *name; Part part; } ops[] = {
        {"linear", P_LINEAR}, {"addmm", P_LINEAR}, {"mm", P_LINEAR},
        {"matmul", P_ATTN}, {"bmm", P_ATTN}, {"baddbmm", P_ATTN},    /* Q·K and P·V in eager attention */
        {"pow", P_NORM}, {"mean", P_NORM}, {"rsqrt", P_NORM},          /* RMSNorm in eager */
    };
    if (!op_name) return P_ELEMENTWISE;
    char bare[128];
    bare_name(op_name, bare, sizeof bare);
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(bare, ops[i].name) == 0) return ops[i].part;
    if (strstr(op_name, "attention") || strstr(op_name, "softmax")) return P_ATTN;
    if (strstr(op_name, "norm")) return P_NORM;
    return P_ELEMENTWISE;
}
