/*
 * datapages.h - put the process's large anonymous read-write data (the heap and the anonymous
 * mappings malloc made for the engine's, the device table's and the runner's big arrays) on
 * 2 MiB transparent huge pages before a timed pass.
 *
 * Why: on a large scenario the engine state a release or a placement touches is hundreds of
 * MiB, read at random; on 4 KiB pages most of those reads also miss the TLB (the L2 TLB of the
 * benchmark host covers 8 MiB of 4 KiB pages), and with transparent huge pages in the common
 * "madvise" mode malloc's memory stays on 4 KiB pages unless someone advises it. On 2 MiB pages
 * the same TLB covers GiBs. fleet-5k at its defaults runs about 13% faster with its data on
 * 2 MiB pages (harness/bench/README.md).
 *
 * How: /proc/self/smaps lists the mappings; every private anonymous read-write mapping (no
 * file, or the [heap]) with at least 2 MiB resident is advised MADV_HUGEPAGE (later faults in it
 * get 2 MiB pages, khugepaged may collapse it later) and every 2 MiB-aligned block of it that
 * holds a resident page and is not yet one huge page is collapsed at once with MADV_COLLAPSE
 * (synchronous, Linux 6.1+, honoured with THP "enabled" = madvise; its pages are copied into a
 * new huge page, the block's unpopulated pages become resident zeroes). smaps is read again and
 * the result says how many of those mappings' resident bytes are on huge pages (AnonHugePages).
 * Memory mapped after the call is not advised (glibc maps a new region for a big malloc and
 * the kernel makes a new mapping when the heap grows past an advised part), so the runner calls
 * this before every timed pass, untimed, after the set-up and the warm-up made their memory.
 *
 * Not done (reason recorded): when the build has sanitizers or fuzzing (their shadow and
 * quarantine mappings are not the program's data; CMake defines DRA_DATA_HUGE otherwise), under
 * valgrind, when /sys/kernel/mm/transparent_hugepage/enabled says never, when /proc/self/smaps
 * cannot be read, or when the kernel refuses the advice or gives no huge page. A refusal leaves
 * the mappings as they were (an advised mapping the kernel could not collapse keeps its 4 KiB
 * pages; the advice only lets later faults take huge pages).
 *
 * Ownership: plain values. Errors: none reported as failures; the result says 2M or 4K and why.
 * Cost: two reads of /proc/self/smaps and the kernel's copy of each collapsed block (about
 * 3 ms per MiB on the benchmark host: 0.6 s for fleet-5k's 200 MiB before its first pass, less
 * before later passes, whose blocks are mostly huge already); resident memory grows by the
 * untouched pages of the collapsed blocks. Call it with one thread only, never inside a timed
 * region.
 */
#ifndef DRA_DATAPAGES_H
#define DRA_DATAPAGES_H

#include <stdbool.h>
#include <stdint.h>

#define DRA_DATAPAGES_REASON_MAX 160

typedef struct dra_datapages {
    bool huge;          /* some of the large anonymous data is on 2 MiB pages (bytes > 0) */
    uint64_t bytes;     /* AnonHugePages of the large anonymous read-write mappings after the
                           call; 0 when !huge */
    uint64_t resident;  /* their resident bytes then (bytes <= resident); 0 when turned off */
    uint64_t collapsed; /* bytes this call collapsed into huge pages */
    uint32_t mappings;  /* how many mappings were large enough */
    char reason[DRA_DATAPAGES_REASON_MAX]; /* why not (!huge): "" when huge */
} dra_datapages_t;

/* Put the large anonymous data on 2 MiB pages (want = true), or only record that it stays on
 * 4 KiB pages (want = false: reason "turned off (--data-pages 4k)"). Fills *out. */
void dra_datapages_apply(bool want, dra_datapages_t *out);

/* "2M" or "4K", the value of the result file's run.method.data_pages. */
const char *dra_datapages_name(const dra_datapages_t *d);

/* One header line of /proc/self/maps or smaps ("start-end perms offset dev inode [path]"),
 * parsed. The line may lack its newline or be cut short; false for anything that is not a
 * mapping header (smaps' field lines included). */
typedef struct dra_maps_line {
    uintptr_t start, end;
    bool anon_rw;       /* private, read-write, no file: empty path or [heap] */
    bool heap;          /* the [heap] */
} dra_maps_line_t;
bool dra_datapages_parse_line(const char *line, dra_maps_line_t *out);

#endif
