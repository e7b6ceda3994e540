/*
 * ldif_test.c -- unit tests of the streaming LDIF reader (engine/ldif.c):
 * RFC 2849 content records, folding (also inside multi-byte UTF-8 and in
 * comments), base64, CRLF, the version line, every error with its file,
 * line and column, the FILE and buffer paths agreeing across chunk
 * boundaries, bounded memory on a 100 MB stream, and leaks.
 *
 * Records are flattened to text ("dn|desc=value|...") so each expectation
 * is one string comparison with a readable failure message.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>

#include "acre.h"
#include "ldif.h"

/* ------------------------------------------------------------------------
 * Helpers
 */

/* Append one record as "dn@line|desc=value@line|...", bytes outside
 * printable ASCII as \xx. */
static void
flatten(char *out, size_t cap, const struct acreL_record *rec)
{
    size_t m = strlen(out);

#define PUT(...) \
    m += (size_t)snprintf(out + m, m < cap ? cap - m : 0, __VA_ARGS__)
#define PUTV(p, n)                                 \
    for (size_t k_ = 0; k_ < (n); k_++) {          \
        unsigned char c_ = (unsigned char)(p)[k_]; \
        if (c_ >= 0x20 && c_ < 0x7f)               \
            PUT("%c", c_);                         \
        else                                       \
            PUT("\\%02x", c_);                     \
    }
    if (m)
        PUT("\n");
    PUTV(rec->dn, rec->dn_len);
    PUT("@%u", rec->line);
    for (size_t i = 0; i < rec->nvals; i++) {
        const struct acreL_attrval *v = &rec->vals[i];

        PUT("|%.*s=", (int)v->desc_len, v->desc);
        PUTV(v->val, v->len);
        PUT("@%u", v->line);
    }
#undef PUT
#undef PUTV
}

/* Read all of text; the flattened records go to out, the result is the
 * last return value of acreL_next (0 at a clean end). */
static int
read_text(const char *text, size_t len, char *out, size_t cap, acre_diag *diag)
{
    struct acreL_reader *r;
    struct acreL_record rec;
    int rc;

    out[0] = '\0';
    cr_assert_eq(acreL_open(NULL, NULL, text, len, "t.ldif", &r), 0);
    while ((rc = acreL_next(r, &rec, diag)) == 1)
        flatten(out, cap, &rec);
    acreL_close(r);
    return rc;
}

/* Same through a FILE (fmemopen). */
static int
read_file(const char *text, size_t len, char *out, size_t cap, acre_diag *diag)
{
    FILE *f = fmemopen((void *)text, len, "r");
    struct acreL_reader *r;
    struct acreL_record rec;
    int rc;

    cr_assert_not_null(f);
    out[0] = '\0';
    cr_assert_eq(acreL_open(NULL, f, NULL, 0, "f.ldif", &r), 0);
    while ((rc = acreL_next(r, &rec, diag)) == 1)
        flatten(out, cap, &rec);
    acreL_close(r);
    fclose(f);
    return rc;
}

static char got[1 << 16], got2[1 << 16];

/* Expect text to read cleanly (both paths) as the flattened `want`. */
static void
expect_ok(const char *text, const char *want)
{
    acre_diag d;
    int rc = read_text(text, strlen(text), got, sizeof got, &d);

    cr_expect_eq(rc, 0, "input %s: rc %d (%s at %u:%u)", text, rc,
                 rc ? d.message : "", rc ? d.line : 0, rc ? d.column : 0);
    cr_expect_str_eq(got, want, "input:\n%s", text);
    rc = read_file(text, strlen(text), got2, sizeof got2, &d);
    cr_expect_eq(rc, 0);
    cr_expect_str_eq(got2, want, "FILE path, input:\n%s", text);
}

/* Expect an error code at line:column (column 0: do not check). */
static void
expect_err(const char *text, int code, unsigned line, unsigned column)
{
    acre_diag d;
    int rc;

    memset(&d, 0, sizeof d);
    rc = read_text(text, strlen(text), got, sizeof got, &d);
    cr_expect_eq(rc, code, "input %s: rc %d, want %d (%s)", text, rc, code,
                 d.message);
    cr_expect_eq(d.code, code);
    cr_expect_eq(d.line, line, "input %s: line %u, want %u (%s)", text, d.line,
                 line, d.message);
    if (column)
        cr_expect_eq(d.column, column, "input %s: column %u, want %u (%s)",
                     text, d.column, column, d.message);
    cr_expect_str_eq(d.file ? d.file : "(null)", "t.ldif");
    cr_expect_neq(d.message[0], '\0');
}

/* ------------------------------------------------------------------------
 * Content records
 */
Test(ldif, basic_record)
{
    expect_ok("dn: cn=a,dc=x\ncn: a\nobjectClass: top\n",
              "cn=a,dc=x@1|cn=a@2|objectClass=top@3");
}

Test(ldif, several_records_blank_lines)
{
    expect_ok("\n\ndn: cn=a\ncn: a\n\n\n\ndn: cn=b\ncn: b\n\n",
              "cn=a@3|cn=a@4\ncn=b@8|cn=b@9");
}

Test(ldif, version_line)
{
    expect_ok("version: 1\n\ndn: cn=a\ncn: a\n", "cn=a@3|cn=a@4");
    expect_ok("version: 1\ndn: cn=a\ncn: a\n", "cn=a@2|cn=a@3");
    expect_ok("# header\nversion: 1\n\ndn: cn=a\n", "cn=a@4");
}

Test(ldif, comments_between_and_inside_records)
{
    expect_ok("# first\ndn: cn=a\n# inside\ncn: a\n\n# between\n\n"
              "dn: cn=b\ncn: b\n# last",
              "cn=a@2|cn=a@4\ncn=b@8|cn=b@9");
}

Test(ldif, folded_comment)
{
    expect_ok("# a comment\n  that goes on\n  and on\ndn: cn=a\ncn: a\n",
              "cn=a@4|cn=a@5");
    /* a comment's continuation is not an attribute line */
    expect_ok("dn: cn=a\n# note\n cn: not-an-attribute\ncn: a\n",
              "cn=a@1|cn=a@4");
}

Test(ldif, folding)
{
    expect_ok("dn: cn=ab\n c,dc=x\ndescription: one\n  two\n three\n",
              "cn=abc,dc=x@1|description=one twothree@3");
    /* a continuation of only the space adds nothing */
    expect_ok("dn: cn=a\ncn: x\n \n y\n", "cn=a@1|cn=xy@2");
}

Test(ldif, folding_inside_utf8)
{
    /* "été" split inside the two-byte sequence of the first é */
    expect_ok("dn: cn=a\ncn: \xc3\n \xa9t\xc3\xa9\n",
              "cn=a@1|cn=\\c3\\a9t\\c3\\a9@2");
    /* a four-byte sequence split in three places */
    expect_ok("dn: cn=a\ncn: \xf0\n \x9f\n \x98\n \x80!\n",
              "cn=a@1|cn=\\f0\\9f\\98\\80!@2");
}

Test(ldif, base64)
{
    expect_ok("dn:: Y249YSxkYz14\ncn:: w6l0w6k=\n",
              "cn=a,dc=x@1|cn=\\c3\\a9t\\c3\\a9@2");
    /* base64 folded, spaces after the colons */
    expect_ok("dn: cn=a\ndescription::   aGVsbG8g\n d29ybGQ=\n",
              "cn=a@1|description=hello world@2");
    /* a value with NUL, CR and LF */
    expect_ok("dn: cn=a\nx:: AA0KYQ==\n", "cn=a@1|x=\\00\\0d\\0aa@2");
    /* a DN that must be base64: starts with a space */
    expect_ok("dn:: IGNuPWE=\n", " cn=a@1");
}

Test(ldif, empty_values)
{
    expect_ok("dn: cn=a\nx:\ny: \nz::\nw:: \n", "cn=a@1|x=@2|y=@3|z=@4|w=@5");
    expect_ok("dn:\ncn: root\n", "@1|cn=root@2");
}

Test(ldif, crlf)
{
    expect_ok("dn: cn=a\r\ncn: a\r\n b\r\n\r\ndn: cn=b\r\ncn: b\r\n",
              "cn=a@1|cn=ab@2\ncn=b@5|cn=b@6");
    /* mixed endings */
    expect_ok("dn: cn=a\ncn: a\r\n\ndn: cn=b\r\n", "cn=a@1|cn=a@2\ncn=b@4");
}

Test(ldif, trailing_spaces_are_kept)
{
    /* RFC 2849: SAFE-STRING may end with spaces; they are the value's */
    expect_ok("dn: cn=a\ncn: a  \nsn: b \n", "cn=a@1|cn=a  @2|sn=b @3");
}

Test(ldif, missing_final_newline)
{
    expect_ok("dn: cn=a\ncn: a", "cn=a@1|cn=a@2");
    expect_ok("dn: cn=a\ncn: a\n b", "cn=a@1|cn=ab@2");
    expect_ok("dn: cn=a", "cn=a@1");
}

Test(ldif, options_and_oids)
{
    expect_ok("dn: cn=a\ncn;lang-en: a\n2.5.4.3;x-y: b\nuserCertificate;binary"
              ":: AQI=\n",
              "cn=a@1|cn;lang-en=a@2|2.5.4.3;x-y=b@3"
              "|userCertificate;binary=\\01\\02@4");
}

Test(ldif, whitespace_only_line_separates)
{
    expect_ok("dn: cn=a\ncn: a\n\n   \ndn: cn=b\n", "cn=a@1|cn=a@2\ncn=b@5");
}

Test(ldif, empty_input)
{
    expect_ok("", "");
    expect_ok("\n\n# only a comment\n\n", "");
    expect_ok("version: 1\n", "");
}

Test(ldif, value_columns)
{
    struct acreL_reader *r;
    struct acreL_record rec;
    const char *t = "dn: cn=a\ncn:   xyz\nsn:\n folded\nd:: eA==\n";

    cr_assert_eq(acreL_open(NULL, NULL, t, strlen(t), "c", &r), 0);
    cr_assert_eq(acreL_next(r, &rec, NULL), 1);
    cr_expect_eq(rec.dn_col, 5);
    cr_expect_eq(rec.dn_span, 4);
    cr_assert_eq(rec.nvals, 3);
    cr_expect_eq(rec.vals[0].col, 7);
    cr_expect_eq(rec.vals[0].span, 3);
    cr_expect_eq(rec.vals[1].col, 0); /* starts on a continuation line */
    cr_expect_eq(rec.vals[2].col, 0); /* base64 */
    acreL_close(r);
}

/* ------------------------------------------------------------------------
 * Errors, each with its line and column
 */
Test(ldif, error_no_colon)
{
    expect_err("dn: cn=a\ncn a\n", ACRE_ERR_LDIF_SYNTAX, 2, 3);
    expect_err("dn: cn=a\ncn\n", ACRE_ERR_LDIF_SYNTAX, 2, 3);
}

Test(ldif, error_bad_description)
{
    expect_err("dn: cn=a\nc*n: a\n", ACRE_ERR_LDIF_SYNTAX, 2, 2);
    expect_err("dn: cn=a\n: a\n", ACRE_ERR_LDIF_SYNTAX, 2, 1);
    expect_err("dn: cn=a\ncn;: a\n", ACRE_ERR_LDIF_SYNTAX, 2, 1);
    expect_err("dn: cn=a\ncn;;x: a\n", ACRE_ERR_LDIF_SYNTAX, 2, 1);
    expect_err("dn: cn=a\n;x: a\n", ACRE_ERR_LDIF_SYNTAX, 2, 1);
}

Test(ldif, error_broken_base64)
{
    expect_err("dn: cn=a\ncn:: Zm9v!A==\n", ACRE_ERR_LDIF_BASE64, 2, 10);
    expect_err("dn: cn=a\ncn:: Zm9\n", ACRE_ERR_LDIF_BASE64, 2, 0);
    expect_err("dn: cn=a\ncn:: Zg==Zg==\n", ACRE_ERR_LDIF_BASE64, 2, 8);
    expect_err("dn: cn=a\ncn:: Z=9v\n", ACRE_ERR_LDIF_BASE64, 2, 7);
    expect_err("dn:: ???\n", ACRE_ERR_LDIF_BASE64, 1, 0);
    /* the bad byte on a continuation line is reported there */
    expect_err("dn: cn=a\ncn:: Zm9v\n Zm9*\n", ACRE_ERR_LDIF_BASE64, 3, 5);
}

Test(ldif, error_record_without_dn)
{
    expect_err("cn: a\n", ACRE_ERR_LDIF_SYNTAX, 1, 1);
    expect_err("dn: cn=a\n\ncn: b\n", ACRE_ERR_LDIF_SYNTAX, 3, 1);
    /* the version line is only allowed first */
    expect_err("dn: cn=a\n\nversion: 1\n", ACRE_ERR_LDIF_SYNTAX, 3, 1);
}

Test(ldif, error_version)
{
    expect_err("version: 2\ndn: cn=a\n", ACRE_ERR_LDIF_UNSUPPORTED, 1, 10);
}

Test(ldif, error_change_records)
{
    expect_err("dn: cn=a\nchangetype: modify\n", ACRE_ERR_LDIF_UNSUPPORTED, 2,
               1);
    expect_err("dn: cn=a\ncontrol: 1.2.3 true\nchangetype: add\n",
               ACRE_ERR_LDIF_UNSUPPORTED, 2, 1);
    expect_err("\n\ndn: cn=a\nChangeType: delete\n", ACRE_ERR_LDIF_UNSUPPORTED,
               4, 1);
}

Test(ldif, error_url_value)
{
    expect_err("dn: cn=a\njpegPhoto:< file:///tmp/x\n",
               ACRE_ERR_LDIF_UNSUPPORTED, 2, 11);
}

Test(ldif, error_unsafe_string)
{
    expect_err("dn: cn=a\ncn: :x\n", ACRE_ERR_LDIF_SYNTAX, 2, 5);
    expect_err("dn: cn=a\ncn:  <x\n", ACRE_ERR_LDIF_SYNTAX, 2, 6);
    expect_err("dn: :cn=a\n", ACRE_ERR_LDIF_SYNTAX, 1, 5);
}

Test(ldif, error_nul_and_cr_in_value)
{
    static const char t[] = "dn: cn=a\ncn: a\0b\n";
    acre_diag d;

    cr_expect_eq(read_text(t, sizeof t - 1, got, sizeof got, &d),
                 ACRE_ERR_LDIF_SYNTAX);
    cr_expect_eq(d.line, 2);
    cr_expect_eq(d.column, 6);
    expect_err("dn: cn=a\ncn: a\rb\n", ACRE_ERR_LDIF_SYNTAX, 2, 6);
}

Test(ldif, error_second_dn)
{
    expect_err("dn: cn=a\ncn: a\ndn: cn=b\n", ACRE_ERR_LDIF_SYNTAX, 3, 1);
}

Test(ldif, error_continuation_without_line)
{
    expect_err(" cn: a\n", ACRE_ERR_LDIF_SYNTAX, 1, 1);
    expect_err("dn: cn=a\n\n x\n", ACRE_ERR_LDIF_SYNTAX, 3, 1);
}

Test(ldif, error_position_after_folds)
{
    /* the description is bad on the second physical line of the line */
    expect_err("dn: cn=a\nc\n n*: x\n", ACRE_ERR_LDIF_SYNTAX, 3, 3);
    /* after a CR LF fold */
    expect_err("dn: cn=a\r\ncn: x\r\n :y\r\ndescription:: ab!d\r\n",
               ACRE_ERR_LDIF_BASE64, 4, 17);
}

Test(ldif, error_is_sticky)
{
    struct acreL_reader *r;
    struct acreL_record rec;
    acre_diag d1, d2;
    const char *t = "dn: cn=a\n\nbad\n\ndn: cn=b\n";

    cr_assert_eq(acreL_open(NULL, NULL, t, strlen(t), "s", &r), 0);
    cr_expect_eq(acreL_next(r, &rec, &d1), 1);
    cr_expect_eq(acreL_next(r, &rec, &d1), ACRE_ERR_LDIF_SYNTAX);
    cr_expect_eq(acreL_next(r, &rec, &d2), ACRE_ERR_LDIF_SYNTAX);
    cr_expect_eq(d2.line, d1.line);
    cr_expect_str_eq(d2.message, d1.message);
    acreL_close(r);
}

/* ------------------------------------------------------------------------
 * FILE input: chunk boundaries, large streams, limits
 */

/* A synthetic LDIF of n records, with folds and base64 at varied offsets. */
static char *
synth(void *ctx, unsigned n)
{
    char *s = talloc_strdup(ctx, "version: 1\n");

    for (unsigned i = 0; i < n && s; i++)
        s = talloc_asprintf_append(
            s,
            "# record %u\ndn: uid=u%u,ou=people,\r\n dc=example,dc=com\n"
            "cn: User %u with a name long enough to be folded in the middl\n"
            " e of a word\ndescription:: w6l0w6k=\nmail: u%u@example.com\n\n",
            i, i, i, i);
    return s;
}

Test(ldif, file_and_buffer_agree_across_chunks)
{
    void *ctx = talloc_new(NULL);
    char *text = synth(ctx, 1200); /* ~200 KB: several 64 KiB chunks */
    size_t len = strlen(text);
    char *a = talloc_size(ctx, 1 << 20), *b = talloc_size(ctx, 1 << 20);

    cr_assert_gt(len, 3 * 65536);
    cr_expect_eq(read_text(text, len, a, 1 << 20, NULL), 0);
    cr_expect_eq(read_file(text, len, b, 1 << 20, NULL), 0);
    cr_expect_str_eq(a, b);
    cr_expect_not_null(strstr(a, "uid=u1199,ou=people,dc=example,dc=com@"));
    cr_expect_not_null(strstr(a, "cn=User 7 with a name long enough to be "
                                 "folded in the middle of a word@"));
    talloc_free(ctx);
}

/* A FILE producing `head` once, then `unit` over and over, `total` bytes
 * in all; the stream is never held whole. */
struct gen {
    size_t total, done, pos;
    const char *head, *unit;
    size_t head_len, unit_len;
};

static ssize_t
gen_read(void *cookie, char *buf, size_t size)
{
    struct gen *g = cookie;
    size_t n = 0;

    while (n < size && g->done < g->total) {
        int in_head = g->done < g->head_len;
        const char *src = in_head ? g->head + g->done : g->unit + g->pos;
        size_t k = in_head ? g->head_len - g->done : g->unit_len - g->pos;

        if (k > size - n)
            k = size - n;
        if (k > g->total - g->done)
            k = g->total - g->done;
        memcpy(buf + n, src, k);
        n += k;
        g->done += k;
        if (!in_head)
            g->pos = (g->pos + k) % g->unit_len;
    }
    return (ssize_t)n;
}

static FILE *
gen_open(struct gen *g)
{
    cookie_io_functions_t io = {.read = gen_read};

    return fopencookie(g, "r", io);
}

Test(ldif, hundred_megabytes_in_bounded_memory, .timeout = 60)
{
    static const char unit[] =
        "dn: uid=someone,ou=people,dc=example,dc=com\n"
        "objectClass: inetOrgPerson\ncn: Some One\nsn: One\n"
        "description: a value that is long enough to need a fold at seventy-s\n"
        " ix columns, as LDIF writers do\n"
        "jpegPhoto:: /9j/4AAQSkZJRgABAQEASABIAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDA"
        "sLDBkS\n EhgUHh0fHx4dHBwgJC4nICIsIxwcKDcpLDAxNDQ0Hyc5PTgyPC4zNDL/wAAL"
        "CAABAAEBAREA\n\n";
    struct gen g = {.total =
                        (100u << 20) / (sizeof unit - 1) * (sizeof unit - 1),
                    .unit = unit,
                    .unit_len = sizeof unit - 1};
    void *ctx = talloc_new(NULL);
    FILE *f = gen_open(&g);
    struct acreL_reader *r;
    struct acreL_record rec;
    size_t peak = 0, n = 0;
    int rc;

    cr_assert_not_null(f);
    cr_assert_eq(acreL_open(ctx, f, NULL, 0, "gen", &r), 0);
    while ((rc = acreL_next(r, &rec, NULL)) == 1) {
        size_t held = talloc_total_size(r);

        if (held > peak)
            peak = held;
        n++;
    }
    cr_expect_eq(rc, 0);
    cr_expect_eq(n, g.total / g.unit_len);
    cr_expect_gt(g.total, 99u << 20);
    cr_expect_eq(g.done, g.total);
    /* the 64 KiB chunk and one small record's buffers; never the file */
    cr_expect_lt(peak, 128 * 1024, "peak %zu bytes", peak);
    acreL_close(r);
    fclose(f);
    talloc_free(ctx);
}

Test(ldif, line_past_the_limit, .timeout = 60)
{
    /* "dn: cn=a\ncn: " then more than ACREL_MAX_LINE bytes of 'a' */
    static char big[1 << 16];
    static const char head[] = "dn: cn=a\ncn: ";
    struct gen g = {.total = sizeof head - 1 + ACREL_MAX_LINE + 64,
                    .head = head,
                    .head_len = sizeof head - 1,
                    .unit = big,
                    .unit_len = sizeof big};
    FILE *f;
    struct acreL_reader *r;
    struct acreL_record rec;
    acre_diag d;

    memset(big, 'a', sizeof big);
    f = gen_open(&g);
    cr_assert_eq(acreL_open(NULL, f, NULL, 0, "big", &r), 0);
    cr_expect_eq(acreL_next(r, &rec, &d), ACRE_ERR_LDIF_SYNTAX);
    cr_expect_eq(d.line, 2);
    cr_expect_not_null(strstr(d.message, "longer"), "%s", d.message);
    acreL_close(r);
    fclose(f);
}

static ssize_t
fail_read(void *cookie, char *buf, size_t size)
{
    errno = EIO;
    return -1;
}

Test(ldif, read_error_is_reported)
{
    cookie_io_functions_t io = {.read = fail_read};
    FILE *f = fopencookie(NULL, "r", io);
    struct acreL_reader *r;
    struct acreL_record rec;
    acre_diag d;

    cr_assert_not_null(f);
    cr_assert_eq(acreL_open(NULL, f, NULL, 0, "w", &r), 0);
    cr_expect_eq(acreL_next(r, &rec, &d), ACRE_ERR_LDIF_IO);
    cr_expect_str_eq(d.file, "w");
    cr_expect_eq(d.line, 1);
    acreL_close(r);
    fclose(f);
}

/* ------------------------------------------------------------------------
 * Memory
 */
Test(ldif, no_leaks_and_freed_with_parent)
{
    void *parent = talloc_new(NULL);
    size_t before = talloc_total_blocks(parent);
    char *text = synth(NULL, 50);
    struct acreL_reader *r;
    struct acreL_record rec;

    cr_assert_eq(acreL_open(parent, NULL, text, strlen(text), "m", &r), 0);
    while (acreL_next(r, &rec, NULL) == 1)
        ;
    cr_expect_gt(talloc_total_blocks(parent), before);
    acreL_close(r);
    cr_expect_eq(talloc_total_blocks(parent), before);

    /* an error path, then freed with the parent */
    cr_assert_eq(acreL_open(parent, NULL, "x\n", 2, "m", &r), 0);
    cr_expect_lt(acreL_next(r, &rec, NULL), 0);
    talloc_free(parent);
    talloc_free(text);
}

/* acreL_on_comment: what a callback saw. */
struct seen_comments {
    char text[256];
    int fail_at; /* return ACRE_ERR_NOMEM for this call (1-based), 0: never */
    int calls;
};

static int
note_comment(void *arg, unsigned line, const char *s, size_t n)
{
    struct seen_comments *k = arg;
    size_t used = strlen(k->text);

    snprintf(k->text + used, sizeof(k->text) - used, "%u:%.*s|", line, (int)n,
             s);
    return ++k->calls == k->fail_at ? ACRE_ERR_NOMEM : 0;
}

Test(ldif, comment_callback)
{
    /* each comment's first physical line, CR LF dropped, in order; folds
     * of a comment are not shown; records read as without the callback */
    static const char text[] = "# one\r\ndn: cn=a\n# two\n  folded\n"
                               "cn: a\n\n#three\n";
    struct acreL_reader *r;
    struct acreL_record rec;
    struct seen_comments k = {{0}, 0, 0};
    acre_diag d = {0};

    cr_assert_eq(acreL_open(NULL, NULL, text, strlen(text), "t", &r), 0);
    acreL_on_comment(r, note_comment, &k);
    cr_assert_eq(acreL_next(r, &rec, &d), 1, "%s", d.message);
    cr_expect_str_eq(rec.dn, "cn=a");
    cr_expect_eq(rec.nvals, 1);
    cr_expect_eq(acreL_next(r, &rec, &d), 0, "%s", d.message);
    cr_expect_str_eq(k.text, "1:# one|3:# two|7:#three|");
    acreL_close(r);

    /* an error from the callback ends reading with it */
    k = (struct seen_comments){{0}, 2, 0};
    cr_assert_eq(acreL_open(NULL, NULL, text, strlen(text), "t", &r), 0);
    acreL_on_comment(r, note_comment, &k);
    cr_expect_eq(acreL_next(r, &rec, &d), ACRE_ERR_NOMEM);
    cr_expect_eq(acreL_next(r, &rec, &d), ACRE_ERR_NOMEM);
    acreL_close(r);
}

/* As slapd's reader (acreL_set_slapd), checked with slapadd 2.5.13 and
 * ldapsearch: base64 decoded quad by quad up to the first padding or the
 * first byte outside the alphabet, what was decoded kept; a plain value
 * may start with ':' or '<'; no base64 at all is an error; a base64 DN
 * must decode cleanly up to its padding. */
static int
read_slapd(const char *text, char *out, size_t cap, acre_diag *diag)
{
    struct acreL_reader *r;
    struct acreL_record rec;
    int rc;

    out[0] = '\0';
    memset(diag, 0, sizeof *diag);
    cr_assert_eq(acreL_open(NULL, NULL, text, strlen(text), "t.ldif", &r), 0);
    acreL_set_slapd(r);
    while ((rc = acreL_next(r, &rec, diag)) == 1)
        flatten(out, cap, &rec);
    acreL_close(r);
    return rc;
}

Test(ldif, slapd_reader)
{
    static const struct {
        const char *text, *want;
    } ok[] = {
        {"dn: cn=a\nd:: eHl6 x\n", "cn=a@1|d=xyz@2"},
        {"dn: cn=a\nd:: eA== junk\n", "cn=a@1|d=x@2"},
        {"dn: cn=a\nd:: dn: dc=com\n", "cn=a@1|d=@2"},
        {"dn: cn=a\nd:: QUJDREVGRw\n", "cn=a@1|d=ABCDEF@2"},
        {"dn: cn=a\nd:: eHk=eHk=\n", "cn=a@1|d=xy@2"},
        {"dn: cn=a\nd:: ====\n", "cn=a@1|d=\\ff@2"},
        {"dn: cn=a\ncn: :colon\ncn: <lt\n", "cn=a@1|cn=:colon@2|cn=<lt@3"},
        {"dn:: Y249YQ== Y249Yg==\n", "cn=a@1"},
        /* white space before a description is skipped */
        {"\n  dn: cn=a\ncn: x\n", "cn=a@2|cn=x@3"},
        {"dn: cn=a\n\t cn: x\n", "cn=a@1|cn=x@2"},
    };

    /* any white space after the colon is skipped and every CR dropped,
     * in DNs too (libldap's ldif_parse_line2; an RFC 2849 reader keeps a
     * tab and refuses a CR) */
    static const struct {
        const char *text, *want;
    } ws[] = {
        {"dn: cn=a\ncn:\t x\n", "cn=a@1|cn=x@2"},
        {"dn: cn=a\ncn:\v\f x\t\n", "cn=a@1|cn=x\\09@2"},
        {"dn: cn=a\ncn:: \teA==\n", "cn=a@1|cn=x@2"},
        {"dn: cn=a\ncn: x\ry\r\n", "cn=a@1|cn=xy@2"},
        {"dn: cn=a\ncn:: e\rA==\n", "cn=a@1|cn=x@2"},
        {"dn:\tcn=a\r,dc=com\ncn: x\n", "cn=a,dc=com@1|cn=x@2"},
    };

    static const char *const bad[] = {"dn: cn=a\nd::\n",  "dn: cn=a\nd:: \n",
                                      "dn:: Y24 9YQ==\n", "dn: :cn=a\n",
                                      "dn: <cn=a\n",      "dn: cn=a\ncn : x\n"};
    acre_diag d;

    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        cr_expect_eq(read_slapd(ok[i].text, got, sizeof got, &d), 0, "%s: %s",
                     ok[i].text, d.message);
        cr_expect_str_eq(got, ok[i].want, "input:\n%s", ok[i].text);
        /* RFC 2849 refuses each */
        cr_expect_lt(
            read_text(ok[i].text, strlen(ok[i].text), got, sizeof got, &d), 0,
            "RFC reader took %s", ok[i].text);
    }
    for (size_t i = 0; i < sizeof ws / sizeof ws[0]; i++) {
        cr_expect_eq(read_slapd(ws[i].text, got, sizeof got, &d), 0, "%s: %s",
                     ws[i].text, d.message);
        cr_expect_str_eq(got, ws[i].want, "input:\n%s", ws[i].text);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_expect_lt(read_slapd(bad[i], got, sizeof got, &d), 0, "%s", bad[i]);
}
