/*
 * tsv_runner.c - every row of ../shared/cel/dra-expressions.tsv through the DRA CEL engine:
 * compile in the DRA environment, build the row's device (device_context JSON) in a model and
 * evaluate with dra_cel_eval_device. The outcome class (true, false, compile error, runtime
 * error) must match `expected`. Rows whose expected result is `unknown` or whose note says
 * "verify" are reported apart and never fail the run. Message texts are compared loosely
 * (reported, not failing): implementations word errors differently.
 *
 * Usage: cel_tsv [-v] [FILE]   (FILE defaults to $DRA_SHARED/cel/dra-expressions.tsv)
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cel.h"
#include "model/model.h"

int dra_cel_device_from_json(dra_model_t *m, const json_t *o, const char *name,
                             const dra_device_t **out, dra_diag_t *diag);

static void unescape(char *s)
{
    char *o = s;
    for (char *p = s; *p; p++) {
        if (*p == '\\' && p[1]) {
            p++;
            *o++ = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p == 'r' ? '\r' : *p;
        } else {
            *o++ = *p;
        }
    }
    *o = 0;
}

int main(int argc, char **argv)
{
    int verbose = 0;
    const char *path = NULL;
    char pbuf[1024];
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-v"))
            verbose = 1;
        else
            path = argv[i];
    }
    if (!path) {
        const char *sh = getenv("DRA_SHARED");
        snprintf(pbuf, sizeof pbuf, "%s/cel/dra-expressions.tsv", sh && *sh ? sh : "../shared");
        path = pbuf;
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "cel_tsv: cannot open %s\n", path);
        return 77;
    }
    char *line = NULL;
    size_t cap = 0;
    int rowno = 0, pass = 0, fail = 0, apart = 0, apart_agree = 0, msg_diff = 0;
    int n_true = 0, n_false = 0, n_cerr = 0, n_rerr = 0, n_unsup = 0;
    while (getline(&line, &cap, f) > 0) {
        rowno++;
        if (rowno == 1)
            continue;
        size_t l = strlen(line);
        while (l && (line[l - 1] == '\n' || line[l - 1] == '\r'))
            line[--l] = 0;
        char *cols[4] = {0};
        char *p = line;
        for (int i = 0; i < 4; i++) {
            cols[i] = p;
            p = p ? strchr(p, '\t') : NULL;
            if (p)
                *p++ = 0;
        }
        if (!cols[2])
            continue;
        for (int i = 0; i < 4; i++)
            if (cols[i])
                unescape(cols[i]);
        const char *expr = cols[0], *expected = cols[2], *ctx = cols[3] ? cols[3] : "";
        json_t *o = NULL;
        if (*ctx) {
            json_error_t je;
            o = json_loads(ctx, 0, &je);
            if (!o) {
                printf("row %d: bad device_context JSON: %s\n", rowno, je.text);
                fail++;
                continue;
            }
        }
        const char *want_err = o ? json_string_value(json_object_get(o, "error")) : NULL;
        const char *note = o ? json_string_value(json_object_get(o, "note")) : NULL;
        bool is_apart = !strcmp(expected, "unknown") || (note && strstr(note, "verify"));
        /* Kubernetes libraries this engine does not implement (core/cel/README.md) */
        static const char *const unsupported[] = {"format.dns", "format.named("};
        const char *unsup = NULL;
        for (size_t u = 0; u < sizeof unsupported / sizeof *unsupported && !unsup; u++) {
            const char *hit = strstr(expr, unsupported[u]);
            if (hit && (hit == expr || !((hit[-1] >= 'a' && hit[-1] <= 'z') ||
                                         (hit[-1] >= 'A' && hit[-1] <= 'Z') || hit[-1] == '_')))
                unsup = unsupported[u];
        }
        /* outcome */
        char got[64];
        char gotmsg[DRA_DIAG_MSG_MAX + 32] = "";
        dra_arena_t a;
        dra_arena_init(&a, 0);
        dra_cel_prog_t *prog = NULL;
        dra_diag_t d;
        dra_diag_clear(&d);
        int rc = dra_cel_compile(expr, strlen(expr), &a, &prog, &d);
        if (rc != DRA_OK) {
            snprintf(got, sizeof got, "error");
            snprintf(gotmsg, sizeof gotmsg, "compile: %s", d.msg);
        } else {
            dra_model_t m;
            dra_model_init(&m);
            const dra_device_t *dev = NULL;
            rc = dra_cel_device_from_json(&m, o, "dev", &dev, &d);
            if (rc != DRA_OK) {
                snprintf(got, sizeof got, "bad-device");
                snprintf(gotmsg, sizeof gotmsg, "%s", d.msg);
            } else {
                dra_arena_t scratch;
                dra_arena_init(&scratch, 0);
                bool match = false;
                dra_diag_clear(&d);
                rc = dra_cel_eval_device(prog, &m, dev, &scratch, &match, &d);
                if (rc == DRA_OK) {
                    snprintf(got, sizeof got, "%s", match ? "true" : "false");
                } else {
                    snprintf(got, sizeof got, "error");
                    snprintf(gotmsg, sizeof gotmsg, "runtime: %s", d.msg);
                }
                dra_arena_fini(&scratch);
            }
            dra_model_fini(&m);
        }
        dra_arena_fini(&a);
        /* compare outcome class */
        bool ok = !strcmp(got, expected);
        if (ok && !strcmp(expected, "error") && want_err) {
            /* compile vs runtime must agree */
            bool want_compile = !strncmp(want_err, "compile:", 8);
            bool got_compile = !strncmp(gotmsg, "compile:", 8);
            ok = want_compile == got_compile;
            if (ok) {
                /* loose message check: the first words after the prefix */
                const char *w = strchr(want_err, ':') + 1;
                while (*w == ' ')
                    w++;
                char key[24];
                snprintf(key, sizeof key, "%s", w);
                char *cut = strpbrk(key, "(:'\"");
                if (cut)
                    *cut = 0;
                if (strlen(key) > 6 && !strstr(gotmsg, key)) {
                    msg_diff++;
                    if (verbose)
                        printf("row %d: message differs: want '%s', got '%s'\n", rowno, want_err,
                               gotmsg);
                }
            }
        }
        if (unsup) {
            n_unsup++;
            printf("row %d [unsupported library %s]: expected %s, got %s   %s\n", rowno, unsup,
                   expected, got, expr);
        } else if (is_apart) {
            apart++;
            if (ok)
                apart_agree++;
            printf("row %d [%s]: expected %s, got %s%s%s   %s\n", rowno,
                   !strcmp(expected, "unknown") ? "unknown" : "verify", expected, got,
                   *gotmsg ? " " : "", gotmsg, expr);
        } else if (ok) {
            pass++;
            if (!strcmp(expected, "true"))
                n_true++;
            else if (!strcmp(expected, "false"))
                n_false++;
            else if (!strncmp(gotmsg, "compile:", 8))
                n_cerr++;
            else
                n_rerr++;
        } else {
            fail++;
            printf("row %d FAIL: expected %s%s%s, got %s %s\n     expr: %s\n", rowno, expected,
                   want_err ? " " : "", want_err ? want_err : "", got, gotmsg, expr);
        }
        json_decref(o);
    }
    free(line);
    fclose(f);
    printf("dra-expressions: %d pass (%d true, %d false, %d compile errors, %d runtime errors), "
           "%d fail, %d reported apart (unknown/verify; %d agree with the TSV), %d error messages "
           "worded differently, %d use unsupported libraries (Kubernetes format library)\n",
           pass, n_true, n_false, n_cerr, n_rerr, fail, apart, apart_agree, msg_diff, n_unsup);
    printf("%d passed, %d failed\n", pass, fail);
    return fail ? 1 : 0;
}
