/* cmd_run.c - `drabench run`: run a scenario and write a drabench-result/v1 file (runner.h). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "engine/engine.h"
#include "escape.h"
#include "export.h"
#include "hostinfo.h"
#include "progress.h"
#include "result.h"
#include "runner.h"
#include "datapages.h"
#include "hugemem.h"
#include "textpages.h"

static const char help[] =
    "drabench run - run a scenario: latency histograms, invariants, fragmentation, result JSON\n"
    "\n"
    "Usage: drabench run [options] [SCENARIO|NAME]\n"
    "\n"
    "Builds the scenario's cluster, feeds its workload to the allocator the way the scheduler\n"
    "would (node search by placement policy, allocate, commit; release on departure), and times\n"
    "every step. Prints a summary table on stdout and writes a result file (results/README.md).\n"
    "Without an argument the built-in 'default' scenario runs.\n"
    "\n"
    "Options:\n"
    "  -o, --output FILE        result file (default: results/runs/<scenario>-<UTC time in\n"
    "                           ms>.json, never overwriting another run's file);\n"
    "                           '-' writes the JSON to stdout and the table to stderr\n"
    "  -r, --repeat N           measured repetitions (default: the scenario's, else 1)\n"
    "  -w, --warmup N           warm-up pods run and undone before measuring (default: "
    "scenario's)\n"
    "  -s, --seed N             master seed (default: the scenario's; always recorded)\n"
    "  -n, --count N            workload arrivals (default: the scenario's count)\n"
    "      --allocator NAME     fast: the placement engine (candidate-node index + fast\n"
    "                           allocator); reference: the reference allocator on node after\n"
    "                           node; both: fast, each decision of the first --both-prefix\n"
    "                           arrivals checked against reference (exit 3 at the first\n"
    "                           difference) and the speed ratio printed (default: fast)\n"
    "      --both-prefix N      arrivals compared by --allocator both, warm-up included\n"
    "                           (default: 2000)\n"
    "      --both-groups N      PodGroup arrivals compared by --allocator both (their cycle\n"
    "                           against the literal cycle), counted apart (default: the\n"
    "                           --both-prefix count)\n"
    "      --policy P           first-fit | best-fit | spread | random (default: scenario's)\n"
    "      --invariants MODE    all | sampled | off: the invariant checker after every\n"
    "                           allocation, a seeded sample, or none (the names of a scenario's\n"
    "                           spec.run.invariants; default: the scenario's)\n"
    "      --sample-rate P      fraction checked when sampled, 0 < P <= 1 (default: the\n"
    "                           scenario's sampleRate, 0.01)\n"
    "      --release R          release profile 1.34 | 1.35 | 1.36 | 1.37 | 1.38-pre (default:\n"
    "                           the scenario's; 1.38-pre follows Kubernetes master)\n"
    "      --feature GATE=BOOL  feature gate override, repeatable (e.g. DRAAdminAccess=false)\n"
    "      --frag-samples N     fragmentation samples per repetition of a steady workload, one\n"
    "                           every count / N arrivals (default 16). Each reads every device\n"
    "                           row between two pods (untimed), which on a large cluster leaves\n"
    "                           the caches cold for the next pod of each shape: fewer samples\n"
    "                           for pod-latency work on fleet-50k\n"
    "      --hgrm DIR           also write every histogram as DIR/<shape>_<phase>_<outcome>.hgrm\n"
    "      --cluster PATH       run the scenario's workload against these manifests instead of\n"
    "                           its generated cluster: a real cluster's ResourceSlices,\n"
    "                           DeviceClasses and Nodes (kubectl get resourceslices,\n"
    "                           deviceclasses,nodes -o yaml > dump.yaml); file or directory\n"
    "  -q, --quiet              no progress and no summary table\n"
    "      --progress WHEN      auto | always | never (default: auto: a bar when stderr is a\n"
    "                           terminal and CI is unset, else one line per repetition)\n"
    ;
/* the rest of the help (one literal stays within the 4,095 characters C99 guarantees) */
static const char help_more[] =
    "      --text-pages P       2m: before timing, copy the executable's code and read-only\n"
    "                           data onto 2 MiB transparent huge pages, so every process and\n"
    "                           every copy of the executable places its code alike in the\n"
    "                           caches; 4k: run them from the file's 4 KiB pages (perf names\n"
    "                           functions only then). Falls back to 4k by itself (valgrind,\n"
    "                           sanitizers, THP never); the result file records which\n"
    "                           (run.method.text_pages) (default: 2m)\n"
    "      --data-pages P       2m: before each timed pass (untimed), put the process's large\n"
    "                           anonymous data (heap, malloc's big arrays: the engine, the\n"
    "                           device table) on 2 MiB transparent huge pages (madvise and\n"
    "                           MADV_COLLAPSE), so its random reads miss the TLB less; 4k:\n"
    "                           leave it on 4 KiB pages. Falls back to 4k by itself (valgrind,\n"
    "                           sanitizers, THP never, no huge page); the result file records\n"
    "                           which and how much (run.method.data_pages) (default: 2m)\n"
    "      --release-look-ahead W\n"
    "                           where each release starts the loads of the next departures'\n"
    "                           lines: timed (inside the release's timed region, before\n"
    "                           its own work: the release pays for it), untimed (just\n"
    "                           before its clock starts: what it costs, by difference\n"
    "                           with timed), off (never: what it saves) or alone (timed\n"
    "                           by itself: each release's latency is its look-ahead's, the\n"
    "                           release runs after the clock stops: what it costs, with\n"
    "                           the clock's pair as every latency). A choice of measurement,\n"
    "                           recorded in run.method.release_look_ahead; compare sets no\n"
    "                           timings of different choices against each other; decisions\n"
    "                           and the digest do not change (default: timed)\n"
    "  -v, --verbose            say on stderr what --text-pages and --data-pages got\n"
    "  -h, --help               show this help\n"
    "\n"
    "Test hooks (environment): DRA_TEST_INJECT_FAULT=N corrupts the N-th allocation of each\n"
    "repetition; DRA_TEST_DELAY_NS=N adds N ns of busy waiting per claim (recorded in the file);\n"
    "DRA_TEST_SLOWDOWN_PCT=P (0 < P <= 100) makes every timed region P% slower: each spins on\n"
    "the clock for P% of its own time, paid as a debt per shape and region kind (recorded);\n"
    "DRA_DATA_PAGES_PREPARE=1: --data-pages 2m also sets malloc up at start to fault its heap in\n"
    "on 2 MiB pages (no collapse copy before the passes, but another malloc layout).\n"
    "DRA_DATA_PAGES_HOOK=1: --data-pages 2m also serves the core's big tables (blocks of 1 MiB\n"
    "and more) from a region advised for 2 MiB pages before their first touch (less copying,\n"
    "measured slower on gpu-sharing: not the default). DRA_DATA_PAGES_DENSE=N: collapse only the\n"
    "2 MiB blocks with at least N of their 512 pages resident (default 1).\n"
    "\n"
    "Examples:\n"
    "  drabench run\n"
    "  drabench run sched-perf-500 --repeat 5 -o results/runs/sp500.json\n"
    "  drabench run fleet-5k --policy best-fit --invariants sampled --sample-rate 0.01\n"
    "  drabench run my-scenario.yaml -o - | jq .repetitions[0].values\n"
    "  drabench run --cluster dump.yaml my-workload.yaml\n"
    "\n"
    "Exit status: 0 ok, 2 usage error or invalid scenario, 3 an invariant was violated,\n"
    "4 environment error (I/O, memory; an unwritable -o fails before the run), 130 or 143\n"
    "interrupted by SIGINT or SIGTERM (the run stops at a pod boundary and the result file is\n"
    "still written, marked \"interrupted\"; a second signal kills at once).\n";

static volatile sig_atomic_t g_stop;

/* SIGINT (Ctrl-C) and SIGTERM (what CI runners and timeout(1) send) stop the run at the next
 * pod boundary; the result file is still written, marked "interrupted". g_stop keeps the
 * signal number for the exit status (128 + signal). A second signal kills at once. */
static void on_stop_signal(int sig)
{
    g_stop = sig;
    signal(sig, SIG_DFL);
}

typedef struct prog_ctx {
    dra_progress_t p;
    const char *scenario;
} prog_ctx_t;

static void fmt_ns(double ns, char *buf, size_t len)
{
    if (ns < 1e3)
        snprintf(buf, len, "%.0f ns", ns);
    else if (ns < 1e6)
        snprintf(buf, len, "%.2f us", ns / 1e3);
    else if (ns < 1e9)
        snprintf(buf, len, "%.2f ms", ns / 1e6);
    else
        snprintf(buf, len, "%.2f s", ns / 1e9);
}

static int64_t progress_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void on_progress(void *vctx, bool warmup, uint32_t rep, uint32_t nreps, uint64_t done,
                        uint64_t total, bool rep_done, const dra_run_t *run)
{
    prog_ctx_t *pc = vctx;
    char label[96];
    if (!rep_done) {
        /* ETA over the whole run: the measured work done so far (warm-ups not counted) */
        double frac = nreps && total ? ((double)rep + (warmup ? 0.0 : (double)done / (double)total)) /
                                           (double)nreps
                                     : 0;
        double el = (double)(progress_now_ns() - pc->p.start_ns) / 1e9;
        dra_progress_set_eta(&pc->p, frac > 0 ? el * (1 - frac) / frac : -1);
        if (warmup)
            snprintf(label, sizeof label, "%s warm-up", pc->scenario);
        else
            snprintf(label, sizeof label, "%s rep %u/%u", pc->scenario, rep + 1, nreps);
        dra_progress_update(&pc->p, label, done, total, false);
        return;
    }
    const json_t *reps = json_object_get((const json_t *)run->json, "repetitions");
    const json_t *r = json_array_get(reps, json_array_size(reps) - 1);
    const json_t *v = json_object_get(r, "values");
    char p50[32], p99[32], line[256];
    /* placed pods' latency; of the rejected ones when nothing was placed */
    bool placed = json_is_number(json_object_get(v, "latency.pod.p50"));
    fmt_ns(json_number_value(json_object_get(v, placed ? "latency.pod.p50" : "rejection.pod.p50")),
           p50, sizeof p50);
    fmt_ns(json_number_value(json_object_get(v, placed ? "latency.pod.p99" : "rejection.pod.p99")),
           p99, sizeof p99);
    snprintf(line, sizeof line, "%s rep %u/%u: %lld pods, %sp50 %s, p99 %s, %.2fs wall",
             pc->scenario, rep + 1, nreps,
             (long long)json_integer_value(json_object_get(r, "pods")), placed ? "" : "rejected ",
             p50, p99, (double)json_integer_value(json_object_get(r, "wall_ns")) / 1e9);
    dra_progress_line(&pc->p, line);
}

static int write_hgrm(const dra_run_t *run, const char *dir)
{
    if (dra_io_mkdir_p(dir, 0777) != 0) {
        dra_cli_errorf("cannot create %s: %s", dir, strerror(errno));
        return DRA_EIO;
    }
    for (uint32_t i = 0; i < run->nhists; i++) {
        const dra_hist_t *h = &run->hists[i];
        if (!h->counts || !dra_hist_count(h))
            continue;
        char name[1024], path[4096];
        if (!dra_hist_hgrm_file_name(run->hist_names[i], name, sizeof name) ||
            snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) {
            dra_cli_errorf("--hgrm: no file name for histogram %s in %s", run->hist_names[i], dir);
            return DRA_ELIMIT;
        }
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f)
            return DRA_ENOMEM;
        int rc = dra_hist_write_hgrm(h, f, 1000.0, 5);
        fclose(f);
        dra_diag_t d;
        dra_diag_clear(&d);
        if (rc == DRA_OK)
            rc = dra_io_write_file_atomic(path, buf, len, &d);
        free(buf);
        if (rc != DRA_OK) {
            dra_cli_errorf("%s: %s", path, d.msg[0] ? d.msg : dra_strerror(rc));
            return rc;
        }
    }
    return DRA_OK;
}

/* Relative spread of the repetitions' throughput above which the summary warns (as hyperfine
 * does about outliers): the samples disagree by more than run-to-run noise on a quiet host. */
#define SPREAD_WARN 0.10

static void print_spread_warning(FILE *f, const dra_run_t *run)
{
    double med = run->claims_per_s_median, lo = run->claims_per_s_min, hi = run->claims_per_s_max;
    if (!(med > 0)) { /* nothing allocated: the rejections' rate */
        med = run->rejections_per_s_median;
        lo = run->rejections_per_s_min;
        hi = run->rejections_per_s_max;
    }
    if (run->reps_done < 2 || !(med > 0))
        return;
    double spread = (hi - lo) / med;
    if (spread > SPREAD_WARN)
        fprintf(f, "warning     repetitions differ by %.0f%% of the median throughput (more than "
                   "%.0f%%): the machine may be busy or the workload too short; close other "
                   "programs, raise --count or --repeat\n",
                100 * spread, 100 * SPREAD_WARN);
}

/* A message that may quote scenario input, with control characters shown as \xNN so it cannot
 * drive the terminal. */
/* Reasons of every outcome other than allocated, from the first repetition (all repetitions
 * make the same decisions). */
static void print_reasons(FILE *f, const dra_run_t *run)
{
    const json_t *reps = json_object_get((const json_t *)run->json, "repetitions");
    const json_t *rs = json_object_get(json_array_get(reps, 0), "outcome_reasons");
    size_t i;
    const json_t *r;
    json_array_foreach(rs, i, r)
    {
        fprintf(f, "  %lld %s (", (long long)json_integer_value(json_object_get(r, "count")),
                json_string_value(json_object_get(r, "outcome")));
        dra_esc_term(f, json_string_value(json_object_get(r, "shape")));
        fputs(", per repetition): ", f);
        /* the allocator's message names objects of the inputs: the terminal layer of escape.h */
        dra_esc_term(f, json_string_value(json_object_get(r, "reason")));
        fputc('\n', f);
    }
}

static void print_table(FILE *f, const dra_run_t *run, const char *written)
{
    const json_t *doc = run->json;
    const json_t *r = json_object_get(doc, "run");
    const json_t *cl = json_object_get(doc, "cluster");
    const json_t *inv = json_object_get(doc, "invariants");
    const char *rel = json_string_value(json_object_get(r, "release"));
    dra_release_t rv;
    if (rel && dra_alloc_release_parse(rel, &rv, NULL) == DRA_OK)
        rel = dra_alloc_release_label(rv); /* 1.38-pre says what it follows */
    fprintf(f, "scenario    %s (seed %s, %s, release %s, %s allocator%s)\n", run->scenario,
            json_string_value(json_object_get(r, "seed")),
            json_string_value(json_object_get(r, "policy")), rel,
            json_string_value(json_object_get(r, "allocator")),
            run->interrupted ? ", INTERRUPTED" : "");
    char bt[32], tb[32];
    fmt_ns((double)json_integer_value(json_object_get(cl, "build_ns")), bt, sizeof bt);
    fmt_ns((double)json_integer_value(json_object_get(cl, "table_build_ns")), tb, sizeof tb);
    fprintf(f, "cluster     %llu nodes, %llu devices, built in %s; device table %.1f KiB "
               "(%.1f B/device, built in %s)\n",
            (unsigned long long)run->nodes, (unsigned long long)run->devices, bt,
            (double)run->table_bytes / 1024.0, run->bytes_per_device, tb);
    if (run->devices && (run->engine_bytes || run->layout_bytes)) {
        double nd = (double)run->devices, eb = (double)run->engine_bytes / nd,
               lb = (double)run->layout_bytes / nd, ab = (double)run->alloc_bytes / nd;
        fprintf(f, "memory      engine %.1f B/device, allocator node layouts %.1f B/device, "
                   "allocator model indexes %.1f B/device (heap growth while building them); "
                   "with the device table %.1f B/device\n",
                eb, lb, ab, run->bytes_per_device + eb + lb + ab);
    }
    fprintf(f, "run         %u repetition(s), %llu pods, %llu claims, %.3f s wall", run->reps_done,
            (unsigned long long)run->pods, (unsigned long long)run->claims,
            (double)run->wall_ns / 1e9);
    if (run->check_ns)
        fprintf(f, " + %.3f s of invariant checks (an untimed second pass)",
                (double)run->check_ns / 1e9);
    fputc('\n', f);
    if (run->reps_preempted)
        fprintf(f, "preempted   %u of %u repetition(s) lost the CPU during the measured loop, "
                   "%llu time(s) in all: their timings may include other programs' time\n",
                run->reps_preempted, run->reps_done, (unsigned long long)run->preemptions);
    const json_t *meth = json_object_get(r, "method");
    const json_t *ov = json_object_get(meth, "timer_overhead_ns");
    if (json_is_integer(ov)) {
        fprintf(f, "timer       CLOCK_MONOTONIC, resolution %lld ns",
                (long long)json_integer_value(json_object_get(meth, "timer_resolution_ns")));
        /* the step measured (clockstep.h): what clock_getres does not say */
        const json_t *st = json_object_get(meth, "timer_step_ns");
        if (json_is_integer(st) && json_integer_value(st) > 1)
            fprintf(f, ", advancing in steps of %lld ns (every latency a multiple of it, +-1)",
                    (long long)json_integer_value(st));
        fprintf(f, "; a pair of readings costs %lld ns (median; part of every latency below)\n",
                (long long)json_integer_value(ov));
    }
    const json_t *look = json_object_get(meth, "release_look_ahead");
    if (json_is_string(look) && strcmp(json_string_value(look), "timed") != 0) {
        fputs("look-ahead  ", f); /* from the result file: the terminal layer of escape.h */
        dra_esc_term(f, json_string_value(look));
        const char *l = json_string_value(look);
        fputs(strcmp(l, "off") == 0
                  ? " (--release-look-ahead: no release looked ahead; timings not comparable "
                    "with a default run's)\n"
              : strcmp(l, "alone") == 0
                  ? " (--release-look-ahead: each release's latency is its look-ahead's alone, "
                    "the release ran after its clock; timings not comparable with a default "
                    "run's)\n"
                  : " (--release-look-ahead: each release's look-ahead ran before its clock; "
                    "timings not comparable with a default run's)\n",
              f);
    }
    const json_t *tpg = json_object_get(meth, "text_pages"), *dpg = json_object_get(meth, "data_pages");
    if (json_is_string(tpg) || json_is_string(dpg)) {
        fprintf(f, "pages       ");
        if (json_is_string(tpg))
            fprintf(f, "code %s%s", json_string_value(tpg), json_is_string(dpg) ? "; " : "");
        if (json_is_string(dpg)) {
            double hb = (double)json_integer_value(json_object_get(meth, "data_pages_bytes")),
                   rb = (double)json_integer_value(json_object_get(meth, "data_pages_resident"));
            fprintf(f, "data %s (%.0f of %.0f MiB resident on 2 MiB pages at the first timed "
                       "pass; %.0f ms untimed)",
                    json_string_value(dpg), hb / 1048576.0, rb / 1048576.0,
                    (double)json_integer_value(json_object_get(meth, "data_pages_ns")) / 1e6);
            const char *why = json_string_value(json_object_get(meth, "data_pages_reason"));
            if (why) { /* from the result file: the terminal layer of escape.h */
                fputs(": ", f);
                dra_esc_term(f, why);
            }
        }
        fputc('\n', f);
    }
    /* pod latency by outcome: placed pods (node search + commit) and rejected ones (the node
     * search that found no node) apart, so more claims fitting does not read as slower */
    int nw = 24; /* the shape column: the longest name */
    for (uint32_t s = 0; run->shapes && s <= run->nshapes; s++)
        nw = (int)strlen(run->shapes[s].name) > nw ? (int)strlen(run->shapes[s].name) : nw;
    fprintf(f, "\n%*s %8s %9s %8s   %-32s   %s\n", -nw, "", "", "", "", "placed pods: latency",
            "rejected: latency");
    fprintf(f, "%*s %8s %9s %8s   %10s %10s %10s   %10s %10s\n", -nw, "shape", "pods", "allocated",
            "rejected", "p50", "p99", "p99.9", "p50", "p99");
    for (uint32_t s = 0; run->shapes && s <= run->nshapes; s++) {
        const dra_run_shape_summary_t *x = &run->shapes[s];
        if (!x->pods && s < run->nshapes)
            continue;
        char a[32] = "-", b[32] = "-", c[32] = "-", d[32] = "-", e[32] = "-";
        if (x->allocated) {
            fmt_ns((double)x->p50, a, sizeof a);
            fmt_ns((double)x->p99, b, sizeof b);
            fmt_ns((double)x->p999, c, sizeof c);
        }
        if (x->unsatisfiable) {
            fmt_ns((double)x->rej_p50, d, sizeof d);
            fmt_ns((double)x->rej_p99, e, sizeof e);
        }
        fputs(x->name, f);
        fprintf(f, "%*s %8llu %9llu %8llu   %10s %10s %10s   %10s %10s\n",
                nw - (int)strlen(x->name), "", (unsigned long long)x->pods,
                (unsigned long long)x->allocated, (unsigned long long)x->unsatisfiable, a, b, c, d,
                e);
    }
    if (run->claims_allocated)
        fprintf(f,
                "\nthroughput  median of repetitions %.0f allocated claims/s (min %.0f, max %.0f; "
                "what compare uses), %.0f placed pods/s\n"
                "            pooled %.0f claims/s, %.0f pods/s (allocated claims, placed pods / "
                "the time spent on them: node search, commit, release%s)\n",
                run->claims_per_s_median, run->claims_per_s_min, run->claims_per_s_max,
                run->pods_per_s_median, run->claims_per_s, run->pods_per_s,
                run->groups_summary ? "; PodGroups' placing cycles and releases included" : "");
    else
        fputs("\nthroughput  no claim was allocated (every claim was rejected)\n", f);
    if (run->groups_summary) { /* the group cycles' share, and the single pods' (the rest) */
        uint64_t sc = run->claims_allocated - run->group_claims;
        uint64_t sn = run->allocated_ns - run->group_ns;
        fprintf(f,
                "            of which PodGroups: %llu claims allocated by group cycles (members' "
                "own and group claims), %.0f claims/s of their placing cycles and releases "
                "(median of repetitions %.0f); single pods: %llu claims, %.0f claims/s\n",
                (unsigned long long)run->group_claims, run->group_claims_per_s,
                run->group_claims_per_s_median, (unsigned long long)sc,
                sc && sn ? (double)sc / ((double)sn / 1e9) : 0.0);
    }
    if (run->claims_rejected) {
        char a[32], b[32];
        fmt_ns((double)run->rej_p50, a, sizeof a);
        fmt_ns((double)run->rej_p99, b, sizeof b);
        fprintf(f,
                "rejections  median of repetitions %.0f rejected claims/s (min %.0f, max %.0f), "
                "pooled %.0f/s; rejected pod latency p50 %s, p99 %s\n",
                run->rejections_per_s_median, run->rejections_per_s_min, run->rejections_per_s_max,
                run->rejections_per_s, a, b);
        if (run->group_rejected_claims)
            fprintf(f, "            of which PodGroups: %llu claims of group cycles that placed "
                       "nothing, in %.3f ms\n",
                    (unsigned long long)run->group_rejected_claims,
                    (double)run->group_rejected_ns / 1e6);
    }
    print_spread_warning(f, run);
    fprintf(f, "outcomes    %llu allocated, %llu unsatisfiable, %llu node failure, %llu fatal\n",
            (unsigned long long)run->allocated, (unsigned long long)run->unsatisfiable,
            (unsigned long long)run->node_failure, (unsigned long long)run->fatal);
    print_reasons(f, run);
    const json_t *warns = json_object_get(doc, "warnings");
    size_t wi;
    const json_t *wv;
    json_array_foreach(warns, wi, wv)
    {
        fputs("warning     ", f);
        dra_esc_term(f, json_string_value(wv));
        fputc('\n', f);
    }
    fprintf(f, "placement   %llu by the node index, %llu rejected by summaries, %llu brute force\n",
            (unsigned long long)run->paths[0], (unsigned long long)run->paths[1],
            (unsigned long long)run->paths[2]);
    fprintf(f, "served     ");
    const char *sep = " ";
    for (int i = 1; i < DRA_SERVED_COUNT; i++)
        if (run->served[i]) {
            fprintf(f, "%s%s %llu", sep, dra_engine_served_name((dra_engine_served_t)i),
                    (unsigned long long)run->served[i]);
            sep = ", ";
        }
    fprintf(f, "%s\n", sep[0] == ' ' ? " nothing placed" : " (what decided on the chosen node)");
    if (run->both_pods)
        fprintf(f, "both        %llu decisions compared with the reference placement (the first "
                   "arrivals, warm-up included; a difference is an invariant violation); "
                   "reference %.3f s, fast %.3f s: %.0fx\n",
                (unsigned long long)run->both_pods, (double)run->both_ref_ns / 1e9,
                (double)run->both_engine_ns / 1e9,
                run->both_engine_ns ? (double)run->both_ref_ns / (double)run->both_engine_ns : 0);
    if (run->both_groups)
        fprintf(f, "both        %llu group cycles compared with the literal reference cycle; "
                   "reference %.3f s, fast %.3f s: %.0fx\n",
                (unsigned long long)run->both_groups, (double)run->both_group_ref_ns / 1e9,
                (double)run->both_group_fast_ns / 1e9,
                run->both_group_fast_ns
                    ? (double)run->both_group_ref_ns / (double)run->both_group_fast_ns
                    : 0);
    if (run->update_hist != UINT32_MAX && run->update_hist < run->nhists) {
        const dra_hist_t *h = &run->hists[run->update_hist];
        char a[32], b[32], e[32];
        fmt_ns((double)dra_hist_percentile(h, 50), a, sizeof a);
        fmt_ns((double)dra_hist_percentile(h, 99), b, sizeof b);
        fmt_ns((double)run->engine_build_ns, e, sizeof e);
        fprintf(f, "updates     %llu slice republications (device health events): p50 %s, p99 %s "
                   "(slice-update/update/any); the engine built from scratch in %s\n",
                (unsigned long long)run->slice_updates, a, b, e);
    }
    if (run->groups_summary) { /* PodGroups: "groups ..." and "domains ..." lines */
        const char *p = run->groups_summary;
        while (*p) {
            const char *nl = strchr(p, '\n');
            size_t n = nl ? (size_t)(nl - p) : strlen(p);
            fprintf(f, "%-11s %.*s\n", strncmp(p, "groups", 6) == 0 ? "groups" : "domains",
                    (int)(n > 7 ? n - 7 : 0), p + 7);
            p += nl ? n + 1 : n;
        }
    }
    const json_t *reps = json_object_get(doc, "repetitions");
    const json_t *fr = json_object_get(json_array_get(reps, 0), "fragmentation");
    if (fr)
        fprintf(f, "fragment.   %.1f idle GPUs unusable, %.3f stranded MIG, %.1f partial NVLink "
                   "domains (repetition 1)\n",
                json_number_value(json_object_get(fr, "idle_gpus_unusable")),
                json_number_value(json_object_get(fr, "stranded_mig_fraction")),
                json_number_value(json_object_get(fr, "partial_nvlink_domains")));
    const json_t *rate = json_object_get(r, "invariant_sample_rate");
    char rs[48] = "";
    if (json_is_number(rate))
        snprintf(rs, sizeof rs, " (rate %g)", json_number_value(rate));
    fprintf(f, "invariants  %s%s: %llu checked, %llu violation(s)\n",
            json_string_value(json_object_get(inv, "mode")), rs,
            (unsigned long long)run->inv_checked, (unsigned long long)run->inv_violations);
    for (uint32_t i = 0; i < run->nfirst; i++)
        fprintf(f, "  - rep %u pod %lld claim %s node %s: %s\n", run->first[i].repetition,
                run->first[i].pod == UINT64_MAX ? -1LL : (long long)run->first[i].pod,
                run->first[i].claim, run->first[i].node, run->first[i].message);
    char hex[17];
    fprintf(f, "digest      %s (%s)\n", dra_result_hex64(run->digest, hex),
            run->reps_done > 1 ? (run->digests_equal ? "equal across repetitions"
                                                     : "DIFFERS between repetitions")
                               : "one repetition");
    if (written)
        dra_cli_notef(f, "written     %s", written);
}

/* A scenario name as a file name: its last path component without .yaml/.yml, characters
 * other than [A-Za-z0-9._-] replaced by '_', never empty, never starting with '.'. */
/* The default result file: results/runs/<scenario>-<UTC time to the millisecond>.json, the
 * scenario reduced to a safe file name. The name is reserved by creating the file exclusively
 * (O_EXCL); when it exists, -2, -3, ... are added, so two runs never overwrite each other. The
 * caller writes over the reserved (empty) file atomically, or removes it when the run fails. */
static const char *default_output(const char *scenario, char *buf, size_t len)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    struct tm tm;
    char ts[48] = "run";
    if (gmtime_r(&now.tv_sec, &tm)) {
        char sec[32];
        strftime(sec, sizeof sec, "%Y-%m-%dT%H-%M-%S", &tm);
        snprintf(ts, sizeof ts, "%s.%03ldZ", sec, now.tv_nsec / 1000000);
    }
    char name[65]; /* at most 64 characters of the scenario */
    dra_export_scenario_name(scenario ? scenario : "default", name, sizeof name);
    if (dra_io_mkdir_p("results/runs", 0777) != 0)
        return NULL;
    for (int i = 1; i < 1000; i++) {
        if (i == 1)
            snprintf(buf, len, "results/runs/%s-%s.json", name, ts);
        else
            snprintf(buf, len, "results/runs/%s-%s-%d.json", name, ts, i);
        int fd = open(buf, O_WRONLY | O_CREAT | O_EXCL, 0644);
        if (fd >= 0) {
            close(fd);
            return buf;
        }
        if (errno != EEXIST)
            return NULL;
    }
    errno = EEXIST;
    return NULL;
}

/* The options of one `drabench run`. */
typedef struct run_args {
    dra_runner_opts_t ro;
    const char *output, *hgrm;
    bool quiet, help, verbose;
    bool text_huge; /* --text-pages 2m (the default) */
    bool data_huge; /* --data-pages 2m (the default) */
    dra_progress_when_t when;
    const char **features; /* malloc'd, freed by the caller (also on errors) */
} run_args_t;

/* --text-pages / --data-pages: 2m (true) or 4k (false), either case; false return on anything
 * else. */
static bool parse_page_size(const char *v, bool *huge)
{
    if (strcmp(v, "2m") == 0 || strcmp(v, "2M") == 0)
        *huge = true;
    else if (strcmp(v, "4k") == 0 || strcmp(v, "4K") == 0)
        *huge = false;
    else
        return false;
    return true;
}

/* Parse argv into a (and the environment's overrides): DRA_EXIT_OK (a->help: help printed), or
 * the usage error's status after printing it. */
static int parse_run_args(int argc, char **argv, run_args_t *a)
{
    enum { O_ALLOC = 256, O_POLICY, O_INV, O_RELEASE, O_FEATURE, O_HGRM, O_PROGRESS, O_CLUSTER, O_BOTHP,
           O_RATE, O_BOTHG, O_FRAGS, O_TEXTP, O_DATAP, O_LOOK };
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'},   {"repeat", required_argument, NULL, 'r'},
        {"warmup", required_argument, NULL, 'w'},   {"seed", required_argument, NULL, 's'},
        {"count", required_argument, NULL, 'n'},
        {"allocator", required_argument, NULL, O_ALLOC},
        {"policy", required_argument, NULL, O_POLICY},
        {"invariants", required_argument, NULL, O_INV},
        {"sample-rate", required_argument, NULL, O_RATE},
        {"release", required_argument, NULL, O_RELEASE},
        {"feature", required_argument, NULL, O_FEATURE},
        {"hgrm", required_argument, NULL, O_HGRM},
        {"cluster", required_argument, NULL, O_CLUSTER},
        {"both-prefix", required_argument, NULL, O_BOTHP},
        {"both-groups", required_argument, NULL, O_BOTHG},
        {"frag-samples", required_argument, NULL, O_FRAGS},
        {"text-pages", required_argument, NULL, O_TEXTP},
        {"data-pages", required_argument, NULL, O_DATAP},
        {"release-look-ahead", required_argument, NULL, O_LOOK},
        {"verbose", no_argument, NULL, 'v'},
        {"quiet", no_argument, NULL, 'q'},          {"progress", required_argument, NULL, O_PROGRESS},
        {"help", no_argument, NULL, 'h'},           {NULL, 0, NULL, 0}};
    dra_runner_opts_t ro;
    dra_runner_opts_init(&ro);
    const char *output = NULL, *hgrm = NULL;
    bool quiet = false;
    dra_progress_when_t when = DRA_PROGRESS_AUTO;
    const char **features = calloc((size_t)argc + 1, sizeof *features);
    a->features = features;
    if (!features)
        return DRA_EXIT_ENV;
    uint32_t nfeatures = 0;
    unsigned long long u;
    int c, status = DRA_EXIT_OK;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:r:w:s:n:qvh", opts, NULL)) != -1) {
        switch (c) {
        case 'o':
            output = optarg;
            break;
        case 'r':
            if (!dra_io_parse_u64_in(optarg, 1, 1000000, &u)) {
                status = dra_cli_usage_error("run", "--repeat: expected a count 1..1000000, got '%s'", optarg);
                goto out;
            }
            ro.has_repeat = true;
            ro.repeat = (uint32_t)u;
            break;
        case 'w':
            if (!dra_io_parse_u64_in(optarg, 0, DRA_SCENARIO_COUNT_MAX, &u)) {
                status = dra_cli_usage_error("run", "--warmup: expected a count 0..%llu, got '%s'",
                                             (unsigned long long)DRA_SCENARIO_COUNT_MAX, optarg);
                goto out;
            }
            ro.has_warmup = true;
            ro.warmup = u;
            break;
        case 's':
            if (!dra_io_parse_u64(optarg, &u)) {
                status = dra_cli_usage_error("run", "--seed: expected a decimal number 0..2^64-1, got '%s'",
                                             optarg);
                goto out;
            }
            ro.has_seed = true;
            ro.seed = u;
            break;
        case 'n':
            if (!dra_io_parse_u64_in(optarg, 1, DRA_SCENARIO_COUNT_MAX, &u)) {
                status = dra_cli_usage_error("run", "--count: expected a count 1..%llu, got '%s'",
                                             (unsigned long long)DRA_SCENARIO_COUNT_MAX, optarg);
                goto out;
            }
            ro.has_count = true;
            ro.count = u;
            break;
        case O_ALLOC:
            if (strcmp(optarg, "reference") != 0 && strcmp(optarg, "fast") != 0 &&
                strcmp(optarg, "both") != 0) {
                status = dra_cli_usage_error("run", "--allocator: fast, reference or both, got '%s'",
                                             optarg);
                goto out;
            }
            ro.allocator = optarg;
            break;
        case O_FRAGS:
            if (!dra_io_parse_u64_in(optarg, 1, 1000000, &u)) {
                status = dra_cli_usage_error("run", "--frag-samples: expected a count 1..1000000, got '%s'",
                                             optarg);
                goto out;
            }
            ro.frag_samples = (uint32_t)u;
            break;
        case O_BOTHP:
            if (!dra_io_parse_u64_in(optarg, 1, DRA_SCENARIO_COUNT_MAX, &u)) {
                status = dra_cli_usage_error("run", "--both-prefix: expected a count 1..%llu, got '%s'",
                                             (unsigned long long)DRA_SCENARIO_COUNT_MAX, optarg);
                goto out;
            }
            ro.both_prefix = u;
            break;
        case O_BOTHG:
            if (!dra_io_parse_u64(optarg, &u) || u == 0) {
                status = dra_cli_usage_error("run", "--both-groups: expected a count >= 1, got '%s'",
                                             optarg);
                goto out;
            }
            ro.both_groups = u;
            break;
        case O_POLICY:
            if (!dra_runner_parse_policy(optarg, &ro.policy)) {
                status = dra_cli_usage_error(
                    "run", "--policy: expected first-fit, best-fit, spread or random, got '%s'", optarg);
                goto out;
            }
            ro.has_policy = true;
            break;
        case O_INV: {
            bool old_name = false, has_p = false;
            if (!dra_runner_parse_inv(optarg, &ro.inv, &ro.inv_p, &has_p, &old_name)) {
                status = dra_cli_usage_error(
                    "run", "--invariants: expected all, sampled or off (the names of a scenario's "
                           "spec.run.invariants; the rate: --sample-rate), got '%s'", optarg);
                goto out;
            }
            if (old_name)
                fprintf(stderr, "drabench run: --invariants %s is spelled --invariants %s%s now "
                                "(the names of spec.run.invariants); the old spelling still works\n",
                        optarg, dra_inv_mode_name(ro.inv), has_p ? " --sample-rate P" : "");
            ro.has_inv_p |= has_p;
            ro.has_inv = true;
            break;
        }
        case O_RATE:
            if (!dra_runner_parse_rate(optarg, &ro.inv_p)) {
                status = dra_cli_usage_error("run", "--sample-rate: expected a fraction in (0, 1], "
                                                    "got '%s'", optarg);
                goto out;
            }
            ro.has_inv_p = true;
            break;
        case O_RELEASE: {
            dra_release_t rel;
            dra_diag_t d;
            dra_diag_clear(&d);
            if (dra_alloc_release_parse(optarg, &rel, &d) != DRA_OK) {
                status = dra_cli_usage_error("run", "--release: %s", d.msg[0] ? d.msg : optarg);
                goto out;
            }
            ro.release = optarg;
            break;
        }
        case O_FEATURE: {
            /* the syntax and a gate some release has; the run checks it against the release it
             * runs (the scenario's or --release, which may come later) */
            dra_alloc_features_t f;
            dra_diag_t d;
            dra_diag_clear(&d);
            int frc = DRA_EINVAL;
            for (size_t r = DRA_RELEASE_COUNT; r-- > 0 && frc != DRA_OK;) {
                dra_alloc_features_init(&f, dra_alloc_releases[r]);
                dra_diag_t rd;
                dra_diag_clear(&rd);
                frc = dra_alloc_features_set(&f, optarg, &rd);
                if (frc != DRA_OK && dra_alloc_releases[r] == DRA_RELEASE_DEFAULT)
                    d = rd;
            }
            if (frc != DRA_OK) {
                status = dra_cli_usage_error("run", "--feature: %s", d.msg[0] ? d.msg : optarg);
                goto out;
            }
            features[nfeatures++] = optarg;
            break;
        }
        case O_HGRM:
            hgrm = optarg;
            break;
        case O_CLUSTER:
            ro.cluster = optarg;
            break;
        case 'q':
            quiet = true;
            break;
        case 'v':
            a->verbose = true;
            break;
        case O_TEXTP:
        case O_DATAP: {
            const char *name = c == O_TEXTP ? "--text-pages" : "--data-pages";
            bool *huge = c == O_TEXTP ? &a->text_huge : &a->data_huge;
            if (!parse_page_size(optarg, huge)) {
                status = dra_cli_usage_error("run", "%s: expected 2m or 4k, got '%s'", name, optarg);
                goto out;
            }
            break;
        }
        case O_LOOK:
            if (!dra_look_ahead_parse(optarg, &ro.look_ahead)) {
                status = dra_cli_usage_error(
                    "run", "--release-look-ahead: expected timed, untimed, off or alone, got '%s'", optarg);
                goto out;
            }
            break;
        case O_PROGRESS:
            if (!dra_progress_parse_when(optarg, &when)) {
                status = dra_cli_usage_error("run", "--progress: expected auto, always or never, got '%s'",
                                             optarg);
                goto out;
            }
            break;
        case 'h':
            fputs(help, stdout);
            fputs(help_more, stdout);
            a->help = true;
            goto out;
        default:
            status = dra_cli_usage_error("run", "unknown or incomplete option '%s'", argv[optind - 1]);
            goto out;
        }
    }
    if (argc - optind > 1) {
        status = dra_cli_usage_error("run", "expected at most one scenario, got %d", argc - optind);
        goto out;
    }
    ro.scenario = optind < argc ? argv[optind] : "default";
    ro.features = features;
    ro.nfeatures = nfeatures;
    ro.argc = argc;
    ro.argv = argv;
    {
        dra_diag_t d;
        dra_diag_clear(&d);
        if (dra_runner_opts_from_env(&ro, &d) != DRA_OK) {
            status = dra_cli_usage_error("run", "%s", d.msg);
            goto out;
        }
    }
out:
    a->ro = ro;
    a->output = output;
    a->hgrm = hgrm;
    a->quiet = quiet;
    a->when = when;
    return status;
}

/* Run the benchmark with SIGINT/SIGTERM stopping it between pods, then write the result file
 * (and --hgrm files) and print the table: the command's exit status. */
static int run_and_write(run_args_t *a)
{
    dra_runner_opts_t ro = a->ro;
    const char *output = a->output, *hgrm = a->hgrm;
    bool quiet = a->quiet;
    dra_progress_when_t when = a->when;
    int status = DRA_EXIT_OK;
    char outbuf[512];
    bool reserved = false;
    if (!output && dra_io_mkdir_p("results/runs", 0777) != 0) {
        dra_cli_errorf("run: cannot create results/runs: %s", strerror(errno));
        status = DRA_EXIT_ENV;
        goto out;
    }
    bool json_stdout = output && strcmp(output, "-") == 0;
    FILE *table = json_stdout ? stderr : stdout;

    prog_ctx_t pc;
    dra_progress_init(&pc.p, dra_progress_mode(when, quiet), stderr);
    pc.scenario = ro.scenario;
    ro.progress = on_progress;
    ro.progress_ctx = &pc;

    /* the output must be writable before the run starts, not only after it (the default name is
     * reserved in results/runs, created above, once the run has named its scenario) */
    {
        dra_diag_t od;
        dra_diag_clear(&od);
        if (output && dra_io_check_output(output, &od) != DRA_OK) {
            char buf[DRA_DIAG_MSG_MAX + 256];
            dra_cli_errorf("run: %s", dra_diag_format(&od, buf, sizeof buf));
            dra_progress_finish(&pc.p);
            status = DRA_EXIT_ENV;
            goto out;
        }
    }

    /* a busy host before the run starts: its timings will include other programs' work (the
     * result file records the load too; -q leaves the warning to the caller) */
    int ncpu;
    double load = dra_host_load1(&ncpu);
    if (!quiet && load >= ncpu)
        fprintf(stderr,
                "drabench run: warning: the host is busy before the run starts (load "
                "average %.2f on %d CPUs): its timings include other programs' work; "
                "compare timings with `drabench ab` (interleaved processes) or run on a "
                "quiet machine\n",
                load, ncpu);

    g_stop = 0;
    ro.stop = &g_stop;
    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);

    dra_run_t run;
    dra_diag_t d;
    dra_diag_clear(&d);
    int rc = dra_runner_run(&ro, &run, &d);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    dra_progress_finish(&pc.p);
    if (rc != DRA_OK) {
        char buf[DRA_DIAG_MSG_MAX + 256];
        dra_cli_errorf("run: %s", dra_diag_format(&d, buf, sizeof buf));
        status = (rc == DRA_ENOMEM || rc == DRA_EIO || rc == DRA_EINTERNAL) ? DRA_EXIT_ENV
                                                                            : DRA_EXIT_USAGE;
        goto out;
    }
    dra_diag_clear(&d);
    if (run.ignored_pods || run.ignored_claims)
        fprintf(stderr,
                "drabench run: note: the cluster manifests hold %u Pod(s) or workload(s) "
                "and %u unallocated ResourceClaim(s): run places the scenario's workload "
                "and ignores them (drabench alloc schedules them)\n",
                run.ignored_pods, run.ignored_claims);
    if (!output) {
        /* named after the scenario the run loaded (its metadata name) */
        if (!(output = default_output(run.scenario, outbuf, sizeof outbuf))) {
            dra_cli_errorf("run: cannot create a result file in results/runs: %s", strerror(errno));
            dra_run_fini(&run);
            status = DRA_EXIT_ENV;
            goto out;
        }
        reserved = true;
    }
    if (dra_result_write(run.json, output, &d) != DRA_OK) {
        if (reserved)
            unlink(output);
        dra_cli_errorf("run: %s: %s", output, d.msg);
        status = DRA_EXIT_ENV;
    } else if (hgrm && write_hgrm(&run, hgrm) != DRA_OK) {
        status = DRA_EXIT_ENV;
    }
    if (!quiet)
        print_table(table, &run, json_stdout ? NULL : output);
    if (status == DRA_EXIT_OK) {
        status = dra_run_exit_status(&run);
        if (status == DRA_EXIT_OK && run.interrupted)
            status = 128 + (g_stop > 1 ? (int)g_stop : SIGINT);
    }
    dra_run_fini(&run);
out:
    return status;
}

/* -v: what each timed pass's data got (datapages.h). */
static void note_data_pages(void *ctx, uint32_t rep, const dra_datapages_t *d, int64_t ns)
{
    (void)ctx;
    char hook[128] = "";
    if (d->hook)
        snprintf(hook, sizeof hook, "; allocation hook: %.1f of %.1f MiB resident on 2 MiB pages",
                 (double)d->hook_huge / 1048576.0, (double)d->hook_resident / 1048576.0);
    fprintf(stderr,
            "drabench run: data pages: %s before repetition %u (%.1f of %.1f MiB resident in %u "
            "mappings on 2 MiB pages, %.1f MiB collapsed, %.1f ms%s)%s%s\n",
            dra_datapages_name(d), rep + 1, (double)d->bytes / 1048576.0,
            (double)d->resident / 1048576.0, d->mappings, (double)d->collapsed / 1048576.0,
            (double)ns / 1e6, hook, d->huge ? "" : ": ", d->reason);
}

int dra_cmd_run(int argc, char **argv)
{
    run_args_t a;
    memset(&a, 0, sizeof a);
    a.text_huge = true;
    a.data_huge = true;
    int status = parse_run_args(argc, argv, &a);
    if (status == DRA_EXIT_OK && !a.help) {
        /* before any timed work: the code's placement in the caches, the same in every process
         * (textpages.h) */
        dra_textpages_t tp;
        dra_textpages_apply(a.text_huge, &tp);
        if (a.verbose)
            fprintf(stderr,
                    "drabench run: text pages: %s (%llu bytes on 2 MiB pages, %llu of them "
                    "code)%s%s\n",
                    dra_textpages_name(&tp), (unsigned long long)tp.bytes,
                    (unsigned long long)tp.code_bytes, tp.huge ? "" : ": ", tp.reason);
        a.ro.textpages = &tp;
        a.ro.data_pages = a.data_huge ? DRA_DATA_PAGES_2M : DRA_DATA_PAGES_4K;
        if (a.data_huge && getenv("DRA_DATA_PAGES_HOOK") &&
            strcmp(getenv("DRA_DATA_PAGES_HOOK"), "0") != 0) {
            /* the big tables on 2 MiB pages from their first touch (hugemem.h), before the
             * set-up allocates them. Not the default: DRA_DATA_PAGES_HOOK=1 (a test hook) turns
             * it on. It cuts the collapse's copy on the big fleets (fleet-50k 1.84 -> 0.72 s)
             * but made gpu-sharing's timed work slower in a quiet sitting (throughput 0.922,
             * pod p99 1.169, same binary, hook off against on) */
            char why[DRA_DATAPAGES_REASON_MAX];
            bool ok = dra_hugemem_install(0, why, sizeof why);
            if (a.verbose)
                fprintf(stderr, "drabench run: data pages: allocation hook %s%s\n",
                        ok ? "" : "not installed: ", why);
        }
        if (a.data_huge && getenv("DRA_DATA_PAGES_PREPARE") &&
            strcmp(getenv("DRA_DATA_PAGES_PREPARE"), "0") != 0) {
            /* the heap advised before the set-up fills it (datapages.h: not the default, it
             * changes malloc's layout, measured slower on fleet-50k's median) */
            char why[DRA_DATAPAGES_REASON_MAX];
            bool ok = dra_datapages_prepare(why, sizeof why);
            if (a.verbose)
                fprintf(stderr, "drabench run: data pages: %s%s\n",
                        ok ? "" : "heap not prepared: ", why);
        }
        if (a.verbose)
            a.ro.data_pages_note = note_data_pages;
        status = run_and_write(&a);
        dra_hugemem_stats_t hs;
        dra_hugemem_stats(&hs);
        if (a.verbose && hs.installed)
            fprintf(stderr,
                    "drabench run: allocation hook: %llu blocks served, at most %.1f MiB at once, "
                    "%llu bytes still held at the end\n",
                    (unsigned long long)hs.allocs, (double)hs.peak / 1048576.0,
                    (unsigned long long)hs.live);
    }
    free(a.features);
    return status;
}
