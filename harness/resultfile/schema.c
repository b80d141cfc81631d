/* schema.c - the result schema table, its walker and the writer's setters; see schema.h. */
#include "schema.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "escape.h"

/* ---- the table ------------------------------------------------------------------------------ */

typedef struct {
    char _;
} frame_none_t;
#define FT_NONE   frame_none_t
#define FT_RES    dra_rload_result_t
#define FT_REP    dra_rload_rep_t
#define FT_HIST   dra_rload_hist_t
#define FT_METRIC dra_rload_metric_t
#define FT_FIRST  dra_rs_first_t

#define LO_ANY    INT64_MIN
#define HI_ANY    INT64_MAX
#define LO_NONNEG 0
#define HI_NONNEG INT64_MAX
#define LO_POD    (-1)
#define HI_POD    INT64_MAX

const dra_rfield_t dra_rfields[] = {
#define DRA_RF(id, par, k, t, el, nd, rg, en, fr, m)                                               \
    [DRA_RF_##id] = {.key = k,                                                                     \
                     .parent = DRA_RF_##par,                                                       \
                     .type = DRA_RT_##t,                                                           \
                     .elem = DRA_RT_##el,                                                          \
                     .need = DRA_RN_##nd,                                                          \
                     .frame = DRA_RFR_##fr,                                                        \
                     .lo = LO_##rg,                                                                \
                     .hi = HI_##rg,                                                                \
                     .values = en,                                                                 \
                     .off = (uint16_t)offsetof(FT_##fr, m),                                        \
                     .csize = (uint8_t)sizeof(((FT_##fr *)0)->m)},
#include "schema.def"
#undef DRA_RF
};

/* The C type of a stored member fits its TYPE: 1 string, 2 integer, 3 double, 4 bool. */
#define CTYPE_(x)                                                                                  \
    _Generic((x), const char * : 1, int64_t : 2, int : 2, double : 3, bool : 4, default : 0)
#define WANT_STR  1
#define WANT_NAME 1
#define WANT_HEX  1
#define WANT_DATE 1
#define WANT_STRS 1
#define WANT_ID   1
#define WANT_INT  2
#define WANT_NUM  3
#define WANT_NUMN 3
#define WANT_BOOL 4
#define WANT_OBJ  (-1)
#define WANT_ARR  (-1)
#define WANT_MAP  (-1)
#define DRA_RF(id, par, k, t, el, nd, rg, en, fr, m)                                               \
    _Static_assert(DRA_RFR_##fr == DRA_RFR_NONE || CTYPE_(((FT_##fr *)0)->m) == WANT_##t,          \
                   "schema.def: the member of " #id " does not fit its type");
#include "schema.def"
#undef DRA_RF

const char *dra_rf_path(dra_rf_t f, char *buf, size_t size)
{
    int chain[16], n = 0;
    for (int x = (int)f; x != DRA_RF_ROOT && n < 16; x = dra_rfields[x].parent)
        chain[n++] = x;
    size_t pos = 0;
    buf[0] = '\0';
    for (int i = n - 1; i >= 0 && pos < size; i--) { /* outermost first */
        const dra_rfield_t *d = &dra_rfields[chain[i]];
        const char *sfx = i == 0                  ? ""
                          : d->type == DRA_RT_ARR ? "[]"
                          : d->type == DRA_RT_MAP ? ".*"
                                                  : "";
        int w = snprintf(buf + pos, size - pos, "%s%s%s", pos ? "." : "", d->key, sfx);
        pos += w > 0 ? (size_t)w : 0;
    }
    return buf;
}

/* ---- writer --------------------------------------------------------------------------------- */

#ifndef NDEBUG
static bool fits(int type, const json_t *v)
{
    switch (type) {
    case DRA_RT_STR:
    case DRA_RT_NAME:
    case DRA_RT_HEX:
    case DRA_RT_DATE:
        return json_is_string(v);
    case DRA_RT_STRS:
        return json_is_string(v) || json_is_array(v);
    case DRA_RT_ID:
        return json_is_string(v) || json_is_integer(v);
    case DRA_RT_INT:
        return json_is_integer(v);
    case DRA_RT_NUM:
        return json_is_number(v);
    case DRA_RT_NUMN:
        return json_is_number(v) || json_is_null(v);
    case DRA_RT_BOOL:
        return json_is_boolean(v);
    case DRA_RT_OBJ:
    case DRA_RT_MAP:
        return json_is_object(v);
    case DRA_RT_ARR:
        return json_is_array(v);
    }
    return false;
}
#endif

void dra_rf_put(json_t *obj, dra_rf_t f, json_t *v)
{
    if (!obj || !v) {
        json_decref(v);
        return;
    }
    assert(fits(dra_rfields[f].type, v) && "value does not fit the field's type (schema.def)");
    json_object_set_new(obj, dra_rfields[f].key, v);
}

void dra_rf_put_str(json_t *obj, dra_rf_t f, const char *s)
{
    s = s ? s : "";
    bool clean = true;
    for (size_t i = 0; s[i] && clean;) {
        unsigned cp;
        size_t n = dra_utf8_decode(s + i, &cp);
        clean = n && !dra_esc_is_control(cp);
        i += n ? n : 1;
    }
    dra_rf_put(obj, f, clean ? json_string(s) : dra_esc_path_json(s));
}

void dra_rf_put_path(json_t *obj, dra_rf_t f, const char *path)
{
    dra_rf_put(obj, f, dra_esc_path_json(path ? path : ""));
}

void dra_rf_put_int(json_t *obj, dra_rf_t f, int64_t v)
{
    /* within the field's range: a count that wrapped (an unsigned 2^64-1 written as -1) is a
     * bug of the writer; inputs are bounded before they get here */
    assert(v >= dra_rfields[f].lo && v <= dra_rfields[f].hi && "value outside the field's RANGE");
    dra_rf_put(obj, f, json_integer((json_int_t)v));
}

void dra_rf_put_num(json_t *obj, dra_rf_t f, double x)
{
    dra_rf_put(obj, f, isfinite(x) ? json_real(x) : json_null());
}

void dra_rf_put_bool(json_t *obj, dra_rf_t f, bool b)
{
    dra_rf_put(obj, f, json_boolean(b));
}

void dra_rf_put_hex(json_t *obj, dra_rf_t f, uint64_t v)
{
    char b[17];
    snprintf(b, sizeof b, "%016llx", (unsigned long long)v);
    dra_rf_put(obj, f, json_string(b));
}

json_t *dra_rf_put_obj(json_t *obj, dra_rf_t f)
{
    json_t *o = json_object();
    dra_rf_put(obj, f, o);
    return obj ? o : NULL;
}

json_t *dra_rf_put_arr(json_t *obj, dra_rf_t f)
{
    json_t *a = json_array();
    dra_rf_put(obj, f, a);
    return obj ? a : NULL;
}

json_t *dra_rf_get(const json_t *obj, dra_rf_t f)
{
    return obj ? json_object_get(obj, dra_rfields[f].key) : NULL;
}

/* ---- walker --------------------------------------------------------------------------------- */

int dra_rs_fail(dra_rs_walk_t *w, const char *path, const char *fmt, ...)
{
    if (w->rc != DRA_OK)
        return w->rc;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(w->err_path, sizeof w->err_path, "%s", path);
    w->rc = dra_diag_set(w->diag, DRA_EVALIDATE, w->file, 0, 0, "%s%s%s", path, *path ? ": " : "",
                         msg);
    return w->rc;
}

static int oom(dra_rs_walk_t *w)
{
    if (w->rc == DRA_OK)
        w->rc = dra_diag_set(w->diag, DRA_ENOMEM, w->file, 0, 0, "out of memory");
    return w->rc;
}

static const char *jtype_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "object";
    case JSON_ARRAY:
        return "array";
    case JSON_STRING:
        return "string";
    case JSON_INTEGER:
    case JSON_REAL:
        return "number";
    case JSON_TRUE:
    case JSON_FALSE:
        return "bool";
    case JSON_NULL:
        return "null";
    }
    return "value";
}

static const char *want_name(int type, int mode)
{
    switch (type) {
    case DRA_RT_STR:
    case DRA_RT_NAME:
    case DRA_RT_HEX:
    case DRA_RT_DATE:
        return "a string";
    case DRA_RT_STRS:
        return "a string or an array of names";
    case DRA_RT_ID:
        return "an integer or a string";
    case DRA_RT_INT:
        return mode == DRA_RS_STRICT ? "an integer" : "a number";
    case DRA_RT_NUM:
        return "a number";
    case DRA_RT_NUMN: /* readers take null as absent */
        return mode == DRA_RS_STRICT ? "a number or null" : "a number";
    case DRA_RT_BOOL:
        return "a bool";
    case DRA_RT_OBJ:
    case DRA_RT_MAP:
        return "an object";
    case DRA_RT_ARR:
        return "an array";
    case DRA_RT_NUMS:
        return "an array of numbers";
    }
    return "a value";
}

static int type_error(dra_rs_walk_t *w, const char *path, int type, const json_t *got)
{
    return dra_rs_fail(w, path, "expected %s, got %s", want_name(type, w->mode), jtype_name(got));
}

bool dra_rs_check_text(dra_rs_walk_t *w, const char *path, const char *s)
{
    for (size_t i = 0; s[i];) {
        unsigned char b = (unsigned char)s[i];
        if (b >= 0x20 && b < 0x7f) { /* printable ASCII: the common case */
            i++;
            continue;
        }
        unsigned cp;
        size_t n = dra_utf8_decode(s + i, &cp);
        if (n == 0 || dra_esc_is_control(cp)) {
            dra_rs_fail(w, path, "control character U+%04X at byte %zu is not allowed",
                        n ? cp : (unsigned char)s[i], i);
            return false;
        }
        i += n;
    }
    return true;
}

/* Names (metrics, histograms, hashes, digests, release, policy, commit, dates) are restricted to
 * NAME_CHARS, at most NAME_MAX_LEN bytes: they become file names, benchfmt keys, labels. */
#define NAME_CHARS   "A-Za-z0-9 and ._/:+=,@%-"
#define NAME_MAX_LEN 256

static bool name_char(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           (ch && strchr("._/:+=,@%-", ch) != NULL);
}

bool dra_rs_check_name(dra_rs_walk_t *w, const char *path, const char *s)
{
    if (!dra_rs_check_text(w, path, s))
        return false;
    size_t n = strlen(s);
    bool ok = n <= NAME_MAX_LEN;
    for (size_t i = 0; ok && i < n; i++)
        ok = name_char(s[i]);
    if (!ok)
        dra_rs_fail(w, path, "\"%s\" is not a valid name (characters %s, at most %d bytes)", s,
                    NAME_CHARS, NAME_MAX_LEN);
    return ok;
}

const char *dra_rs_shape_name_problem(const char *s)
{
    static const char *const reserved[] = {"all", "pod", "slice-update"};
    size_t n = strlen(s);
    if (n == 0)
        return "must not be empty";
    if (n > DRA_RS_SHAPE_NAME_MAX)
        return "must be at most 200 bytes (histogram names are made from it)";
    for (size_t i = 0; i < n; i++)
        if (!name_char(s[i]) || s[i] == '/')
            return "may hold only the characters A-Za-z0-9 and ._:+=,@%- (result files name "
                   "metrics and histograms after it)";
    for (size_t i = 0; i < sizeof reserved / sizeof *reserved; i++)
        if (strcmp(s, reserved[i]) == 0)
            return "is reserved by the result file (\"all\" and \"pod\" stand for all shapes, "
                   "\"slice-update\" for device updates)";
    return NULL;
}

/* s is one of values ("a|b|c")? */
static bool in_values(const char *values, const char *s)
{
    size_t n = strlen(s);
    for (const char *p = values; *p;) {
        const char *e = strchr(p, '|');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && memcmp(p, s, n) == 0)
            return true;
        if (!e)
            break;
        p = e + 1;
    }
    return false;
}

static void enum_error(dra_rs_walk_t *w, const char *path, const char *values, const char *s)
{
    char list[256];
    size_t pos = 0, nv = 1;
    for (const char *p = values; *p; p++)
        nv += *p == '|';
    list[0] = '\0';
    size_t k = 0;
    for (const char *p = values; pos < sizeof list; k++) {
        const char *e = strchr(p, '|');
        int len = (int)(e ? (size_t)(e - p) : strlen(p));
        pos += (size_t)snprintf(list + pos, sizeof list - pos, "%s\"%.*s\"",
                                k == 0        ? ""
                                : k + 1 == nv ? " or "
                                              : ", ",
                                len, p);
        if (!e)
            break;
        p = e + 1;
    }
    dra_rs_fail(w, path, "\"%s\" (expected %s)", s, list);
}

static bool is_hex16(const char *s)
{
    return strlen(s) == 16 && strspn(s, "0123456789abcdef") == 16;
}

/* Check one leaf value of type t; on success store it (LOAD, frame). */
static bool leaf(dra_rs_walk_t *w, const dra_rfield_t *f, int t, const json_t *v, const char *path,
                 void *frame)
{
    bool strict = w->mode == DRA_RS_STRICT;
    const char *s = NULL;
    char joined[256];
    switch (t) {
    case DRA_RT_STR:
    case DRA_RT_NAME:
    case DRA_RT_HEX:
    case DRA_RT_DATE:
        if (!json_is_string(v))
            return type_error(w, path, t, v), false;
        s = json_string_value(v);
        if (!(t == DRA_RT_STR ? dra_rs_check_text(w, path, s) : dra_rs_check_name(w, path, s)))
            return false;
        if (t == DRA_RT_HEX && !is_hex16(s))
            return dra_rs_fail(w, path, "\"%s\" is not 16 lower-case hex digits", s), false;
        if (t == DRA_RT_DATE && s[strspn(s, "0123456789-:.+TZ")] != '\0')
            return dra_rs_fail(w, path, "\"%s\" is not an RFC 3339 date", s), false;
        if (f && f->values && !in_values(f->values, s))
            return enum_error(w, path, f->values, s), false;
        if (f && f->need == DRA_RN_R && !*s)
            return dra_rs_fail(w, path, "missing or empty"), false;
        break;
    case DRA_RT_STRS:
        if (json_is_string(v)) {
            s = json_string_value(v);
            if (!dra_rs_check_text(w, path, s))
                return false;
            break;
        }
        if (!json_is_array(v))
            return type_error(w, path, t, v), false;
        size_t pos = 0;
        joined[0] = '\0';
        for (size_t i = 0; i < json_array_size(v); i++) {
            const json_t *x = json_array_get(v, i);
            if (!json_is_string(x))
                return type_error(w, path, t, v), false;
            if (!dra_rs_check_name(w, path, json_string_value(x)))
                return false;
            if (pos < sizeof joined - 1) {
                pos += (size_t)snprintf(joined + pos, sizeof joined - pos, "%s%s", i ? "," : "",
                                        json_string_value(x));
                if (pos >= sizeof joined)
                    pos = sizeof joined - 1;
            }
        }
        s = joined;
        break;
    case DRA_RT_ID:
        if (json_is_string(v)) {
            s = json_string_value(v);
            if (!dra_rs_check_text(w, path, s))
                return false;
            break;
        }
        if (!json_is_integer(v))
            return type_error(w, path, t, v), false;
        if (f && (json_integer_value(v) < f->lo || json_integer_value(v) > f->hi))
            return dra_rs_fail(w, path, "%lld is out of range (at least %lld)",
                               (long long)json_integer_value(v), (long long)f->lo),
                   false;
        if (json_integer_value(v) >= 0)
            snprintf(joined, sizeof joined, "%lld", (long long)json_integer_value(v));
        else
            joined[0] = '\0';
        s = joined;
        break;
    case DRA_RT_INT: {
        if (!(json_is_integer(v) || (!strict && json_is_real(v))))
            return type_error(w, path, t, v), false;
        int64_t x = json_is_integer(v) ? (int64_t)json_integer_value(v)
                                       : (int64_t)json_real_value(v);
        if (f && (x < f->lo || x > f->hi)) {
            if (f->hi == INT64_MAX)
                dra_rs_fail(w, path, "%" PRId64 " is out of range (at least %" PRId64 ")", x,
                            f->lo);
            else
                dra_rs_fail(w, path, "%" PRId64 " is out of range (%" PRId64 "..%" PRId64 ")", x,
                            f->lo, f->hi);
            return false;
        }
        if (frame && f && f->frame != DRA_RFR_NONE) {
            if (f->csize == sizeof(int64_t))
                *(int64_t *)((char *)frame + f->off) = x;
            else
                *(int *)((char *)frame + f->off) = x < INT32_MIN   ? INT32_MIN
                                                   : x > INT32_MAX ? INT32_MAX
                                                                   : (int)x;
        }
        return true;
    }
    case DRA_RT_NUM:
    case DRA_RT_NUMN:
        if (!(json_is_number(v) || (json_is_null(v) && (t == DRA_RT_NUMN || !strict))))
            return type_error(w, path, t, v), false;
        if (frame && f && f->frame != DRA_RFR_NONE)
            *(double *)((char *)frame + f->off) = json_is_number(v) ? json_number_value(v) : 0;
        return true;
    case DRA_RT_BOOL:
        if (!json_is_boolean(v))
            return type_error(w, path, t, v), false;
        if (frame && f && f->frame != DRA_RFR_NONE)
            *(bool *)((char *)frame + f->off) = json_is_true(v);
        return true;
    case DRA_RT_PAIR:
        if (!json_is_array(v) || json_array_size(v) != 2 ||
            !json_is_integer(json_array_get(v, 0)) || !json_is_integer(json_array_get(v, 1)) ||
            json_integer_value(json_array_get(v, 1)) < 0)
            return dra_rs_fail(w, path, "expected [value, count] with non-negative integers"),
                   false;
        return true;
    case DRA_RT_NUMS:
        if (!json_is_array(v))
            return type_error(w, path, DRA_RT_ARR, v), false;
        for (size_t i = 0; i < json_array_size(v); i++) {
            const json_t *x = json_array_get(v, i);
            if (!json_is_number(x) && !json_is_null(x))
                return type_error(w, path, t, v), false;
        }
        return true;
    default:
        return type_error(w, path, t, v), false;
    }
    /* strings */
    if (frame && f && f->frame != DRA_RFR_NONE) {
        char *p = dra_arena_strdup(w->arena, s);
        if (!p)
            return oom(w), false;
        *(const char **)((char *)frame + f->off) = p;
    }
    return true;
}

static bool is_string_type(int t)
{
    return t == DRA_RT_STR || t == DRA_RT_NAME || t == DRA_RT_HEX || t == DRA_RT_DATE ||
           t == DRA_RT_STRS || t == DRA_RT_ID;
}

static void *hook(dra_rs_walk_t *w, int ev, dra_rf_t f, const json_t *v, size_t i, const char *key,
                  const char *path, void *frame)
{
    return w->hook && w->rc == DRA_OK ? w->hook(w, ev, f, v, i, key, path, frame) : NULL;
}

/* buf = path.key (key alone at the top), truncated to size; without printf: it runs per field. */
static void join_key(char *buf, size_t size, const char *path, const char *key)
{
    size_t pl = strlen(path), kl = strlen(key), pos = 0;
    if (pl && pl < size - 1) {
        memcpy(buf, path, pl);
        buf[pl] = '.';
        pos = pl + 1;
    }
    if (kl > size - 1 - pos)
        kl = size - 1 - pos;
    memcpy(buf + pos, key, kl);
    buf[pos + kl] = '\0';
}

/* buf = path[i], truncated to size. */
static void join_index(char *buf, size_t size, const char *path, size_t i)
{
    char idx[24];
    int n = snprintf(idx, sizeof idx, "[%zu]", i);
    size_t pl = strlen(path), il = n > 0 ? (size_t)n : 0;
    if (pl > size - 1)
        pl = size - 1;
    memcpy(buf, path, pl);
    if (il > size - 1 - pl)
        il = size - 1 - pl;
    memcpy(buf + pl, idx, il);
    buf[pl + il] = '\0';
}

/* An element of a type without text that is certainly valid: no path is built for it (arrays
 * of buckets and samples are long). */
static bool quick_ok(int t, const json_t *v)
{
    switch (t) {
    case DRA_RT_PAIR:
        return json_is_array(v) && json_array_size(v) == 2 &&
               json_is_integer(json_array_get(v, 0)) && json_is_integer(json_array_get(v, 1)) &&
               json_integer_value(json_array_get(v, 1)) >= 0;
    case DRA_RT_NUMN:
        return json_is_number(v) || json_is_null(v);
    case DRA_RT_BOOL:
        return json_is_boolean(v);
    case DRA_RT_NUMS:
        if (!json_is_array(v))
            return false;
        for (size_t i = 0; i < json_array_size(v); i++)
            if (!json_is_number(json_array_get(v, i)) && !json_is_null(json_array_get(v, i)))
                return false;
        return true;
    }
    return false;
}

static void walk_elem(dra_rs_walk_t *w, dra_rf_t f, const json_t *el, size_t i, const char *key,
                      const char *path, void *frame)
{
    const dra_rfield_t *d = &dra_rfields[f];
    if (d->elem == DRA_RT_OBJ) {
        if (!json_is_object(el)) {
            type_error(w, path, DRA_RT_OBJ, el);
            return;
        }
        void *child = hook(w, DRA_RS_ELEM, f, el, i, key, path, frame);
        dra_rs_walk_obj(w, (int)f, el, path, child);
        hook(w, DRA_RS_ELEM_END, f, el, i, key, path, child);
        return;
    }
    if (leaf(w, NULL, d->elem, el, path, NULL))
        hook(w, DRA_RS_ELEM, f, el, i, key, path, frame);
}

static void walk_value(dra_rs_walk_t *w, dra_rf_t f, const json_t *v, const char *path, void *frame)
{
    const dra_rfield_t *d = &dra_rfields[f];
    char sub[320];
    switch (d->type) {
    case DRA_RT_OBJ:
        if (!json_is_object(v)) {
            type_error(w, path, d->type, v);
            return;
        }
        dra_rs_walk_obj(w, (int)f, v, path, frame);
        hook(w, DRA_RS_END, f, v, 0, NULL, path, frame);
        return;
    case DRA_RT_ARR: {
        if (!json_is_array(v)) {
            type_error(w, path, d->type, v);
            return;
        }
        hook(w, DRA_RS_BEGIN, f, v, 0, NULL, path, frame);
        for (size_t i = 0; i < json_array_size(v) && w->rc == DRA_OK; i++) {
            const json_t *el = json_array_get(v, i);
            if (quick_ok(d->elem, el)) { /* rows of numbers are read whole at END */
                if (d->elem != DRA_RT_PAIR && d->elem != DRA_RT_NUMS)
                    hook(w, DRA_RS_ELEM, f, el, i, NULL, path, frame);
                continue;
            }
            join_index(sub, sizeof sub, path, i);
            walk_elem(w, f, el, i, NULL, sub, frame);
        }
        hook(w, DRA_RS_END, f, v, 0, NULL, path, frame);
        return;
    }
    case DRA_RT_MAP: {
        if (!json_is_object(v)) {
            type_error(w, path, d->type, v);
            return;
        }
        hook(w, DRA_RS_BEGIN, f, v, 0, NULL, path, frame);
        const char *k;
        const json_t *x;
        size_t i = 0;
        json_object_foreach((json_t *)v, k, x)
        {
            if (w->rc != DRA_OK || !dra_rs_check_name(w, path, k))
                return;
            if (quick_ok(d->elem, x)) {
                hook(w, DRA_RS_ELEM, f, x, i++, k, path, frame);
                continue;
            }
            join_key(sub, sizeof sub, path, k);
            walk_elem(w, f, x, i++, k, sub, frame);
        }
        hook(w, DRA_RS_END, f, v, 0, NULL, path, frame);
        return;
    }
    default:
        leaf(w, d, d->type, v, path, frame);
    }
}

static void unknown_keys(dra_rs_walk_t *w, int parent, const json_t *obj, const char *path)
{
    const char *k;
    const json_t *x;
    json_object_foreach((json_t *)obj, k, x)
    {
        bool known = false;
        for (int f = 0; f < DRA_RF_COUNT && !known; f++)
            known = dra_rfields[f].parent == parent && strcmp(dra_rfields[f].key, k) == 0;
        if (!known) {
            char sub[320];
            snprintf(sub, sizeof sub, "%s%s%s", path, *path ? "." : "", k);
            dra_rs_fail(w, sub, "unknown field (not in the result schema)");
            return;
        }
    }
}

void dra_rs_walk_obj(dra_rs_walk_t *w, int parent, const json_t *obj, const char *path, void *frame)
{
    if (obj && w->mode == DRA_RS_STRICT)
        unknown_keys(w, parent, obj, path);
    char sub[320];
    for (int f = 0; f < DRA_RF_COUNT && w->rc == DRA_OK; f++) {
        const dra_rfield_t *d = &dra_rfields[f];
        if (d->parent != parent)
            continue;
        join_key(sub, sizeof sub, path, d->key);
        const json_t *v = obj ? json_object_get(obj, d->key) : NULL;
        if (v && json_is_null(v) && w->mode == DRA_RS_LOAD)
            v = NULL;
        if (v) {
            walk_value(w, (dra_rf_t)f, v, sub, frame);
            continue;
        }
        if (obj && (d->need == DRA_RN_R || (d->need == DRA_RN_W && w->mode == DRA_RS_STRICT))) {
            dra_rs_fail(w, sub,
                        d->need == DRA_RN_R && is_string_type(d->type) ? "missing or empty"
                                                                       : "missing");
            return;
        }
        /* absent: strings read as "", nested objects' strings too */
        if (frame && d->frame != DRA_RFR_NONE && is_string_type(d->type))
            *(const char **)((char *)frame + d->off) = "";
        if (d->type == DRA_RT_OBJ)
            dra_rs_walk_obj(w, f, NULL, sub, frame);
    }
}
