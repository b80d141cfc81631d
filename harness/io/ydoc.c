/*
 * ydoc.c - YAML (libyaml events) and JSON (jansson) to a positioned node tree. See ydoc.h.
 *
 * The YAML builder keeps one frame per open collection (at most DRA_YDOC_MAX_DEPTH), each with a
 * malloc'd child vector that is reused across documents; a closed collection's children are copied
 * into the arena once, so the arena only ever holds final nodes.
 */
#include "ydoc.h"

#include "yfast.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

typedef struct yframe {
    dra_ynode_t *node;
    dra_ynode_t **kids;
    size_t n, cap;
} yframe_t;

typedef struct ysecond ysecond_t;

typedef struct ybuild {
    const char *buf;
    size_t len;
    const char *file;
    uint32_t line0; /* lines before buf (a second part starts on a line of its own) */
    size_t off0;    /* bytes before buf */
    ysecond_t *sec; /* the second part's thread (main thread only), or NULL */
    atomic_int *stop; /* second thread: set when its result is no longer wanted */
    dra_arena_t *arena;
    dra_diag_list_t *errs;
    unsigned flags;
    dra_ydoc_fn on_doc;
    void *ud;
    yframe_t frames[DRA_YDOC_MAX_DEPTH + 1];
    int depth;
    dra_ynode_t *root;
    size_t nnodes;
    int doc_bad;   /* the current document had an error; do not deliver it */
    int nerrors;
    int rc_limit;  /* DRA_ELIMIT when a limit stopped the parse */
    size_t ndocs2; /* documents handed over from the second part */
    int handed;    /* the second part's result replaced the rest of this parse */
} ybuild_t;

/* 1-based line of a libyaml mark (0-based) in the whole input. */
static uint32_t mline(const ybuild_t *b, const yaml_mark_t *m)
{
    return (uint32_t)m->line + 1 + b->line0;
}

static void yerr(ybuild_t *b, int code, uint32_t line, uint32_t col, const char *fmt, ...)
    DRA_PRINTF(5, 6);

static void yerr(ybuild_t *b, int code, uint32_t line, uint32_t col, const char *fmt, ...)
{
    b->nerrors++;
    b->doc_bad = 1;
    if (!b->errs)
        return;
    dra_diag_t d;
    va_list ap;
    va_start(ap, fmt);
    dra_diag_setv(&d, code, b->file, line, col, fmt, ap);
    va_end(ap);
    (void)dra_diag_list_push(b->errs, &d);
}

/* 1-based line and column of a byte offset (for reader errors, which carry only the offset). */
static void offset_pos(const char *buf, size_t len, size_t off, uint32_t *line, uint32_t *col)
{
    uint32_t l = 1, c = 1;
    if (off > len)
        off = len;
    for (size_t i = 0; i < off; i++) {
        if (buf[i] == '\n') {
            l++;
            c = 1;
        } else if (((unsigned char)buf[i] & 0xC0) != 0x80) {
            c++;
        }
    }
    *line = l;
    *col = c;
}

/* A node, followed in the same arena block by `extra` bytes (a scalar's text): one bump per
 * node keeps the arena out of the profile. */
static dra_ynode_t *new_node(ybuild_t *b, uint8_t type, const yaml_mark_t *mark, size_t extra)
{
    if (++b->nnodes > DRA_YDOC_MAX_NODES) {
        yerr(b, DRA_ELIMIT, mline(b, mark), (uint32_t)mark->column + 1,
             "more than %zu nodes in one document", (size_t)DRA_YDOC_MAX_NODES);
        b->rc_limit = DRA_ELIMIT;
        return NULL;
    }
    dra_ynode_t *n = dra_arena_alloc(b->arena, sizeof *n + extra, _Alignof(dra_ynode_t));
    if (!n)
        return NULL;
    *n = (dra_ynode_t){.type = type,
                       .line = mline(b, mark),
                       .column = (uint32_t)mark->column + 1};
    return n;
}

static int frame_push_kid(yframe_t *f, dra_ynode_t *kid)
{
    if (f->n == f->cap) {
        size_t nc = f->cap ? f->cap * 2 : 16;
        dra_ynode_t **k = realloc(f->kids, nc * sizeof *k);
        if (!k)
            return DRA_ENOMEM;
        f->kids = k;
        f->cap = nc;
    }
    f->kids[f->n++] = kid;
    return DRA_OK;
}

/* Attach a finished node to the open collection (or make it the root). */
static int attach(ybuild_t *b, dra_ynode_t *n)
{
    if (b->depth == 0) {
        b->root = n;
        return DRA_OK;
    }
    yframe_t *f = &b->frames[b->depth - 1];
    if (f->node->type == DRA_YNODE_MAP && (f->n % 2) == 0 && n->type != DRA_YNODE_SCALAR)
        yerr(b, DRA_EPARSE, n->line, n->column, "complex (non-scalar) mapping keys are not supported");
    return frame_push_kid(f, n);
}

static int cmp_key(const void *pa, const void *pb)
{
    const dra_ynode_t *a = *(const dra_ynode_t *const *)pa, *b = *(const dra_ynode_t *const *)pb;
    if (a->len != b->len)
        return a->len < b->len ? -1 : 1;
    int c = memcmp(a->text, b->text, a->len);
    if (c)
        return c;
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    return a->column < b->column ? -1 : (a->column > b->column);
}

static void dup_error(ybuild_t *b, const dra_ynode_t *first, const dra_ynode_t *again)
{
    yerr(b, DRA_EPARSE, again->line, again->column,
         "duplicate mapping key \"%.*s\" (first at line %u, column %u)",
         (int)DRA_MIN(again->len, (size_t)200), again->text, first->line, first->column);
}

static int check_dups(ybuild_t *b, dra_ynode_t *map)
{
    uint32_t n = map->n;
    if (n < 2)
        return DRA_OK;
    for (uint32_t i = 0; i < n; i++)
        if (map->keys[i]->type != DRA_YNODE_SCALAR)
            return DRA_OK; /* already reported as a complex key */
    if (n <= 16) {
        for (uint32_t i = 1; i < n; i++)
            for (uint32_t j = 0; j < i; j++) {
                const dra_ynode_t *x = map->keys[i], *y = map->keys[j];
                if (x->type == DRA_YNODE_SCALAR && y->type == DRA_YNODE_SCALAR &&
                    x->len == y->len && memcmp(x->text, y->text, x->len) == 0) {
                    dup_error(b, y, x);
                    break;
                }
            }
        return DRA_OK;
    }
    dra_ynode_t **s = malloc(n * sizeof *s);
    if (!s)
        return DRA_ENOMEM;
    memcpy(s, map->keys, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_key);
    uint32_t r = 0; /* start of the current run of equal keys (first in document order) */
    for (uint32_t i = 1; i < n; i++) {
        if (s[i]->len == s[r]->len && memcmp(s[i]->text, s[r]->text, s[i]->len) == 0)
            dup_error(b, s[r], s[i]);
        else
            r = i;
    }
    free(s);
    return DRA_OK;
}

/* Close the innermost collection: copy children to the arena, check keys, attach. */
static int close_frame(ybuild_t *b)
{
    yframe_t *f = &b->frames[--b->depth];
    dra_ynode_t *n = f->node;
    size_t nk = f->n;
    if (n->type == DRA_YNODE_MAP) {
        size_t pairs = nk / 2;
        n->n = (uint32_t)pairs;
        n->keys = dra_arena_alloc(b->arena, 2 * pairs * sizeof *n->keys, _Alignof(dra_ynode_t *));
        if (!n->keys)
            return DRA_ENOMEM;
        n->vals = n->keys + pairs;
        for (size_t i = 0; i < pairs; i++) {
            n->keys[i] = f->kids[2 * i];
            n->vals[i] = f->kids[2 * i + 1];
        }
        int rc = check_dups(b, n);
        if (rc)
            return rc;
    } else {
        n->n = (uint32_t)nk;
        n->vals = dra_arena_alloc(b->arena, nk * sizeof *n->vals, _Alignof(dra_ynode_t *));
        if (!n->vals)
            return DRA_ENOMEM;
        if (nk)
            memcpy(n->vals, f->kids, nk * sizeof *n->vals);
    }
    f->n = 0;
    f->node = NULL;
    return attach(b, n);
}

static int open_frame(ybuild_t *b, dra_ynode_t *n)
{
    if (b->depth >= DRA_YDOC_MAX_DEPTH) {
        yerr(b, DRA_ELIMIT, n->line, n->column, "nesting deeper than %d levels",
             DRA_YDOC_MAX_DEPTH);
        b->rc_limit = DRA_ELIMIT;
        return DRA_ELIMIT;
    }
    yframe_t *f = &b->frames[b->depth++];
    f->node = n;
    f->n = 0;
    return DRA_OK;
}

static int scalar_event(ybuild_t *b, const yaml_event_t *ev)
{
    size_t len = ev->data.scalar.length;
    if (len > DRA_YDOC_MAX_SCALAR) {
        yerr(b, DRA_ELIMIT, mline(b, &ev->start_mark),
             (uint32_t)ev->start_mark.column + 1, "scalar of %zu bytes exceeds the limit of %zu",
             len, (size_t)DRA_YDOC_MAX_SCALAR);
        b->rc_limit = DRA_ELIMIT;
        return DRA_ELIMIT;
    }
    dra_ynode_t *n = new_node(b, DRA_YNODE_SCALAR, &ev->start_mark, len + 1);
    if (!n)
        return b->rc_limit ? b->rc_limit : DRA_ENOMEM;
    char *t = (char *)(n + 1);
    if (len)
        memcpy(t, ev->data.scalar.value, len);
    t[len] = 0;
    n->text = t;
    n->len = len;
    const char *tag = (const char *)ev->data.scalar.tag;
    n->style = (ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
                !(tag && strcmp(tag, YAML_STR_TAG) == 0))
                   ? DRA_YSTYLE_PLAIN
                   : DRA_YSTYLE_QUOTED;
    return attach(b, n);
}

static void report_parser_error(ybuild_t *b, const yaml_parser_t *p)
{
    uint32_t line, col;
    const char *what = p->error == YAML_READER_ERROR    ? "invalid input"
                       : p->error == YAML_SCANNER_ERROR ? "YAML syntax error"
                       : p->error == YAML_PARSER_ERROR  ? "YAML syntax error"
                       : p->error == YAML_MEMORY_ERROR  ? "out of memory"
                                                        : "YAML error";
    if (p->error == YAML_READER_ERROR) {
        offset_pos(b->buf, b->len, p->problem_offset, &line, &col);
        line += b->line0;
        if (p->problem_value != -1)
            yerr(b, DRA_EPARSE, line, col, "%s: %s (byte 0x%02x at offset %zu)", what,
                 p->problem ? p->problem : "?", (unsigned)p->problem_value & 0xffu,
                 p->problem_offset + b->off0);
        else
            yerr(b, DRA_EPARSE, line, col, "%s: %s (at offset %zu)", what,
                 p->problem ? p->problem : "?", p->problem_offset + b->off0);
        return;
    }
    line = mline(b, &p->problem_mark);
    col = (uint32_t)p->problem_mark.column + 1;
    if (p->context)
        yerr(b, DRA_EPARSE, line, col, "%s: %s %s (line %zu, column %zu)", what, p->problem,
             p->context, (size_t)mline(b, &p->context_mark), p->context_mark.column + 1);
    else
        yerr(b, DRA_EPARSE, line, col, "%s: %s", what, p->problem ? p->problem : "?");
}

static void frames_free(ybuild_t *b)
{
    for (int i = 0; i <= DRA_YDOC_MAX_DEPTH; i++)
        free(b->frames[i].kids);
}

static int deliver(ybuild_t *b)
{
    int rc = DRA_OK;
    if (!b->doc_bad && b->root && !dra_ynode_is_null(b->root))
        rc = b->on_doc(b->root, b->ud);
    return rc;
}

/* ---- the second part of a split parse ----------------------------------------------------
 *
 * The caller's thread parses the whole input with one libyaml parser, exactly as a sequential
 * parse; a second thread parses buf[split..len) into trees in its own arena, recording its
 * diagnostics and documents in order. When the first parser reaches an explicit document start
 * at column 0 of the split line, its state equals a fresh parser's, so the recorded documents and
 * diagnostics are exactly what it would produce next: they are handed to on_doc / errs in order
 * and the first parser stops. When it does not reach that point (the `---` was not a document
 * start, an error came first, on_doc stopped) or the second thread's input checks fail, the
 * second result is discarded and the first parser simply goes on: the outcome never depends on
 * the split. The second thread's checks make its positions and its libyaml reader behaviour
 * those of the sequential parse: before the split, only '\n' and "\r\n" breaks (so the line
 * count is libyaml's); after it, valid UTF-8 of characters libyaml accepts (a reader error
 * could otherwise surface at a different event); no line starting with '%' (directives). */

typedef struct ydocrec {
    const dra_ynode_t *root;
    size_t ndiag; /* diagnostics the second part had reported before this document */
} ydocrec_t;

struct ysecond {
    const char *buf; /* the whole input */
    size_t len, split;
    const char *file;
    pthread_t tid;
    int joined;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int state;      /* under mu: 0 checking, 1 usable (line0 valid), -1 not usable */
    uint32_t line0; /* 0-based line of the split in buf */
    uint32_t base_line0; /* lines before buf in the whole input (after a fast-path prefix) */
    size_t base_off0;    /* bytes before buf in the whole input */
    atomic_int stop;
    /* results, read by the first thread only after pthread_join */
    dra_arena_t arena;
    dra_diag_list_t errs;
    ydocrec_t *docs;
    size_t ndocs, cap;
    int rc, nerrors, rc_limit;
};

/* Blocks of 64 bytes with nothing to look at closely are checked branch-free (vectorised). */
#define SCAN_BLOCK 64

/* Lines before split, or -1 when libyaml could count them differently (a lone '\r', NEL, LS,
 * PS) or a line starts with '%'. */
static int64_t scan_first(const unsigned char *s, size_t split)
{
    int64_t nl = 0;
    if (split && s[0] == '%')
        return -1;
    size_t i = 0;
    while (i < split) {
        if (i % SCAN_BLOCK == 0 && split - i >= SCAN_BLOCK) {
            unsigned odd = 0, cnt = 0;
            for (size_t k = 0; k < SCAN_BLOCK; k++) {
                unsigned c = s[i + k];
                cnt += c == '\n';
                odd |= (unsigned)(c == '\r') | (unsigned)(c >= 0x80) | (unsigned)(c == '%');
            }
            if (!odd) {
                nl += cnt;
                i += SCAN_BLOCK;
                continue;
            }
        }
        unsigned c = s[i];
        if (c == '\n') {
            nl++;
        } else if (c == '%' && i >= 1 && s[i - 1] == '\n') {
            return -1;
        } else if (c == '\r') {
            if (i + 1 >= split || s[i + 1] != '\n')
                return -1;
        } else if (c == 0x85 && i >= 1 && s[i - 1] == 0xC2) {
            return -1;
        } else if ((c == 0xA8 || c == 0xA9) && i >= 2 && s[i - 1] == 0x80 && s[i - 2] == 0xE2) {
            return -1;
        }
        i++;
    }
    return nl;
}

/* True when s[0..n) is UTF-8 that libyaml's reader accepts without error (stricter: no BOM
 * character) and no line starts with '%'. *pure (may be NULL): only printable ASCII and '\n'. */
static bool scan_input(const unsigned char *s, size_t n, bool *pure)
{
    bool only_ascii = true;
    size_t i = 0;
    while (i < n) {
        if (i % SCAN_BLOCK == 0 && n - i >= SCAN_BLOCK) {
            unsigned odd = 0;
            for (size_t k = 0; k < SCAN_BLOCK; k++) {
                unsigned c = s[i + k];
                odd |= (unsigned)(c < 0x20 && c != '\n') | (unsigned)(c >= 0x7F) |
                       (unsigned)(c == '%');
            }
            if (!odd) {
                i += SCAN_BLOCK;
                continue;
            }
        }
        unsigned c = s[i];
        if (c < 0x80) {
            if (c == '%' && i >= 1 && s[i - 1] == '\n')
                return false;
            if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F) {
                return false;
            }
            if (c == '\t' || c == '\r')
                only_ascii = false;
            i++;
            continue;
        }
        only_ascii = false;
        size_t w;
        uint32_t v;
        if ((c & 0xE0) == 0xC0) {
            w = 2;
            v = c & 0x1Fu;
        } else if ((c & 0xF0) == 0xE0) {
            w = 3;
            v = c & 0x0Fu;
        } else if ((c & 0xF8) == 0xF0) {
            w = 4;
            v = c & 0x07u;
        } else {
            return false;
        }
        if (n - i < w)
            return false;
        for (size_t k = 1; k < w; k++) {
            if ((s[i + k] & 0xC0) != 0x80)
                return false;
            v = v << 6 | (s[i + k] & 0x3Fu);
        }
        if ((w == 2 && v < 0x80) || (w == 3 && v < 0x800) || (w == 4 && v < 0x10000))
            return false;
        if (!(v == 0x85 || (v >= 0xA0 && v <= 0xD7FF) || (v >= 0xE000 && v <= 0xFFFD && v != 0xFEFF) ||
              (v >= 0x10000 && v <= 0x10FFFF)))
            return false;
        i += w;
    }
    if (pure)
        *pure = only_ascii;
    return true;
}

/* A line that is exactly `---` or starts with `--- ` / `---\t` begins at buf[at]. */
static bool doc_start_line(const char *buf, size_t len, size_t at)
{
    if (at == 0 || at >= len || buf[at - 1] != '\n' || len - at < 3 || memcmp(buf + at, "---", 3))
        return false;
    if (len - at == 3)
        return true;
    char c = buf[at + 3];
    return c == '\n' || c == ' ' || c == '\t' || (c == '\r' && len - at > 4 && buf[at + 4] == '\n');
}

static int record_doc(const dra_ynode_t *root, void *ud)
{
    ysecond_t *s = ud;
    if (s->ndocs == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 64;
        ydocrec_t *d = realloc(s->docs, nc * sizeof *d);
        if (!d)
            return DRA_ENOMEM;
        s->docs = d;
        s->cap = nc;
    }
    s->docs[s->ndocs++] = (ydocrec_t){.root = root, .ndiag = s->errs.count};
    return DRA_OK;
}

static int yaml_run(ybuild_t *b);

static void *second_main(void *arg)
{
    ysecond_t *s = arg;
    const unsigned char *u = (const unsigned char *)s->buf;
    int64_t lines = doc_start_line(s->buf, s->len, s->split) ? scan_first(u, s->split) : -1;
    bool ok = lines >= 0 && lines < (int64_t)UINT32_MAX / 2 &&
              scan_input(u + s->split, s->len - s->split, NULL);
    pthread_mutex_lock(&s->mu);
    s->line0 = ok ? (uint32_t)lines : 0;
    s->state = ok ? 1 : -1;
    pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->mu);
    if (!ok)
        return NULL;
    ybuild_t *b = calloc(1, sizeof *b);
    if (!b) {
        s->rc = DRA_ENOMEM;
        return NULL;
    }
    b->buf = s->buf + s->split;
    b->len = s->len - s->split;
    b->file = s->file;
    b->line0 = s->line0 + s->base_line0;
    b->off0 = s->split + s->base_off0;
    b->stop = &s->stop;
    b->arena = &s->arena;
    b->errs = &s->errs;
    b->on_doc = record_doc;
    b->ud = s;
    s->rc = yaml_run(b);
    s->nerrors = b->nerrors;
    s->rc_limit = b->rc_limit;
    free(b);
    return NULL;
}

/* Start the second thread on buf[split..); on any failure parse sequentially. */
static void second_start(ybuild_t *b, size_t split)
{
    ysecond_t *s = calloc(1, sizeof *s);
    if (!s)
        return;
    s->buf = b->buf;
    s->len = b->len;
    s->split = split;
    s->file = b->file;
    s->base_line0 = b->line0;
    s->base_off0 = b->off0;
    atomic_init(&s->stop, 0);
    dra_arena_init(&s->arena, 0);
    dra_diag_list_init(&s->errs);
    s->errs.max_keep = SIZE_MAX;
    if (pthread_mutex_init(&s->mu, NULL) == 0) {
        if (pthread_cond_init(&s->cv, NULL) == 0) {
            if (pthread_create(&s->tid, NULL, second_main, s) == 0) {
                b->sec = s;
                return;
            }
            pthread_cond_destroy(&s->cv);
        }
        pthread_mutex_destroy(&s->mu);
    }
    dra_arena_fini(&s->arena);
    free(s);
}

/* Stop (if still running), join and free the second part. */
static void second_end(ybuild_t *b)
{
    ysecond_t *s = b->sec;
    if (!s)
        return;
    b->sec = NULL;
    atomic_store_explicit(&s->stop, 1, memory_order_relaxed);
    if (!s->joined)
        pthread_join(s->tid, NULL);
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->mu);
    free(s->docs);
    dra_diag_list_fini(&s->errs);
    dra_arena_fini(&s->arena);
    free(s);
}

/* At an explicit document start in column 0: 1 when it is the split (the second part's result
 * is complete and usable), else 0 (and the second part is dropped once it cannot be used). */
static int second_at_split(ybuild_t *b, const yaml_mark_t *m)
{
    ysecond_t *s = b->sec;
    pthread_mutex_lock(&s->mu);
    while (s->state == 0)
        pthread_cond_wait(&s->cv, &s->mu);
    int state = s->state;
    uint32_t line0 = s->line0;
    pthread_mutex_unlock(&s->mu);
    if (state > 0 && m->line < line0)
        return 0;
    if (state > 0 && m->line == line0) {
        pthread_join(s->tid, NULL);
        s->joined = 1;
        if (s->rc != DRA_ENOMEM)
            return 1;
    }
    second_end(b);
    return 0;
}

/* Hand the second part's documents and diagnostics over in order; returns the rc the
 * sequential parse would have had after them. */
static int second_replay(ybuild_t *b, size_t *ndocs)
{
    ysecond_t *s = b->sec;
    size_t di = 0;
    int rc = DRA_OK;
    for (size_t k = 0; k < s->ndocs; k++) {
        for (; di < s->docs[k].ndiag; di++)
            if (b->errs)
                (void)dra_diag_list_push(b->errs, &s->errs.items[di]);
        ++*ndocs;
        rc = b->on_doc(s->docs[k].root, b->ud);
        if (rc != DRA_OK) {
            b->nerrors += (int)di;
            return rc;
        }
    }
    for (; di < s->errs.count; di++)
        if (b->errs)
            (void)dra_diag_list_push(b->errs, &s->errs.items[di]);
    b->nerrors += s->nerrors;
    if (s->rc_limit)
        b->rc_limit = s->rc_limit;
    return s->rc;
}

/* The event loop over b->buf; returns DRA_OK or the code that stopped it (errors counted in b). */
static int yaml_run(ybuild_t *b)
{
    dra_arena_t *a = b->arena;
    unsigned flags = b->flags;
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p))
        return DRA_ENOMEM;
    yaml_parser_set_input_string(&p, (const unsigned char *)b->buf, b->len);
    dra_arena_mark_t mark = dra_arena_mark(a);
    int rc = DRA_OK, done = 0;
    while (!done && rc == DRA_OK) {
        if (b->stop && atomic_load_explicit(b->stop, memory_order_relaxed)) {
            rc = DRA_EINTERRUPTED;
            break;
        }
        yaml_event_t ev;
        if (!yaml_parser_parse(&p, &ev)) {
            report_parser_error(b, &p);
            rc = p.error == YAML_MEMORY_ERROR ? DRA_ENOMEM : DRA_EPARSE;
            break;
        }
        switch (ev.type) {
        case YAML_STREAM_END_EVENT:
            done = 1;
            break;
        case YAML_DOCUMENT_START_EVENT:
            if (b->sec && ev.start_mark.column == 0 && !ev.data.document_start.implicit &&
                second_at_split(b, &ev.start_mark)) {
                b->handed = 1;
                rc = second_replay(b, &b->ndocs2);
                done = 1;
                break;
            }
            if (flags & DRA_YDOC_RESET_PER_DOC)
                mark = dra_arena_mark(a);
            b->root = NULL;
            b->nnodes = 0;
            b->doc_bad = 0;
            break;
        case YAML_DOCUMENT_END_EVENT:
            rc = deliver(b);
            if (flags & DRA_YDOC_RESET_PER_DOC)
                dra_arena_reset_to(a, mark);
            b->root = NULL;
            break;
        case YAML_ALIAS_EVENT:
            yerr(b, DRA_EPARSE, mline(b, &ev.start_mark), (uint32_t)ev.start_mark.column + 1,
                 "alias *%s: YAML aliases are not supported (rejected to bound expansion)",
                 ev.data.alias.anchor ? (const char *)ev.data.alias.anchor : "");
            rc = DRA_EPARSE;
            break;
        case YAML_SCALAR_EVENT:
            rc = scalar_event(b, &ev);
            break;
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT: {
            dra_ynode_t *n = new_node(b,
                                      ev.type == YAML_MAPPING_START_EVENT ? DRA_YNODE_MAP
                                                                          : DRA_YNODE_SEQ,
                                      &ev.start_mark, 0);
            rc = n ? open_frame(b, n) : (b->rc_limit ? b->rc_limit : DRA_ENOMEM);
            break;
        }
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            rc = close_frame(b);
            break;
        default:
            break;
        }
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&p);
    frames_free(b);
    return rc;
}

/* ---- fast path as a pipeline ------------------------------------------------------------
 *
 * For large input read with DRA_YDOC_RESET_PER_DOC (trees only live inside on_doc), a second
 * thread runs the fast reader and queues each document's tree while the caller's thread hands
 * them to on_doc in order, so reading and on_doc overlap. Documents are the same as the
 * sequential fast path's, in the same order; where the reader declines, the caller's thread goes
 * on with libyaml as usual. Memory stays bounded: trees go to a ring of FP_ARENAS arenas, a new
 * one after FP_ARENA_FILL bytes, and the reader waits until every document of an arena has been
 * handed over before reusing it. */

#define FP_ARENAS 4
#define FP_ARENA_FILL ((size_t)1 << 20)
#define FP_QUEUE 1024

typedef struct fpipe {
    const char *buf;
    size_t len;
    bool pure;
    pthread_t tid;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    dra_arena_t arenas[FP_ARENAS];
    size_t users[FP_ARENAS]; /* documents of each arena not yet handed back */
    struct {
        dra_ynode_t *root;
        int arena;
    } q[FP_QUEUE];
    size_t produced, consumed;
    int done, stop;     /* under mu */
    int status;         /* DRA_YFAST_END or DRA_YFAST_DECLINED (then pos / lines) */
    size_t pos, ndocs;  /* valid once done */
    uint32_t lines;
} fpipe_t;

static void *fpipe_main(void *arg)
{
    fpipe_t *s = arg;
    dra_yfast_t f;
    dra_yfast_init(&f, s->buf, s->len, &s->arenas[0]);
    f.pure = s->pure;
    int cur = 0, status = DRA_YFAST_DECLINED;
    for (;;) {
        dra_arena_t *ar = &s->arenas[cur];
        if (ar->used >= FP_ARENA_FILL) {
            int next = (cur + 1) % FP_ARENAS;
            pthread_mutex_lock(&s->mu);
            while (s->users[next] && !s->stop)
                pthread_cond_wait(&s->cv, &s->mu);
            int stop = s->stop;
            pthread_mutex_unlock(&s->mu);
            if (stop)
                break;
            cur = next;
            ar = &s->arenas[cur];
            dra_arena_reset(ar);
        }
        f.arena = ar;
        dra_arena_mark_t mark = dra_arena_mark(ar);
        dra_ynode_t *root;
        int r = dra_yfast_next(&f, &root);
        if (r != DRA_YFAST_DOC) {
            if (r == DRA_YFAST_DECLINED)
                dra_arena_reset_to(ar, mark);
            status = r;
            break;
        }
        pthread_mutex_lock(&s->mu);
        while (s->produced - s->consumed == FP_QUEUE && !s->stop)
            pthread_cond_wait(&s->cv, &s->mu);
        int stop = s->stop;
        if (!stop) {
            s->q[s->produced % FP_QUEUE].root = root;
            s->q[s->produced % FP_QUEUE].arena = cur;
            s->users[cur]++;
            s->produced++;
            pthread_cond_broadcast(&s->cv);
        }
        pthread_mutex_unlock(&s->mu);
        if (stop)
            break;
    }
    pthread_mutex_lock(&s->mu);
    s->status = status;
    s->pos = f.pos;
    s->lines = f.lines;
    s->done = 1;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    dra_yfast_fini(&f);
    return NULL;
}

/* Run the pipeline over the whole input; as fast_prefix. *started false: the thread could not
 * start, nothing was read (the caller then reads sequentially). */
static int fast_pipeline(ybuild_t *b, bool pure, size_t *off, uint32_t *lines, size_t *ndocs,
                         bool *started_out)
{
    *started_out = false;
    fpipe_t *s = calloc(1, sizeof *s);
    if (!s)
        return DRA_OK;
    s->buf = b->buf;
    s->len = b->len;
    s->pure = pure;
    for (int i = 0; i < FP_ARENAS; i++)
        dra_arena_init(&s->arenas[i], 0);
    int started = 0;
    if (pthread_mutex_init(&s->mu, NULL) == 0) {
        if (pthread_cond_init(&s->cv, NULL) == 0) {
            started = pthread_create(&s->tid, NULL, fpipe_main, s) == 0;
            if (!started)
                pthread_cond_destroy(&s->cv);
        }
        if (!started)
            pthread_mutex_destroy(&s->mu);
    }
    if (!started) {
        for (int i = 0; i < FP_ARENAS; i++)
            dra_arena_fini(&s->arenas[i]);
        free(s);
        return DRA_OK;
    }
    *started_out = true;
    int rc = DRA_OK;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        while (s->produced == s->consumed && !s->done)
            pthread_cond_wait(&s->cv, &s->mu);
        if (s->produced == s->consumed)
            break; /* done, everything handed over */
        dra_ynode_t *root = s->q[s->consumed % FP_QUEUE].root;
        int ar = s->q[s->consumed % FP_QUEUE].arena;
        pthread_mutex_unlock(&s->mu);
        ++*ndocs;
        if (root && !dra_ynode_is_null(root))
            rc = b->on_doc(root, b->ud);
        pthread_mutex_lock(&s->mu);
        s->users[ar]--;
        s->consumed++;
        pthread_cond_broadcast(&s->cv);
        if (rc != DRA_OK) {
            s->stop = 1;
            break;
        }
    }
    pthread_mutex_unlock(&s->mu);
    pthread_join(s->tid, NULL);
    *off = s->status == DRA_YFAST_END ? b->len : s->pos;
    *lines = s->lines;
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->mu);
    for (int i = 0; i < FP_ARENAS; i++)
        dra_arena_fini(&s->arenas[i]);
    free(s);
    return rc;
}

/* The fast path (yfast.h): documents in the plain block subset, read until one declines (then
 * *off / *lines name its start) or the input ends (*off == len). Returns DRA_OK or on_doc's
 * non-OK return. */
static int fast_prefix(ybuild_t *b, bool pipeline, size_t *off, uint32_t *lines, size_t *ndocs)
{
    *off = 0;
    *lines = 0;
    /* libyaml's reader decodes 16 KB ahead: a byte it rejects fails the parse before documents
     * that precede it are delivered. Such input, and directives, go to libyaml whole. */
    bool pure = false;
    if (!scan_input((const unsigned char *)b->buf, b->len, &pure))
        return DRA_OK;
    if (pipeline) {
        bool started;
        int rc = fast_pipeline(b, pure, off, lines, ndocs, &started);
        if (started)
            return rc;
    }
    dra_yfast_t f;
    dra_yfast_init(&f, b->buf, b->len, b->arena);
    f.pure = pure;
    int rc = DRA_OK;
    for (;;) {
        dra_arena_mark_t mark = dra_arena_mark(b->arena);
        dra_ynode_t *root;
        int r = dra_yfast_next(&f, &root);
        if (r != DRA_YFAST_DOC) {
            if (r == DRA_YFAST_DECLINED)
                dra_arena_reset_to(b->arena, mark);
            else
                f.pos = b->len;
            break;
        }
        ++*ndocs;
        if (root && !dra_ynode_is_null(root))
            rc = b->on_doc(root, b->ud);
        if (b->flags & DRA_YDOC_RESET_PER_DOC)
            dra_arena_reset_to(b->arena, mark);
        if (rc != DRA_OK)
            break;
    }
    *off = f.pos;
    *lines = f.lines;
    dra_yfast_fini(&f);
    return rc;
}

static int parse_yaml(const char *buf, size_t len, const char *file, dra_arena_t *a,
                      unsigned flags, dra_ydoc_split_t *sp, dra_ydoc_fn on_doc, void *ud,
                      dra_diag_list_t *errs)
{
    ybuild_t *b = calloc(1, sizeof *b);
    if (!b)
        return DRA_ENOMEM;
    b->buf = buf;
    b->len = len;
    b->file = file;
    b->arena = a;
    b->errs = errs;
    b->flags = flags;
    b->on_doc = on_doc;
    b->ud = ud;
    size_t off = 0, nfast = 0;
    uint32_t lines = 0;
    int rc = DRA_OK;
    bool fast_used = false;
    if (!(flags & DRA_YDOC_NO_FAST) && !(sp && sp->no_fast)) {
        bool big = sp && sp->at == DRA_YDOC_SPLIT_AUTO && len >= DRA_YDOC_SPLIT_MIN;
        bool pipeline = (flags & DRA_YDOC_RESET_PER_DOC) && sp && (sp->pipeline || big);
        rc = fast_prefix(b, pipeline, &off, &lines, &nfast);
        fast_used = pipeline;
    }
    if (rc == DRA_OK && off < len) {
        /* libyaml from the first document the fast path declined */
        b->buf = buf + off;
        b->len = len - off;
        b->line0 = lines;
        b->off0 = off;
        size_t at = sp ? sp->at : 0;
        if (at == DRA_YDOC_SPLIT_AUTO)
            at = dra_ydoc_find_split(b->buf, b->len);
        else
            at = at > off ? at - off : 0;
        if (at > 0 && at < b->len)
            second_start(b, at);
        rc = yaml_run(b);
        second_end(b);
        if (rc == DRA_OK && b->nerrors)
            rc = DRA_EPARSE;
        if (rc == DRA_EPARSE && b->rc_limit)
            rc = b->rc_limit;
    }
    if (sp) {
        sp->used = b->handed != 0 || fast_used;
        sp->ndocs2 = b->ndocs2;
        sp->fast_docs = nfast;
    }
    free(b);
    return rc;
}

size_t dra_ydoc_find_split(const char *buf, size_t len)
{
    size_t from = len / 2;
    if (len < DRA_YDOC_SPLIT_MIN)
        return 0;
    const unsigned char *u = (const unsigned char *)buf;
    if (u[0] == 0xFE || u[0] == 0xFF || u[0] == 0 || u[1] == 0)
        return 0; /* UTF-16/32 */
    size_t i = 0;
    if (memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
        i = 3;
    while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r'))
        i++;
    if (i >= len || buf[i] == '{' || buf[i] == '[' || buf[i] == '%')
        return 0; /* JSON or directives */
    while (from < len) {
        const char *nl = memchr(buf + from, '\n', len - from);
        if (!nl)
            return 0;
        size_t at = (size_t)(nl - buf) + 1;
        if (doc_start_line(buf, len, at))
            return at;
        from = at;
    }
    return 0;
}

int dra_ydoc_parse_ex(const char *buf, size_t len, const char *file, dra_arena_t *a,
                      unsigned flags, dra_ydoc_fn on_doc, void *ud, dra_diag_list_t *errs)
{
    if (flags & DRA_YDOC_JSON)
        return dra_ydoc_parse_json(buf, len, file, a, flags, on_doc, ud, errs);
    dra_ydoc_split_t sp = {.at = (flags & DRA_YDOC_PARALLEL) ? DRA_YDOC_SPLIT_AUTO : 0};
    return parse_yaml(buf, len, file, a, flags, &sp, on_doc, ud, errs);
}

int dra_ydoc_parse(const char *buf, size_t len, const char *file, dra_arena_t *a, dra_ydoc_fn on_doc,
                   void *ud, dra_diag_list_t *errs)
{
    return dra_ydoc_parse_ex(buf, len, file, a, 0, on_doc, ud, errs);
}

/* ---- JSON ------------------------------------------------------------------------------- */

/* Positions of JSON keys and values: jansson keeps none, so the text is scanned once more and
 * every key and value start is recorded in document order, the order jconv visits them
 * (jansson iterates object members in insertion order). */
typedef struct jpos {
    uint32_t (*at)[2]; /* line, column (1-based) */
    size_t n, cap, next;
} jpos_t;

typedef struct jscan {
    const char *p, *end;
    uint32_t line, col;
    jpos_t *out;
    int depth;
} jscan_t;

static void js_adv(jscan_t *s)
{
    if (*s->p == '\n') {
        s->line++;
        s->col = 1;
    } else if (((unsigned char)*s->p & 0xC0) != 0x80) {
        s->col++;
    }
    s->p++;
}

static void js_ws(jscan_t *s)
{
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
        js_adv(s);
}

static bool js_mark(jscan_t *s)
{
    jpos_t *o = s->out;
    if (o->n == o->cap) {
        size_t nc = o->cap ? o->cap * 2 : 256;
        void *nb = realloc(o->at, nc * sizeof *o->at);
        if (!nb)
            return false;
        o->at = nb;
        o->cap = nc;
    }
    o->at[o->n][0] = s->line;
    o->at[o->n][1] = s->col;
    o->n++;
    return true;
}

static void js_string(jscan_t *s)
{
    js_adv(s); /* opening quote */
    while (s->p < s->end && *s->p != '"') {
        if (*s->p == '\\' && s->p + 1 < s->end)
            js_adv(s);
        js_adv(s);
    }
    if (s->p < s->end)
        js_adv(s);
}

static bool js_value(jscan_t *s)
{
    js_ws(s);
    if (s->p >= s->end || !js_mark(s) || ++s->depth > DRA_YDOC_MAX_DEPTH + 1)
        return false;
    char c = *s->p;
    bool ok = true;
    if (c == '{' || c == '[') {
        char close = c == '{' ? '}' : ']';
        js_adv(s);
        js_ws(s);
        if (s->p < s->end && *s->p == close) {
            js_adv(s);
        } else {
            for (;;) {
                if (c == '{') {
                    js_ws(s);
                    if (s->p >= s->end || *s->p != '"' || !js_mark(s)) {
                        ok = false;
                        break;
                    }
                    js_string(s);
                    js_ws(s);
                    if (s->p >= s->end || *s->p != ':') {
                        ok = false;
                        break;
                    }
                    js_adv(s);
                }
                if (!js_value(s)) {
                    ok = false;
                    break;
                }
                js_ws(s);
                if (s->p < s->end && *s->p == ',') {
                    js_adv(s);
                    continue;
                }
                if (s->p < s->end && *s->p == close)
                    js_adv(s);
                else
                    ok = false;
                break;
            }
        }
    } else if (c == '"') {
        js_string(s);
    } else {
        while (s->p < s->end && !strchr(" \t\r\n,]}", *s->p))
            js_adv(s);
    }
    s->depth--;
    return ok;
}

typedef struct jbuild {
    dra_arena_t *arena;
    const char *file;
    dra_diag_list_t *errs;
    size_t nnodes;
    int err;
    jpos_t *pos;
} jbuild_t;

/* Give n the next recorded position (none when the scan stopped early). */
static void jplace(jbuild_t *j, dra_ynode_t *n)
{
    if (n && j->pos && j->pos->next < j->pos->n) {
        n->line = j->pos->at[j->pos->next][0];
        n->column = j->pos->at[j->pos->next][1];
    }
    if (j->pos)
        j->pos->next++;
}

static dra_ynode_t *jscalar(jbuild_t *j, const char *text, size_t len, uint8_t style)
{
    dra_ynode_t *n = dra_arena_calloc(j->arena, 1, sizeof *n, _Alignof(dra_ynode_t));
    char *t = n ? dra_arena_strndup(j->arena, text, len) : NULL;
    if (!t) {
        j->err = DRA_ENOMEM;
        return NULL;
    }
    n->type = DRA_YNODE_SCALAR;
    n->style = style;
    n->text = t;
    n->len = len;
    return n;
}

static dra_ynode_t *jconv_at(jbuild_t *j, json_t *v, int depth);

static dra_ynode_t *jconv(jbuild_t *j, json_t *v, int depth)
{
    size_t slot = j->pos ? j->pos->next++ : 0;
    dra_ynode_t *n = jconv_at(j, v, depth);
    if (n && j->pos && slot < j->pos->n) {
        n->line = j->pos->at[slot][0];
        n->column = j->pos->at[slot][1];
    }
    return n;
}

static dra_ynode_t *jconv_at(jbuild_t *j, json_t *v, int depth)
{
    if (j->err)
        return NULL;
    if (++j->nnodes > DRA_YDOC_MAX_NODES) {
        j->err = dra_diag_list_add(j->errs, DRA_ELIMIT, j->file, 0, 0,
                                   "more than %zu nodes in one document",
                                   (size_t)DRA_YDOC_MAX_NODES) ? DRA_ENOMEM : DRA_ELIMIT;
        return NULL;
    }
    char num[64];
    switch (json_typeof(v)) {
    case JSON_OBJECT:
    case JSON_ARRAY: {
        if (depth >= DRA_YDOC_MAX_DEPTH) {
            if (j->errs)
                (void)dra_diag_list_add(j->errs, DRA_ELIMIT, j->file, 0, 0,
                                        "nesting deeper than %d levels", DRA_YDOC_MAX_DEPTH);
            j->err = DRA_ELIMIT;
            return NULL;
        }
        dra_ynode_t *n = dra_arena_calloc(j->arena, 1, sizeof *n, _Alignof(dra_ynode_t));
        if (!n) {
            j->err = DRA_ENOMEM;
            return NULL;
        }
        if (json_is_object(v)) {
            size_t cnt = json_object_size(v);
            n->type = DRA_YNODE_MAP;
            n->n = (uint32_t)cnt;
            n->keys = dra_arena_alloc(j->arena, cnt * sizeof *n->keys, _Alignof(dra_ynode_t *));
            n->vals = dra_arena_alloc(j->arena, cnt * sizeof *n->vals, _Alignof(dra_ynode_t *));
            if (!n->keys || !n->vals) {
                j->err = DRA_ENOMEM;
                return NULL;
            }
            const char *key;
            json_t *val;
            size_t i = 0;
            json_object_foreach(v, key, val)
            {
                n->keys[i] = jscalar(j, key, strlen(key), DRA_YSTYLE_QUOTED);
                jplace(j, n->keys[i]);
                n->vals[i] = jconv(j, val, depth + 1);
                if (j->err)
                    return NULL;
                i++;
            }
        } else {
            size_t cnt = json_array_size(v);
            n->type = DRA_YNODE_SEQ;
            n->n = (uint32_t)cnt;
            n->vals = dra_arena_alloc(j->arena, cnt * sizeof *n->vals, _Alignof(dra_ynode_t *));
            if (!n->vals) {
                j->err = DRA_ENOMEM;
                return NULL;
            }
            for (size_t i = 0; i < cnt; i++) {
                n->vals[i] = jconv(j, json_array_get(v, i), depth + 1);
                if (j->err)
                    return NULL;
            }
        }
        return n;
    }
    case JSON_STRING: {
        size_t sl = json_string_length(v);
        if (sl > DRA_YDOC_MAX_SCALAR) {
            if (j->errs)
                (void)dra_diag_list_add(j->errs, DRA_ELIMIT, j->file, 0, 0,
                                        "string of %zu bytes exceeds the limit of %zu", sl,
                                        (size_t)DRA_YDOC_MAX_SCALAR);
            j->err = DRA_ELIMIT;
            return NULL;
        }
        return jscalar(j, json_string_value(v), sl, DRA_YSTYLE_QUOTED);
    }
    case JSON_INTEGER:
        snprintf(num, sizeof num, "%lld", (long long)json_integer_value(v));
        return jscalar(j, num, strlen(num), DRA_YSTYLE_PLAIN);
    case JSON_REAL: {
        snprintf(num, sizeof num, "%.17g", json_real_value(v));
        if (!strpbrk(num, ".eEn")) /* keep it a float for the core schema */
            strcat(num, ".0");
        return jscalar(j, num, strlen(num), DRA_YSTYLE_PLAIN);
    }
    case JSON_TRUE:
        return jscalar(j, "true", 4, DRA_YSTYLE_PLAIN);
    case JSON_FALSE:
        return jscalar(j, "false", 5, DRA_YSTYLE_PLAIN);
    case JSON_NULL:
    default:
        return jscalar(j, "null", 4, DRA_YSTYLE_PLAIN);
    }
}

int dra_ydoc_parse_json(const char *buf, size_t len, const char *file, dra_arena_t *a,
                        unsigned flags, dra_ydoc_fn on_doc, void *ud, dra_diag_list_t *errs)
{
    json_error_t e;
    json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &e);
    if (!root) {
        uint32_t line = e.line > 0 ? (uint32_t)e.line : 0;
        uint32_t col = e.column > 0 ? (uint32_t)e.column : 0;
        if (line == 0 && e.position >= 0)
            offset_pos(buf, len, (size_t)e.position, &line, &col);
        if (errs)
            (void)dra_diag_list_add(errs, DRA_EPARSE, file, line, col, "JSON error: %s", e.text);
        return DRA_EPARSE;
    }
    dra_arena_mark_t mark = dra_arena_mark(a);
    jpos_t pos = {0};
    jscan_t scan = {.p = buf, .end = buf + len, .line = 1, .col = 1, .out = &pos};
    if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
        scan.p += 3;
    (void)js_value(&scan); /* positions are best effort: a short scan leaves the rest unknown */
    jbuild_t j = {.arena = a, .file = file, .errs = errs, .pos = &pos};
    dra_ynode_t *n = jconv(&j, root, 0);
    free(pos.at);
    json_decref(root);
    int rc = j.err;
    if (!rc && n)
        rc = on_doc(n, ud);
    if (flags & DRA_YDOC_RESET_PER_DOC)
        dra_arena_reset_to(a, mark);
    return rc;
}

static bool looks_json(const char *buf, size_t len)
{
    size_t i = 0;
    if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
        i = 3;
    while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r'))
        i++;
    return i < len && (buf[i] == '{' || buf[i] == '[');
}

int dra_ydoc_parse_auto(const char *buf, size_t len, const char *file, dra_arena_t *a,
                        unsigned flags, dra_ydoc_fn on_doc, void *ud, dra_diag_list_t *errs)
{
    if (looks_json(buf, len))
        flags |= DRA_YDOC_JSON;
    return dra_ydoc_parse_ex(buf, len, file, a, flags, on_doc, ud, errs);
}

int dra_ydoc_parse_file_buf(const char *buf, size_t len, const char *file, dra_arena_t *a,
                            unsigned flags, dra_ydoc_fn on_doc, void *ud, dra_diag_list_t *errs)
{
    size_t fl = file ? strlen(file) : 0;
    if (fl >= 5 && strcmp(file + fl - 5, ".json") == 0)
        flags |= DRA_YDOC_JSON;
    if (flags & DRA_YDOC_JSON)
        return dra_ydoc_parse_json(buf, len, file, a, flags, on_doc, ud, errs);
    return dra_ydoc_parse_auto(buf, len, file, a, flags, on_doc, ud, errs);
}

int dra_ydoc_parse_split(const char *buf, size_t len, const char *file, dra_arena_t *a,
                         unsigned flags, dra_ydoc_split_t *sp, dra_ydoc_fn on_doc, void *ud,
                         dra_diag_list_t *errs)
{
    size_t fl = file ? strlen(file) : 0;
    if ((fl >= 5 && strcmp(file + fl - 5, ".json") == 0) || looks_json(buf, len))
        flags |= DRA_YDOC_JSON;
    if (flags & DRA_YDOC_JSON) {
        if (sp) {
            sp->used = false;
            sp->ndocs2 = 0;
        }
        return dra_ydoc_parse_json(buf, len, file, a, flags, on_doc, ud, errs);
    }
    return parse_yaml(buf, len, file, a, flags, sp, on_doc, ud, errs);
}

/* ---- accessors -------------------------------------------------------------------------- */

const dra_ynode_t *dra_ynode_get(const dra_ynode_t *n, const char *key)
{
    if (!n || n->type != DRA_YNODE_MAP)
        return NULL;
    size_t kl = strlen(key);
    for (uint32_t i = 0; i < n->n; i++) {
        const dra_ynode_t *k = n->keys[i];
        if (k->type == DRA_YNODE_SCALAR && k->len == kl && memcmp(k->text, key, kl) == 0)
            return n->vals[i];
    }
    return NULL;
}

static bool text_in(const dra_ynode_t *n, const char *const *list)
{
    for (; *list; list++)
        if (strlen(*list) == n->len && memcmp(*list, n->text, n->len) == 0)
            return true;
    return false;
}

/* Plain-scalar null test on the text alone: "", "~", "null", "Null", "NULL". */
static bool text_is_null(const char *s, size_t len)
{
    switch (len) {
    case 0:
        return true;
    case 1:
        return s[0] == '~';
    case 4:
        return memcmp(s, "null", 4) == 0 || memcmp(s, "Null", 4) == 0 ||
               memcmp(s, "NULL", 4) == 0;
    default:
        return false;
    }
}

bool dra_ynode_is_null(const dra_ynode_t *n)
{
    if (!n)
        return true;
    return n->type == DRA_YNODE_SCALAR && n->style == DRA_YSTYLE_PLAIN &&
           text_is_null(n->text, n->len);
}

bool dra_ynode_is_map(const dra_ynode_t *n)
{
    return n && n->type == DRA_YNODE_MAP;
}

bool dra_ynode_is_seq(const dra_ynode_t *n)
{
    return n && n->type == DRA_YNODE_SEQ;
}

bool dra_ynode_is_scalar(const dra_ynode_t *n)
{
    return n && n->type == DRA_YNODE_SCALAR;
}

const dra_ynode_t *dra_ynode_at_path(const dra_ynode_t *n, const char *p)
{
    while (n && p && *p) {
        if (*p == '.')
            p++;
        if (*p == '[') {
            char *end;
            unsigned long i = strtoul(p + 1, &end, 10);
            if (n->type != DRA_YNODE_SEQ || *end != ']' || i >= n->n || !n->vals[i])
                break;
            n = n->vals[i];
            p = end + 1;
            continue;
        }
        if (n->type != DRA_YNODE_MAP)
            break;
        const dra_ynode_t *best = NULL;
        size_t blen = 0;
        for (uint32_t i = 0; i < n->n; i++) {
            const dra_ynode_t *k = n->keys[i];
            if (!k || !k->text || k->len <= blen || strncmp(p, k->text, k->len) != 0)
                continue;
            char after = p[k->len];
            if (after == '\0' || after == '.' || after == '[') {
                best = n->vals[i];
                blen = k->len;
            }
        }
        if (!best)
            break;
        n = best;
        p += blen;
    }
    return n;
}

bool dra_yparse_int64(const char *s, size_t len, int64_t *out)
{
    size_t i = 0;
    bool neg = false;
    if (i < len && (s[i] == '-' || s[i] == '+'))
        neg = s[i++] == '-';
    unsigned base = 10;
    if (len - i > 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'o')) {
        base = s[i + 1] == 'x' ? 16 : 8;
        i += 2;
    }
    if (i >= len)
        return false;
    uint64_t v = 0;
    for (; i < len; i++) {
        unsigned c = (unsigned char)s[i], d;
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if (base == 16 && c >= 'a' && c <= 'f')
            d = c - 'a' + 10;
        else if (base == 16 && c >= 'A' && c <= 'F')
            d = c - 'A' + 10;
        else
            return false;
        if (d >= base)
            return false;
        if (v > (UINT64_MAX - d) / base)
            return false;
        v = v * base + d;
    }
    if (neg) {
        if (v > (uint64_t)INT64_MAX + 1)
            return false;
        *out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
    } else {
        if (v > (uint64_t)INT64_MAX)
            return false;
        *out = (int64_t)v;
    }
    return true;
}

static bool looks_float(const char *s, size_t len)
{
    static const char *const specials[] = {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF",
                                           "-.inf", "-.Inf", "-.INF", ".nan", ".NaN", ".NAN"};
    for (size_t k = 0; k < DRA_ARRAY_LEN(specials); k++)
        if (strlen(specials[k]) == len && memcmp(specials[k], s, len) == 0)
            return true;
    /* [-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )? */
    size_t i = 0, digits = 0;
    if (i < len && (s[i] == '-' || s[i] == '+'))
        i++;
    while (i < len && s[i] >= '0' && s[i] <= '9')
        i++, digits++;
    if (i < len && s[i] == '.') {
        i++;
        while (i < len && s[i] >= '0' && s[i] <= '9')
            i++, digits++;
    }
    if (!digits)
        return false;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < len && (s[i] == '-' || s[i] == '+'))
            i++;
        size_t ed = 0;
        while (i < len && s[i] >= '0' && s[i] <= '9')
            i++, ed++;
        if (!ed)
            return false;
    }
    return i == len;
}

dra_yscalar_kind_t dra_ynode_scalar_kind(const dra_ynode_t *n)
{
    static const char *const bools[] = {"true", "True", "TRUE", "false", "False", "FALSE", NULL};
    if (!n)
        return DRA_YSCALAR_NULL;
    if (n->type != DRA_YNODE_SCALAR || n->style != DRA_YSTYLE_PLAIN)
        return DRA_YSCALAR_STRING;
    if (text_is_null(n->text, n->len))
        return DRA_YSCALAR_NULL;
    /* Only text starting with t/T/f/F can be a bool and only text starting with a digit, a
     * sign or '.' can be a number (ints, .inf/.nan, floats): everything else is a string. */
    switch (n->text[0]) {
    case 't':
    case 'T':
    case 'f':
    case 'F':
        return text_in(n, bools) ? DRA_YSCALAR_BOOL : DRA_YSCALAR_STRING;
    case '+':
    case '-':
    case '.':
        break;
    default:
        if (n->text[0] < '0' || n->text[0] > '9')
            return DRA_YSCALAR_STRING;
    }
    int64_t v;
    if (dra_yparse_int64(n->text, n->len, &v))
        return DRA_YSCALAR_INT;
    /* an integer literal out of int64 range is still an int for the schema, just unusable */
    size_t i = (n->len && (n->text[0] == '-' || n->text[0] == '+')) ? 1 : 0;
    if (i < n->len && strspn(n->text + i, "0123456789") == n->len - i)
        return DRA_YSCALAR_INT;
    if (looks_float(n->text, n->len))
        return DRA_YSCALAR_FLOAT;
    return DRA_YSCALAR_STRING;
}

const char *dra_ynode_kind_name(const dra_ynode_t *n)
{
    if (n && n->type == DRA_YNODE_MAP)
        return "map";
    if (n && n->type == DRA_YNODE_SEQ)
        return "sequence";
    switch (dra_ynode_scalar_kind(n)) {
    case DRA_YSCALAR_NULL:
        return "null";
    case DRA_YSCALAR_BOOL:
        return "bool";
    case DRA_YSCALAR_INT:
        return "int";
    case DRA_YSCALAR_FLOAT:
        return "float";
    default:
        return "string";
    }
}

static int type_error(const dra_ynode_t *n, const char *file, const char *path, const char *want,
                      dra_diag_t *d)
{
    if (n && n->type == DRA_YNODE_SCALAR)
        return dra_diag_set(d, DRA_ETYPE, file, n->line, n->column,
                            "%s%sexpected %s, got %s \"%.*s\"", path ? path : "", path ? ": " : "",
                            want, dra_ynode_kind_name(n), (int)DRA_MIN(n->len, (size_t)60),
                            n->text);
    return dra_diag_set(d, DRA_ETYPE, file, n ? n->line : 0, n ? n->column : 0,
                        "%s%sexpected %s, got %s", path ? path : "", path ? ": " : "", want,
                        dra_ynode_kind_name(n));
}

int dra_ynode_bool(const dra_ynode_t *n, const char *file, const char *path, bool *out,
                   dra_diag_t *d)
{
    if (dra_ynode_scalar_kind(n) != DRA_YSCALAR_BOOL || !n || n->type != DRA_YNODE_SCALAR)
        return type_error(n, file, path, "bool", d);
    *out = n->text[0] == 't' || n->text[0] == 'T';
    return DRA_OK;
}

int dra_ynode_int64(const dra_ynode_t *n, const char *file, const char *path, int64_t *out,
                    dra_diag_t *d)
{
    if (!n || dra_ynode_scalar_kind(n) != DRA_YSCALAR_INT)
        return type_error(n, file, path, "integer", d);
    if (!dra_yparse_int64(n->text, n->len, out))
        return dra_diag_set(d, DRA_ETYPE, file, n->line, n->column,
                            "%s%sinteger \"%.*s\" out of the int64 range", path ? path : "",
                            path ? ": " : "", (int)DRA_MIN(n->len, (size_t)60), n->text);
    return DRA_OK;
}

int dra_ynode_double(const dra_ynode_t *n, const char *file, const char *path, double *out,
                     dra_diag_t *d)
{
    dra_yscalar_kind_t k = dra_ynode_scalar_kind(n);
    if (!n || (k != DRA_YSCALAR_FLOAT && k != DRA_YSCALAR_INT))
        return type_error(n, file, path, "number", d);
    const char *t = n->text;
    if (t[0] == '+')
        t++;
    if (strcmp(t, ".inf") == 0 || strcmp(t, ".Inf") == 0 || strcmp(t, ".INF") == 0)
        *out = INFINITY;
    else if (strcmp(t, "-.inf") == 0 || strcmp(t, "-.Inf") == 0 || strcmp(t, "-.INF") == 0)
        *out = -INFINITY;
    else if (t[0] == '.' && (t[1] == 'n' || t[1] == 'N'))
        *out = NAN;
    else {
        int64_t iv;
        if (k == DRA_YSCALAR_INT && dra_yparse_int64(n->text, n->len, &iv))
            *out = (double)iv;
        else
            *out = strtod(t, NULL);
    }
    return DRA_OK;
}

int dra_ynode_string(const dra_ynode_t *n, const char *file, const char *path, bool lenient,
                     const char **out, dra_diag_t *d)
{
    if (!n || n->type != DRA_YNODE_SCALAR)
        return type_error(n, file, path, "string", d);
    dra_yscalar_kind_t k = dra_ynode_scalar_kind(n);
    if (k == DRA_YSCALAR_NULL || (!lenient && k != DRA_YSCALAR_STRING))
        return type_error(n, file, path, "string", d);
    *out = n->text;
    return DRA_OK;
}
