/* cmd_ab.c - `drabench ab`: two builds timed on the same scenarios in alternating fresh
 * processes, compared with a paired test and an A/A noise floor of the same sitting (ab.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ab.h"
#include "cli.h"
#include "escape.h"
#include "export.h"
#include "hostinfo.h"
#include "progress.h"
#include "rload.h"
#include "stats.h"

/* The help, in two parts (C17 compilers need only take 4,095 bytes in one literal). */
static const char help_use[] =
    "drabench ab - time two builds on the same scenarios in alternating fresh processes and\n"
    "compare them with a paired test (the way timings are compared: README \"What the gate "
    "trusts\")\n"
    "\n"
    "Usage: drabench ab [options] A B [SCENARIO...]\n"
    "       drabench ab [options] --rev REV B [SCENARIO...]\n"
    "       drabench ab [options] --rev REV --rev-b REV2 [SCENARIO...]\n"
    "\n"
    "A and B are drabench executables (A the base). --rev builds A (--rev-b B) from a git\n"
    "revision of the checkout with scripts/ab-build: a temporary clone built with the release\n"
    "preset, cached by commit in build/ab/<commit>/. Every round runs one fresh process of each\n"
    "side on one scenario (`EXE run SCENARIO OPTIONS -q -o FILE`) in an order drawn at random,\n"
    "and takes from each its best repetition; A/A rounds (A on both sides) are mixed in\n"
    "to measure the noise floor of the sitting. Per scenario and metric: the median ratio B/A of\n"
    "the rounds with a bootstrap interval, the Wilcoxon signed-rank test on ln(B/A), and a "
    "verdict\n"
    "(regression when significant, in the bad direction, and beyond both the threshold and the\n"
    "A/A noise floor). Make processes short (a few hundred ms): many rounds beat long ones.\n"
    "\n"
    "Scenarios:\n"
    "  SCENARIO...              built-in names or scenario files, each run with --run-args\n"
    "      --suite FILE         one scenario per line followed by its run options (# comments),\n"
    "                           as corpora/nightly-ab.txt\n"
    "      --run-args \"OPTS\"    run options for the SCENARIO operands (split at spaces)\n"
    "\n"
    "Rounds:\n"
    "  -r, --rounds N           A/B rounds per scenario (default 30)\n"
    "      --aa N               A/A rounds per scenario (default 10)\n"
    "      --budget SECONDS     fit the rounds into this time instead: after a first A/B round\n"
    "                           of every scenario (which measures what each costs), every\n"
    "                           scenario gets the minimum, then cheapest first up to the 32\n"
    "                           rounds a sitting needs to find a 10% change (the most\n"
    "                           expensive is the one left short), then three quarters of the\n"
    "                           rest in equal numbers of rounds, the last quarter in equal\n"
    "                           time; A/B and A/A in the ratio of --rounds to --aa (at least\n"
    "                           6 and 3, at most 200 A/B)\n"
    "      --seed N             order of the rounds and the bootstrap (default: from the clock;\n"
    "                           always recorded)\n"
    "      --pin CPU            run every process on this CPU (sched_setaffinity)\n"
    "      --no-aslr            disable address-space randomization in every process\n"
    "      --in-place           run A and B from the given files (default: every process runs\n"
    "                           a fresh copy of its executable, written into the sitting's\n"
    "                           temporary directory and removed after it: two files of the\n"
    "                           same bytes time differently, by where their pages sit in\n"
    "                           memory, and a fresh copy per process turns that into noise\n"
    "                           the A/A rounds measure instead of a fixed bias of one side)\n"
    "      --pause MS           sleep between processes (default 0)\n"
    "      --max-load L         before a round, wait while the 1-minute load average is >= L\n"
    "                           (at most --load-wait seconds, default 120; then the round runs,\n"
    "                           counted as busy, and the sitting waits no more)\n"
    "      --env-a VAR=VALUE    environment of A's processes only (repeatable); --env-b for B\n"
    "                           (test hooks: --env-b DRA_TEST_SLOWDOWN_PCT=10 plants a slowdown)\n"
    "      --args-a \"OPTS\"      run options of A's processes only, after the scenario's (A/A\n"
    "                           rounds use them on both sides); --args-b for B: one build, two\n"
    "                           settings (--args-a \"--invariants off\" --args-b \"--invariants "
    "all\")\n"
    "\n";
static const char help_more[] =
    "      --extend X           a scenario whose A/A noise floor, after its rounds, is above\n"
    "                           the threshold for a metric judged - the one case where the\n"
    "                           floor, not the threshold, decides the verdict - gets up to X\n"
    "                           times as many rounds more (A/B and A/A in its ratio, kinds and\n"
    "                           order from --seed), and is judged again over all its rounds;\n"
    "                           the report says which were extended, by how many rounds and\n"
    "                           why (default 0: off; scripts/nightly gives 1). The trigger is\n"
    "                           the floor alone, never the change, its p or its verdict: the\n"
    "                           floor does not move when every A/B round moves alike, and\n"
    "                           extending on p would be optional stopping, more false alarms.\n"
    "                           With --budget the planned rounds get four fifths of the time\n"
    "                           left and extensions run in the rest, cheapest scenario first;\n"
    "                           a warning says when the budget gave fewer rounds than X\n"
    "\n"
    "Judging:\n"
    "      --metric NAME        metric to judge (repeatable; default throughput.claims_per_s, or\n"
    "                           throughput.rejections_per_s for a scenario that allocates\n"
    "                           nothing); every metric judged adds its own false-alarm chance\n"
    "      --sample best|median a process's sample: its best repetition (default; other programs\n"
    "                           only add time, so it is the least disturbed one) or their median\n"
    "      --threshold PCT      smallest change that is a regression (default 5%)\n"
    "      --alpha A            significance level of the signed-rank test (default 0.05)\n"
    "\n"
    "Output:\n"
    "  -o, --output FILE        JSON result (schema drabench-ab/v1: method, per-round samples,\n"
    "                           noise floor, verdicts with ratio and interval)\n"
    "  -f, --format FMT         text | md | json report on stdout (default text)\n"
    "      --keep DIR           keep every process's result file as DIR/<n>-<scenario>-<A|B>.json\n"
    "      --repo DIR           the git checkout --rev builds from (default: the one holding the\n"
    "                           current directory)\n"
    "  -q, --quiet              no progress, no gate lines on stderr\n"
    "      --progress WHEN      auto | always | never (default auto)\n"
    "  -h, --help               show this help\n"
    "\n"
    "Examples:\n"
    "  drabench ab --rev main build/release/drabench sched-perf-500 --run-args \"-n 2000 -r 7\"\n"
    "  drabench ab old/drabench new/drabench --suite corpora/nightly-ab.txt --budget 1500 -o "
    "ab.json\n"
    "  drabench ab B B --suite corpora/nightly-ab.txt --env-b DRA_TEST_SLOWDOWN_PCT=10\n"
    "  drabench ab B B sched-perf-500 --args-a \"--invariants off\" --args-b \"--invariants "
    "all\"\n"
    "  scripts/ab-campaign --help     # the false-alarm and detection rates of this procedure\n"
    "\n"
    "Exit status (as compare's): 0 no regression, 1 a regression, 2 usage error or a process\n"
    "refusing its scenario or options, 3 a process found a correctness failure (invariant\n"
    "violated, decisions differ from the reference), 4 environment error (a build or a process\n"
    "failed otherwise), 5 inconclusive: nothing worse found but the sitting could not judge (too\n"
    "few rounds, or builds that define the timings differently), 130 interrupted.\n";

/* ---- a sitting's inputs --------------------------------------------------------------------- */

typedef struct scen_in {
    char *name;
    char **args;
    size_t nargs;
} scen_in_t;

typedef struct ab_args {
    const char *a, *b, *rev_a, *rev_b, *repo, *suite, *run_args, *output, *format, *keep;
    const char *args_a, *args_b; /* run options of one side only */
    size_t rounds, aa;
    double budget;
    double extend; /* --extend factor, 0 = off */
    bool has_seed, has_rounds, has_aa;
    unsigned long long seed;
    int pin;
    bool no_aslr, quiet, median, in_place;
    unsigned pause_ms, load_wait;
    double max_load, threshold, alpha;
    dra_progress_when_t when;
    char **metrics, **env_a, **env_b, **scen;
    size_t nmetrics, nenv_a, nenv_b, nscen;
} ab_args_t;

static volatile sig_atomic_t g_stop;

static void on_stop(int sig)
{
    g_stop = sig;
}

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Split s at spaces and tabs into freshly allocated words appended to *v (count *n). */
static int split_words(const char *s, char ***v, size_t *n)
{
    while (s && *s) {
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s)
            break;
        size_t k = strcspn(s, " \t\r\n");
        char **nv = realloc(*v, (*n + 2) * sizeof *nv);
        if (!nv)
            return DRA_ENOMEM;
        *v = nv;
        if (!(nv[*n] = strndup(s, k)))
            return DRA_ENOMEM;
        nv[++*n] = NULL;
        s += k;
    }
    return DRA_OK;
}

static void scen_free(scen_in_t *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(s[i].name);
        for (size_t j = 0; j < s[i].nargs; j++)
            free(s[i].args[j]);
        free(s[i].args);
    }
    free(s);
}

/* The suite file: "scenario options..." per line, # comments and blank lines skipped. Errors
 * name file:line. */
static int read_suite(const char *path, scen_in_t **out, size_t *n)
{
    char *buf;
    size_t len;
    dra_diag_t d;
    dra_diag_clear(&d);
    int rc = dra_io_read_file(path, (size_t)1 << 20, &buf, &len, &d);
    if (rc != DRA_OK) {
        char m[DRA_DIAG_MSG_MAX + 256];
        fprintf(stderr, "drabench ab: --suite %s\n", dra_diag_format(&d, m, sizeof m));
        return dra_io_exit_for(rc);
    }
    int line = 0;
    for (char *p = buf, *nl; p && *p; p = nl ? nl + 1 : NULL) {
        nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        line++;
        char *hash = strchr(p, '#');
        if (hash)
            *hash = '\0';
        char **w = NULL;
        size_t nw = 0;
        if (split_words(p, &w, &nw) != DRA_OK) {
            free(buf);
            return DRA_EXIT_ENV;
        }
        if (!nw) {
            free(w);
            continue;
        }
        if (w[0][0] == '-') {
            fprintf(stderr,
                    "drabench ab: %s:%d: a line starts with the scenario, not an option "
                    "('%s')\n",
                    path, line, w[0]);
            for (size_t i = 0; i < nw; i++)
                free(w[i]);
            free(w);
            free(buf);
            return DRA_EXIT_USAGE;
        }
        scen_in_t *ns = realloc(*out, (*n + 1) * sizeof *ns);
        if (!ns) {
            free(buf);
            return DRA_EXIT_ENV;
        }
        *out = ns;
        ns[*n].name = w[0];
        ns[*n].args = w;
        memmove(w, w + 1, nw * sizeof *w); /* the options, NULL-terminated */
        ns[*n].nargs = nw - 1;
        (*n)++;
    }
    free(buf);
    if (!*n) {
        fprintf(stderr, "drabench ab: %s: no scenario in the suite\n", path);
        return DRA_EXIT_USAGE;
    }
    return DRA_EXIT_OK;
}

/* ---- processes ------------------------------------------------------------------------------ */

/* Run argv in dir (NULL: here) with stdout captured into *out (malloc'd, NUL-terminated) and
 * stderr passed through; returns the exit status (128 + signal), or -1 when it cannot start. */
static int run_capture(char *const argv[], const char *dir, char **out)
{
    int fd[2];
    *out = NULL;
    if (pipe(fd) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return -1;
    }
    if (pid == 0) {
        dup2(fd[1], STDOUT_FILENO);
        close(fd[0]);
        close(fd[1]);
        if (dir && chdir(dir) != 0)
            _exit(127);
        execvp(argv[0], argv);
        _exit(127);
    }
    close(fd[1]);
    size_t cap = 256, len = 0;
    char *buf = malloc(cap);
    ssize_t k;
    while (buf && (k = read(fd[0], buf + len, cap - len - 1)) > 0) {
        len += (size_t)k;
        if (cap - len < 2) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb) {
                free(buf);
                buf = NULL;
            }
            buf = nb;
        }
    }
    close(fd[0]);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    if (buf) {
        buf[len] = '\0';
        while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
            buf[--len] = '\0';
    }
    *out = buf;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The executable built from rev by scripts/ab-build in the checkout: its path (malloc'd), or
 * NULL after printing why with *status the exit status (2 a revision git does not know or no
 * checkout, 4 a build that failed). */
static char *build_rev(const char *repo, const char *rev, int *status)
{
    *status = DRA_EXIT_USAGE;
    char *top = NULL;
    if (!repo) {
        char *const git[] = {"git", "rev-parse", "--show-toplevel", NULL};
        if (run_capture(git, NULL, &top) != 0 || !top || !*top) {
            free(top);
            fprintf(stderr, "drabench ab: --rev needs a git checkout of drabench: run it inside "
                            "one or give --repo DIR\n");
            return NULL;
        }
        repo = top;
    }
    char script[4096];
    snprintf(script, sizeof script, "%s/scripts/ab-build", repo);
    if (access(script, R_OK) != 0) {
        fprintf(stderr, "drabench ab: %s: not found (is %s a drabench checkout?)\n", script, repo);
        free(top);
        return NULL;
    }
    char *const argv[] = {"bash", "scripts/ab-build", (char *)rev, NULL};
    char *path = NULL;
    int st = run_capture(argv, repo, &path);
    if (st != 0 || !path || !*path) {
        fprintf(stderr, "drabench ab: scripts/ab-build %s failed (exit %d)\n", rev, st);
        *status = st == DRA_EXIT_USAGE ? DRA_EXIT_USAGE : DRA_EXIT_ENV;
        free(path);
        free(top);
        return NULL;
    }
    /* a path relative to the checkout */
    if (path[0] != '/') {
        char *abs = malloc(strlen(repo) + strlen(path) + 2);
        if (abs)
            sprintf(abs, "%s/%s", repo, path);
        free(path);
        path = abs;
    }
    free(top);
    return path;
}

typedef struct proc_cfg {
    int pin;
    bool no_aslr;
    char **env;
    size_t nenv;
    char **args; /* run options of this side only, after the scenario's */
    size_t nargs;
} proc_cfg_t;

/* One `EXE run SCENARIO ARGS -q --progress never -o out`, stderr into errpath: its exit status
 * (128 + signal), -1 when it could not start. */
static int run_process(const char *exe, const scen_in_t *sc, const char *out, const char *errpath,
                       const proc_cfg_t *cfg)
{
    size_t n = sc->nargs + cfg->nargs + 10;
    char **argv = calloc(n, sizeof *argv);
    if (!argv)
        return -1;
    size_t k = 0;
    argv[k++] = (char *)exe;
    argv[k++] = "run";
    argv[k++] = sc->name;
    for (size_t i = 0; i < sc->nargs; i++)
        argv[k++] = sc->args[i];
    for (size_t i = 0; i < cfg->nargs; i++)
        argv[k++] = cfg->args[i];
    argv[k++] = "-q";
    argv[k++] = "--progress";
    argv[k++] = "never";
    argv[k++] = "-o";
    argv[k++] = (char *)out;
    argv[k] = NULL;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        free(argv);
        return -1;
    }
    if (pid == 0) {
        int dn = open("/dev/null", O_RDWR);
        int ef = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (dn >= 0) {
            dup2(dn, STDIN_FILENO);
            dup2(dn, STDOUT_FILENO);
        }
        if (ef >= 0)
            dup2(ef, STDERR_FILENO);
        if (cfg->pin >= 0) {
            cpu_set_t set;
            CPU_ZERO(&set);
            CPU_SET(cfg->pin, &set);
            if (sched_setaffinity(0, sizeof set, &set) != 0) {
                fprintf(stderr, "drabench ab: cannot pin to CPU %d: %s\n", cfg->pin,
                        strerror(errno));
                _exit(126);
            }
        }
        if (cfg->no_aslr)
            (void)personality(ADDR_NO_RANDOMIZE);
        for (size_t i = 0; i < cfg->nenv; i++)
            putenv(cfg->env[i]);
        execv(exe, argv);
        fprintf(stderr, "drabench ab: cannot run %s: %s\n", exe, strerror(errno));
        _exit(126);
    }
    free(argv);
    int st;
    while (waitpid(pid, &st, 0) < 0) {
        if (errno != EINTR)
            return -1;
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The last lines of a process's stderr, indented, on our stderr (escaped for the terminal). */
static void show_tail(const char *errpath)
{
    char *buf;
    size_t len;
    dra_diag_t d;
    dra_diag_clear(&d);
    if (dra_io_read_file(errpath, (size_t)1 << 20, &buf, &len, &d) != DRA_OK)
        return;
    size_t start = len > 2000 ? len - 2000 : 0;
    dra_esc_term_text(stderr, buf + start, len - start);
    if (len && buf[len - 1] != '\n')
        fputc('\n', stderr);
    free(buf);
}

/* A process's sample of metric m: its best repetition (the highest value of a higher-is-better
 * metric, the lowest of a lower-is-better one) with best, else the median of its repetitions;
 * NaN when no repetition has it. Other programs only ever add time, so the best repetition is
 * the least disturbed one: on a loaded machine a repetition of default (2,000 pods, 0.7 ms of
 * timed work) that another program preempted inside a timed region read 87k claims/s instead of
 * 1.35M, in 3 of 5 repetitions of some processes, and their median with it. */
static double process_sample(const dra_rload_result_t *r, const char *m, int better, bool best)
{
    double *x = malloc((r->nreps + 1) * sizeof *x);
    size_t n = 0;
    for (size_t i = 0; x && i < r->nreps; i++) {
        double v;
        if (dra_rload_value(&r->reps[i], m, &v) && isfinite(v))
            x[n++] = v;
    }
    double out = NAN;
    if (n && best && better != DRA_RLOAD_BETTER_NONE) {
        out = x[0];
        for (size_t i = 1; i < n; i++)
            out = better == DRA_RLOAD_BETTER_HIGHER ? fmax(out, x[i]) : fmin(out, x[i]);
    } else if (n) {
        out = dra_stats_median(x, n);
    }
    free(x);
    return out;
}

/* SplitMix64 for the order of the rounds. */
static uint64_t rnd(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* ---- the sitting ---------------------------------------------------------------------------- */

typedef struct sitting {
    ab_args_t *o;
    dra_ab_session_t *s;
    scen_in_t *sc;
    size_t nsc;
    const char *exe[2]; /* A, B */
    proc_cfg_t cfg[2];
    char tmpdir[512];
    uint64_t rng;
    uint64_t nproc; /* processes run (file names) */
    int status;     /* 0, or the exit status that ends the sitting (2, 3, 4, 130) */
    dra_progress_t prog;
    bool *decided;     /* per scenario: its metrics are settled (the first process was read) */
    bool gave_up;      /* a --max-load wait ran out: no more waiting in this sitting */
    int64_t waited_ns; /* spent waiting for the load to drop (not a round's cost) */
    size_t *nab, *naa; /* per scenario: rounds done */
    double *spent;     /* per scenario: seconds its rounds took, waits for the load excluded */
} sitting_t;

/* Copy the executable src to dst (created, mode 0700, closed before it runs: a file open for
 * writing cannot be executed): DRA_OK, or DRA_EXIT_ENV with the reason printed. The copy's
 * page-cache pages are new ones, wherever the kernel puts them: that is its purpose. */
static int copy_exe(const char *src, const char *dst)
{
    int in = open(src, O_RDONLY | O_CLOEXEC);
    int out = in < 0 ? -1 : open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
    bool ok = in >= 0 && out >= 0;
    char buf[1 << 16];
    while (ok) {
        ssize_t n = read(in, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            ok = n == 0;
            break;
        }
        for (ssize_t w = 0; ok && w < n;) {
            ssize_t k = write(out, buf + w, (size_t)(n - w));
            if (k < 0 && errno == EINTR)
                continue;
            ok = k > 0;
            w += k > 0 ? k : 0;
        }
    }
    int e = errno;
    if (in >= 0)
        close(in);
    if (out >= 0 && close(out) != 0 && ok) {
        ok = false;
        e = errno;
    }
    if (!ok) {
        fprintf(stderr, "drabench ab: cannot copy the executable ");
        dra_esc_term(stderr, src);
        fprintf(stderr, " to ");
        dra_esc_term(stderr, dst);
        fprintf(stderr, ": %s\n", strerror(e));
        if (out >= 0)
            unlink(dst);
        return DRA_EXIT_ENV;
    }
    return DRA_OK;
}

/* Run one process of side (0 A, 1 B) on scenario i and read its sample of every metric into v:
 * DRA_EXIT_OK, or the status that ends the sitting (printed). */
static int one_process(sitting_t *t, size_t i, int side, double *v)
{
    const scen_in_t *sc = &t->sc[i];
    char out[1024], err[1024], base[160];
    dra_export_scenario_name(sc->name, base, sizeof base);
    t->nproc++;
    if (t->o->keep)
        snprintf(out, sizeof out, "%s/%04llu-%s-%c.json", t->o->keep, (unsigned long long)t->nproc,
                 base, side ? 'B' : 'A');
    else
        snprintf(out, sizeof out, "%s/p%llu.json", t->tmpdir, (unsigned long long)t->nproc);
    snprintf(err, sizeof err, "%s/p%llu.err", t->tmpdir, (unsigned long long)t->nproc);
    const char *exe = t->exe[side];
    char copy[1024];
    if (!t->o->in_place) {
        snprintf(copy, sizeof copy, "%s/p%llu-%c", t->tmpdir, (unsigned long long)t->nproc,
                 side ? 'B' : 'A');
        if (copy_exe(exe, copy) != DRA_OK)
            return DRA_EXIT_ENV;
        exe = copy;
    }
    int st = run_process(exe, sc, out, err, &t->cfg[side]);
    if (exe != t->exe[side])
        unlink(copy);
    if (st != 0) {
        dra_progress_clear(&t->prog);
        fprintf(stderr, "drabench ab: %s (%c) run ", t->exe[side], side ? 'B' : 'A');
        dra_esc_term(stderr, sc->name);
        fprintf(stderr, " exited %d:\n", st);
        show_tail(err);
        if (st == DRA_EXIT_CORRECTNESS) {
            fprintf(stderr, "drabench ab: a correctness failure: its result file is %s\n", out);
            if (!t->o->keep) { /* keep the evidence next to the current directory's results */
                char keep[1100];
                snprintf(keep, sizeof keep, "ab-correctness-%s-%c.json", base, side ? 'B' : 'A');
                if (rename(out, keep) == 0)
                    fprintf(stderr, "drabench ab: kept as %s\n", keep);
            }
            return DRA_EXIT_CORRECTNESS;
        }
        if (st == 130 || st == 143 || g_stop)
            return 130;
        return st == DRA_EXIT_USAGE ? DRA_EXIT_USAGE : DRA_EXIT_ENV;
    }
    unlink(err);
    dra_rload_result_t r;
    dra_diag_t d;
    dra_diag_clear(&d);
    int rc = dra_rload_file(out, &r, &d);
    if (rc != DRA_OK) {
        char m[DRA_DIAG_MSG_MAX + 256];
        fprintf(stderr, "drabench ab: %s wrote no readable result: %s\n", t->exe[side],
                dra_diag_format(&d, m, sizeof m));
        dra_rload_fini(&r);
        return DRA_EXIT_ENV;
    }
    dra_ab_session_t *s = t->s;
    dra_ab_scenario_t *x = &s->scen[i];
    dra_ab_side_t *sd = side ? &s->b : &s->a;
    if (!*sd->git && *r.tool_git)
        sd->git = dra_ab_strdup(s, r.tool_git);
    int64_t *tv = side ? &x->timing_b : &x->timing_a;
    if (!*tv)
        *tv = r.timing_version;
    const char **dg = side ? &x->digest_b : &x->digest_a;
    if (!*dg && *r.digest)
        *dg = dra_ab_strdup(s, r.digest);
    if (!t->decided[i]) {
        /* the default metric of a scenario where nothing is allocated: the rejections' rate */
        if (t->o->nmetrics == 0 && x->nmetrics == 1 &&
            strcmp(x->metrics[0], DRA_AB_DEFAULT_METRIC) == 0 &&
            isnan(process_sample(&r, DRA_AB_DEFAULT_METRIC, DRA_RLOAD_BETTER_NONE, false)) &&
            !isnan(process_sample(&r, DRA_AB_REJECTION_METRIC, DRA_RLOAD_BETTER_NONE, false))) {
            x->metric_note = dra_ab_strdup(
                s, "no claim is allocated: judged by " DRA_AB_REJECTION_METRIC);
            if (dra_ab_set_metric(s, i, 0, DRA_AB_REJECTION_METRIC, NULL,
                                  DRA_RLOAD_BETTER_HIGHER) != DRA_OK) {
                dra_rload_fini(&r);
                return DRA_EXIT_ENV;
            }
        }
        for (size_t m = 0; m < x->nmetrics; m++) {
            const dra_rload_metric_t *cat = dra_rload_metric(&r, x->metrics[m]);
            if (cat && dra_ab_set_metric(s, i, m, NULL, cat->unit, cat->better) != DRA_OK) {
                dra_rload_fini(&r);
                return DRA_EXIT_ENV;
            }
        }
        t->decided[i] = true;
    }
    for (size_t m = 0; m < x->nmetrics; m++)
        v[m] = process_sample(&r, x->metrics[m], x->better[m], s->sample_best);
    dra_rload_fini(&r);
    if (!t->o->keep)
        unlink(out);
    return DRA_EXIT_OK;
}

/* Wait for the load to drop below --max-load (at most --load-wait s); the load when the round
 * starts. Once a wait ran out the host is taken as busy for the rest of the sitting: its rounds
 * run at once (counted as busy) instead of each spending the wait. */
static double load_gate(sitting_t *t)
{
    int cpus;
    double l = dra_host_load1(&cpus);
    if (!(t->o->max_load > 0) || l < t->o->max_load)
        return l;
    if (!t->gave_up) {
        int64_t w0 = mono_ns(), until = w0 + (int64_t)t->o->load_wait * 1000000000;
        while (l >= t->o->max_load && mono_ns() < until && !g_stop) {
            sleep(1);
            l = dra_host_load1(&cpus);
        }
        t->gave_up = l >= t->o->max_load;
        t->waited_ns += mono_ns() - w0;
    }
    if (l >= t->o->max_load)
        t->s->busy_rounds++;
    return l;
}

/* One round of scenario i: A/A or A/B, in a random order; ext: a round of the extension. */
static int one_round(sitting_t *t, size_t i, bool aa, bool ext)
{
    int64_t r0 = mono_ns(), w0 = t->waited_ns;
    size_t nm = t->s->scen[i].nmetrics;
    double va[64], vb[64];
    if (nm > 64)
        nm = 64;
    bool b_first = rnd(&t->rng) & 1;
    double load = load_gate(t);
    for (int k = 0; k < 2; k++) {
        bool is_b = (k == 0) == b_first;
        int side = is_b && !aa ? 1 : 0;
        if (k == 1 && t->o->pause_ms)
            usleep(t->o->pause_ms * 1000u);
        int st = one_process(t, i, side, is_b ? vb : va);
        if (st != DRA_EXIT_OK)
            return st;
        if (g_stop)
            return 130;
    }
    if (t->o->pause_ms)
        usleep(t->o->pause_ms * 1000u);
    if (dra_ab_add_round(t->s, i, aa, b_first, load, va, vb) != DRA_OK)
        return DRA_EXIT_ENV;
    dra_ab_scenario_t *x = &t->s->scen[i];
    x->rounds[x->nrounds - 1].extension = ext;
    t->spent[i] += (double)(mono_ns() - r0 - (t->waited_ns - w0)) / 1e9;
    if (aa)
        t->naa[i]++;
    else
        t->nab[i]++;
    return DRA_EXIT_OK;
}

/* Kinds of the remaining rounds of a scenario: nab A/B and naa A/A, shuffled. */
static bool *plan(sitting_t *t, size_t nab, size_t naa)
{
    size_t n = nab + naa;
    bool *k = calloc(n + 1, sizeof *k);
    if (!k)
        return NULL;
    for (size_t i = nab; i < n; i++)
        k[i] = true;
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)(rnd(&t->rng) % i);
        bool x = k[i - 1];
        k[i - 1] = k[j];
        k[j] = x;
    }
    return k;
}

_Static_assert(DRA_AB_NEED_ROUNDS == 32, "--help names the rounds a sitting needs");

/* The extension (--extend, ab.h dra_ab_extend_trigger): after the planned rounds, the verdicts
 * so far; every scenario where a gated metric's A/A floor is above the threshold gets up to
 * --extend times its rounds more, A/B and A/A in its ratio, their kinds shuffled and their
 * order drawn from the sitting's generator after the planned rounds' draws (so --seed
 * reproduces them, and a sitting that is not extended draws nothing more). Under --budget only
 * in the time left, cheapest scenario first, at the cost a round of it had; a round that would
 * end past the budget is not started. The command analyzes the sitting again over every round. */
static int extend_sitting(sitting_t *t, int64_t t0)
{
    ab_args_t *o = t->o;
    dra_ab_session_t *s = t->s;
    if (dra_ab_analyze(s) != DRA_OK)
        return DRA_EXIT_ENV;
    size_t n = t->nsc, *order = calloc(n + 1, sizeof *order), *xab = calloc(n + 1, sizeof *xab),
           *xaa = calloc(n + 1, sizeof *xaa);
    bool **kinds = calloc(n + 1, sizeof *kinds), *stop = calloc(n + 1, sizeof *stop);
    double *cost = calloc(n + 1, sizeof *cost);
    int st = order && xab && xaa && kinds && stop && cost ? DRA_EXIT_OK : DRA_EXIT_ENV;
    for (size_t i = 0; i < n && st == DRA_EXIT_OK; i++) {
        size_t r = t->nab[i] + t->naa[i];
        cost[i] = r ? t->spent[i] / (double)r : 0;
        size_t j = i; /* insertion by (cost, index) */
        while (j > 0 && cost[order[j - 1]] > cost[i]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    bool budget = o->budget > 0;
    double left = budget ? o->budget - (double)(mono_ns() - t0) / 1e9 : -1;
    if (budget && left < 0)
        left = 0;
    size_t total = 0;
    for (size_t k = 0; k < n && st == DRA_EXIT_OK; k++) {
        size_t i = order[k], m = dra_ab_extend_trigger(s, i);
        if (m == SIZE_MAX)
            continue;
        dra_ab_scenario_t *x = &s->scen[i];
        dra_ab_extension_t *e = &x->ext;
        bool cut;
        e->triggered = true;
        e->metric = m;
        e->floor = x->stats[m].noise;
        e->planned_ab = t->nab[i];
        e->planned_aa = t->naa[i];
        e->cost_s = cost[i];
        e->left_s = budget ? left : NAN;
        e->before = x->stats; /* the next analysis gives the scenario new statistics */
        dra_ab_extend_rounds(t->nab[i], t->naa[i], o->extend, cost[i], -1, &e->want_ab,
                             &e->want_aa, &cut);
        dra_ab_extend_rounds(t->nab[i], t->naa[i], o->extend, cost[i], left, &xab[i], &xaa[i],
                             &e->budget_cut);
        if (budget)
            left -= (double)(xab[i] + xaa[i]) * cost[i];
        total += xab[i] + xaa[i];
    }
    /* the kinds, in scenario order: the generator's draws do not depend on the costs */
    for (size_t i = 0; i < n && st == DRA_EXIT_OK; i++)
        if (xab[i] + xaa[i] && !(kinds[i] = plan(t, xab[i], xaa[i])))
            st = DRA_EXIT_ENV;
    size_t passes = 0, done = 0;
    for (size_t i = 0; i < n; i++)
        passes = xab[i] + xaa[i] > passes ? xab[i] + xaa[i] : passes;
    if (total && !o->quiet && t->prog.mode != DRA_PROGRESS_NONE) {
        char line[160];
        snprintf(line, sizeof line,
                 "ab: %zu more round(s): an A/A noise floor above the %g%% threshold (--extend)",
                 total, 100 * s->threshold);
        dra_progress_line(&t->prog, line);
    }
    for (size_t pass = 0; pass < passes && st == DRA_EXIT_OK; pass++) {
        for (size_t i = 0; i < n && st == DRA_EXIT_OK; i++) {
            dra_ab_extension_t *e = &s->scen[i].ext;
            if (stop[i] || pass >= xab[i] + xaa[i])
                continue;
            if (budget && (double)(mono_ns() - t0) / 1e9 + cost[i] > o->budget) {
                stop[i] = true; /* this round would end past the budget */
                e->budget_cut = true;
                continue;
            }
            bool aa = kinds[i][pass];
            st = one_round(t, i, aa, true);
            if (st == DRA_EXIT_OK)
                *(aa ? &e->aa : &e->ab) += 1;
            char label[160];
            snprintf(label, sizeof label, "ab extension round %zu/%zu", pass + 1, passes);
            dra_progress_update(&t->prog, label, ++done, total, false);
        }
    }
    for (size_t i = 0; i < n; i++) {
        const dra_ab_scenario_t *x = &s->scen[i];
        const dra_ab_extension_t *e = &x->ext;
        if (e->triggered && e->budget_cut)
            dra_ab_warn(s,
                        "%s: its A/A noise floor (%.1f%%) was above the %g%% threshold, but the "
                        "budget allowed %zu + %zu of the %zu + %zu more rounds --extend %g gives",
                        x->name, 100 * (exp(e->floor) - 1), 100 * s->threshold, e->ab, e->aa,
                        e->want_ab, e->want_aa, o->extend);
    }
    for (size_t i = 0; kinds && i < n; i++)
        free(kinds[i]);
    free(kinds);
    free(order);
    free(xab);
    free(xaa);
    free(stop);
    free(cost);
    return st;
}

static int run_sitting(sitting_t *t)
{
    ab_args_t *o = t->o;
    int64_t t0 = mono_ns();
    size_t pass = 0, passes = o->rounds + o->aa, total = 0;
    bool **kinds = calloc(t->nsc, sizeof *kinds);
    size_t *R = calloc(t->nsc + 1, sizeof *R), *Q = calloc(t->nsc + 1, sizeof *Q);
    double *cost = calloc(t->nsc + 1, sizeof *cost);
    int st = kinds && R && Q && cost ? DRA_EXIT_OK : DRA_EXIT_ENV;
    for (size_t i = 0; i < t->nsc && st == DRA_EXIT_OK; i++) {
        R[i] = o->rounds;
        Q[i] = o->aa;
    }
    if (o->budget > 0 && st == DRA_EXIT_OK) {
        /* first pass: one A/B round of every scenario, which also measures what each costs */
        for (size_t i = 0; i < t->nsc && st == DRA_EXIT_OK; i++) {
            int64_t r0 = mono_ns(), w0 = t->waited_ns;
            st = one_round(t, i, false, false);
            cost[i] = (double)(mono_ns() - r0 - (t->waited_ns - w0)) / 1e9; /* waits excluded */
        }
        pass = 1;
        double per = 0;
        for (size_t i = 0; i < t->nsc; i++)
            per += cost[i];
        double left = o->budget - (double)(mono_ns() - t0) / 1e9;
        size_t fit;
        /* with --extend, the planned rounds get four fifths of the time left: the rest is the
         * extension's, used only by the scenarios whose floor turns out above the threshold */
        double plan_left = o->extend > 0 ? left * (1 - DRA_AB_EXTEND_RESERVE) : left;
        dra_ab_budget_split(cost, t->nsc, plan_left, o->rounds, o->aa, R, Q, &fit);
        if (fit < DRA_AB_MIN_ROUNDS + DRA_AB_MIN_AA)
            dra_ab_warn(t->s,
                        "a pass of every scenario took %.1f s: the budget of %.0f s fits %zu "
                        "round(s) of every scenario; running at least the minimum %d A/B + %d "
                        "A/A",
                        per, o->budget, fit, DRA_AB_MIN_ROUNDS, DRA_AB_MIN_AA);
        /* the method records the equal part; each scenario's own counts are in its rounds */
        size_t rmin = SIZE_MAX, qmin = SIZE_MAX;
        passes = 0;
        for (size_t i = 0; i < t->nsc; i++) {
            rmin = R[i] < rmin ? R[i] : rmin;
            qmin = Q[i] < qmin ? Q[i] : qmin;
            passes = R[i] + Q[i] > passes ? R[i] + Q[i] : passes;
        }
        t->s->rounds = rmin;
        t->s->aa = qmin;
        if (!o->quiet && t->prog.mode != DRA_PROGRESS_NONE) {
            char line[1024];
            int len = snprintf(line, sizeof line,
                               "ab: a pass of %zu scenario(s) took %.1f s; rounds (A/B + A/A) in "
                               "the budget of %.0f s:",
                               t->nsc, per, o->budget);
            for (size_t i = 0; i < t->nsc && len > 0 && (size_t)len < sizeof line; i++) {
                char nm[160];
                len += snprintf(line + len, sizeof line - (size_t)len, "%s %s %zu + %zu",
                                i ? "," : "", dra_esc_term_buf(nm, sizeof nm, t->s->scen[i].name),
                                R[i], Q[i]);
            }
            dra_progress_line(&t->prog, line);
        }
    }
    for (size_t i = 0; i < t->nsc && st == DRA_EXIT_OK; i++) {
        if (!(kinds[i] = plan(t, R[i] - t->nab[i], Q[i] - t->naa[i])))
            st = DRA_EXIT_ENV;
        total += R[i] + Q[i];
    }
    size_t first = pass, done = pass * t->nsc;
    for (; pass < passes && st == DRA_EXIT_OK; pass++) {
        for (size_t i = 0; i < t->nsc && st == DRA_EXIT_OK; i++) {
            if (pass >= R[i] + Q[i]) /* this scenario's rounds are done */
                continue;
            st = one_round(t, i, kinds[i][pass - first], false);
            char label[160];
            snprintf(label, sizeof label, "ab round %zu/%zu", pass + 1, passes);
            dra_progress_update(&t->prog, label, ++done, total, false);
        }
        if (t->prog.mode == DRA_PROGRESS_LINES && (pass + 1) % 10 == 0 && st == DRA_EXIT_OK) {
            char line[160];
            snprintf(line, sizeof line, "ab: %zu of %zu rounds, %.0f s", pass + 1, passes,
                     (double)(mono_ns() - t0) / 1e9);
            dra_progress_line(&t->prog, line);
        }
    }
    if (st == DRA_EXIT_OK && o->extend > 0)
        st = extend_sitting(t, t0);
    for (size_t i = 0; kinds && i < t->nsc; i++)
        free(kinds[i]);
    free(kinds);
    free(R);
    free(Q);
    free(cost);
    t->s->wall_s += (double)(mono_ns() - t0) / 1e9;
    return st;
}

/* ---- options -------------------------------------------------------------------------------- */

static int push(char ***v, size_t *n, const char *s)
{
    char **nv = realloc(*v, (*n + 2) * sizeof *nv);
    if (!nv)
        return DRA_EXIT_ENV;
    *v = nv;
    nv[(*n)++] = (char *)s;
    nv[*n] = NULL;
    return DRA_EXIT_OK;
}

static int parse_args(int argc, char **argv, ab_args_t *a, bool *want_help)
{
    enum {
        O_REV = 256,
        O_REVB,
        O_REPO,
        O_SUITE,
        O_RUNARGS,
        O_ARGSA,
        O_ARGSB,
        O_AA,
        O_BUDGET,
        O_SEED,
        O_PIN,
        O_NOASLR,
        O_INPLACE,
        O_PAUSE,
        O_MAXLOAD,
        O_LOADWAIT,
        O_ENVA,
        O_ENVB,
        O_METRIC,
        O_THRESH,
        O_ALPHA,
        O_KEEP,
        O_PROGRESS,
        O_SAMPLE,
        O_EXTEND
    };
    static const struct option opts[] = {{"rev", required_argument, NULL, O_REV},
                                         {"rev-b", required_argument, NULL, O_REVB},
                                         {"repo", required_argument, NULL, O_REPO},
                                         {"suite", required_argument, NULL, O_SUITE},
                                         {"run-args", required_argument, NULL, O_RUNARGS},
                                         {"args-a", required_argument, NULL, O_ARGSA},
                                         {"args-b", required_argument, NULL, O_ARGSB},
                                         {"rounds", required_argument, NULL, 'r'},
                                         {"aa", required_argument, NULL, O_AA},
                                         {"budget", required_argument, NULL, O_BUDGET},
                                         {"extend", required_argument, NULL, O_EXTEND},
                                         {"seed", required_argument, NULL, O_SEED},
                                         {"pin", required_argument, NULL, O_PIN},
                                         {"no-aslr", no_argument, NULL, O_NOASLR},
                                         {"in-place", no_argument, NULL, O_INPLACE},
                                         {"pause", required_argument, NULL, O_PAUSE},
                                         {"max-load", required_argument, NULL, O_MAXLOAD},
                                         {"load-wait", required_argument, NULL, O_LOADWAIT},
                                         {"env-a", required_argument, NULL, O_ENVA},
                                         {"env-b", required_argument, NULL, O_ENVB},
                                         {"metric", required_argument, NULL, O_METRIC},
                                         {"sample", required_argument, NULL, O_SAMPLE},
                                         {"threshold", required_argument, NULL, O_THRESH},
                                         {"alpha", required_argument, NULL, O_ALPHA},
                                         {"output", required_argument, NULL, 'o'},
                                         {"format", required_argument, NULL, 'f'},
                                         {"keep", required_argument, NULL, O_KEEP},
                                         {"quiet", no_argument, NULL, 'q'},
                                         {"progress", required_argument, NULL, O_PROGRESS},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    unsigned long long u;
    char **ops = NULL;
    size_t nops = 0;
    int status = DRA_EXIT_OK;
    optind = 0;
    for (;;) {
        const char *v;
        int c = dra_cli_getopt("ab", argc, argv, "r:o:f:qh", opts, &v);
        if (c == -1)
            break;
        switch (c) {
        case DRA_CLI_BAD:
            status = DRA_EXIT_USAGE;
            goto out;
        case DRA_CLI_SPLIT:
            status = dra_cli_usage_error("ab", "unknown option '--'");
            goto out;
        case DRA_CLI_OPERAND:
            if ((status = push(&ops, &nops, v)))
                goto out;
            break;
        case 'h':
            fputs(help_use, stdout);
            fputs(help_more, stdout);
            *want_help = true;
            goto out;
        case O_REV:
            a->rev_a = v;
            break;
        case O_REVB:
            a->rev_b = v;
            break;
        case O_REPO:
            a->repo = v;
            break;
        case O_SUITE:
            a->suite = v;
            break;
        case O_RUNARGS:
            a->run_args = v;
            break;
        case O_ARGSA:
            a->args_a = v;
            break;
        case O_ARGSB:
            a->args_b = v;
            break;
        case 'r':
        case O_AA:
            if (!dra_io_parse_u64(v, &u) || u > 100000 || (c == 'r' && u == 0)) {
                status = dra_cli_usage_error("ab", "%s: expected a count%s, got '%s'",
                                             c == 'r' ? "--rounds" : "--aa",
                                             c == 'r' ? " >= 1" : "", v);
                goto out;
            }
            if (c == 'r') {
                a->rounds = (size_t)u;
                a->has_rounds = true;
            } else {
                a->aa = (size_t)u;
                a->has_aa = true;
            }
            break;
        case O_BUDGET:
            if (!dra_io_parse_double(v, &a->budget) || !(a->budget > 0)) {
                status = dra_cli_usage_error("ab", "--budget: expected seconds > 0, got '%s'", v);
                goto out;
            }
            break;
        case O_EXTEND:
            if (!dra_io_parse_double(v, &a->extend) || !(a->extend >= 0 && a->extend <= 10)) {
                status = dra_cli_usage_error(
                    "ab", "--extend: expected a factor from 0 (off) to 10, got '%s'", v);
                goto out;
            }
            break;
        case O_SEED:
            if (!dra_io_parse_u64(v, &a->seed)) {
                status = dra_cli_usage_error("ab", "--seed: expected a number, got '%s'", v);
                goto out;
            }
            a->has_seed = true;
            break;
        case O_PIN: {
            long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
            if (!dra_io_parse_u64(v, &u) || (ncpu > 0 && u >= (unsigned long long)ncpu) ||
                u >= CPU_SETSIZE) {
                status = dra_cli_usage_error(
                    "ab", "--pin: expected a CPU number below %ld, got '%s'", ncpu, v);
                goto out;
            }
            a->pin = (int)u;
            break;
        }
        case O_NOASLR:
            a->no_aslr = true;
            break;
        case O_INPLACE:
            a->in_place = true;
            break;
        case O_PAUSE:
        case O_LOADWAIT:
            if (!dra_io_parse_u64(v, &u) || u > 3600000) {
                status = dra_cli_usage_error("ab", "%s: expected a number, got '%s'",
                                             c == O_PAUSE ? "--pause" : "--load-wait", v);
                goto out;
            }
            if (c == O_PAUSE)
                a->pause_ms = (unsigned)u;
            else
                a->load_wait = (unsigned)u;
            break;
        case O_MAXLOAD:
            if (!dra_io_parse_double(v, &a->max_load) || !(a->max_load > 0)) {
                status = dra_cli_usage_error(
                    "ab", "--max-load: expected a load average > 0, got '%s'", v);
                goto out;
            }
            break;
        case O_ENVA:
        case O_ENVB:
            if (!strchr(v, '=') || v[0] == '=') {
                status = dra_cli_usage_error("ab", "%s: expected VAR=VALUE, got '%s'",
                                             c == O_ENVA ? "--env-a" : "--env-b", v);
                goto out;
            }
            if ((status = c == O_ENVA ? push(&a->env_a, &a->nenv_a, v)
                                      : push(&a->env_b, &a->nenv_b, v)))
                goto out;
            break;
        case O_METRIC:
            if ((status = push(&a->metrics, &a->nmetrics, v)))
                goto out;
            if (a->nmetrics > 64) {
                status = dra_cli_usage_error("ab", "--metric: at most 64 metrics");
                goto out;
            }
            break;
        case O_SAMPLE:
            if (strcmp(v, "best") != 0 && strcmp(v, "median") != 0) {
                status = dra_cli_usage_error("ab", "--sample: best or median, got '%s'", v);
                goto out;
            }
            a->median = strcmp(v, "median") == 0;
            break;
        case O_THRESH: {
            char *end;
            double x = strtod(v, &end);
            if (end == v || (*end && strcmp(end, "%") != 0) || !(x > 0 && x < 100)) {
                status = dra_cli_usage_error("ab",
                                             "--threshold: expected a percentage such as "
                                             "5%%, got '%s'",
                                             v);
                goto out;
            }
            a->threshold = x / 100;
            break;
        }
        case O_ALPHA:
            if (!dra_io_parse_double(v, &a->alpha) || !(a->alpha > 0 && a->alpha < 1)) {
                status = dra_cli_usage_error("ab", "--alpha: expected a number in (0, 1), got '%s'",
                                             v);
                goto out;
            }
            break;
        case 'o':
            a->output = v;
            break;
        case 'f':
            if (strcmp(v, "text") != 0 && strcmp(v, "md") != 0 && strcmp(v, "json") != 0) {
                status = dra_cli_usage_error("ab", "--format: text, md or json, got '%s'", v);
                goto out;
            }
            a->format = v;
            break;
        case O_KEEP:
            a->keep = v;
            break;
        case 'q':
            a->quiet = true;
            break;
        case O_PROGRESS:
            if (!dra_progress_parse_when(v, &a->when)) {
                status = dra_cli_usage_error("ab", "--progress: auto, always or never, got '%s'",
                                             v);
                goto out;
            }
            break;
        }
    }
    /* operands: the builds not given by --rev, then scenarios */
    size_t need = (a->rev_a ? 0 : 1) + (a->rev_b ? 0 : 1), k = 0;
    if (nops < need) {
        status = dra_cli_usage_error("ab", "need %s",
                                     need == 2 ? "two executables, A and B"
                                               : "the executable B (or --rev-b)");
        goto out;
    }
    if (!a->rev_a)
        a->a = ops[k++];
    if (!a->rev_b)
        a->b = ops[k++];
    for (; k < nops; k++)
        if ((status = push(&a->scen, &a->nscen, ops[k])))
            goto out;
    if (!a->nscen && !a->suite) {
        status = dra_cli_usage_error("ab", "no scenario: name one or give --suite FILE");
        goto out;
    }
    if (a->budget > 0 && (a->has_rounds || a->has_aa) && !(a->rounds && a->aa)) {
        status = dra_cli_usage_error("ab", "--budget splits the rounds in the ratio of --rounds to "
                                           "--aa: both must be >= 1");
        goto out;
    }
out:
    free(ops);
    return status;
}

/* Is path an executable file? Prints why not. */
static bool check_exe(const char *label, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || access(path, X_OK) != 0) {
        fprintf(stderr, "drabench ab: %s: ", label);
        dra_esc_term(stderr, path);
        fprintf(stderr, " is not an executable file\n");
        return false;
    }
    return true;
}

static int write_outputs(const sitting_t *t)
{
    const ab_args_t *o = t->o;
    int rc = DRA_OK;
    dra_diag_t d;
    dra_diag_clear(&d);
    if (o->output) {
        char *buf = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&buf, &len);
        rc = m ? dra_ab_write_json(t->s, m) : DRA_ENOMEM;
        if (m && fclose(m) != 0 && rc == DRA_OK)
            rc = DRA_ENOMEM;
        if (rc == DRA_OK)
            rc = dra_io_write_file_atomic(o->output, buf, len, &d);
        free(buf);
        if (rc != DRA_OK) {
            char msg[DRA_DIAG_MSG_MAX + 256];
            fprintf(stderr, "drabench ab: %s\n",
                    d.code ? dra_diag_format(&d, msg, sizeof msg) : dra_strerror(rc));
            return DRA_EXIT_ENV;
        }
    }
    const char *fmt = o->format ? o->format : "text";
    if (strcmp(fmt, "json") == 0)
        rc = dra_ab_write_json(t->s, stdout);
    else if (strcmp(fmt, "md") == 0)
        rc = dra_ab_write_md(t->s, stdout);
    else
        rc = dra_ab_write_text(t->s, stdout);
    if (rc != DRA_OK)
        return DRA_EXIT_ENV;
    if (!o->quiet && t->s->exit_status != DRA_EXIT_OK && strcmp(fmt, "text") != 0)
        dra_ab_write_gate_lines(t->s, stderr);
    return DRA_EXIT_OK;
}

int dra_cmd_ab(int argc, char **argv)
{
    ab_args_t a;
    memset(&a, 0, sizeof a);
    a.rounds = DRA_AB_DEFAULT_ROUNDS;
    a.aa = DRA_AB_DEFAULT_AA;
    a.pin = -1;
    a.load_wait = 120;
    a.threshold = DRA_AB_DEFAULT_THRESHOLD;
    a.alpha = DRA_AB_DEFAULT_ALPHA;
    bool helped = false;
    int status = parse_args(argc, argv, &a, &helped);
    scen_in_t *sc = NULL;
    size_t nsc = 0;
    char *built_a = NULL, *built_b = NULL;
    dra_ab_session_t s;
    dra_ab_init(&s);
    sitting_t t;
    memset(&t, 0, sizeof t);
    if (status != DRA_EXIT_OK || helped)
        goto out;

    /* scenarios: the suite's lines, then the operands with --run-args */
    if (a.suite && (status = read_suite(a.suite, &sc, &nsc)) != DRA_EXIT_OK)
        goto out;
    for (size_t i = 0; i < a.nscen; i++) {
        scen_in_t *ns = realloc(sc, (nsc + 1) * sizeof *ns);
        if (!ns) {
            status = DRA_EXIT_ENV;
            goto out;
        }
        sc = ns;
        memset(&sc[nsc], 0, sizeof sc[nsc]);
        sc[nsc].name = strdup(a.scen[i]);
        if (!sc[nsc].name || split_words(a.run_args, &sc[nsc].args, &sc[nsc].nargs) != DRA_OK) {
            nsc++;
            status = DRA_EXIT_ENV;
            goto out;
        }
        nsc++;
    }
    if (a.output) {
        dra_diag_t d;
        dra_diag_clear(&d);
        if (dra_io_check_output(a.output, &d) != DRA_OK) {
            char m[DRA_DIAG_MSG_MAX + 256];
            fprintf(stderr, "drabench ab: %s\n", dra_diag_format(&d, m, sizeof m));
            status = DRA_EXIT_ENV;
            goto out;
        }
    }
    if (a.keep && dra_io_mkdir_p(a.keep, 0777) != 0) {
        fprintf(stderr, "drabench ab: --keep %s: %s\n", a.keep, strerror(errno));
        status = DRA_EXIT_ENV;
        goto out;
    }

    /* the builds */
    if (a.rev_a && !(a.a = built_a = build_rev(a.repo, a.rev_a, &status)))
        goto out;
    if (a.rev_b && !(a.b = built_b = build_rev(a.repo, a.rev_b, &status)))
        goto out;
    if (!check_exe("A", a.a) || !check_exe("B", a.b)) {
        status = DRA_EXIT_USAGE;
        goto out;
    }

    /* the session */
    dra_hostinfo_t host;
    dra_hostinfo_collect(&host);
    s.hostname = dra_ab_strdup(&s, host.hostname);
    s.cpu_model = dra_ab_strdup(&s, host.cpu_model);
    s.load_start = dra_host_load1(&s.cpus);
    s.a.exe = dra_ab_strdup(&s, a.a);
    s.b.exe = dra_ab_strdup(&s, a.b);
    s.a.rev = dra_ab_strdup(&s, a.rev_a);
    s.b.rev = dra_ab_strdup(&s, a.rev_b);
    s.a.env = a.env_a;
    s.a.nenv = a.nenv_a;
    s.b.env = a.env_b;
    s.b.nenv = a.nenv_b;
    s.seed = a.has_seed ? a.seed : (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20);
    s.rounds = a.rounds;
    s.aa = a.aa;
    s.pin = a.pin;
    s.no_aslr = a.no_aslr;
    s.in_place = a.in_place;
    s.pause_ms = a.pause_ms;
    s.max_load = a.max_load;
    s.budget_s = a.budget;
    s.extend = a.extend;
    s.threshold = a.threshold;
    s.alpha = a.alpha;
    s.sample_best = !a.median;
    const char *defmetric[] = {DRA_AB_DEFAULT_METRIC};
    for (size_t i = 0; i < nsc; i++) {
        size_t idx;
        const char *const *ms = a.nmetrics ? (const char *const *)a.metrics : defmetric;
        if (dra_ab_add_scenario(&s, sc[i].name, sc[i].args, sc[i].nargs, ms,
                                a.nmetrics ? a.nmetrics : 1, &idx) != DRA_OK) {
            status = DRA_EXIT_ENV;
            goto out;
        }
    }
    /* one build under two settings (--args-a / --args-b) is a comparison, not an A/A sitting */
    bool same_args = (!a.args_a && !a.args_b) ||
                     (a.args_a && a.args_b && strcmp(a.args_a, a.args_b) == 0);
    if (strcmp(a.a, a.b) == 0 && !a.nenv_a && !a.nenv_b && same_args)
        dra_ab_warn(&s, "A and B are the same executable with the same environment and run "
                        "options: an A/A sitting (every regression it reports is a false alarm)");

    t.o = &a;
    t.s = &s;
    t.sc = sc;
    t.nsc = nsc;
    t.exe[0] = a.a;
    t.exe[1] = a.b;
    t.cfg[0] = (proc_cfg_t){a.pin, a.no_aslr, a.env_a, a.nenv_a, NULL, 0};
    t.cfg[1] = (proc_cfg_t){a.pin, a.no_aslr, a.env_b, a.nenv_b, NULL, 0};
    if (split_words(a.args_a, &t.cfg[0].args, &t.cfg[0].nargs) != DRA_OK ||
        split_words(a.args_b, &t.cfg[1].args, &t.cfg[1].nargs) != DRA_OK) {
        status = DRA_EXIT_ENV;
        goto out;
    }
    s.a.args = t.cfg[0].args;
    s.a.nargs = t.cfg[0].nargs;
    s.b.args = t.cfg[1].args;
    s.b.nargs = t.cfg[1].nargs;
    t.rng = s.seed;
    t.decided = calloc(nsc + 1, sizeof *t.decided);
    t.nab = calloc(nsc + 1, sizeof *t.nab);
    t.naa = calloc(nsc + 1, sizeof *t.naa);
    t.spent = calloc(nsc + 1, sizeof *t.spent);
    const char *tmp = getenv("TMPDIR");
    snprintf(t.tmpdir, sizeof t.tmpdir, "%s/drabench-ab.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!t.decided || !t.nab || !t.naa || !t.spent || !mkdtemp(t.tmpdir)) {
        fprintf(stderr, "drabench ab: cannot make a temporary directory %s: %s\n", t.tmpdir,
                strerror(errno));
        t.tmpdir[0] = '\0';
        status = DRA_EXIT_ENV;
        goto out;
    }
    dra_progress_init(&t.prog, dra_progress_mode(a.when, a.quiet), stderr);

    g_stop = 0;
    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    int st = run_sitting(&t);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    dra_progress_finish(&t.prog);
    s.load_end = dra_host_load1(NULL);
    if (s.busy_rounds)
        dra_ab_warn(&s,
                    "%llu round(s) started while the load average was >= %g (after one wait "
                    "of %u s the rest of the sitting did not wait): their timings include "
                    "other programs' work",
                    (unsigned long long)s.busy_rounds, a.max_load, a.load_wait);
    if (s.load_start >= s.cpus || s.load_end >= s.cpus)
        dra_ab_warn(&s,
                    "the host was busy (load average %.2f at the start, %.2f at the end, on "
                    "%d CPUs): interleaving keeps the comparison fair, but the noise floor "
                    "is higher and small changes are harder to see",
                    s.load_start, s.load_end, s.cpus);
    for (size_t i = 0; i < s.nscen; i++)
        if (s.scen[i].digest_a && s.scen[i].digest_b &&
            strcmp(s.scen[i].digest_a, s.scen[i].digest_b) != 0)
            dra_ab_warn(&s,
                        "%s: the builds decided differently (digest %s vs %s): the timings "
                        "compare different work",
                        s.scen[i].name, s.scen[i].digest_a, s.scen[i].digest_b);
    if (st == 130)
        dra_ab_warn(&s, "interrupted: the verdicts cover the rounds done");
    if (st == DRA_EXIT_USAGE || st == DRA_EXIT_ENV) {
        status = st;
        goto out;
    }
    if (dra_ab_analyze(&s) != DRA_OK) {
        status = DRA_EXIT_ENV;
        goto out;
    }
    if (st == DRA_EXIT_CORRECTNESS)
        s.exit_status = DRA_EXIT_CORRECTNESS;
    status = write_outputs(&t);
    if (status == DRA_EXIT_OK)
        status = st == 130 ? 128 + (g_stop > 1 ? (int)g_stop : SIGINT) : s.exit_status;

out:
    if (t.tmpdir[0]) {
        /* our files: p<N>.json (without --keep), p<N>.err and a copy p<N>-A or p<N>-B that an
         * interrupted process left */
        for (uint64_t i = 1; i <= t.nproc; i++) {
            char p[600];
            snprintf(p, sizeof p, "%s/p%llu.json", t.tmpdir, (unsigned long long)i);
            unlink(p);
            snprintf(p, sizeof p, "%s/p%llu.err", t.tmpdir, (unsigned long long)i);
            unlink(p);
            for (int c = 'A'; c <= 'B'; c++) {
                snprintf(p, sizeof p, "%s/p%llu-%c", t.tmpdir, (unsigned long long)i, c);
                unlink(p);
            }
        }
        rmdir(t.tmpdir);
    }
    free(t.decided);
    free(t.nab);
    free(t.naa);
    free(t.spent);
    for (int side = 0; side < 2; side++) {
        for (size_t i = 0; i < t.cfg[side].nargs; i++)
            free(t.cfg[side].args[i]);
        free(t.cfg[side].args);
    }
    dra_ab_fini(&s);
    scen_free(sc, nsc);
    free(built_a);
    free(built_b);
    free(a.metrics);
    free(a.env_a);
    free(a.env_b);
    free(a.scen);
    return status;
}
