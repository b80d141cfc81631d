/*
 * cel_diff.c - the drabench side of the differential CEL check (harness/tests/cel_diff/).
 *
 * Reads JSON lines on stdin and answers one JSON line on stdout per expression:
 *   {"device": {...}}   sets the device every following expression sees (the device_context
 *                       form of dra-expressions.tsv, as `drabench cel --device` takes it);
 *   {"expr": "..."}     compiles `dyn(EXPR)` in the DRA environment (the dyn() wrapper lets a
 *                       non-bool expression pass the DRA result-type rule; EXPR itself is
 *                       checked as written) and evaluates it on the current device.
 * Answers: {"value": V} with V the canonical typed form below, {"compile": "message"} or
 * {"runtime": "message"}. The JavaScript side (cel_diff.mjs) produces the same form from
 * @bufbuild/cel and compares.
 *
 * Canonical value form: ["null"], ["bool", b], ["int", "decimal"], ["uint", "decimal"],
 * ["double", "nan" | 16 hex digits of the IEEE-754 bits], ["string", s] (["badutf8", hex] when
 * the bytes are not UTF-8), ["bytes", hex], ["list", [V...]], ["map", [[K, V]...]] (entry order
 * as produced; the comparer sorts), ["type", name], ["other", text] for the Kubernetes types.
 *
 * Exit status: 0 when every line was answered, 2 on a line that is not such an object.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cel.h"
#include "cel_int.h"
#include "model/model.h"

int dra_cel_device_from_json(dra_model_t *m, const json_t *o, const char *name,
                             const dra_device_t **out, dra_diag_t *diag);

static json_t *hexstr(const char *s, size_t n)
{
    static const char hx[] = "0123456789abcdef";
    char *b = malloc(2 * n + 1);
    if (!b)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        b[2 * i] = hx[(unsigned char)s[i] >> 4];
        b[2 * i + 1] = hx[(unsigned char)s[i] & 15];
    }
    b[2 * n] = 0;
    json_t *j = json_string(b);
    free(b);
    return j;
}

static json_t *canon(dra_arena_t *a, const dra_cel_val_t *v)
{
    char buf[64];
    switch (v->kind) {
    case DRA_CEL_NULL: return json_pack("[s]", "null");
    case DRA_CEL_BOOL: return json_pack("[s,b]", "bool", v->v.b);
    case DRA_CEL_INT:
        snprintf(buf, sizeof buf, "%lld", (long long)v->v.i);
        return json_pack("[s,s]", "int", buf);
    case DRA_CEL_UINT:
        snprintf(buf, sizeof buf, "%llu", (unsigned long long)v->v.u);
        return json_pack("[s,s]", "uint", buf);
    case DRA_CEL_DOUBLE: {
        if (v->v.d != v->v.d)
            return json_pack("[s,s]", "double", "nan");
        uint64_t bits;
        memcpy(&bits, &v->v.d, sizeof bits);
        snprintf(buf, sizeof buf, "%016llx", (unsigned long long)bits);
        return json_pack("[s,s]", "double", buf);
    }
    case DRA_CEL_STRING: {
        json_t *s = json_stringn(v->v.s, v->len);
        if (s)
            return json_pack("[s,o]", "string", s);
        return json_pack("[s,o]", "badutf8", hexstr(v->v.s, v->len));
    }
    case DRA_CEL_BYTES: return json_pack("[s,o]", "bytes", hexstr(v->v.s, v->len));
    case DRA_CEL_TYPE: return json_pack("[s,s%]", "type", v->v.s, (size_t)v->len);
    case DRA_CEL_LIST: {
        json_t *arr = json_array();
        for (uint32_t i = 0; arr && i < v->v.list->n; i++)
            json_array_append_new(arr, canon(a, &v->v.list->items[i]));
        return json_pack("[s,o]", "list", arr);
    }
    case DRA_CEL_MAP: {
        json_t *arr = json_array();
        for (uint32_t i = 0; arr && i < v->v.map->n; i++)
            json_array_append_new(arr, json_pack("[o,o]", canon(a, &v->v.map->keys[i]),
                                                  canon(a, &v->v.map->vals[i])));
        return json_pack("[s,o]", "map", arr);
    }
    default: {
        const char *t = dra_cel_val_str(a, v);
        return json_pack("[s,s]", "other", t ? t : "?");
    }
    }
}

static int emit(json_t *o)
{
    if (!o) {
        fputs("cel_diff: out of memory\n", stderr);
        exit(4);
    }
    char *s = json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII);
    json_decref(o);
    if (!s) {
        fputs("cel_diff: out of memory\n", stderr);
        exit(4);
    }
    puts(s);
    free(s);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        fputs("usage: cel_diff < LINES   (see the comment at the top of cel_diff.c)\n",
              argc == 2 && !strcmp(argv[1], "--help") ? stdout : stderr);
        return argc == 2 && !strcmp(argv[1], "--help") ? 0 : 2;
    }
    dra_model_t m;
    bool have_model = false;
    const dra_device_t *dev = NULL;
    dra_arena_t a;
    dra_arena_init(&a, 1 << 16);
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    unsigned long lineno = 0;
    int status = 0;
    while ((n = getline(&line, &cap, stdin)) > 0) {
        lineno++;
        json_error_t je;
        json_t *in = json_loadb(line, (size_t)n, 0, &je);
        const json_t *jd = in ? json_object_get(in, "device") : NULL;
        const json_t *jx = in ? json_object_get(in, "expr") : NULL;
        if (jd) {
            if (have_model)
                dra_model_fini(&m);
            dra_model_init(&m);
            have_model = true;
            dra_diag_t d;
            dra_diag_clear(&d);
            if (dra_cel_device_from_json(&m, jd, "device", &dev, &d) != DRA_OK) {
                fprintf(stderr, "cel_diff: stdin:%lu: bad device: %s\n", lineno, d.msg);
                status = 2;
                json_decref(in);
                break;
            }
        } else if (jx && json_is_string(jx) && dev) {
            size_t xl = json_string_length(jx);
            char *src = malloc(xl + 8);
            if (!src) {
                fputs("cel_diff: out of memory\n", stderr);
                return 4;
            }
            memcpy(src, "dyn(", 4);
            memcpy(src + 4, json_string_value(jx), xl);
            memcpy(src + 4 + xl, ")", 2);
            dra_arena_mark_t mk = dra_arena_mark(&a);
            dra_cel_prog_t *p = NULL;
            dra_diag_t d;
            dra_diag_clear(&d);
            int rc = dra_cel_compile(src, xl + 5, &a, &p, &d);
            if (rc != DRA_OK) {
                emit(json_pack("{s:s}", "compile", d.msg));
            } else {
                dra_cel_act_t act = {.model = &m, .dev = dev};
                dra_cel_val_t v;
                dra_diag_clear(&d);
                rc = dra_cel_eval_value(p, &act, &a, &v, &d);
                if (rc != DRA_OK)
                    emit(json_pack("{s:s}", "runtime", d.msg));
                else
                    emit(json_pack("{s:o}", "value", canon(&a, &v)));
            }
            dra_arena_reset_to(&a, mk);
            free(src);
        } else {
            fprintf(stderr, "cel_diff: stdin:%lu: %s\n", lineno,
                    !in ? je.text
                        : !dev && jx ? "an expression before any device"
                                     : "expected {\"device\": {...}} or {\"expr\": \"...\"}");
            status = 2;
            json_decref(in);
            break;
        }
        json_decref(in);
        fflush(stdout);
    }
    free(line);
    dra_arena_fini(&a);
    if (have_model)
        dra_model_fini(&m);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fputs("cel_diff: write error on stdout\n", stderr);
        return 4;
    }
    return status;
}
