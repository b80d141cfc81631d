/*
 * result_fuzzer.c - libFuzzer target: result-file bytes -> dra_rload_buf -> the writers that read
 * result files: perfdash and benchfmt exports, the compare report (text, Markdown, JSON, gate
 * lines) of the result against itself, and `drabench report` (HTML, Markdown, gnuplot inputs and
 * scripts; gnuplot itself is not run) into a fresh temporary directory per input, removed
 * afterwards. Properties (abort on violation): a load error carries a message; the writers
 * return only their documented codes; a result compared with itself has no regression. The
 * escaping of what reaches gnuplot, HTML, Markdown and benchfmt is the writers' contract, tested
 * where it is implemented; here the inputs must not crash, leak or hang them.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare.h"
#include "report.h"
#include "rload.h"
#include "walk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *detail)
{
    fprintf(stderr, "result_fuzzer: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    abort();
}

static FILE *sink(void)
{
    FILE *f = fopen("/dev/null", "w");
    if (!f)
        fail("cannot open /dev/null", NULL);
    return f;
}

static int unlink_one(const char *path, void *ud)
{
    (void)ud;
    return unlink(path) == 0 ? DRA_OK : DRA_EIO;
}

/* Remove the report directory (flat: the report writes no subdirectories). */
static void remove_dir(char *dir)
{
    dra_walk_t w;
    dra_walk_init(&w, NULL);
    w.flat = 1;
    if (dra_walk_paths(&w, &dir, 1, unlink_one, NULL, NULL) != DRA_OK || rmdir(dir) != 0)
        fail("cannot remove the report directory", dir);
    dra_walk_fini(&w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (1u << 18))
        return 0;
    dra_rload_result_t r;
    dra_diag_t d;
    dra_diag_clear(&d);
    int rc = dra_rload_buf((const char *)data, size, "fuzz.json", &r, &d);
    if (rc != DRA_OK) {
        if (rc != DRA_ENOMEM && !d.msg[0])
            fail("load error without a message", NULL);
        return 0;
    }
    FILE *f = sink();
    rc = dra_export_perfdash(&r, 1, f);
    if (rc != DRA_OK && rc != DRA_ENOMEM && rc != DRA_EIO && rc != DRA_EINVAL)
        fail("perfdash export: unexpected code", dra_strerror(rc));
    rc = dra_export_benchfmt(&r, 1, f);
    if (rc != DRA_OK && rc != DRA_ENOMEM && rc != DRA_EIO && rc != DRA_EINVAL)
        fail("benchfmt export: unexpected code", dra_strerror(rc));
    char name[256];
    dra_export_perfdash_name(&r, name, sizeof name);

    dra_compare_opts_t co;
    dra_compare_opts_init(&co);
    dra_compare_report_t cr;
    memset(&cr, 0, sizeof cr);
    rc = dra_compare_run(&r, 1, &r, 1, &co, &cr);
    if (rc == DRA_OK) {
        if (dra_compare_write_text(&cr, f) || dra_compare_write_md(&cr, f) ||
            dra_compare_write_json(&cr, f))
            fail("compare writer failed on /dev/null", NULL);
        dra_compare_write_gate_lines(&cr, f);
        if (cr.nregressions)
            fail("a result compared with itself regresses", NULL);
    }
    dra_compare_fini(&cr);
    fclose(f);

    const char *tmp = getenv("TMPDIR");
    char dir[512];
    snprintf(dir, sizeof dir, "%s/drabench-result-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir))
        fail("mkdtemp", dir);
    dra_report_opts_t ro = {.title = NULL, .gnuplot = "", .nbase = 1};
    dra_report_info_t info;
    memset(&info, 0, sizeof info);
    rc = dra_report_write(&r, 1, dir, &ro, &info, &d);
    if (rc != DRA_OK && rc != DRA_ENOMEM && rc != DRA_EINVAL && rc != DRA_EIO)
        fail("report: unexpected code", dra_strerror(rc));
    if (info.plots_written)
        fail("report ran gnuplot although told not to", NULL);
    remove_dir(dir);
    dra_rload_fini(&r);
    return 0;
}
