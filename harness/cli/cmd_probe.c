/* cmd_probe.c - `drabench probe`: this machine's clock, load latency and prefetch-hint costs
 * (probe.h), as a table and as JSON (schema drabench-probe/v1, results/README.md). */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buildinfo.h"
#include "cli.h"
#include "escape.h"
#include "hostinfo.h"
#include "probe.h"
#include "progress.h"

#define PROBE_SCHEMA "drabench-probe/v1"

static const char help[] =
    "drabench probe - measure the memory facts the performance notes rest on, on this machine\n"
    "\n"
    "Usage: drabench probe [--pin CPU] [--sizes LIST] [--hint-size SIZE] [--pause NS] [--reps N]\n"
    "                      [--quick] [-o FILE]\n"
    "\n"
    "Measures, in this process:\n"
    "  clock    what an empty timed region costs: two clock_gettime(CLOCK_MONOTONIC) reads back\n"
    "           to back, as `drabench run` times a claim (every region below includes it), and\n"
    "           the step its readings advance by (10 ns on an AMD Zen: every latency a multiple)\n"
    "  latency  what a dependent load costs per working-set size: a pointer chase over a random\n"
    "           cycle of the buffer's 64-byte lines in 512 short timed walks of 4096 loads (an\n"
    "           interrupted walk is an outlier); the median walk, less the clock, per load\n"
    "  hints    what a timed region costs that issues K write-intent prefetch hints\n"
    "           (__builtin_prefetch(p, 1), as the engine issues them), K = 0 4 8 12 16 24 32 48:\n"
    "           cold - K lines picked at random afresh in the hint buffer (the largest size,\n"
    "           or --hint-size; not in cache: from memory); warm - K such lines read just\n"
    "           before (in L1). p50 and p90 of the region per K, and the least-squares slope\n"
    "           of p50 on K: the ns a hinted line adds to a timed region (cold: \"a hinted line\n"
    "           from memory costs X ns\").\n"
    "           Before each region the probe spins 2 us (--pause) so the set-up's misses have\n"
    "           drained. The cold cost grows with the hint buffer's size and with that pause:\n"
    "           measure the size and the quiet time the claim in question has.\n"
    "  translation  what one cold line of the hint buffer costs to load and to hint in a timed\n"
    "           region after a read of another line of its 4 KiB page (near), of another 4 KiB\n"
    "           page of its 2 MiB page (far) or of nothing (none): none - near is what a\n"
    "           translation miss (a page walk) adds, and far tells whether translations are\n"
    "           cached by 4 KiB page here even when the buffer is on 2 MiB pages (a hypervisor\n"
    "           that maps the guest by 4 KiB pages): then the engine's cold lines cost by the\n"
    "           4 KiB page they sit in, not by the line.\n"
    "Buffers are anonymous mappings advised MADV_HUGEPAGE before their first touch; the table\n"
    "says how much of each the kernel put on 2 MiB pages (/proc/self/smaps). Takes about 10 s\n"
    "and maps the largest size once.\n"
    "\n";

static const char help_options[] =
    "Options:\n"
    "      --pin CPU       run on this CPU only (sched_setaffinity; recorded). Recommended: a\n"
    "                      probe that moves between CPUs measures the move\n"
    "      --sizes LIST    working-set sizes, comma-separated, in bytes or with K, M or G\n"
    "                      (binary: 32K = 32768; KiB, MiB, GiB too); each a multiple of 64 and at\n"
    "                      least 4K; measured in ascending order, duplicates once; the largest is\n"
    "                      the hint buffer (default 32K,256K,1M,2M,4M,16M,64M,256M)\n"
    "      --hint-size SIZE\n"
    "                      the hint buffer's size, as a size of --sizes (default: the largest\n"
    "                      of --sizes); beyond the TLB's reach each cold hint also pays a page\n"
    "                      walk, so a smaller and a larger buffer show the two costs apart\n"
    "      --pause NS      spin NS nanoseconds before each hint region (default 2000; 0 to\n"
    "                      10000000): the quiet time before a timed region\n"
    "      --reps N        timed hint regions per K and kind and translation regions per\n"
    "                      row and column (default 5000), and empty regions for the clock\n"
    "                      (default 20001); the latency's walks stay 512 of 4096 loads per\n"
    "                      size whatever N is\n"
    "      --quick         sizes 32K,256K,1M, 100 hint regions, 1001 clock regions, 16 walks of\n"
    "                      1024 loads: well under a second (for tests; the hint buffer fits the\n"
    "                      caches, so the cold slope is not a memory one); --sizes and --reps\n"
    "                      still apply\n"
    "  -o, --output FILE   write the JSON (schema " PROBE_SCHEMA ", results/README.md) to FILE,\n"
    "                      replaced whole or not at all; '-' for stdout (the table then goes\n"
    "                      to stderr)\n"
    "      --json FILE     the same as --output FILE\n"
    "  -h, --help          show this help\n"
    "\n"
    "Progress goes to stderr when it is a terminal.\n"
    "\n"
    "Example:\n"
    "  drabench probe --pin 1 -o probe.json\n"
    "  drabench probe --pin 1 --sizes 32K,1M,64M --reps 2000\n"
    "  drabench probe --pin 1 --hint-size 32M --pause 0   (a smaller buffer, no quiet time)\n"
    "\n"
    "Exit status: 0 measured; 2 usage error or invalid value; 4 environment error (a buffer\n"
    "that cannot be mapped or is larger than half the machine's memory, a failed --pin, an\n"
    "output that cannot be written).\n";

enum { O_PIN = 256, O_SIZES, O_REPS, O_QUICK, O_JSON, O_HINTSIZE, O_PAUSE };

typedef struct probe_args {
    int pin; /* -1: not pinned */
    const char *output;
    const char *sizes;
    const char *hint_size;
    uint32_t reps;      /* 0: default */
    long long pause_ns; /* -1: default */
    bool quick;
} probe_args_t;

static int parse_args(int argc, char **argv, probe_args_t *a, bool *helped)
{
    static const struct option opts[] = {{"pin", required_argument, NULL, O_PIN},
                                         {"sizes", required_argument, NULL, O_SIZES},
                                         {"reps", required_argument, NULL, O_REPS},
                                         {"hint-size", required_argument, NULL, O_HINTSIZE},
                                         {"pause", required_argument, NULL, O_PAUSE},
                                         {"quick", no_argument, NULL, O_QUICK},
                                         {"output", required_argument, NULL, 'o'},
                                         {"json", required_argument, NULL, O_JSON},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    unsigned long long u;
    optind = 0;
    for (;;) {
        const char *v;
        int c = dra_cli_getopt("probe", argc, argv, "o:h", opts, &v);
        switch (c) {
        case -1:
            return DRA_EXIT_OK;
        case DRA_CLI_BAD:
            return DRA_EXIT_USAGE;
        case DRA_CLI_SPLIT:
            return dra_cli_usage_error("probe", "unknown option '--'");
        case DRA_CLI_OPERAND:
            return dra_cli_usage_error("probe", "unexpected argument '%s'", v);
        case 'h':
            fputs(help, stdout);
            fputs(help_options, stdout);
            *helped = true;
            return DRA_EXIT_OK;
        case O_PIN: {
            long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
            if (!dra_io_parse_u64(v, &u) || (ncpu > 0 && u >= (unsigned long long)ncpu) ||
                u >= CPU_SETSIZE)
                return dra_cli_usage_error(
                    "probe", "--pin: expected a CPU number below %ld, got '%s'", ncpu, v);
            a->pin = (int)u;
            break;
        }
        case O_SIZES:
            a->sizes = v;
            break;
        case O_HINTSIZE:
            a->hint_size = v;
            break;
        case O_REPS:
            if (!dra_io_parse_u64_in(v, 1, 10000000, &u))
                return dra_cli_usage_error(
                    "probe", "--reps: expected a count from 1 to 10000000, got '%s'", v);
            a->reps = (uint32_t)u;
            break;
        case O_QUICK:
            a->quick = true;
            break;
        case O_PAUSE:
            if (!dra_io_parse_u64_in(v, 0, 10000000, &u))
                return dra_cli_usage_error(
                    "probe", "--pause: expected nanoseconds from 0 to 10000000, got '%s'", v);
            a->pause_ns = (long long)u;
            break;
        case 'o':
        case O_JSON:
            a->output = v;
            break;
        default:
            return dra_cli_usage_error("probe", "unknown option");
        }
    }
}

static void on_progress(void *ctx, const char *what, uint64_t done, uint64_t total)
{
    dra_progress_update(ctx, what, done, total, false);
}

static json_t *jnum(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *jdist(const dra_probe_dist_t *d)
{
    json_t *o = json_object();
    json_object_set_new(o, "p50_ns", jnum(d->p50));
    json_object_set_new(o, "p90_ns", jnum(d->p90));
    json_object_set_new(o, "min_ns", jnum(d->min));
    json_object_set_new(o, "samples", json_integer((json_int_t)d->n));
    return o;
}

static json_t *to_json(const probe_args_t *a, const dra_probe_opts_t *o,
                       const dra_probe_result_t *r, const dra_hostinfo_t *h, double load_start)
{
    json_t *root = json_object();
    json_object_set_new(root, "schema", json_string(PROBE_SCHEMA));
    json_object_set_new(root, "drabench", json_string(DRA_VERSION));
    json_object_set_new(root, "git", json_string(DRA_BUILD_GIT));
    json_object_set_new(root, "build",
                        json_pack("{s:s, s:s, s:s, s:s}", "type", DRA_BUILD_TYPE, "compiler",
                                  DRA_BUILD_COMPILER, "flags", DRA_BUILD_FLAGS, "sanitize",
                                  DRA_BUILD_SANITIZE));
    json_t *caches = json_array();
    for (int i = 0; i < h->ncaches; i++)
        json_array_append_new(caches, json_pack("{s:i, s:s, s:i}", "level", h->caches[i].level,
                                                "type", h->caches[i].type, "size_kib",
                                                (json_int_t)h->caches[i].size_kib));
    json_t *host = json_object();
    json_object_set_new(host, "hostname", json_string(h->hostname));
    json_object_set_new(host, "date", json_string(h->date));
    json_object_set_new(host, "kernel", json_string(h->kernel));
    json_object_set_new(host, "cpu_model", json_string(h->cpu_model));
    json_object_set_new(host, "cpus", json_integer(h->cpus));
    json_object_set_new(host, "caches", caches);
    json_object_set_new(host, "load_start", load_start >= 0 ? json_real(load_start) : json_null());
    json_object_set_new(host, "load_end",
                        h->load_avg[0] >= 0 ? json_real(h->load_avg[0]) : json_null());
    json_object_set_new(host, "thp", json_string(r->thp));
    json_object_set_new(root, "host", host);
    json_t *m = json_object();
    json_object_set_new(m, "pin_cpu", a->pin >= 0 ? json_integer(a->pin) : json_null());
    json_object_set_new(m, "quick", json_boolean(a->quick));
    json_object_set_new(m, "clock", json_string("clock_gettime(CLOCK_MONOTONIC)"));
    json_object_set_new(m, "clock_regions", json_integer(o->clock_reps));
    json_object_set_new(m, "latency_walks", json_integer(o->lat_reps));
    json_object_set_new(m, "latency_loads", json_integer((json_int_t)o->lat_loads));
    json_object_set_new(m, "hint_regions", json_integer(o->hint_reps));
    json_object_set_new(m, "hint_instruction", json_string(dra_probe_hint_insn));
    json_object_set_new(m, "pause_ns", json_integer(o->pause_ns));
    json_object_set_new(root, "method", m);
    json_t *clk = jdist(&r->clock);
    json_object_set_new(clk, "step_ns", r->clock_step ? json_integer(r->clock_step) : json_null());
    json_object_set_new(root, "clock", clk);
    json_t *lat = json_array();
    for (size_t i = 0; i < r->nlat; i++) {
        const dra_probe_lat_t *l = &r->lat[i];
        json_t *e = json_object();
        json_object_set_new(e, "size_bytes", json_integer((json_int_t)l->size));
        json_object_set_new(e, "ns_per_load", jnum(l->ns_per_load));
        json_object_set_new(e, "min_ns_per_load", jnum(l->min_ns_per_load));
        json_object_set_new(e, "huge_bytes", json_integer((json_int_t)l->pages.huge_bytes));
        json_object_set_new(e, "advised", json_boolean(l->pages.advised));
        json_array_append_new(lat, e);
    }
    json_object_set_new(root, "latency", lat);
    json_t *hints = json_object(), *rows = json_array();
    json_object_set_new(hints, "buffer_bytes", json_integer((json_int_t)r->hint_buffer));
    json_object_set_new(hints, "huge_bytes", json_integer((json_int_t)r->hint_pages.huge_bytes));
    json_object_set_new(hints, "cold_ns_per_line", jnum(r->cold_ns_per_line));
    json_object_set_new(hints, "warm_ns_per_line", jnum(r->warm_ns_per_line));
    for (int i = 0; i < DRA_PROBE_NHINT; i++) {
        const dra_probe_hint_row_t *x = &r->hints[i];
        json_t *e = json_object();
        json_object_set_new(e, "k", json_integer(x->k));
        json_object_set_new(e, "cold", jdist(&x->cold));
        json_object_set_new(e, "warm", jdist(&x->warm));
        json_array_append_new(rows, e);
    }
    json_object_set_new(hints, "rows", rows);
    json_object_set_new(root, "hints", hints);
    static const char *const kinds[DRA_PROBE_NXLAT] = {"near", "far", "none"};
    const dra_probe_xlat_t *x = &r->xlat;
    json_t *xl = json_object(), *xload = json_object(), *xhint = json_object();
    json_object_set_new(xl, "buffer_bytes", json_integer((json_int_t)r->hint_buffer));
    json_object_set_new(xl, "far_bytes",
                        x->far_bytes ? json_integer((json_int_t)x->far_bytes) : json_null());
    json_object_set_new(xl, "grain_bytes",
                        x->grain ? json_integer((json_int_t)x->grain) : json_null());
    json_object_set_new(xl, "load_miss_ns", jnum(x->load_miss_ns));
    json_object_set_new(xl, "hint_miss_ns", jnum(x->hint_miss_ns));
    for (int k = 0; k < DRA_PROBE_NXLAT; k++) {
        json_object_set_new(xload, kinds[k], jdist(&x->load[k]));
        json_object_set_new(xhint, kinds[k], jdist(&x->hint[k]));
    }
    json_object_set_new(xl, "load", xload);
    json_object_set_new(xl, "hint", xhint);
    json_object_set_new(root, "translation", xl);
    return root;
}

static const char *pages_word(const dra_probe_pages_t *p, char *buf, size_t len)
{
    if (p->huge_bytes >= p->bytes)
        snprintf(buf, len, "2 MiB");
    else if (p->huge_bytes == 0)
        snprintf(buf, len, "4 KiB%s", p->advised ? "" : " (advice refused)");
    else
        snprintf(buf, len, "%.0f%% on 2 MiB", 100.0 * (double)p->huge_bytes / (double)p->bytes);
    return buf;
}

/* The translation rows and what they say (probe.h). */
static void print_xlat(FILE *f, const dra_probe_result_t *r)
{
    const dra_probe_xlat_t *x = &r->xlat;
    char sz[32], fz[32], pg[48];
    if (!x->far_bytes) {
        fprintf(f, "translation not measured: the %s hint buffer is under 16 KiB\n",
                dra_probe_fmt_size(r->hint_buffer, sz, sizeof sz));
        return;
    }
    fprintf(f,
            "translation one cold line of the %s buffer (pages %s), loaded or hinted in a timed "
            "region after a read of\n",
            dra_probe_fmt_size(r->hint_buffer, sz, sizeof sz),
            pages_word(&r->hint_pages, pg, sizeof pg));
    fprintf(f,
            "            near: its own 4 KiB page; far: another 4 KiB page %s away; none: "
            "nothing (p50 / p90 ns, clock included, %zu regions each)\n",
            dra_probe_fmt_size(x->far_bytes, fz, sizeof fz), x->load[0].n);
    fprintf(f, "  %4s  %15s  %15s  %15s\n", "", "near", "far", "none");
    const dra_probe_dist_t *rows[2] = {x->load, x->hint};
    for (int i = 0; i < 2; i++) {
        fprintf(f, "  %4s", i ? "hint" : "load");
        for (int k = 0; k < DRA_PROBE_NXLAT; k++) {
            char cell[48];
            snprintf(cell, sizeof cell, "%.0f / %.0f", rows[i][k].p50, rows[i][k].p90);
            fprintf(f, "  %15s", cell);
        }
        fputc('\n', f);
    }
    if (x->grain == 4096)
        fprintf(f,
                "grain       translations are cached by 4 KiB page here (a read %s away in the "
                "same 2 MiB did not save the miss%s): a line whose 4 KiB page was not touched "
                "lately costs %.0f ns more to load and %.0f ns more to hint\n",
                fz, r->hint_pages.huge_bytes >= r->hint_pages.bytes
                        ? ", though the buffer is on 2 MiB pages"
                        : "",
                x->load_miss_ns, x->hint_miss_ns);
    else if (x->grain)
        fprintf(f,
                "grain       translations are cached by pages of at least %s here (a read %s "
                "away saved the miss): a line whose page was not touched lately costs %.0f ns "
                "more to load and %.0f ns more to hint\n",
                dra_probe_fmt_size(x->grain, sz, sizeof sz), fz, x->load_miss_ns,
                x->hint_miss_ns);
    else
        fprintf(f,
                "grain       not told: a translation miss added %.0f ns to a load here (under "
                "25 ns or two clock steps: the TLB reaches this buffer, or the difference is "
                "noise)\n",
                x->load_miss_ns);
}

static void print_table(FILE *f, const probe_args_t *a, const dra_probe_opts_t *o,
                        const dra_probe_result_t *r, const dra_hostinfo_t *h)
{
    char pin[32], sz[32], pg[48];
    if (a->pin >= 0)
        snprintf(pin, sizeof pin, "pinned to CPU %d", a->pin);
    else
        snprintf(pin, sizeof pin, "not pinned");
    fprintf(f, "host        ");
    dra_esc_term(f, h->cpu_model[0] ? h->cpu_model : "?");
    fprintf(f, ", %d CPUs, %s, THP %s%s\n", h->cpus, pin, r->thp, a->quick ? " (--quick)" : "");
    fprintf(f,
            "clock       empty timed region (two CLOCK_MONOTONIC reads): p50 %.0f ns, p90 %.0f "
            "ns (%zu regions)",
            r->clock.p50, r->clock.p90, r->clock.n);
    if (r->clock_step > 1)
        fprintf(f, "; readings advance in steps of %u ns", r->clock_step);
    else if (r->clock_step == 1)
        fprintf(f, "; readings advance in no step of 4 ns or more");
    fputc('\n', f);
    fprintf(f,
            "latency     dependent load, pointer chase over a random cycle of 64-byte lines "
            "(median of %u walks of %llu loads, less the clock)\n",
            o->lat_reps, (unsigned long long)o->lat_loads);
    fprintf(f, "  %12s  %9s  %s\n", "working set", "ns/load", "pages");
    for (size_t i = 0; i < r->nlat; i++) {
        const dra_probe_lat_t *l = &r->lat[i];
        fprintf(f, "  %12s  %9.1f  %s\n", dra_probe_fmt_size(l->size, sz, sizeof sz),
                l->ns_per_load, pages_word(&l->pages, pg, sizeof pg));
    }
    fprintf(f,
            "hints       K write-intent hints (%s) in one timed region, ns (clock included; "
            "%u regions per K and kind, each after %.1f us of quiet)\n",
            dra_probe_hint_insn, o->hint_reps, (double)o->pause_ns / 1000);
    fprintf(f,
            "            cold: random lines of the %s buffer (pages %s); warm: lines just "
            "read (L1)\n",
            dra_probe_fmt_size(r->hint_buffer, sz, sizeof sz),
            pages_word(&r->hint_pages, pg, sizeof pg));
    fprintf(f, "  %4s  %9s  %9s  %9s  %9s\n", "K", "cold p50", "cold p90", "warm p50", "warm p90");
    for (int i = 0; i < DRA_PROBE_NHINT; i++) {
        const dra_probe_hint_row_t *x = &r->hints[i];
        fprintf(f, "  %4u  %9.0f  %9.0f  %9.0f  %9.0f\n", x->k, x->cold.p50, x->cold.p90,
                x->warm.p50, x->warm.p90);
    }
    fprintf(f,
            "slope       p50 on K, least squares: cold %.1f ns per hinted line, warm %.1f ns "
            "per hinted line\n",
            r->cold_ns_per_line, r->warm_ns_per_line);
    /* the buffer named: with --quick (or a small --hint-size) the cold lines come from a
     * cache, not from memory, and the headline must not say otherwise */
    fprintf(f, "headline    a hinted line of a %s buffer costs %.1f ns of a timed region here\n",
            dra_probe_fmt_size(r->hint_buffer, sz, sizeof sz), r->cold_ns_per_line);
    print_xlat(f, r);
}

int dra_cmd_probe(int argc, char **argv)
{
    probe_args_t a = {.pin = -1, .pause_ns = -1};
    bool helped = false;
    int status = parse_args(argc, argv, &a, &helped);
    if (status != DRA_EXIT_OK || helped)
        return status;
    dra_probe_opts_t o;
    dra_probe_opts_init(&o, a.quick);
    if (a.sizes) {
        char why[256];
        if (dra_probe_parse_sizes(a.sizes, o.sizes, DRA_PROBE_MAX_SIZES, &o.nsizes, why,
                                  sizeof why) != DRA_OK)
            return dra_cli_usage_error("probe", "--sizes: %s", why);
    }
    if (a.hint_size) {
        char why[256];
        uint64_t hs[1];
        size_t n;
        if (strchr(a.hint_size, ',') ||
            dra_probe_parse_sizes(a.hint_size, hs, 1, &n, why, sizeof why) != DRA_OK)
            return dra_cli_usage_error("probe", "--hint-size: %s",
                                       strchr(a.hint_size, ',') ? "expected one size" : why);
        o.hint_size = hs[0];
    }
    if (a.reps)
        o.hint_reps = o.clock_reps = a.reps;
    if (a.pause_ns >= 0)
        o.pause_ns = (uint32_t)a.pause_ns;

    dra_diag_t d;
    dra_diag_clear(&d);
    if (a.output && dra_io_check_output(a.output, &d) != DRA_OK) {
        char m[DRA_DIAG_MSG_MAX + 256];
        fprintf(stderr, "drabench probe: %s\n", dra_diag_format(&d, m, sizeof m));
        return DRA_EXIT_ENV;
    }
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    uint64_t largest = o.sizes[o.nsizes - 1] > o.hint_size ? o.sizes[o.nsizes - 1] : o.hint_size;
    if (pages > 0 && psz > 0 && largest > (uint64_t)pages * (uint64_t)psz / 2) {
        char s1[32], s2[32];
        fprintf(stderr,
                "drabench probe: a %s buffer is more than half of this machine's memory (%s)\n",
                dra_probe_fmt_size(largest, s1, sizeof s1),
                dra_probe_fmt_size((uint64_t)pages * (uint64_t)psz, s2, sizeof s2));
        return DRA_EXIT_ENV;
    }
    if (a.pin >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(a.pin, &set);
        if (sched_setaffinity(0, sizeof set, &set) != 0) {
            fprintf(stderr, "drabench probe: cannot pin to CPU %d: %s\n", a.pin, strerror(errno));
            return DRA_EXIT_ENV;
        }
    }

    /* a busy host: the latencies and the hint regions include other programs' work (their
     * memory traffic, their use of the caches and the CPU); recorded in the JSON too */
    int ncpu = 0;
    double load_start = dra_host_load1(&ncpu);
    if (load_start >= ncpu && ncpu > 0)
        fprintf(stderr,
                "drabench probe: warning: the host is busy before the probe starts (load "
                "average %.2f on %d CPUs): its numbers include other programs' work\n",
                load_start, ncpu);

    dra_progress_t p;
    dra_progress_init(&p, dra_cli_progress_enabled() ? DRA_PROGRESS_BAR : DRA_PROGRESS_NONE,
                      stderr);
    o.progress = on_progress;
    o.progress_ctx = &p;
    dra_probe_result_t *r = malloc(sizeof *r);
    if (!r) {
        fprintf(stderr, "drabench probe: out of memory\n");
        return DRA_EXIT_ENV;
    }
    int rc = dra_probe_run(&o, r, &d);
    dra_progress_finish(&p);
    if (rc != DRA_OK) {
        char m[DRA_DIAG_MSG_MAX + 256];
        fprintf(stderr, "drabench probe: %s\n", dra_diag_format(&d, m, sizeof m));
        free(r);
        return rc == DRA_EINVAL ? DRA_EXIT_USAGE : DRA_EXIT_ENV;
    }
    dra_hostinfo_t *h = malloc(sizeof *h);
    if (!h) {
        fprintf(stderr, "drabench probe: out of memory\n");
        free(r);
        return DRA_EXIT_ENV;
    }
    dra_hostinfo_collect(h);
    bool to_stdout = a.output && strcmp(a.output, "-") == 0;
    if (a.output) {
        json_t *root = to_json(&a, &o, r, h, load_start);
        char *s = root ? json_dumps(root,
                                    JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6))
                       : NULL;
        json_decref(root);
        if (!s) {
            fprintf(stderr, "drabench probe: out of memory\n");
            status = DRA_EXIT_ENV;
        } else {
            size_t n = strlen(s);
            char *t = realloc(s, n + 2);
            if (!t) {
                free(s);
                fprintf(stderr, "drabench probe: out of memory\n");
                status = DRA_EXIT_ENV;
            } else {
                t[n] = '\n';
                t[n + 1] = '\0';
                dra_diag_clear(&d);
                if (dra_io_write_file_atomic(a.output, t, n + 1, &d) != DRA_OK) {
                    char m[DRA_DIAG_MSG_MAX + 256];
                    fprintf(stderr, "drabench probe: %s\n", dra_diag_format(&d, m, sizeof m));
                    status = DRA_EXIT_ENV;
                }
                free(t);
            }
        }
    }
    if (status == DRA_EXIT_OK) {
        print_table(to_stdout ? stderr : stdout, &a, &o, r, h);
        if (a.output && !to_stdout) {
            fputs("written     ", stdout);
            dra_cli_print_path(a.output);
        }
    }
    free(h);
    free(r);
    return status;
}
