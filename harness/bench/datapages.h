/*
 * datapages.h - put the process's large anonymous read-write data (the heap and the anonymous
 * mappings malloc made for the engine's, the device table's and the runner's big arrays) on
 * 2 MiB transparent huge pages before a timed pass.
 *
 * Why: on a large scenario the engine state a release or a placement touches is hundreds of
 * MiB, read at random; on 4 KiB pages most of those reads also miss the TLB (the L2 TLB of the
 * benchmark host covers 8 MiB of 4 KiB pages), and with transparent huge pages in the common
 * "madvise" mode malloc's memory stays on 4 KiB pages unless someone advises it. On 2 MiB pages
 * the same TLB covers GiBs. fleet-5k at its defaults ran about 13% faster with its data on
 * 2 MiB pages (glibc's tunable glibc.malloc.hugetlb=1 on the same binary); this module does it
 * without the tunable (README: `drabench run --data-pages`).
 *
 * How: before each timed pass, untimed (dra_datapages_apply): /proc/self/smaps lists the
 * mappings; every private anonymous read-write mapping (no file, or the [heap]) with at least
 * 2 MiB resident is advised MADV_HUGEPAGE (later faults in it take 2 MiB pages) and every 2 MiB-
 * aligned block of it that holds a resident page and is not yet on huge pages is collapsed at
 * once with MADV_COLLAPSE (synchronous, Linux 6.1+, honoured with THP "enabled" = madvise; the
 * block's pages are copied into a new huge page, its unpopulated pages become resident zeroes).
 * smaps is read again and the result says how many of those mappings' resident bytes are on
 * huge pages (AnonHugePages). Memory mapped after the call is not advised (glibc maps a new
 * region for a big block, and the kernel gives a heap grown past an advised mapping a new,
 * unadvised one), hence the call before every pass, after the set-up, the engine's reset and
 * the warm-up mapped their memory; what a pass maps for itself stays on 4 KiB pages until the
 * next pass (fleet-5k's first pass maps about 250 MiB more, mostly slots' result memory).
 *
 * With the allocation hook (hugemem.h; drabench run installs it before the set-up with
 * --data-pages 2m and DRA_DATA_PAGES_HOOK=1, not by default): the big tables come from a region advised before their first touch and are on
 * 2 MiB pages already; its mappings are not advised or collapsed again. The rest (malloc's heap
 * of small blocks: the runner's slots, the allocation state) is collapsed as before: every
 * 2 MiB block with at least DRA_DATAPAGES_DENSE (1) of its 512 pages resident.
 * DRA_DATA_PAGES_DENSE=N (a test hook) sets that number (513: no collapse). Measured (drabench
 * ab against 8b31146f, 20 + 6 rounds, CPU 1 under load): collapsing only the blocks with 384
 * pages resident made sched-perf-500 slower (throughput 0.938 [0.898, 0.977], pod p99 1.216
 * [1.102, 1.336]: its slots' result memory is sparse and on the timed path), 128 pages pod p99
 * 1.091 [0.959, 1.184], every block 0.985 [0.845, 1.309]; on fleet-5k and fleet-50k no collapse
 * at all against the 384-page rule was no change (pod p99 0.98, 1.00), so the sparse blocks are
 * what a smaller collapse loses.
 *
 * Not the default, measured (dra_datapages_prepare, `drabench run` with the test hook
 * DRA_DATA_PAGES_PREPARE=1): at process start malloc is set to take blocks up to 32 MiB from
 * its heap and to grow it in 1 GiB steps of address space (mallopt M_MMAP_THRESHOLD,
 * M_TOP_PAD), one step is taken at once and the heap advised, so everything faults in on
 * 2 MiB pages with nothing to copy and the passes' own memory is covered too (all of fleet-5k's
 * and fleet-50k's resident data at every pass). It saves the collapse (4.2 s on fleet-50k's
 * 764 MiB) but changes malloc's layout, and fleet-50k's pod p50 was 12% slower with it than on
 * 4 KiB pages where the collapse alone left it unchanged (drabench ab, CPU 1 under load).
 *
 * Not done (reason recorded): when the build has sanitizers or fuzzing (their shadow and
 * quarantine mappings are not the program's data; CMake defines DRA_DATA_HUGE otherwise), under
 * valgrind, when /sys/kernel/mm/transparent_hugepage/enabled says never, when /proc/self/smaps
 * cannot be read, or when the kernel refuses the advice or gives no huge page. A refusal leaves
 * the mappings as they were (an advised mapping the kernel could not collapse keeps its 4 KiB
 * pages; the advice only lets later faults take huge pages).
 *
 * Ownership: plain values. Errors: none reported as failures; the result says 2M or 4K and why.
 * Cost: two reads of /proc/self/smaps (5-10 ms on fleet-50k) and the kernel's copy of each
 * block to collapse, about 3-6 ms per MiB on the benchmark host (it varies with the host's load
 * and free huge pages). Without the allocation hook every resident block is collapsed: 0.65 s
 * before fleet-5k's first pass (194 MiB), 3.8 s before fleet-50k's (766 MiB), and resident
 * memory grows by the untouched pages of the collapsed blocks (peak RSS, 4k -> 2m: fleet-5k 296
 * -> 360 MiB, fleet-50k -n 5000 697 -> 812, mig-inference 113 -> 156, sched-perf-500 58 -> 99).
 * With the hook only what lies outside it is: 0.56 s on fleet-5k at its defaults, 1.1-1.5 s on
 * fleet-50k (the hook's 556 MiB not copied), peak RSS about as without it
 * (results/performance-log.md, "The data on 2 MiB pages"). Call it with one thread only, never
 * inside a timed region.
 */
#ifndef DRA_DATAPAGES_H
#define DRA_DATAPAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DRA_DATAPAGES_REASON_MAX 160
/* A 2 MiB block (outside the allocation hook's region, hugemem.h) is collapsed when at least
 * this many of its 512 pages are resident (see above: fewer collapsed made sched-perf-500
 * slower). */
#define DRA_DATAPAGES_DENSE 1

typedef struct dra_datapages {
    bool huge;          /* some of the large anonymous data is on 2 MiB pages (bytes > 0) */
    uint64_t bytes;     /* AnonHugePages of the large anonymous read-write mappings after the
                           call; 0 when !huge */
    uint64_t resident;  /* their resident bytes then (bytes <= resident) */
    uint64_t collapsed; /* bytes this call collapsed into huge pages */
    uint32_t mappings;  /* how many mappings were large enough */
    uint64_t hook_resident; /* resident bytes of the allocation hook's region (hugemem.h; its
                               blocks faulted in on 2 MiB pages, not collapsed: included in
                               resident when its mapping is large enough) */
    uint64_t hook_huge;     /* AnonHugePages of that region (included in bytes likewise) */
    uint64_t hook_served;   /* bytes in the hook's live blocks then */
    bool hook;              /* the hook is installed (the three hook_ fields are 0 when not) */
    char reason[DRA_DATAPAGES_REASON_MAX]; /* why not (!huge): "" when huge */
} dra_datapages_t;

/* Put the large anonymous data on 2 MiB pages (want = true), or only record that it stays on
 * 4 KiB pages (want = false: reason "turned off (--data-pages 4k)"). Fills *out. */
void dra_datapages_apply(bool want, dra_datapages_t *out);

/* Not the default (see above). At process start, before the set-up allocates: malloc takes
 * blocks up to DRA_DATAPAGES_MMAP_MAX from its heap (M_MMAP_THRESHOLD, fixed) and grows the heap in steps
 * of DRA_DATAPAGES_HEAP_PAD (M_TOP_PAD), one step is taken now and the heap is advised
 * MADV_HUGEPAGE: what the set-up and the passes allocate from it then faults in on 2 MiB pages,
 * with nothing to copy later (a heap grown past the pad gets a new, unadvised mapping, which
 * dra_datapages_apply advises and collapses). The step is address space only: memory comes
 * when touched. true with a note in why; false with the reason (the malloc settings may stay). */
#define DRA_DATAPAGES_HEAP_PAD (1 << 30)
#define DRA_DATAPAGES_MMAP_MAX (32 << 20)
bool dra_datapages_prepare(char *why, size_t whysz);

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
