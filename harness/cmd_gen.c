/* cmd_gen.c - `drabench gen`: build a scenario's cluster and workload and write them as real
 * Kubernetes v1 manifests. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "base/intern.h"
#include "cli.h"
#include "gen/profiles.h"
#include "gen/shapes.h"
#include "manifest.h"
#include "scenario.h"

static const char help[] =
    "drabench gen - generate a scenario's cluster and workload as Kubernetes manifests\n"
    "\n"
    "Usage: drabench gen [options] SCENARIO|NAME\n"
    "       drabench gen --list\n"
    "\n"
    "Builds the cluster of a scenario (a file or a built-in name) from its seed, instantiates its\n"
    "workload (one Pod per arrival; claims from templates or shared ResourceClaims) and writes\n"
    "everything as resource.k8s.io/v1 and core/v1 manifests (Nodes, DeviceClasses, ResourceSlices,\n"
    "ResourceClaimTemplates, ResourceClaims, Pods) that `drabench validate` accepts. Prints a summary\n"
    "and the digests of the model and of the written bytes (same seed, same digests).\n"
    "\n"
    "Options:\n"
    "  -o, --output DIR   write DIR/manifests.yaml (atomically; DIR is created); '-' = stdout\n"
    "  -s, --seed N       override the scenario's seed (decimal or 0x hex)\n"
    "  -p, --pods N       write at most N pods (default: all arrivals, up to 100000)\n"
    "      --no-pods      write the cluster and templates only\n"
    "  -l, --list         list node profiles, claim shapes and built-in scenarios\n"
    "  -q, --quiet        print only the digests\n"
    "  -h, --help         show this help\n"
    "\n"
    "Examples:\n"
    "  drabench gen --list\n"
    "  drabench gen default -o /tmp/default\n"
    "  drabench gen sched-perf-500 --seed 7 -o - | kubectl apply -f -\n"
    "  drabench gen fleet-50k --no-pods          # build only: timing and size\n"
    "\n"
    "Exit status: 0 ok, 2 usage error or invalid scenario, 4 I/O or memory error.\n";

static int list_all(void)
{
    printf("Node profiles:\n");
    for (int i = 0; i < DRA_GEN_NPROFILES; i++) {
        const dra_gen_profile_info_t *p = dra_gen_profile_info((dra_gen_profile_t)i);
        printf("  %-18s %s\n", p->name, p->summary);
    }
    printf("Claim shapes:\n");
    for (int i = 0; i < DRA_SHAPE_NKINDS; i++) {
        const dra_shape_info_t *s = dra_shape_info((dra_shape_kind_t)i);
        printf("  %-18s %s\n", strcmp(s->name, "mig") == 0 ? "mig-<profile>" : s->name, s->summary);
    }
    printf("Built-in scenarios:\n");
    const char *names[64];
    size_t n = dra_scenario_builtins(names, 64);
    for (size_t i = 0; i < n && i < 64; i++) {
        dra_scenario_t s;
        dra_diag_t d;
        char nm[128];
        snprintf(nm, sizeof nm, "%.*s", (int)(strlen(names[i]) - 5), names[i]);
        if (dra_scenario_load_named(&s, nm, &d) == DRA_OK)
            printf("  %-18s %s\n", nm, s.description ? s.description : "");
        else
            printf("  %-18s (invalid: %s)\n", nm, d.msg);
        dra_scenario_fini(&s);
    }
    return DRA_EXIT_OK;
}

/* One Pod per arrival (departures are not written). */
static int add_pods(dra_model_t *m, const dra_scenario_t *s, const dra_scenario_built_t *b, uint64_t seed,
                    uint64_t max_pods, uint64_t *npods, dra_diag_t *d)
{
    dra_workload_t w;
    int rc = dra_workload_init(&w, &b->workload, seed, d);
    if (rc)
        return rc;
    dra_wl_event_t ev;
    char name[64];
    *npods = 0;
    while (*npods < max_pods && (rc = dra_workload_next(&w, &ev)) == 1) {
        if (ev.kind != DRA_WL_ARRIVE)
            continue;
        const dra_claim_t *t = b->templates[ev.mix];
        dra_pod_t *p = dra_model_add_pod(m);
        dra_pod_claim_t *pc = dra_model_array(m, 1, sizeof *pc);
        if (!p || !pc) {
            rc = DRA_ENOMEM;
            break;
        }
        snprintf(name, sizeof name, "pod-%llu", (unsigned long long)ev.pod);
        p->kind = DRA_POD_POD;
        p->namespace_ = dra_model_str(m, "default");
        p->name = dra_model_str(m, name);
        p->replicas = 1;
        pc->name = dra_model_str(m, "claim");
        if (ev.claim != UINT64_MAX) {
            snprintf(name, sizeof name, "%s-%llu", t->name, (unsigned long long)ev.claim);
            if (ev.new_claim && (rc = dra_shape_instantiate(m, t, name, NULL)))
                break;
            pc->claim_name = dra_model_str(m, name);
        } else {
            pc->template_name = t->name;
        }
        p->claims = pc;
        p->nclaims = 1;
        (*npods)++;
    }
    (void)s;
    dra_workload_fini(&w);
    return rc < 0 ? rc : DRA_OK;
}

/* mkdir -p */
static int mkdir_p(const char *dir)
{
    char buf[4096];
    size_t n = strlen(dir);
    if (n == 0 || n >= sizeof buf)
        return -1;
    memcpy(buf, dir, n + 1);
    for (size_t i = 1; i <= n; i++)
        if (buf[i] == '/' || buf[i] == 0) {
            char saved = buf[i];
            buf[i] = 0;
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                return -1;
            buf[i] = saved;
        }
    return 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int dra_cmd_gen(int argc, char **argv)
{
    enum { OPT_NO_PODS = 256 };
    static const struct option opts[] = {{"output", required_argument, NULL, 'o'},
                                         {"seed", required_argument, NULL, 's'},
                                         {"pods", required_argument, NULL, 'p'},
                                         {"no-pods", no_argument, NULL, OPT_NO_PODS},
                                         {"list", no_argument, NULL, 'l'},
                                         {"quiet", no_argument, NULL, 'q'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *out = NULL;
    unsigned long long seed = 0, max_pods = 100000;
    bool has_seed = false, list = false, quiet = false;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:s:p:lqh", opts, NULL)) != -1) {
        switch (c) {
        case 'o':
            out = optarg;
            break;
        case 's':
            if (!dra_cli_parse_u64(optarg, &seed))
                return dra_cli_usage_error("gen", "--seed: not a number: %s", optarg);
            has_seed = true;
            break;
        case 'p':
            if (!dra_cli_parse_u64(optarg, &max_pods))
                return dra_cli_usage_error("gen", "--pods: not a number: %s", optarg);
            break;
        case OPT_NO_PODS:
            max_pods = 0;
            break;
        case 'l':
            list = true;
            break;
        case 'q':
            quiet = true;
            break;
        case 'h':
            fputs(help, stdout);
            return DRA_EXIT_OK;
        default:
            return dra_cli_usage_error("gen", "unknown option");
        }
    }
    if (list)
        return optind == argc ? list_all() : dra_cli_usage_error("gen", "--list takes no scenario");
    if (optind + 1 != argc)
        return dra_cli_usage_error("gen", optind == argc ? "missing SCENARIO" : "exactly one SCENARIO expected");
    dra_scenario_t s;
    dra_diag_t d;
    char dbuf[700];
    int rc = dra_scenario_load_named(&s, argv[optind], &d);
    if (rc) {
        dra_cli_errorf("%s", dra_diag_format(&d, dbuf, sizeof dbuf));
        dra_scenario_fini(&s);
        return rc == DRA_ENOMEM ? DRA_EXIT_ENV : DRA_EXIT_USAGE;
    }
    uint64_t sd = has_seed ? seed : s.seed;
    dra_model_t m;
    dra_model_init(&m);
    dra_scenario_built_t b;
    int status = DRA_EXIT_OK;
    double t0 = now_s();
    rc = dra_scenario_build(&s, &m, sd, &b, &d);
    double t_build = now_s() - t0;
    if (rc) {
        dra_cli_errorf("%s", dra_diag_format(&d, dbuf, sizeof dbuf));
        status = rc == DRA_ENOMEM ? DRA_EXIT_ENV : DRA_EXIT_USAGE;
        goto done_model;
    }
    if (s.nmanifests) {
        dra_diag_list_t errs;
        dra_diag_list_init(&errs);
        rc = dra_manifest_read_paths(&m, (char *const *)s.manifests, (int)s.nmanifests, &errs);
        for (size_t i = 0; i < errs.count; i++)
            dra_cli_errorf("%s", dra_diag_format(&errs.items[i], dbuf, sizeof dbuf));
        dra_diag_list_fini(&errs);
        if (rc) {
            status = rc == DRA_ENOMEM ? DRA_EXIT_ENV : DRA_EXIT_USAGE;
            goto done;
        }
    }
    uint64_t npods = 0;
    if ((rc = add_pods(&m, &s, &b, sd, max_pods, &npods, &d))) {
        dra_cli_errorf("workload: %s", d.msg[0] ? d.msg : dra_strerror(rc));
        status = rc == DRA_ENOMEM ? DRA_EXIT_ENV : DRA_EXIT_USAGE;
        goto done;
    }
    uint64_t mdig = dra_model_digest(&m);
    uint64_t bdig = 0;
    size_t nbytes = 0;
    if (out) {
        dra_sbuf_t sb = {0};
        rc = dra_manifest_write_yaml_buf(&m, &sb);
        if (rc || sb.err) {
            dra_cli_errorf("writing manifests: %s", dra_strerror(rc ? rc : sb.err));
            dra_sbuf_fini(&sb);
            status = DRA_EXIT_ENV;
            goto done;
        }
        bdig = dra_hash64(sb.p, sb.len);
        nbytes = sb.len;
        char path[4096];
        if (strcmp(out, "-") == 0) {
            snprintf(path, sizeof path, "-");
        } else {
            if (mkdir_p(out) != 0) {
                dra_cli_errorf("%s: %s", out, strerror(errno));
                dra_sbuf_fini(&sb);
                status = DRA_EXIT_ENV;
                goto done;
            }
            snprintf(path, sizeof path, "%s/manifests.yaml", out);
        }
        rc = dra_cli_write_file_atomic(path, sb.p, sb.len, &d);
        dra_sbuf_fini(&sb);
        if (rc) {
            dra_cli_errorf("%s", dra_diag_format(&d, dbuf, sizeof dbuf));
            status = DRA_EXIT_ENV;
            goto done;
        }
    }
    FILE *info = out && strcmp(out, "-") == 0 ? stderr : stdout;
    if (!quiet) {
        fprintf(info, "scenario:  %s (seed %llu)\n", s.name, (unsigned long long)sd);
        fprintf(info, "cluster:   %llu nodes, %llu slices, %llu devices, %llu accelerators, %u classes (built in %.3f s)\n",
                (unsigned long long)b.cluster.nodes, (unsigned long long)b.cluster.slices,
                (unsigned long long)b.cluster.devices, (unsigned long long)b.cluster.gpus, m.nclasses, t_build);
        fprintf(info, "workload:  %u templates, %u claims, %llu pods (%s, %llu arrivals)\n", m.ntemplates, m.nclaims,
                (unsigned long long)npods, s.mode == DRA_WL_FILL ? "fill" : "steady", (unsigned long long)s.count);
        fprintf(info, "memory:    %.1f MiB model arena\n", (double)m.arena.reserved / (1024.0 * 1024.0));
        if (out)
            fprintf(info, "written:   %s%s (%zu bytes)\n", strcmp(out, "-") ? out : "stdout",
                    strcmp(out, "-") ? "/manifests.yaml" : "", nbytes);
    }
    fprintf(info, "model digest:    %016llx\n", (unsigned long long)mdig);
    if (out)
        fprintf(info, "manifest digest: %016llx\n", (unsigned long long)bdig);
done:
    dra_scenario_built_fini(&b);
done_model:
    dra_model_fini(&m);
    dra_scenario_fini(&s);
    return status;
}
