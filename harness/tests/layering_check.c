/*
 * layering_check.c - the include and call graph of the sources, checked (ctest harness.layering).
 *
 * Usage: layering_check SOURCE_DIR LAYER=BELOW,BELOW... ... [--order ORDER]... [-- LIB.a...]
 *   Each LAYER=... names a harness/ subfolder library and the harness layers it links directly
 *   (from CMakeLists.txt's dra_hdeps_*), lowest first. The libraries after "--" are read with nm.
 *   Each ORDER layers the files of one module split into several files: ranks separated by '<',
 *   lowest first, each rank a comma-separated list of fnmatch patterns over file stems (the path
 *   below SOURCE_DIR without .c / .h), e.g.
 *   "harness/k8s/manifest_rctx<harness/k8s/manifest_kinds,harness/k8s/manifest_read_*<...".
 *
 * Checks, each failure one line "layering: FILE: reason" and exit 1:
 *   - no source file (*.c, *.h, *.def) at harness/'s root: every one belongs to a layer folder;
 *   - an #include "..." in a harness layer resolves to its own folder or a layer it links
 *     (transitively); core/ and gen/ include nothing of harness/ (test code in tests/ folders
 *     is exempt: it uses harness/testlib);
 *   - no include cycle among the files of core/, gen/ and harness/ (guards make cycles compile,
 *     but a loop means the two files are one module);
 *   - no call cycle between object files: file A referencing a symbol defined in B and B (through
 *     any path) one of A's, from `nm` over the given libraries. allowed_cycle[] lists the files of
 *     a cycle that is known and being removed; a cycle touching any other file fails;
 *   - inside each --order: a file includes and calls only files of a lower rank (its own header
 *     aside): an upward reference (a lower file calling back into a higher one) or a sideways one
 *     (two files of one rank, e.g. two per-kind readers) fails, even without a cycle.
 * Include resolution follows the compiler: the including file's folder first, then core/, the
 * project root, the harness layer folders and harness/testlib; names found nowhere (system and
 * generated headers) are ignored. Cost: reads every source once; fine for this tree (a second).
 */
#include <dirent.h>
#include <fnmatch.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { MAXF = 4096, MAXL = 16, MAXE = 65536 };

/* Files of a call cycle being removed (core/cel: the checker, evaluator and function libraries
 * call each other; the CEL function table of issue #15 item 2 takes it away). Library:object. */
static const char *const allowed_cycle[] = {
    NULL, /* empty: core/cel's check -> eval -> lib -> check loop is gone (its function table) */
};

static char *files[MAXF];
static int nfiles;
static int ea[MAXE], eb[MAXE], nedges;
static int failures;
static bool allowed_seen; /* a cycle of allowed_cycle[] was found */

static char *layer_name[MAXL];
static bool layer_below[MAXL][MAXL]; /* [a][b]: a links b (transitively) */
static int nlayers;

static char srcdir[4096];

/* --order: ORD_MAX orders of up to ORD_RANKS ranks, each a list of patterns. */
enum { ORD_MAX = 8, ORD_RANKS = 8, ORD_PATS = 16 };
typedef struct order {
    const char *spec;
    int nranks;
    int npat[ORD_RANKS];
    char *pat[ORD_RANKS][ORD_PATS];
} order_t;
static order_t orders[ORD_MAX];
static int norders;

static void fail(const char *file, const char *msg)
{
    fprintf(stderr, "layering: %s: %s\n", file, msg);
    failures++;
}

static bool has_suffix(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && strcmp(s + n - m, suf) == 0;
}

static bool is_source(const char *name)
{
    return has_suffix(name, ".c") || has_suffix(name, ".h") || has_suffix(name, ".def");
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Collect source files under rel (relative to srcdir), recursively, in sorted order. */
static void collect(const char *rel)
{
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", srcdir, rel);
    DIR *d = opendir(path);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char sub[4096], full[8192];
        snprintf(sub, sizeof sub, "%s/%s", rel, e->d_name);
        snprintf(full, sizeof full, "%s/%s", srcdir, sub);
        struct stat st;
        if (stat(full, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode))
            collect(sub);
        else if (is_source(e->d_name) && nfiles < MAXF)
            files[nfiles++] = strdup(sub);
    }
    closedir(d);
}

static int find_file(const char *rel)
{
    for (int i = 0; i < nfiles; i++)
        if (strcmp(files[i], rel) == 0)
            return i;
    return -1;
}

/* "a/b/../c" -> "a/c", "./x" -> "x", in place. */
static void normalize(char *p)
{
    char *parts[64];
    int n = 0;
    for (char *tok = strtok(p, "/"); tok && n < 64; tok = strtok(NULL, "/")) {
        if (strcmp(tok, ".") == 0)
            continue;
        if (strcmp(tok, "..") == 0) {
            if (n > 0)
                n--;
            continue;
        }
        parts[n++] = tok;
    }
    char out[4096];
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (i)
            strncat(out, "/", sizeof out - strlen(out) - 1);
        strncat(out, parts[i], sizeof out - strlen(out) - 1);
    }
    strcpy(p, out);
}

static int try_path(const char *dir, const char *name)
{
    char p[4096];
    if (dir[0])
        snprintf(p, sizeof p, "%s/%s", dir, name);
    else
        snprintf(p, sizeof p, "%s", name);
    normalize(p);
    return find_file(p);
}

static int resolve(const char *from, const char *name)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", from);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        dir[0] = '\0';
    int f = try_path(dir, name);
    if (f < 0)
        f = try_path("core", name);
    if (f < 0)
        f = try_path("", name);
    for (int l = 0; f < 0 && l < nlayers; l++) {
        char ld[256];
        snprintf(ld, sizeof ld, "harness/%s", layer_name[l]);
        f = try_path(ld, name);
    }
    if (f < 0)
        f = try_path("harness/testlib", name);
    return f;
}

/* Layer index of a file under harness/<layer>/, -1 for core/, gen/, -2 for harness's own tests,
 * fuzz targets and test library (they may include anything). */
static int layer_of(const char *rel)
{
    if (strncmp(rel, "harness/", 8) != 0)
        return -1;
    const char *rest = rel + 8;
    for (int l = 0; l < nlayers; l++) {
        size_t n = strlen(layer_name[l]);
        if (strncmp(rest, layer_name[l], n) == 0 && rest[n] == '/')
            return l;
    }
    return -2;
}

/* ---- file orders inside a module (--order) ----------------------------------------------- */

static bool parse_order(const char *spec)
{
    if (norders == ORD_MAX)
        return false;
    order_t *o = &orders[norders];
    o->spec = spec;
    char *buf = strdup(spec);
    for (char *rank = buf, *next; rank; rank = next) {
        next = strchr(rank, '<');
        if (next)
            *next++ = '\0';
        if (o->nranks == ORD_RANKS || !*rank)
            return false;
        for (char *pat = rank, *pn; pat; pat = pn) {
            pn = strchr(pat, ',');
            if (pn)
                *pn++ = '\0';
            if (!*pat || o->npat[o->nranks] == ORD_PATS)
                return false;
            o->pat[o->nranks][o->npat[o->nranks]++] = pat;
        }
        o->nranks++;
    }
    norders++;
    return o->nranks >= 2;
}

/* "harness/k8s/manifest_read.c" -> "harness/k8s/manifest_read" */
static void stem_of(const char *rel, char *out, size_t n)
{
    snprintf(out, n, "%s", rel);
    char *dot = strrchr(out, '.');
    if (dot && !strchr(dot, '/'))
        *dot = '\0';
}

/* The rank of a file in order o, -1 when it matches none (first matching rank wins). */
static int rank_in(const order_t *o, const char *rel)
{
    char stem[4096];
    stem_of(rel, stem, sizeof stem);
    for (int r = 0; r < o->nranks; r++)
        for (int k = 0; k < o->npat[r]; k++)
            if (fnmatch(o->pat[r][k], stem, 0) == 0)
                return r;
    return -1;
}

/* A reference from file a to file b ("includes" / "calls", sym the symbol or NULL) against every
 * order holding both. */
static void check_order(const char *a, const char *b, const char *what, const char *sym)
{
    char sa[4096], sb[4096];
    stem_of(a, sa, sizeof sa);
    stem_of(b, sb, sizeof sb);
    if (strcmp(sa, sb) == 0) /* a file and its own header */
        return;
    for (int i = 0; i < norders; i++) {
        int ra = rank_in(&orders[i], a), rb = rank_in(&orders[i], b);
        if (ra < 0 || rb < 0 || ra > rb)
            continue;
        char msg[8192];
        snprintf(msg, sizeof msg, "%s %s%s%s%s: %s reference in the order %s", what, b,
                 sym ? " (" : "", sym ? sym : "", sym ? ")" : "",
                 ra == rb ? "a sideways (same rank)" : "an upward", orders[i].spec);
        fail(a, msg);
    }
}

static void scan_includes(int fi)
{
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", srcdir, files[fi]);
    FILE *f = fopen(path, "r");
    if (!f) {
        fail(files[fi], "cannot open");
        return;
    }
    char line[4096];
    int from_layer = layer_of(files[fi]);
    /* Test code (any tests/ folder) may use the test library and whatever it tests. */
    bool is_test = strstr(files[fi], "/tests/") != NULL;
    while (fgets(line, sizeof line, f)) {
        const char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p != '#')
            continue;
        p++;
        while (*p == ' ' || *p == '\t')
            p++;
        if (strncmp(p, "include", 7) != 0)
            continue;
        p += 7;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p != '"')
            continue;
        const char *q = strchr(p + 1, '"');
        if (!q)
            continue;
        char name[1024];
        snprintf(name, sizeof name, "%.*s", (int)(q - p - 1), p + 1);
        int to = resolve(files[fi], name);
        if (to < 0 || to == fi)
            continue;
        if (nedges < MAXE) {
            ea[nedges] = fi;
            eb[nedges] = to;
            nedges++;
        }
        int to_layer = layer_of(files[to]);
        char msg[2048];
        if (is_test)
            continue;
        check_order(files[fi], files[to], "includes", NULL);
        if (from_layer == -1 && to_layer != -1) {
            snprintf(msg, sizeof msg, "includes %s: core/ and gen/ may not include harness/",
                     files[to]);
            fail(files[fi], msg);
        } else if (from_layer >= 0 && to_layer == -2) {
            snprintf(msg, sizeof msg, "includes %s (tests or fuzz code) from a library", files[to]);
            fail(files[fi], msg);
        } else if (from_layer >= 0 && to_layer >= 0 && to_layer != from_layer &&
                   !layer_below[from_layer][to_layer]) {
            snprintf(msg, sizeof msg,
                     "includes %s: layer %s does not link layer %s (an upward or sideways include)",
                     files[to], layer_name[from_layer], layer_name[to_layer]);
            fail(files[fi], msg);
        }
    }
    fclose(f);
}

/* ---- cycles (Tarjan's strongly connected components over an edge list) ------------------- */

typedef struct graph {
    int n;
    int *ea, *eb, ne;
    const char *const *name;
} graph_t;

static int *t_idx, *t_low, *t_stack, t_sp, t_counter;
static bool *t_on;

static void report_scc(const graph_t *g, const int *members, int n, const char *what)
{
    bool allowed = true;
    for (int i = 0; i < n; i++) {
        bool in = false;
        for (size_t k = 0; k < sizeof allowed_cycle / sizeof allowed_cycle[0]; k++)
            in |= allowed_cycle[k] && strcmp(g->name[members[i]], allowed_cycle[k]) == 0;
        allowed &= in;
    }
    if (allowed && strcmp(what, "call") == 0) {
        allowed_seen = true;
        return;
    }
    char msg[4096];
    size_t len = (size_t)snprintf(msg, sizeof msg, "%s cycle among", what);
    for (int i = 0; i < n && len < sizeof msg; i++)
        len += (size_t)snprintf(msg + len, sizeof msg - len, " %s", g->name[members[i]]);
    fail(g->name[members[0]], msg);
}

static void strongconnect(const graph_t *g, int v, const char *what)
{
    t_idx[v] = t_low[v] = t_counter++;
    t_stack[t_sp++] = v;
    t_on[v] = true;
    for (int e = 0; e < g->ne; e++) {
        if (g->ea[e] != v)
            continue;
        int w = g->eb[e];
        if (t_idx[w] < 0) {
            strongconnect(g, w, what);
            if (t_low[w] < t_low[v])
                t_low[v] = t_low[w];
        } else if (t_on[w] && t_idx[w] < t_low[v]) {
            t_low[v] = t_idx[w];
        }
    }
    if (t_low[v] == t_idx[v]) {
        int members[MAXF], n = 0;
        int w;
        do {
            w = t_stack[--t_sp];
            t_on[w] = false;
            members[n++] = w;
        } while (w != v);
        if (n > 1)
            report_scc(g, members, n, what);
    }
}

static void find_cycles(const graph_t *g, const char *what)
{
    t_idx = malloc((size_t)g->n * sizeof *t_idx);
    t_low = malloc((size_t)g->n * sizeof *t_low);
    t_stack = malloc((size_t)g->n * sizeof *t_stack);
    t_on = calloc((size_t)g->n, sizeof *t_on);
    if (!t_idx || !t_low || !t_stack || !t_on) {
        fprintf(stderr, "layering: out of memory\n");
        exit(4);
    }
    for (int i = 0; i < g->n; i++)
        t_idx[i] = -1;
    t_sp = t_counter = 0;
    for (int i = 0; i < g->n; i++)
        if (t_idx[i] < 0)
            strongconnect(g, i, what);
    free(t_idx);
    free(t_low);
    free(t_stack);
    free(t_on);
}

/* ---- call graph from nm ------------------------------------------------------------------- */

static char *objs[MAXF];
static const char *obj_src[MAXF]; /* the source file of an object, NULL when not found */
static int nobjs;
typedef struct sym {
    char *name;
    int obj;
} sym_t;
static sym_t *defs, *refs;
static size_t ndefs, nrefs, capdefs, caprefs;

static int obj_id(const char *name)
{
    for (int i = 0; i < nobjs; i++)
        if (strcmp(objs[i], name) == 0)
            return i;
    if (nobjs == MAXF)
        return -1;
    objs[nobjs] = strdup(name);
    return nobjs++;
}

static void push_sym(sym_t **v, size_t *n, size_t *cap, const char *name, int obj)
{
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 1024;
        sym_t *nv = realloc(*v, *cap * sizeof **v);
        if (!nv) {
            fprintf(stderr, "layering: out of memory\n");
            exit(4);
        }
        *v = nv;
    }
    (*v)[*n].name = strdup(name);
    (*v)[*n].obj = obj;
    (*n)++;
}

static bool read_lib(const char *lib)
{
    /* "dra_cel" from ".../libdra_cel.a" */
    const char *base = strrchr(lib, '/');
    base = base ? base + 1 : lib;
    if (strncmp(base, "lib", 3) == 0)
        base += 3;
    char libname[256];
    snprintf(libname, sizeof libname, "%s", base);
    char *dot = strrchr(libname, '.');
    if (dot)
        *dot = '\0';
    for (const char *c = lib; *c; c++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+", *c)) {
            fprintf(stderr, "layering: %s: unexpected character in the library path\n", lib);
            return false;
        }
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "nm -A '%s' 2>/dev/null", lib);
    FILE *p = popen(cmd, "r");
    if (!p)
        return false;
    char line[8192];
    int lines = 0;
    while (fgets(line, sizeof line, p)) {
        /* "lib.a:obj.o:0000000000000000 T name" or "lib.a:obj.o:                 U name" */
        char *c1 = strchr(line, ':');
        if (!c1)
            continue;
        char *c2 = strchr(c1 + 1, ':');
        if (!c2)
            continue;
        *c2 = '\0';
        char obj[1024];
        snprintf(obj, sizeof obj, "%s:%s", libname, c1 + 1);
        char type = 0, name[4096];
        char *rest = c2 + 1;
        char f1[4096], f2[4096], f3[4096];
        int k = sscanf(rest, "%4095s %4095s %4095s", f1, f2, f3);
        if (k == 3) {
            type = f2[0];
            snprintf(name, sizeof name, "%s", f3);
        } else if (k == 2) {
            type = f1[0];
            snprintf(name, sizeof name, "%s", f2);
        } else {
            continue;
        }
        int id = obj_id(obj);
        if (id < 0)
            continue;
        lines++;
        if (type == 'U')
            push_sym(&refs, &nrefs, &caprefs, name, id);
        else if (strchr("TDBRCV", type))
            push_sym(&defs, &ndefs, &capdefs, name, id);
    }
    int st = pclose(p);
    if (st != 0 || lines == 0) {
        fprintf(stderr, "layering: nm %s failed or printed nothing\n", lib);
        return false;
    }
    return true;
}

/* "dra_k8s:manifest_read.c.o" -> "harness/k8s/manifest_read.c": the source of that name in the
 * library's folder (core/<m>/, harness/<layer>/, gen/), else the only source of that name. */
static const char *source_of(const char *obj)
{
    const char *colon = strchr(obj, ':');
    if (!colon)
        return NULL;
    char lib[256], base[1024];
    snprintf(lib, sizeof lib, "%.*s", (int)(colon - obj), obj);
    snprintf(base, sizeof base, "%s", colon + 1);
    size_t bl = strlen(base);
    if (bl > 2 && strcmp(base + bl - 2, ".o") == 0)
        base[bl - 2] = '\0';
    const char *folder = strncmp(lib, "dra_", 4) == 0 ? lib + 4 : lib;
    const char *only = NULL;
    int nmatch = 0;
    for (int f = 0; f < nfiles; f++) {
        const char *slash = strrchr(files[f], '/');
        const char *name = slash ? slash + 1 : files[f];
        if (strcmp(name, base) != 0)
            continue;
        nmatch++;
        only = files[f];
        if (slash) {
            const char *d = slash;
            while (d > files[f] && d[-1] != '/')
                d--;
            if ((size_t)(slash - d) == strlen(folder) && strncmp(d, folder, strlen(folder)) == 0)
                return files[f];
        }
    }
    return nmatch == 1 ? only : NULL;
}

static int cmp_sym(const void *a, const void *b)
{
    return strcmp(((const sym_t *)a)->name, ((const sym_t *)b)->name);
}

static void call_cycles(void)
{
    qsort(defs, ndefs, sizeof *defs, cmp_sym);
    int *ca = malloc(nrefs * sizeof *ca), *cb = malloc(nrefs * sizeof *cb);
    if (!ca || !cb) {
        fprintf(stderr, "layering: out of memory\n");
        exit(4);
    }
    for (int o = 0; o < nobjs; o++)
        obj_src[o] = source_of(objs[o]);
    int ne = 0;
    for (size_t i = 0; i < nrefs; i++) {
        sym_t *d = bsearch(&refs[i], defs, ndefs, sizeof *defs, cmp_sym);
        if (!d || d->obj == refs[i].obj)
            continue;
        ca[ne] = refs[i].obj;
        cb[ne] = d->obj;
        ne++;
        const char *sa = obj_src[refs[i].obj], *sb = obj_src[d->obj];
        if (norders && sa && sb)
            check_order(sa, sb, "calls", refs[i].name);
    }
    graph_t g = {nobjs, ca, cb, ne, (const char *const *)objs};
    find_cycles(&g, "call");
    free(ca);
    free(cb);
}

/* ---- main --------------------------------------------------------------------------------- */

static int layer_index(const char *name, size_t n)
{
    for (int l = 0; l < nlayers; l++)
        if (strlen(layer_name[l]) == n && strncmp(layer_name[l], name, n) == 0)
            return l;
    return -1;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: layering_check SOURCE_DIR LAYER=BELOW,... ... [--order A<B,C<D]... "
                        "[-- LIB.a...]\n");
        return 2;
    }
    snprintf(srcdir, sizeof srcdir, "%s", argv[1]);
    int i = 2;
    int nlayer_args = 0;
    char *layer_args[MAXL];
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (strcmp(argv[i], "--order") == 0) {
            if (i + 1 >= argc || !parse_order(argv[i + 1])) {
                fprintf(stderr, "layering: bad --order '%s' (ranks A<B<..., patterns a,b; at most "
                                "%d orders of %d ranks)\n",
                        i + 1 < argc ? argv[i + 1] : "", ORD_MAX, ORD_RANKS);
                return 2;
            }
            i++;
            continue;
        }
        char *eq = strchr(argv[i], '=');
        if (!eq || nlayers == MAXL) {
            fprintf(stderr, "layering: bad layer argument '%s'\n", argv[i]);
            return 2;
        }
        layer_args[nlayer_args++] = argv[i];
        layer_name[nlayers++] = strndup(argv[i], (size_t)(eq - argv[i]));
    }
    for (int a = 0; a < nlayer_args; a++) {
        const char *eq = strchr(layer_args[a], '=');
        int l = a;
        for (const char *p = eq + 1; *p;) {
            size_t n = strcspn(p, ",");
            if (n) {
                int b = layer_index(p, n);
                if (b < 0) {
                    fprintf(stderr, "layering: '%s' names an unknown layer\n", layer_args[a]);
                    return 2;
                }
                layer_below[l][b] = true;
            }
            p += n;
            if (*p == ',')
                p++;
        }
    }
    for (int k = 0; k < nlayers; k++) /* transitive closure (Warshall) */
        for (int a = 0; a < nlayers; a++)
            for (int b = 0; b < nlayers; b++)
                layer_below[a][b] |= layer_below[a][k] && layer_below[k][b];
    for (int l = 0; l < nlayers; l++)
        if (layer_below[l][l]) {
            fprintf(stderr, "layering: layer %s links itself through a loop\n", layer_name[l]);
            return 1;
        }

    collect("core");
    collect("gen");
    collect("harness");
    if (nfiles < 10) {
        fprintf(stderr, "layering: %s: found only %d source files\n", srcdir, nfiles);
        return 2;
    }
    qsort(files, (size_t)nfiles, sizeof *files, cmp_str);
    for (int f = 0; f < nfiles; f++)
        if (strncmp(files[f], "harness/", 8) == 0 && !strchr(files[f] + 8, '/'))
            fail(files[f], "a source at harness/'s root: move it into its layer folder");
    for (int f = 0; f < nfiles; f++)
        scan_includes(f);
    graph_t g = {nfiles, ea, eb, nedges, (const char *const *)files};
    find_cycles(&g, "include");

    int nlibs = 0;
    for (int a = i + 1; a < argc; a++, nlibs++)
        if (!read_lib(argv[a]))
            return 4;
    if (nlibs)
        call_cycles();
    if (nlibs && allowed_cycle[0] && !allowed_seen)
        printf("layering: note: the allow-listed call cycle is gone; allowed_cycle[] can be "
               "emptied\n");

    printf("layering: %d files, %d includes, %d libraries, %zu symbol references: %s\n", nfiles,
           nedges, nlibs, nrefs, failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}
