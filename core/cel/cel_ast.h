/*
 * cel_ast.h - the checked CEL abstract syntax tree and the value representation, exposed for
 * code that walks compiled programs (the column-predicate lowering, the CLI).
 *
 * Shape (close to cel-go's AST): every node is a dra_cel_expr_t of one kind. Macros are already
 * expanded (has() is a SELECT with DRA_CEL_SEL_TEST_ONLY; all/exists/exists_one/map/filter,
 * the two-variable forms and cel.bind are COMPR nodes). Operators are CALL nodes with the
 * upstream operator names ("_==_", "_&&_", "_[_]", "@in", "!_", "-_", "_?_:_" ...) and a resolved
 * function id (dra_cel_fn_t). Constant sub-expressions are folded (quantity("40Gi") is a CONST
 * of kind DRA_CEL_QUANTITY). After checking, constant reads of a device attribute or capacity,
 * `device.attributes["d"].id` / `device.attributes["d"]["id"]` / `has(device.attributes["d"].id)`
 * (and the same on device.capacity), are DEVREF nodes carrying the fully qualified name "d/id".
 *
 * Ownership: every node, string and array lives in the arena of the program. Nodes are
 * immutable after compilation. Thread-safe to read.
 */
#ifndef DRA_CEL_AST_H
#define DRA_CEL_AST_H

#include <stdbool.h>
#include <stdint.h>

#include "base/quantity.h"

/* ---- values -------------------------------------------------------------------------------- */

typedef enum dra_cel_kind {
    DRA_CEL_NULL = 0,
    DRA_CEL_BOOL,
    DRA_CEL_INT,
    DRA_CEL_UINT,
    DRA_CEL_DOUBLE,
    DRA_CEL_STRING, /* UTF-8, s/len */
    DRA_CEL_BYTES,  /* s/len */
    DRA_CEL_LIST,
    DRA_CEL_MAP,
    DRA_CEL_TYPE,     /* a type value: s/len is the type name ("int", "list", "kubernetes.Quantity") */
    DRA_CEL_OPTIONAL, /* opt: NULL = optional.none() */
    DRA_CEL_QUANTITY, /* q */
    DRA_CEL_SEMVER,   /* sv */
    DRA_CEL_IP,       /* s: 16 address bytes (IPv4 in the first 4), sub: family 4 or 6 */
    DRA_CEL_CIDR,     /* s: 16 address bytes + prefix length byte, sub: family */
    DRA_CEL_URL,      /* s/len: the URL text (validated by url()) */
    DRA_CEL_ERROR,    /* s/len: the runtime error message; sub = 1 for cost-limit errors */
    /* views of the device, only produced during evaluation */
    DRA_CEL_DEVICE,  /* the `device` variable */
    DRA_CEL_DOMAINS, /* device.attributes (sub 0) or device.capacity (sub 1): domain -> map */
    DRA_CEL_DOMAIN,  /* one domain's map (sub 0 attributes, 1 capacity); s/len is the domain */
    DRA_CEL_KIND_COUNT
} dra_cel_kind_t;

struct dra_cel_list;
struct dra_cel_map;
struct dra_semver; /* base/semver.h */

typedef struct dra_cel_val {
    uint8_t kind; /* dra_cel_kind_t */
    uint8_t sub;
    uint16_t pad_;
    uint32_t len; /* string / bytes / type-name / error length */
    union {
        bool b;
        int64_t i;
        uint64_t u;
        double d;
        const char *s;
        const struct dra_cel_list *list;
        const struct dra_cel_map *map;
        const struct dra_cel_val *opt;
        const dra_quantity_t *q;
        const struct dra_semver *sv;
    } v;
} dra_cel_val_t;

typedef struct dra_cel_list {
    uint32_t n, cap; /* cap > 0: a builder owned by one comprehension accumulator */
    dra_cel_val_t *items;
} dra_cel_list_t;

typedef struct dra_cel_map {
    uint32_t n, cap;
    dra_cel_val_t *keys; /* keys are BOOL, INT, UINT or STRING */
    dra_cel_val_t *vals;
} dra_cel_map_t;

/* ---- types (checker) ----------------------------------------------------------------------- */

typedef enum dra_cel_tkind {
    DRA_CEL_T_DYN = 0, /* also the attribute value type ("any") */
    DRA_CEL_T_NULL,
    DRA_CEL_T_BOOL,
    DRA_CEL_T_INT,
    DRA_CEL_T_UINT,
    DRA_CEL_T_DOUBLE,
    DRA_CEL_T_STRING,
    DRA_CEL_T_BYTES,
    DRA_CEL_T_LIST,     /* p1 = element */
    DRA_CEL_T_MAP,      /* p1 = key, p2 = value */
    DRA_CEL_T_TYPE,     /* p1 = the type (or NULL: any type) */
    DRA_CEL_T_OPTIONAL, /* p1 = value type */
    DRA_CEL_T_QUANTITY,
    DRA_CEL_T_SEMVER,
    DRA_CEL_T_DEVICE,
    DRA_CEL_T_TIMESTAMP,
    DRA_CEL_T_DURATION,
    DRA_CEL_T_IP,
    DRA_CEL_T_CIDR,
    DRA_CEL_T_URL,
    DRA_CEL_T_ERROR,
    DRA_CEL_T_VAR /* checker-internal type variable (p1 = its binding or NULL); a checked
                   * program holds none: unbound variables become dyn */
} dra_cel_tkind_t;

typedef struct dra_cel_type {
    uint8_t k; /* dra_cel_tkind_t */
    const struct dra_cel_type *p1, *p2;
} dra_cel_type_t;

/* ---- expressions --------------------------------------------------------------------------- */

typedef enum dra_cel_ekind {
    DRA_CEL_E_CONST = 0,
    DRA_CEL_E_IDENT,
    DRA_CEL_E_SELECT,
    DRA_CEL_E_CALL,
    DRA_CEL_E_LIST,
    DRA_CEL_E_MAP,
    DRA_CEL_E_COMPR,
    DRA_CEL_E_DEVREF
} dra_cel_ekind_t;

/* SELECT flags */
#define DRA_CEL_SEL_TEST_ONLY 1u /* has(a.b) */
#define DRA_CEL_SEL_OPTIONAL 2u  /* a.?b */
/* CONST flags */
#define DRA_CEL_CONST_FOLDED 1u /* computed by drabench's constant folding of an operation that
                                 * cel-go evaluates at run time (not a constant to cel-go's planner:
                                 * only literals, conversions of constants and aggregate literals
                                 * of constants are) */
/* DEVREF modes (flags) */
#define DRA_CEL_DEV_GET 0u /* value, "no such key" error when missing */
#define DRA_CEL_DEV_HAS 1u /* presence test, bool */

typedef struct dra_cel_expr dra_cel_expr_t;

struct dra_cel_expr {
    uint8_t kind;  /* dra_cel_ekind_t */
    uint8_t flags; /* SELECT / DEVREF flags */
    uint16_t fn;   /* CALL: dra_cel_fn_t (see cel_int.h); 0 = unresolved */
    uint16_t height; /* height of the subtree (1 for a leaf), bounded by the parser */
    uint16_t pad_;
    uint32_t offset; /* byte offset in the source of the token that produced the node */
    const dra_cel_type_t *type; /* checked type, never NULL after checking */
    union {
        dra_cel_val_t c; /* CONST */
        struct {
            const char *name; /* NUL-terminated */
            int32_t slot;     /* >= 0: local (comprehension / bind) variable slot; -1: global */
            int32_t global;   /* index of the global variable (0 = device) */
        } ident;
        struct {
            dra_cel_expr_t *operand;
            const char *field;
        } sel;
        struct {
            const char *name;       /* function or operator name */
            dra_cel_expr_t *target; /* receiver of a member call, else NULL */
            dra_cel_expr_t **args;
            uint32_t nargs;
            const void *aux; /* precompiled constant regex (pcre2_code *) or NULL */
        } call;
        struct {
            dra_cel_expr_t **elems;
            uint8_t *optional; /* per element: [?x] */
            uint32_t n;
        } list;
        struct {
            dra_cel_expr_t **keys, **vals;
            uint8_t *optional; /* per entry: {?k: v} */
            uint32_t n;
        } map;
        struct {
            const char *iter_var, *iter_var2, *accu_var; /* iter_var2 NULL for one-variable forms */
            int32_t iter_slot, iter2_slot, accu_slot;
            dra_cel_expr_t *range, *init, *cond, *step, *result;
        } compr;
        struct {
            const char *domain, *id, *qname; /* qname = "domain/id" */
            uint32_t dlen, idlen, qlen;
            uint32_t ref; /* index in the program's reference list (dra_cel_prog_refs) */
            bool is_capacity;
        } dev;
    } u;
};

#endif /* DRA_CEL_AST_H */
