/* hostinfo.c - machine facts and perf_event_open counters; see hostinfo.h. */
#define _DEFAULT_SOURCE /* syscall(), gethostname() */

#include "hostinfo.h"

#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

static void copy_str(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(src);
    while (n > 0 && (src[n - 1] == '\n' || src[n - 1] == ' ' || src[n - 1] == '\t'))
        n--;
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* First line of a small file into buf (trailing newline removed); false when unreadable. */
static bool read_line(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    char tmp[512];
    bool ok = fgets(tmp, sizeof tmp, f) != NULL;
    fclose(f);
    if (ok)
        copy_str(buf, cap, tmp);
    return ok;
}

static void cpuinfo(dra_hostinfo_t *h)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        const char *val = colon + 1;
        while (*val == ' ' || *val == '\t')
            val++;
        if (!h->cpu_model[0] && strncmp(line, "model name", 10) == 0)
            copy_str(h->cpu_model, sizeof h->cpu_model, val);
        else if (!h->has_mhz && strncmp(line, "cpu MHz", 7) == 0) {
            char *end;
            double v = strtod(val, &end);
            if (end != val && v > 0) {
                h->mhz = v;
                h->has_mhz = true;
            }
        }
        if (h->cpu_model[0] && h->has_mhz)
            break;
    }
    fclose(f);
}

static void caches(dra_hostinfo_t *h)
{
    for (int i = 0; i < 16 && h->ncaches < DRA_HOST_MAX_CACHES; i++) {
        char path[128], level[16], type[32], size[32];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        if (!read_line(path, level, sizeof level))
            break;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
        if (!read_line(path, type, sizeof type))
            continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        if (!read_line(path, size, sizeof size))
            continue;
        char *end;
        unsigned long kib = strtoul(size, &end, 10);
        if (*end == 'M')
            kib *= 1024;
        dra_host_cache_t *c = &h->caches[h->ncaches++];
        c->level = atoi(level);
        copy_str(c->type, sizeof c->type, type);
        c->size_kib = (uint32_t)kib;
    }
}

void dra_hostinfo_collect(dra_hostinfo_t *h)
{
    memset(h, 0, sizeof *h);
    if (gethostname(h->hostname, sizeof h->hostname) != 0)
        copy_str(h->hostname, sizeof h->hostname, "unknown");
    h->hostname[sizeof h->hostname - 1] = '\0';

    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm))
        strftime(h->date, sizeof h->date, "%Y-%m-%dT%H:%M:%SZ", &tm);

    struct utsname u;
    if (uname(&u) == 0)
        copy_str(h->kernel, sizeof h->kernel, u.release);

    cpuinfo(h);
    if (!h->cpu_model[0])
        copy_str(h->cpu_model, sizeof h->cpu_model, "unknown");
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    h->cpus = n > 0 ? (int)n : 0;
    if (!read_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", h->governor,
                   sizeof h->governor) ||
        !h->governor[0])
        copy_str(h->governor, sizeof h->governor, "unknown");
    caches(h);

    h->load_avg[0] = h->load_avg[1] = h->load_avg[2] = -1;
    char la[128];
    if (read_line("/proc/loadavg", la, sizeof la))
        (void)sscanf(la, "%lf %lf %lf", &h->load_avg[0], &h->load_avg[1], &h->load_avg[2]);

    ssize_t len = readlink("/proc/self/exe", h->executable, sizeof h->executable - 1);
    h->executable[len > 0 ? len : 0] = '\0';

    dra_hwc_t c;
    h->hw_counters = dra_hwc_open(&c);
    dra_hwc_close(&c);
}

double dra_host_load1(int *cpus)
{
    if (cpus) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        *cpus = n > 0 ? (int)n : 1;
    }
    char la[256];
    double l = -1;
    if (read_line("/proc/loadavg", la, sizeof la) && sscanf(la, "%lf", &l) != 1)
        l = -1;
    return l;
}

/* ---- perf_event_open ------------------------------------------------------------------------ */

static int open_counter(uint64_t config, int group)
{
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.type = PERF_TYPE_HARDWARE;
    attr.size = sizeof attr;
    attr.config = config;
    attr.disabled = 1;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    long fd = syscall(SYS_perf_event_open, &attr, 0, -1, group, 0);
    return fd < 0 ? -1 : (int)fd;
}

bool dra_hwc_open(dra_hwc_t *c)
{
    c->fd_instr = open_counter(PERF_COUNT_HW_INSTRUCTIONS, -1);
    c->fd_cycles = c->fd_instr >= 0 ? open_counter(PERF_COUNT_HW_CPU_CYCLES, -1) : -1;
    return c->fd_instr >= 0;
}

void dra_hwc_start(dra_hwc_t *c)
{
    int fds[2] = {c->fd_instr, c->fd_cycles};
    for (int i = 0; i < 2; i++)
        if (fds[i] >= 0) {
            (void)ioctl(fds[i], PERF_EVENT_IOC_RESET, 0);
            (void)ioctl(fds[i], PERF_EVENT_IOC_ENABLE, 0);
        }
}

dra_hwc_values_t dra_hwc_stop(dra_hwc_t *c)
{
    dra_hwc_values_t v = {false, 0, 0};
    int fds[2] = {c->fd_instr, c->fd_cycles};
    uint64_t *out[2] = {&v.instructions, &v.cycles};
    for (int i = 0; i < 2; i++)
        if (fds[i] >= 0) {
            (void)ioctl(fds[i], PERF_EVENT_IOC_DISABLE, 0);
            uint64_t x;
            if (read(fds[i], &x, sizeof x) == (ssize_t)sizeof x) {
                *out[i] = x;
                if (i == 0)
                    v.valid = true;
            }
        }
    return v;
}

void dra_hwc_close(dra_hwc_t *c)
{
    if (c->fd_instr >= 0)
        close(c->fd_instr);
    if (c->fd_cycles >= 0)
        close(c->fd_cycles);
    c->fd_instr = c->fd_cycles = -1;
}

uint64_t dra_host_fingerprint(const char *cpu_model, long long cpus, const char *kernel,
                              const char *compiler, const char *build_type, const char *flags,
                              const char *sanitize, bool native)
{
    XXH3_state_t st;
    XXH3_64bits_reset(&st);
    const char *parts[] = {cpu_model, kernel, compiler, build_type, flags, sanitize};
    char num[32];
    snprintf(num, sizeof num, "%lld", cpus);
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        const char *s = parts[i] ? parts[i] : "";
        XXH3_64bits_update(&st, s, strlen(s));
        XXH3_64bits_update(&st, "\n", 1);
        if (i == 0) {
            XXH3_64bits_update(&st, num, strlen(num));
            XXH3_64bits_update(&st, "\n", 1);
        }
    }
    XXH3_64bits_update(&st, native ? "1" : "0", 1);
    return XXH3_64bits_digest(&st);
}
