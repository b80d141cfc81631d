/*
 * manifest_fuzzer.c - libFuzzer target: manifest bytes -> reader -> validator -> v1 YAML writer ->
 * reader again. When the first read and validation succeed, the second read must succeed too and
 * give the same dra_model_digest (the writer's round-trip contract); any other outcome is fine as
 * long as nothing crashes, leaks or hangs. The first byte picks YAML or JSON input and which
 * writer to round-trip through, so both paths are explored from one corpus.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (1u << 20))
        return 0;
    const char *name = "fuzz.yaml";
    bool json_out = false;
    if (size > 0 && data[0] == '\x01') { /* selector byte: JSON writer */
        json_out = true;
        data++;
        size--;
    }
    dra_model_t m;
    dra_model_init(&m);
    dra_diag_list_t errs;
    dra_diag_list_init(&errs);
    int rc = dra_manifest_read_buffer(&m, name, (const char *)data, size, &errs);
    if (rc == DRA_OK)
        rc = dra_model_imply_nodes(&m);
    if (rc == DRA_OK)
        rc = dra_manifest_validate(&m, &errs);
    if (rc == DRA_OK) {
        dra_sbuf_t out = {0};
        int wrc = json_out ? dra_manifest_write_json_buf(&m, &out)
                           : dra_manifest_write_yaml_buf(&m, &out);
        if (wrc == DRA_OK) {
            dra_model_t m2;
            dra_model_init(&m2);
            dra_diag_list_t e2;
            dra_diag_list_init(&e2);
            int rc2 = dra_manifest_read_buffer(&m2, json_out ? "rt.json" : "rt.yaml",
                                               out.p ? out.p : "", out.len, &e2);
            if (rc2 == DRA_OK)
                rc2 = dra_model_imply_nodes(&m2);
            if (rc2 != DRA_OK || dra_model_digest(&m) != dra_model_digest(&m2)) {
                char buf[1024];
                for (size_t i = 0; i < e2.count; i++)
                    fprintf(stderr, "%s\n", dra_diag_format(&e2.items[i], buf, sizeof buf));
                fprintf(stderr, "round trip failed (rc %d):\n%.*s\n", rc2, (int)out.len,
                        out.p ? out.p : "");
                abort();
            }
            dra_diag_list_fini(&e2);
            dra_model_fini(&m2);
        }
        dra_sbuf_fini(&out);
    }
    dra_diag_list_fini(&errs);
    dra_model_fini(&m);
    return 0;
}
