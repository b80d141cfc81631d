/*
 * ydoc.h - a small positioned document tree for YAML and JSON input.
 *
 * Every loader of drabench (manifests, scenarios, conformance cases, result files) reads its input
 * through this module: YAML with libyaml's event API (never yaml_parser_load, which costs ~100x the
 * memory, STYLE §4.1), JSON with jansson (json_loadb, JSON_REJECT_DUPLICATES), both turned into the
 * same tree of dra_ynode_t: scalars (text, length, plain or quoted style), maps (scalar keys and
 * values, in document order) and sequences. Nodes carry 1-based line and column (0 when unknown);
 * for JSON, whose parser keeps no positions, a second linear scan of the text records them.
 *
 * Guards (bad input never crashes, hangs or allocates without bound):
 *  - nesting depth > DRA_YDOC_MAX_DEPTH (64) is an error (libyaml 0.2.5 has no limit and is
 *    quadratic in depth; we stop after 64 levels);
 *  - a scalar longer than DRA_YDOC_MAX_SCALAR (1 MiB) and more than DRA_YDOC_MAX_NODES nodes in one
 *    document are errors;
 *  - aliases (`*name`) are rejected ("billion laughs"); anchors alone are accepted and ignored;
 *  - duplicate map keys are errors naming both positions; complex (non-scalar) keys are errors;
 *  - libyaml's own errors (syntax, invalid UTF-8) are reported with their position.
 * Every error goes to the caller's dra_diag_list_t as file:line:col: message. A syntax or limit
 * error ends the parse; a duplicate key only drops its document (the next documents are still
 * parsed, so several such errors are all reported).
 *
 * Typing: libyaml does no tag resolution; the helpers below type plain scalars with the YAML 1.2
 * core schema (null: `~ null Null NULL` or empty; bool: `true True TRUE false False FALSE`; int:
 * decimal, 0o octal, 0x hex; float: only when asked). A quoted scalar is always a string, so
 * `"1"` is not an int. A `!!str` tag makes a plain scalar a string too.
 *
 * Ownership: nodes and their text live in the caller's arena (NUL-terminated text). With
 * DRA_YDOC_RESET_PER_DOC, the arena is reset after each on_doc call, so a document's tree is only
 * valid inside its callback and memory stays proportional to the largest document. Scratch stacks
 * are malloc'd and freed before return. Cost: O(input) time (duplicate-key checks sort maps larger
 * than 16 keys); memory ~48 bytes per node plus text. Thread-safety: none needed; no global state
 * (jansson's hash seed is initialised on first use; call json_object_seed() before threads).
 *
 * Fast path (yfast.h, on unless DRA_YDOC_NO_FAST or split.no_fast): documents in the plain
 * block subset that kubectl, client-go and drabench's writer produce are read without libyaml
 * (`drabench validate` of 50,000 devices: ~1.5 s -> ~0.5 s; for input of DRA_YDOC_SPLIT_MIN
 * or more read with SPLIT_AUTO and RESET_PER_DOC, a second thread reads while the caller's runs
 * on_doc, memory bounded by a ring of 4 arenas of ~1 MB); from the first document outside the
 * subset, libyaml reads the rest. Input with a byte libyaml's reader rejects (it decodes 16 KB
 * ahead, so such an error comes before earlier documents) or with a directive goes to libyaml
 * whole. Trees, positions, diagnostics
 * and return codes are exactly libyaml's (test_ydoc_fast, yaml_fuzzer).
 *
 * Split parse (DRA_YDOC_PARALLEL, dra_ydoc_parse_split), for what libyaml reads: YAML input of
 * DRA_YDOC_SPLIT_MIN bytes or more is cut at a `---` line after its middle; a second thread
 * parses the part after the cut into trees in its own arena while the caller's thread parses the
 * whole input as usual. When the caller's parser reaches that `---` as a document start, the
 * second part's documents and diagnostics are handed to on_doc / errs in document order and the
 * parse ends; otherwise (the `---` was not a document start, an error or on_doc stopped first,
 * the input has directives, lone CR line breaks before the cut or anything libyaml's reader would
 * reject after it) the second result is discarded. So documents, positions, diagnostics, their
 * order and the return code are always those of the sequential parse; on_doc is always called on
 * the caller's thread.
 * Memory: the second part's trees are held until handed over (~48 bytes per node plus text; a
 * 30 MB ResourceSlice file peaks at ~170 MB instead of ~75 MB).
 */
#ifndef DRA_YDOC_H
#define DRA_YDOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/err.h"

#define DRA_YDOC_MAX_DEPTH 64
#define DRA_YDOC_MAX_SCALAR ((size_t)1 << 20)
#define DRA_YDOC_MAX_NODES ((size_t)1 << 25)

typedef enum dra_ynode_type {
    DRA_YNODE_SCALAR = 1,
    DRA_YNODE_MAP,
    DRA_YNODE_SEQ
} dra_ynode_type_t;

typedef enum dra_ystyle {
    DRA_YSTYLE_PLAIN = 0, /* plain scalar: typed by the core schema */
    DRA_YSTYLE_QUOTED,    /* single/double quoted, literal or folded block, !!str: a string */
} dra_ystyle_t;

typedef struct dra_ynode {
    uint8_t type;  /* dra_ynode_type_t */
    uint8_t style; /* dra_ystyle_t (scalars) */
    uint32_t line, column; /* 1-based, 0 = unknown */
    uint32_t n;            /* map: number of pairs; seq: number of items; scalar: 0 */
    size_t len;            /* scalar: text length (text may contain NUL only from JSON "\u0000") */
    const char *text;      /* scalar: NUL-terminated text; NULL for maps and sequences */
    struct dra_ynode **keys; /* map: n scalar keys */
    struct dra_ynode **vals; /* map: n values; seq: n items */
} dra_ynode_t;

/* Called once per non-empty document. Return DRA_OK to continue, anything else stops the parse
 * and becomes the return value of dra_ydoc_parse. */
typedef int (*dra_ydoc_fn)(const dra_ynode_t *root, void *ud);

enum {
    DRA_YDOC_RESET_PER_DOC = 1u << 0, /* reset the arena to its entry mark after each document */
    DRA_YDOC_JSON = 1u << 1,          /* input is JSON (jansson) */
    DRA_YDOC_PARALLEL = 1u << 2,      /* YAML: split parse on 2 threads when len >= SPLIT_MIN */
    DRA_YDOC_NO_FAST = 1u << 3,       /* YAML: libyaml for every document (no yfast.h path) */
};

/* Smallest input split by DRA_YDOC_PARALLEL / DRA_YDOC_SPLIT_AUTO. */
#define DRA_YDOC_SPLIT_MIN ((size_t)2 << 20)
#define DRA_YDOC_SPLIT_AUTO SIZE_MAX

typedef struct dra_ydoc_split {
    size_t at;     /* in: byte offset of the second part: 0 = no split, DRA_YDOC_SPLIT_AUTO =
                      dra_ydoc_find_split, else any offset (used only when it starts a `---`
                      line; the result does not depend on it) */
    bool used;     /* out: the second part's result was used */
    size_t ndocs2; /* out: documents delivered from the second part */
    bool no_fast;     /* in: libyaml for every document, as DRA_YDOC_NO_FAST */
    bool pipeline;    /* in: run the fast path as a 2-thread pipeline whatever the size (with
                         DRA_YDOC_RESET_PER_DOC only; automatic for SPLIT_AUTO from SPLIT_MIN) */
    size_t fast_docs; /* out: documents (empty ones too) read by the fast path */
} dra_ydoc_split_t;

/* Parse YAML (multi-document) from buf[0..len); file names positions (not read). Calls on_doc for
 * every document whose root is not null. Returns DRA_OK, DRA_EPARSE / DRA_ELIMIT (errors in errs),
 * DRA_ENOMEM, or on_doc's non-OK return. errs may be NULL. */
DRA_NODISCARD int dra_ydoc_parse(const char *buf, size_t len, const char *file, dra_arena_t *a,
                                 dra_ydoc_fn on_doc, void *ud, dra_diag_list_t *errs);
/* The same with flags (DRA_YDOC_*). */
DRA_NODISCARD int dra_ydoc_parse_ex(const char *buf, size_t len, const char *file, dra_arena_t *a,
                                    unsigned flags, dra_ydoc_fn on_doc, void *ud,
                                    dra_diag_list_t *errs);
/* JSON (one document, jansson with JSON_REJECT_DUPLICATES); same tree and contract. */
DRA_NODISCARD int dra_ydoc_parse_json(const char *buf, size_t len, const char *file, dra_arena_t *a,
                                      unsigned flags, dra_ydoc_fn on_doc, void *ud,
                                      dra_diag_list_t *errs);
/* JSON when the first non-space character is `{` or `[`, else YAML. */
DRA_NODISCARD int dra_ydoc_parse_auto(const char *buf, size_t len, const char *file, dra_arena_t *a,
                                      unsigned flags, dra_ydoc_fn on_doc, void *ud,
                                      dra_diag_list_t *errs);
/* By file name: *.json -> JSON, anything else -> auto. */
DRA_NODISCARD int dra_ydoc_parse_file_buf(const char *buf, size_t len, const char *file,
                                          dra_arena_t *a, unsigned flags, dra_ydoc_fn on_doc,
                                          void *ud, dra_diag_list_t *errs);

/* As dra_ydoc_parse_file_buf (JSON by name or leading `{` / `[`), with YAML split as sp says
 * (sp may be NULL: no split). */
DRA_NODISCARD int dra_ydoc_parse_split(const char *buf, size_t len, const char *file,
                                       dra_arena_t *a, unsigned flags, dra_ydoc_split_t *sp,
                                       dra_ydoc_fn on_doc, void *ud, dra_diag_list_t *errs);
/* Where DRA_YDOC_PARALLEL cuts buf: the first `---` line (exactly `---` or starting with `--- `)
 * after its middle (measured: the first thread reaches it about when the second is done); 0 when
 * len < DRA_YDOC_SPLIT_MIN, the input looks like JSON, starts with a directive, or has no such
 * line. */
size_t dra_ydoc_find_split(const char *buf, size_t len);

/* ---- accessors -------------------------------------------------------------------------- */

/* Value of key in a map (NULL when n is not a map or the key is absent). */
const dra_ynode_t *dra_ynode_get(const dra_ynode_t *n, const char *key);
/* True for a null scalar (plain ~, null, Null, NULL or empty) and for n == NULL. */
bool dra_ynode_is_null(const dra_ynode_t *n);
bool dra_ynode_is_map(const dra_ynode_t *n);
bool dra_ynode_is_seq(const dra_ynode_t *n);
bool dra_ynode_is_scalar(const dra_ynode_t *n);

typedef enum dra_yscalar_kind {
    DRA_YSCALAR_NULL = 0,
    DRA_YSCALAR_BOOL,
    DRA_YSCALAR_INT,
    DRA_YSCALAR_FLOAT,
    DRA_YSCALAR_STRING
} dra_yscalar_kind_t;

/* Core-schema type of a scalar (quoted => STRING). Non-scalars return STRING; never fails. */
dra_yscalar_kind_t dra_ynode_scalar_kind(const dra_ynode_t *n);
/* Name of the node's type for messages: "map", "sequence", "null", "bool", "int", "float",
 * "string". */
const char *dra_ynode_kind_name(const dra_ynode_t *n);

/* Typed reads. On mismatch they return DRA_ETYPE and fill d (may be NULL) with
 * "file:line:col: <path>: expected <type>, got <kind> ..." (path may be NULL). */
DRA_NODISCARD int dra_ynode_bool(const dra_ynode_t *n, const char *file, const char *path,
                                 bool *out, dra_diag_t *d);
DRA_NODISCARD int dra_ynode_int64(const dra_ynode_t *n, const char *file, const char *path,
                                  int64_t *out, dra_diag_t *d);
DRA_NODISCARD int dra_ynode_double(const dra_ynode_t *n, const char *file, const char *path,
                                   double *out, dra_diag_t *d);
/* Strings: a quoted scalar, or a plain scalar typed STRING. With `lenient`, any non-null scalar
 * (so plain 4 or true also read as text, as Kubernetes does for quantities). */
DRA_NODISCARD int dra_ynode_string(const dra_ynode_t *n, const char *file, const char *path,
                                   bool lenient, const char **out, dra_diag_t *d);

/* The node at a field path such as "spec.devices[2].attributes.gpu.example.com/model" below n,
 * or the deepest node the path reaches (n itself when its first step fails). Keys may contain
 * dots: at each map the longest key that matches the rest of the path wins. For messages:
 * O(depth x keys per map). */
const dra_ynode_t *dra_ynode_at_path(const dra_ynode_t *n, const char *path);

/* Parse a core-schema integer from text (decimal, 0o, 0x; optional sign); false on junk or
 * overflow. */
bool dra_yparse_int64(const char *s, size_t len, int64_t *out);

#endif /* DRA_YDOC_H */
