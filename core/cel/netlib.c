/*
 * netlib.c - the Kubernetes CEL IP, CIDR and URL libraries (apiserver pkg/cel/library/ip.go,
 * cidr.go, urls.go), as far as device selectors can use them.
 *
 * IP: ip(s), isIP(s), family(), isUnspecified(), isLoopback(), isLinkLocalMulticast(),
 * isLinkLocalUnicast(), isGlobalUnicast(), string(ip), ==. Addresses follow Go's netip rules as
 * Kubernetes applies them: IPv4 dotted quad without leading zeros, IPv6 without zone, and
 * IPv4-mapped IPv6 addresses rejected.
 * CIDR: cidr(s), isCIDR(s), containsIP(ip|string), containsCIDR(cidr|string), ip(), masked(),
 * prefixLength(), string(cidr), ==.
 * URL: url(s), isURL(s), getScheme(), getHost(), getHostname(), getPort(), getEscapedPath(),
 * getQuery(). Parsing follows Go's url.ParseRequestURI for the common shapes (an absolute URI
 * `scheme:` with an optional `//authority`, or an absolute path); exotic inputs may differ.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "cel_int.h"

#define K(v, k) ((v).kind == DRA_CEL_##k)

/* Parse an IP address per Kubernetes' rules into 16 bytes; returns the family or 0. */
static int parse_ip(const char *s, size_t n, unsigned char out[16])
{
    char buf[64];
    if (n == 0 || n >= sizeof buf || memchr(s, '%', n))
        return 0;
    memcpy(buf, s, n);
    buf[n] = 0;
    memset(out, 0, 16);
    if (!memchr(buf, ':', n)) {
        /* inet_pton accepts exactly four decimal parts; reject leading zeros explicitly */
        for (size_t i = 0; i < n; i++)
            if (buf[i] == '0' && (i == 0 || buf[i - 1] == '.') && i + 1 < n && buf[i + 1] != '.')
                return 0;
        return inet_pton(AF_INET, buf, out) == 1 ? 4 : 0;
    }
    if (inet_pton(AF_INET6, buf, out) != 1)
        return 0;
    static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (!memcmp(out, mapped, 12))
        return 0; /* IPv4-mapped IPv6 is rejected */
    return 6;
}

static int parse_cidr(const char *s, size_t n, unsigned char out[17])
{
    const char *sl = memchr(s, '/', n);
    if (!sl)
        return 0;
    int fam = parse_ip(s, (size_t)(sl - s), out);
    if (!fam)
        return 0;
    const char *p = sl + 1, *e = s + n;
    if (p == e || e - p > 3 || (*p == '0' && e - p > 1))
        return 0;
    int bits = 0;
    for (; p < e; p++) {
        if (*p < '0' || *p > '9')
            return 0;
        bits = bits * 10 + (*p - '0');
    }
    if (bits > (fam == 4 ? 32 : 128))
        return 0;
    out[16] = (unsigned char)bits;
    return fam;
}

static dra_cel_val_t mk_bytes_val(dra_cel_ctx_t *c, uint8_t kind, int fam, const unsigned char *b,
                                  size_t n)
{
    char *p = dra_arena_alloc(c->a, n, 1);
    if (!p) {
        c->oom = true;
        return dra_cel_err(c, "out of memory");
    }
    memcpy(p, b, n);
    dra_cel_val_t v = {.kind = kind, .sub = (uint8_t)fam, .len = (uint32_t)n};
    v.v.s = p;
    return v;
}

static const char *ip_str(int fam, const unsigned char *b, char *buf, size_t len)
{
    if (!inet_ntop(fam == 4 ? AF_INET : AF_INET6, b, buf, (socklen_t)len))
        snprintf(buf, len, "?");
    return buf;
}

static bool in_prefix(const unsigned char *net, int bits, const unsigned char *ip)
{
    int full = bits / 8, rest = bits % 8;
    if (memcmp(net, ip, (size_t)full))
        return false;
    if (rest) {
        unsigned char m = (unsigned char)(0xFF << (8 - rest));
        if ((net[full] & m) != (ip[full] & m))
            return false;
    }
    return true;
}

/* ---- URL ------------------------------------------------------------------------------------ */

typedef struct url_parts {
    const char *scheme, *host, *path, *query;
    size_t scheme_len, host_len, path_len, query_len;
} url_parts_t;

static bool url_parse(const char *s, size_t n, url_parts_t *u)
{
    memset(u, 0, sizeof *u);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] <= 0x20 || s[i] == 0x7f)
            return false;
    const char *p = s, *e = s + n;
    const char *hash = memchr(s, '#', n);
    if (hash)
        e = hash; /* ParseRequestURI keeps '#' in the path; fragments are rare in selectors */
    if (p < e && *p == '/') {
        /* absolute path */
    } else {
        const char *colon = memchr(p, ':', (size_t)(e - p));
        if (!colon || colon == p)
            return false;
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
            return false;
        for (const char *q = p; q < colon; q++)
            if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9') ||
                  *q == '+' || *q == '-' || *q == '.'))
                return false;
        u->scheme = p;
        u->scheme_len = (size_t)(colon - p);
        p = colon + 1;
        if (e - p >= 2 && p[0] == '/' && p[1] == '/') {
            p += 2;
            const char *ae = p;
            while (ae < e && *ae != '/' && *ae != '?')
                ae++;
            const char *at = NULL;
            for (const char *q = p; q < ae; q++)
                if (*q == '@')
                    at = q;
            u->host = at ? at + 1 : p;
            u->host_len = (size_t)(ae - u->host);
            p = ae;
        } else if (p == e || *p != '/') {
            return false; /* opaque URIs are not request URIs */
        }
    }
    const char *qm = memchr(p, '?', (size_t)(e - p));
    u->path = p;
    u->path_len = (size_t)((qm ? qm : e) - p);
    if (qm) {
        u->query = qm + 1;
        u->query_len = (size_t)(e - qm - 1);
    }
    return true;
}

static void host_split(const url_parts_t *u, const char **hn, size_t *hl, const char **port,
                       size_t *pl)
{
    *port = "";
    *pl = 0;
    if (!u->host) {
        *hn = "";
        *hl = 0;
        return;
    }
    const char *h = u->host, *e = u->host + u->host_len;
    if (h < e && *h == '[') {
        const char *rb = memchr(h, ']', (size_t)(e - h));
        if (rb) {
            *hn = h + 1;
            *hl = (size_t)(rb - h - 1);
            if (rb + 1 < e && rb[1] == ':') {
                *port = rb + 2;
                *pl = (size_t)(e - rb - 2);
            }
            return;
        }
    }
    const char *colon = NULL;
    for (const char *q = h; q < e; q++)
        if (*q == ':')
            colon = q;
    *hn = h;
    *hl = colon ? (size_t)(colon - h) : u->host_len;
    if (colon) {
        *port = colon + 1;
        *pl = (size_t)(e - colon - 1);
    }
}

static int hexv(char ch)
{
    return ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
                                             : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
}

static dra_cel_val_t unescape_q(dra_cel_ctx_t *c, const char *s, size_t n, bool *ok)
{
    char *o = dra_arena_alloc(c->a, n + 1, 1);
    size_t k = 0;
    *ok = true;
    if (!o) {
        c->oom = true;
        *ok = false;
        return dra_cel_err(c, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '+') {
            o[k++] = ' ';
        } else if (s[i] == '%' && i + 2 < n && hexv(s[i + 1]) >= 0 && hexv(s[i + 2]) >= 0) {
            o[k++] = (char)(hexv(s[i + 1]) * 16 + hexv(s[i + 2]));
            i += 2;
        } else if (s[i] == '%') {
            *ok = false;
            return dra_cel_str("", 0);
        } else {
            o[k++] = s[i];
        }
    }
    o[k] = 0;
    return dra_cel_str(o, k);
}

static dra_cel_val_t get_query(dra_cel_ctx_t *c, const url_parts_t *u)
{
    dra_cel_map_t *m = dra_arena_calloc(c->a, 1, sizeof *m, 8);
    uint32_t cap = 8;
    if (!m)
        goto oom;
    m->keys = dra_arena_alloc(c->a, cap * sizeof *m->keys, 8);
    m->vals = dra_arena_alloc(c->a, cap * sizeof *m->vals, 8);
    if (!m->keys || !m->vals)
        goto oom;
    const char *p = u->query, *e = u->query + u->query_len;
    while (p && p < e) {
        const char *amp = memchr(p, '&', (size_t)(e - p));
        const char *pe = amp ? amp : e;
        if (pe > p) {
            const char *eq = memchr(p, '=', (size_t)(pe - p));
            bool ok1, ok2;
            dra_cel_val_t k = unescape_q(c, p, (size_t)((eq ? eq : pe) - p), &ok1);
            dra_cel_val_t v = eq ? unescape_q(c, eq + 1, (size_t)(pe - eq - 1), &ok2)
                                 : (ok2 = true, dra_cel_str("", 0));
            if (c->oom)
                goto oom;
            if (ok1 && ok2) {
                int idx = dra_cel_map_find(m, &k);
                dra_cel_list_t *l;
                if (idx < 0) {
                    if (m->n == cap) {
                        dra_cel_val_t *nk = dra_arena_alloc(c->a, cap * 2 * sizeof *nk, 8);
                        dra_cel_val_t *nv = dra_arena_alloc(c->a, cap * 2 * sizeof *nv, 8);
                        if (!nk || !nv)
                            goto oom;
                        memcpy(nk, m->keys, m->n * sizeof *nk);
                        memcpy(nv, m->vals, m->n * sizeof *nv);
                        m->keys = nk;
                        m->vals = nv;
                        cap *= 2;
                    }
                    l = dra_arena_calloc(c->a, 1, sizeof *l, 8);
                    if (!l)
                        goto oom;
                    m->keys[m->n] = k;
                    m->vals[m->n].kind = DRA_CEL_LIST;
                    m->vals[m->n].v.list = l;
                    idx = (int)m->n++;
                }
                l = (dra_cel_list_t *)m->vals[idx].v.list;
                dra_cel_val_t *it = dra_arena_alloc(c->a, (l->n + 1) * sizeof *it, 8);
                if (!it)
                    goto oom;
                if (l->n)
                    memcpy(it, l->items, l->n * sizeof *it);
                it[l->n] = v;
                l->items = it;
                l->n++;
            }
        }
        p = amp ? amp + 1 : e;
    }
    dra_cel_val_t r = {.kind = DRA_CEL_MAP};
    r.v.map = m;
    return r;
oom:
    c->oom = true;
    return dra_cel_err(c, "out of memory");
}

bool dra_cel_netlib_call(dra_cel_ctx_t *c, unsigned fn, const dra_cel_val_t *a, uint32_t n,
                         dra_cel_val_t *out)
{
    unsigned char b[17];
    char buf[80];
    switch (fn) {
    case DRA_CEL_FN_IP:
    case DRA_CEL_FN_IS_IP:
        if (n == 1 && K(a[0], STRING)) {
            int fam = parse_ip(a[0].v.s, a[0].len, b);
            if (fn == DRA_CEL_FN_IS_IP)
                *out = dra_cel_bool(fam != 0);
            else if (!fam)
                *out = dra_cel_err(c, "IP Address %.*s parse error during conversion from string",
                                   (int)DRA_MIN(a[0].len, 64u), a[0].v.s);
            else
                *out = mk_bytes_val(c, DRA_CEL_IP, fam, b, 16);
            return true;
        }
        if (fn == DRA_CEL_FN_IP && n == 1 && K(a[0], CIDR)) {
            *out = mk_bytes_val(c, DRA_CEL_IP, a[0].sub, (const unsigned char *)a[0].v.s, 16);
            return true;
        }
        return false;
    case DRA_CEL_FN_CIDR:
    case DRA_CEL_FN_IS_CIDR:
        if (n == 1 && K(a[0], STRING)) {
            int fam = parse_cidr(a[0].v.s, a[0].len, b);
            if (fn == DRA_CEL_FN_IS_CIDR)
                *out = dra_cel_bool(fam != 0);
            else if (!fam)
                *out = dra_cel_err(c, "network address parse error during conversion from string: %.*s",
                                   (int)DRA_MIN(a[0].len, 64u), a[0].v.s);
            else
                *out = mk_bytes_val(c, DRA_CEL_CIDR, fam, b, 17);
            return true;
        }
        return false;
    case DRA_CEL_FN_STRING:
        if (n == 1 && (K(a[0], IP) || K(a[0], CIDR))) {
            const char *s = ip_str(a[0].sub, (const unsigned char *)a[0].v.s, buf, sizeof buf - 8);
            size_t l = strlen(s);
            if (K(a[0], CIDR))
                l += (size_t)snprintf(buf + l, sizeof buf - l, "/%u", (unsigned char)a[0].v.s[16]);
            char *p = dra_arena_strndup(c->a, buf, l);
            if (!p) {
                c->oom = true;
                *out = dra_cel_err(c, "out of memory");
            } else {
                *out = dra_cel_str(p, l);
            }
            return true;
        }
        return false;
    case DRA_CEL_FN_FAMILY:
    case DRA_CEL_FN_IS_UNSPECIFIED:
    case DRA_CEL_FN_IS_LOOPBACK:
    case DRA_CEL_FN_IS_LL_MULTICAST:
    case DRA_CEL_FN_IS_LL_UNICAST:
    case DRA_CEL_FN_IS_GLOBAL_UNICAST: {
        if (n != 1 || !K(a[0], IP))
            return false;
        const unsigned char *x = (const unsigned char *)a[0].v.s;
        bool v4 = a[0].sub == 4;
        static const unsigned char zero[16];
        static const unsigned char lo6[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
        bool unspec = !memcmp(x, zero, v4 ? 4 : 16);
        bool loop = v4 ? x[0] == 127 : !memcmp(x, lo6, 16);
        bool llm = v4 ? (x[0] == 224 && x[1] == 0 && x[2] == 0) : (x[0] == 0xff && (x[1] & 0x0f) == 0x02);
        bool llu = v4 ? (x[0] == 169 && x[1] == 254) : (x[0] == 0xfe && (x[1] & 0xc0) == 0x80);
        bool mc = v4 ? (x[0] & 0xf0) == 0xe0 : x[0] == 0xff;
        bool bcast = v4 && x[0] == 255 && x[1] == 255 && x[2] == 255 && x[3] == 255;
        switch (fn) {
        case DRA_CEL_FN_FAMILY: *out = dra_cel_int(v4 ? 4 : 6); break;
        case DRA_CEL_FN_IS_UNSPECIFIED: *out = dra_cel_bool(unspec); break;
        case DRA_CEL_FN_IS_LOOPBACK: *out = dra_cel_bool(loop); break;
        case DRA_CEL_FN_IS_LL_MULTICAST: *out = dra_cel_bool(llm); break;
        case DRA_CEL_FN_IS_LL_UNICAST: *out = dra_cel_bool(llu); break;
        default: *out = dra_cel_bool(!unspec && !loop && !mc && !llu && !bcast); break;
        }
        return true;
    }
    case DRA_CEL_FN_CONTAINS_IP:
    case DRA_CEL_FN_CONTAINS_CIDR: {
        if (n != 2 || !K(a[0], CIDR))
            return false;
        const unsigned char *net = (const unsigned char *)a[0].v.s;
        int bits = net[16], fam;
        unsigned char other[17];
        if (K(a[1], STRING)) {
            fam = fn == DRA_CEL_FN_CONTAINS_IP ? parse_ip(a[1].v.s, a[1].len, other)
                                               : parse_cidr(a[1].v.s, a[1].len, other);
            if (!fam) {
                *out = dra_cel_err(c, "%s parse error: %.*s",
                                   fn == DRA_CEL_FN_CONTAINS_IP ? "IP Address" : "network address",
                                   (int)DRA_MIN(a[1].len, 64u), a[1].v.s);
                return true;
            }
        } else if ((fn == DRA_CEL_FN_CONTAINS_IP && K(a[1], IP)) ||
                   (fn == DRA_CEL_FN_CONTAINS_CIDR && K(a[1], CIDR))) {
            fam = a[1].sub;
            memcpy(other, a[1].v.s, a[1].kind == DRA_CEL_CIDR ? 17 : 16);
        } else {
            return false;
        }
        bool r = fam == a[0].sub && in_prefix(net, bits, other);
        if (fn == DRA_CEL_FN_CONTAINS_CIDR)
            r = r && other[16] >= bits;
        *out = dra_cel_bool(r);
        return true;
    }
    case DRA_CEL_FN_MASKED:
    case DRA_CEL_FN_PREFIX_LENGTH: {
        if (n != 1 || !K(a[0], CIDR))
            return false;
        memcpy(b, a[0].v.s, 17);
        if (fn == DRA_CEL_FN_PREFIX_LENGTH) {
            *out = dra_cel_int(b[16]);
            return true;
        }
        int bits = b[16];
        for (int i = 0; i < 16; i++) {
            int keep = bits - i * 8;
            if (keep >= 8)
                continue;
            b[i] = keep <= 0 ? 0 : (unsigned char)(b[i] & (0xFF << (8 - keep)));
        }
        *out = mk_bytes_val(c, DRA_CEL_CIDR, a[0].sub, b, 17);
        return true;
    }
    case DRA_CEL_FN_URL:
    case DRA_CEL_FN_IS_URL:
        if (n == 1 && K(a[0], STRING)) {
            url_parts_t u;
            bool ok = url_parse(a[0].v.s, a[0].len, &u);
            if (fn == DRA_CEL_FN_IS_URL) {
                *out = dra_cel_bool(ok);
            } else if (!ok) {
                *out = dra_cel_err(c, "URL parse error during conversion from string: %.*s",
                                   (int)DRA_MIN(a[0].len, 64u), a[0].v.s);
            } else {
                *out = a[0];
                out->kind = DRA_CEL_URL;
            }
            return true;
        }
        return false;
    case DRA_CEL_FN_GET_SCHEME:
    case DRA_CEL_FN_GET_HOST:
    case DRA_CEL_FN_GET_HOSTNAME:
    case DRA_CEL_FN_GET_PORT:
    case DRA_CEL_FN_GET_ESCAPED_PATH:
    case DRA_CEL_FN_GET_QUERY: {
        if (n != 1 || !K(a[0], URL))
            return false;
        url_parts_t u;
        if (!url_parse(a[0].v.s, a[0].len, &u)) {
            *out = dra_cel_err(c, "invalid URL");
            return true;
        }
        const char *hn, *port;
        size_t hl, pl;
        host_split(&u, &hn, &hl, &port, &pl);
        switch (fn) {
        case DRA_CEL_FN_GET_SCHEME: *out = dra_cel_str(u.scheme ? u.scheme : "", u.scheme_len); break;
        case DRA_CEL_FN_GET_HOST: *out = dra_cel_str(u.host ? u.host : "", u.host_len); break;
        case DRA_CEL_FN_GET_HOSTNAME: *out = dra_cel_str(u.host ? hn : "", u.host ? hl : 0); break;
        case DRA_CEL_FN_GET_PORT: *out = dra_cel_str(port, pl); break;
        case DRA_CEL_FN_GET_ESCAPED_PATH: *out = dra_cel_str(u.path, u.path_len); break;
        default: *out = get_query(c, &u); break;
        }
        return true;
    }
    default:
        return false;
    }
}
