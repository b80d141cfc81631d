/*
 * hugemem.h - the allocator drabench run can install as the core's allocation hook
 * (core/base/mem.h) with --data-pages 2m and the test hook DRA_DATA_PAGES_HOOK=1 (not the default:
 * it cut fleet-50k's collapse from 1.84 to 0.72 s, untimed, but made gpu-sharing's timed work
 * slower in a quiet sitting, throughput 0.922 and pod p99 1.169, p 0.008): the big tables (blocks of at least DRA_HUGEMEM_MIN bytes: the engine's
 * per-row, per-node, per-set and per-counter arrays and every arena's chunks, so the device
 * table's columns, the model and the engine's arena) come from one region of address space
 * advised MADV_HUGEPAGE before anything in it is touched. Their pages fault in as 2 MiB pages:
 * nothing to copy later (datapages.h's MADV_COLLAPSE copies each block it collapses), no
 * untouched 4 KiB pages made resident, and memory allocated during a pass is on 2 MiB pages in
 * that pass too. Small blocks stay with malloc.
 *
 * How: dra_hugemem_install reserves DRA_HUGEMEM_RESERVE bytes of address space (PROT_NONE,
 * 2 MiB-aligned, no memory), advises it MADV_HUGEPAGE and installs the hook. Blocks are carved
 * from its start in 64-byte units (best fit among freed extents, else at the top), the reserved
 * space is made writable in DRA_HUGEMEM_STEP steps as the top grows; a freed block's extent is
 * merged with its free neighbours and reused (its memory stays resident, as malloc's heap does).
 * A zero-filled block is cleared only where the region has handed out memory before.
 *
 * Not installed (reason recorded, the same reasons as datapages.h): sanitizer or fuzzing builds
 * (CMake DRA_DATA_HUGE off), under valgrind, THP "never", or the reservation or the advice
 * refused. Then every block is malloc's.
 *
 * Ownership: the region lives until the process ends (the hook cannot be removed while blocks
 * are outstanding: mem.h). Errors: install returns false with the reason; an allocation the
 * region cannot serve (address space exhausted, mprotect refused) returns NULL like malloc.
 * Cost: install is two system calls; an allocation takes a lock and scans the free extents
 * (few: the whole of fleet-50k -n 5000 -r 3 takes 393 blocks, fleet-5k at its defaults 54) plus
 * an mprotect per DRA_HUGEMEM_STEP of growth; the
 * page faults are 2 MiB ones (the kernel clears 2 MiB at a time). Thread-safe (a mutex). Never
 * called in a timed region (the core allocates nothing there).
 */
#ifndef DRA_HUGEMEM_H
#define DRA_HUGEMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* smaller blocks stay with malloc (and the collapse). 1 MiB: the arenas' chunks and the big
 * tables, which are most of the collapse's copy (fleet-50k: 650 of 670 MiB); the blocks of 64 KiB
 * to 1 MiB left with malloc keep the small scenarios' layout as it was (with 64 KiB,
 * sched-perf-500's pod p99 read 1.10-1.21x in four sittings of six against the collapse
 * alone) */
#define DRA_HUGEMEM_MIN     ((size_t)1 << 20)
#define DRA_HUGEMEM_RESERVE ((size_t)64 << 30) /* address space reserved (not memory) */
#define DRA_HUGEMEM_STEP    ((size_t)32 << 20) /* made writable at a time */

typedef struct dra_hugemem_stats {
    bool installed;
    uint64_t live;        /* bytes in blocks now */
    uint64_t peak;        /* most bytes in blocks at once */
    uint64_t top;         /* bytes of the region ever handed out (its used extent) */
    uint64_t allocs;      /* blocks served */
    uintptr_t start, end; /* the region's used extent [start, end) (its writable part) */
} dra_hugemem_stats_t;

/* Reserve the region and install the hook (min = DRA_HUGEMEM_MIN, or min_override when not 0,
 * for tests). false with the reason in why when not installed (see above); a second call after
 * a successful one changes nothing and returns true. */
bool dra_hugemem_install(size_t min_override, char *why, size_t whysz);

/* What the region has served so far. */
void dra_hugemem_stats(dra_hugemem_stats_t *out);

#endif
