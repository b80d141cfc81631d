/*
 * main.c - the drabench command line: git-style subcommands from commands.def.
 *
 * `drabench --help` lists the commands; `drabench help CMD` equals `drabench CMD --help`;
 * an unknown command is a usage error (exit 2). Every command's stdout is checked at the end
 * (dra_io_finish_stdout): a failed write exits 4 with the reason.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

typedef struct {
    const char *name;
    int (*fn)(int, char **);
    const char *purpose;
} command_t;

static const command_t commands[] = {
#define CMD(name, fn, purpose) {#name, fn, purpose},
#include "commands.def"
#undef CMD
};

static void usage(FILE *f)
{
    fprintf(f, "drabench - Kubernetes DRA allocation benchmark and fuzzing harness [version %s]\n\n",
            DRA_VERSION);
    fprintf(f, "Usage: drabench <command> [options] [args]\n"
               "       drabench help <command>     (same as: drabench <command> --help)\n"
               "       drabench --version\n\nCommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].purpose);
    fprintf(f, "\nExit status: 0 ok, 1 gated regression, 2 usage error or invalid input,\n"
               "3 correctness failure (invariant violated), 4 environment error.\n");
}

/* A write error on stdout (a full disk, /dev/full, a closed pipe) turns success or a gated
 * regression into exit 4: the output the caller relies on is incomplete. A usage error (2) or a
 * correctness failure (3) keeps its more specific status; the reason is printed either way. */
static int finish(int status)
{
    if (dra_io_finish_stdout() != 0 && (status == DRA_EXIT_OK || status == DRA_EXIT_REGRESSION))
        return DRA_EXIT_ENV;
    return status;
}

static int dispatch(int argc, char **argv);

int main(int argc, char **argv)
{
    return finish(dispatch(argc, argv));
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return DRA_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        usage(stdout);
        return DRA_EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0)
        cmd = "version";
    if (strcmp(cmd, "help") == 0) {
        if (argc < 3) {
            usage(stdout);
            return DRA_EXIT_OK;
        }
        for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
            if (strcmp(commands[i].name, argv[2]) == 0) {
                char *hargv[] = {argv[2], "--help", NULL};
                return commands[i].fn(2, hargv);
            }
        fprintf(stderr, "drabench: unknown command '%s'\nTry 'drabench --help'.\n", argv[2]);
        return DRA_EXIT_USAGE;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(commands[i].name, cmd) == 0) {
            char *saved = argv[1];
            argv[1] = (char *)commands[i].name;
            int r = commands[i].fn(argc - 1, argv + 1);
            argv[1] = saved;
            return r;
        }
    fprintf(stderr, "drabench: unknown command '%s'\nTry 'drabench --help'.\n", cmd);
    return DRA_EXIT_USAGE;
}
