/*
 * conformance_fuzzer.c - libFuzzer target: conformance-case bytes (objects plus one
 * AllocationTest document) -> the case runner of `drabench alloc --test --allocator both
 * --explain --max-steps 20000` (bench/conformance.h): the strict case schema, the manifest and
 * DeviceTaintRule readers, the reference allocator with every check (invariants, commit +
 * release restoring the state digest), then the fast allocator without and with pruning. The
 * case is written to a file in a fresh temporary directory per input (removed afterwards); the
 * runner's PASS/FAIL line goes to a memory stream. Properties (abort on violation): the result
 * is pass, fail or invalid, and the line says PASS for pass, FAIL otherwise; no "fast allocator ... differs" line (the
 * allocators disagree on a case); no "explain on node" line (the explain mode, core/alloc/explain.h,
 * disagrees with the allocator on a node of the case: `alloc --test --explain`). A failing expectation (an invariant violation included:
 * upstream-bug cases) is no finding.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conformance.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static void fail(const char *what, const char *detail)
{
    fprintf(stderr, "conformance_fuzzer: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* a case may name "-" (stdin) in spec.include: never wait on a terminal */
    int fd = open("/dev/null", O_RDONLY);
    if (fd >= 0) {
        dup2(fd, STDIN_FILENO);
        close(fd);
    }
    return 0;
}

static void write_file(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
        fail("cannot write", path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (1u << 16))
        return 0;
    const char *tmp = getenv("TMPDIR");
    char dir[512], cfile[600];
    snprintf(dir, sizeof dir, "%s/drabench-case-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir))
        fail("mkdtemp", dir);
    snprintf(cfile, sizeof cfile, "%s/case.yaml", dir);
    write_file(cfile, data, size);

    dra_conf_opts_t o;
    memset(&o, 0, sizeof o);
    dra_alloc_features_init(&o.f, DRA_RELEASE_DEFAULT);
    o.kind = DRA_ALLOC_REFERENCE;
    o.both = true;
    o.max_steps_set = true;
    o.max_steps = 20000;
    o.explain = true;
    char *out = NULL;
    size_t n = 0;
    FILE *mf = open_memstream(&out, &n);
    if (!mf)
        fail("open_memstream", NULL);
    int r = dra_conf_run_case(cfile, &o, mf);
    if (fclose(mf) != 0 || !out)
        fail("memory stream", NULL);
    if (r != DRA_CONF_PASS && r != DRA_CONF_FAIL && r != DRA_CONF_INVALID)
        fail("unexpected result", out);
    /* the case's PASS or FAIL line (none only when memory ran out) */
    if (n ? strncmp(out, r == DRA_CONF_PASS ? "PASS " : "FAIL ", 5) != 0 : r != DRA_CONF_INVALID)
        fail("no PASS/FAIL line for the result", out);
    /* the failure's own message, after "<case file>): " - text of the input echoed before it
     * or inside it (a case name, an unknown key "apexplain on nodeiVersion") is not a finding */
    const char *msg = n ? strstr(out, cfile) : NULL;
    if (msg) {
        msg += strlen(cfile);
        msg += *msg == ')';
        msg += strncmp(msg, ": ", 2) == 0 ? 2 : 0;
    }
    if (msg && strncmp(msg, "fast allocator", 14) == 0)
        fail("the allocators disagree", out);
    if (msg && strncmp(msg, "explain on node ", 16) == 0)
        fail("explain disagrees with the allocator", out);
    free(out);
    if (unlink(cfile) != 0 || rmdir(dir) != 0)
        fail("cannot clean up", dir);
    return 0;
}
