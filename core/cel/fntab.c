/*
 * fntab.c - names of the CEL functions and operators (the name column of DRA_CEL_FN_MAP in
 * cel_int.h) and the name -> id lookup, shared by the checker and the library's error messages.
 */
#include <string.h>

#include "cel_int.h"

static const char *const fn_names[] = {
#define DRA_CEL_FN_NAME(id, name, ...) name,
    DRA_CEL_FN_MAP(DRA_CEL_FN_NAME)
#undef DRA_CEL_FN_NAME
};

const char *dra_cel_fn_name(unsigned fn)
{
    return fn < DRA_CEL_FN_COUNT ? fn_names[fn] : "?";
}

unsigned dra_cel_fn_lookup(const char *name, size_t len)
{
    for (unsigned i = 1; i < DRA_CEL_FN_COUNT; i++)
        if (strlen(fn_names[i]) == len && !memcmp(fn_names[i], name, len))
            return i;
    return 0;
}
