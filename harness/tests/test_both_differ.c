/*
 * test_both_differ.c - `--allocator both` stops at the first differing decision with exit 3 and
 * names it, for `drabench alloc` and `drabench run`. The allocators agree on these inputs, so a
 * difference is forced through the test-only hooks (conformance_tests.h, runner_tests.h), which
 * change the compared side's decision of one chosen call; the commands run in-process. Controls:
 * without the hook both commands agree (exit 0) and report how many decisions they compared.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "cli.h"
#include "conformance_tests.h"
#include "engine/engine.h"
#include "runner.h"
#include "runner_tests.h"

static char dir[256];

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    CHECK(fputs(text, f) >= 0);
    CHECK(fclose(f) == 0);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return calloc(1, 1);
    char *b = calloc(1, 1 << 16);
    size_t n = b ? fread(b, 1, (1 << 16) - 1, f) : 0;
    (void)n;
    fclose(f);
    return b;
}

/* Run a command in-process with stdout and stderr in files of dir; their text to *out, *err. */
static int run_cmd(int (*cmd)(int, char **), int argc, char **argv, char **out, char **err)
{
    char po[300], pe[300];
    snprintf(po, sizeof po, "%s/stdout.txt", dir);
    snprintf(pe, sizeof pe, "%s/stderr.txt", dir);
    fflush(stdout);
    fflush(stderr);
    int so = dup(STDOUT_FILENO), se = dup(STDERR_FILENO);
    int fo = open(po, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int fe = open(pe, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    CHECK(so >= 0 && se >= 0 && fo >= 0 && fe >= 0);
    dup2(fo, STDOUT_FILENO);
    dup2(fe, STDERR_FILENO);
    close(fo);
    close(fe);
    int rc = cmd(argc, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(so, STDOUT_FILENO);
    dup2(se, STDERR_FILENO);
    close(so);
    close(se);
    *out = slurp(po);
    *err = slurp(pe);
    return rc;
}

/* ---- alloc --allocator both ------------------------------------------------------------------ */

/* Three more pods on the sample cluster (three GPUs: two on node-a, one on node-b), so that the
 * decisions are: trainer on node-a (#1), w1 on node-a (#2), w2 unsatisfiable on node-a (#3) and
 * allocated on node-b (#4), w3 unsatisfiable on both (#5, #6). */
static const char pods_yaml[] =
    "apiVersion: v1\nkind: Pod\nmetadata: {name: w1, namespace: default}\n"
    "spec:\n  containers: [{name: main, image: busybox}]\n"
    "  resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]\n"
    "---\n"
    "apiVersion: v1\nkind: Pod\nmetadata: {name: w2, namespace: default}\n"
    "spec:\n  containers: [{name: main, image: busybox}]\n"
    "  resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]\n"
    "---\n"
    "apiVersion: v1\nkind: Pod\nmetadata: {name: w3, namespace: default}\n"
    "spec:\n  containers: [{name: main, image: busybox}]\n"
    "  resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]\n";

static uint64_t perturb_at;
static uint64_t perturb_calls;

/* The fast allocator's decision number perturb_at names another device (or, when it allocated
 * nothing, claims to have allocated). */
static void perturb_fast(uint64_t decision, dra_alloc_outcome_t *fast)
{
    perturb_calls++;
    if (decision != perturb_at)
        return;
    if (fast->kind == DRA_OUTCOME_ALLOCATED && fast->n && fast->allocations[0]->nresults)
        fast->allocations[0]->results[0].device = "gpu-perturbed";
    else
        fast->kind = DRA_OUTCOME_ALLOCATED;
}

static int alloc_both(char **out, char **err)
{
    char pods[300];
    snprintf(pods, sizeof pods, "%s/pods.yaml", dir);
    char *argv[] = {"alloc", "-f", "corpora/samples/sample-cluster.yaml", "-f", pods, "--allocator",
                    "both",  NULL};
    return run_cmd(dra_cmd_alloc, 7, argv, out, err);
}

static void test_alloc_both_agrees(void)
{
    char *out, *err;
    dra_conf_test_perturb = NULL;
    int rc = alloc_both(&out, &err);
    CHECK_EQ_I64(rc, 0);
    CHECK_MSG(strstr(err, "both: 6 decisions compared") != NULL, "%s", err);
    CHECK_MSG(strstr(err, "ratio reference/fast") != NULL, "%s", err);
    CHECK_MSG(strstr(out, "name: w2-gpu") != NULL && strstr(out, "pool: node-b") != NULL, "%s",
              out);
    free(out);
    free(err);
}

static void test_alloc_both_differs_exit3(void)
{
    /* an allocated decision (#4: w2 on node-b) and an unsatisfiable one (#5: w3 on node-a) */
    static const struct {
        uint64_t at;
        const char *want[4];
    } cases[] = {
        {4,
         {"decision #4 differs (w2 on node node-b, claim default/w2-gpu)", "gpu-perturbed",
          "reference vs fast", NULL}},
        {5,
         {"decision #5 differs (w3 on node node-a, claim default/w3-gpu)",
          "outcome Unsatisfiable vs Allocated", NULL, NULL}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *out, *err;
        perturb_at = cases[i].at;
        perturb_calls = 0;
        dra_conf_test_perturb = perturb_fast;
        int rc = alloc_both(&out, &err);
        dra_conf_test_perturb = NULL;
        CHECK_EQ_I64(rc, 3);
        CHECK_EQ_U64(perturb_calls, cases[i].at); /* stopped at the first difference */
        for (int k = 0; k < 4 && cases[i].want[k]; k++)
            CHECK_MSG(strstr(err, cases[i].want[k]) != NULL, "want '%s' in: %s", cases[i].want[k],
                      err);
        CHECK_MSG(out[0] == '\0', "claims printed after a difference: %s", out);
        free(out);
        free(err);
    }
}

/* ---- run --allocator both -------------------------------------------------------------------- */

static uint64_t perturb_pod;

/* The reference placement of pod perturb_pod decided otherwise. */
static void perturb_reference(uint64_t pod, struct dra_engine_result *ref)
{
    if (pod != perturb_pod)
        return;
    ref->kind = ref->kind == DRA_OUTCOME_ALLOCATED ? DRA_OUTCOME_UNSATISFIABLE
                                                   : DRA_OUTCOME_ALLOCATED;
}

static void run_opts(dra_runner_opts_t *o)
{
    dra_runner_opts_init(o);
    o->scenario = "default";
    o->allocator = "both";
    o->both_prefix = 25;
    o->has_count = true;
    o->count = 40;
    o->has_warmup = true;
    o->warmup = 0;
    o->has_repeat = true;
    o->repeat = 1;
}

static void test_runner_both_differs_exit3(void)
{
    dra_runner_opts_t o;
    dra_run_t r;
    dra_diag_t d;
    /* control: the engine agrees with the reference on the 25 compared arrivals */
    run_opts(&o);
    dra_diag_clear(&d);
    dra_runner_both_hook = NULL;
    CHECK_OK(dra_runner_run(&o, &r, &d));
    CHECK_EQ_U64(r.both_pods, 25);
    CHECK_EQ_I64(dra_run_exit_status(&r), 0);
    CHECK(r.complete);
    dra_run_fini(&r);
    /* pod 7's reference decision differs: a violation naming pod 7, the run stops, exit 3 */
    perturb_pod = 7;
    dra_runner_both_hook = perturb_reference;
    dra_diag_clear(&d);
    CHECK_OK(dra_runner_run(&o, &r, &d));
    dra_runner_both_hook = NULL;
    CHECK_EQ_I64(dra_run_exit_status(&r), 3);
    CHECK_EQ_U64(r.both_pods, 8); /* pods 0..7 compared, then the run halted */
    CHECK(!r.complete);
    CHECK(r.nfirst >= 1);
    if (r.nfirst) {
        CHECK_EQ_U64(r.first[0].pod, 7);
        CHECK_MSG(strstr(r.first[0].message, "allocator both: decisions differ: engine ") != NULL,
                  "%s", r.first[0].message);
        CHECK(r.first[0].claim[0] != '\0');
    }
    dra_run_fini(&r);
}

static void test_run_cli_both_differs_exit3(void)
{
    char res[300];
    snprintf(res, sizeof res, "%s/run.json", dir);
    char *argv[] = {"run",  "default",       "-n", "40", "-w", "0", "-r", "1", "--allocator",
                    "both", "--both-prefix", "25", "-o", res,  NULL};
    char *out, *err;
    perturb_pod = 3;
    dra_runner_both_hook = perturb_reference;
    int rc = run_cmd(dra_cmd_run, 14, argv, &out, &err);
    dra_runner_both_hook = NULL;
    CHECK_EQ_I64(rc, 3);
    CHECK_MSG(strstr(out, "decisions differ") != NULL || strstr(err, "decisions differ") != NULL,
              "stdout: %s\nstderr: %s", out, err);
    free(out);
    free(err);
    unlink(res);
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/drabench-both-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    char pods[300];
    snprintf(pods, sizeof pods, "%s/pods.yaml", dir);
    write_text(pods, pods_yaml);
    RUN(test_alloc_both_agrees);
    RUN(test_alloc_both_differs_exit3);
    RUN(test_runner_both_differs_exit3);
    RUN(test_run_cli_both_differs_exit3);
    char p[300];
    const char *names[] = {"pods.yaml", "stdout.txt", "stderr.txt"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        unlink(p);
    }
    rmdir(dir);
    return check_summary();
}
