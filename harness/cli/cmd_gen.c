/* cmd_gen.c - `drabench gen`: build a scenario's cluster and workload and write them as real
 * Kubernetes v1 manifests. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "base/intern.h"
#include <jansson.h>

#include "alloc/alloc.h"
#include "cli.h"
#include "escape.h"
#include "gen/profiles.h"
#include "gen/shapes.h"
#include "manifest.h"
#include "progress.h"
#include "scenario.h"
#include "profref.h"
#include "escape.h"

static const char help[] =
    "drabench gen - generate a scenario's cluster and workload as Kubernetes manifests\n"
    "\n"
    "Usage: drabench gen [options] SCENARIO|NAME\n"
    "       drabench gen --list [--json | --markdown]\n"
    "\n"
    "Builds the cluster of a scenario (a file or a built-in name) from its seed, instantiates its\n"
    "workload (one Pod per arrival; claims from templates or shared ResourceClaims; a group entry's\n"
    "arrival is a PodGroup of its pods, with a Workload per group entry: scheduling.k8s.io v1alpha2\n"
    "in release 1.36, v1beta1 from 1.37) and writes everything as resource.k8s.io/v1, core/v1 and\n"
    "scheduling.k8s.io manifests (Nodes, DeviceClasses, ResourceSlices, ResourceClaimTemplates,\n"
    "ResourceClaims, Workloads, PodGroups, Pods) that `drabench validate` accepts. Prints a summary\n"
    "and the digests of the model and of the written bytes (same seed, same digests).\n"
    "\n"
    "Options:\n"
    "  -o, --output DIR   write DIR/manifests.yaml (atomically; DIR is created); '-' = stdout\n"
    "  -s, --seed N       override the scenario's seed (decimal, 0..2^64-1)\n"
    "  -p, --pods N       write at most N pods (default: all arrivals, up to 100000)\n"
    "      --no-pods      write the cluster and templates only\n"
    "  -l, --list         the reference of node profiles (per device class: devices per node,\n"
    "                     attributes with kinds and example values, capacities; drivers, counter\n"
    "                     sets, MIG profiles), claim shapes (template: requests, classes,\n"
    "                     constraints; the keys they read) and built-in scenarios; --json: one\n"
    "                     JSON object; --markdown: the page corpora/scenarios/PROFILES.md\n"
    "  -q, --quiet        print only the digests\n"
    "      --json         print the summary as one JSON object instead (on stderr with -o -)\n"
    "      --progress W   auto | always | never: a bar of MiB written on stderr (auto: when\n"
    "                     stderr is a terminal and CI is unset)\n"
    "  -h, --help         show this help\n"
    "\n"
    "Examples:\n"
    "  drabench gen --list\n"
    "  drabench gen default -o /tmp/default\n"
    "  drabench gen sched-perf-500 --seed 7 -o - | kubectl apply -f -\n"
    "  drabench gen fleet-50k --no-pods          # build only: timing and size\n"
    "\n"
    "Exit status: 0 ok, 2 usage error or invalid scenario, 4 I/O or memory error.\n";

/* ---- the reference: profiles, shapes, built-in scenarios ------------------------------------ */

/* The built-in scenarios: [{name, description, seed, release, nodes, mode, count, repetitions,
 * warmup, placement} or {name, error}]. */
static json_t *scenarios_json(void)
{
    json_t *scn = json_array();
    const char *names[64];
    size_t n = dra_scenario_builtins(names, 64);
    for (size_t i = 0; scn && i < n && i < 64; i++) {
        dra_scenario_t s;
        dra_diag_t d;
        dra_diag_clear(&d);
        char nm[128];
        snprintf(nm, sizeof nm, "%.*s", (int)(strlen(names[i]) - 5), names[i]);
        if (dra_scenario_load_named(&s, nm, &d) == DRA_OK) {
            uint64_t nodes = 0;
            for (uint32_t g = 0; g < s.ngroups; g++)
                nodes += s.groups[g].count;
            char seed[24], rel[32];
            snprintf(seed, sizeof seed, "%llu", (unsigned long long)s.seed);
            snprintf(rel, sizeof rel, "%s", dra_alloc_release_name((dra_release_t)s.release));
            json_array_append_new(
                scn, json_pack("{s:s, s:s, s:s, s:s, s:I, s:s, s:I, s:i, s:I, s:s}", "name", nm,
                               "description", s.description ? s.description : "", "seed", seed,
                               "release", rel, "nodes", (json_int_t)nodes, "mode",
                               s.mode == DRA_WL_STEADY ? "steady" : "fill", "count",
                               (json_int_t)s.count, "repetitions", (int)s.repetitions, "warmup",
                               (json_int_t)s.warmup, "placement", dra_placement_name(s.placement)));
        } else {
            json_array_append_new(scn, json_pack("{s:s, s:s}", "name", nm, "error", d.msg));
        }
        dra_scenario_fini(&s);
    }
    return scn;
}

/* dra_profile_reference plus the built-in scenarios. Returns an exit status. */
static int reference(json_t **out)
{
    dra_diag_t d;
    dra_diag_clear(&d);
    int rc = dra_profile_reference(out, &d);
    if (rc) {
        dra_cli_errorf("gen --list: %s", rc == DRA_ENOMEM ? dra_strerror(rc) : d.msg);
        return rc == DRA_ENOMEM ? DRA_EXIT_ENV : DRA_EXIT_USAGE;
    }
    json_t *scn = scenarios_json();
    if (!scn) {
        json_decref(*out);
        return DRA_EXIT_ENV;
    }
    json_object_set_new(*out, "scenarios", scn);
    return DRA_EXIT_OK;
}

static const char *jsv(const json_t *o, const char *key)
{
    const char *v = json_string_value(json_object_get(o, key));
    return v ? v : "";
}

/* "a, b, c" of a JSON string array into buf. */
static const char *joined(const json_t *a, const char *sep, char *buf, size_t len)
{
    size_t at = 0, i;
    const json_t *v;
    buf[0] = 0;
    json_array_foreach(a, i, v)
    if (at < len)
        at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? sep : "", json_string_value(v));
    return buf;
}

/* One attribute: "name (kind: ex1, ex2, ...; 8 of 16 devices)". */
static void attr_text(FILE *f, const json_t *a, json_int_t ndev, bool md)
{
    char ex[600];
    joined(json_object_get(a, "examples"), ", ", ex, sizeof ex);
    json_int_t n = json_integer_value(json_object_get(a, "devices"));
    if (md) {
        fputs("| ", f);
        dra_esc_md_code(f, jsv(a, "name"));
        fprintf(f, " | %s | ", jsv(a, "kind"));
        dra_esc_md(f, ex);
        fprintf(f, "%s | %lld of %lld |\n",
                json_is_true(json_object_get(a, "more_examples")) ? ", ..." : "", (long long)n,
                (long long)ndev);
        return;
    }
    fprintf(f, "%s (%s: %s%s", jsv(a, "name"), jsv(a, "kind"), ex,
            json_is_true(json_object_get(a, "more_examples")) ? ", ..." : "");
    if (n != ndev)
        fprintf(f, "; %lld of %lld devices", (long long)n, (long long)ndev);
    fputc(')', f);
}

static void request_text(FILE *f, const json_t *r, bool md)
{
    const json_t *fa = json_object_get(r, "firstAvailable");
    if (fa) {
        fprintf(f, "%s: firstAvailable [", jsv(r, "name"));
        size_t i;
        const json_t *x;
        json_array_foreach(fa, i, x)
        {
            fputs(i ? "; " : "", f);
            request_text(f, x, md);
        }
        fputc(']', f);
        return;
    }
    if (!strcmp(jsv(r, "mode"), "All"))
        fprintf(f, "%s: allocationMode All of class %s", jsv(r, "name"), jsv(r, "class"));
    else
        fprintf(f, "%s: %lld of class %s", jsv(r, "name"),
                (long long)json_integer_value(json_object_get(r, "count")), jsv(r, "class"));
    size_t i;
    const json_t *x;
    json_array_foreach(json_object_get(r, "selectors"), i, x)
    {
        fputs(i ? " && " : " where ", f);
        if (md)
            dra_esc_md_code(f, json_string_value(x));
        else
            fputs(json_string_value(x), f);
    }
    const json_t *cap = json_object_get(r, "capacity");
    const char *k;
    const json_t *v;
    bool first = true;
    json_object_foreach((json_t *)cap, k, v)
    {
        fprintf(f, "%s%s %s", first ? ", capacity " : ", ", k, json_string_value(v));
        first = false;
    }
    if (json_is_true(json_object_get(r, "adminAccess")))
        fputs(", adminAccess", f);
}

static void shape_text(FILE *f, const json_t *sh, bool md)
{
    const json_t *t = json_object_get(sh, "template");
    if (!json_is_object(t)) {
        fputs(md ? "(written in the scenario: `template`)" : "written in the scenario (template)", f);
        return;
    }
    size_t i;
    const json_t *x;
    json_array_foreach(json_object_get(t, "requests"), i, x)
    {
        fputs(i ? "; " : "", f);
        request_text(f, x, md);
    }
    json_array_foreach(json_object_get(t, "constraints"), i, x)
    {
        const char *ma = jsv(x, "matchAttribute"), *da = jsv(x, "distinctAttribute");
        fprintf(f, "; %s %s", *ma ? "matchAttribute" : "distinctAttribute", *ma ? ma : da);
    }
}

static int list_all(void)
{
    json_t *root = NULL;
    int st = reference(&root);
    if (st)
        return st;
    char buf[2048];
    printf("Node profiles (one node of each with its default params; --markdown or --json for the "
           "same as a page or data):\n");
    size_t i, j, k;
    const json_t *p, *c, *x;
    json_array_foreach(json_object_get(root, "profiles"), i, p)
    {
        printf("  %-18s %s\n", jsv(p, "name"), jsv(p, "summary"));
        printf("      drivers      %s\n", joined(json_object_get(p, "drivers"), ", ", buf, sizeof buf)[0] ? buf : "none");
        json_array_foreach(json_object_get(p, "classes"), j, c)
        {
            json_int_t nd = json_integer_value(json_object_get(c, "devices"));
            printf("      class %s: %lld device%s per %s (driver %s%s%s)\n", jsv(c, "class"),
                   (long long)nd, nd == 1 ? "" : "s",
                   json_is_true(json_object_get(p, "per_node")) ? "node" : "pool", jsv(c, "driver"),
                   json_is_true(json_object_get(c, "consumes_counters")) ? ", consume shared counters" : "",
                   json_is_true(json_object_get(c, "multi_allocatable")) ? ", multi-allocatable" : "");
            printf("        attributes ");
            json_array_foreach(json_object_get(c, "attributes"), k, x)
            {
                fputs(k ? ", " : "", stdout);
                attr_text(stdout, x, nd, false);
            }
            printf("\n        capacities ");
            json_array_foreach(json_object_get(c, "capacities"), k, x)
            printf("%s%s (%s)", k ? ", " : "", jsv(x, "name"), jsv(x, "example"));
            printf("%s\n", json_array_size(json_object_get(c, "capacities")) ? "" : "none");
        }
        json_array_foreach(json_object_get(p, "other_devices"), j, x)
        printf("      no class: %lld device(s) of driver %s\n",
               (long long)json_integer_value(json_object_get(x, "devices")), jsv(x, "name"));
        const json_t *cs = json_object_get(p, "counter_sets");
        if (json_is_object(cs)) {
            printf("      counter sets %lld (%s .. %s), each: ",
                   (long long)json_integer_value(json_object_get(cs, "count")), jsv(cs, "first"),
                   jsv(cs, "last"));
            json_array_foreach(json_object_get(cs, "counters"), k, x)
            printf("%s%s %s", k ? ", " : "", jsv(x, "name"), jsv(x, "value"));
            printf("\n");
        }
        if (json_array_size(json_object_get(p, "mig_profiles")))
            printf("      MIG profiles %s (the GPU model's: %s)\n",
                   joined(json_object_get(p, "mig_profiles"), ", ", buf, sizeof buf),
                   joined(json_object_get(p, "model_mig_profiles"), ", ", buf + 1024, 1024));
    }
    printf("Claim shapes (mix entry `shape:`; templates with their defaults):\n");
    json_array_foreach(json_object_get(root, "shapes"), i, x)
    {
        printf("  %-18s %s\n", jsv(x, "name"), jsv(x, "summary"));
        printf("      requests     ");
        shape_text(stdout, x, false);
        printf("\n      satisfied by an empty %s node; keys %s\n", jsv(x, "profile"),
               *jsv(x, "params") ? jsv(x, "params") : "-");
    }
    printf("Built-in scenarios:\n");
    json_array_foreach(json_object_get(root, "scenarios"), i, x)
    {
        if (json_object_get(x, "error"))
            printf("  %-18s (invalid: %s)\n", jsv(x, "name"), jsv(x, "error"));
        else
            printf("  %-18s %s\n", jsv(x, "name"), jsv(x, "description"));
    }
    json_decref(root);
    return DRA_EXIT_OK;
}

/* --list --json: the reference (profref.h) and the built-in scenarios, keys sorted. */
static int list_json(void)
{
    json_t *root = NULL;
    int st = reference(&root);
    if (st)
        return st;
    int rc = json_dumpf(root, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
    json_decref(root);
    if (rc != 0 || fputc('\n', stdout) == EOF || fflush(stdout) != 0)
        return DRA_EXIT_ENV;
    return DRA_EXIT_OK;
}

/* --list --markdown: corpora/scenarios/PROFILES.md (a test compares the committed page). */
static int list_markdown(void)
{
    json_t *root = NULL;
    int st = reference(&root);
    if (st)
        return st;
    FILE *f = stdout;
    char buf[2048];
    fputs("<!-- Generated by `drabench gen --list --markdown` from the generator's code; do not edit.\n"
          "     The test gen.profiles_page fails when this page and the output differ. -->\n"
          "# Node profiles and claim shapes\n\n"
          "What the generator builds, as the allocator sees it: every node profile built as one node\n"
          "(one pool for `net-pool`) with its default `params`, its devices described per device\n"
          "class whose selectors they pass, and every claim shape's ResourceClaimTemplate with its\n"
          "defaults. Scenario format: [README.md](README.md); `drabench gen --list` prints the same.\n\n"
          "## Node profiles\n\n",
          f);
    size_t i, j, k;
    const json_t *p, *c, *x;
    json_array_foreach(json_object_get(root, "profiles"), i, p)
    {
        fprintf(f, "### `%s`\n\n", jsv(p, "name"));
        dra_esc_md(f, jsv(p, "summary"));
        fputs(".", f);
        if (*jsv(p, "source")) {
            fputs(" Imitates `", f);
            dra_esc_md(f, jsv(p, "source"));
            fputs("` (shared real manifests).", f);
        }
        fprintf(f, "\n\n- drivers: %s\n",
                joined(json_object_get(p, "drivers"), ", ", buf, sizeof buf)[0] ? buf : "none");
        json_array_foreach(json_object_get(p, "other_devices"), j, x)
        fprintf(f, "- %lld device(s) of driver %s in no device class\n",
                (long long)json_integer_value(json_object_get(x, "devices")), jsv(x, "name"));
        const json_t *cs = json_object_get(p, "counter_sets");
        if (json_is_object(cs)) {
            fprintf(f, "- counter sets: %lld (`%s` .. `%s`), each with ",
                    (long long)json_integer_value(json_object_get(cs, "count")), jsv(cs, "first"),
                    jsv(cs, "last"));
            json_array_foreach(json_object_get(cs, "counters"), k, x)
            fprintf(f, "%s`%s` %s", k ? ", " : "", jsv(x, "name"), jsv(x, "value"));
            fputs("\n", f);
        }
        if (json_array_size(json_object_get(p, "mig_profiles")))
            fprintf(f, "- MIG profiles offered: %s (the GPU model's: %s)\n",
                    joined(json_object_get(p, "mig_profiles"), ", ", buf, sizeof buf),
                    joined(json_object_get(p, "model_mig_profiles"), ", ", buf + 1024, 1024));
        if (!json_array_size(json_object_get(p, "classes")))
            fputs("- no devices\n", f);
        fputs("\n", f);
        json_array_foreach(json_object_get(p, "classes"), j, c)
        {
            json_int_t nd = json_integer_value(json_object_get(c, "devices"));
            fprintf(f, "Device class `%s`: %lld device%s per %s, driver `%s`%s%s.\n\n",
                    jsv(c, "class"), (long long)nd, nd == 1 ? "" : "s",
                    json_is_true(json_object_get(p, "per_node")) ? "node" : "pool",
                    jsv(c, "driver"),
                    json_is_true(json_object_get(c, "consumes_counters")) ? ", consuming shared counters" : "",
                    json_is_true(json_object_get(c, "multi_allocatable")) ? ", multi-allocatable" : "");
            fputs("| attribute | kind | examples | devices |\n| --- | --- | --- | --- |\n", f);
            json_array_foreach(json_object_get(c, "attributes"), k, x)
            attr_text(f, x, nd, true);
            if (json_array_size(json_object_get(c, "capacities"))) {
                fputs("\n| capacity | example |\n| --- | --- |\n", f);
                json_array_foreach(json_object_get(c, "capacities"), k, x)
                fprintf(f, "| `%s` | %s |\n", jsv(x, "name"), jsv(x, "example"));
            }
            fputs("\n", f);
        }
    }
    fputs("## Claim shapes\n\n"
          "| shape | what | template (defaults) | satisfied by an empty | keys |\n"
          "| --- | --- | --- | --- | --- |\n",
          f);
    json_array_foreach(json_object_get(root, "shapes"), i, x)
    {
        fprintf(f, "| `%s` | ", jsv(x, "name"));
        dra_esc_md(f, jsv(x, "summary"));
        fputs(" | ", f);
        shape_text(f, x, true);
        fprintf(f, " | `%s` | ", jsv(x, "profile"));
        dra_esc_md(f, *jsv(x, "params") ? jsv(x, "params") : "-");
        fputs(" |\n", f);
    }
    fputs("\n## Built-in scenarios\n\n| scenario | description |\n| --- | --- |\n", f);
    json_array_foreach(json_object_get(root, "scenarios"), i, x)
    {
        fprintf(f, "| `%s` | ", jsv(x, "name"));
        dra_esc_md(f, *jsv(x, "error") ? jsv(x, "error") : jsv(x, "description"));
        fputs(" |\n", f);
    }
    json_decref(root);
    return fflush(f) == 0 ? DRA_EXIT_OK : DRA_EXIT_ENV;
}

/* The scheduling part of a group mix entry (a Workload's template and each PodGroup's spec). */
static int group_sched(dra_model_t *m, const dra_scenario_group_t *g, const dra_scenario_built_t *b,
                       uint32_t mix, dra_group_sched_t *out)
{
    memset(out, 0, sizeof *out);
    out->has_policy = true;
    out->gang = g->gang;
    out->basic = !g->gang;
    out->has_min_count = g->gang;
    out->min_count = g->min_count;
    if (g->topology_key) {
        out->has_constraints = true;
        out->topology = dra_model_array(m, 1, sizeof *out->topology);
        if (!out->topology)
            return DRA_ENOMEM;
        out->topology[0] = g->topology_key;
        out->ntopology = 1;
    }
    if (g->nclaims) {
        out->has_claims = true;
        out->claims = dra_model_array(m, g->nclaims, sizeof *out->claims);
        if (!out->claims)
            return DRA_ENOMEM;
        for (uint32_t k = 0; k < g->nclaims; k++) {
            out->claims[k].name = g->claims[k].name;
            out->claims[k].template_name = b->gtemplates[mix * DRA_GROUP_MAX_GCLAIMS + k]->name;
        }
        out->nclaims = g->nclaims;
    }
    return DRA_OK;
}

/* A pod of the workload: its own claim (a template, or a shared claim's name) and, in a group,
 * the group's claims (an entry equal to the PodGroup's is the group's claim). */
static dra_pod_t *new_pod(dra_model_t *m, const char *name, uint32_t nclaims)
{
    dra_pod_t *p = dra_model_add_pod(m);
    dra_pod_claim_t *pc = dra_model_array(m, nclaims, sizeof *pc);
    if (!p || !pc)
        return NULL;
    p->kind = DRA_POD_POD;
    p->namespace_ = dra_model_str(m, "default");
    p->name = dra_model_str(m, name);
    p->replicas = 1;
    p->claims = pc;
    p->nclaims = nclaims;
    return p->name ? p : NULL;
}

/* One Pod per arrival; a group entry's arrival is one PodGroup (scheduling.k8s.io: v1alpha2 in
 * release 1.36, v1beta1 from 1.37) of its pods, each naming it in spec.schedulingGroup, and
 * every group entry has a Workload whose one template ("workers") the PodGroups come from.
 * Departures are not written. */
static int add_pods(dra_model_t *m, const dra_scenario_t *s, const dra_scenario_built_t *b, uint64_t seed,
                    uint64_t max_pods, uint64_t *npods, dra_diag_t *d)
{
    const char *sched_api = s->release >= DRA_RELEASE_1_37 ? "scheduling.k8s.io/v1beta1"
                                                           : "scheduling.k8s.io/v1alpha2";
    for (uint32_t i = 0; i < s->nmix; i++) {
        const dra_scenario_group_t *g = &s->mix[i].group;
        if (!g->pods)
            continue;
        dra_workload_obj_t *wo = dra_model_add_workload(m);
        dra_pg_template_t *tp = dra_model_array(m, 1, sizeof *tp);
        if (!wo || !tp)
            return DRA_ENOMEM;
        wo->namespace_ = dra_model_str(m, "default");
        wo->name = b->templates[i]->name;
        wo->api_version = sched_api;
        tp->name = dra_model_str(m, "workers");
        int rc = group_sched(m, g, b, i, &tp->s);
        if (rc)
            return rc;
        tp->s.has_claims = false; /* claims belong to the PodGroups */
        tp->s.claims = NULL;
        tp->s.nclaims = 0;
        wo->templates = tp;
        wo->ntemplates = 1;
        wo->has_templates = true;
    }
    dra_workload_t w;
    int rc = dra_workload_init(&w, &b->workload, seed, d);
    if (rc)
        return rc;
    dra_wl_event_t ev;
    char name[160];
    *npods = 0;
    while (*npods < max_pods && (rc = dra_workload_next(&w, &ev)) == 1) {
        if (ev.kind != DRA_WL_ARRIVE)
            continue;
        const dra_claim_t *t = b->templates[ev.mix];
        const dra_scenario_group_t *g = &s->mix[ev.mix].group;
        if (g->pods) {
            dra_podgroup_t *pg = dra_model_add_podgroup(m);
            if (!pg) {
                rc = DRA_ENOMEM;
                break;
            }
            snprintf(name, sizeof name, "%s-%llu", t->name, (unsigned long long)ev.pod);
            pg->namespace_ = dra_model_str(m, "default");
            pg->name = dra_model_str(m, name);
            pg->api_version = sched_api;
            pg->has_template_ref = true;
            pg->workload_name = t->name;
            pg->template_name = dra_model_str(m, "workers");
            if ((rc = group_sched(m, g, b, ev.mix, &pg->s)))
                break;
            for (uint32_t k = 0; k < g->pods && *npods < max_pods; k++) {
                char pn[192];
                snprintf(pn, sizeof pn, "%s-%u", pg->name, k);
                dra_pod_t *p = new_pod(m, pn, 1 + g->nclaims);
                if (!p) {
                    rc = DRA_ENOMEM;
                    break;
                }
                p->has_group = true;
                p->group = pg->name;
                p->claims[0].name = dra_model_str(m, "claim");
                p->claims[0].template_name = t->name;
                for (uint32_t c = 0; c < g->nclaims; c++) {
                    p->claims[1 + c].name = pg->s.claims[c].name;
                    p->claims[1 + c].template_name = pg->s.claims[c].template_name;
                }
                (*npods)++;
            }
            if (rc)
                break;
            continue;
        }
        snprintf(name, sizeof name, "pod-%llu", (unsigned long long)ev.pod);
        dra_pod_t *p = new_pod(m, name, 1);
        if (!p) {
            rc = DRA_ENOMEM;
            break;
        }
        dra_pod_claim_t *pc = p->claims;
        pc->name = dra_model_str(m, "claim");
        if (ev.claim != UINT64_MAX) {
            snprintf(name, sizeof name, "%s-%llu", t->name, (unsigned long long)ev.claim);
            if (ev.new_claim && (rc = dra_shape_instantiate(m, t, name, NULL)))
                break;
            pc->claim_name = dra_model_str(m, name);
        } else {
            pc->template_name = t->name;
        }
        (*npods)++;
    }
    dra_workload_fini(&w);
    return rc < 0 ? rc : DRA_OK;
}

/* Streaming output of `gen -o`: the manifests go through the output-file layer (cli.h: a
 * temporary file renamed over a regular target, a device or FIFO written in place, '-' stdout)
 * while their digest is computed; out_close commits, out_abort removes the temporary file.
 * Memory stays bounded by the writer's chunk instead of the whole YAML. */
typedef struct gen_out {
    dra_out_t out;
    bool open;
    XXH3_state_t *h;
    size_t bytes;
    dra_diag_t *d;
    dra_progress_t *prog;
} gen_out_t;

static int out_sink(void *ud, const char *p, size_t n)
{
    gen_out_t *o = ud;
    if (XXH3_64bits_update(o->h, p, n) != XXH_OK)
        return DRA_ENOMEM;
    o->bytes += n;
    if (o->prog)
        dra_progress_update(o->prog, "gen: MiB written", o->bytes >> 20, 0, false);
    if (fwrite(p, 1, n, o->out.f) != n) {
        int e = errno;
        return dra_diag_set(o->d, DRA_EIO, o->out.is_stdout ? "<stdout>" : o->out.path, 0, 0,
                            "write failed: %s", strerror(e));
    }
    return DRA_OK;
}

static int out_open(gen_out_t *o, const char *path, dra_diag_t *d)
{
    memset(o, 0, sizeof *o);
    o->d = d;
    o->h = XXH3_createState();
    if (!o->h || XXH3_64bits_reset(o->h) != XXH_OK)
        return DRA_ENOMEM;
    int rc = dra_out_open(&o->out, path, d);
    o->open = rc == DRA_OK;
    return rc;
}

/* Release everything; remove the temporary file unless it was renamed. */
static void out_abort(gen_out_t *o)
{
    if (o->open)
        dra_out_abort(&o->out);
    o->open = false;
    XXH3_freeState(o->h);
    o->h = NULL;
}

static int out_close(gen_out_t *o, uint64_t *digest)
{
    *digest = XXH3_64bits_digest(o->h);
    o->open = false;
    return dra_out_commit(&o->out, o->d);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Write the model as OUT/manifests.yaml (or "-": stdout) with a progress bar when wanted:
 * *bdig = digest of the bytes, *nbytes their count, path_written the path. An exit status. */
static int write_manifests(const dra_model_t *m, const char *out, dra_progress_when_t when,
                           bool quiet, uint64_t *bdig, size_t *nbytes, char *path_written,
                           size_t written_len)
{
    char dbuf[700];
    dra_diag_t d;
    char path[4096];
    if (strcmp(out, "-") == 0) {
        snprintf(path, sizeof path, "-");
    } else {
        if (dra_io_mkdir_p(out, 0777) != 0) {
            dra_cli_errorf("%s: %s", out, strerror(errno));
            return DRA_EXIT_ENV;
        }
        snprintf(path, sizeof path, "%s/manifests.yaml", out);
    }
    snprintf(path_written, written_len, "%s", path);
    gen_out_t go;
    dra_diag_clear(&d);
    int rc = out_open(&go, path, &d);
    dra_progress_t prog;
    dra_progress_mode_t pm = dra_progress_mode(when, quiet);
    dra_progress_init(&prog, pm == DRA_PROGRESS_BAR ? pm : DRA_PROGRESS_NONE, stderr);
    go.prog = &prog;
    if (rc == DRA_OK) {
        rc = dra_manifest_write_yaml_sink(m, out_sink, &go);
        if (rc == DRA_OK)
            rc = out_close(&go, bdig);
    }
    dra_progress_update(&prog, "gen: MiB written", go.bytes >> 20, 0, true);
    dra_progress_finish(&prog);
    *nbytes = go.bytes;
    out_abort(&go);
    if (rc) {
        /* I/O errors carry a message naming the file; the writer's own do not */
        if (d.msg[0])
            dra_cli_errorf("%s", dra_diag_format(&d, dbuf, sizeof dbuf));
        else
            dra_cli_errorf("writing manifests: %s", dra_strerror(rc));
        return DRA_EXIT_ENV;
    }
    return DRA_EXIT_OK;
}

/* The options of one `drabench gen` run over a scenario. */
typedef struct gen_opts {
    const char *out; /* NULL: write nothing; "-": stdout */
    dra_progress_when_t when;
    unsigned long long seed, max_pods;
    bool has_seed, quiet, json;
} gen_opts_t;

/* What a run built and wrote, for its summary. */
typedef struct gen_result {
    const dra_scenario_t *s;
    const dra_scenario_built_t *b;
    const dra_model_t *m;
    uint64_t seed, npods, mdig, bdig;
    size_t nbytes;
    double t_build;
    const char *path_written;
} gen_result_t;

/* Adds the scenario's extra manifests to m, printing their errors. An exit status. */
static int read_scenario_manifests(dra_model_t *m, const dra_scenario_t *s)
{
    char dbuf[700];
    dra_diag_list_t errs;
    dra_diag_list_init(&errs);
    int rc = dra_scenario_read_manifests(s, m, &errs);
    for (size_t i = 0; i < errs.count; i++)
        dra_cli_errorf("%s", dra_diag_format(&errs.items[i], dbuf, sizeof dbuf));
    dra_diag_list_fini(&errs);
    if (rc)
        return rc == DRA_ENOMEM ? DRA_EXIT_ENV : DRA_EXIT_USAGE;
    return DRA_EXIT_OK;
}

/* Prints the summary as one JSON object on info. An exit status. */
static int print_summary_json(FILE *info, const gen_opts_t *o, const gen_result_t *r)
{
    const dra_scenario_t *s = r->s;
    const dra_scenario_built_t *b = r->b;
    const dra_model_t *m = r->m;
    const char *out = o->out;
    int status = DRA_EXIT_OK;
    char md[17], bd[17], seedtxt[24];
    snprintf(seedtxt, sizeof seedtxt, "%llu", (unsigned long long)r->seed);
    snprintf(md, sizeof md, "%016llx", (unsigned long long)r->mdig);
    snprintf(bd, sizeof bd, "%016llx", (unsigned long long)r->bdig);
    json_t *j = json_pack(
        "{s:s, s:s, s:{s:I, s:I, s:I, s:I, s:I, s:f}, s:{s:I, s:I, s:I, s:s, s:I}, s:I, s:s, "
        "s:o}",
        "scenario", s->name, "seed", seedtxt, "cluster", "nodes",
        (json_int_t)b->cluster.nodes, "slices", (json_int_t)b->cluster.slices, "devices",
        (json_int_t)b->cluster.devices, "accelerators", (json_int_t)b->cluster.gpus, "classes",
        (json_int_t)m->nclasses, "build_s", r->t_build, "workload", "templates",
        (json_int_t)m->ntemplates, "claims", (json_int_t)m->nclaims, "pods", (json_int_t)r->npods,
        "mode", s->mode == DRA_WL_FILL ? "fill" : "steady", "arrivals", (json_int_t)s->count,
        "model_arena_bytes", (json_int_t)m->arena.reserved, "model_digest", md, "written",
        out ? json_pack("{s:o, s:I, s:s}", "path",
                        dra_esc_path_json(strcmp(out, "-") ? r->path_written : "-"), "bytes",
                        (json_int_t)r->nbytes, "manifest_digest", bd)
            : json_null());
    if (!j || json_dumpf(j, info, JSON_INDENT(2)) != 0 || fputc('\n', info) == EOF)
        status = DRA_EXIT_ENV;
    json_decref(j);
    return status;
}

/* Prints the summary as text on info (only the digests with --quiet). */
static void print_summary(FILE *info, const gen_opts_t *o, const gen_result_t *r)
{
    const dra_scenario_t *s = r->s;
    const dra_scenario_built_t *b = r->b;
    const dra_model_t *m = r->m;
    const char *out = o->out;
    if (!o->quiet) {
        fprintf(info, "scenario:  %s (seed %llu)\n", s->name, (unsigned long long)r->seed);
        fprintf(info, "cluster:   %llu nodes, %llu slices, %llu devices, %llu accelerators, %u classes (built in %.3f s)\n",
                (unsigned long long)b->cluster.nodes, (unsigned long long)b->cluster.slices,
                (unsigned long long)b->cluster.devices, (unsigned long long)b->cluster.gpus, m->nclasses,
                r->t_build);
        fprintf(info, "workload:  %u templates, %u claims, %llu pods (%s, %llu arrivals)\n", m->ntemplates,
                m->nclaims, (unsigned long long)r->npods, s->mode == DRA_WL_FILL ? "fill" : "steady",
                (unsigned long long)s->count);
        fprintf(info, "memory:    %.1f MiB model arena\n", (double)m->arena.reserved / (1024.0 * 1024.0));
        if (out)
            dra_cli_notef(info, "written:   %s%s (%zu bytes)", strcmp(out, "-") ? out : "stdout",
                          strcmp(out, "-") ? "/manifests.yaml" : "", r->nbytes);
    }
    fprintf(info, "model digest:    %016llx\n", (unsigned long long)r->mdig);
    if (out)
        fprintf(info, "manifest digest: %016llx\n", (unsigned long long)r->bdig);
}

/* Adds the extra manifests and the pods to the built model m, writes it when asked and prints
 * the summary (d: the diagnostics the build used, reused for the pods). An exit status. */
static int gen_output(dra_model_t *m, dra_scenario_t *s, dra_scenario_built_t *b, const gen_opts_t *o,
                      uint64_t sd, double t_build, dra_diag_t *d)
{
    int rc, status;
    if (s->nmanifests && (status = read_scenario_manifests(m, s)) != DRA_EXIT_OK)
        return status;
    uint64_t npods = 0;
    if ((rc = add_pods(m, s, b, sd, o->max_pods, &npods, d))) {
        dra_cli_errorf("workload: %s", d->msg[0] ? d->msg : dra_strerror(rc));
        return rc == DRA_ENOMEM ? DRA_EXIT_ENV : DRA_EXIT_USAGE;
    }
    char path_written[4096] = "";
    gen_result_t r = {.s = s, .b = b, .m = m, .seed = sd, .npods = npods, .t_build = t_build,
                      .mdig = dra_model_digest(m), .path_written = path_written};
    if (o->out) {
        status = write_manifests(m, o->out, o->when, o->quiet, &r.bdig, &r.nbytes, path_written,
                                 sizeof path_written);
        if (status != DRA_EXIT_OK)
            return status;
    }
    FILE *info = o->out && strcmp(o->out, "-") == 0 ? stderr : stdout;
    if (o->json)
        return print_summary_json(info, o, &r);
    print_summary(info, o, &r);
    return DRA_EXIT_OK;
}

/* Loads scenario name (a file or a built-in), builds its model and does the rest with
 * gen_output. An exit status. */
static int gen_scenario(const char *name, const gen_opts_t *o)
{
    dra_scenario_t s;
    dra_diag_t d;
    char dbuf[700];
    int rc = dra_scenario_load_named(&s, name, &d);
    if (rc) {
        dra_cli_errorf("%s", dra_diag_format(&d, dbuf, sizeof dbuf));
        dra_scenario_fini(&s);
        return rc == DRA_ENOMEM ? DRA_EXIT_ENV : DRA_EXIT_USAGE;
    }
    uint64_t sd = o->has_seed ? o->seed : s.seed;
    dra_model_t m;
    dra_model_init(&m);
    dra_scenario_built_t b;
    int status;
    double t0 = now_s();
    rc = dra_scenario_build(&s, &m, sd, &b, &d);
    double t_build = now_s() - t0;
    if (rc) {
        dra_cli_errorf("%s", dra_diag_format(&d, dbuf, sizeof dbuf));
        status = rc == DRA_ENOMEM ? DRA_EXIT_ENV : DRA_EXIT_USAGE;
    } else {
        status = gen_output(&m, &s, &b, o, sd, t_build, &d);
        dra_scenario_built_fini(&b);
    }
    dra_model_fini(&m);
    dra_scenario_fini(&s);
    return status;
}

int dra_cmd_gen(int argc, char **argv)
{
    enum { OPT_NO_PODS = 256, OPT_PROGRESS, OPT_JSON, OPT_MARKDOWN };
    static const struct option opts[] = {{"output", required_argument, NULL, 'o'},
                                         {"seed", required_argument, NULL, 's'},
                                         {"pods", required_argument, NULL, 'p'},
                                         {"no-pods", no_argument, NULL, OPT_NO_PODS},
                                         {"list", no_argument, NULL, 'l'},
                                         {"quiet", no_argument, NULL, 'q'},
                                         {"progress", required_argument, NULL, OPT_PROGRESS},
                                         {"json", no_argument, NULL, OPT_JSON},
                                         {"markdown", no_argument, NULL, OPT_MARKDOWN},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *out = NULL;
    dra_progress_when_t when = DRA_PROGRESS_AUTO;
    unsigned long long seed = 0, max_pods = 100000;
    bool has_seed = false, list = false, quiet = false, json = false, markdown = false;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:s:p:lqh", opts, NULL)) != -1) {
        switch (c) {
        case 'o':
            out = optarg;
            break;
        case 's':
            if (!dra_io_parse_u64(optarg, &seed))
                return dra_cli_usage_error("gen", "--seed: expected a decimal number 0..2^64-1, "
                                                  "got '%s'", optarg);
            has_seed = true;
            break;
        case 'p':
            if (!dra_io_parse_u64(optarg, &max_pods))
                return dra_cli_usage_error("gen", "--pods: expected a decimal count, got '%s'",
                                           optarg);
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
        case OPT_JSON:
            json = true;
            break;
        case OPT_MARKDOWN:
            markdown = true;
            break;
        case OPT_PROGRESS:
            if (!dra_progress_parse_when(optarg, &when))
                return dra_cli_usage_error("gen", "--progress must be auto, always or never, not '%s'",
                                           optarg);
            break;
        case 'h':
            fputs(help, stdout);
            return DRA_EXIT_OK;
        default:
            return dra_cli_usage_error("gen", "unknown option");
        }
    }
    if (markdown && !list)
        return dra_cli_usage_error("gen", "--markdown goes with --list");
    if (list)
        return optind != argc       ? dra_cli_usage_error("gen", "--list takes no scenario")
               : json && markdown ? dra_cli_usage_error("gen", "--json or --markdown, not both")
               : json             ? list_json()
               : markdown         ? list_markdown()
                                  : list_all();
    if (optind + 1 != argc)
        return dra_cli_usage_error("gen", optind == argc ? "missing SCENARIO" : "exactly one SCENARIO expected");
    gen_opts_t o = {.out = out, .when = when, .seed = seed, .max_pods = max_pods,
                    .has_seed = has_seed, .quiet = quiet, .json = json};
    return gen_scenario(argv[optind], &o);
}
