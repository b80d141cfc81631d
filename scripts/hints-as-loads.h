/*
 * scripts/hints-as-loads.h - a measurement-only build in which every prefetch hint is a load that
 * callgrind's cache simulation sees (scripts/profile: the simulation ignores prefetch
 * instructions, so a normal build cannot say which lines a look-ahead fails to bring in).
 * Never part of a product build: passed to the compiler with -include, e.g.
 *
 *     cmake -S . -B build/hints -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDRA_DEBUG=0 \
 *           -DCMAKE_C_FLAGS="-include $PWD/scripts/hints-as-loads.h"
 *     cmake --build build/hints --target drabench
 *     DRABENCH=build/hints/drabench scripts/profile fleet-5k -n 60000
 *
 * The loaded byte is stored (to a volatile sink, one weak definition in every file): a load whose value
 * is dropped, `(void)*(volatile char *)p`, is compiled, but Valgrind's translation removes it
 * when a later instruction of the same block overwrites its register before any use (a chain of
 * hints in one function), so callgrind never simulates it. The store hits the first level and
 * costs an instruction and a write per hint. It includes no header (it comes before every
 * file's feature macros). xxhash's own hints are left out.
 */
#ifndef DRA_HINTS_AS_LOADS_H
#define DRA_HINTS_AS_LOADS_H
/* xxhash's hints run ahead of its input (as loads they could leave the buffer's mapping) */
#define XXH_NO_PREFETCH 1
__attribute__((weak)) volatile char dra__hint_sink;
#define DRA__HINT_FIRST(p, ...) (p)
#define __builtin_prefetch(...)                                                                    \
    ((void)(dra__hint_sink = *(const volatile char *)(const void *)DRA__HINT_FIRST(__VA_ARGS__, 0)))
#endif
