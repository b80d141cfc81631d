/* reasons.c - the dominant per-node reasons of a claim set no node took; see reasons.h. */
#include "reasons.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/intern.h"

typedef struct grp {
    uint64_t h;
    uint32_t first, count;
    dra_why_kind_t kind;
    bool absent; /* dra_why_absent: listed after the others */
    char *text;
} grp_t;

static int cmp_grp(const void *a, const void *b)
{
    const grp_t *x = a, *y = b;
    if (x->absent != y->absent)
        return x->absent ? 1 : -1;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return x->first < y->first ? -1 : x->first > y->first;
}

int dra_node_reasons(dra_explainer_t *x, const dra_model_t *m, dra_claim_t *const *claims,
                     uint32_t n, dra_node_reason_fn summary, void *ud, uint32_t max_exact,
                     dra_node_reasons_t *out)
{
    memset(out, 0, sizeof *out);
    grp_t *g = NULL;
    uint32_t ng = 0, cap = 0;
    int rc = DRA_OK;
    for (uint32_t i = 0; i < m->nnodes && rc == DRA_OK; i++) {
        dra_why_t w;
        memset(&w, 0, sizeof w);
        int s = summary ? summary(ud, i, &w) : 0;
        if (s < 0)
            continue;
        if (s == 0) {
            if (out->exact < max_exact) {
                rc = dra_explain_unsat(x, m->nodes[i], claims, n, &w);
                if (rc)
                    break;
                out->exact++;
            } else {
                dra_why_begin(&w, DRA_WHY_UNEXAMINED, NULL, UINT32_MAX, 0, "", NULL, 0);
                snprintf(w.text, sizeof w.text,
                         "not examined (the allocator explains at most %u nodes per shape)",
                         max_exact);
            }
        }
        out->nodes++;
        uint64_t h = dra_hash64(w.text, strlen(w.text));
        uint32_t k = 0;
        while (k < ng && (g[k].h != h || strcmp(g[k].text, w.text) != 0))
            k++;
        if (k == ng) {
            if (ng == cap) {
                uint32_t nc = cap ? 2 * cap : 16;
                grp_t *ngp = realloc(g, nc * sizeof *ngp);
                if (!ngp) {
                    rc = DRA_ENOMEM;
                    break;
                }
                g = ngp;
                cap = nc;
            }
            g[ng].h = h;
            g[ng].first = i;
            g[ng].count = 0;
            g[ng].kind = w.kind;
            g[ng].absent = dra_why_absent(&w);
            g[ng].text = strdup(w.text);
            if (!g[ng].text) {
                rc = DRA_ENOMEM;
                break;
            }
            ng++;
        }
        g[k].count++;
    }
    if (rc == DRA_OK && ng) {
        qsort(g, ng, sizeof *g, cmp_grp);
        for (uint32_t k = 0; k < ng; k++) {
            if (k < DRA_NODE_REASONS_MAX) {
                dra_node_reason_t *r = &out->r[out->n++];
                r->kind = g[k].kind;
                r->nodes = g[k].count;
                snprintf(r->text, sizeof r->text, "%s", g[k].text);
            } else {
                out->other_groups++;
                out->other_nodes += g[k].count;
            }
        }
    }
    for (uint32_t k = 0; k < ng; k++)
        free(g[k].text);
    free(g);
    return rc;
}

const char *dra_thousands(uint64_t v, char *buf, size_t len)
{
    char t[32];
    int n = snprintf(t, sizeof t, "%llu", (unsigned long long)v);
    size_t k = 0;
    for (int i = 0; i < n && k + 2 < len; i++) {
        if (i && (n - i) % 3 == 0)
            buf[k++] = ',';
        buf[k++] = t[i];
    }
    buf[k] = 0;
    return buf;
}

/* Append s to buf (used bytes *at), cut at a UTF-8 boundary; false when it did not fit. */
static bool append(char *buf, size_t len, size_t *at, const char *s)
{
    size_t n = strlen(s), room = len - *at - 1;
    if (n <= room) {
        memcpy(buf + *at, s, n + 1);
        *at += n;
        return true;
    }
    size_t k = room >= 3 ? room - 3 : 0;
    while (k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80)
        k--;
    memcpy(buf + *at, s, k);
    memcpy(buf + *at + k, "...", room >= 3 ? 4 : 1);
    *at = len - 1;
    return false;
}

const char *dra_node_reasons_text(const dra_node_reasons_t *r, uint32_t k, char *buf, size_t len)
{
    size_t at = 0;
    char part[DRA_WHY_TEXT_MAX + 64], a[32];
    buf[0] = 0;
    if (len < 8)
        return buf;
    uint32_t shown = 0, rest_n = r->other_nodes, rest_g = r->other_groups;
    for (uint32_t i = 0; i < r->n; i++) {
        if (shown == k) {
            rest_n += r->r[i].nodes;
            rest_g++;
            continue;
        }
        snprintf(part, sizeof part, "%s%s node%s: %s", shown ? "; " : "",
                 dra_thousands(r->r[i].nodes, a, sizeof a), r->r[i].nodes == 1 ? "" : "s",
                 r->r[i].text);
        if (!append(buf, len, &at, part))
            return buf;
        shown++;
    }
    if (rest_g) {
        snprintf(part, sizeof part, "%s%u other reason%s on %s node%s", shown ? "; " : "", rest_g,
                 rest_g == 1 ? "" : "s", dra_thousands(rest_n, a, sizeof a),
                 rest_n == 1 ? "" : "s");
        append(buf, len, &at, part);
    }
    return buf;
}
