/*
 * parse.c - CEL lexer and recursive-descent parser with macro expansion (cel-spec langdef.md).
 *
 * Grammar (precedence from low to high): ?: , ||, &&, relations (< <= >= > == != in),
 * + -, * / %, unary ! -, member (. .? [] [?] calls), primary. Logical chains are built as
 * balanced trees (as cel-go does) so long `||` lists stay shallow. Nesting is bounded
 * (DRA_CEL_MAX_DEPTH) and every node knows its byte offset for error messages.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cel_int.h"

#define DRA_CEL_MAX_DEPTH 200    /* nesting of parenthesised / member / unary expressions */
#define DRA_CEL_MAX_AST_DEPTH 600 /* depth of the built tree */

typedef enum tok_kind {
    T_EOF = 0,
    T_IDENT,
    T_INT,
    T_UINT,
    T_DOUBLE,
    T_STRING,
    T_BYTES,
    T_TRUE,
    T_FALSE,
    T_NULL,
    T_IN,
    T_LPAREN,
    T_RPAREN,
    T_LBRACKET,
    T_RBRACKET,
    T_LBRACE,
    T_RBRACE,
    T_DOT,
    T_COMMA,
    T_COLON,
    T_QUESTION,
    T_PLUS,
    T_MINUS,
    T_STAR,
    T_SLASH,
    T_PERCENT,
    T_NOT,
    T_EQ,
    T_NE,
    T_LT,
    T_LE,
    T_GT,
    T_GE,
    T_AND,
    T_OR,
    T_ERROR
} tok_kind_t;

typedef struct tok {
    tok_kind_t k;
    uint32_t off, len;
    const char *s; /* decoded string / bytes / identifier */
    uint32_t slen;
    union {
        int64_t i;
        uint64_t u;
        double d;
    } v;
    bool neg_ok; /* INT literal text is 9223372036854775808 (only valid after '-') */
} tok_t;

typedef struct parser {
    const char *src;
    size_t len;
    size_t pos;
    const dra_cel_env_t *env;
    dra_arena_t *a;
    dra_diag_t *diag;
    tok_t t; /* current token */
    int depth;
    bool failed;
    bool oom;
} parser_t;

/* ---- diagnostics ------------------------------------------------------------------------------ */

void dra_cel_offset_to_linecol(const char *src, size_t len, uint32_t off, uint32_t *line,
                               uint32_t *col)
{
    uint32_t l = 1, c = 1;
    for (size_t i = 0; i < len && i < off; i++) {
        if (src[i] == '\n') {
            l++;
            c = 1;
        } else if (((unsigned char)src[i] & 0xC0) != 0x80) {
            c++;
        }
    }
    *line = l;
    *col = c;
}

int dra_cel_compile_error(dra_diag_t *diag, const char *src, size_t len, uint32_t off,
                          const char *fmt, ...)
{
    if (!diag)
        return DRA_ECOMPILE;
    uint32_t line, col;
    dra_cel_offset_to_linecol(src, len, off, &line, &col);
    char body[DRA_DIAG_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(body, sizeof body, fmt, ap);
    va_end(ap);
    dra_diag_set(diag, DRA_ECOMPILE, NULL, line, col, "ERROR: <input>:%u:%u: %s", line, col, body);
    diag->offset = off;
    return DRA_ECOMPILE;
}

static void perr(parser_t *p, uint32_t off, const char *fmt, ...) DRA_PRINTF(3, 4);
static void perr(parser_t *p, uint32_t off, const char *fmt, ...)
{
    if (p->failed)
        return;
    p->failed = true;
    char body[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(body, sizeof body, fmt, ap);
    va_end(ap);
    dra_cel_compile_error(p->diag, p->src, p->len, off, "%s", body);
}

/* ---- lexer ---------------------------------------------------------------------------------- */

static bool is_ident_start(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static bool is_digit(int c)
{
    return c >= '0' && c <= '9';
}
static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static size_t utf8_put(char *out, uint32_t cp)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Length of a valid UTF-8 sequence at s (0 when invalid). */
static size_t utf8_valid_len(const unsigned char *s, size_t n)
{
    if (n == 0)
        return 0;
    unsigned c = s[0];
    if (c < 0x80)
        return 1;
    size_t need;
    uint32_t cp;
    if ((c & 0xE0) == 0xC0) {
        need = 2;
        cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
        need = 3;
        cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
        need = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (n < need)
        return 0;
    for (size_t i = 1; i < need; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if ((need == 2 && cp < 0x80) || (need == 3 && cp < 0x800) || (need == 4 && cp < 0x10000) ||
        cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return need;
}

static void skip_ws(parser_t *p)
{
    for (;;) {
        while (p->pos < p->len) {
            char c = p->src[p->pos];
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f')
                p->pos++;
            else
                break;
        }
        if (p->pos + 1 < p->len && p->src[p->pos] == '/' && p->src[p->pos + 1] == '/') {
            while (p->pos < p->len && p->src[p->pos] != '\n')
                p->pos++;
            continue;
        }
        return;
    }
}

/* Lex a quoted literal starting at p->pos (at the quote). */
static void lex_string(parser_t *p, tok_t *t, bool raw, bool bytes)
{
    const char *s = p->src;
    size_t n = p->len, i = p->pos;
    char q = s[i];
    bool triple = i + 2 < n && s[i + 1] == q && s[i + 2] == q;
    i += triple ? 3 : 1;
    /* worst case the decoded text is as long as the source */
    char *out = dra_arena_alloc(p->a, n - p->pos + 4, 1);
    if (!out) {
        p->oom = true;
        t->k = T_ERROR;
        return;
    }
    size_t o = 0;
    for (;;) {
        if (i >= n) {
            perr(p, t->off, "Syntax error: token recognition error at: '%.*s'",
                 (int)DRA_MIN(n - t->off, 20), s + t->off);
            t->k = T_ERROR;
            return;
        }
        char c = s[i];
        if (triple) {
            if (c == q && i + 2 < n && s[i + 1] == q && s[i + 2] == q) {
                i += 3;
                break;
            }
        } else {
            if (c == q) {
                i++;
                break;
            }
            if (c == '\n' || c == '\r') {
                perr(p, t->off, "Syntax error: token recognition error at: '%.*s'",
                     (int)(i - t->off), s + t->off);
                t->k = T_ERROR;
                return;
            }
        }
        if (c == '\\' && !raw) {
            if (i + 1 >= n) {
                perr(p, (uint32_t)i, "Syntax error: invalid escape sequence");
                t->k = T_ERROR;
                return;
            }
            char e = s[i + 1];
            i += 2;
            switch (e) {
            case 'a': out[o++] = '\a'; break;
            case 'b': out[o++] = '\b'; break;
            case 'f': out[o++] = '\f'; break;
            case 'n': out[o++] = '\n'; break;
            case 'r': out[o++] = '\r'; break;
            case 't': out[o++] = '\t'; break;
            case 'v': out[o++] = '\v'; break;
            case '\\': out[o++] = '\\'; break;
            case '\'': out[o++] = '\''; break;
            case '"': out[o++] = '"'; break;
            case '`': out[o++] = '`'; break;
            case '?': out[o++] = '?'; break;
            case 'x':
            case 'X':
            case 'u':
            case 'U': {
                int nd = (e == 'x' || e == 'X') ? 2 : (e == 'u' ? 4 : 8);
                uint32_t cp = 0;
                for (int k = 0; k < nd; k++) {
                    int h = i + (size_t)k < n ? hexval((unsigned char)s[i + (size_t)k]) : -1;
                    if (h < 0) {
                        perr(p, (uint32_t)(i - 2), "Syntax error: invalid escape sequence");
                        t->k = T_ERROR;
                        return;
                    }
                    cp = cp * 16 + (uint32_t)h;
                }
                i += (size_t)nd;
                if (bytes && nd == 2) {
                    out[o++] = (char)cp;
                } else {
                    if (bytes && nd > 2) {
                        perr(p, (uint32_t)(i - (size_t)nd - 2),
                             "Syntax error: unicode escape in bytes literal");
                        t->k = T_ERROR;
                        return;
                    }
                    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
                        perr(p, (uint32_t)(i - (size_t)nd - 2),
                             "Syntax error: invalid unicode code point");
                        t->k = T_ERROR;
                        return;
                    }
                    o += utf8_put(out + o, cp);
                }
                break;
            }
            default:
                if (e >= '0' && e <= '3' && i + 1 < n && s[i] >= '0' && s[i] <= '7' &&
                    s[i + 1] >= '0' && s[i + 1] <= '7') {
                    uint32_t cp = (uint32_t)((e - '0') * 64 + (s[i] - '0') * 8 + (s[i + 1] - '0'));
                    i += 2;
                    if (bytes)
                        out[o++] = (char)cp;
                    else
                        o += utf8_put(out + o, cp);
                    break;
                }
                perr(p, (uint32_t)(i - 2), "Syntax error: invalid escape sequence '\\%c'", e);
                t->k = T_ERROR;
                return;
            }
            continue;
        }
        /* copy one (UTF-8) character */
        size_t cl = utf8_valid_len((const unsigned char *)s + i, n - i);
        if (cl == 0) {
            perr(p, (uint32_t)i, "Syntax error: invalid UTF-8 in literal");
            t->k = T_ERROR;
            return;
        }
        memcpy(out + o, s + i, cl);
        o += cl;
        i += cl;
    }
    if (!bytes) {
        /* octal escapes in strings are code points; \x too; validate the result is UTF-8 */
        for (size_t k = 0; k < o;) {
            size_t cl = utf8_valid_len((const unsigned char *)out + k, o - k);
            if (!cl) {
                perr(p, t->off, "Syntax error: invalid UTF-8 in string literal");
                t->k = T_ERROR;
                return;
            }
            k += cl;
        }
    }
    out[o] = 0;
    t->k = bytes ? T_BYTES : T_STRING;
    t->s = out;
    t->slen = (uint32_t)o;
    p->pos = i;
}

static void lex_number(parser_t *p, tok_t *t)
{
    const char *s = p->src;
    size_t n = p->len, i = p->pos;
    if (s[i] == '0' && i + 1 < n && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
        size_t j = i + 2;
        uint64_t v = 0;
        bool ovf = false;
        while (j < n && hexval((unsigned char)s[j]) >= 0) {
            if (v > (UINT64_MAX >> 4))
                ovf = true;
            v = v * 16 + (uint64_t)hexval((unsigned char)s[j]);
            j++;
        }
        if (j == i + 2) {
            perr(p, (uint32_t)i, "Syntax error: invalid hex literal");
            t->k = T_ERROR;
            return;
        }
        bool u = j < n && (s[j] == 'u' || s[j] == 'U');
        if (u)
            j++;
        p->pos = j;
        if (ovf || (!u && v > (uint64_t)INT64_MAX + 1) || (!u && v == (uint64_t)INT64_MAX + 1 && false)) {
            perr(p, t->off, "invalid %s literal", u ? "uint" : "int");
            t->k = T_ERROR;
            return;
        }
        if (u) {
            t->k = T_UINT;
            t->v.u = v;
        } else {
            t->k = T_INT;
            t->neg_ok = v == (uint64_t)INT64_MAX + 1;
            t->v.u = v;
        }
        return;
    }
    size_t j = i;
    while (j < n && is_digit((unsigned char)s[j]))
        j++;
    bool is_float = false;
    if (j + 1 < n && s[j] == '.' && is_digit((unsigned char)s[j + 1])) {
        is_float = true;
        j++;
        while (j < n && is_digit((unsigned char)s[j]))
            j++;
    }
    if (j < n && (s[j] == 'e' || s[j] == 'E')) {
        size_t k = j + 1;
        if (k < n && (s[k] == '+' || s[k] == '-'))
            k++;
        if (k < n && is_digit((unsigned char)s[k])) {
            while (k < n && is_digit((unsigned char)s[k]))
                k++;
            j = k;
            is_float = true;
        }
    }
    char buf[400];
    size_t tl = j - i;
    if (tl >= sizeof buf) {
        perr(p, (uint32_t)i, "Syntax error: number literal too long");
        t->k = T_ERROR;
        return;
    }
    memcpy(buf, s + i, tl);
    buf[tl] = 0;
    if (is_float) {
        t->k = T_DOUBLE;
        t->v.d = strtod(buf, NULL);
        p->pos = j;
        return;
    }
    bool u = j < n && (s[j] == 'u' || s[j] == 'U');
    errno = 0;
    unsigned long long v = strtoull(buf, NULL, 10);
    bool ovf = errno == ERANGE;
    p->pos = u ? j + 1 : j;
    if (u) {
        if (ovf) {
            perr(p, t->off, "invalid uint literal");
            t->k = T_ERROR;
            return;
        }
        t->k = T_UINT;
        t->v.u = v;
        return;
    }
    if (ovf || v > (uint64_t)INT64_MAX + 1) {
        perr(p, t->off, "invalid int literal");
        t->k = T_ERROR;
        return;
    }
    t->k = T_INT;
    t->neg_ok = v == (uint64_t)INT64_MAX + 1;
    t->v.u = v;
}

static void next(parser_t *p)
{
    tok_t *t = &p->t;
    memset(t, 0, sizeof *t);
    skip_ws(p);
    t->off = (uint32_t)p->pos;
    if (p->pos >= p->len) {
        t->k = T_EOF;
        return;
    }
    const char *s = p->src;
    char c = s[p->pos];
    char d = p->pos + 1 < p->len ? s[p->pos + 1] : 0;
    /* string prefixes */
    if (is_ident_start((unsigned char)c)) {
        size_t i = p->pos;
        bool raw = false, bytes = false;
        size_t k = i;
        for (int m = 0; m < 2 && k < p->len; m++) {
            char x = s[k];
            if ((x == 'r' || x == 'R') && !raw) {
                raw = true;
                k++;
            } else if ((x == 'b' || x == 'B') && !bytes) {
                bytes = true;
                k++;
            } else {
                break;
            }
        }
        if (k > i && k < p->len && (s[k] == '"' || s[k] == '\'')) {
            p->pos = k;
            lex_string(p, t, raw, bytes);
            t->len = (uint32_t)(p->pos - t->off);
            return;
        }
        size_t j = i;
        while (j < p->len && (is_ident_start((unsigned char)s[j]) || is_digit((unsigned char)s[j])))
            j++;
        p->pos = j;
        t->len = (uint32_t)(j - i);
        t->s = s + i;
        t->slen = t->len;
        if (t->len == 4 && !memcmp(s + i, "true", 4))
            t->k = T_TRUE;
        else if (t->len == 5 && !memcmp(s + i, "false", 5))
            t->k = T_FALSE;
        else if (t->len == 4 && !memcmp(s + i, "null", 4))
            t->k = T_NULL;
        else if (t->len == 2 && !memcmp(s + i, "in", 2))
            t->k = T_IN;
        else
            t->k = T_IDENT;
        return;
    }
    if (is_digit((unsigned char)c) || (c == '.' && is_digit((unsigned char)d))) {
        lex_number(p, t);
        t->len = (uint32_t)(p->pos - t->off);
        return;
    }
    if (c == '"' || c == '\'') {
        lex_string(p, t, false, false);
        t->len = (uint32_t)(p->pos - t->off);
        return;
    }
    if (c == '`') {
        /* escaped field name (only valid after '.') */
        size_t j = p->pos + 1;
        while (j < p->len && s[j] != '`' && s[j] != '\n')
            j++;
        if (j >= p->len || s[j] != '`' || j == p->pos + 1) {
            perr(p, t->off, "Syntax error: token recognition error at: '`'");
            t->k = T_ERROR;
            return;
        }
        t->k = T_IDENT;
        t->s = dra_arena_strndup(p->a, s + p->pos + 1, j - p->pos - 1);
        t->slen = (uint32_t)(j - p->pos - 1);
        t->neg_ok = true; /* marks a quoted identifier */
        p->pos = j + 1;
        t->len = (uint32_t)(p->pos - t->off);
        return;
    }
    tok_kind_t k = T_ERROR;
    size_t l = 1;
    switch (c) {
    case '(': k = T_LPAREN; break;
    case ')': k = T_RPAREN; break;
    case '[': k = T_LBRACKET; break;
    case ']': k = T_RBRACKET; break;
    case '{': k = T_LBRACE; break;
    case '}': k = T_RBRACE; break;
    case '.': k = T_DOT; break;
    case ',': k = T_COMMA; break;
    case ':': k = T_COLON; break;
    case '?': k = T_QUESTION; break;
    case '+': k = T_PLUS; break;
    case '-': k = T_MINUS; break;
    case '*': k = T_STAR; break;
    case '/': k = T_SLASH; break;
    case '%': k = T_PERCENT; break;
    case '!':
        if (d == '=') {
            k = T_NE;
            l = 2;
        } else {
            k = T_NOT;
        }
        break;
    case '=':
        if (d == '=') {
            k = T_EQ;
            l = 2;
        }
        break;
    case '<':
        if (d == '=') {
            k = T_LE;
            l = 2;
        } else {
            k = T_LT;
        }
        break;
    case '>':
        if (d == '=') {
            k = T_GE;
            l = 2;
        } else {
            k = T_GT;
        }
        break;
    case '&':
        if (d == '&') {
            k = T_AND;
            l = 2;
        }
        break;
    case '|':
        if (d == '|') {
            k = T_OR;
            l = 2;
        }
        break;
    default:
        break;
    }
    if (k == T_ERROR) {
        size_t cl = utf8_valid_len((const unsigned char *)s + p->pos, p->len - p->pos);
        perr(p, t->off, "Syntax error: token recognition error at: '%.*s'", (int)(cl ? cl : 1),
             s + p->pos);
        t->k = T_ERROR;
        return;
    }
    t->k = k;
    t->len = (uint32_t)l;
    p->pos += l;
}


static uint32_t h_of(const dra_cel_expr_t *e)
{
    return e ? e->height : 0;
}

/* Compute the height of a finished node from its children and enforce the depth limit. */
static dra_cel_expr_t *fin(parser_t *p, dra_cel_expr_t *e)
{
    if (!e)
        return NULL;
    uint32_t d = 0;
    switch (e->kind) {
    case DRA_CEL_E_SELECT:
        d = h_of(e->u.sel.operand);
        break;
    case DRA_CEL_E_CALL:
        d = h_of(e->u.call.target);
        for (uint32_t i = 0; i < e->u.call.nargs; i++)
            d = DRA_MAX(d, h_of(e->u.call.args[i]));
        break;
    case DRA_CEL_E_LIST:
        for (uint32_t i = 0; i < e->u.list.n; i++)
            d = DRA_MAX(d, h_of(e->u.list.elems[i]));
        break;
    case DRA_CEL_E_MAP:
        for (uint32_t i = 0; i < e->u.map.n; i++)
            d = DRA_MAX(d, DRA_MAX(h_of(e->u.map.keys[i]), h_of(e->u.map.vals[i])));
        break;
    case DRA_CEL_E_COMPR:
        d = DRA_MAX(h_of(e->u.compr.range), h_of(e->u.compr.init));
        d = DRA_MAX(d, DRA_MAX(h_of(e->u.compr.step), h_of(e->u.compr.cond)));
        d = DRA_MAX(d, h_of(e->u.compr.result));
        break;
    default:
        break;
    }
    if (d + 1 > DRA_CEL_MAX_AST_DEPTH) {
        perr(p, e->offset, "expression recursion limit exceeded (max depth %d)",
             DRA_CEL_MAX_AST_DEPTH);
        return NULL;
    }
    e->height = (uint16_t)(d + 1);
    return e;
}

/* ---- node construction ---------------------------------------------------------------------- */

static dra_cel_expr_t *node(parser_t *p, dra_cel_ekind_t k, uint32_t off)
{
    dra_cel_expr_t *e = dra_arena_calloc(p->a, 1, sizeof *e, _Alignof(dra_cel_expr_t));
    if (!e) {
        p->oom = true;
        p->failed = true;
        return NULL;
    }
    e->kind = (uint8_t)k;
    e->offset = off;
    e->height = 1;
    return e;
}

static dra_cel_expr_t *call(parser_t *p, uint32_t off, const char *name, dra_cel_expr_t *target,
                            uint32_t nargs, ...)
{
    dra_cel_expr_t *e = node(p, DRA_CEL_E_CALL, off);
    if (!e)
        return NULL;
    e->u.call.name = name;
    e->u.call.target = target;
    e->u.call.nargs = nargs;
    if (nargs) {
        e->u.call.args = dra_arena_alloc(p->a, nargs * sizeof(dra_cel_expr_t *), 8);
        if (!e->u.call.args) {
            p->oom = p->failed = true;
            return NULL;
        }
        va_list ap;
        va_start(ap, nargs);
        for (uint32_t i = 0; i < nargs; i++)
            e->u.call.args[i] = va_arg(ap, dra_cel_expr_t *);
        va_end(ap);
        for (uint32_t i = 0; i < nargs; i++)
            if (!e->u.call.args[i])
                return NULL;
    }
    return fin(p, e);
}

static dra_cel_expr_t *ident(parser_t *p, uint32_t off, const char *name)
{
    dra_cel_expr_t *e = node(p, DRA_CEL_E_IDENT, off);
    if (e)
        e->u.ident.name = name;
    return e;
}

static dra_cel_expr_t *cnst(parser_t *p, uint32_t off, dra_cel_val_t v)
{
    dra_cel_expr_t *e = node(p, DRA_CEL_E_CONST, off);
    if (e)
        e->u.c = v;
    return e;
}

static dra_cel_expr_t *empty_list(parser_t *p, uint32_t off)
{
    return node(p, DRA_CEL_E_LIST, off);
}

static const char *pstrdup(parser_t *p, const char *s, size_t n)
{
    char *r = dra_arena_strndup(p->a, s, n);
    if (!r)
        p->oom = p->failed = true;
    return r;
}

/* ---- macros --------------------------------------------------------------------------------- */

#define ACCU "@result"

static dra_cel_expr_t *compr(parser_t *p, uint32_t off, const char *iv, const char *iv2,
                             dra_cel_expr_t *range, dra_cel_expr_t *init, dra_cel_expr_t *cond,
                             dra_cel_expr_t *step, dra_cel_expr_t *result)
{
    dra_cel_expr_t *e = node(p, DRA_CEL_E_COMPR, off);
    if (!e || !range || !init || !cond || !step || !result)
        return NULL;
    e->u.compr.iter_var = iv;
    e->u.compr.iter_var2 = iv2;
    e->u.compr.accu_var = ACCU;
    e->u.compr.range = range;
    e->u.compr.init = init;
    e->u.compr.cond = cond;
    e->u.compr.step = step;
    e->u.compr.result = result;
    return fin(p, e);
}

static const char *macro_var(parser_t *p, dra_cel_expr_t *e, const char *macro)
{
    if (!e || e->kind != DRA_CEL_E_IDENT) {
        perr(p, e ? e->offset : 0, "%s argument must be a simple name", macro);
        return NULL;
    }
    if (!strcmp(e->u.ident.name, ACCU)) {
        perr(p, e->offset, "iteration variable overwrites accumulator variable");
        return NULL;
    }
    return e->u.ident.name;
}

static dra_cel_val_t vbool(bool b)
{
    return dra_cel_bool(b);
}

/* Try to expand a macro; returns NULL and sets *handled=false when it is not one. */
static dra_cel_expr_t *expand_macro(parser_t *p, uint32_t off, const char *name,
                                    dra_cel_expr_t *target, dra_cel_expr_t **args, uint32_t n,
                                    bool *handled)
{
    *handled = true;
    if (!target && !strcmp(name, "has") && n == 1) {
        dra_cel_expr_t *a = args[0];
        if (!a || a->kind != DRA_CEL_E_SELECT || (a->flags & DRA_CEL_SEL_OPTIONAL)) {
            perr(p, a ? a->offset : off, "invalid argument to has() macro");
            return NULL;
        }
        a->flags |= DRA_CEL_SEL_TEST_ONLY;
        a->offset = off;
        return a;
    }
    if (target && target->kind == DRA_CEL_E_IDENT && !strcmp(target->u.ident.name, "cel") &&
        !strcmp(name, "bind") && n == 3) {
        const char *v = macro_var(p, args[0], "cel.bind()");
        if (!v)
            return NULL;
        dra_cel_expr_t *e = node(p, DRA_CEL_E_COMPR, off);
        if (!e)
            return NULL;
        e->u.compr.iter_var = "#unused";
        e->u.compr.accu_var = v;
        e->u.compr.range = empty_list(p, off);
        e->u.compr.init = args[1];
        e->u.compr.cond = cnst(p, off, vbool(false));
        e->u.compr.step = ident(p, off, v);
        e->u.compr.result = args[2];
        return fin(p, e);
    }
    if (!target) {
        *handled = false;
        return NULL;
    }
    bool all = !strcmp(name, "all"), exists = !strcmp(name, "exists");
    bool one = !strcmp(name, "exists_one") || !strcmp(name, "existsOne");
    if ((all || exists || one) && (n == 2 || n == 3)) {
        const char *v = macro_var(p, args[0], name);
        const char *v2 = NULL;
        if (!v)
            return NULL;
        if (n == 3) {
            v2 = macro_var(p, args[1], name);
            if (!v2)
                return NULL;
            if (!strcmp(v, v2)) {
                perr(p, args[1]->offset, "duplicate variable name: %s", v);
                return NULL;
            }
        }
        dra_cel_expr_t *pred = args[n - 1];
        if (all)
            return compr(p, off, v, v2, target, cnst(p, off, vbool(true)),
                         call(p, off, "@not_strictly_false", NULL, 1, ident(p, off, ACCU)),
                         call(p, off, "_&&_", NULL, 2, ident(p, off, ACCU), pred),
                         ident(p, off, ACCU));
        if (exists)
            return compr(p, off, v, v2, target, cnst(p, off, vbool(false)),
                         call(p, off, "@not_strictly_false", NULL, 1,
                              call(p, off, "!_", NULL, 1, ident(p, off, ACCU))),
                         call(p, off, "_||_", NULL, 2, ident(p, off, ACCU), pred),
                         ident(p, off, ACCU));
        return compr(p, off, v, v2, target, cnst(p, off, dra_cel_int(0)),
                     cnst(p, off, vbool(true)),
                     call(p, off, "_?_:_", NULL, 3, pred,
                          call(p, off, "_+_", NULL, 2, ident(p, off, ACCU),
                               cnst(p, off, dra_cel_int(1))),
                          ident(p, off, ACCU)),
                     call(p, off, "_==_", NULL, 2, ident(p, off, ACCU),
                          cnst(p, off, dra_cel_int(1))));
    }
    if ((!strcmp(name, "map") && (n == 2 || n == 3)) || (!strcmp(name, "filter") && n == 2)) {
        const char *v = macro_var(p, args[0], name);
        if (!v)
            return NULL;
        bool filter = name[0] == 'f';
        dra_cel_expr_t *elem = filter ? ident(p, off, v) : args[n - 1];
        dra_cel_expr_t *app = call(p, off, "@append", NULL, 2, ident(p, off, ACCU), elem);
        dra_cel_expr_t *step = app;
        if (filter)
            step = call(p, off, "_?_:_", NULL, 3, args[1], app, ident(p, off, ACCU));
        else if (n == 3)
            step = call(p, off, "_?_:_", NULL, 3, args[1], app, ident(p, off, ACCU));
        return compr(p, off, v, NULL, target, empty_list(p, off), cnst(p, off, vbool(true)), step,
                     ident(p, off, ACCU));
    }
    bool tl = !strcmp(name, "transformList"), tm = !strcmp(name, "transformMap"),
         tme = !strcmp(name, "transformMapEntry");
    if ((tl || tm || tme) && (n == 3 || n == 4)) {
        const char *v = macro_var(p, args[0], name), *v2 = v ? macro_var(p, args[1], name) : NULL;
        if (!v || !v2)
            return NULL;
        if (!strcmp(v, v2)) {
            perr(p, args[1]->offset, "duplicate variable name: %s", v);
            return NULL;
        }
        dra_cel_expr_t *step;
        dra_cel_expr_t *init;
        if (tl) {
            step = call(p, off, "@append", NULL, 2, ident(p, off, ACCU), args[n - 1]);
            init = empty_list(p, off);
        } else if (tm) {
            step = call(p, off, "@mapinsert", NULL, 3, ident(p, off, ACCU), ident(p, off, v),
                        args[n - 1]);
            init = node(p, DRA_CEL_E_MAP, off);
        } else {
            step = call(p, off, "@mapinsert", NULL, 2, ident(p, off, ACCU), args[n - 1]);
            init = node(p, DRA_CEL_E_MAP, off);
        }
        if (n == 4)
            step = call(p, off, "_?_:_", NULL, 3, args[2], step, ident(p, off, ACCU));
        return compr(p, off, v, v2, target, init, cnst(p, off, vbool(true)), step,
                     ident(p, off, ACCU));
    }
    if ((!strcmp(name, "optMap") || !strcmp(name, "optFlatMap")) && n == 2) {
        const char *v = macro_var(p, args[0], name);
        if (!v)
            return NULL;
        bool flat = name[3] == 'F';
        /* target.hasValue() ? [optional.of](cel.bind(v, target.value(), expr)) : optional.none() */
        dra_cel_expr_t *bind = node(p, DRA_CEL_E_COMPR, off);
        if (!bind)
            return NULL;
        bind->u.compr.iter_var = "#unused";
        bind->u.compr.accu_var = v;
        bind->u.compr.range = empty_list(p, off);
        bind->u.compr.init = call(p, off, "value", target, 0);
        bind->u.compr.cond = cnst(p, off, vbool(false));
        bind->u.compr.step = ident(p, off, v);
        bind->u.compr.result = args[1];
        if (!fin(p, bind))
            return NULL;
        dra_cel_expr_t *some = flat ? bind : call(p, off, "of", ident(p, off, "optional"), 1, bind);
        return call(p, off, "_?_:_", NULL, 3, call(p, off, "hasValue", target, 0), some,
                    call(p, off, "none", ident(p, off, "optional"), 0));
    }
    if (!strcmp(name, "sortBy") && n == 2) {
        const char *v = macro_var(p, args[0], name);
        if (!v)
            return NULL;
        dra_cel_expr_t *keys =
            compr(p, off, v, NULL, target, empty_list(p, off), cnst(p, off, vbool(true)),
                  call(p, off, "@append", NULL, 2, ident(p, off, ACCU), args[1]),
                  ident(p, off, ACCU));
        return call(p, off, "@sortByAssociatedKeys", NULL, 2, target, keys);
    }
    *handled = false;
    return NULL;
}

/* ---- parser --------------------------------------------------------------------------------- */

static dra_cel_expr_t *parse_expr(parser_t *p);

static bool accept(parser_t *p, tok_kind_t k)
{
    if (p->t.k == k) {
        next(p);
        return true;
    }
    return false;
}

static const char *tok_text(parser_t *p, char *buf, size_t n)
{
    if (p->t.k == T_EOF)
        return "<EOF>";
    snprintf(buf, n, "'%.*s'", (int)DRA_MIN(p->t.len, 40u), p->src + p->t.off);
    return buf;
}

static bool expect(parser_t *p, tok_kind_t k, const char *what)
{
    if (p->t.k == k) {
        next(p);
        return true;
    }
    char b[64];
    if (p->t.k != T_ERROR)
        perr(p, p->t.off, "Syntax error: mismatched input %s expecting %s", tok_text(p, b, sizeof b),
             what);
    p->failed = true;
    return false;
}

static bool enter(parser_t *p)
{
    if (++p->depth > DRA_CEL_MAX_DEPTH) {
        perr(p, p->t.off, "Syntax error: expression recursion limit exceeded (max depth %d)",
             DRA_CEL_MAX_DEPTH);
        return false;
    }
    return true;
}

/* Parse comma-separated arguments up to `close`. */
static dra_cel_expr_t **parse_args(parser_t *p, tok_kind_t close, uint32_t *n)
{
    dra_cel_expr_t *stack[16];
    dra_cel_expr_t **v = stack;
    uint32_t cnt = 0, cap = 16;
    *n = 0;
    if (p->t.k != close) {
        for (;;) {
            dra_cel_expr_t *e = parse_expr(p);
            if (!e)
                return NULL;
            if (cnt == cap) {
                dra_cel_expr_t **nv = dra_arena_alloc(p->a, cap * 2 * sizeof *nv, 8);
                if (!nv) {
                    p->oom = p->failed = true;
                    return NULL;
                }
                memcpy(nv, v, cnt * sizeof *nv);
                v = nv;
                cap *= 2;
            }
            v[cnt++] = e;
            if (!accept(p, T_COMMA))
                break;
        }
    }
    if (!expect(p, close, close == T_RPAREN ? "')'" : "']'"))
        return NULL;
    dra_cel_expr_t **out = dra_arena_alloc(p->a, (cnt ? cnt : 1) * sizeof *out, 8);
    if (!out) {
        p->oom = p->failed = true;
        return NULL;
    }
    memcpy(out, v, cnt * sizeof *out);
    *n = cnt;
    return out;
}

static dra_cel_expr_t *make_call(parser_t *p, uint32_t off, const char *name, dra_cel_expr_t *target,
                                 dra_cel_expr_t **args, uint32_t n)
{
    if (!p->env || !p->env->no_macros) {
        bool handled;
        dra_cel_expr_t *m = expand_macro(p, off, name, target, args, n, &handled);
        if (handled)
            return m;
    }
    dra_cel_expr_t *e = node(p, DRA_CEL_E_CALL, off);
    if (!e)
        return NULL;
    e->u.call.name = name;
    e->u.call.target = target;
    e->u.call.args = args;
    e->u.call.nargs = n;
    return fin(p, e);
}

static const char *const reserved[] = {"as",   "break",   "const",     "continue", "else",
                                       "for",  "function", "if",       "import",   "let",
                                       "loop", "package", "namespace", "return",   "var",
                                       "void", "while"};

static bool is_reserved(const char *s, size_t n)
{
    for (size_t i = 0; i < DRA_ARRAY_LEN(reserved); i++)
        if (strlen(reserved[i]) == n && !memcmp(reserved[i], s, n))
            return true;
    return false;
}

static dra_cel_expr_t *parse_primary(parser_t *p)
{
    tok_t t = p->t;
    char b[64];
    switch (t.k) {
    case T_INT:
        if (t.neg_ok) {
            perr(p, t.off, "invalid int literal");
            return NULL;
        }
        next(p);
        return cnst(p, t.off, dra_cel_int((int64_t)t.v.u));
    case T_UINT:
        next(p);
        return cnst(p, t.off, dra_cel_uint(t.v.u));
    case T_DOUBLE:
        next(p);
        return cnst(p, t.off, dra_cel_double(t.v.d));
    case T_STRING:
        next(p);
        return cnst(p, t.off, dra_cel_str(t.s, t.slen));
    case T_BYTES: {
        next(p);
        dra_cel_val_t v = dra_cel_str(t.s, t.slen);
        v.kind = DRA_CEL_BYTES;
        return cnst(p, t.off, v);
    }
    case T_TRUE:
    case T_FALSE:
        next(p);
        return cnst(p, t.off, vbool(t.k == T_TRUE));
    case T_NULL: {
        next(p);
        dra_cel_val_t v = {.kind = DRA_CEL_NULL};
        return cnst(p, t.off, v);
    }
    case T_LPAREN: {
        next(p);
        dra_cel_expr_t *e = parse_expr(p);
        if (!e || !expect(p, T_RPAREN, "')'"))
            return NULL;
        return e;
    }
    case T_LBRACKET: {
        next(p);
        dra_cel_expr_t *e = node(p, DRA_CEL_E_LIST, t.off);
        if (!e)
            return NULL;
        dra_cel_expr_t *stack[8], **v = stack;
        uint8_t ostack[8], *o = ostack;
        uint32_t cnt = 0, cap = 8;
        while (p->t.k != T_RBRACKET) {
            bool opt = accept(p, T_QUESTION);
            dra_cel_expr_t *x = parse_expr(p);
            if (!x)
                return NULL;
            if (cnt == cap) {
                dra_cel_expr_t **nv = dra_arena_alloc(p->a, cap * 2 * sizeof *nv, 8);
                uint8_t *no = dra_arena_alloc(p->a, cap * 2, 1);
                if (!nv || !no) {
                    p->oom = p->failed = true;
                    return NULL;
                }
                memcpy(nv, v, cnt * sizeof *nv);
                memcpy(no, o, cnt);
                v = nv;
                o = no;
                cap *= 2;
            }
            o[cnt] = opt;
            v[cnt++] = x;
            if (!accept(p, T_COMMA))
                break;
        }
        if (!expect(p, T_RBRACKET, "']'"))
            return NULL;
        e->u.list.n = cnt;
        e->u.list.elems = dra_arena_alloc(p->a, (cnt ? cnt : 1) * sizeof(dra_cel_expr_t *), 8);
        e->u.list.optional = dra_arena_alloc(p->a, cnt ? cnt : 1, 1);
        if (!e->u.list.elems || !e->u.list.optional) {
            p->oom = p->failed = true;
            return NULL;
        }
        memcpy(e->u.list.elems, v, cnt * sizeof *v);
        memcpy(e->u.list.optional, o, cnt);
        return fin(p, e);
    }
    case T_LBRACE: {
        next(p);
        dra_cel_expr_t *e = node(p, DRA_CEL_E_MAP, t.off);
        if (!e)
            return NULL;
        uint32_t cnt = 0, cap = 0;
        dra_cel_expr_t **ks = NULL, **vs = NULL;
        uint8_t *os = NULL;
        while (p->t.k != T_RBRACE) {
            bool opt = accept(p, T_QUESTION);
            dra_cel_expr_t *k = parse_expr(p);
            if (!k || !expect(p, T_COLON, "':'"))
                return NULL;
            dra_cel_expr_t *v = parse_expr(p);
            if (!v)
                return NULL;
            if (cnt == cap) {
                uint32_t nc = cap ? cap * 2 : 8;
                dra_cel_expr_t **nk = dra_arena_alloc(p->a, nc * sizeof *nk, 8);
                dra_cel_expr_t **nv = dra_arena_alloc(p->a, nc * sizeof *nv, 8);
                uint8_t *no = dra_arena_alloc(p->a, nc, 1);
                if (!nk || !nv || !no) {
                    p->oom = p->failed = true;
                    return NULL;
                }
                if (cnt) {
                    memcpy(nk, ks, cnt * sizeof *nk);
                    memcpy(nv, vs, cnt * sizeof *nv);
                    memcpy(no, os, cnt);
                }
                ks = nk;
                vs = nv;
                os = no;
                cap = nc;
            }
            ks[cnt] = k;
            vs[cnt] = v;
            os[cnt] = opt;
            cnt++;
            if (!accept(p, T_COMMA))
                break;
        }
        if (!expect(p, T_RBRACE, "'}'"))
            return NULL;
        e->u.map.keys = ks;
        e->u.map.vals = vs;
        e->u.map.optional = os;
        e->u.map.n = cnt;
        return fin(p, e);
    }
    case T_DOT:
    case T_IDENT: {
        bool leading_dot = false;
        if (t.k == T_DOT) {
            next(p);
            leading_dot = true;
            if (p->t.k != T_IDENT) {
                perr(p, p->t.off, "Syntax error: mismatched input %s expecting IDENTIFIER",
                     tok_text(p, b, sizeof b));
                return NULL;
            }
            t = p->t;
        }
        if (t.neg_ok) { /* backquoted */
            perr(p, t.off, "Syntax error: quoted identifiers are only allowed as field names");
            return NULL;
        }
        if (is_reserved(t.s, t.slen)) {
            perr(p, t.off, "reserved identifier: %.*s", (int)t.slen, t.s);
            return NULL;
        }
        next(p);
        const char *name = pstrdup(p, t.s, t.slen);
        if (!name)
            return NULL;
        if (p->t.k == T_LPAREN) {
            next(p);
            uint32_t n;
            dra_cel_expr_t **args = parse_args(p, T_RPAREN, &n);
            if (!args)
                return NULL;
            return make_call(p, t.off, name, NULL, args, n);
        }
        if (p->t.k == T_LBRACE && !p->failed) {
            perr(p, p->t.off, "unsupported syntax: message construction '%s{...}'", name);
            return NULL;
        }
        (void)leading_dot;
        return ident(p, t.off, name);
    }
    case T_ERROR:
        p->failed = true;
        return NULL;
    default:
        if (t.k == T_EOF)
            perr(p, t.off, "Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', "
                           "'-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, "
                           "STRING, BYTES, IDENTIFIER}");
        else
            perr(p, t.off, "Syntax error: extraneous input %s expecting {'[', '{', '(', '.', '-', "
                           "'!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, "
                           "BYTES, IDENTIFIER}",
                 tok_text(p, b, sizeof b));
        return NULL;
    }
}

static dra_cel_expr_t *parse_member_tail(parser_t *p, dra_cel_expr_t *e)
{
    char b[64];
    while (e && !p->failed) {
        if (p->t.k == T_DOT) {
            uint32_t off = p->t.off;
            next(p);
            bool opt = accept(p, T_QUESTION);
            if (p->t.k != T_IDENT) {
                perr(p, p->t.off, "Syntax error: mismatched input %s expecting IDENTIFIER",
                     tok_text(p, b, sizeof b));
                return NULL;
            }
            tok_t id = p->t;
            next(p);
            const char *name = pstrdup(p, id.s, id.slen);
            if (!name)
                return NULL;
            if (p->t.k == T_LPAREN && !opt) {
                if (id.neg_ok) {
                    perr(p, id.off, "Syntax error: quoted identifier cannot be a function name");
                    return NULL;
                }
                next(p);
                uint32_t n;
                dra_cel_expr_t **args = parse_args(p, T_RPAREN, &n);
                if (!args)
                    return NULL;
                e = make_call(p, id.off, name, e, args, n);
                continue;
            }
            dra_cel_expr_t *s = node(p, DRA_CEL_E_SELECT, off);
            if (!s)
                return NULL;
            s->u.sel.operand = e;
            s->u.sel.field = name;
            s->flags = opt ? DRA_CEL_SEL_OPTIONAL : 0;
            e = fin(p, s);
        } else if (p->t.k == T_LBRACKET) {
            uint32_t off = p->t.off;
            next(p);
            bool opt = accept(p, T_QUESTION);
            if (!enter(p))
                return NULL;
            dra_cel_expr_t *idx = parse_expr(p);
            p->depth--;
            if (!idx || !expect(p, T_RBRACKET, "']'"))
                return NULL;
            e = call(p, off, opt ? "_[?_]" : "_[_]", NULL, 2, e, idx);
        } else {
            break;
        }
    }
    return e;
}

static dra_cel_expr_t *parse_unary(parser_t *p)
{
    if (!enter(p))
        return NULL;
    dra_cel_expr_t *r = NULL;
    if (p->t.k == T_NOT || p->t.k == T_MINUS) {
        tok_kind_t k = p->t.k;
        uint32_t offs[DRA_CEL_MAX_DEPTH + 1];
        int n = 0;
        while (p->t.k == k && n <= DRA_CEL_MAX_DEPTH) {
            offs[n++] = p->t.off;
            next(p);
        }
        if (n > DRA_CEL_MAX_DEPTH) {
            perr(p, p->t.off, "Syntax error: expression recursion limit exceeded");
            return NULL;
        }
        dra_cel_expr_t *m;
        if (k == T_MINUS && n == 1 && (p->t.k == T_INT || p->t.k == T_DOUBLE)) {
            /* `-<literal>` is a negative literal, as in cel-go's grammar */
            tok_t t = p->t;
            next(p);
            if (t.k == T_INT)
                m = cnst(p, offs[0], dra_cel_int(t.neg_ok ? INT64_MIN : -(int64_t)t.v.u));
            else
                m = cnst(p, offs[0], dra_cel_double(-t.v.d));
            m = parse_member_tail(p, m);
        } else {
            /* cel-go (VisitNegate / VisitLogicalNot): an even run of '-' or '!' is dropped, an
             * odd run is one call; `--5` is the literal 5, `---5` is -_(5) */
            m = parse_member_tail(p, parse_primary(p));
            if (m && n % 2 == 1)
                m = call(p, offs[0], k == T_NOT ? "!_" : "-_", NULL, 1, m);
        }
        r = m;
    } else {
        r = parse_member_tail(p, parse_primary(p));
    }
    p->depth--;
    return r;
}


static dra_cel_expr_t *binary(parser_t *p, uint32_t off, const char *op, dra_cel_expr_t *l,
                              dra_cel_expr_t *r)
{
    if (!l || !r)
        return NULL;
    return call(p, off, op, NULL, 2, l, r);
}

static dra_cel_expr_t *parse_mul(parser_t *p)
{
    dra_cel_expr_t *l = parse_unary(p);
    int chain = 0;
    while (l && (p->t.k == T_STAR || p->t.k == T_SLASH || p->t.k == T_PERCENT)) {
        tok_t t = p->t;
        next(p);
        if (++chain > DRA_CEL_MAX_AST_DEPTH) {
            perr(p, t.off, "Syntax error: expression recursion limit exceeded");
            return NULL;
        }
        l = binary(p, t.off, t.k == T_STAR ? "_*_" : t.k == T_SLASH ? "_/_" : "_%_", l,
                   parse_unary(p));
    }
    return l;
}

static dra_cel_expr_t *parse_add(parser_t *p)
{
    dra_cel_expr_t *l = parse_mul(p);
    int chain = 0;
    while (l && (p->t.k == T_PLUS || p->t.k == T_MINUS)) {
        tok_t t = p->t;
        next(p);
        if (++chain > DRA_CEL_MAX_AST_DEPTH) {
            perr(p, t.off, "Syntax error: expression recursion limit exceeded");
            return NULL;
        }
        l = binary(p, t.off, t.k == T_PLUS ? "_+_" : "_-_", l, parse_mul(p));
    }
    return l;
}

static dra_cel_expr_t *parse_rel(parser_t *p)
{
    dra_cel_expr_t *l = parse_add(p);
    int chain = 0;
    for (;;) {
        const char *op = NULL;
        switch (p->t.k) {
        case T_EQ: op = "_==_"; break;
        case T_NE: op = "_!=_"; break;
        case T_LT: op = "_<_"; break;
        case T_LE: op = "_<=_"; break;
        case T_GT: op = "_>_"; break;
        case T_GE: op = "_>=_"; break;
        case T_IN: op = "@in"; break;
        default: break;
        }
        if (!op || !l)
            return l;
        uint32_t off = p->t.off;
        next(p);
        if (++chain > DRA_CEL_MAX_AST_DEPTH) {
            perr(p, off, "Syntax error: expression recursion limit exceeded");
            return NULL;
        }
        l = binary(p, off, op, l, parse_add(p));
    }
}

/* Balanced tree over terms[lo..hi) joined by op (offsets of the operators in offs). */
static dra_cel_expr_t *balance(parser_t *p, const char *op, dra_cel_expr_t **terms, uint32_t *offs,
                               uint32_t lo, uint32_t hi)
{
    if (hi - lo == 1)
        return terms[lo];
    uint32_t mid = lo + (hi - lo) / 2;
    dra_cel_expr_t *l = balance(p, op, terms, offs, lo, mid);
    dra_cel_expr_t *r = balance(p, op, terms, offs, mid, hi);
    return binary(p, offs[mid - 1], op, l, r);
}

static dra_cel_expr_t *parse_logic(parser_t *p, bool is_or)
{
    dra_cel_expr_t *first = is_or ? parse_logic(p, false) : parse_rel(p);
    tok_kind_t k = is_or ? T_OR : T_AND;
    if (!first || p->t.k != k)
        return first;
    uint32_t cap = 16, n = 1;
    dra_cel_expr_t **terms = dra_arena_alloc(p->a, cap * sizeof *terms, 8);
    uint32_t *offs = dra_arena_alloc(p->a, cap * sizeof *offs, 4);
    if (!terms || !offs) {
        p->oom = p->failed = true;
        return NULL;
    }
    terms[0] = first;
    while (p->t.k == k) {
        if (n == cap) {
            dra_cel_expr_t **nt = dra_arena_alloc(p->a, cap * 2 * sizeof *nt, 8);
            uint32_t *no = dra_arena_alloc(p->a, cap * 2 * sizeof *no, 4);
            if (!nt || !no) {
                p->oom = p->failed = true;
                return NULL;
            }
            memcpy(nt, terms, n * sizeof *nt);
            memcpy(no, offs, n * sizeof *no);
            terms = nt;
            offs = no;
            cap *= 2;
        }
        offs[n - 1] = p->t.off;
        next(p);
        dra_cel_expr_t *t = is_or ? parse_logic(p, false) : parse_rel(p);
        if (!t)
            return NULL;
        terms[n++] = t;
    }
    return balance(p, is_or ? "_||_" : "_&&_", terms, offs, 0, n);
}

static dra_cel_expr_t *parse_expr(parser_t *p)
{
    if (!enter(p))
        return NULL;
    dra_cel_expr_t *c = parse_logic(p, true);
    if (c && p->t.k == T_QUESTION) {
        uint32_t off = p->t.off;
        next(p);
        dra_cel_expr_t *a = parse_logic(p, true);
        if (!a || !expect(p, T_COLON, "':'")) {
            p->depth--;
            return NULL;
        }
        dra_cel_expr_t *b = parse_expr(p);
        c = b ? call(p, off, "_?_:_", NULL, 3, c, a, b) : NULL;
    }
    p->depth--;
    return c;
}

int dra_cel_parse(const char *src, size_t len, const dra_cel_env_t *env, dra_arena_t *arena,
                  dra_cel_expr_t **out, dra_diag_t *diag)
{
    parser_t p = {.src = src, .len = len, .env = env, .a = arena, .diag = diag};
    *out = NULL;
    next(&p);
    dra_cel_expr_t *e = p.failed ? NULL : parse_expr(&p);
    if (e && !p.failed && p.t.k != T_EOF) {
        char b[64];
        perr(&p, p.t.off, "Syntax error: extraneous input %s expecting <EOF>",
             tok_text(&p, b, sizeof b));
    }
    if (p.oom)
        return dra_diag_set(diag, DRA_ENOMEM, NULL, 0, 0, "out of memory while parsing");
    if (p.failed || !e) {
        if (diag && diag->code == DRA_OK)
            dra_cel_compile_error(diag, src, len, p.t.off, "Syntax error");
        return DRA_ECOMPILE;
    }
    *out = e;
    return DRA_OK;
}
