/*
 * yaml_fuzzer.c - libFuzzer target: the fast block-YAML path (yfast.h) against libyaml. The input
 * is parsed three times by ydoc: with libyaml for every document, fast path first (libyaml from
 * the first document it declines), and the fast path as a 2-thread pipeline; the traces (every delivered tree with positions and
 * styles, every diagnostic, the return code) must be identical. The first byte, when it is 0x01,
 * makes on_doc stop after the first document, so the hand-over under a stopped parse is covered.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../testlib/ytrace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (1u << 18))
        return 0;
    int stop = 0;
    if (size > 0 && data[0] == '\x01') {
        stop = 1;
        data++;
        size--;
    }
    const char *text = (const char *)data;
    char *want = ytrace_parse(text, size, DRA_YDOC_NO_FAST, NULL, stop);
    char *got = ytrace_parse(text, size, 0, NULL, stop);
    if (strcmp(want, got) != 0) {
        fprintf(stderr, "fast path differs from libyaml\n--- libyaml\n%s--- fast\n%s", want, got);
        abort();
    }
    free(got);
    dra_ydoc_split_t pp = {.pipeline = true};
    got = ytrace_parse(text, size, DRA_YDOC_RESET_PER_DOC, &pp, stop);
    if (strcmp(want, got) != 0) {
        fprintf(stderr, "fast pipeline differs from libyaml\n--- libyaml\n%s--- fast\n%s", want,
                got);
        abort();
    }
    free(want);
    free(got);
    return 0;
}
