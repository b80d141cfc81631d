/*
 * test_walk.c - the directory walker (walk.h): order and filtering, symbolic-link loops, depth,
 * unreadable directories, and diagnostics that stay valid until dra_walk_fini (the use-after-free
 * of the old manifest walker: the path was freed while the error still named it).
 *
 * "Unreadable" cannot be made with permissions for root (CAP_DAC_OVERRIDE reads a mode-000
 * directory), so that test forks and, when running as root, drops to uid/gid 65534 in the child
 * before walking a mode-000 directory: the walker meets a real EACCES from opendir.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "manifest.h"
#include "walk.h"

static char root[256];

static void mk(const char *rel)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    size_t l = strlen(p);
    if (p[l - 1] == '/') {
        p[l - 1] = '\0';
        CHECK_OK(mkdir(p, 0755));
    } else {
        int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        CHECK(fd >= 0);
        if (fd >= 0)
            close(fd);
    }
}

typedef struct seen {
    char buf[4096];
    size_t n;
} seen_t;

static int record(const char *path, void *ud)
{
    seen_t *s = ud;
    const char *rel = strncmp(path, root, strlen(root)) == 0 ? path + strlen(root) + 1 : path;
    s->n += (size_t)snprintf(s->buf + s->n, sizeof s->buf - s->n, "%s;", rel);
    return DRA_OK;
}

static void test_order_and_suffixes(void)
{
    mk("t1/");
    mk("t1/b.yaml");
    mk("t1/a/");
    mk("t1/a/z.json");
    mk("t1/a/notes.txt");
    mk("t1/.hidden.yaml");
    mk("t1/c.yml");
    mk("t1/ab.yaml");
    char p[512];
    snprintf(p, sizeof p, "%s/t1", root);
    char *paths[] = {p, "-"};
    seen_t s = {.n = 0};
    dra_walk_t w;
    dra_walk_init(&w, dra_walk_manifest_suffixes);
    dra_diag_list_t errs;
    dra_diag_list_init(&errs);
    CHECK_OK(dra_walk_paths(&w, paths, 2, record, &s, &errs));
    CHECK_STREQ(s.buf, "t1/a/z.json;t1/ab.yaml;t1/b.yaml;t1/c.yml;-;");
    CHECK_EQ_U64(w.nfiles, 5);
    CHECK_EQ_U64(errs.count, 0);
    dra_diag_list_fini(&errs);
    dra_walk_fini(&w);

    /* flat: subdirectories skipped; NULL suffixes: every file */
    s.n = 0;
    s.buf[0] = '\0';
    dra_walk_init(&w, NULL);
    w.flat = 1;
    CHECK_OK(dra_walk_paths(&w, paths, 1, record, &s, NULL));
    CHECK_STREQ(s.buf, "t1/ab.yaml;t1/b.yaml;t1/c.yml;");
    dra_walk_fini(&w);
}

static void test_symlink_loop(void)
{
    /* the reproducer of the issue: l/a/back -> .. */
    mk("l/");
    mk("l/a/");
    mk("l/a/x.yaml");
    char p[512], target[512];
    snprintf(p, sizeof p, "%s/l/a/back", root);
    CHECK_OK(symlink("..", p));
    snprintf(p, sizeof p, "%s/l/self", root); /* a link to its own directory */
    CHECK_OK(symlink(".", p));
    snprintf(target, sizeof target, "%s/l", root);
    char *paths[] = {target};
    seen_t s = {.n = 0};
    dra_walk_t w;
    dra_walk_init(&w, dra_walk_manifest_suffixes);
    dra_diag_list_t errs;
    dra_diag_list_init(&errs);
    CHECK_EQ_I64(dra_walk_paths(&w, paths, 1, record, &s, &errs), DRA_ELIMIT);
    CHECK_STREQ(s.buf, "l/a/x.yaml;"); /* each file once, the walk goes on after the loop */
    CHECK_EQ_U64(errs.count, 2);
    if (errs.count == 2) {
        char want[600];
        snprintf(want, sizeof want, "%s/l/a/back", root);
        CHECK_STREQ(errs.items[0].file, want);
        CHECK(strstr(errs.items[0].msg, "directory loop") != NULL);
        CHECK_EQ_I64(errs.items[0].code, DRA_ELIMIT);
        snprintf(want, sizeof want, "%s/l/self", root);
        CHECK_STREQ(errs.items[1].file, want);
    }
    /* the names stay valid after the walk (ASan: no use after free) */
    for (size_t i = 0; i < errs.count; i++)
        CHECK(strlen(errs.items[i].file) > strlen(root));
    dra_diag_list_fini(&errs);
    dra_walk_fini(&w);
}

/* The reader over the same tree: the loop is an error whose file name (owned by the model now)
 * is still readable after the walk ended; under ASan the old walker read freed memory here. */
static void test_read_paths_loop(void)
{
    char p[512];
    snprintf(p, sizeof p, "%s/l", root);
    char *paths[] = {p};
    dra_model_t m;
    dra_model_init(&m);
    dra_diag_list_t errs;
    dra_diag_list_init(&errs);
    CHECK_EQ_I64(dra_manifest_read_paths(&m, paths, 1, &errs), DRA_ELIMIT);
    CHECK_EQ_U64(errs.count, 2);
    char want[600];
    snprintf(want, sizeof want, "%s/l/a/back", root);
    if (errs.count >= 1) {
        CHECK_STREQ(errs.items[0].file, want);
        char buf[1200];
        CHECK(strstr(dra_diag_format(&errs.items[0], buf, sizeof buf), "directory loop") != NULL);
    }
    dra_diag_list_fini(&errs);
    dra_model_fini(&m);
}

static void test_depth(void)
{
    char rel[512] = "deep/";
    mk(rel);
    for (int i = 1; i <= DRA_WALK_MAX_DEPTH + 1; i++) {
        strcat(rel, "d/");
        mk(rel);
    }
    char p[512];
    snprintf(p, sizeof p, "%s/deep", root);
    char *paths[] = {p};
    seen_t s = {.n = 0};
    dra_walk_t w;
    dra_walk_init(&w, dra_walk_manifest_suffixes);
    dra_diag_list_t errs;
    dra_diag_list_init(&errs);
    CHECK_EQ_I64(dra_walk_paths(&w, paths, 1, record, &s, &errs), DRA_ELIMIT);
    CHECK_EQ_U64(errs.count, 1);
    if (errs.count == 1) {
        CHECK(strstr(errs.items[0].msg, "deeper than 32") != NULL);
        /* the deepest directory: 33 levels below the argument */
        size_t nd = 0;
        for (const char *q = errs.items[0].file + strlen(p); (q = strstr(q, "/d")); q += 2)
            nd++;
        CHECK_EQ_U64(nd, DRA_WALK_MAX_DEPTH + 1);
    }
    dra_diag_list_fini(&errs);
    dra_walk_fini(&w);

    /* 32 levels are fine */
    snprintf(p, sizeof p, "%s/deep/d", root);
    dra_walk_init(&w, dra_walk_manifest_suffixes);
    dra_diag_list_init(&errs);
    CHECK_OK(dra_walk_paths(&w, paths, 1, record, &s, &errs));
    CHECK_EQ_U64(errs.count, 0);
    dra_diag_list_fini(&errs);
    dra_walk_fini(&w);
}

static void test_dangling_link(void)
{
    mk("dl/");
    mk("dl/ok.yaml");
    char p[512];
    snprintf(p, sizeof p, "%s/dl/gone.yaml", root);
    CHECK_OK(symlink("nowhere.yaml", p));
    snprintf(p, sizeof p, "%s/dl/gone-dir", root); /* not a wanted name: skipped silently */
    CHECK_OK(symlink("nowhere", p));
    snprintf(p, sizeof p, "%s/dl", root);
    char *paths[] = {p};
    seen_t s = {.n = 0};
    dra_walk_t w;
    dra_walk_init(&w, dra_walk_manifest_suffixes);
    dra_diag_list_t errs;
    dra_diag_list_init(&errs);
    CHECK_EQ_I64(dra_walk_paths(&w, paths, 1, record, &s, &errs), DRA_EIO);
    CHECK_STREQ(s.buf, "dl/ok.yaml;");
    CHECK_EQ_U64(errs.count, 1);
    if (errs.count == 1)
        CHECK(strstr(errs.items[0].file, "gone.yaml") && strstr(errs.items[0].msg, "cannot stat"));
    dra_diag_list_fini(&errs);
    dra_walk_fini(&w);
}

/* Child: walk root/u (u/x is mode 000) as an unprivileged user; exit 0 when the walker reported
 * exactly u/x as unreadable with DRA_EIO and still visited u/y.yaml. */
static int unreadable_child(void)
{
    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
        return 10;
    char p[512];
    snprintf(p, sizeof p, "%s/u", root);
    char *paths[] = {p};
    seen_t s = {.n = 0};
    dra_walk_t w;
    dra_walk_init(&w, dra_walk_manifest_suffixes);
    dra_diag_list_t errs;
    dra_diag_list_init(&errs);
    int rc = dra_walk_paths(&w, paths, 1, record, &s, &errs);
    int bad = rc != DRA_EIO || errs.count != 1 || strcmp(s.buf, "u/y.yaml;") != 0 ||
              !strstr(errs.items[0].file, "/u/x") || !strstr(errs.items[0].msg, "cannot open directory") ||
              !strstr(errs.items[0].msg, strerror(EACCES));
    if (bad)
        fprintf(stderr, "unreadable: rc %d, %zu errors (%s), seen %s\n", rc, errs.count,
                errs.count ? errs.items[0].msg : "", s.buf);
    dra_diag_list_fini(&errs);
    dra_walk_fini(&w);
    return bad ? 1 : 0;
}

static void test_unreadable(void)
{
    mk("u/");
    mk("u/x/");
    mk("u/x/in.yaml");
    mk("u/y.yaml");
    char p[512];
    snprintf(p, sizeof p, "%s/u/x", root);
    CHECK_OK(chmod(p, 0));
    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0)
        _exit(unreadable_child());
    int st = 0;
    CHECK(waitpid(pid, &st, 0) == pid);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 10)
        CHECK_SKIP("cannot drop to uid 65534");
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CHECK_OK(chmod(p, 0755));
}

static int rm_rf(const char *p)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", p);
    return system(cmd);
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(root, sizeof root, "%s/drabench-walk-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(root)) {
        perror("mkdtemp");
        return 1;
    }
    (void)chmod(root, 0755); /* the unprivileged child must reach u/ */
    RUN(test_order_and_suffixes);
    RUN(test_symlink_loop);
    RUN(test_read_paths_loop);
    RUN(test_depth);
    RUN(test_dangling_link);
    RUN(test_unreadable);
    (void)rm_rf(root);
    return check_summary();
}
