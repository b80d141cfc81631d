/* cmd_validate.c - `drabench validate FILE|DIR...`: read manifests, report every problem. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "manifest.h"

static const char help[] =
    "drabench validate - check Kubernetes DRA manifests as the API server and allocator would\n"
    "\n"
    "Usage: drabench validate [options] FILE|DIR...\n"
    "\n"
    "Reads ResourceSlices, DeviceClasses, ResourceClaims, ResourceClaimTemplates (resource.k8s.io\n"
    "v1, v1beta2, v1beta1, v1alpha3), Pods, workloads and Nodes from YAML or JSON files, or from\n"
    "directories walked recursively (*.yaml, *.yml, *.json), and lists every problem on stderr as\n"
    "file:line:col: Kind/name: field.path: reason, followed by a summary line.\n"
    "Rules that depend on the Kubernetes release are warnings unless --release is given; required\n"
    "fields that documentation examples trim (a slice's driver, pool, node scoping) are warnings\n"
    "unless --strict is given.\n"
    "\n"
    "Options:\n"
    "  -r, --release VER   apply the rules of Kubernetes 1.34, 1.35 or 1.36   (default: any)\n"
    "  -s, --strict        report incomplete objects as errors                 (default: warnings)\n"
    "  -q, --quiet         do not print warnings or the summary line\n"
    "  -h, --help          show this help\n"
    "\n"
    "Examples:\n"
    "  drabench validate ../shared/real-manifests\n"
    "  drabench validate --release 1.35 --strict slices.yaml claims/\n"
    "\n"
    "Exit status: 0 all valid, 2 invalid input or usage error, 4 a file could not be read.\n";

static void print_list(const dra_diag_list_t *l, const char *sev)
{
    char buf[DRA_DIAG_MSG_MAX + 512];
    for (size_t i = 0; i < l->count; i++) {
        const dra_diag_t *d = &l->items[i];
        if (d->file && d->line)
            snprintf(buf, sizeof buf, "%s:%u:%u: %s: %s", d->file, d->line, d->column, sev, d->msg);
        else if (d->file)
            snprintf(buf, sizeof buf, "%s: %s: %s", d->file, sev, d->msg);
        else
            snprintf(buf, sizeof buf, "%s: %s", sev, d->msg);
        fprintf(stderr, "%s\n", buf);
    }
    if (l->dropped)
        fprintf(stderr, "... and %zu more %ss not shown\n", l->dropped, sev);
}

int dra_cmd_validate(int argc, char **argv)
{
    static const struct option opts[] = {{"release", required_argument, NULL, 'r'},
                                         {"strict", no_argument, NULL, 's'},
                                         {"quiet", no_argument, NULL, 'q'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    dra_validate_opts_t vo = {0, 0};
    int quiet = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "r:sqh", opts, NULL)) != -1) {
        switch (c) {
        case 'r':
            if (strcmp(optarg, "1.34") == 0)
                vo.release = 134;
            else if (strcmp(optarg, "1.35") == 0)
                vo.release = 135;
            else if (strcmp(optarg, "1.36") == 0)
                vo.release = 136;
            else
                return dra_cli_usage_error("validate", "--release must be 1.34, 1.35 or 1.36, not '%s'",
                                           optarg);
            break;
        case 's':
            vo.flags |= DRA_VALIDATE_STRICT;
            break;
        case 'q':
            quiet = 1;
            break;
        case 'h':
            fputs(help, stdout);
            return DRA_EXIT_OK;
        default:
            return dra_cli_usage_error("validate", "unknown option");
        }
    }
    if (optind >= argc)
        return dra_cli_usage_error("validate", "no FILE or DIR given");
    dra_model_t m;
    dra_model_init(&m);
    dra_diag_list_t errs, warns;
    dra_diag_list_init(&errs);
    dra_diag_list_init(&warns);
    int rrc = dra_manifest_read_paths(&m, argv + optind, argc - optind, &errs);
    int vrc = dra_manifest_validate_ex(&m, &vo, &errs, &warns);
    print_list(&errs, "error");
    if (!quiet)
        print_list(&warns, "warning");
    size_t nerr = errs.count + errs.dropped, nwarn = warns.count + warns.dropped;
    if (!quiet)
        fprintf(stderr,
                "validate: %u slices (%llu devices), %u classes, %u claims, %u templates, %u pods "
                "and workloads, %u nodes, %u documents skipped: %zu error%s, %zu warning%s\n",
                m.nslices, (unsigned long long)m.ndevices, m.nclasses, m.nclaims, m.ntemplates,
                m.npods, m.nnodes, m.nskipped, nerr, nerr == 1 ? "" : "s", nwarn,
                nwarn == 1 ? "" : "s");
    int status = DRA_EXIT_OK;
    if (rrc == DRA_EIO && nerr == 1)
        status = DRA_EXIT_ENV;
    else if (rrc == DRA_ENOMEM || vrc == DRA_ENOMEM)
        status = DRA_EXIT_ENV;
    else if (nerr || rrc || vrc)
        status = DRA_EXIT_USAGE;
    dra_diag_list_fini(&errs);
    dra_diag_list_fini(&warns);
    dra_model_fini(&m);
    return status;
}
