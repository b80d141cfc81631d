/* files.c - whole-file reading and atomic writing, number parsing; see files.h. */
#include "files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int dra_cli_write_file_atomic(const char *path, const void *buf, size_t len, dra_diag_t *diag)
{
    if (strcmp(path, "-") == 0) {
        if (fwrite(buf, 1, len, stdout) != len || fflush(stdout) != 0)
            return dra_diag_set(diag, DRA_EIO, "<stdout>", 0, 0, "write failed: %s",
                                strerror(errno));
        return DRA_OK;
    }
    size_t plen = strlen(path);
    char *tmp = malloc(plen + 32);
    if (!tmp)
        return DRA_ENOMEM;
    snprintf(tmp, plen + 32, "%s.tmp.%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        int r = dra_diag_set(diag, DRA_EIO, path, 0, 0, "cannot create %s: %s", tmp,
                             strerror(errno));
        free(tmp);
        return r;
    }
    const char *p = buf;
    size_t left = len;
    while (left) {
        ssize_t w = write(fd, p, left);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            int r = dra_diag_set(diag, DRA_EIO, path, 0, 0, "write failed: %s", strerror(errno));
            close(fd);
            unlink(tmp);
            free(tmp);
            return r;
        }
        p += w;
        left -= (size_t)w;
    }
    if (fsync(fd) != 0 || close(fd) != 0) {
        int r = dra_diag_set(diag, DRA_EIO, path, 0, 0, "sync failed: %s", strerror(errno));
        unlink(tmp);
        free(tmp);
        return r;
    }
    if (rename(tmp, path) != 0) {
        int r = dra_diag_set(diag, DRA_EIO, path, 0, 0, "rename failed: %s", strerror(errno));
        unlink(tmp);
        free(tmp);
        return r;
    }
    free(tmp);
    return DRA_OK;
}

int dra_cli_read_file(const char *path, size_t max_len, char **out, size_t *len, dra_diag_t *diag)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f)
        return dra_diag_set(diag, DRA_EIO, path, 0, 0, "cannot open: %s", strerror(errno));
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

bool dra_cli_parse_u64(const char *s, unsigned long long *out)
{
    if (!s || !*s || *s == '-' || *s == '+')
        return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}

bool dra_cli_parse_double(const char *s, double *out)
{
    if (!s || !*s)
        return false;
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}
