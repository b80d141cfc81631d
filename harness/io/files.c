/* files.c - whole files in and out: the output-file layer (atomic replacement of regular files,
 * in-place writes to devices and FIFOs), the final check of stdout, reading with limits, number
 * parsing; see files.h. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "files.h"

#include "exitcode.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether an existing output (st: what the path resolves to) is written in place rather than
 * replaced: decided by the file's type, never by its path. A device, FIFO or socket is written in
 * place; so is a regular file that is this process's standard output or standard error (the
 * same file: /dev/stdout, /proc/self/fd/2, ... while they are redirected to a file), appended
 * to as the shell's redirection does. Any other regular file - under /dev/shm or /proc as much
 * as anywhere - is replaced atomically. */
static bool written_in_place(const struct stat *st)
{
    if (!S_ISREG(st->st_mode))
        return true;
    for (int fd = STDOUT_FILENO; fd <= STDERR_FILENO; fd++) {
        struct stat o;
        if (fstat(fd, &o) == 0 && S_ISREG(o.st_mode) && o.st_dev == st->st_dev &&
            o.st_ino == st->st_ino)
            return true;
    }
    return false;
}

int dra_out_open(dra_out_t *o, const char *path, dra_diag_t *diag)
{
    memset(o, 0, sizeof *o);
    o->path = path;
    if (strcmp(path, "-") == 0) {
        o->f = stdout;
        o->is_stdout = true;
        return DRA_OK;
    }
    struct stat lst, st;
    bool exists = lstat(path, &lst) == 0;
    bool target_ok = exists && stat(path, &st) == 0;
    if (target_ok && S_ISDIR(st.st_mode))
        return dra_diag_set(diag, DRA_EIO, path, 0, 0, "cannot write: is a directory");
    if (target_ok && written_in_place(&st)) {
        /* a device, FIFO, socket or our own redirected stdout: write in place, never replace */
        int fd = open(path, O_WRONLY | O_NOCTTY | (S_ISREG(st.st_mode) ? O_APPEND : 0));
        if (fd < 0)
            return dra_diag_set(diag, DRA_EIO, path, 0, 0, "cannot write: %s", strerror(errno));
        o->f = fdopen(fd, "w");
        if (!o->f) {
            close(fd);
            return DRA_ENOMEM;
        }
        return DRA_OK;
    }
    /* a regular file (or a new one): temporary file next to the final one, renamed at commit */
    if (exists && S_ISLNK(lst.st_mode) && target_ok)
        o->target = realpath(path, NULL);
    else
        o->target = strdup(path);
    size_t tlen = o->target ? strlen(o->target) + 16 : 0;
    o->tmp = tlen ? malloc(tlen) : NULL;
    if (!o->target || !o->tmp) {
        dra_out_abort(o);
        return dra_diag_set(diag, DRA_ENOMEM, path, 0, 0, "out of memory");
    }
    snprintf(o->tmp, tlen, "%s.tmp.XXXXXX", o->target);
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        int e = errno;
        free(o->tmp);
        o->tmp = NULL;
        dra_out_abort(o);
        return dra_diag_set(diag, DRA_EIO, path, 0, 0, "cannot create a file there: %s",
                            strerror(e));
    }
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, target_ok ? (st.st_mode & 07777) : (0666 & ~mask));
    o->f = fdopen(fd, "w");
    if (!o->f) {
        close(fd);
        dra_out_abort(o);
        return dra_diag_set(diag, DRA_ENOMEM, path, 0, 0, "out of memory");
    }
    return DRA_OK;
}

void dra_out_abort(dra_out_t *o)
{
    if (o->f && !o->is_stdout)
        fclose(o->f);
    if (o->tmp)
        unlink(o->tmp);
    free(o->tmp);
    free(o->target);
    o->f = NULL;
    o->tmp = NULL;
    o->target = NULL;
}

int dra_out_commit(dra_out_t *o, dra_diag_t *diag)
{
    const char *shown = o->is_stdout ? "<stdout>" : o->path;
    int rc = DRA_OK;
    if (!o->f)
        return dra_diag_set(diag, DRA_EIO, shown, 0, 0, "write failed: not open");
    bool err = ferror(o->f) != 0;
    int e = o->error;
    if (fflush(o->f) != 0 || err) {
        if (!err || !e)
            e = err ? o->error : errno;
        rc = dra_diag_set(diag, DRA_EIO, shown, 0, 0, "write failed: %s",
                          e ? strerror(e) : "I/O error");
    } else if (o->tmp && fsync(fileno(o->f)) != 0) {
        rc = dra_diag_set(diag, DRA_EIO, shown, 0, 0, "sync failed: %s", strerror(errno));
    }
    if (o->is_stdout) {
        if (rc != DRA_OK)
            clearerr(stdout); /* reported here; main's final check must not report it again */
        o->f = NULL;
        return rc;
    }
    FILE *f = o->f;
    o->f = NULL;
    if (fclose(f) != 0 && rc == DRA_OK)
        rc = dra_diag_set(diag, DRA_EIO, shown, 0, 0, "write failed: %s", strerror(errno));
    if (rc == DRA_OK && o->tmp && rename(o->tmp, o->target) != 0)
        rc = dra_diag_set(diag, DRA_EIO, shown, 0, 0, "rename failed: %s", strerror(errno));
    if (rc == DRA_OK && o->tmp) {
        free(o->tmp); /* renamed: nothing to remove */
        o->tmp = NULL;
    }
    dra_out_abort(o);
    return rc;
}

int dra_io_check_output(const char *path, dra_diag_t *diag)
{
    if (strcmp(path, "-") == 0)
        return DRA_OK;
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return dra_diag_set(diag, DRA_EIO, path, 0, 0, "cannot write: is a directory");
        if (access(path, W_OK) != 0)
            return dra_diag_set(diag, DRA_EIO, path, 0, 0, "cannot write: %s", strerror(errno));
        if (written_in_place(&st))
            return DRA_OK;
        /* replaced through a temporary file: its directory must be writable too */
    }
    size_t n = strlen(path);
    char *dir = malloc(n + 2);
    if (!dir)
        return dra_diag_set(diag, DRA_ENOMEM, path, 0, 0, "out of memory");
    memcpy(dir, path, n + 1);
    char *slash = strrchr(dir, '/');
    if (!slash)
        strcpy(dir, ".");
    else if (slash == dir)
        dir[1] = '\0';
    else
        *slash = '\0';
    int rc = DRA_OK;
    if (stat(dir, &st) != 0)
        rc = dra_diag_set(diag, DRA_EIO, path, 0, 0, "cannot write: directory %s: %s", dir,
                          strerror(errno));
    else if (!S_ISDIR(st.st_mode))
        rc = dra_diag_set(diag, DRA_EIO, path, 0, 0, "cannot write: %s is not a directory", dir);
    else if (access(dir, W_OK | X_OK) != 0)
        rc = dra_diag_set(diag, DRA_EIO, path, 0, 0, "cannot write: directory %s: %s", dir,
                          strerror(errno));
    free(dir);
    return rc;
}

int dra_io_write_file_atomic(const char *path, const void *buf, size_t len, dra_diag_t *diag)
{
    dra_out_t o;
    int rc = dra_out_open(&o, path, diag);
    if (rc != DRA_OK)
        return rc;
    if (len && fwrite(buf, 1, len, o.f) != len)
        o.error = errno; /* commit reports it with this reason */
    rc = dra_out_commit(&o, diag);
    if (rc != DRA_OK)
        dra_out_abort(&o);
    return rc;
}

int dra_io_finish_stdout(void)
{
    bool err = ferror(stdout) != 0;
    int e = 0;
    if (fflush(stdout) != 0 || err) {
        if (!err) {
            e = errno;
        } else {
            /* an earlier buffered write failed and its errno is gone; the output is already
             * incomplete, so one more byte may be tried to learn the reason */
            clearerr(stdout);
            if (fputc('\n', stdout) == EOF || fflush(stdout) != 0)
                e = errno;
        }
        fprintf(stderr, "drabench: cannot write standard output: %s\n",
                e ? strerror(e) : "I/O error");
        return -1;
    }
    if (fclose(stdout) != 0) {
        fprintf(stderr, "drabench: cannot write standard output: %s\n", strerror(errno));
        return -1;
    }
    return 0;
}

int dra_io_exit_for(int rc)
{
    return rc == DRA_OK ? DRA_EXIT_OK : rc == DRA_EIO || rc == DRA_ENOMEM ? DRA_EXIT_ENV
                                                                          : DRA_EXIT_USAGE;
}

int dra_io_read_file(const char *path, size_t max_len, char **out, size_t *len, dra_diag_t *diag)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f) {
        int e = errno;
        return dra_diag_set(diag, e == ENOENT || e == ENOTDIR ? DRA_ENOTFOUND : DRA_EIO, path, 0,
                            0, "cannot open: %s", strerror(e));
    }
    struct stat st;
    if (f != stdin && fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        return dra_diag_set(diag, DRA_EINVAL, path, 0, 0, "cannot read: is a directory");
    }
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap + 1);
    if (!buf) {
        if (f != stdin)
            fclose(f);
        return DRA_ENOMEM;
    }
    for (;;) {
        if (n == cap) {
            if (cap >= max_len) {
                free(buf);
                if (f != stdin)
                    fclose(f);
                return dra_diag_set(diag, DRA_ELIMIT, path, 0, 0,
                                    "file larger than the %zu-byte limit", max_len);
            }
            size_t nc = cap * 2 > max_len ? max_len : cap * 2;
            char *nb = realloc(buf, nc + 1);
            if (!nb) {
                free(buf);
                if (f != stdin)
                    fclose(f);
                return DRA_ENOMEM;
            }
            buf = nb;
            cap = nc;
        }
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (r == 0) {
            if (ferror(f)) {
                int e = errno;
                free(buf);
                if (f != stdin)
                    fclose(f);
                return dra_diag_set(diag, DRA_EIO, path, 0, 0, "read failed: %s", strerror(e));
            }
            break;
        }
    }
    if (f != stdin)
        fclose(f);
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return DRA_OK;
}

int dra_io_read_inputs(char *const *paths, size_t n, size_t max_len, dra_io_input_t **out,
                       dra_diag_t *diag)
{
    *out = NULL;
    dra_io_input_t *in = calloc(n ? n : 1, sizeof *in);
    if (!in)
        return dra_diag_set(diag, DRA_ENOMEM, NULL, 0, 0, "out of memory");
    for (size_t i = 0; i < n; i++) {
        in[i].path = paths[i];
        int rc = dra_io_read_file(paths[i], max_len, &in[i].buf, &in[i].len, diag);
        if (rc != DRA_OK) {
            if (diag && !diag->file)
                diag->file = paths[i];
            dra_io_inputs_free(in, i);
            return rc;
        }
    }
    *out = in;
    return DRA_OK;
}

void dra_io_inputs_free(dra_io_input_t *in, size_t n)
{
    for (size_t i = 0; in && i < n; i++)
        free(in[i].buf);
    free(in);
}

bool dra_io_parse_u64(const char *s, unsigned long long *out)
{
    if (!s || !*s)
        return false;
    unsigned long long v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9')
            return false; /* no sign, no space, no base prefix */
        unsigned d = (unsigned)(*p - '0');
        if (v > (ULLONG_MAX - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

bool dra_io_parse_u64_in(const char *s, unsigned long long min, unsigned long long max,
                         unsigned long long *out)
{
    unsigned long long v;
    if (!dra_io_parse_u64(s, &v) || v < min || v > max)
        return false;
    *out = v;
    return true;
}

size_t dra_io_decimal_len(const char *s)
{
    size_t i = 0, digits = 0;
    if (s[i] == '+' || s[i] == '-')
        i++;
    for (; s[i] >= '0' && s[i] <= '9'; i++)
        digits++;
    if (s[i] == '.')
        for (i++; s[i] >= '0' && s[i] <= '9'; i++)
            digits++;
    if (!digits)
        return 0;
    if (s[i] == 'e' || s[i] == 'E') {
        size_t j = i + 1;
        if (s[j] == '+' || s[j] == '-')
            j++;
        if (s[j] >= '0' && s[j] <= '9') {
            while (s[j] >= '0' && s[j] <= '9')
                j++;
            i = j;
        }
    }
    return i;
}

bool dra_io_parse_double(const char *s, double *out)
{
    if (!s || !*s)
        return false;
    size_t n = dra_io_decimal_len(s);
    if (!n || s[n])
        return false;
    double v = strtod(s, NULL);
    if (!isfinite(v))
        return false;
    *out = v;
    return true;
}

int dra_io_mkdir_p(const char *dir, unsigned mode)
{
    char buf[4096];
    size_t n = strlen(dir);
    if (n == 0 || n >= sizeof buf) {
        errno = n ? ENAMETOOLONG : ENOENT;
        return -1;
    }
    memcpy(buf, dir, n + 1);
    for (size_t i = 1; i <= n; i++)
        if (buf[i] == '/' || buf[i] == '\0') {
            char saved = buf[i];
            buf[i] = '\0';
            if (mkdir(buf, (mode_t)mode) != 0 && errno != EEXIST)
                return -1;
            buf[i] = saved;
        }
    return 0;
}
