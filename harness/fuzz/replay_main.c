/*
 * replay_main.c - run a libFuzzer target over files and directories without libFuzzer.
 *
 * Linked into every *_fuzzer in gcc and plain builds so ctest replays the corpora through the
 * same LLVMFuzzerTestOneInput. Each argument is a file or a directory (its files read in sorted
 * order, subdirectories skipped: walk.h). Exit 0 when every input ran; a crash or sanitizer
 * report aborts the process.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "walk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (n < 0) {
        fclose(f);
        return 1;
    }
    uint8_t *buf = malloc((size_t)n + 1);
    if (!buf) {
        fclose(f);
        return 1;
    }
    size_t got = fread(buf, 1, (size_t)n, f);
    fclose(f);
    LLVMFuzzerTestOneInput(buf, got);
    free(buf);
    return 0;
}

static int replay_one(const char *path, void *ud)
{
    int *errors = ud;
    *errors += run_file(path);
    return 0;
}

int main(int argc, char **argv)
{
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    int errors = 0;
    dra_walk_t w;
    dra_walk_init(&w, NULL);
    w.flat = 1;
    dra_diag_list_t errs;
    dra_diag_list_init(&errs);
    if (dra_walk_paths(&w, argv + 1, argc - 1, replay_one, &errors, &errs) != DRA_OK && !errs.count)
        errors++; /* failed without naming a path (out of memory) */
    for (size_t i = 0; i < errs.count; i++) {
        char buf[DRA_DIAG_MSG_MAX + 256];
        fprintf(stderr, "replay: %s\n", dra_diag_format(&errs.items[i], buf, sizeof buf));
        errors++;
    }
    int files = (int)w.nfiles;
    dra_diag_list_fini(&errs);
    dra_walk_fini(&w);
    printf("replayed %d inputs, %d unreadable\n", files, errors);
    printf("%d passed, %d failed\n", files, errors);
    return errors ? 1 : 0;
}
