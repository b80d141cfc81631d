/* walk.c - the directory walker (walk.h). */
#include "walk.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *const dra_walk_manifest_suffixes[] = {".yaml", ".yml", ".json", NULL};

typedef struct dirid {
    dev_t dev;
    ino_t ino;
} dirid_t;

typedef struct wctx {
    dra_walk_t *w;
    dra_walk_fn fn;
    void *ud;
    dra_diag_list_t *errs;
    int rc;                                /* first non-OK code */
    dirid_t stack[DRA_WALK_MAX_DEPTH + 2]; /* directories on the current path */
    int depth;
} wctx_t;

void dra_walk_init(dra_walk_t *w, const char *const *suffixes)
{
    memset(w, 0, sizeof *w);
    w->suffixes = suffixes;
}

void dra_walk_fini(dra_walk_t *w)
{
    for (size_t i = 0; i < w->nstrs; i++)
        free(w->strs[i]);
    free(w->strs);
    w->strs = NULL;
    w->nstrs = w->cap = 0;
}

/* A heap copy of dir + "/" + name (name NULL: dir alone), owned by the walker; NULL = ENOMEM. */
static char *keep(dra_walk_t *w, const char *dir, const char *name)
{
    if (w->nstrs == w->cap) {
        size_t nc = w->cap ? w->cap * 2 : 64;
        char **ns = realloc(w->strs, nc * sizeof *ns);
        if (!ns)
            return NULL;
        w->strs = ns;
        w->cap = nc;
    }
    size_t dl = strlen(dir), nl = name ? strlen(name) : 0;
    bool slash = name && dl && dir[dl - 1] != '/';
    char *s = malloc(dl + nl + 2);
    if (!s)
        return NULL;
    memcpy(s, dir, dl);
    if (slash)
        s[dl++] = '/';
    if (name)
        memcpy(s + dl, name, nl);
    s[dl + nl] = '\0';
    w->strs[w->nstrs++] = s;
    return s;
}

static void note(wctx_t *c, int code)
{
    if (code != DRA_OK && c->rc == DRA_OK)
        c->rc = code;
}

/* Error about path: the path is copied into the walker so the diagnostic outlives the walk. */
static void fail(wctx_t *c, int code, const char *path, const char *why, const char *sys)
{
    note(c, code);
    if (!c->errs)
        return;
    const char *p = keep(c->w, path, NULL);
    if (!p) {
        note(c, DRA_ENOMEM);
        c->rc = DRA_ENOMEM;
        return;
    }
    (void)dra_diag_list_add(c->errs, code, p, 0, 0, "%s%s%s", why, sys ? ": " : "", sys ? sys : "");
}

static bool wanted(const dra_walk_t *w, const char *name)
{
    if (!w->suffixes)
        return true;
    size_t l = strlen(name);
    for (const char *const *s = w->suffixes; *s; s++) {
        size_t sl = strlen(*s);
        if (l > sl && strcmp(name + l - sl, *s) == 0)
            return true;
    }
    return false;
}

static const char *kind_name(mode_t m)
{
    return S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device"
         : S_ISSOCK(m) ? "a socket" : "not a file";
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void visit_file(wctx_t *c, const char *path)
{
    c->w->nfiles++;
    int r = c->fn(path, c->ud);
    note(c, r);
    if (r == DRA_ENOMEM)
        c->rc = DRA_ENOMEM;
}

/* path is a directory, st its stat; c->depth 0 is an argument. */
static void walk_dir(wctx_t *c, const char *path, const struct stat *st)
{
    for (int i = 0; i < c->depth; i++)
        if (c->stack[i].dev == st->st_dev && c->stack[i].ino == st->st_ino) {
            fail(c, DRA_ELIMIT, path,
                 "directory loop: this is a directory already on the path walked (a symbolic "
                 "link to an ancestor)", NULL);
            return;
        }
    if (c->depth > DRA_WALK_MAX_DEPTH) {
        fail(c, DRA_ELIMIT, path, "directories nested deeper than 32 levels", NULL);
        return;
    }
    DIR *d = opendir(path);
    if (!d) {
        fail(c, DRA_EIO, path, "cannot open directory", strerror(errno));
        return;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    bool oom = false;
    for (;;) {
        errno = 0;
        e = readdir(d);
        if (!e) {
            if (errno)
                fail(c, DRA_EIO, path, "cannot read directory", strerror(errno));
            break;
        }
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            size_t nc = cap ? cap * 2 : 32;
            char **nn = realloc(names, nc * sizeof *nn);
            if (!nn) {
                oom = true;
                break;
            }
            names = nn;
            cap = nc;
        }
        if (!(names[n] = strdup(e->d_name))) {
            oom = true;
            break;
        }
        n++;
    }
    closedir(d);
    if (oom) {
        note(c, DRA_ENOMEM);
        c->rc = DRA_ENOMEM;
    }
    if (n)
        qsort(names, n, sizeof *names, cmp_name);
    c->stack[c->depth].dev = st->st_dev;
    c->stack[c->depth].ino = st->st_ino;
    c->depth++;
    for (size_t i = 0; i < n && c->rc != DRA_ENOMEM; i++) {
        char *full = keep(c->w, path, names[i]);
        if (!full) {
            c->rc = DRA_ENOMEM;
            break;
        }
        struct stat s2;
        if (stat(full, &s2) != 0) {
            if (wanted(c->w, names[i]))
                fail(c, DRA_EIO, full, "cannot stat", strerror(errno));
            continue; /* a dangling link of no interest */
        }
        if (S_ISDIR(s2.st_mode)) {
            if (!c->w->flat)
                walk_dir(c, full, &s2);
        } else if (!wanted(c->w, names[i])) {
            continue;
        } else if (S_ISREG(s2.st_mode)) {
            visit_file(c, full);
        } else {
            /* a FIFO would block the reader forever, a device (a link to /dev/zero) feed it up
             * to its size limit: a directory yields regular files only */
            fail(c, DRA_EUNSUPPORTED, full, "skipped: not a regular file", kind_name(s2.st_mode));
        }
    }
    c->depth--;
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

int dra_walk_paths(dra_walk_t *w, char *const *paths, int n, dra_walk_fn fn, void *ud,
                   dra_diag_list_t *errs)
{
    wctx_t c = {.w = w, .fn = fn, .ud = ud, .errs = errs};
    for (int i = 0; i < n && c.rc != DRA_ENOMEM; i++) {
        struct stat st;
        if (strcmp(paths[i], "-") != 0 && stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            c.depth = 0;
            walk_dir(&c, paths[i], &st);
        } else {
            visit_file(&c, paths[i]);
        }
    }
    return c.rc;
}
