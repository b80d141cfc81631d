/* embedded.c - lookup over the generated table; see embedded.h. */
#include "embedded.h"

#include <string.h>

const dra_embedded_t *dra_embedded_find(const char *name)
{
    for (const dra_embedded_t *e = dra_embedded_files; e->name; e++)
        if (strcmp(e->name, name) == 0)
            return e;
    return NULL;
}
