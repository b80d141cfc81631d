/*
 * result_check.c - test tool: check result files strictly against the result schema
 * (dra_result_check: schema.def, every field the runner always writes, no unknown key), as the
 * command-line tests of `drabench run` do with what it wrote.
 * Usage: result_check FILE...   Exit 0 when every file passes, 1 when one does not (the reason
 * on stderr), 2 on a usage error, 4 when a file cannot be read or is not JSON.
 */
#include <jansson.h>
#include <stdio.h>

#include "result.h"

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: result_check FILE...\n");
        return 2;
    }
    int status = 0;
    for (int i = 1; i < argc; i++) {
        json_error_t je;
        json_t *doc = json_load_file(argv[i], JSON_REJECT_DUPLICATES, &je);
        if (!doc) {
            fprintf(stderr, "%s:%d:%d: %s\n", argv[i], je.line, je.column, je.text);
            return 4;
        }
        dra_diag_t d;
        dra_diag_clear(&d);
        if (dra_result_check(doc, &d) != DRA_OK) {
            fprintf(stderr, "%s: %s\n", argv[i], d.msg);
            status = 1;
        }
        json_decref(doc);
    }
    return status;
}
