/*
 * err.h - error codes and diagnostics for every drabench module.
 *
 * Every fallible function returns int: DRA_OK (0) or a negative DRA_E* code from the single
 * X-macro table below (libuv's UV_ERRNO_MAP idea), so names and messages come for free.
 * Parsers and compilers additionally fill an optional dra_diag_t (NULL means "don't care"):
 * file, 1-based line and column, byte offset and a human message. A dra_diag_list_t collects
 * many diagnostics (validation reports all errors, not only the first).
 *
 * Ownership: a dra_diag_t is caller-owned and fixed-size; a dra_diag_list_t owns its entries
 * (heap, freed by dra_diag_list_fini). Cost: formatting a diagnostic is a vsnprintf; never on
 * a hot path. Thread-safety: none needed; no global state.
 */
#ifndef DRA_ERR_H
#define DRA_ERR_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "../compiler.h"

/* XX(NAME, value, message) */
#define DRA_ERR_MAP(XX)                                                                            \
    XX(OK, 0, "success")                                                                           \
    XX(ENOMEM, -1, "out of memory")                                                                \
    XX(EINVAL, -2, "invalid argument")                                                             \
    XX(ELIMIT, -3, "limit exceeded")                                                               \
    XX(EPARSE, -4, "parse error")                                                                  \
    XX(EIO, -5, "input/output error")                                                              \
    XX(ENOTFOUND, -6, "not found")                                                                 \
    XX(EVALIDATE, -7, "validation failed")                                                         \
    XX(ETYPE, -8, "type error")                                                                    \
    XX(ECOMPILE, -9, "compile error")                                                              \
    XX(ERUNTIME, -10, "runtime error")                                                             \
    XX(EOVERFLOW, -11, "arithmetic overflow")                                                      \
    XX(EUNSUPPORTED, -12, "unsupported")                                                           \
    XX(EUNSAT, -13, "unsatisfiable")                                                               \
    XX(ENODE, -14, "allocation failed on node")                                                    \
    XX(EFATAL, -15, "fatal allocation error")                                                      \
    XX(EEXIST, -16, "already exists")                                                              \
    XX(ECOST, -17, "cost limit exceeded")                                                          \
    XX(EINTERRUPTED, -18, "interrupted")                                                           \
    XX(EINTERNAL, -19, "internal error")

enum {
#define DRA_ERR_ENUM(name, val, msg) DRA_##name = (val),
    DRA_ERR_MAP(DRA_ERR_ENUM)
#undef DRA_ERR_ENUM
};

/* Message and symbolic name of a code ("out of memory", "ENOMEM"); never NULL. */
const char *dra_strerror(int code);
const char *dra_err_name(int code);

#define DRA_DIAG_MSG_MAX 512

typedef struct dra_diag {
    int code;          /* DRA_E* of the first problem, DRA_OK when empty */
    const char *file;  /* not owned; may be NULL */
    uint32_t line;     /* 1-based, 0 = unknown */
    uint32_t column;   /* 1-based, 0 = unknown */
    uint64_t offset;   /* byte offset in the input, when known */
    char msg[DRA_DIAG_MSG_MAX];
} dra_diag_t;

/* Reset to "no error". Accepts NULL. */
void dra_diag_clear(dra_diag_t *d);
/* Make d own everything it says: the file name and position move into the message ("file:line:
 * col: msg", as dra_diag_format prints it) and file becomes NULL, so d outlives the object its
 * file name pointed into (a model or scenario freed before the caller prints d). Accepts NULL. */
void dra_diag_detach(dra_diag_t *d);
/* Fill d (if not NULL) and return code, so callers can write `return dra_diag_set(...)`. */
int dra_diag_set(dra_diag_t *d, int code, const char *file, uint32_t line, uint32_t column,
                 const char *fmt, ...) DRA_PRINTF(6, 7);
int dra_diag_setv(dra_diag_t *d, int code, const char *file, uint32_t line, uint32_t column,
                  const char *fmt, va_list ap) DRA_PRINTF(6, 0);
/* Message building for every diagnostic (dra_diag_setv and the modules' own error functions):
 * like vsnprintf into buf[cap], but the text is always valid UTF-8 and terminal-safe, and a
 * long message loses its quoted values, not its reason:
 *  - every %s argument (the values from inputs) is copied with control characters (C0, DEL,
 *    C1, bidi controls) and invalid UTF-8 bytes written as \xNN / \uNNNN;
 *  - when the whole text does not fit, every %s argument longer than DRA_MSG_VALUE_MAX bytes
 *    is shortened to its beginning and end joined by "…" (at character boundaries), then the
 *    longest ones further until it fits; the format's own text (the reason) and the other
 *    conversions are kept whole.
 * Conversions: d i u x X o c s p f F e E g G a A % with flags, width, precision (also *) and
 * length modifiers hh h l ll z j t L. Returns the length written. No allocation. */
#define DRA_MSG_VALUE_MAX 160
size_t dra_msg_vformat(char *buf, size_t cap, const char *fmt, va_list ap) DRA_PRINTF(3, 0);
size_t dra_msg_format(char *buf, size_t cap, const char *fmt, ...) DRA_PRINTF(3, 4);

/* "file:line:col: msg" (parts omitted when unknown) into buf; returns buf. The file name is
 * written terminal-safe (control characters as \xNN), the result cut at a character boundary. */
const char *dra_diag_format(const dra_diag_t *d, char *buf, size_t len);

/* A growable list of diagnostics. */
typedef struct dra_diag_list {
    dra_diag_t *items;
    size_t count, cap;
    size_t dropped; /* entries beyond max_keep are counted, not stored */
    size_t max_keep; /* 0 = default 10,000 */
} dra_diag_list_t;

void dra_diag_list_init(dra_diag_list_t *l);
void dra_diag_list_fini(dra_diag_list_t *l);
/* Append a copy; returns DRA_OK or DRA_ENOMEM. */
int dra_diag_list_push(dra_diag_list_t *l, const dra_diag_t *d);
int dra_diag_list_add(dra_diag_list_t *l, int code, const char *file, uint32_t line,
                      uint32_t column, const char *fmt, ...) DRA_PRINTF(6, 7);

#endif /* DRA_ERR_H */
