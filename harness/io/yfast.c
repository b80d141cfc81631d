/*
 * yfast.c - the plain block-YAML subset reader. See yfast.h.
 *
 * A recursive descent over lines. The cursor is a line [ls, le) and a position p in it; advance()
 * moves to the next content line (skipping blank and comment-only lines) and stops at the end of
 * the document (end of input or a `---` line in column 0). Every function returns 1 when it read
 * its node and 0 to decline the document. The rules mirror libyaml 0.2.5's scanner and parser
 * for this subset; where the two could differ the reader declines, so libyaml decides:
 *  - positions: a scalar starts at its first character (its quote when quoted); a block mapping
 *    at its first key; a block sequence (indentless too) at its first `-`; a flow collection at
 *    its bracket; an empty value at the end of its `:` or `-` token;
 *  - a plain scalar ends at ` #` or the end of the line, trailing spaces trimmed; `: ` or a final
 *    `:` inside a value is an error in libyaml, so it declines; the next content line must not
 *    be indented deeper than the enclosing block (libyaml would continue the scalar there);
 *  - a key is a single-line plain or quoted scalar directly followed by `:` and a space or the
 *    end of the line (spaces before the `:`, or a key over 1,000 bytes, decline).
 */
#include "yfast.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define YF_MAX_DEPTH (DRA_YDOC_MAX_DEPTH - 4)
#define YF_MAX_KEY 1000

/* ---- lines ---------------------------------------------------------------------------------- */

/* Load the line starting at s; 0 when it holds a byte outside printable ASCII (tab, CR, control,
 * DEL, non-ASCII: libyaml's reader or scanner decides those). */
static int load_line(dra_yfast_t *f, const char *s)
{
    const char *end = f->buf + f->len;
    const char *nl = memchr(s, '\n', (size_t)(end - s));
    const char *e = nl ? nl : end;
    unsigned bad = 0;
    if (!f->pure)
        for (const char *q = s; q < e; q++)
            bad |= (unsigned)((unsigned char)(*q - 0x20) > 0x5e);
    f->ls = s;
    f->le = e;
    f->p = s;
    return !bad;
}

static void set_eof(dra_yfast_t *f)
{
    const char *end = f->buf + f->len;
    f->at_end = 1;
    f->ls = f->le = f->p = end;
}

/* From the line at s (0-based line f->lno), skip blank and comment lines; stop at a content line
 * (f->p at its first non-space) or at the end of the document (f->at_end; f->ls at the `---`
 * line, or at the end of input). */
static int skip_from(dra_yfast_t *f, const char *s)
{
    const char *end = f->buf + f->len;
    for (;;) {
        if (s >= end) {
            set_eof(f);
            return 1;
        }
        if (!load_line(f, s))
            return 0;
        const char *q = s;
        while (q < f->le && *q == ' ')
            q++;
        if (q == f->le || *q == '#') {
            if (f->le >= end) {
                set_eof(f);
                return 1;
            }
            s = f->le + 1;
            f->lno++;
            continue;
        }
        if (q == s) {
            size_t n = (size_t)(f->le - s);
            if (n >= 3 && memcmp(s, "---", 3) == 0) {
                if (n == 3 || s[3] == ' ') {
                    f->at_end = 1;
                    return 1;
                }
                return 0;
            }
            if ((n >= 3 && memcmp(s, "...", 3) == 0) || *s == '%')
                return 0;
        }
        f->p = q;
        return 1;
    }
}

/* To the next content line after the current one. */
static int advance(dra_yfast_t *f)
{
    const char *end = f->buf + f->len;
    if (f->le >= end) {
        set_eof(f);
        return 1;
    }
    f->lno++;
    return skip_from(f, f->le + 1);
}

static uint32_t col_of(const dra_yfast_t *f, const char *q)
{
    return (uint32_t)(q - f->ls);
}

/* `-` as a block entry: followed by a space or the end of the line. */
static bool is_entry(const dra_yfast_t *f, const char *q)
{
    return *q == '-' && (q + 1 == f->le || q[1] == ' ');
}

/* After a value: spaces, then the end of the line or a comment; then the next content line. */
static int finish_line(dra_yfast_t *f)
{
    const char *q = f->p;
    while (q < f->le && *q == ' ')
        q++;
    if (q < f->le && !(*q == '#' && q[-1] == ' '))
        return 0;
    return advance(f);
}

/* ---- nodes ---------------------------------------------------------------------------------- */

static dra_ynode_t *mk(dra_yfast_t *f, uint8_t type, uint32_t lno, uint32_t col0, size_t extra)
{
    if (++f->nnodes > DRA_YDOC_MAX_NODES)
        return NULL;
    dra_ynode_t *n = dra_arena_alloc(f->arena, sizeof *n + extra, _Alignof(dra_ynode_t));
    if (!n)
        return NULL;
    *n = (dra_ynode_t){.type = type, .line = lno + 1, .column = col0 + 1};
    return n;
}

static dra_ynode_t *mk_scalar(dra_yfast_t *f, uint32_t lno, uint32_t col0, const char *s,
                              size_t len, uint8_t style)
{
    if (len > DRA_YDOC_MAX_SCALAR)
        return NULL;
    dra_ynode_t *n = mk(f, DRA_YNODE_SCALAR, lno, col0, len + 1);
    if (!n)
        return NULL;
    char *t = (char *)(n + 1);
    if (len)
        memcpy(t, s, len);
    t[len] = 0;
    n->text = t;
    n->len = len;
    n->style = style;
    return n;
}

static int push(dra_yfast_t *f, dra_ynode_t *n)
{
    if (!n)
        return 0;
    if (f->top == f->cap) {
        size_t nc = f->cap ? f->cap * 2 : 256;
        dra_ynode_t **k = realloc(f->stk, nc * sizeof *k);
        if (!k)
            return 0;
        f->stk = k;
        f->cap = nc;
    }
    f->stk[f->top++] = n;
    return 1;
}

static bool same_text(const dra_ynode_t *a, const dra_ynode_t *b)
{
    return a->len == b->len && memcmp(a->text, b->text, a->len) == 0;
}

static int cmp_text(const void *pa, const void *pb)
{
    const dra_ynode_t *a = *(const dra_ynode_t *const *)pa, *b = *(const dra_ynode_t *const *)pb;
    if (a->len != b->len)
        return a->len < b->len ? -1 : 1;
    return memcmp(a->text, b->text, a->len);
}

/* 1 when the n keys are distinct. */
static int keys_distinct(dra_ynode_t *const *keys, uint32_t n)
{
    if (n <= 64) {
        for (uint32_t i = 1; i < n; i++)
            for (uint32_t j = 0; j < i; j++)
                if (same_text(keys[i], keys[j]))
                    return 0;
        return 1;
    }
    dra_ynode_t **s = malloc(n * sizeof *s);
    if (!s)
        return 0;
    memcpy(s, keys, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_text);
    int ok = 1;
    for (uint32_t i = 1; i < n && ok; i++)
        ok = !same_text(s[i], s[i - 1]);
    free(s);
    return ok;
}

/* Close a collection whose children are f->stk[base..top): copy them to the arena. */
static int close_coll(dra_yfast_t *f, dra_ynode_t *n, size_t base)
{
    size_t nk = f->top - base;
    dra_ynode_t **kids = nk ? f->stk + base : NULL;
    if (n->type == DRA_YNODE_MAP) {
        size_t pairs = nk / 2;
        n->n = (uint32_t)pairs;
        n->keys = dra_arena_alloc(f->arena, 2 * pairs * sizeof *n->keys, _Alignof(dra_ynode_t *));
        if (!n->keys)
            return 0;
        n->vals = n->keys + pairs;
        for (size_t i = 0; i < pairs; i++) {
            n->keys[i] = kids[2 * i];
            n->vals[i] = kids[2 * i + 1];
        }
        if (!keys_distinct(n->keys, n->n))
            return 0;
    } else {
        n->n = (uint32_t)nk;
        n->vals = dra_arena_alloc(f->arena, nk * sizeof *n->vals, _Alignof(dra_ynode_t *));
        if (!n->vals)
            return 0;
        if (nk)
            memcpy(n->vals, kids, nk * sizeof *n->vals);
    }
    f->top = base;
    return 1;
}

/* ---- scalars -------------------------------------------------------------------------------- */

/* Characters that cannot start a plain scalar (block context); `-` can when a non-space follows. */
static bool plain_start(const dra_yfast_t *f, const char *q)
{
    switch (*q) {
    case '-':
        return q + 1 < f->le && q[1] != ' ';
    case '?': case ':': case ',': case '[': case ']': case '{': case '}': case '#': case '&':
    case '*': case '!': case '|': case '>': case '\'': case '"': case '%': case '@': case '`':
        return false;
    default:
        return true;
    }
}

static int dq_escape(char c, char *out)
{
    switch (c) {
    case '\\': *out = '\\'; return 1;
    case '"': *out = '"'; return 1;
    case '/': *out = '/'; return 1;
    case 'n': *out = '\n'; return 1;
    case 't': *out = '\t'; return 1;
    case 'r': *out = '\r'; return 1;
    case 'a': *out = '\a'; return 1;
    case 'b': *out = '\b'; return 1;
    case 'e': *out = 0x1b; return 1;
    case 'f': *out = '\f'; return 1;
    case 'v': *out = '\v'; return 1;
    default: return 0;
    }
}

/* End of the quoted scalar starting at q (its quote) on this line: the closing quote, or NULL
 * when it does not close on the line or holds an escape outside the subset. */
static const char *quoted_end(const dra_yfast_t *f, const char *q)
{
    char qc = *q;
    const char *r = q + 1;
    while (r < f->le) {
        if (qc == '"') {
            if (*r == '"')
                return r;
            if (*r == '\\') {
                char c;
                if (r + 1 >= f->le || !dq_escape(r[1], &c))
                    return NULL;
                r += 2;
                continue;
            }
        } else if (*r == '\'') {
            if (r + 1 < f->le && r[1] == '\'') {
                r += 2;
                continue;
            }
            return r;
        }
        r++;
    }
    return NULL;
}

/* The quoted scalar [q, close] as a node. */
static dra_ynode_t *quoted_node(dra_yfast_t *f, const char *q, const char *close)
{
    size_t raw = (size_t)(close - q - 1);
    dra_ynode_t *n = mk_scalar(f, f->lno, col_of(f, q), q + 1, raw, DRA_YSTYLE_QUOTED);
    if (!n || !memchr(q + 1, *q == '"' ? '\\' : '\'', raw))
        return n;
    char *t = (char *)(n + 1);
    size_t o = 0;
    for (const char *r = q + 1; r < close; r++) {
        if (*q == '"' && *r == '\\') {
            (void)dq_escape(r[1], &t[o++]);
            r++;
        } else {
            t[o++] = *r;
            if (*q == '\'' && *r == '\'')
                r++;
        }
    }
    t[o] = 0;
    n->len = o;
    return n;
}

/* Is the content at q a mapping key? 1: yes, *colon at its `:` (text [q, *kend)); 0: no (a
 * value); -1: decline. */
static int key_at(const dra_yfast_t *f, const char *q, const char **kend, const char **colon)
{
    const char *le = f->le;
    if (*q == '"' || *q == '\'') {
        const char *c = quoted_end(f, q);
        if (!c)
            return -1;
        const char *a = c + 1;
        if (a < le && *a == ':' && (a + 1 == le || a[1] == ' ')) {
            if (a - q > YF_MAX_KEY)
                return -1;
            *kend = c + 1;
            *colon = a;
            return 1;
        }
        while (a < le && *a == ' ')
            a++;
        return a < le && *a == ':' ? -1 : 0;
    }
    if (!plain_start(f, q))
        return (*q == '[' || *q == '{' || (*q == '-' && !is_entry(f, q))) ? 0 : -1;
    for (const char *r = q; r < le; r++) {
        if (*r == ':' && (r + 1 == le || r[1] == ' ')) {
            if (r[-1] == ' ' || r - q > YF_MAX_KEY)
                return -1;
            *kend = r;
            *colon = r;
            return 1;
        }
        if (*r == '#' && r > q && r[-1] == ' ')
            return 0;
    }
    return 0;
}

static dra_ynode_t *key_node(dra_yfast_t *f, const char *q, const char *kend)
{
    if (*q == '"' || *q == '\'')
        return quoted_node(f, q, kend - 1);
    return mk_scalar(f, f->lno, col_of(f, q), q, (size_t)(kend - q), DRA_YSTYLE_PLAIN);
}

/* ---- values --------------------------------------------------------------------------------- */

/* Plain scalars inside flow collections: a run of [A-Za-z0-9._/+=~-] that starts with a letter,
 * a digit, '.', '/', or '-' before a letter or digit (no ':', spaces or indicators inside, so
 * libyaml's flow rules for `:` never come into play). */
static bool flow_plain_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '.' || c == '_' || c == '/' || c == '+' || c == '=' || c == '~' || c == '-';
}

static bool alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static const char *skip_spaces(const char *q, const char *le)
{
    while (q < le && *q == ' ')
        q++;
    return q;
}

/* A flow node at *qp that ends on the current line: a quoted scalar, a plain run, or a flow
 * sequence / mapping of those (`key: value` pairs, `: ` after every key, no trailing comma).
 * On success *qp is just past it. */
static int flow_node(dra_yfast_t *f, const char **qp, int depth, dra_ynode_t **out)
{
    const char *q = *qp, *le = f->le;
    if (q >= le)
        return 0;
    if (*q == '"' || *q == '\'') {
        const char *c = quoted_end(f, q);
        if (!c || !(*out = quoted_node(f, q, c)))
            return 0;
        *qp = c + 1;
        return 1;
    }
    if (*q != '[' && *q != '{') {
        if (!(alnum(*q) || *q == '.' || *q == '/' || (*q == '-' && q + 1 < le && alnum(q[1]))))
            return 0;
        const char *s = q;
        while (q < le && flow_plain_char(*q))
            q++;
        *out = mk_scalar(f, f->lno, col_of(f, s), s, (size_t)(q - s), DRA_YSTYLE_PLAIN);
        *qp = q;
        return *out != NULL;
    }
    if (depth > YF_MAX_DEPTH)
        return 0;
    bool map = *q == '{';
    char close = map ? '}' : ']';
    dra_ynode_t *coll = mk(f, map ? DRA_YNODE_MAP : DRA_YNODE_SEQ, f->lno, col_of(f, q), 0);
    if (!coll)
        return 0;
    size_t base = f->top;
    q = skip_spaces(q + 1, le);
    if (q < le && *q == close) {
        q++;
    } else {
        for (;;) {
            dra_ynode_t *it;
            if (!flow_node(f, &q, depth + 1, &it) || !push(f, it))
                return 0;
            if (map) {
                if (it->type != DRA_YNODE_SCALAR || q + 1 >= le || *q != ':' || q[1] != ' ')
                    return 0;
                q = skip_spaces(q + 2, le);
                if (!flow_node(f, &q, depth + 1, &it) || !push(f, it))
                    return 0;
            }
            q = skip_spaces(q, le);
            if (q < le && *q == close) {
                q++;
                break;
            }
            if (q >= le || *q != ',')
                return 0;
            q = skip_spaces(q + 1, le);
            if (q < le && *q == close)
                return 0; /* trailing comma: let libyaml decide */
        }
    }
    if (!close_coll(f, coll, base))
        return 0;
    *out = coll;
    *qp = q;
    return 1;
}

/* A value on the rest of the current line (f->p at its first character); reads to the next
 * content line. */
static int inline_value(dra_yfast_t *f, int depth, dra_ynode_t **out)
{
    const char *q = f->p, *le = f->le;
    if (*q == '"' || *q == '\'') {
        const char *c = quoted_end(f, q);
        if (!c)
            return 0;
        *out = quoted_node(f, q, c);
        f->p = c + 1;
        return *out ? finish_line(f) : 0;
    }
    if (*q == '[' || *q == '{') {
        if (!flow_node(f, &f->p, depth, out))
            return 0;
        return finish_line(f);
    }
    if (!plain_start(f, q))
        return 0;
    const char *r = q;
    for (; r < le; r++) {
        if (*r == ':' && (r + 1 == le || r[1] == ' '))
            return 0; /* "mapping values are not allowed in this context" */
        if (*r == '#' && r[-1] == ' ')
            break;
    }
    const char *e = r;
    while (e > q && e[-1] == ' ')
        e--;
    *out = mk_scalar(f, f->lno, col_of(f, q), q, (size_t)(e - q), DRA_YSTYLE_PLAIN);
    f->p = e;
    return *out ? finish_line(f) : 0;
}

/* A value on the rest of the line inside a block at column col: the next content line must not
 * be deeper (libyaml would continue a plain scalar there, or fail). */
static int inline_in_block(dra_yfast_t *f, uint32_t col, int depth, dra_ynode_t **out)
{
    return inline_value(f, depth, out) && (f->at_end || col_of(f, f->p) <= col);
}

/* After an entry of the block at column col: push its node v; *more when the next content line
 * is in the block's column (the caller checks what it holds). 0 declines (a deeper line). */
static int block_next(dra_yfast_t *f, dra_ynode_t *v, uint32_t col, bool *more)
{
    *more = false;
    if (!push(f, v))
        return 0;
    if (f->at_end || col_of(f, f->p) < col)
        return 1;
    if (col_of(f, f->p) > col)
        return 0;
    *more = true;
    return 1;
}

static int block_node(dra_yfast_t *f, int depth, dra_ynode_t **out);
static int block_seq(dra_yfast_t *f, uint32_t col, bool indentless, int depth, dra_ynode_t **out);

/* A block mapping whose first key is at f->p, column col. */
static int block_map(dra_yfast_t *f, uint32_t col, int depth, dra_ynode_t **out)
{
    if (depth > YF_MAX_DEPTH)
        return 0;
    dra_ynode_t *map = mk(f, DRA_YNODE_MAP, f->lno, col, 0);
    if (!map)
        return 0;
    size_t base = f->top;
    for (;;) {
        const char *kend, *colon;
        if (key_at(f, f->p, &kend, &colon) != 1)
            return 0;
        if (!push(f, key_node(f, f->p, kend)))
            return 0;
        uint32_t klno = f->lno, after = col_of(f, colon) + 1;
        f->p = colon + 1;
        while (f->p < f->le && *f->p == ' ')
            f->p++;
        dra_ynode_t *v = NULL;
        if (f->p == f->le || *f->p == '#') {
            if (!advance(f))
                return 0;
            uint32_t d = f->at_end ? 0 : col_of(f, f->p);
            if (!f->at_end && d > col) {
                if (!block_node(f, depth + 1, &v))
                    return 0;
            } else if (!f->at_end && d == col && is_entry(f, f->p)) {
                if (!block_seq(f, col, true, depth + 1, &v))
                    return 0;
            } else {
                v = mk_scalar(f, klno, after, "", 0, DRA_YSTYLE_PLAIN);
            }
        } else if (!inline_in_block(f, col, depth + 1, &v)) {
            return 0;
        }
        bool more;
        if (!block_next(f, v, col, &more))
            return 0;
        if (!more)
            break;
        if (is_entry(f, f->p))
            return 0;
    }
    if (!close_coll(f, map, base))
        return 0;
    *out = map;
    return 1;
}

/* A block sequence whose first `-` is at f->p, column col (indentless: the value of a mapping
 * key in the same column, ended by a line in that column that is not an entry). */
static int block_seq(dra_yfast_t *f, uint32_t col, bool indentless, int depth, dra_ynode_t **out)
{
    if (depth > YF_MAX_DEPTH)
        return 0;
    dra_ynode_t *seq = mk(f, DRA_YNODE_SEQ, f->lno, col, 0);
    if (!seq)
        return 0;
    size_t base = f->top;
    for (;;) {
        uint32_t dlno = f->lno;
        f->p++;
        while (f->p < f->le && *f->p == ' ')
            f->p++;
        dra_ynode_t *v = NULL;
        if (f->p == f->le || *f->p == '#') {
            if (!advance(f))
                return 0;
            if (!f->at_end && col_of(f, f->p) > col) {
                if (!block_node(f, depth + 1, &v))
                    return 0;
            } else {
                v = mk_scalar(f, dlno, col + 1, "", 0, DRA_YSTYLE_PLAIN);
            }
        } else if (is_entry(f, f->p)) {
            return 0; /* "- - x": compact nested sequence */
        } else {
            const char *kend, *colon;
            int k = key_at(f, f->p, &kend, &colon);
            if (k < 0)
                return 0;
            if (k == 1) {
                if (!block_map(f, col_of(f, f->p), depth + 1, &v))
                    return 0;
            } else if (!inline_in_block(f, col, depth + 1, &v)) {
                return 0;
            }
        }
        bool more;
        if (!block_next(f, v, col, &more))
            return 0;
        if (!more)
            break;
        if (!is_entry(f, f->p)) {
            if (indentless)
                break;
            return 0;
        }
    }
    if (!close_coll(f, seq, base))
        return 0;
    *out = seq;
    return 1;
}

/* A block collection starting at the content of the current line. */
static int block_node(dra_yfast_t *f, int depth, dra_ynode_t **out)
{
    uint32_t col = col_of(f, f->p);
    if (is_entry(f, f->p))
        return block_seq(f, col, false, depth, out);
    const char *kend, *colon;
    if (key_at(f, f->p, &kend, &colon) != 1)
        return 0; /* a scalar or flow node on its own line: libyaml decides */
    return block_map(f, col, depth, out);
}

/* ---- documents ------------------------------------------------------------------------------ */

void dra_yfast_init(dra_yfast_t *f, const char *buf, size_t len, dra_arena_t *a)
{
    *f = (dra_yfast_t){.buf = buf, .len = len, .arena = a};
}

void dra_yfast_fini(dra_yfast_t *f)
{
    free(f->stk);
    f->stk = NULL;
    f->cap = f->top = 0;
}

int dra_yfast_next(dra_yfast_t *f, dra_ynode_t **root)
{
    *root = NULL;
    if (f->pos >= f->len)
        return DRA_YFAST_END;
    if (f->pos == 0 && f->len >= 3 && memcmp(f->buf, "\xEF\xBB\xBF", 3) == 0)
        return DRA_YFAST_DECLINED;
    f->top = 0;
    f->nnodes = 0;
    f->at_end = 0;
    f->lno = f->lines;
    if (!skip_from(f, f->buf + f->pos))
        return DRA_YFAST_DECLINED;
    if (f->at_end) {
        if (f->ls == f->buf + f->len)
            return DRA_YFAST_END; /* only blanks and comments */
        /* the `---` line: nothing but spaces and a comment may follow the marker */
        const char *q = f->ls + 3;
        while (q < f->le && *q == ' ')
            q++;
        if (q < f->le && *q != '#')
            return DRA_YFAST_DECLINED;
        f->at_end = 0;
        if (!advance(f))
            return DRA_YFAST_DECLINED;
    } else if (f->ndocs > 0) {
        return DRA_YFAST_DECLINED; /* cannot happen: documents end at `---` or the end */
    }
    dra_ynode_t *r = NULL;
    if (!f->at_end) {
        if (!block_node(f, 1, &r) || !f->at_end)
            return DRA_YFAST_DECLINED;
    }
    f->pos = (size_t)(f->ls - f->buf);
    f->lines = f->lno;
    f->ndocs++;
    *root = r;
    return DRA_YFAST_DOC;
}
