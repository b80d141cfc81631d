/*
 * ytrace.h - a textual trace of one ydoc parse, for tests and fuzzers that compare two ways of
 * parsing the same input (split vs sequential, fast path vs libyaml): every delivered document as
 * a positioned tree, every diagnostic in order, the return code.
 *
 * Header-only (static functions); include it from one translation unit. The returned string is
 * malloc'd (caller frees). Cost: linear in the trees and diagnostics.
 */
#ifndef DRA_YTRACE_H
#define DRA_YTRACE_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "manifest.h"
#include "ydoc.h"

typedef struct ytrace {
    dra_sbuf_t out;
    int stop_after; /* on_doc returns DRA_EINVAL at this document (1-based; 0 = never) */
    int ndocs;
} ytrace_t;

static void ytrace_node(dra_sbuf_t *o, const dra_ynode_t *n)
{
    dra_sbuf_printf(o, "%u:%u", n->line, n->column);
    if (n->type == DRA_YNODE_SCALAR) {
        dra_sbuf_printf(o, "%c%zu\"", n->style == DRA_YSTYLE_PLAIN ? 'p' : 'q', n->len);
        dra_sbuf_put(o, n->text, n->len);
        dra_sbuf_puts(o, "\" ");
        return;
    }
    dra_sbuf_puts(o, n->type == DRA_YNODE_MAP ? "{" : "[");
    for (uint32_t i = 0; i < n->n; i++) {
        if (n->type == DRA_YNODE_MAP)
            ytrace_node(o, n->keys[i]);
        ytrace_node(o, n->vals[i]);
    }
    dra_sbuf_puts(o, n->type == DRA_YNODE_MAP ? "} " : "] ");
}

static int ytrace_on_doc(const dra_ynode_t *root, void *ud)
{
    ytrace_t *t = ud;
    t->ndocs++;
    dra_sbuf_printf(&t->out, "doc %d: ", t->ndocs);
    ytrace_node(&t->out, root);
    dra_sbuf_puts(&t->out, "\n");
    return t->stop_after && t->ndocs == t->stop_after ? DRA_EINVAL : DRA_OK;
}

/* Parse text[0..len) as YAML with flags (DRA_YDOC_*) split at sp->at (sp may be NULL); returns
 * the trace. */
static char *ytrace_parse(const char *text, size_t len, unsigned flags, dra_ydoc_split_t *sp,
                          int stop_after)
{
    ytrace_t t = {.stop_after = stop_after};
    dra_arena_t a;
    dra_arena_init(&a, 16384); /* small inputs: keep chunk mmaps out of sanitizer runs */
    dra_diag_list_t errs;
    dra_diag_list_init(&errs);
    errs.max_keep = 1000;
    int rc = dra_ydoc_parse_split(text, len, "s.yaml", &a, flags, sp, ytrace_on_doc, &t, &errs);
    char buf[1024];
    for (size_t i = 0; i < errs.count; i++)
        dra_sbuf_printf(&t.out, "diag %s\n", dra_diag_format(&errs.items[i], buf, sizeof buf));
    dra_sbuf_printf(&t.out, "rc %d\n", rc);
    dra_diag_list_fini(&errs);
    dra_arena_fini(&a);
    dra_sbuf_put(&t.out, "", 1);
    return t.out.p;
}

#endif /* DRA_YTRACE_H */
