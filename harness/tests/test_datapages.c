/* test_datapages.c - the /proc/self/maps header parser of datapages.h over fixed lines (the
 * mappings it picks: private anonymous read-write ones and the heap; nothing else), hostile
 * lines included, and dra_datapages_apply on this process. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "datapages.h"

static bool parse(const char *line, dra_maps_line_t *m)
{
    return dra_datapages_parse_line(line, m);
}

static void test_anonymous(void)
{
    dra_maps_line_t m;
    CHECK(parse("7f1c2a000000-7f1c2e000000 rw-p 00000000 00:00 0 \n", &m));
    CHECK_EQ_U64(m.start, 0x7f1c2a000000u);
    CHECK_EQ_U64(m.end, 0x7f1c2e000000u);
    CHECK(m.anon_rw);
    CHECK(!m.heap);
    /* no trailing blank, no newline */
    CHECK(parse("7f1c2a000000-7f1c2e000000 rw-p 00000000 00:00 0", &m));
    CHECK(m.anon_rw);
    CHECK(parse("55d0c1a00000-55d0c9e4e000 rw-p 00000000 00:00 0                          [heap]\n",
                &m));
    CHECK(m.anon_rw);
    CHECK(m.heap);
    CHECK_EQ_U64(m.end - m.start, 0x844e000u);
}

static void test_not_data(void)
{
    dra_maps_line_t m;
    /* a file's private writable mapping (.data of a library) */
    CHECK(parse("7f1c30e1c000-7f1c30e1e000 rw-p 001d5000 fd:01 1835 /usr/lib/libc.so.6\n", &m));
    CHECK(!m.anon_rw);
    /* anonymous but not read-write, or shared */
    CHECK(parse("7f1c2a000000-7f1c2e000000 r--p 00000000 00:00 0\n", &m));
    CHECK(!m.anon_rw);
    CHECK(parse("7f1c2a000000-7f1c2e000000 r-xp 00000000 00:00 0\n", &m));
    CHECK(!m.anon_rw);
    CHECK(parse("7f1c2a000000-7f1c2e000000 rw-s 00000000 00:01 77 /dev/zero (deleted)\n", &m));
    CHECK(!m.anon_rw);
    CHECK(parse("7f1c2a000000-7f1c2e000000 rw-s 00000000 00:00 0\n", &m));
    CHECK(!m.anon_rw);
    /* the stack and the kernel's pages */
    CHECK(parse("7ffd4b1d9000-7ffd4b1fa000 rw-p 00000000 00:00 0 [stack]\n", &m));
    CHECK(!m.anon_rw);
    CHECK(parse("7ffd4b3d0000-7ffd4b3d4000 r--p 00000000 00:00 0 [vvar]\n", &m));
    CHECK(!m.anon_rw);
    /* a path that only starts like the heap's */
    CHECK(parse("55d0c1a00000-55d0c9e4e000 rw-p 00000000 00:00 0 [heap]x\n", &m));
    CHECK(!m.anon_rw && !m.heap);
}

static void test_malformed(void)
{
    dra_maps_line_t m;
    /* smaps' field lines: never a header (some start with hex letters) */
    CHECK(!parse("AnonHugePages:    202752 kB\n", &m));
    CHECK(!parse("Rss:               205872 kB\n", &m));
    CHECK(!parse("FilePmdMapped:         0 kB\n", &m));
    CHECK(!parse("VmFlags: rd wr mr mw me ac sd hg\n", &m));
    CHECK(!parse("", &m));
    CHECK(!parse("\n", &m));
    CHECK(!parse(NULL, &m));
    /* cut short anywhere */
    const char *full = "7f1c2a000000-7f1c2e000000 rw-p 00000000 00:00 0\n";
    char buf[64];
    for (size_t n = 0; n + 2 < strlen(full); n++) {
        memcpy(buf, full, n);
        buf[n] = '\0';
        CHECK_MSG(!parse(buf, &m), "accepted the cut line '%s'", buf);
    }
    /* empty, reversed and overflowing ranges */
    CHECK(!parse("7f1c2e000000-7f1c2e000000 rw-p 00000000 00:00 0\n", &m));
    CHECK(!parse("7f1c2e000000-7f1c2a000000 rw-p 00000000 00:00 0\n", &m));
    CHECK(!parse("17f1c2a0000000000-27f1c2e0000000000 rw-p 00000000 00:00 0\n", &m));
    CHECK(!parse("-7f1c2e000000 rw-p 00000000 00:00 0\n", &m));
    CHECK(!parse("7f1c2a000000 7f1c2e000000 rw-p 00000000 00:00 0\n", &m));
    CHECK(!parse("7f1c2a000000-7f1c2e000000 rw- 00000000 00:00 0\n", &m));
    CHECK(!parse("7f1c2a000000-7f1c2e000000 rw-p 0000zz00 00:00 0\n", &m));
    CHECK(!parse("7f1c2a000000-7f1c2e000000 rw-p 00000000 0000 0\n", &m));
    CHECK(!parse("7f1c2a000000-7f1c2e000000 rw-p 00000000 00:00 x\n", &m));
    CHECK(!parse("7f1c2a000000-7f1c2e000000 rw-p 00000000 00:00 0x\n", &m));
    CHECK(!parse("7f1c2a000000-7f1c2e000000 rw-p 00000000 00:00 99999999999999999999999\n", &m));
    CHECK(!m.anon_rw); /* a rejected line leaves nothing picked */
    /* a long line: a path of 64 KiB, and a mapping header of 64 KiB of hex digits */
    size_t big = 65536;
    char *l = malloc(big + 64);
    CHECK(l != NULL);
    if (l) {
        int k = snprintf(l, 64, "7f1c2a000000-7f1c2e000000 rw-p 00000000 fd:01 12 /");
        memset(l + k, 'a', big);
        l[k + (int)big] = '\0';
        CHECK(parse(l, &m));
        CHECK(!m.anon_rw);
        memset(l, 'f', big);
        memcpy(l + big, "-1 rw-p 0 00:00 0\n", 19);
        CHECK(!parse(l, &m));
        free(l);
    }
}

static void test_apply(void)
{
    /* turned off: 4K with its reason and no bytes */
    dra_datapages_t d;
    dra_datapages_apply(false, &d);
    CHECK(!d.huge);
    CHECK_EQ_U64(d.bytes, 0);
    CHECK(strstr(d.reason, "--data-pages 4k") != NULL);
    CHECK(strcmp(dra_datapages_name(&d), "4K") == 0);
    /* on: 2M with bytes on huge pages, or 4K with a reason; bytes never above the resident */
    size_t n = (size_t)16 << 20;
    char *p = malloc(n);
    CHECK(p != NULL);
    if (!p)
        return;
    memset(p, 1, n);
    dra_datapages_apply(true, &d);
    CHECK(d.bytes <= d.resident);
    if (d.huge) {
        CHECK(d.bytes > 0);
        CHECK(d.reason[0] == '\0');
        CHECK(d.mappings > 0);
        CHECK(strcmp(dra_datapages_name(&d), "2M") == 0);
        CHECK(d.bytes >= (uint64_t)12 << 20); /* the 16 MiB block's aligned part, at least */
    } else {
        CHECK_EQ_U64(d.bytes, 0);
        CHECK(d.reason[0] != '\0');
        fprintf(stderr, "note: data pages stayed 4K here: %s\n", d.reason);
    }
    volatile char sum = 0;
    for (size_t i = 0; i < n; i += 4096)
        sum = (char)(sum + p[i]);
    CHECK(sum == (char)(n / 4096)); /* the bytes survived the collapse */
    free(p);
}

int main(void)
{
    RUN(test_anonymous);
    RUN(test_not_data);
    RUN(test_malformed);
    RUN(test_apply);
    return check_summary();
}
