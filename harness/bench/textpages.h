/*
 * textpages.h - move the running executable's code (and its read-only data) onto 2 MiB
 * transparent huge pages, so that where the code sits in the physically indexed caches is the
 * same in every process and every copy of the executable.
 *
 * Why: every process of one executable file shares that file's page-cache pages, so the
 * physical placement of its code (which L2/L3 sets each function's lines fall in) is fixed per
 * file and differs between two files of the same bytes; two copies of one build time
 * differently by up to a few per cent, stably per file. On a 2 MiB page the physical offset of
 * a byte equals its virtual offset within the page, which the link fixes (the build links the
 * executable with 2 MiB segment alignment: CMake option DRA_TEXT_HUGE), so all processes of
 * all copies place the code alike.
 *
 * How: for each read-only PT_LOAD segment of the main program past its ELF headers (code,
 * then constants), the 2 MiB-rounded region around it must hold nothing but that segment; an
 * anonymous 2 MiB-aligned region is mapped, advised MADV_HUGEPAGE (MADV_COLLAPSE if the first
 * touch did not give huge pages), the segment's bytes copied in, checked in /proc/self/smaps
 * (AnonHugePages), made read-only (and executable for code), and mremap'd over the original
 * range: the bytes are identical, so the code that runs the remap continues. Any failure
 * before the remap leaves the process as it was (4 KiB pages of the file) with the reason.
 *
 * Not done (reason recorded): when the build disables it (sanitizers, fuzzing: DRA_TEXT_HUGE
 * off), under valgrind (its translation of the code would not follow), when
 * /sys/kernel/mm/transparent_hugepage/enabled says never, when the executable is not laid out
 * on 2 MiB boundaries, or when the kernel gives no huge page. Profilers that name functions by
 * the file mapping (perf) see anonymous code afterwards: `drabench run --text-pages 4k`.
 *
 * Ownership: plain values. Errors: none reported as failures; the result says 2M or 4K and
 * why. Cost: about 2 MiB copied per segment and one huge page each (4 MiB of memory for this
 * executable), once at process start, before any timed work. Call it with one thread only.
 */
#ifndef DRA_TEXTPAGES_H
#define DRA_TEXTPAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DRA_TEXTPAGES_REASON_MAX 160

typedef struct dra_textpages {
    bool huge;         /* every byte of the executable's code is on 2 MiB pages */
    uint64_t bytes;    /* bytes of the executable's read-only segments (code included) moved
                          onto 2 MiB pages; 0 when !huge */
    uint64_t code_bytes; /* of which code */
    char reason[DRA_TEXTPAGES_REASON_MAX]; /* why not (!huge): "" when huge */
} dra_textpages_t;

/* Move the code and read-only data onto 2 MiB pages (want = true), or only record that they
 * stay on 4 KiB pages (want = false: reason "turned off (--text-pages 4k)"). Fills *out. */
void dra_textpages_apply(bool want, dra_textpages_t *out);

/* The transparent huge page mode: true unless /sys/kernel/mm/transparent_hugepage/enabled
 * says never or is absent (then false with the reason in why). Also used by datapages.h. */
bool dra_thp_enabled(char *why, size_t whysz);

/* True when the process runs under valgrind (its client request, or its preload library). */
bool dra_under_valgrind(void);

/* "2M" or "4K", the value of the result file's run.method.text_pages. */
const char *dra_textpages_name(const dra_textpages_t *t);

#endif
