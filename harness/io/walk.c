/* walk.c - the directory walker; see walk.h. */
#include "walk.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool manifest_name(const char *n)
{
    size_t l = strlen(n);
    return (l > 5 && strcmp(n + l - 5, ".yaml") == 0) || (l > 4 && strcmp(n + l - 4, ".yml") == 0) ||
           (l > 5 && strcmp(n + l - 5, ".json") == 0);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int walk(const char *path, int depth, dra_manifest_file_fn fn, void *ud,
                dra_diag_list_t *errs)
{
    struct stat st;
    if (strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        if (depth > 32)
            return dra_diag_list_add(errs, DRA_ELIMIT, path, 0, 0, "directories nested too deep"),
                   DRA_ELIMIT;
        DIR *d = opendir(path);
        if (!d) {
            if (errs)
                (void)dra_diag_list_add(errs, DRA_EIO, path, 0, 0, "cannot open directory: %s",
                                        strerror(errno));
            return DRA_EIO;
        }
        char **names = NULL;
        size_t n = 0, cap = 0;
        struct dirent *e;
        int rc = DRA_OK;
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.')
                continue;
            if (n == cap) {
                cap = cap ? cap * 2 : 32;
                char **nn = realloc(names, cap * sizeof *nn);
                if (!nn) {
                    rc = DRA_ENOMEM;
                    break;
                }
                names = nn;
            }
            size_t pl = strlen(path) + strlen(e->d_name) + 2;
            names[n] = malloc(pl);
            if (!names[n]) {
                rc = DRA_ENOMEM;
                break;
            }
            snprintf(names[n], pl, "%s%s%s", path,
                     path[strlen(path) - 1] == '/' ? "" : "/", e->d_name);
            n++;
        }
        closedir(d);
        if (n)
            qsort(names, n, sizeof *names, cmp_str);
        for (size_t i = 0; i < n; i++) {
            struct stat st2;
            if (rc != DRA_ENOMEM && stat(names[i], &st2) == 0 &&
                (S_ISDIR(st2.st_mode) || manifest_name(names[i]))) {
                int r = walk(names[i], depth + 1, fn, ud, errs);
                if (r && !rc)
                    rc = r;
            }
            free(names[i]);
        }
        free(names);
        return rc;
    }
    return fn(path, ud);
}

int dra_manifest_each_file(char *const *paths, int n, dra_manifest_file_fn fn, void *ud,
                           dra_diag_list_t *errs)
{
    int rc = DRA_OK;
    for (int i = 0; i < n; i++) {
        int r = walk(paths[i], 0, fn, ud, errs);
        if (r && !rc)
            rc = r;
    }
    return rc;
}
