/* cli.c - shared CLI helpers; see cli.h. */
#include "cli.h"

#include "escape.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The message of fmt and its arguments through dra_msg_vformat (terminal-safe %s arguments). */
#define CLI_MSG(buf, fmt)                                                                         \
    do {                                                                                          \
        va_list ap;                                                                               \
        va_start(ap, fmt);                                                                        \
        dra_msg_vformat(buf, sizeof buf, fmt, ap);                                                \
        va_end(ap);                                                                               \
    } while (0)

int dra_cli_usage_error(const char *cmd, const char *fmt, ...)
{
    char buf[8192];
    CLI_MSG(buf, fmt);
    fprintf(stderr, "drabench %s: %s\nTry 'drabench %s --help'.\n", cmd, buf, cmd);
    return DRA_EXIT_USAGE;
}

void dra_cli_errorf(const char *fmt, ...)
{
    char buf[8192];
    CLI_MSG(buf, fmt);
    fprintf(stderr, "drabench: %s\n", buf);
}

void dra_cli_notef(FILE *f, const char *fmt, ...)
{
    char buf[8192];
    CLI_MSG(buf, fmt);
    fprintf(f, "%s\n", buf);
}

void dra_cli_print_path(const char *path)
{
    if (isatty(STDOUT_FILENO))
        dra_esc_term(stdout, path);
    else
        fputs(path, stdout);
    fputc('\n', stdout);
}

bool dra_cli_progress_enabled(void)
{
    const char *ci = getenv("CI");
    if (ci && *ci)
        return false;
    const char *term = getenv("TERM");
    if (term && strcmp(term, "dumb") == 0)
        return false;
    return isatty(STDERR_FILENO) != 0;
}

int dra_cli_getopt(const char *cmd, int argc, char **argv, const char *shortopts,
                   const struct option *longopts, const char **arg)
{
    char spec[128];
    snprintf(spec, sizeof spec, "-:%s", shortopts);
    opterr = 0;
    int before = optind > 0 ? optind : 1; /* optind 0: getopt_long starts at 1 */
    int c = getopt_long(argc, argv, spec, longopts, NULL);
    *arg = optarg;
    if (c == -1)
        return before < argc && optind == before + 1 && strcmp(argv[before], "--") == 0
                   ? DRA_CLI_SPLIT
                   : -1;
    if (c == 1)
        return DRA_CLI_OPERAND;
    if (c == '?' || c == ':') {
        const char *typed = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
        char shortopt[3] = {'-', (char)optopt, 0};
        /* A bad short option inside a cluster ("-qx"): name the letter, not the cluster. */
        if (optopt && (strncmp(typed, "--", 2) != 0) && (c == '?' || strlen(typed) > 2))
            typed = shortopt;
        if (c == '?')
            dra_cli_usage_error(cmd, "unknown option '%s'", typed);
        else
            dra_cli_usage_error(cmd, "option %s needs a value", typed);
        return DRA_CLI_BAD;
    }
    return c;
}

int dra_cli_parse_args(const char *cmd, int argc, char **argv, const char *shortopts,
                       const struct option *longopts, const char *help, bool split_ends_options,
                       dra_cli_opt_fn fn, void *ctx, dra_cli_args_t *a)
{
    memset(a, 0, sizeof *a);
    a->operands = calloc((size_t)argc + 1, sizeof *a->operands);
    if (!a->operands)
        return DRA_EXIT_ENV;
    optind = 0;
    for (;;) {
        const char *v;
        int c = dra_cli_getopt(cmd, argc, argv, shortopts, longopts, &v);
        int st = DRA_EXIT_OK;
        switch (c) {
        case -1:
            return DRA_EXIT_OK;
        case DRA_CLI_BAD:
            return DRA_EXIT_USAGE;
        case 'h':
            fputs(help, stdout);
            a->help = true;
            return DRA_EXIT_OK;
        case DRA_CLI_SPLIT:
            if (!split_ends_options)
                return dra_cli_usage_error(cmd, "unknown option '%s'", "--");
            for (; optind < argc; optind++)
                a->operands[a->n++] = argv[optind];
            break;
        case DRA_CLI_OPERAND:
            a->operands[a->n++] = (char *)v;
            break;
        default:
            st = fn(c, v, ctx);
            break;
        }
        if (st != DRA_EXIT_OK)
            return st;
    }
}

void dra_cli_args_fini(dra_cli_args_t *a)
{
    free(a->operands);
    memset(a, 0, sizeof *a);
}

int dra_cli_read_inputs(const char *cmd, char *const *paths, size_t n, dra_io_input_t **in)
{
    dra_diag_t d;
    dra_diag_clear(&d);
    int rc = dra_io_read_inputs(paths, n, DRA_RLOAD_MAX_FILE, in, &d);
    if (rc == DRA_OK)
        return DRA_EXIT_OK;
    char buf[DRA_DIAG_MSG_MAX + 256];
    fprintf(stderr, "drabench %s: %s\n", cmd, dra_diag_format(&d, buf, sizeof buf));
    return dra_io_exit_for(rc);
}

/* Load result i (from its path, or from in[i] when in is given). */
static int load_all(const char *cmd, char *const *paths, const dra_io_input_t *in, size_t n,
                    dra_rload_result_t *out)
{
    for (size_t i = 0; i < n; i++) {
        dra_diag_t d;
        dra_diag_clear(&d);
        const char *path = in ? in[i].path : paths[i];
        int rc = in ? dra_rload_buf(in[i].buf, in[i].len, path, &out[i], &d)
                    : dra_rload_file(path, &out[i], &d);
        if (rc != DRA_OK) {
            char buf[DRA_DIAG_MSG_MAX + 256];
            if (!d.file)
                d.file = path;
            fprintf(stderr, "drabench %s: %s\n", cmd, dra_diag_format(&d, buf, sizeof buf));
            for (size_t j = 0; j < i; j++)
                dra_rload_fini(&out[j]);
            return rc == DRA_ENOMEM ? DRA_EXIT_ENV : DRA_EXIT_USAGE;
        }
    }
    return DRA_EXIT_OK;
}

int dra_cli_load_results(const char *cmd, char *const *paths, size_t n, dra_rload_result_t *out)
{
    return load_all(cmd, paths, NULL, n, out);
}

int dra_cli_load_inputs(const char *cmd, const dra_io_input_t *in, size_t n,
                        dra_rload_result_t *out)
{
    return load_all(cmd, NULL, in, n, out);
}
