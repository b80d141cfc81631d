/*
 * schema.h - the result file schema (drabench-result/v1) in one place: the field table of
 * schema.def, the walker that checks a document against it (strictly for a document the
 * runner wrote, leniently for a file a reader loads) and the setters the writer builds a
 * document with, so a key is spelled once.
 *
 * Writer: dra_rf_put* set obj[key of field] (the caller passes the object that stands for the
 * field's parent). They steal the json_t they are given; on out-of-memory the key is missing
 * and dra_result_check reports it. A value whose JSON type does not fit the field's type is a
 * bug of the caller: debug builds abort on it (assert), and the strict check fails it.
 *
 * Walker: dra_rs_walk_obj checks the keys of one object against the rows of one parent and
 * descends into objects, arrays and maps. Strict (DRA_RS_STRICT, dra_result_check): every W
 * and R field must be there, integers must be integers, only NUMN fields may be null, and a key
 * the table does not know is an error. Lenient (DRA_RS_LOAD, dra_rload_buf): only R fields are
 * required, null reads as absent, an integer may be written as a real, unknown keys are
 * ignored (additive changes keep v1); a present field of the wrong type, a string with a control
 * character, a name outside the name characters, a value outside its ENUM or RANGE is an error
 * in both. In LOAD mode the walker stores a field with a FRAME/MEMBER into the frame it is
 * given (strings are copied into w->arena; an absent string reads as "") and calls w->hook for
 * containers, so the loader can allocate element frames and build what the table cannot.
 *
 * Errors: the first one wins: w->rc (DRA_EVALIDATE, or DRA_ENOMEM), w->diag ("path: reason"
 * with w->file), w->err_path (the JSON path, for a line:col). Cost: O(size of the document x
 * fields of one parent). Not thread-safe per walker; the table is constant.
 */
#ifndef DRA_RESULT_SCHEMA_H
#define DRA_RESULT_SCHEMA_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/err.h"
#include "rload.h" /* DRA_RESULT_SCHEMA, the loader's structs (FRAME) */

/* Field ids: DRA_RF_<ID> of schema.def. */
typedef enum dra_rf {
    DRA_RF_ROOT = -1,
#define DRA_RF(id, par, key, type, elem, need, range, en, frame, member) DRA_RF_##id,
#include "schema.def"
#undef DRA_RF
    DRA_RF_COUNT
} dra_rf_t;

typedef enum {
    DRA_RT_NONE,
    DRA_RT_STR,
    DRA_RT_NAME,
    DRA_RT_HEX,
    DRA_RT_DATE,
    DRA_RT_STRS,
    DRA_RT_ID,
    DRA_RT_INT,
    DRA_RT_NUM,
    DRA_RT_NUMN,
    DRA_RT_BOOL,
    DRA_RT_OBJ,
    DRA_RT_ARR,
    DRA_RT_MAP,
    DRA_RT_PAIR,
    DRA_RT_NUMS,
} dra_rtype_t;

typedef enum { DRA_RN_O, DRA_RN_W, DRA_RN_R } dra_rneed_t;

/* Where the loader stores a field (schema.def FRAME). */
typedef enum {
    DRA_RFR_NONE,
    DRA_RFR_RES,
    DRA_RFR_REP,
    DRA_RFR_HIST,
    DRA_RFR_METRIC,
    DRA_RFR_FIRST,
} dra_rframe_t;

/* One element of invariants.first, as the loader reads it before formatting it. */
typedef struct dra_rs_first {
    int64_t repetition;
    const char *pod, *claim, *node, *message;
} dra_rs_first_t;

typedef struct dra_rfield {
    const char *key;
    int parent; /* dra_rf_t, DRA_RF_ROOT at the top */
    uint8_t type, elem, need, frame;
    int64_t lo, hi;     /* INT range */
    const char *values; /* "a|b|c" or NULL */
    uint16_t off;       /* offsetof MEMBER in the frame's struct */
    uint8_t csize;      /* sizeof MEMBER (4 or 8 for INT) */
} dra_rfield_t;

/* The table: dra_rfields[DRA_RF_COUNT], in schema.def order. */
extern const dra_rfield_t dra_rfields[];

/* Key of a field. */
static inline const char *dra_rf_key(dra_rf_t f)
{
    return dra_rfields[f].key;
}
/* Dotted path of a field ("run.method.warmup", "repetitions[].digest") into buf; returns buf. */
const char *dra_rf_path(dra_rf_t f, char *buf, size_t size);

/* ---- writer ---- */
/* obj[key] = v (stolen). */
void dra_rf_put(json_t *obj, dra_rf_t f, json_t *v);
/* A string as the readers take it (STR: no control characters): as it is when it is valid UTF-8
 * without control characters, else written by dra_esc_path (never dropped, never refused). */
void dra_rf_put_str(json_t *obj, dra_rf_t f, const char *s);
/* A path or command-line argument, always through dra_esc_path (lossless; escape.h). */
void dra_rf_put_path(json_t *obj, dra_rf_t f, const char *path);
void dra_rf_put_int(json_t *obj, dra_rf_t f, int64_t v);
/* A real, or null when x is not finite (jansson refuses NaN). */
void dra_rf_put_num(json_t *obj, dra_rf_t f, double x);
void dra_rf_put_bool(json_t *obj, dra_rf_t f, bool b);
/* "%016llx" of v. */
void dra_rf_put_hex(json_t *obj, dra_rf_t f, uint64_t v);
/* A new empty object or array set as obj[key]; returned borrowed (NULL on out-of-memory). */
json_t *dra_rf_put_obj(json_t *obj, dra_rf_t f);
json_t *dra_rf_put_arr(json_t *obj, dra_rf_t f);
/* obj[key] (borrowed) or NULL. */
json_t *dra_rf_get(const json_t *obj, dra_rf_t f);

/* ---- walker ---- */
enum { DRA_RS_STRICT = 1, DRA_RS_LOAD = 2 };
/* Hook events: a container (ARR or MAP) is present and of its type (BEGIN, before its
 * elements); one element passed its checks (ELEM: for OBJ elements the hook returns the frame
 * the element's fields go to, before they are walked; not called for PAIR and NUMS rows, which
 * the hook reads whole at END); an OBJ element was walked (ELEM_END);
 * the container is done (END). Also END for an OBJ field (v its object), so the loader can
 * read what the table does not describe. */
enum { DRA_RS_BEGIN, DRA_RS_ELEM, DRA_RS_ELEM_END, DRA_RS_END };

typedef struct dra_rs_walk dra_rs_walk_t;
typedef void *(*dra_rs_hook_fn)(dra_rs_walk_t *w, int event, dra_rf_t f, const json_t *v, size_t i,
                                const char *key, const char *path, void *frame);

struct dra_rs_walk {
    int mode;         /* DRA_RS_STRICT or DRA_RS_LOAD */
    const char *file; /* for diag; NULL for a document in memory */
    dra_diag_t *diag;
    dra_arena_t *arena;  /* LOAD: strings are copied here */
    dra_rs_hook_fn hook; /* LOAD: containers; may be NULL */
    void *ud;
    int rc;
    char err_path[256];
};

/* Walk the keys of obj that belong to parent (DRA_RF_ROOT or an OBJ field, or an ARR/MAP field
 * whose elements are objects). obj NULL (LOAD) only stores the defaults. path is obj's path
 * ("" at the top). frame: the struct of the parent's FRAME, or NULL. */
void dra_rs_walk_obj(dra_rs_walk_t *w, int parent, const json_t *obj, const char *path,
                     void *frame);
/* Record an error unless one is recorded; returns w->rc. */
int dra_rs_fail(dra_rs_walk_t *w, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The name rule (NAME): printable, [A-Za-z0-9._/:+=,@%-], at most 256 bytes. On failure records
 * the error for path and returns false. Text rule (STR) likewise. */
bool dra_rs_check_name(dra_rs_walk_t *w, const char *path, const char *s);

/* The longest claim-shape name: the longest name made from it, histogram
 * "<shape>/node_search/unsatisfiable", stays within a NAME's 256 bytes. */
#define DRA_RS_SHAPE_NAME_MAX 200
/* Whether s may name a claim shape of a run (a scenario's mix entry): it becomes the metric keys
 * latency.<s>.p50 / .p99 and the histogram names <s>/<phase>/<outcome>, which every reader
 * checks as NAMEs. NULL when it may, else the reason: empty, longer than DRA_RS_SHAPE_NAME_MAX,
 * a character outside NAME's or '/' (it separates a histogram name's parts), or a name the
 * schema reserves - "all" (the all-shapes histograms), "pod" (latency.pod.*, all shapes) and
 * "slice-update" (the device-update histogram). */
const char *dra_rs_shape_name_problem(const char *s);
bool dra_rs_check_text(dra_rs_walk_t *w, const char *path, const char *s);

#endif /* DRA_RESULT_SCHEMA_H */
