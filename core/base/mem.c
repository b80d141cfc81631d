/* mem.c - the allocation hook for the big tables; see mem.h. */
#include "mem.h"

#include <stdint.h>
#include <stdlib.h>

static dra_mem_hook_t hook;
static bool hooked;

void dra_mem_set_hook(const dra_mem_hook_t *h)
{
    if (h && h->alloc && h->resize && h->release && h->owns) {
        hook = *h;
        hooked = true;
    } else {
        hooked = false;
    }
}

bool dra_mem_hooked(void)
{
    return hooked;
}

void *dra_mem_malloc(size_t size)
{
    if (hooked && size >= hook.min)
        return hook.alloc(hook.ctx, size, false);
    return malloc(size);
}

void *dra_mem_calloc(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    if (hooked && n * size >= hook.min)
        return hook.alloc(hook.ctx, n * size, true);
    return calloc(n, size);
}

void *dra_mem_realloc(void *p, size_t size)
{
    if (!p)
        return dra_mem_malloc(size);
    if (hooked && hook.owns(hook.ctx, p))
        return hook.resize(hook.ctx, p, size);
    return realloc(p, size);
}

void dra_mem_free(void *p)
{
    if (!p)
        return;
    if (hooked && hook.owns(hook.ctx, p))
        hook.release(hook.ctx, p);
    else
        free(p);
}
