/* cmd_replay.c - `drabench replay --nodes NODES.csv --pods PODS.csv`: GPU trace replay. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "buildinfo.h"
#include "cli.h"
#include "escape.h"
#include "manifest.h"
#include "replay.h"

static const char help[] =
    "drabench replay - replay a GPU cluster trace (Alibaba openb CSVs) through placement policies\n"
    "\n"
    "Usage: drabench replay --nodes NODES.csv --pods PODS.csv [options]\n"
    "\n"
    "Arrival-only, as the FGD simulator (ATC'23) replays the trace: the pods are re-sampled with\n"
    "the seed until the submitted GPU demand reaches TUNE x the cluster's GPU capacity, shuffled,\n"
    "and placed one by one (cpu and memory checked first, as NodeResourcesFit; then the GPU model\n"
    "and free GPU milli). Prints the curve at every 10% of arrived GPU demand: GPU allocation\n"
    "ratio, fragmentation ratio of the idle GPU milli, fragmentation amount as a share of all GPU\n"
    "milli, and the share of the capacity the scheduled pods asked for; then the unscheduled pods\n"
    "by reason. With several seeds: the mean and [min, max] over seeds.\n"
    "\n"
    "Options:\n"
    "      --nodes FILE          node list: sn,cpu_milli,memory_mib,gpu,model\n"
    "      --pods FILE           pod list: "
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli[,gpu_spec,...]\n"
    "  -p, --policy LIST         comma-separated: random, dot-product, gpu-clustering, "
    "gpu-packing,\n"
    "                            best-fit, fgd, first-fit, spread, or 'all' (the first six)\n"
    "                            (default fgd)\n"
    "      --device-choice LIST  policy (the policy picks the GPUs inside the node, as the\n"
    "                            simulator does) | dra (the exact DRA allocator on the chosen "
    "node);\n"
    "                            comma-separated for both (default policy)\n"
    "      --mode LIST           dra (GPU shares share a GPU) | device-plugin (every GPU request\n"
    "                            takes whole GPUs); comma-separated for both (default dra)\n"
    "      --tune X              target GPU demand / capacity, 0.1 <= X <= 3 (default 1.3)\n"
    "      --release R           allocator profile of --device-choice dra: 1.34 ... 1.37 or\n"
    "                            1.38-pre (default 1.37; DRAConsumableCapacity is turned on)\n"
    "  -s, --seeds SPEC          seeds: N, A..B or a comma-separated list (default 42)\n"
    "  -o, --output FMT          text | json (default text)\n"
    "      --result FILE         also write the JSON result there (drabench report reads it)\n"
    "      --emit DIR            write the trace as v1 manifests to DIR/replay.yaml (Nodes with\n"
    "                            allocatable cpu/memory, a DeviceClass, ResourceSlices, one\n"
    "                            ResourceClaim per GPU pod; the first --mode decides the claims)\n"
    "  -h, --help                show this help\n"
    "\n"
    "Every run is a combination of policy x device choice x mode, over every seed; a value\n"
    "named twice in a list (all,fgd; 1..3,2) is run once.\n"
    "\n"
    "Examples:\n"
    "  T=../shared/traces/alibaba-gpu-v2023\n"
    "  drabench replay --nodes $T/openb_node_list_gpu_node.csv --pods "
    "$T/openb_pod_list_default.csv\n"
    "  drabench replay --nodes $T/openb_node_list_gpu_node.csv --pods "
    "$T/openb_pod_list_default.csv \\\n"
    "      --policy all --device-choice policy,dra --seeds 42..51 --result openb.json\n"
    "  drabench report -o openb-report openb.json\n"
    "\n"
    "One replay submits at most 1,000,000 pods after resampling (a trace that needs more is\n"
    "refused, exit 2).\n"
    "\n"
    "Exit status: 0 ok, 2 usage error or invalid input (file:line: reason), 3 internal\n"
    "inconsistency between the node state and the DRA allocator, 4 cannot read or write.\n";

#define MAX_SEEDS 1000

typedef struct opts {
    const char *nodes, *pods, *result, *emit;
    bool json;
    double tune;
    uint64_t seeds[MAX_SEEDS];
    uint32_t nseeds;
    dra_pol_kind_t pol[DRA_POL_COUNT];
    uint32_t npol;
    dra_replay_choice_t choice[2];
    uint32_t nchoice;
    dra_replay_mode_t mode[2];
    uint32_t nmode;
    dra_release_t release;
} opts_t;

static bool is_opt(const char *arg, const char *shrt, const char *lng)
{
    size_t n = strlen(lng);
    return (shrt && strcmp(arg, shrt) == 0) ||
           (strncmp(arg, lng, n) == 0 && (arg[n] == '\0' || arg[n] == '='));
}

/* Split a comma list into tokens; fn handles each; false stops. */
static bool each_token(const char *list, bool (*fn)(const char *tok, opts_t *o), opts_t *o)
{
    char buf[512];
    if (strlen(list) >= sizeof buf || !*list)
        return false;
    strcpy(buf, list);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
        if (!fn(tok, o))
            return false;
    return true;
}

/* The lists (policies, device choices, modes, seeds) hold each value once, in the order first
 * named: "all,all" or "all,fgd" would run the same replays again and weigh a seed twice in the
 * means. */
static bool add_pol1(dra_pol_kind_t k, opts_t *o)
{
    for (uint32_t i = 0; i < o->npol; i++)
        if (o->pol[i] == k)
            return true;
    if (o->npol == DRA_POL_COUNT)
        return false;
    o->pol[o->npol++] = k;
    return true;
}

static bool add_pol(const char *tok, opts_t *o)
{
    if (strcmp(tok, "all") == 0) {
        static const dra_pol_kind_t six[] = {DRA_POL_RANDOM,         DRA_POL_DOT_PRODUCT,
                                             DRA_POL_GPU_CLUSTERING, DRA_POL_GPU_PACKING,
                                             DRA_POL_BEST_FIT,       DRA_POL_FGD};
        for (size_t i = 0; i < 6; i++)
            if (!add_pol1(six[i], o))
                return false;
        return true;
    }
    dra_pol_kind_t k;
    return dra_pol_kind_parse(tok, &k) == DRA_OK && add_pol1(k, o);
}

static bool add_choice(const char *tok, opts_t *o)
{
    dra_replay_choice_t c;
    if (strcmp(tok, "policy") == 0)
        c = DRA_REPLAY_CHOICE_POLICY;
    else if (strcmp(tok, "dra") == 0)
        c = DRA_REPLAY_CHOICE_DRA;
    else
        return false;
    for (uint32_t i = 0; i < o->nchoice; i++)
        if (o->choice[i] == c)
            return true;
    o->choice[o->nchoice++] = c; /* two values: never more than two distinct */
    return true;
}

static bool add_mode(const char *tok, opts_t *o)
{
    dra_replay_mode_t m;
    if (strcmp(tok, "dra") == 0)
        m = DRA_REPLAY_MODE_DRA;
    else if (strcmp(tok, "device-plugin") == 0)
        m = DRA_REPLAY_MODE_DEVICE_PLUGIN;
    else
        return false;
    for (uint32_t i = 0; i < o->nmode; i++)
        if (o->mode[i] == m)
            return true;
    o->mode[o->nmode++] = m;
    return true;
}

static bool add_seed(const char *tok, opts_t *o)
{
    const char *dots = strstr(tok, "..");
    unsigned long long a, b;
    if (dots) {
        char first[64];
        size_t n = (size_t)(dots - tok);
        if (n >= sizeof first)
            return false;
        memcpy(first, tok, n);
        first[n] = '\0';
        if (!dra_io_parse_u64(first, &a) || !dra_io_parse_u64(dots + 2, &b) || b < a ||
            b - a >= MAX_SEEDS)
            return false;
    } else {
        if (!dra_io_parse_u64(tok, &a))
            return false;
        b = a;
    }
    for (unsigned long long s = a;; s++) {
        bool dup = false;
        for (uint32_t i = 0; i < o->nseeds && !dup; i++)
            dup = o->seeds[i] == s;
        if (!dup) {
            if (o->nseeds == MAX_SEEDS)
                return false;
            o->seeds[o->nseeds++] = s;
        }
        if (s == b)
            break;
    }
    return true;
}

/* A seed in JSON as `run` writes one: a decimal string, exact for all 64 bits (a JSON integer
 * is signed in jansson and loses precision above 2^53 in most readers). */
static json_t *seed_json(uint64_t seed)
{
    char b[24];
    snprintf(b, sizeof b, "%llu", (unsigned long long)seed);
    return json_string(b);
}

/* ---- aggregation ------------------------------------------------------------------------------
 */

typedef struct agg {
    double sum, min, max;
    uint32_t n;
} agg_t;

static void agg_add(agg_t *a, double v)
{
    if (a->n == 0 || v < a->min)
        a->min = v;
    if (a->n == 0 || v > a->max)
        a->max = v;
    a->sum += v;
    a->n++;
}

static double agg_mean(const agg_t *a)
{
    return a->n ? a->sum / a->n : 0.0;
}

enum { M_ALLOC, M_FRAG_RATIO, M_FRAG_AMOUNT, M_SERVED, M_COUNT };
static const char *const metric_key[M_COUNT] = {"gpu_alloc_ratio_pct", "frag_ratio_pct_of_idle",
                                                "frag_amount_pct_of_total", "served_demand_pct"};

static double metric(const dra_replay_point_t *p, int m)
{
    switch (m) {
    case M_ALLOC:
        return p->alloc_pct;
    case M_FRAG_RATIO:
        return p->frag_ratio_pct;
    case M_FRAG_AMOUNT:
        return p->frag_amount_pct;
    default:
        return p->served_pct;
    }
}

static double round2(double v)
{
    return round(v * 100.0) / 100.0;
}

/* One run (policy x choice x mode) over every seed: JSON object, and text to stdout. */
static int one_run(const dra_replay_trace_t *t, const opts_t *o, dra_pol_kind_t pol,
                   dra_replay_choice_t ch, dra_replay_mode_t mode, dra_replay_dra_t *dra,
                   json_t *runs)
{
    dra_replay_result_t *res = calloc(o->nseeds, sizeof *res);
    if (!res)
        return DRA_EXIT_ENV;
    dra_replay_opts_t ro = {pol, ch, mode, o->tune, 0};
    double secs = 0, cpu = 0;
    for (uint32_t s = 0; s < o->nseeds; s++) {
        ro.seed = o->seeds[s];
        dra_diag_t d;
        dra_diag_clear(&d);
        int rc = dra_replay_run(t, &ro, dra, &res[s], &d);
        if (rc != DRA_OK) {
            char buf[DRA_DIAG_MSG_MAX + 64];
            fprintf(stderr, "drabench replay: %s (policy %s, seed %llu): %s\n",
                    dra_replay_choice_name(ch), dra_pol_kind_name(pol), (unsigned long long)ro.seed,
                    d.code ? dra_diag_format(&d, buf, sizeof buf) : dra_strerror(rc));
            free(res);
            return rc == DRA_ENOMEM ? DRA_EXIT_ENV
                   : rc == DRA_ELIMIT || rc == DRA_EINVAL ? DRA_EXIT_USAGE
                                                          : DRA_EXIT_CORRECTNESS;
        }
        secs += res[s].seconds;
        cpu += res[s].cpu_seconds;
    }
    uint32_t np = res[0].npoints;
    json_t *run = json_object(), *curve = json_array(), *seeds = json_array(), *un = json_object();
    agg_t ua[DRA_REPLAY_UNSCHED_COUNT] = {{0}};
    agg_t sched = {0}, subm = {0};
    for (uint32_t s = 0; s < o->nseeds; s++) {
        const dra_replay_result_t *r = &res[s];
        json_t *js = json_object(), *ju = json_object();
        for (int k = 0; k < DRA_REPLAY_UNSCHED_COUNT; k++) {
            json_object_set_new(ju, dra_replay_reason_name(k),
                                json_integer((json_int_t)r->unsched[k]));
            agg_add(&ua[k], (double)r->unsched[k]);
        }
        agg_add(&sched, (double)r->scheduled);
        agg_add(&subm, (double)r->submitted);
        json_object_set_new(js, "seed", seed_json(o->seeds[s]));
        json_object_set_new(js, "pods_submitted", json_integer((json_int_t)r->submitted));
        json_object_set_new(js, "pods_scheduled", json_integer((json_int_t)r->scheduled));
        json_object_set_new(js, "submitted_gpu_milli", json_integer(r->submitted_milli));
        json_object_set_new(js, "unscheduled", ju);
        json_object_set_new(js, "dra_calls", json_integer((json_int_t)r->dra_calls));
        json_object_set_new(js, "dra_refused", json_integer((json_int_t)r->dra_refused));
        json_object_set_new(js, "seconds", json_real(r->seconds));
        json_object_set_new(js, "cpu_seconds", json_real(r->cpu_seconds));
        json_object_set_new(js, "final_gpu_alloc_ratio_pct",
                            json_real(round2(r->pt[np - 1].alloc_pct)));
        json_array_append_new(seeds, js);
    }
    if (!o->json)
        printf(
            "\n%s, device choice %s, mode %s: %u seed(s), %.0f pods submitted, %.0f scheduled "
            "(mean), %.3f s per replay (%.3f s CPU)\n"
            "arrived%%  alloc%% [min, max]        frag/idle%% [min, max]    frag/all%%  served%%\n",
            dra_pol_kind_name(pol), dra_replay_choice_name(ch), dra_replay_mode_name(mode),
            o->nseeds, agg_mean(&subm), agg_mean(&sched), secs / o->nseeds, cpu / o->nseeds);
    for (uint32_t i = 0; i < np; i++) {
        agg_t a[M_COUNT] = {{0}};
        for (uint32_t s = 0; s < o->nseeds; s++)
            for (int m = 0; m < M_COUNT; m++)
                agg_add(&a[m], metric(&res[s].pt[i], m));
        json_t *p = json_object(), *mn = json_object(), *mx = json_object();
        json_object_set_new(p, "arrived_gpu_pct",
                            json_integer((json_int_t)lround(res[0].pt[i].arrived_pct)));
        for (int m = 0; m < M_COUNT; m++) {
            json_object_set_new(p, metric_key[m], json_real(round2(agg_mean(&a[m]))));
            json_object_set_new(mn, metric_key[m], json_real(round2(a[m].min)));
            json_object_set_new(mx, metric_key[m], json_real(round2(a[m].max)));
        }
        json_object_set_new(p, "min", mn);
        json_object_set_new(p, "max", mx);
        json_array_append_new(curve, p);
        if (!o->json)
            printf("%7.0f  %6.2f [%6.2f, %6.2f]  %6.2f [%6.2f, %6.2f]  %8.2f  %7.2f\n",
                   res[0].pt[i].arrived_pct, agg_mean(&a[M_ALLOC]), a[M_ALLOC].min, a[M_ALLOC].max,
                   agg_mean(&a[M_FRAG_RATIO]), a[M_FRAG_RATIO].min, a[M_FRAG_RATIO].max,
                   agg_mean(&a[M_FRAG_AMOUNT]), agg_mean(&a[M_SERVED]));
    }
    if (!o->json)
        printf("unscheduled pods (mean):");
    for (int k = 0; k < DRA_REPLAY_UNSCHED_COUNT; k++) {
        json_object_set_new(un, dra_replay_reason_name(k), json_real(round2(agg_mean(&ua[k]))));
        if (!o->json)
            printf(" %s %.1f", dra_replay_reason_name(k), agg_mean(&ua[k]));
    }
    if (!o->json)
        printf("\n");
    json_object_set_new(run, "policy", json_string(dra_pol_kind_name(pol)));
    json_object_set_new(run, "device_choice", json_string(dra_replay_choice_name(ch)));
    json_object_set_new(run, "mode", json_string(dra_replay_mode_name(mode)));
    json_object_set_new(run, "typical_classes", json_integer(res[0].nclasses));
    json_object_set_new(run, "seconds_mean", json_real(secs / o->nseeds));
    json_object_set_new(run, "cpu_seconds_mean", json_real(cpu / o->nseeds));
    json_object_set_new(run, "unscheduled_mean", un);
    json_object_set_new(run, "curve", curve);
    json_object_set_new(run, "per_seed", seeds);
    json_array_append_new(runs, run);
    free(res);
    return DRA_EXIT_OK;
}

static int emit(const dra_replay_trace_t *t, const char *dir, bool device_plugin)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "drabench replay: --emit %s: %s\n", dir, strerror(errno));
        return DRA_EXIT_ENV;
    }
    dra_model_t m;
    dra_model_init(&m);
    dra_sbuf_t b = {0};
    int rc = dra_replay_build_model(t, device_plugin, &m);
    if (rc == DRA_OK)
        rc = dra_manifest_write_yaml_buf(&m, &b);
    if (rc == DRA_OK && b.err)
        rc = b.err;
    int status = DRA_EXIT_OK;
    if (rc != DRA_OK) {
        fprintf(stderr, "drabench replay: --emit: %s\n", dra_strerror(rc));
        status = rc == DRA_ELIMIT ? DRA_EXIT_USAGE : DRA_EXIT_ENV;
    } else {
        char path[4096];
        dra_diag_t d;
        dra_diag_clear(&d);
        snprintf(path, sizeof path, "%s/replay.yaml", dir);
        if (dra_io_write_file_atomic(path, b.p, b.len, &d) != DRA_OK) {
            char buf[DRA_DIAG_MSG_MAX + 64];
            fprintf(stderr, "drabench replay: %s\n", dra_diag_format(&d, buf, sizeof buf));
            status = DRA_EXIT_ENV;
        } else {
            dra_cli_notef(stderr, "drabench replay: wrote %s (%u nodes, %u slices, %u claims)",
                          path, m.nnodes, m.nslices, m.nclaims);
        }
    }
    dra_sbuf_fini(&b);
    dra_model_fini(&m);
    return status;
}

int dra_cmd_replay(int argc, char **argv)
{
    static opts_t o;
    memset(&o, 0, sizeof o);
    o.tune = 1.3;
    const char *tune = NULL, *fmt = NULL, *rel = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **dst = NULL;
        bool (*list)(const char *, opts_t *) = NULL;
        if (is_opt(a, "-h", "--help")) {
            fputs(help, stdout);
            return DRA_EXIT_OK;
        } else if (is_opt(a, NULL, "--nodes")) {
            dst = &o.nodes;
        } else if (is_opt(a, NULL, "--pods")) {
            dst = &o.pods;
        } else if (is_opt(a, NULL, "--result")) {
            dst = &o.result;
        } else if (is_opt(a, NULL, "--emit")) {
            dst = &o.emit;
        } else if (is_opt(a, NULL, "--tune")) {
            dst = &tune;
        } else if (is_opt(a, NULL, "--release")) {
            dst = &rel;
        } else if (is_opt(a, "-o", "--output")) {
            dst = &fmt;
        } else if (is_opt(a, "-p", "--policy")) {
            list = add_pol;
        } else if (is_opt(a, NULL, "--device-choice")) {
            list = add_choice;
        } else if (is_opt(a, NULL, "--mode")) {
            list = add_mode;
        } else if (is_opt(a, "-s", "--seeds") || is_opt(a, NULL, "--seed")) {
            list = add_seed;
        } else {
            return dra_cli_usage_error("replay", "unexpected argument '%s'", a);
        }
        const char *eq = strncmp(a, "--", 2) == 0 ? strchr(a, '=') : NULL;
        const char *val = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
        if (!val)
            return dra_cli_usage_error("replay", "option %s needs a value", a);
        if (dst) {
            *dst = val;
        } else if (!each_token(val, list, &o)) {
            return dra_cli_usage_error("replay", "%.*s: invalid value '%s'",
                                       (int)(eq ? (size_t)(eq - a) : strlen(a)), a, val);
        }
    }
    if (!o.nodes || !o.pods)
        return dra_cli_usage_error("replay", "--nodes and --pods are required");
    if (fmt && strcmp(fmt, "json") == 0)
        o.json = true;
    else if (fmt && strcmp(fmt, "text") != 0)
        return dra_cli_usage_error("replay", "-o: want text or json, got '%s'", fmt);
    if (tune && (!dra_io_parse_double(tune, &o.tune) || !(o.tune >= 0.1 && o.tune <= 3.0)))
        return dra_cli_usage_error("replay", "--tune: want a number in [0.1, 3], got '%s'", tune);
    o.release = DRA_RELEASE_DEFAULT;
    if (rel) {
        dra_diag_t rd;
        if (dra_alloc_release_parse(rel, &o.release, &rd))
            return dra_cli_usage_error("replay", "--release: %s", rd.msg);
    }
    if (!o.npol)
        o.pol[o.npol++] = DRA_POL_FGD;
    if (!o.nchoice)
        o.choice[o.nchoice++] = DRA_REPLAY_CHOICE_POLICY;
    if (!o.nmode)
        o.mode[o.nmode++] = DRA_REPLAY_MODE_DRA;
    if (!o.nseeds)
        o.seeds[o.nseeds++] = 42;

    dra_replay_trace_t t = {0};
    dra_diag_t d;
    dra_diag_clear(&d);
    int rc = dra_replay_read_nodes(&t, o.nodes, &d);
    if (rc == DRA_OK)
        rc = dra_replay_read_pods(&t, o.pods, &d);
    if (rc != DRA_OK) {
        char buf[DRA_DIAG_MSG_MAX + 256];
        fprintf(stderr, "drabench replay: %s\n", dra_diag_format(&d, buf, sizeof buf));
        dra_replay_trace_fini(&t);
        return rc == DRA_EPARSE || rc == DRA_ENOTFOUND || rc == DRA_ELIMIT ? DRA_EXIT_USAGE
                                                                           : DRA_EXIT_ENV;
    }
    int status = DRA_EXIT_OK;
    if (o.emit)
        status = emit(&t, o.emit, o.mode[0] == DRA_REPLAY_MODE_DEVICE_PLUGIN);
    json_t *root = json_object(), *runs = json_array();
    int64_t gpus = 0;
    for (uint32_t i = 0; i < t.nnodes; i++)
        gpus += t.nodes[i].ngpu;
    json_object_set_new(root, "schema", json_string("drabench-replay/v1"));
    json_object_set_new(root, "drabench", json_string(DRA_VERSION));
    json_object_set_new(root, "git", json_string(DRA_BUILD_GIT));
    /* base names, losslessly (a file name need not be UTF-8: escape.h) */
    json_object_set_new(root, "nodes_file",
                        dra_esc_path_json(strrchr(o.nodes, '/') ? strrchr(o.nodes, '/') + 1 : o.nodes));
    json_object_set_new(root, "pods_file",
                        dra_esc_path_json(strrchr(o.pods, '/') ? strrchr(o.pods, '/') + 1 : o.pods));
    json_object_set_new(root, "nodes", json_integer(t.nnodes));
    json_object_set_new(root, "gpus", json_integer(gpus));
    json_object_set_new(root, "pods", json_integer(t.npods));
    json_object_set_new(root, "tune", json_real(o.tune));
    json_object_set_new(root, "release", json_string(dra_alloc_release_name(o.release)));
    json_t *js = json_array();
    for (uint32_t s = 0; s < o.nseeds; s++)
        json_array_append_new(js, seed_json(o.seeds[s]));
    json_object_set_new(root, "seeds", js);
    if (!o.json)
        printf("trace: %u nodes, %lld GPUs, %u pods; tune %.2f; release %s\n", t.nnodes,
               (long long)gpus, t.npods, o.tune, dra_alloc_release_label(o.release));
    for (uint32_t mi = 0; mi < o.nmode && status == DRA_EXIT_OK; mi++) {
        dra_replay_dra_t dra;
        bool have_dra = false;
        for (uint32_t ci = 0; ci < o.nchoice && status == DRA_EXIT_OK; ci++) {
            if (o.choice[ci] == DRA_REPLAY_CHOICE_DRA && !have_dra) {
                if (dra_replay_dra_init(&dra, &t, o.mode[mi] == DRA_REPLAY_MODE_DEVICE_PLUGIN)) {
                    fprintf(stderr, "drabench replay: out of memory\n");
                    status = DRA_EXIT_ENV;
                    break;
                }
                dra_alloc_features_init(&dra.features, o.release);
                dra.features.gates |= 1u << DRA_GATE_CONSUMABLE_CAPACITY;
                have_dra = true;
            }
            for (uint32_t pi = 0; pi < o.npol && status == DRA_EXIT_OK; pi++)
                status = one_run(&t, &o, o.pol[pi], o.choice[ci], o.mode[mi],
                                 have_dra ? &dra : NULL, runs);
        }
        if (have_dra)
            dra_replay_dra_fini(&dra);
    }
    json_object_set_new(root, "runs", runs);
    if (status == DRA_EXIT_OK && (o.json || o.result)) {
        char *s = json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
        if (!s) {
            status = DRA_EXIT_ENV;
        } else {
            if (o.json && (fputs(s, stdout) == EOF || fputc('\n', stdout) == EOF))
                status = DRA_EXIT_ENV;
            if (o.result) {
                size_t n = strlen(s);
                s[n] = '\n';
                dra_diag_clear(&d);
                if (dra_io_write_file_atomic(o.result, s, n + 1, &d) != DRA_OK) {
                    char buf[DRA_DIAG_MSG_MAX + 64];
                    fprintf(stderr, "drabench replay: %s\n", dra_diag_format(&d, buf, sizeof buf));
                    status = DRA_EXIT_ENV;
                }
            }
            free(s);
        }
    }
    if (fflush(stdout) != 0 && status == DRA_EXIT_OK)
        status = DRA_EXIT_ENV;
    json_decref(root);
    dra_replay_trace_fini(&t);
    return status;
}
