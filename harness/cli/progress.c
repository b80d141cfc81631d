/* progress.c - rate-limited progress bar and CI lines on stderr; see progress.h. */
#include "progress.h"

#include <string.h>
#include <time.h>

#include "cli.h"

#define REDRAW_NS INT64_C(100000000) /* 10 redraws per second at most */

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

bool dra_progress_parse_when(const char *s, dra_progress_when_t *out)
{
    if (strcmp(s, "auto") == 0)
        *out = DRA_PROGRESS_AUTO;
    else if (strcmp(s, "always") == 0)
        *out = DRA_PROGRESS_ALWAYS;
    else if (strcmp(s, "never") == 0)
        *out = DRA_PROGRESS_NEVER;
    else
        return false;
    return true;
}

dra_progress_mode_t dra_progress_mode(dra_progress_when_t when, bool quiet)
{
    if (quiet || when == DRA_PROGRESS_NEVER)
        return DRA_PROGRESS_NONE;
    if (when == DRA_PROGRESS_ALWAYS)
        return DRA_PROGRESS_BAR;
    return dra_cli_progress_enabled() ? DRA_PROGRESS_BAR : DRA_PROGRESS_LINES;
}

void dra_progress_init(dra_progress_t *p, dra_progress_mode_t mode, FILE *out)
{
    memset(p, 0, sizeof *p);
    p->mode = mode;
    p->out = out;
    p->start_ns = now_ns();
    p->last_ns = p->start_ns - REDRAW_NS;
    p->eta_s = -1;
}

void dra_progress_set_eta(dra_progress_t *p, double seconds)
{
    p->eta_s = seconds;
}

const char *dra_progress_fmt_eta(double seconds, char *buf, size_t len)
{
    if (!(seconds >= 0) || seconds > 360000.0) {
        snprintf(buf, len, "ETA ?");
        return buf;
    }
    long long s = (long long)(seconds + 0.5);
    if (s < 60)
        snprintf(buf, len, "ETA %llds", s);
    else if (s < 3600)
        snprintf(buf, len, "ETA %lldm%02llds", s / 60, s % 60);
    else
        snprintf(buf, len, "ETA %lldh%02lldm", s / 3600, (s % 3600) / 60);
    return buf;
}

void dra_progress_update(dra_progress_t *p, const char *label, uint64_t done, uint64_t total,
                         bool force)
{
    if (p->mode != DRA_PROGRESS_BAR)
        return;
    int64_t t = now_ns();
    if (!force && t - p->last_ns < REDRAW_NS)
        return;
    p->last_ns = t;
    p->redraws++;
    char bar[31];
    int width = 30, fill = total ? (int)((double)done / (double)total * width) : 0;
    if (fill > width)
        fill = width;
    memset(bar, '#', (size_t)fill);
    memset(bar + fill, ' ', (size_t)(width - fill));
    bar[width] = '\0';
    double el = (double)(t - p->start_ns) / 1e9;
    char eta[32] = "";
    double left = p->eta_s >= 0 ? p->eta_s
                  : done && total ? el * (double)(total > done ? total - done : 0) / (double)done
                                  : -1;
    if (left >= 0)
        dra_progress_fmt_eta(left, eta, sizeof eta);
    if (total)
        fprintf(p->out, "\r\033[K%s [%s] %llu/%llu %.1fs%s%s", label, bar, (unsigned long long)done,
                (unsigned long long)total, el, *eta ? " " : "", eta);
    else
        fprintf(p->out, "\r\033[K%s %llu %.1fs", label, (unsigned long long)done, el);
    fflush(p->out);
    p->drawn = true;
}

void dra_progress_line(dra_progress_t *p, const char *text)
{
    if (p->mode == DRA_PROGRESS_NONE)
        return;
    if (p->mode == DRA_PROGRESS_BAR && p->drawn) {
        fputs("\r\033[K", p->out);
        p->drawn = false;
    }
    fprintf(p->out, "%s\n", text);
    fflush(p->out);
}

void dra_progress_clear(dra_progress_t *p)
{
    if (p->mode == DRA_PROGRESS_BAR && p->drawn) {
        fputs("\r\033[K", p->out);
        fflush(p->out);
        p->drawn = false;
    }
}

void dra_progress_finish(dra_progress_t *p)
{
    if (p->mode == DRA_PROGRESS_BAR && p->drawn) {
        fputc('\n', p->out);
        fflush(p->out);
        p->drawn = false;
    }
}
