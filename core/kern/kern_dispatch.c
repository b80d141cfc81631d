/*
 * kern_dispatch.c - run-time choice of the kernel table (baseline ISA); see kern.h.
 *
 * The first dra_kern_get() reads DRA_KERNEL (scalar | avx2 | avx512 | auto); an unknown or
 * unsupported value falls back to the best available kernel (a CLI that wants a hard error calls
 * dra_kern_select itself). "Best" is avx512, then avx2, then scalar, as the CPU allows.
 */
#include <stdlib.h>
#include <string.h>

#include "kern.h"

static const dra_kern_t *g_kern; /* accessed with __atomic builtins */

static bool cpu_has(const char *name)
{
    if (strcmp(name, "scalar") == 0)
        return true;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (strcmp(name, "avx2") == 0)
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2") &&
               __builtin_cpu_supports("popcnt");
    if (strcmp(name, "avx512") == 0)
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
               __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2") &&
               __builtin_cpu_supports("popcnt");
#endif
    return false;
}

static const dra_kern_t *table_of(const char *name)
{
    if (strcmp(name, "scalar") == 0)
        return &dra_kern__scalar;
    if (strcmp(name, "avx2") == 0)
        return &dra_kern__avx2;
    if (strcmp(name, "avx512") == 0)
        return &dra_kern__avx512;
    return NULL;
}

static const dra_kern_t *best(void)
{
    if (cpu_has("avx512"))
        return &dra_kern__avx512;
    if (cpu_has("avx2"))
        return &dra_kern__avx2;
    return &dra_kern__scalar;
}

const dra_kern_t *dra_kern_lookup(const char *name)
{
    if (!name)
        return NULL;
    if (strcmp(name, "auto") == 0)
        return best();
    const dra_kern_t *k = table_of(name);
    return k && cpu_has(name) ? k : NULL;
}

const char *const *dra_kern_names(void)
{
    static const char *const names[] = {"scalar", "avx2", "avx512", NULL};
    return names;
}

int dra_kern_select(const char *name)
{
    if (!name || (strcmp(name, "auto") != 0 && !table_of(name)))
        return DRA_EINVAL;
    const dra_kern_t *k = dra_kern_lookup(name);
    if (!k)
        return DRA_EUNSUPPORTED;
    __atomic_store_n(&g_kern, k, __ATOMIC_RELEASE);
    return DRA_OK;
}

const dra_kern_t *dra_kern_get(void)
{
    const dra_kern_t *k = __atomic_load_n(&g_kern, __ATOMIC_ACQUIRE);
    if (DRA_LIKELY(k != NULL))
        return k;
    const char *env = getenv("DRA_KERNEL");
    k = env && *env ? dra_kern_lookup(env) : NULL;
    if (!k)
        k = best();
    const dra_kern_t *expected = NULL;
    if (!__atomic_compare_exchange_n(&g_kern, &expected, k, false, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE))
        k = expected;
    return k;
}

const char *dra_kern_name(void)
{
    return dra_kern_get()->name;
}
