/* cmd_version.c - `drabench version [--json]`: version, build configuration, dependencies. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "alloc/alloc.h"
#include "buildinfo.h"
#include "cli.h"
#include "kern/kern.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

static const char help[] =
    "drabench version - print version, build configuration and dependency versions\n"
    "\n"
    "Usage: drabench version [--json]\n"
    "\n"
    "Options:\n"
    "  -j, --json     print a JSON object (build configuration, as jq's --build-configuration;\n"
    "                 `releases`: the allocator release profiles and the upstream sources each\n"
    "                 follows)\n"
    "  -h, --help     show this help\n"
    "\n"
    "Exit status: 0.\n";

int dra_cmd_version(int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    int json = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
        switch (c) {
        case 'j':
            json = 1;
            break;
        case 'h':
            fputs(help, stdout);
            return DRA_EXIT_OK;
        default:
            return dra_cli_usage_error("version", "unknown option");
        }
    }
    unsigned xv = XXH_versionNumber();
    char xxver[32];
    snprintf(xxver, sizeof xxver, "%u.%u.%u", xv / 10000, (xv / 100) % 100, xv % 100);
    json_t *avail = json_array();
    char kbuf[128] = "";
    for (const char *const *k = dra_kern_names(); *k; k++) {
        if (!dra_kern_lookup(*k))
            continue;
        json_array_append_new(avail, json_string(*k));
        size_t l = strlen(kbuf);
        snprintf(kbuf + l, sizeof kbuf - l, "%s%s", l ? " " : "", *k);
    }
    if (json) {
        json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:{s:s, s:s, s:s}}", "version",
                              DRA_VERSION, "git", DRA_BUILD_GIT, "build_type", DRA_BUILD_TYPE,
                              "compiler", DRA_BUILD_COMPILER, "flags", DRA_BUILD_FLAGS,
                              "sanitize", DRA_BUILD_SANITIZE, "deps", "libyaml",
                              yaml_get_version_string(), "jansson", jansson_version_str(),
                              "xxhash", xxver);
        if (!o) {
            json_decref(avail);
            return DRA_EXIT_ENV;
        }
        json_object_set_new(o, "kernel", json_pack("{s:s, s:o}", "selected", dra_kern_name(),
                                                   "available", avail));
        json_t *rels = json_array();
        for (size_t i = 0; i < DRA_RELEASE_COUNT; i++) {
            dra_release_t r = dra_alloc_releases[i];
            json_array_append_new(rels, json_pack("{s:s, s:s, s:b}", "name",
                                                  dra_alloc_release_name(r), "follows",
                                                  dra_alloc_release_source(r), "default",
                                                  r == DRA_RELEASE_DEFAULT));
        }
        json_object_set_new(o, "releases", rels);
        char *s = json_dumps(o, JSON_INDENT(2) | JSON_SORT_KEYS);
        json_decref(o);
        if (!s)
            return DRA_EXIT_ENV;
        puts(s);
        free(s);
        return DRA_EXIT_OK;
    }
    printf("drabench %s (%s)\n", DRA_VERSION, DRA_BUILD_GIT);
    printf("build:    %s, %s, flags '%s'%s%s\n", DRA_BUILD_TYPE, DRA_BUILD_COMPILER,
           DRA_BUILD_FLAGS, *DRA_BUILD_SANITIZE ? ", sanitizers " : "", DRA_BUILD_SANITIZE);
    printf("deps:     libyaml %s, jansson %s, xxhash %s\n", yaml_get_version_string(),
           jansson_version_str(), xxver);
    printf("kernels:  %s (selected: %s; force with DRA_KERNEL=scalar|avx2|avx512)\n", kbuf,
           dra_kern_name());
    for (size_t i = 0; i < DRA_RELEASE_COUNT; i++) {
        dra_release_t r = dra_alloc_releases[i];
        printf("%s %-8s  %s%s\n", i ? "         " : "releases:", dra_alloc_release_name(r),
               dra_alloc_release_source(r), r == DRA_RELEASE_DEFAULT ? " (default)" : "");
    }
    json_decref(avail);
    return DRA_EXIT_OK;
}
