/*
 * hostinfo.h - facts about the machine a run happens on (STYLE §3.5, results/README.md `host`),
 * and hardware counters through perf_event_open when the kernel allows them.
 *
 * Purpose: every result file records where it was measured: host name, UTC start date, kernel
 * release, CPU model, online CPUs, MHz, scaling governor, caches, load average, whether hardware
 * counters work, and the executable. Facts that cannot be read are recorded as unknown (empty
 * string, 0, "unknown" or has_mhz = false), never guessed.
 *
 * Sources (Linux): uname(2), gethostname(2), /proc/cpuinfo, /proc/loadavg, /proc/self/exe,
 * /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor, /sys/devices/system/cpu/cpu0/cache/.
 *
 * Ownership: plain value types filled by the caller-owned struct; nothing allocated except the
 * counter file descriptors, released by dra_hwc_close. Errors: dra_hostinfo_collect never fails
 * (missing facts stay unknown). Cost: a few file reads (milliseconds); never in a timed region.
 * Thread-safety: reentrant.
 */
#ifndef DRA_HOSTINFO_H
#define DRA_HOSTINFO_H

#include <stdbool.h>
#include <stdint.h>

#define DRA_HOST_MAX_CACHES 8

typedef struct dra_host_cache {
    int level;         /* 1, 2, 3 */
    char type[16];     /* "Data", "Instruction", "Unified" */
    uint32_t size_kib;
} dra_host_cache_t;

typedef struct dra_hostinfo {
    char hostname[256];
    char date[32];        /* UTC RFC 3339, e.g. 2025-01-02T03:04:05Z */
    char kernel[128];     /* uname release */
    char cpu_model[128];
    int cpus;             /* online CPUs */
    bool has_mhz;
    double mhz;
    char governor[32];    /* scaling governor or "unknown" */
    dra_host_cache_t caches[DRA_HOST_MAX_CACHES];
    int ncaches;
    double load_avg[3];   /* 1, 5, 15 minutes; -1 when unknown */
    bool hw_counters;     /* perf_event_open(instructions) works for this process */
    char executable[512];
} dra_hostinfo_t;

/* Fill h with the facts of this machine at this moment. */
void dra_hostinfo_collect(dra_hostinfo_t *h);

/* The 1-minute load average now (/proc/loadavg), -1 when unknown; *cpus (may be NULL) gets the
 * online CPUs. A host is busy when the load is at least its CPU count: timings taken then
 * include other programs' work (run warns before it starts, compare flags such files, ab waits
 * or records it). */
double dra_host_load1(int *cpus);

/* Host fingerprint: XXH3-64 of the facts that decide whether two timings can be compared -
 * CPU model, online CPUs, kernel release, compiler, build type, compiler flags, sanitizers and
 * -march=native - hashed as "cpu_model\ncpus\nkernel\ncompiler\nbuild_type\nflags\nsanitize\n
 * native". Host name, date, load and frequency are left out (two identical runners compare).
 * NULL strings count as "". Pure function; the writer (result.c) and the loader (rload.c) use it,
 * so files written before the fingerprint existed get the same value. */
uint64_t dra_host_fingerprint(const char *cpu_model, long long cpus, const char *kernel,
                              const char *compiler, const char *build_type, const char *flags,
                              const char *sanitize, bool native);

/* Hardware counters of the calling thread (instructions, cycles), user space only. */
typedef struct dra_hwc {
    int fd_instr, fd_cycles; /* -1 when unavailable */
} dra_hwc_t;

typedef struct dra_hwc_values {
    bool valid;
    uint64_t instructions, cycles;
} dra_hwc_values_t;

/* Open the counters (disabled). Returns true when at least instructions could be opened. */
bool dra_hwc_open(dra_hwc_t *c);
/* Reset and enable / disable and read. Harmless when the counters are unavailable. */
void dra_hwc_start(dra_hwc_t *c);
dra_hwc_values_t dra_hwc_stop(dra_hwc_t *c);
void dra_hwc_close(dra_hwc_t *c);

#endif /* DRA_HOSTINFO_H */
