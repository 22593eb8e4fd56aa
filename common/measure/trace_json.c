/* trace_json: Chrome-trace JSON -> Trace records, in one pass (trace_json.h).
 *
 * The scanner keeps three places a byte can fall: the document around the events (kept,
 * whitespace dropped, as a skeleton that cJSON checks at the end, so a malformed byte
 * anywhere is found), the events array itself (only '{', ',' and ']' are allowed there),
 * and one event (gathered whole, then parsed by cJSON alone and turned into a record). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>
#include <cjson/cJSON.h>
#include "parts.h"
#include "measure/trace_json.h"
#include "report/rows.h"
#include "util.h"

#define MAX_US 9.2e15   /* ts and dur in microseconds; as ns they must fit below 2^63 */

typedef struct { char *p; size_t n, cap; } Buf;

static void put(Buf *b, const char *s, size_t n) {
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (b->n + n + 1 > cap) cap *= 2;
        char *grown = realloc(b->p, cap);
        if (!grown) die("trace: out of host memory at %zu bytes of one JSON value", cap);
        b->p = grown;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}

/* A cpu_op of a torch trace: its "External id" (a kernel's points at the innermost op that
 * launched it) and, once resolved, the outermost op around it. */
typedef struct { uint64_t ext, start, end; uint32_t tid; int range, outer; } OpRef;
typedef struct { long number; int gpu; uint64_t start, end; long index; } StepMark;   /* index: in traceEvents */

enum { DOC, EVENTS, EVENT };                              /* where the next byte falls */
enum { WANT_EVENT_OR_END, WANT_EVENT, WANT_COMMA_OR_END };  /* inside the events array */
/* What the document's next byte outside the events may be: JSON's grammar, one container
 * at a time (the kinds of the open ones on a stack), so a misplaced byte is found where it
 * stands. Strings and scalars are only delimited here; cJSON checks their spelling at the
 * end, on the skeleton. */
enum { E_VALUE, E_VALUE_OR_CLOSE, E_KEY, E_KEY_OR_CLOSE, E_COLON, E_COMMA_OR_CLOSE, E_END };

typedef struct {
    TraceJson *tj;
    int where, state;
    Buf skel, ev;
    Buf open;                /* the open containers outside the events, '{' or '[' each */
    int top;                 /* the document's first character, '{' or '[' */
    int expect, in_str, esc, in_scalar;   /* of the skeleton */
    int in_key, key_is_events, value_of_events;
    char key[16];
    size_t nkey;
    size_t doc_end;          /* the byte that closed the document */
    int found;               /* an events array was seen */
    int ev_depth, ev_str, ev_esc;
    size_t pos, ev_pos;      /* bytes read; where the current event began */
    OpRef *ops; int nops, capops;
    StepMark *marks; int nmarks, capmarks;
    char *err; size_t cap; int failed;
    int too_large;           /* it failed on a bound (trace_json.h), not on the JSON */
} Reader;

static void fail(Reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(Reader *r, const char *fmt, ...) {
    if (r->failed) return;
    r->failed = 1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err, r->cap, fmt, ap);
    va_end(ap);
    if (r->cap) rows_one_line(r->err);   /* a cat or name from the file: the sentence stays one line */
}

/* Up to 40 characters of text around `at` (where cJSON stopped), on one line. */
static const char *near(const char *text, size_t len, const char *at, char out[48]) {
    const char *from = at && at >= text && at <= text + len ? (at - text > 20 ? at - 20 : text) : text;
    size_t n = 0;
    for (; from < text + len && n < 40; from++) out[n++] = isprint((unsigned char)*from) ? *from : ' ';
    out[n] = 0;
    return out;
}

/* A character for an error message: itself when printable, else \xNN. */
static const char *shown(int c, char buf[8]) {
    if (isprint(c)) snprintf(buf, 8, "%c", c);
    else snprintf(buf, 8, "\\x%02x", c & 0xff);
    return buf;
}

/* ---- one event -> one record --------------------------------------------------------- */

enum { K_SKIP, K_KERNEL, K_API, K_OP, K_RANGE, K_GPU_RANGE };

static int kind_of(const char *ph, const char *cat) {
    static const struct { const char *cat; int kind; } kinds[] = {
        {"kernel", K_KERNEL}, {"cuda_runtime", K_API}, {"cuda_driver", K_API}, {"runtime", K_API},
        {"cpu_op", K_OP}, {"operator", K_OP},   /* "runtime", "operator": older Kineto */
        {"user_annotation", K_RANGE}, {"gpu_user_annotation", K_GPU_RANGE},
    };
    if (!ph || strcmp(ph, "X") != 0 || !cat) return K_SKIP;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcasecmp(cat, kinds[i].cat) == 0) return kinds[i].kind;
    return K_SKIP;
}

static void count_skip(TraceJson *tj, const char *ph, const char *cat) {
    char kind[32];
    snprintf(kind, sizeof kind, "%s%s", cat ? "" : "ph=", cat ? cat : ph ? ph : "?");
    tj->skipped++;
    for (int i = 0; i < tj->nskip; i++)
        if (strcmp(tj->skip[i].kind, kind) == 0) { tj->skip[i].n++; return; }
    if (tj->nskip < (int)(sizeof tj->skip / sizeof tj->skip[0])) {
        snprintf(tj->skip[tj->nskip].kind, sizeof tj->skip[0].kind, "%s", kind);
        rows_one_line(tj->skip[tj->nskip].kind);   /* printed on one key=value line */
        tj->skip[tj->nskip++].n = 1;
    }
}

/* A number field in [lo, hi], or NAN. */
static double num(const cJSON *o, const char *key, double lo, double hi) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) && v->valuedouble >= lo && v->valuedouble <= hi ? v->valuedouble : NAN;
}
static double num_or(const cJSON *o, const char *key, double lo, double hi, double dflt) {
    double v = num(o, key, lo, hi);
    return isnan(v) ? dflt : v;
}

/* "ProfilerStep#N" -> N >= 0, else -1. */
static long step_number(const char *name) {
    if (strncmp(name, "ProfilerStep#", 13) != 0 || !isdigit((unsigned char)name[13])) return -1;
    char *end;
    errno = 0;
    long n = strtol(name + 13, &end, 10);
    return *end || errno ? -1 : n;
}

static void add_mark(Reader *r, long number, int gpu, uint64_t start, uint64_t end, long index) {
    if (r->nmarks == r->capmarks) {
        r->capmarks = r->capmarks ? 2 * r->capmarks : 64;
        StepMark *grown = realloc(r->marks, sizeof(StepMark) * (size_t)r->capmarks);
        if (!grown) die("trace: out of host memory at %d ProfilerStep ranges", r->nmarks);
        r->marks = grown;
    }
    r->marks[r->nmarks++] = (StepMark){number, gpu, start, end, index};
}

static void add_op(Reader *r, uint64_t ext, uint64_t start, uint64_t end, uint32_t tid, int range) {
    if (r->nops == r->capops) {
        r->capops = r->capops ? 2 * r->capops : 4096;
        OpRef *grown = realloc(r->ops, sizeof(OpRef) * (size_t)r->capops);
        if (!grown) die("trace: out of host memory at %d cpu_op events", r->nops);
        r->ops = grown;
    }
    r->ops[r->nops++] = (OpRef){ext, start, end, tid, range, range};
}

static void event(Reader *r, const char *text, size_t len) {
    TraceJson *tj = r->tj;
    long index = tj->events++;
    cJSON *e = cJSON_ParseWithLengthOpts(text, len + 1, NULL, 1);   /* + its NUL */
    if (!e) {
        char snippet[48];
        fail(r, "traceEvents[%ld] (byte %zu) is not valid JSON near \"%s\"", index, r->ev_pos,
             near(text, len, cJSON_GetErrorPtr(), snippet));
        return;
    }
    const char *ph = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "ph"));
    const char *cat = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "cat"));
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "name"));
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");
    int kind = kind_of(ph, cat);
    double ts = num(e, "ts", 0, MAX_US), dur = num(e, "dur", 0, MAX_US);
    double corr = num(args, "correlation", 0, 4294967295.0);
    const char *missing = !name ? "\"name\" (a string)"
                        : isnan(ts) ? "\"ts\" (microseconds, a number from 0 to 9.2e15)"
                        : isnan(dur) ? "\"dur\" (microseconds, a number from 0 to 9.2e15)"
                        : (kind == K_KERNEL || kind == K_API) && isnan(corr) ? "\"args\": {\"correlation\": id} (the launch's id)"
                        : NULL;
    if (kind == K_SKIP) count_skip(tj, ph, cat);
    else if (!missing && strlen(name) > TRACE_JSON_MAX_NAME) {
        fail(r, "traceEvents[%ld] (byte %zu, cat \"%s\") has a name of %zu bytes, over the %d KiB no kernel or op "
                "name comes near: the file is damaged, or not a trace", index, r->ev_pos, cat, strlen(name),
             TRACE_JSON_MAX_NAME >> 10);
        r->too_large = 1;
    } else if (missing) fail(r, "traceEvents[%ld] (byte %zu, cat \"%s\") has no valid %s", index, r->ev_pos, cat, missing);
    else {
        uint64_t start = (uint64_t)llround(ts * 1e3), end = start + (uint64_t)llround(dur * 1e3);
        uint32_t tid = (uint32_t)num_or(e, "tid", 0, 4294967295.0, 0);
        uint64_t ext = (uint64_t)num_or(args, "External id", 0, 9007199254740992.0, 0);
        long step = kind == K_RANGE || kind == K_GPU_RANGE ? step_number(name) : -1;
        if (kind == K_KERNEL) {
            const char *part = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(args, "part"));
            TKernel k = {start, end, (uint32_t)corr, (uint32_t)num_or(args, "stream", 0, 4294967295.0, tid),
                         (uint32_t)num_or(args, "device", 0, 4294967295.0, num_or(e, "pid", 0, 4294967295.0, 0)),
                         ext, -1, -1, 0, name, NULL};
            if (part) {   /* the kit's own trace: the launch path's tag */
                k.part = part_from_name(part) < 0 ? P_OTHER : part_from_name(part);
                k.layer = (int)num_or(args, "layer", -1, 255, -1);
                k.is_gemm = part_is_gemm((Part)k.part);
            }             /* a torch trace: part -1 until its op is known (resolve_parts) */
            trace_add_kernel(&tj->t, &k);
        } else if (kind == K_API) {
            TApi a = {start, end, (uint32_t)corr, tid, (int)num_or(args, "cbid", 0, 1e9, 0), name};
            trace_add_api(&tj->t, &a);
        } else if (step >= 0) {
            add_mark(r, step, kind == K_GPU_RANGE, start, end, index);
        } else if (kind != K_GPU_RANGE) {   /* other GPU-side annotations carry nothing used here */
            TRange rg = {start, end, tid, name};
            if (kind == K_OP) {
                add_op(r, ext, start, end, tid, tj->t.nnvtx);
                tj->cpu_ops++;
            }
            trace_add_nvtx(&tj->t, &rg);
        }
    }
    cJSON_Delete(e);
}

/* ---- the scanner ---------------------------------------------------------------------- */

/* The value just ended: a comma or a closer comes next, or, at the top, nothing. */
static void after_value(Reader *r) {
    r->expect = r->open.n ? E_COMMA_OR_CLOSE : E_END;
    if (!r->open.n) r->doc_end = r->pos;
}

static void open_container(Reader *r, int c) {
    char ch = (char)c;
    put(&r->skel, &ch, 1);
    put(&r->open, &ch, 1);
    r->expect = c == '{' ? E_KEY_OR_CLOSE : E_VALUE_OR_CLOSE;
}

static void close_container(Reader *r, int c) {
    char ch = (char)c, opened = r->open.p[r->open.n - 1];
    if ((c == '}') != (opened == '{')) {
        fail(r, "'%c' at byte %zu closes a '%c', which wants '%c': not valid JSON", c, r->pos, opened,
             opened == '{' ? '}' : ']');
        return;
    }
    put(&r->skel, &ch, 1);
    r->open.n--;
    after_value(r);
}

static void skel_byte(Reader *r, int c) {
    char ch = (char)c, b[8];
    if (r->in_str) {
        put(&r->skel, &ch, 1);
        if (r->esc) r->esc = 0;
        else if (c == '\\') r->esc = 1;
        else if (c == '"') {
            r->in_str = 0;
            if (r->in_key) {
                r->key_is_events = r->nkey == 11 && memcmp(r->key, "traceEvents", 11) == 0;
                r->in_key = 0;
                r->expect = E_COLON;
            } else after_value(r);
        } else if (r->in_key && r->nkey < sizeof r->key) r->key[r->nkey++] = ch;
        return;
    }
    if (r->in_scalar) {   /* true, false, null or a number: ends at the first other byte */
        if (isalnum(c) || c == '-' || c == '+' || c == '.') { put(&r->skel, &ch, 1); return; }
        r->in_scalar = 0;
        after_value(r);
    }
    if (isspace(c)) return;
    if (!r->top) {
        if (c != '{' && c != '[') {
            fail(r, "it starts with '%s', not with '{' or '[': not a JSON trace", shown(c, b));
            return;
        }
        r->top = c;
    }
    switch (r->expect) {
    case E_END:
        if (c == '}' || c == ']') fail(r, "an unmatched '%c' at byte %zu: not valid JSON", c, r->pos);
        else fail(r, "'%s' at byte %zu comes after the JSON document ended (at byte %zu): not valid JSON",
                  shown(c, b), r->pos, r->doc_end);
        return;
    case E_KEY: case E_KEY_OR_CLOSE:
        if (c == '"') {
            put(&r->skel, &ch, 1);
            r->in_str = r->in_key = 1;
            r->nkey = 0;
        } else if (c == '}' && r->expect == E_KEY_OR_CLOSE) close_container(r, c);
        else fail(r, "'%s' at byte %zu, where a key (a string in quotes)%s belongs: not valid JSON", shown(c, b), r->pos,
                  r->expect == E_KEY_OR_CLOSE ? " or the object's '}'" : "");
        return;
    case E_COLON:
        if (c != ':') {
            fail(r, "'%s' at byte %zu, where the ':' after a key belongs: not valid JSON", shown(c, b), r->pos);
            return;
        }
        put(&r->skel, &ch, 1);
        r->value_of_events = r->open.n == 1 && r->key_is_events;
        r->key_is_events = 0;
        r->expect = E_VALUE;
        return;
    case E_COMMA_OR_CLOSE: {
        char opened = r->open.p[r->open.n - 1];
        if (c == ',') {
            put(&r->skel, &ch, 1);
            r->expect = opened == '{' ? E_KEY : E_VALUE;
        } else if (c == '}' || c == ']') close_container(r, c);
        else fail(r, "'%s' at byte %zu, where ',' or '%c' belongs: not valid JSON", shown(c, b), r->pos,
                  opened == '{' ? '}' : ']');
        return;
    }
    default: {   /* a value, or (after '[') the array's ']' */
        int events = c == '[' && (r->value_of_events || (r->open.n == 0 && r->top == '['));
        r->value_of_events = 0;
        if (events) {   /* "traceEvents": [ ... ], or the document is the array */
            open_container(r, c);
            r->where = EVENTS;
            r->state = WANT_EVENT_OR_END;
            r->found = 1;
        } else if (c == '{' || c == '[') open_container(r, c);
        else if (c == ']' && r->expect == E_VALUE_OR_CLOSE) close_container(r, c);
        else if (c == '"') {
            put(&r->skel, &ch, 1);
            r->in_str = 1;
        } else if (c == '-' || isdigit(c) || islower(c)) {
            put(&r->skel, &ch, 1);
            r->in_scalar = 1;
        } else fail(r, "'%s' at byte %zu, where a value belongs: not valid JSON", shown(c, b), r->pos);
        return;
    }
    }
}

static void events_byte(Reader *r, int c) {
    char b[8];
    if (isspace(c)) return;
    if (c == '{' && r->state != WANT_COMMA_OR_END) {
        r->where = EVENT;
        r->ev.n = 0;
        r->ev_depth = r->ev_str = r->ev_esc = 0;
        r->ev_pos = r->pos;
    } else if (c == ',' && r->state == WANT_COMMA_OR_END) {
        r->state = WANT_EVENT;
    } else if (c == ']' && r->state != WANT_EVENT) {
        r->where = DOC;
        close_container(r, c);
    } else if (r->state == WANT_COMMA_OR_END) {
        fail(r, "traceEvents: '%s' at byte %zu after event %ld, where ',' or ']' belongs", shown(c, b), r->pos,
             r->tj->events - 1);
    } else {
        fail(r, "traceEvents[%ld] (byte %zu) is not an event object but starts with '%s'", r->tj->events, r->pos,
             shown(c, b));
    }
}

/* Bytes of one event from s[0..n): returns how many belong to it (all, or up to its '}'). */
static size_t event_bytes(Reader *r, const char *s, size_t n) {
    size_t i = 0;
    for (; i < n; i++) {
        char c = s[i];
        if (r->ev_str) {
            if (r->ev_esc) r->ev_esc = 0;
            else if (c == '\\') r->ev_esc = 1;
            else if (c == '"') r->ev_str = 0;
        } else if (c == '"') r->ev_str = 1;
        else if (c == '{' || c == '[') r->ev_depth++;
        else if ((c == '}' || c == ']') && --r->ev_depth == 0) { i++; break; }
    }
    if (r->ev.n + i > TRACE_JSON_MAX_EVENT) {   /* its bytes are not kept: memory stays bounded */
        fail(r, "traceEvents[%ld] (byte %zu) runs past %d MiB without its closing '}': a trace event is a few KB, "
                "names included, so the file is damaged, or not a trace", r->tj->events, r->ev_pos,
             TRACE_JSON_MAX_EVENT >> 20);
        r->too_large = 1;
        return n;
    }
    put(&r->ev, s, i);
    if (r->ev_depth == 0) {
        event(r, r->ev.p, r->ev.n);
        r->where = EVENTS;
        r->state = WANT_COMMA_OR_END;
    }
    return i;
}

static void feed(Reader *r, const char *s, size_t n) {
    size_t i = 0;
    while (i < n && !r->failed) {
        if (r->where == EVENT) {
            size_t used = event_bytes(r, s + i, n - i);
            i += used;
            r->pos += used;
            continue;
        }
        int c = (unsigned char)s[i];
        if (r->where == DOC) skel_byte(r, c);
        else events_byte(r, c);
        if (r->skel.n > TRACE_JSON_MAX_DOC && !r->failed) {
            fail(r, "the JSON around traceEvents passes %d MiB at byte %zu (whitespace left out): a trace keeps its "
                    "events in traceEvents and little beside them (deviceProperties, traceName, ...), so the file is "
                    "damaged, or not a trace", TRACE_JSON_MAX_DOC >> 20, r->pos);
            r->too_large = 1;
        }
        if (r->where != EVENT) { i++; r->pos++; }   /* an event's '{' is its own first byte */
    }
}

/* ---- the end: check the rest, join kernels to their ops, sort ------------------------- */

static int by_thread_then_start(const void *a, const void *b) {
    const OpRef *x = a, *y = b;
    if (x->tid != y->tid) return x->tid < y->tid ? -1 : 1;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    if (x->end != y->end) return x->end > y->end ? -1 : 1;   /* the outer op first */
    return x->range - y->range;
}
static int by_ext(const void *a, const void *b) {
    const OpRef *x = a, *y = b;
    return x->ext != y->ext ? (x->ext < y->ext ? -1 : 1) : x->range - y->range;
}

/* Each torch kernel's part: from the outermost cpu_op around the op whose "External id" it
 * carries (aten::linear around aten::mm). Ops nest per thread: a stack in start order. */
static void resolve_parts(Reader *r) {
    Trace *t = &r->tj->t;
    if (r->nops > 1) qsort(r->ops, r->nops, sizeof(OpRef), by_thread_then_start);
    int *stack = xmalloc(sizeof(int) * (size_t)(r->nops + 1)), ns = 0;
    for (int i = 0; i < r->nops; i++) {
        if (i > 0 && r->ops[i].tid != r->ops[i - 1].tid) ns = 0;
        while (ns > 0 && r->ops[stack[ns - 1]].end <= r->ops[i].start) ns--;
        if (ns > 0) r->ops[i].outer = r->ops[stack[0]].outer;
        stack[ns++] = i;
    }
    free(stack);
    if (r->nops > 1) qsort(r->ops, r->nops, sizeof(OpRef), by_ext);
    for (int i = 0; i < t->nk; i++) {
        TKernel *k = &t->k[i];
        if (k->part >= 0) continue;
        int lo = 0, hi = r->nops;
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (r->ops[mid].ext < k->ext) lo = mid + 1; else hi = mid;
        }
        if (k->ext && lo < r->nops && r->ops[lo].ext == k->ext) {
            k->op = t->nvtx[r->ops[lo].outer].name;
            k->part = part_from_op_name(k->op);
            k->is_gemm = part_is_gemm((Part)k->part);
        } else {
            k->ext = 0;          /* no op: the kernel's own name decides (trace_kernel_part) */
            k->part = P_OTHER;
        }
    }
}

static int kernel_by_start(const void *a, const void *b) {
    const TKernel *x = a, *y = b;
    return x->start != y->start ? (x->start < y->start ? -1 : 1) : (x->end > y->end) - (x->end < y->end);
}
static int api_by_start(const void *a, const void *b) {
    const TApi *x = a, *y = b;
    return (x->start > y->start) - (x->start < y->start);
}
static int range_by_start(const void *a, const void *b) {
    const TRange *x = a, *y = b;
    return (x->start > y->start) - (x->start < y->start);
}
static int mark_by_number(const void *a, const void *b) {
    const StepMark *x = a, *y = b;
    if (x->number != y->number) return x->number < y->number ? -1 : 1;
    if (x->gpu != y->gpu) return x->gpu - y->gpu;
    return (x->start > y->start) - (x->start < y->start);
}

/* ProfilerStep ranges -> steps: one per number, each side the union of its ranges (Kineto
 * writes the GPU side once per stream). The CPU side is one range per step, where the
 * program called prof.step(): a second range of the same number that does not overlap the
 * first is a second profiling session in the same file, whose steps would merge with the
 * first's into windows spanning both. That is refused. */
static void make_steps(Reader *r) {
    TraceJson *tj = r->tj;
    if (r->nmarks > 1) qsort(r->marks, r->nmarks, sizeof(StepMark), mark_by_number);
    tj->steps = xcalloc((size_t)r->nmarks + 1, sizeof(TraceStep));
    for (int i = 0; i < r->nmarks && !r->failed; i++) {
        const StepMark *m = &r->marks[i];
        if (!tj->nsteps || tj->steps[tj->nsteps - 1].number != m->number)
            tj->steps[tj->nsteps++] = (TraceStep){.number = m->number};
        TraceStep *s = &tj->steps[tj->nsteps - 1];
        uint64_t *a = m->gpu ? &s->gpu0 : &s->cpu0, *b = m->gpu ? &s->gpu1 : &s->cpu1;
        int *has = m->gpu ? &s->has_gpu : &s->has_cpu;
        if (*has && !m->gpu && m->start > *b)   /* marks come by start: *b is the union's end so far */
            fail(r, "ProfilerStep#%ld has two separate CPU-side ranges, traceEvents[%ld] at ts %.3f us and "
                    "traceEvents[%ld] at ts %.3f us: two profiling sessions in one file, whose steps would merge; "
                    "export each session to its own file (one export_chrome_trace per profiler)",
                 m->number, r->marks[i - 1].index, r->marks[i - 1].start / 1e3, m->index, m->start / 1e3);
        if (!*has || m->start < *a) *a = m->start;
        if (!*has || m->end > *b) *b = m->end;
        *has = 1;
    }
}

static int finish(Reader *r) {
    TraceJson *tj = r->tj;
    if (!r->failed) {
        if (r->where == EVENT) fail(r, "the file ends inside traceEvents[%ld], which began at byte %zu: it is cut short", tj->events, r->ev_pos);
        else if (r->where == EVENTS) fail(r, "the file ends inside traceEvents, after %ld events: it is cut short", tj->events);
        else if (!r->top) fail(r, "the file holds no JSON at all (%s)", r->pos ? "only whitespace" : "it is empty");
        else if (r->in_str || r->open.n > 0) fail(r, "the file ends before its JSON does (at byte %zu): it is cut short", r->pos);
    }
    if (!r->failed) {
        cJSON *doc = cJSON_ParseWithLengthOpts(r->skel.p, r->skel.n + 1, NULL, 1);
        char snippet[48];
        if (!doc) fail(r, "the JSON around traceEvents is not valid, near \"%s\" (whitespace left out)",
                       near(r->skel.p, r->skel.n, cJSON_GetErrorPtr(), snippet));
        cJSON_Delete(doc);
    }
    if (!r->failed && !r->found) fail(r, "there is no \"traceEvents\" array: not a Chrome trace (torch.profiler's export_chrome_trace writes one)");
    if (!r->failed && !tj->t.nk)
        fail(r, "there are no GPU kernel events (cat \"kernel\") among its %ld events: profile with "
                "activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]", tj->events);
    if (!r->failed) {
        resolve_parts(r);
        make_steps(r);
        if (tj->t.nk > 1) qsort(tj->t.k, tj->t.nk, sizeof(TKernel), kernel_by_start);
        if (tj->t.napi > 1) qsort(tj->t.api, tj->t.napi, sizeof(TApi), api_by_start);
        if (tj->t.nnvtx > 1) qsort(tj->t.nvtx, tj->t.nnvtx, sizeof(TRange), range_by_start);
    }
    free(r->skel.p); free(r->ev.p); free(r->open.p); free(r->ops); free(r->marks);
    if (r->failed) trace_json_free(tj);
    return r->failed ? -1 : 0;
}

static Reader begin(TraceJson *tj, char *err, size_t cap) {
    memset(tj, 0, sizeof *tj);
    if (cap) err[0] = 0;
    return (Reader){.tj = tj, .err = err, .cap = cap};
}

int trace_json_parse(const char *bytes, size_t len, TraceJson *tj, char *err, size_t cap) {
    Reader r = begin(tj, err, cap);
    feed(&r, bytes, len);
    return finish(&r);
}

/* gzip's own word on its data, once the file has been read. Damaged gzip data also
 * decompresses into bytes that break the JSON, so when the reader stopped on the JSON the
 * rest of the stream is decompressed too (and dropped): a damaged file is then reported as
 * what it is, not as the JSON it garbled. */
static void gzip_verdict(Reader *r, gzFile f, const char *path, char *chunk, size_t piece) {
    int zerr;
    if (r->failed && !r->too_large && !gzdirect(f))   /* a bound: say so at once */
        while (gzread(f, chunk, (unsigned)piece) > 0) {}
    const char *msg = gzerror(f, &zerr);
    if (zerr == Z_OK) return;
    size_t n = strlen(path);   /* zlib's message is "PATH: what" */
    if (msg && !strncmp(msg, path, n) && !strncmp(msg + n, ": ", 2)) msg += n + 2;
    r->failed = 0;   /* this sentence, not the JSON's */
    if (zerr == Z_ERRNO) fail(r, "cannot be read: %s", strerror(errno));
    else if (zerr == Z_BUF_ERROR) fail(r, "its gzip data ends early: the .gz file is cut short (copy or export it again)");
    else fail(r, "its gzip data is damaged (zlib: %s): the .gz file changed after it was written (copy or export it "
                 "again)", msg && *msg ? msg : "data error");
}

int trace_json_read_pieces(const char *path, size_t piece, TraceJson *tj, char *err, size_t cap) {
    char why[400];
    Reader r = begin(tj, why, sizeof why);
    gzFile f = file_exists(path) ? gzopen(path, "rb") : NULL;
    if (!f) {
        memset(tj, 0, sizeof *tj);
        snprintf(err, cap, "%s: no such file, or not a regular file (give a trace from torch.profiler's "
                           "export_chrome_trace, or the kit's results/trace_*.json)", path);
        return -1;
    }
    if (piece < 1) piece = 1;
    if (piece > 1 << 30) piece = 1 << 30;
    gzbuffer(f, 1 << 20);
    char *chunk = xmalloc(piece);
    int n;
    while (!r.failed && (n = gzread(f, chunk, (unsigned)piece)) > 0) feed(&r, chunk, (size_t)n);
    gzip_verdict(&r, f, path, chunk, piece);
    free(chunk);
    gzclose(f);
    int rc = finish(&r);
    if (rc) snprintf(err, cap, "%s: %s", path, why);
    return rc;
}

int trace_json_read(const char *path, TraceJson *tj, char *err, size_t cap) {
    return trace_json_read_pieces(path, 1 << 20, tj, err, cap);
}

void trace_json_free(TraceJson *tj) {
    trace_free(&tj->t);
    free(tj->steps);
    memset(tj, 0, sizeof *tj);
}
