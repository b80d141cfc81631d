/* textpages.c - the executable's read-only segments onto 2 MiB pages (textpages.h). */
#define _GNU_SOURCE
#include "textpages.h"

#include "compiler.h"

#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define DRA_HAVE_VALGRIND_H 1
#endif
#endif

#ifndef DRA_TEXT_HUGE
#define DRA_TEXT_HUGE 0
#endif
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

#define HUGE_SZ ((uintptr_t)2 << 20)
#define MAX_SEGS 8

typedef struct seg {
    uintptr_t start, end; /* the segment in memory (p_vaddr + base, + p_memsz) */
    int prot;
    bool code;
} seg_t;

typedef struct segs {
    seg_t s[MAX_SEGS];
    int n;
    bool found;
} segs_t;

static void set_reason(dra_textpages_t *t, const char *fmt, ...) DRA_PRINTF(2, 3);
static void set_reason(dra_textpages_t *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->reason, sizeof t->reason, fmt, ap);
    va_end(ap);
}

/* The main program is the first object dl_iterate_phdr reports. */
static int collect(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    segs_t *g = data;
    if (g->found)
        return 1;
    g->found = true;
    for (int i = 0; i < info->dlpi_phnum && g->n < MAX_SEGS; i++) {
        const ElfW(Phdr) *p = &info->dlpi_phdr[i];
        /* read-only loads past the ELF headers: code and constants (the headers' segment is
         * read by the dynamic linker at start-up only) */
        if (p->p_type != PT_LOAD || (p->p_flags & PF_W) || p->p_offset == 0 || p->p_memsz == 0)
            continue;
        seg_t *s = &g->s[g->n++];
        s->start = (uintptr_t)info->dlpi_addr + (uintptr_t)p->p_vaddr;
        s->end = s->start + (uintptr_t)p->p_memsz;
        s->prot = PROT_READ | ((p->p_flags & PF_X) ? PROT_EXEC : 0);
        s->code = (p->p_flags & PF_X) != 0;
    }
    return 1;
}

bool dra_thp_enabled(char *why, size_t whysz)
{
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (!f) {
        snprintf(why, whysz, "no transparent huge pages (/sys/kernel/mm/transparent_hugepage)");
        return false;
    }
    char line[128] = "";
    bool ok = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    if (!ok || strstr(line, "[never]")) {
        snprintf(why, whysz, "transparent huge pages are off (/sys/kernel/mm/"
                             "transparent_hugepage/enabled: never)");
        return false;
    }
    return true;
}

bool dra_under_valgrind(void)
{
#ifdef DRA_HAVE_VALGRIND_H
    if (RUNNING_ON_VALGRIND)
        return true;
#endif
    const char *pre = getenv("LD_PRELOAD");
    return pre && strstr(pre, "vgpreload") != NULL;
}

/* Every mapping that meets [r0, r1) lies inside [lo, hi) (the segment's own pages): the rest
 * of the rounded region is unused. False when /proc/self/maps cannot be read. */
static bool region_free(uintptr_t r0, uintptr_t r1, uintptr_t lo, uintptr_t hi)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return false;
    char line[512];
    bool ok = true;
    while (ok && fgets(line, sizeof line, f)) {
        unsigned long a, b;
        if (sscanf(line, "%lx-%lx", &a, &b) != 2)
            continue;
        if (b <= r0 || a >= r1)
            continue;
        if (a < lo || b > hi)
            ok = false;
        if (!strchr(line, '\n')) { /* skip the rest of a long line */
            int ch;
            while ((ch = fgetc(f)) != EOF && ch != '\n')
                ;
        }
    }
    fclose(f);
    return ok;
}

/* AnonHugePages of the mapping that starts at addr, in bytes (0 when not found). */
static uint64_t anon_huge_bytes(uintptr_t addr)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return 0;
    char line[512];
    bool in = false;
    uint64_t kb = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long a, b;
        /* a mapping's header ("start-end perms ..."); no field name parses as two hex
         * numbers joined by '-' */
        if (sscanf(line, "%lx-%lx", &a, &b) == 2) {
            in = a == addr;
            continue;
        }
        unsigned long long v;
        if (in && sscanf(line, "AnonHugePages: %llu kB", &v) == 1) {
            kb = v;
            break;
        }
    }
    fclose(f);
    return kb * 1024;
}

/* One segment onto huge pages; false with the reason when it stays where it is. */
static bool move_seg(const seg_t *s, dra_textpages_t *t)
{
    long pg = sysconf(_SC_PAGESIZE);
    uintptr_t psz = pg > 0 ? (uintptr_t)pg : 4096;
    uintptr_t r0 = s->start & ~(HUGE_SZ - 1);
    uintptr_t r1 = (s->end + HUGE_SZ - 1) & ~(HUGE_SZ - 1);
    uintptr_t lo = s->start & ~(psz - 1), hi = (s->end + psz - 1) & ~(psz - 1);
    size_t len = (size_t)(r1 - r0);
    if (!region_free(r0, r1, lo, hi)) {
        set_reason(t, "the executable is not laid out on 2 MiB boundaries (its %s segment shares "
                      "a 2 MiB region with other mappings; link with -z max-page-size=0x200000: "
                      "CMake option DRA_TEXT_HUGE)",
                   s->code ? "code" : "read-only data");
        return false;
    }
    void *raw = mmap(NULL, len + HUGE_SZ, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (raw == MAP_FAILED) {
        set_reason(t, "mmap of %zu bytes: %s", len + HUGE_SZ, strerror(errno));
        return false;
    }
    uintptr_t a = ((uintptr_t)raw + HUGE_SZ - 1) & ~(HUGE_SZ - 1);
    if (a > (uintptr_t)raw)
        munmap(raw, a - (uintptr_t)raw);
    uintptr_t tail = (uintptr_t)raw + len + HUGE_SZ - (a + len);
    if (tail)
        munmap((void *)(a + len), tail);
    void *na = (void *)a;
    if (madvise(na, len, MADV_HUGEPAGE) != 0) {
        set_reason(t, "madvise(MADV_HUGEPAGE): %s", strerror(errno));
        munmap(na, len);
        return false;
    }
    memcpy((char *)na + (s->start - r0), (const void *)s->start, s->end - s->start);
    if (anon_huge_bytes(a) < len) {
        (void)madvise(na, len, MADV_COLLAPSE); /* synchronous, Linux 6.1+ */
        uint64_t got = anon_huge_bytes(a);
        if (got < len) {
            set_reason(t, "the kernel gave no 2 MiB page (AnonHugePages %llu of %zu kB)",
                       (unsigned long long)(got >> 10), len >> 10);
            munmap(na, len);
            return false;
        }
    }
    if (mprotect(na, len, s->prot) != 0) {
        set_reason(t, "mprotect: %s", strerror(errno));
        munmap(na, len);
        return false;
    }
    /* the bytes at the destination are identical, so the code running this continues */
    void *r = mremap(na, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)r0);
    if (r == MAP_FAILED || (uintptr_t)r != r0) {
        set_reason(t, "mremap: %s", strerror(errno));
        if (r == MAP_FAILED)
            munmap(na, len);
        return false;
    }
    if (anon_huge_bytes(r0) < len) {
        set_reason(t, "moved, but the kernel split the 2 MiB page");
        return false;
    }
    t->bytes += s->end - s->start;
    if (s->code)
        t->code_bytes += s->end - s->start;
    return true;
}

void dra_textpages_apply(bool want, dra_textpages_t *out)
{
    memset(out, 0, sizeof *out);
    if (!want) {
        set_reason(out, "turned off (--text-pages 4k)");
        return;
    }
    if (!DRA_TEXT_HUGE) {
        set_reason(out, "not in this build (CMake option DRA_TEXT_HUGE off: sanitizer, fuzzing "
                        "or a build without 2 MiB segment alignment)");
        return;
    }
    if (dra_under_valgrind()) {
        set_reason(out, "under valgrind");
        return;
    }
    if (!dra_thp_enabled(out->reason, sizeof out->reason))
        return;
    segs_t g;
    memset(&g, 0, sizeof g);
    dl_iterate_phdr(collect, &g);
    bool have_code = false;
    for (int i = 0; i < g.n; i++)
        have_code |= g.s[i].code;
    if (!have_code) {
        set_reason(out, "no executable segment found (dl_iterate_phdr)");
        return;
    }
    /* code first: without it the result is 4K whatever the constants got */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < g.n; i++) {
            if (g.s[i].code != (pass == 0))
                continue;
            char why[DRA_TEXTPAGES_REASON_MAX];
            memcpy(why, out->reason, sizeof why);
            if (!move_seg(&g.s[i], out)) {
                if (g.s[i].code) {
                    out->bytes = 0;
                    return;
                }
                memcpy(out->reason, why, sizeof why); /* constants: best effort */
            }
        }
    out->huge = true;
    out->reason[0] = '\0';
}

const char *dra_textpages_name(const dra_textpages_t *t)
{
    return t->huge ? "2M" : "4K";
}
