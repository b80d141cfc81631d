/* escape.c - one escaping function per output target; see escape.h. */
#include "escape.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static const char replacement[] = "\xEF\xBF\xBD"; /* U+FFFD */

size_t dra_utf8_decode(const char *str, unsigned *cp)
{
    const unsigned char *s = (const unsigned char *)str;
    unsigned c = s[0];
    size_t n;
    unsigned v, min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    } else if (c >= 0xC2 && c <= 0xDF) {
        n = 2, v = c & 0x1F, min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3, v = c & 0x0F, min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4, v = c & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return n;
}

bool dra_esc_is_control(unsigned cp)
{
    return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F) || cp == 0x061C ||
           (cp >= 0x200E && cp <= 0x200F) || (cp >= 0x2028 && cp <= 0x202E) ||
           (cp >= 0x2066 && cp <= 0x2069);
}

static void put_visible(FILE *f, unsigned cp)
{
    if (cp < 0x100)
        fprintf(f, "\\x%02x", cp);
    else
        fprintf(f, "\\u%04x", cp);
}

/* A gnuplot string between quote characters q: no escape sequence is processed inside, so q itself
 * is written as q_as; a line break would end the command, so control characters are written as
 * visible text; invalid UTF-8 becomes U+FFFD. */
static void gnuplot_quoted(FILE *f, const char *s, char q, const char *q_as)
{
    fputc(q, f);
    for (size_t i = 0; s && s[i];) {
        unsigned cp;
        size_t n = dra_utf8_decode(s + i, &cp);
        if (n == 0) {
            fputs(replacement, f);
            i++;
            continue;
        }
        if (dra_esc_is_control(cp))
            put_visible(f, cp);
        else if (cp == (unsigned char)q)
            fputs(q_as, f);
        else
            fwrite(s + i, 1, n, f);
        i += n;
    }
    fputc(q, f);
}

void dra_esc_gnuplot(FILE *f, const char *s)
{
    gnuplot_quoted(f, s, '\'', "''"); /* single-quoted script literal: '' is a quote */
}

void dra_esc_gnuplot_data(FILE *f, const char *s)
{
    gnuplot_quoted(f, s, '"', "'"); /* a "..." data column has no escapes: " becomes ' */
}

void dra_esc_html(FILE *f, const char *s)
{
    for (size_t i = 0; s && s[i];) {
        unsigned cp;
        size_t n = dra_utf8_decode(s + i, &cp);
        if (n == 0) {
            fputs("&#xFFFD;", f);
            i++;
            continue;
        }
        switch (cp) {
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '&':
            fputs("&amp;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        case '\'':
            fputs("&#39;", f);
            break;
        default:
            if (dra_esc_is_control(cp))
                put_visible(f, cp);
            else
                fwrite(s + i, 1, n, f);
        }
        i += n;
    }
}

void dra_esc_md(FILE *f, const char *s)
{
    for (size_t i = 0; s && s[i];) {
        unsigned cp;
        size_t n = dra_utf8_decode(s + i, &cp);
        if (n == 0) {
            fputs(replacement, f);
            i++;
            continue;
        }
        switch (cp) {
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '&':
            fputs("&amp;", f);
            break;
        case '\\':
        case '`':
        case '[':
        case ']':
        case '|':
        case '!':
            fputc('\\', f);
            fputc((int)cp, f);
            break;
        default:
            if (cp == '\n' || cp == '\r' || cp == '\t')
                fputc(' ', f);
            else if (dra_esc_is_control(cp))
                fprintf(f, cp < 0x100 ? "\\\\x%02x" : "\\\\u%04x", cp);
            else
                fwrite(s + i, 1, n, f);
        }
        i += n;
    }
}

void dra_esc_md_code(FILE *f, const char *s)
{
    size_t run = 0, longest = 0;
    for (size_t i = 0; s && s[i]; i++) {
        run = s[i] == '`' ? run + 1 : 0;
        longest = run > longest ? run : longest;
    }
    size_t len = s ? strlen(s) : 0;
    bool pad = len && (s[0] == '`' || s[len - 1] == '`');
    for (size_t k = 0; k <= longest; k++)
        fputc('`', f);
    if (pad)
        fputc(' ', f);
    for (size_t i = 0; s && s[i];) {
        unsigned cp;
        size_t n = dra_utf8_decode(s + i, &cp);
        if (n == 0) {
            fputs(replacement, f);
            i++;
            continue;
        }
        if (cp == '|')
            fputs("\\|", f);
        else if (cp == '\n' || cp == '\r' || cp == '\t')
            fputc(' ', f);
        else if (dra_esc_is_control(cp))
            put_visible(f, cp);
        else
            fwrite(s + i, 1, n, f);
        i += n;
    }
    if (pad)
        fputc(' ', f);
    for (size_t k = 0; k <= longest; k++)
        fputc('`', f);
}

void dra_esc_line(FILE *f, const char *s)
{
    for (size_t i = 0; s && s[i];) {
        unsigned cp;
        size_t n = dra_utf8_decode(s + i, &cp);
        if (n == 0) {
            fputs(replacement, f);
            i++;
            continue;
        }
        if (dra_esc_is_control(cp))
            fputc(' ', f);
        else
            fwrite(s + i, 1, n, f);
        i += n;
    }
}

const char *dra_esc_bench_name(char *buf, size_t len, const char *s)
{
    if (!buf || len == 0)
        return buf;
    size_t k = 0;
    for (size_t i = 0; s && s[i] && k + 1 < len; i++) {
        unsigned char c = (unsigned char)s[i];
        buf[k++] = c > 0x20 && c < 0x7F ? (char)c : '_';
    }
    buf[k] = '\0';
    return buf;
}

void dra_esc_term(FILE *f, const char *s)
{
    for (size_t i = 0; s && s[i];) {
        unsigned cp;
        size_t n = dra_utf8_decode(s + i, &cp);
        if (n == 0) {
            fprintf(f, "\\x%02x", (unsigned char)s[i]);
            i++;
            continue;
        }
        if (dra_esc_is_control(cp))
            put_visible(f, cp);
        else
            fwrite(s + i, 1, n, f);
        i += n;
    }
}

void dra_esc_term_text(FILE *f, const char *text, size_t len)
{
    size_t i = 0, start = 0;
    while (i < len) {
        unsigned cp = 0;
        size_t n = text[i] ? dra_utf8_decode(text + i, &cp) : 0;
        if (n && i + n <= len && (!dra_esc_is_control(cp) || cp == '\n' || cp == '\t')) {
            i += n;
            continue;
        }
        fwrite(text + start, 1, i - start, f);
        if (n && i + n <= len)
            put_visible(f, cp);
        else
            fprintf(f, "\\x%02x", (unsigned char)text[i]);
        i += n && i + n <= len ? n : 1;
        start = i;
    }
    fwrite(text + start, 1, i - start, f);
}

const char *dra_esc_term_buf(char *buf, size_t len, const char *s)
{
    if (!buf || len == 0)
        return buf;
    size_t k = 0;
    for (size_t i = 0; s && s[i];) {
        unsigned cp;
        size_t n = dra_utf8_decode(s + i, &cp);
        char tmp[16];
        const char *piece = s + i;
        size_t plen = n;
        if (n == 0) {
            snprintf(tmp, sizeof tmp, "\\x%02x", (unsigned char)s[i]);
            piece = tmp, plen = strlen(tmp), n = 1;
        } else if (dra_esc_is_control(cp)) {
            snprintf(tmp, sizeof tmp, cp < 0x100 ? "\\x%02x" : "\\u%04x", cp);
            piece = tmp, plen = strlen(tmp);
        }
        if (k + plen + 1 > len)
            break;
        memcpy(buf + k, piece, plen);
        k += plen;
        i += n;
    }
    buf[k] = '\0';
    return buf;
}

int dra_esc_sh(char *buf, size_t len, const char *s)
{
    size_t k = 0;
    if (!buf || len == 0)
        return -1;
    buf[k++] = '\'';
    for (; s && *s; s++) {
        if (*s == '\'') {
            if (k + 4 >= len)
                goto full;
            memcpy(buf + k, "'\\''", 4);
            k += 4;
        } else {
            if (k + 1 >= len)
                goto full;
            buf[k++] = *s;
        }
    }
    if (k + 2 > len)
        goto full;
    buf[k++] = '\'';
    buf[k] = '\0';
    return 0;
full:
    buf[0] = '\0';
    return -1;
}

char *dra_esc_path(const char *s)
{
    size_t n = s ? strlen(s) : 0, k = 0;
    char *out = malloc(4 * n + 1); /* every byte at most "\xNN" */
    if (!out)
        return NULL;
    for (size_t i = 0; i < n;) {
        unsigned cp;
        size_t m = dra_utf8_decode(s + i, &cp);
        if (m && !dra_esc_is_control(cp)) {
            if (cp == '\\')
                out[k++] = '\\';
            memcpy(out + k, s + i, m);
            k += m;
            i += m;
            continue;
        }
        for (size_t j = 0; j < (m ? m : 1); j++) {
            static const char hex[] = "0123456789abcdef";
            unsigned char b = (unsigned char)s[i + j];
            out[k++] = '\\';
            out[k++] = 'x';
            out[k++] = hex[b >> 4];
            out[k++] = hex[b & 15];
        }
        i += m ? m : 1;
    }
    out[k] = '\0';
    return out;
}

json_t *dra_esc_path_json(const char *s)
{
    if (!s)
        return json_null();
    char *e = dra_esc_path(s);
    json_t *j = e ? json_string(e) : NULL;
    free(e);
    return j;
}

json_t *dra_esc_text_json(const char *s)
{
    json_t *j = json_string(s ? s : "");
    if (j)
        return j;
    size_t n = strlen(s), k = 0;
    char *out = malloc(4 * n + 1);
    if (!out)
        return NULL;
    for (size_t i = 0; i < n;) {
        unsigned cp;
        size_t m = dra_utf8_decode(s + i, &cp);
        if (m) {
            memcpy(out + k, s + i, m);
            k += m;
            i += m;
        } else {
            k += (size_t)snprintf(out + k, 5, "\\x%02x", (unsigned char)s[i]);
            i++;
        }
    }
    out[k] = '\0';
    j = json_string(out);
    free(out);
    return j;
}
