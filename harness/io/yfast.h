/*
 * yfast.h - a fast reader for the plain block-YAML subset that Kubernetes tools write.
 *
 * libyaml's scanner runs at ~20 MB/s and spends most of it in per-character reader checks and a
 * malloc per token; a 30 MB file of 50,000 ResourceSlice devices took ~1.5 s (0.45 s with this
 * module, `drabench validate`). Nearly every manifest kubectl, client-go, Helm and drabench's
 * own generator write uses a small subset of YAML: block mappings and sequences (including the
 * indentless `key:\n- item` form), single-line plain and quoted scalars, comments, flow
 * collections that end on their line (the writer's JSON `parameters: {"a": [1, "b"]}` too),
 * `---` between documents, printable ASCII and '\n' line breaks. This module reads exactly that
 * subset, one document at a time, into the dra_ynode_t trees of ydoc.h: the same nodes, text,
 * styles and positions libyaml's events give (ydoc's differential test and yaml_fuzzer check
 * this).
 *
 * It never reports an error. Anything outside the subset or anything libyaml would reject or
 * ydoc would report (a tab, a byte outside printable ASCII, '\r', anchors, aliases, tags, block
 * scalars, multi-line scalars, complex keys, directives, `...`, duplicate keys, the depth, node
 * and scalar limits of ydoc.h) *declines* the document: the caller then hands the input from the
 * start of that document to libyaml, which gives the positioned diagnostics. A later document
 * starts with `---` in column 0 after documents libyaml would have read without a directive or
 * an error, so libyaml started there is in the state of a sequential parse.
 *
 * Ownership: nodes and their text go to the caller's arena (a declined document may leave
 * partial nodes behind: reset the arena to a mark taken before the call). The scratch stack is
 * malloc'd, reused across documents and freed by dra_yfast_fini. Cost: one pass over the bytes
 * of each document, ~48 bytes per node plus text; no global state.
 */
#ifndef DRA_YFAST_H
#define DRA_YFAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "ydoc.h"

typedef struct dra_yfast {
    const char *buf;
    size_t len;
    dra_arena_t *arena;
    size_t pos;     /* offset of the next document's first line (a line start) */
    uint32_t lines; /* '\n' before pos */
    int ndocs;      /* documents read */
    bool pure;      /* set by the caller when buf holds only printable ASCII and '\n' (then
                       lines are not checked byte by byte) */
    /* private */
    dra_ynode_t **stk;
    size_t top, cap;
    size_t nnodes;
    const char *ls, *le, *p; /* current line start, end ('\n' or buf end), cursor */
    uint32_t lno;           /* 0-based line of ls */
    int at_end;             /* no content line left in this document */
} dra_yfast_t;

enum {
    DRA_YFAST_DECLINED = -1, /* not in the subset: pos/lines still name the document's start */
    DRA_YFAST_END = 0,       /* no document left (only blanks and comments) */
    DRA_YFAST_DOC = 1,       /* one document read; *root is NULL for an empty document */
};

void dra_yfast_init(dra_yfast_t *f, const char *buf, size_t len, dra_arena_t *a);
void dra_yfast_fini(dra_yfast_t *f);
/* Read the next document; see the enum. Out of memory also declines. */
DRA_NODISCARD int dra_yfast_next(dra_yfast_t *f, dra_ynode_t **root);

#endif /* DRA_YFAST_H */
