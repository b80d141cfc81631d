/*
 * conformance_fuzzer.c - libFuzzer target: conformance-case bytes (objects plus one
 * AllocationTest document) -> `drabench alloc --test --allocator both --max-steps 20000`, as the
 * command runs it: the strict case schema, the manifest and DeviceTaintRule readers, the
 * reference allocator with every check (invariants, commit + release restoring the state
 * digest), then the fast allocator without and with pruning. The case is written to a file in
 * a fresh temporary directory per input (removed afterwards); the command's stdout goes to a
 * file there. Properties (abort on violation): the exit status is 0, 1, 2 or 3 (4 only when
 * memory ran out); no "fast allocator ... differs" line (the allocators disagree on a case). A
 * failing expectation (exit 1) or an invariant violation (3: upstream-bug cases) is no finding.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

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
    char dir[512], cfile[600], ofile[600];
    snprintf(dir, sizeof dir, "%s/drabench-case-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir))
        fail("mkdtemp", dir);
    snprintf(cfile, sizeof cfile, "%s/case.yaml", dir);
    snprintf(ofile, sizeof ofile, "%s/out.txt", dir);
    write_file(cfile, data, size);

    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    int ofd = open(ofile, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (saved < 0 || ofd < 0 || dup2(ofd, STDOUT_FILENO) < 0)
        fail("cannot redirect stdout", ofile);
    close(ofd);
    char *argv[] = {"alloc", "--test", "--allocator", "both", "--max-steps", "20000", cfile, NULL};
    int rc = dra_cmd_alloc(7, argv);
    fflush(stdout);
    if (dup2(saved, STDOUT_FILENO) < 0)
        fail("cannot restore stdout", NULL);
    close(saved);

    char out[8192];
    size_t n = 0;
    FILE *f = fopen(ofile, "rb");
    if (f) {
        n = fread(out, 1, sizeof out - 1, f);
        fclose(f);
    }
    out[n] = '\0';
    if (rc < 0 || rc > 4)
        fail("unexpected exit status", out);
    if (strstr(out, ": fast allocator"))
        fail("the allocators disagree", out);
    if (unlink(cfile) != 0 || unlink(ofile) != 0 || rmdir(dir) != 0)
        fail("cannot clean up", dir);
    return 0;
}
