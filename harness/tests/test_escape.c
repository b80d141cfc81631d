/* test_escape.c - the escaping layer (escape.h), message building (dra_msg_format) and the
 * output-file layer (dra_out_*). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "check.h"
#include "cli.h"
#include "escape.h"

typedef void (*esc_fn)(FILE *, const char *);

/* Output of fn(s) as a malloc'd string. */
static char *esc(esc_fn fn, const char *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    fn(f, s);
    fclose(f);
    return buf;
}

static bool valid_utf8(const char *s)
{
    for (size_t i = 0; s[i];) {
        unsigned cp;
        size_t n = dra_utf8_decode(s + i, &cp);
        if (!n)
            return false;
        i += n;
    }
    return true;
}

static bool has_control(const char *s)
{
    for (size_t i = 0; s[i];) {
        unsigned cp;
        size_t n = dra_utf8_decode(s + i, &cp);
        if (!n || dra_esc_is_control(cp))
            return true;
        i += n;
    }
    return false;
}

static void test_gnuplot(void)
{
    /* the exploit: a newline ends the string and the next line runs */
    char *s = esc(dra_esc_gnuplot, "x\nsystem(\"touch MARKER\")\nprint \"y");
    CHECK(strchr(s, '\n') == NULL);
    CHECK(strcmp(s, "'x\\x0asystem(\"touch MARKER\")\\x0aprint \"y'") == 0);
    free(s);
    s = esc(dra_esc_gnuplot, "it's");
    CHECK(strcmp(s, "'it''s'") == 0);
    free(s);
    s = esc(dra_esc_gnuplot, "\r\x1b[2J\xff");
    CHECK(strcmp(s, "'\\x0d\\x1b[2J\xEF\xBF\xBD'") == 0);
    free(s);
    s = esc(dra_esc_gnuplot_data, "a \"b\"\nc");
    CHECK(strcmp(s, "\"a 'b'\\x0ac\"") == 0);
    free(s);
}

static void test_html(void)
{
    char *s = esc(dra_esc_html, "<script>alert('x')</script> & \"q\"");
    CHECK(strcmp(s, "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;") == 0);
    free(s);
    s = esc(dra_esc_html, "\xc3\xa9\xc3");
    CHECK(strcmp(s, "\xc3\xa9&#xFFFD;") == 0);
    free(s);
}

static void test_markdown(void)
{
    char *s = esc(dra_esc_md, "a|b <img src=x> ![t](http://h/i.png)\nnext `c`");
    CHECK(strcmp(s, "a\\|b &lt;img src=x&gt; \\!\\[t\\](http://h/i.png) next \\`c\\`") == 0);
    free(s);
    s = esc(dra_esc_md_code, "dir/a|b`c.json");
    CHECK(strcmp(s, "``dir/a\\|b`c.json``") == 0);
    free(s);
    s = esc(dra_esc_md_code, "`x");
    CHECK(strcmp(s, "`` `x ``") == 0);
    free(s);
}

static void test_benchfmt_and_line(void)
{
    char buf[64];
    CHECK(strcmp(dra_esc_bench_name(buf, sizeof buf, "first fit\nBenchmarkX 1 2 ns/op"),
                 "first_fit_BenchmarkX_1_2_ns/op") == 0);
    CHECK(strcmp(dra_esc_bench_name(buf, 6, "abcdefgh"), "abcde") == 0);
    char *s = esc(dra_esc_line, "AMD\nUnit ns/op better=higher\x1b");
    CHECK(strcmp(s, "AMD Unit ns/op better=higher ") == 0);
    free(s);
}

static void test_terminal(void)
{
    char *s = esc(dra_esc_term, "a\x1b]0;pwned\x07z \xe2\x80\xae rtl \xc2\x9b \xfe ok \xc3\xa9");
    CHECK(strcmp(s, "a\\x1b]0;pwned\\x07z \\u202e rtl \\x9b \\xfe ok \xc3\xa9") == 0);
    CHECK(!has_control(s));
    free(s);
    char buf[12];
    /* truncated at a whole escape, never inside one */
    CHECK(strcmp(dra_esc_term_buf(buf, sizeof buf, "ab\x1b\x1b\x1b"), "ab\\x1b\\x1b") == 0);
    CHECK(strcmp(dra_esc_term_buf(buf, 4, "\xc3\xa9\xc3\xa9"), "\xc3\xa9") == 0);
}

static void test_shell(void)
{
    char buf[32];
    CHECK_EQ_I64(dra_esc_sh(buf, sizeof buf, "a'b c"), 0);
    CHECK(strcmp(buf, "'a'\\''b c'") == 0);
    CHECK_EQ_I64(dra_esc_sh(buf, 8, "abcdefghij"), -1);
    CHECK(buf[0] == '\0');
}

/* Long messages keep the reason; values are cut at character boundaries; no control bytes. */
static void test_message_building(void)
{
    char big[3000];
    size_t k = 0;
    while (k + 2 < sizeof big - 1) {
        big[k++] = '\xc3'; /* é */
        big[k++] = '\xa9';
    }
    big[k] = '\0';
    char msg[DRA_DIAG_MSG_MAX];
    dra_msg_format(msg, sizeof msg, "unknown key \"%s\" in %s: expected one of a, b, c", big,
                   "spec.devices[0]");
    CHECK(strlen(msg) < sizeof msg);
    CHECK(valid_utf8(msg));
    CHECK_MSG(strstr(msg, "\" in spec.devices[0]: expected one of a, b, c") != NULL, "%s", msg);
    CHECK(strncmp(msg, "unknown key \"\xc3\xa9", 15) == 0);
    CHECK(strstr(msg, "\xe2\x80\xa6") != NULL); /* … marks the cut */

    /* the diagnostic path: dra_diag_set builds the same way */
    dra_diag_t d;
    dra_diag_set(&d, DRA_EVALIDATE, "f.yaml", 3, 7, "value %s: must be a DNS label (%d)", big, 63);
    CHECK(valid_utf8(d.msg));
    CHECK(strstr(d.msg, ": must be a DNS label (63)") != NULL);

    /* control characters and invalid UTF-8 in values are made visible */
    dra_msg_format(msg, sizeof msg, "name %s bad", "a\x1b[31mred\xff");
    CHECK(strcmp(msg, "name a\\x1b[31mred\\xff bad") == 0);
    /* a file name with an escape sequence is shown escaped too */
    dra_diag_set(&d, DRA_EPARSE, "evil\x1b[2J.yaml", 1, 2, "x");
    char out[DRA_DIAG_MSG_MAX + 64];
    dra_diag_format(&d, out, sizeof out);
    CHECK(strcmp(out, "evil\\x1b[2J.yaml:1:2: x") == 0);

    /* every conversion renders as printf does when nothing needs shortening */
    char want[256];
    dra_msg_format(msg, sizeof msg, "%d|%5u|%-4s|%lld|%zu|%llx|%.3f|%g|%c|%%|%.*s|%*d|%08.2f",
                   -12, 7u, "ab", -5ll, (size_t)42, 0xbeefull, 3.14159, 1e-7, 'Z', 3, "abcdef",
                   4, 9, 2.5);
    snprintf(want, sizeof want, "%d|%5u|%-4s|%lld|%zu|%llx|%.3f|%g|%c|%%|%.*s|%*d|%08.2f", -12, 7u,
             "ab", -5ll, (size_t)42, 0xbeefull, 3.14159, 1e-7, 'Z', 3, "abcdef", 4, 9, 2.5);
    CHECK_MSG(strcmp(msg, want) == 0, "%s vs %s", msg, want);

    /* a tiny buffer: valid, terminated, nothing cut inside a character */
    char tiny[6];
    dra_msg_format(tiny, sizeof tiny, "\xc3\xa9\xc3\xa9\xc3\xa9%s", "x");
    CHECK(valid_utf8(tiny) && strcmp(tiny, "\xc3\xa9\xc3\xa9") == 0);
}

static bool is_char_device(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISCHR(st.st_mode);
}

static void test_output_files(void)
{
    char dir[] = "/tmp/drabench-out-test-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[256], link[256], fifo[256];
    snprintf(path, sizeof path, "%s/a.txt", dir);
    snprintf(link, sizeof link, "%s/link.txt", dir);
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    dra_diag_t d;
    dra_diag_clear(&d);

    /* a regular file is replaced, with its mode kept and no temporary file left over */
    CHECK_OK(dra_io_write_file_atomic(path, "one\n", 4, &d));
    chmod(path, 0600);
    CHECK_OK(dra_io_write_file_atomic(path, "two\n", 4, &d));
    struct stat st;
    CHECK(stat(path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0600);
    CHECK_EQ_I64(st.st_size, 4);
    /* a symlink to a regular file: the target is replaced, the link stays */
    CHECK(symlink("a.txt", link) == 0);
    CHECK_OK(dra_io_write_file_atomic(link, "three\n", 6, &d));
    CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
    CHECK(stat(path, &st) == 0 && st.st_size == 6);

    /* devices are written in place and stay devices */
    CHECK(is_char_device("/dev/null"));
    CHECK_OK(dra_io_write_file_atomic("/dev/null", "x", 1, &d));
    CHECK(is_char_device("/dev/null"));
    if (is_char_device("/dev/full")) {
        dra_diag_clear(&d);
        char big[10000];
        memset(big, 'x', sizeof big);
        CHECK_EQ_I64(dra_io_write_file_atomic("/dev/full", big, sizeof big, &d), DRA_EIO);
        CHECK_MSG(strstr(d.msg, strerror(ENOSPC)) != NULL, "%s", d.msg);
        CHECK(is_char_device("/dev/full"));
        /* a streaming writer that does not record errno still gets the reason at commit */
        dra_out_t o;
        CHECK_OK(dra_out_open(&o, "/dev/full", &d));
        fputs("small", o.f);
        dra_diag_clear(&d);
        CHECK_EQ_I64(dra_out_commit(&o, &d), DRA_EIO);
        CHECK_MSG(strstr(d.msg, strerror(ENOSPC)) != NULL, "%s", d.msg);
        dra_out_abort(&o); /* after commit: nothing left to do */
    }
    /* a FIFO stays a FIFO (a reader is opened first so the writer does not block) */
    CHECK(mkfifo(fifo, 0600) == 0);
    FILE *rd = fopen(fifo, "r+");
    CHECK(rd != NULL);
    CHECK_OK(dra_io_write_file_atomic(fifo, "fifo\n", 5, &d));
    CHECK(lstat(fifo, &st) == 0 && S_ISFIFO(st.st_mode));
    char got[8] = "";
    CHECK(rd && fgets(got, sizeof got, rd) && strcmp(got, "fifo\n") == 0);
    if (rd)
        fclose(rd);

    /* abort leaves nothing behind; a directory is not a file */
    dra_out_t o;
    snprintf(path, sizeof path, "%s/b.txt", dir);
    CHECK_OK(dra_out_open(&o, path, &d));
    fputs("half", o.f);
    dra_out_abort(&o);
    CHECK(access(path, F_OK) != 0);
    CHECK_EQ_I64(dra_out_open(&o, dir, &d), DRA_EIO);
    CHECK(strstr(d.msg, "is a directory") != NULL);

    /* the pre-check of `run -o` */
    CHECK_OK(dra_io_check_output(path, &d));
    CHECK_OK(dra_io_check_output("-", &d));
    CHECK_OK(dra_io_check_output("/dev/null", &d));
    snprintf(path, sizeof path, "%s/missing/x.json", dir);
    CHECK_EQ_I64(dra_io_check_output(path, &d), DRA_EIO);
    CHECK(strstr(d.msg, "missing") != NULL);
    CHECK_EQ_I64(dra_io_check_output(dir, &d), DRA_EIO);

    /* a missing input is DRA_ENOTFOUND (invalid input), a directory DRA_EINVAL */
    char *buf = NULL;
    size_t len = 0;
    snprintf(path, sizeof path, "%s/nope.yaml", dir);
    CHECK_EQ_I64(dra_io_read_file(path, 1024, &buf, &len, &d), DRA_ENOTFOUND);
    CHECK_EQ_I64(dra_io_read_file(dir, 1024, &buf, &len, &d), DRA_EINVAL);
    CHECK_EQ_I64(dra_io_exit_for(DRA_ENOTFOUND), DRA_EXIT_USAGE);
    CHECK_EQ_I64(dra_io_exit_for(DRA_EIO), DRA_EXIT_ENV);

    unlink(fifo);
    unlink(link);
    snprintf(path, sizeof path, "%s/a.txt", dir);
    unlink(path);
    CHECK(rmdir(dir) == 0);
}

int main(void)
{
    RUN(test_gnuplot);
    RUN(test_html);
    RUN(test_markdown);
    RUN(test_benchfmt_and_line);
    RUN(test_terminal);
    RUN(test_shell);
    RUN(test_message_building);
    RUN(test_output_files);
    return check_summary();
}
