/*
 * test_fntab.c - the function table DRA_CEL_FN_MAP (cel_int.h) is consistent: names are unique
 * and found by the lookup, every overload signature is well formed, every row the evaluator does
 * not handle itself has an implementation, and the cost rules are known ones.
 */
#include <string.h>

#include "cel/cel_int.h"
#include "check.h"

typedef struct row {
    unsigned fn;
    const char *name;
    const char *impl; /* the impl column as written */
    unsigned cost;
    const char *sigs[16];
} row_t;

static const row_t rows[] = {
#define ROW(id, name, impl, cost, ...)                                                             \
    {DRA_CEL_FN_##id, name, #impl, DRA_CEL_FC_##cost, {__VA_ARGS__}},
    DRA_CEL_FN_MAP(ROW)
#undef ROW
};

/* The rows eval.c evaluates itself (impl NULL). */
static bool eval_handles(unsigned fn)
{
    return fn == DRA_CEL_FN_NONE || fn == DRA_CEL_FN_AND || fn == DRA_CEL_FN_OR ||
           fn == DRA_CEL_FN_COND || fn == DRA_CEL_FN_INDEX || fn == DRA_CEL_FN_OPT_INDEX ||
           fn == DRA_CEL_FN_NOT_STRICTLY_FALSE;
}

static void test_names_and_order(void)
{
    CHECK_EQ_U64(DRA_ARRAY_LEN(rows), DRA_CEL_FN_COUNT);
    for (unsigned i = 0; i < DRA_ARRAY_LEN(rows); i++) {
        CHECK_EQ_U64(rows[i].fn, i);
        CHECK_STREQ(dra_cel_fn_name(i), rows[i].name);
        if (i > 0)
            CHECK_MSG(dra_cel_fn_lookup(rows[i].name, strlen(rows[i].name)) == i,
                      "name %s is not unique", rows[i].name);
    }
    CHECK_STREQ(dra_cel_fn_name(DRA_CEL_FN_COUNT), "?");
    CHECK(dra_cel_fn_lookup("noSuchFunction", 14) == 0);
}

static void test_impl_column(void)
{
    for (unsigned i = 0; i < DRA_ARRAY_LEN(rows); i++) {
        bool null = !strcmp(rows[i].impl, "NULL");
        CHECK_MSG(null == eval_handles(i), "row %s: impl %s", rows[i].name, rows[i].impl);
    }
}

static void test_signatures(void)
{
    static const char args[] = "biudsyqvPDNALMOtpcw";
    static const char results[] = "biudsyqvPDNALMOtpcw1eZxQ";
    for (unsigned i = 0; i < DRA_ARRAY_LEN(rows); i++) {
        CHECK_MSG(rows[i].cost <= DRA_CEL_FC_LIST_PAIR, "row %s: cost rule", rows[i].name);
        for (int k = 0; k < 16 && rows[i].sigs[k]; k++) {
            const char *s = rows[i].sigs[k];
            const char *gt = strchr(s, '>');
            CHECK_MSG(s[0] == 'g' || s[0] == 'm', "row %s: style of %s", rows[i].name, s);
            CHECK_MSG(gt && gt[1] && !gt[2] && strchr(results, gt[1]), "row %s: result of %s",
                      rows[i].name, s);
            if (!gt)
                continue;
            CHECK_MSG(s[0] != 'm' || gt - s >= 2, "row %s: member %s has no receiver",
                      rows[i].name, s);
            for (const char *p = s + 1; p < gt; p++)
                CHECK_MSG(strchr(args, *p) != NULL, "row %s: argument code in %s", rows[i].name,
                          s);
        }
    }
}

int main(void)
{
    RUN(test_names_and_order);
    RUN(test_impl_column);
    RUN(test_signatures);
    return check_summary();
}
