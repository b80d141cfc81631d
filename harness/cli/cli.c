/* cli.c - shared CLI helpers; see cli.h. */
#include "cli.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int dra_cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "drabench %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'drabench %s --help'.\n", cmd);
    return DRA_EXIT_USAGE;
}

void dra_cli_errorf(const char *fmt, ...)
{
    va_list ap;
    fputs("drabench: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
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
