/*
 * dn_test.c -- unit tests of the DN core (engine/dn.c): RFC 4514 parsing,
 * normalisation by matching rule (RFC 4517/4518), the pretty form, AVA
 * ordering, ancestry hashes, scope tests, limits, error positions and the
 * memory contract of include/acre.h.
 *
 * The tests go through the public API, except the hash hook of the
 * internal header engine/dn.h, which forces hash collisions to show that
 * a hash equality is never trusted alone.
 *
 * Table-driven tests use cr_expect so that every failing row is reported,
 * each with its input, the expected and the actual result.
 */
#include <criterion/criterion.h>

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>

#include "acre.h"
#include "dn.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------------------
 * Helpers
 */

/* s as the body of a C string literal, for messages (rotating buffers). */
static const char *
vis(const char *s, size_t n)
{
    static char bufs[4][4 * 600 + 16];
    static unsigned k;
    char *o = bufs[k++ % 4];
    size_t m = 0;

    if (s == NULL)
        return "(null)";
    for (size_t i = 0; i < n && m < sizeof bufs[0] - 8; i++) {
        unsigned char c = (unsigned char)s[i];

        if (c == '\\' || c == '"')
            m += (size_t)sprintf(o + m, "\\%c", c);
        else if (c >= 0x20 && c < 0x7f)
            o[m++] = (char)c;
        else
            m += (size_t)sprintf(o + m, "\\x%02x", c);
    }
    if (m >= sizeof bufs[0] - 8)
        m += (size_t)sprintf(o + m, "...");
    o[m] = '\0';
    return o;
}

#define V(s) vis((s), strlen(s))

/* Parse s[0..len); on failure record a (non-fatal) failure, return NULL. */
static acre_dn *
try_parse_flags(const char *s, size_t len, unsigned flags)
{
    acre_dn *dn = NULL;
    acre_diag d;
    int rc;

    memset(&d, 0, sizeof d);
    rc = acre_dn_parse(NULL, NULL, s, len, flags, &dn, &d);
    cr_expect_eq(rc, 0,
                 "parse \"%s\": got %s (%d) at offset %zu (%s), want success",
                 vis(s, len), acre_strerror(rc), rc, d.offset, d.message);
    if (rc != 0)
        return NULL;
    cr_expect_not_null(dn, "parse \"%s\" returned 0 but no DN", vis(s, len));
    return dn;
}

static acre_dn *
try_parse(const char *s)
{
    return try_parse_flags(s, strlen(s), 0);
}

/* Parse s or end the test: for DNs the rest of a test depends on. */
static acre_dn *
must_parse(const char *s)
{
    acre_dn *dn = try_parse(s);

    cr_assert_not_null(dn, "cannot go on without \"%s\"", V(s));
    return dn;
}

static const char *
norm(const acre_dn *dn)
{
    return acre_dn_normalised(dn, NULL);
}

/* An input, its normalised form, and its pretty form (NULL: not checked). */
typedef struct form_case {
    const char *in;
    const char *norm;
    const char *pretty;
} form_case;

static void
expect_text(const char *what, const char *in, const char *got, size_t glen,
            const char *want)
{
    cr_expect_not_null(got, "%s(\"%s\") is NULL", what, V(in));
    if (got == NULL)
        return;
    cr_expect_str_eq(got, want, "%s(\"%s\"): got \"%s\", want \"%s\"", what,
                     V(in), V(got), V(want));
    cr_expect_eq(glen, strlen(got), "%s(\"%s\"): len %zu, strlen %zu", what,
                 V(in), glen, strlen(got));
}

static void
check_form(const form_case *c)
{
    acre_dn *dn = try_parse(c->in);
    size_t len = (size_t)-1;
    const char *s;

    if (dn == NULL)
        return;
    s = acre_dn_normalised(dn, &len);
    expect_text("normalised", c->in, s, len, c->norm);
    if (c->pretty != NULL) {
        len = (size_t)-1;
        s = acre_dn_pretty(dn, &len);
        expect_text("pretty", c->in, s, len, c->pretty);
    }
    acre_dn_free(dn);
}

static void
check_forms(const form_case *c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        check_form(&c[i]);
}

/* An input that must fail: code, and offset (-1: offset not checked). */
typedef struct err_case {
    const char *in;
    size_t len; /* 0: strlen(in) */
    unsigned flags;
    int code;
    long offset;
} err_case;

static void
check_diag(const err_case *c, size_t len, int rc, const acre_diag *d)
{
    const char *in = vis(c->in, len);
    size_t mlen = strnlen(d->message, sizeof d->message);

    cr_expect_eq(d->code, rc, "\"%s\": diag.code %d, rc %d", in, d->code, rc);
    if (c->offset >= 0)
        cr_expect_eq(d->offset, (size_t)c->offset,
                     "\"%s\" (%s): offset %zu, want %ld", in, acre_strerror(rc),
                     d->offset, c->offset);
    cr_expect_eq((size_t)d->column, d->offset + 1,
                 "\"%s\": column %u, offset %zu", in, d->column, d->offset);
    cr_expect_eq(d->line, 1u, "\"%s\": line %u, want 1", in, d->line);
    cr_expect(mlen > 0 && mlen < sizeof d->message,
              "\"%s\": diag.message empty or not terminated", in);
    cr_expect_null(d->file, "\"%s\": diag.file should be NULL", in);
}

static void
check_err(const err_case *c)
{
    size_t len = c->len ? c->len : strlen(c->in);
    acre_dn *sentinel = (acre_dn *)(uintptr_t)0x5eed;
    acre_dn *dn = sentinel;
    acre_diag d;
    int rc;

    memset(&d, 'X', sizeof d);
    rc = acre_dn_parse(NULL, NULL, c->in, len, c->flags, &dn, &d);
    cr_expect_eq(rc, c->code,
                 "parse \"%s\": got %s (%d) at offset %zu, want %s (%d) "
                 "at offset %ld",
                 vis(c->in, len), acre_strerror(rc), rc, rc != 0 ? d.offset : 0,
                 acre_strerror(c->code), c->code, c->offset);
    if (rc == 0) {
        cr_expect(0, "\"%s\" was accepted as \"%s\"", vis(c->in, len),
                  V(norm(dn)));
        acre_dn_free(dn);
        return;
    }
    cr_expect_eq(dn, sentinel, "\"%s\": *out changed on error",
                 vis(c->in, len));
    check_diag(c, len, rc, &d);
}

static void
check_errs(const err_case *c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        check_err(&c[i]);
}

/* All inputs of a NULL-terminated group name the same entry. */
static void
check_same(const char *const *group)
{
    acre_dn *first = try_parse(group[0]);

    for (size_t i = 1; first != NULL && group[i] != NULL; i++) {
        acre_dn *dn = try_parse(group[i]);
        unsigned d;

        if (dn == NULL)
            continue;
        d = acre_dn_depth(dn);
        cr_expect_str_eq(norm(dn), norm(first),
                         "\"%s\" -> \"%s\" but \"%s\" -> \"%s\"", V(group[i]),
                         V(norm(dn)), V(group[0]), V(norm(first)));
        cr_expect_eq(acre_dn_equal(dn, first), 1, "equal(\"%s\", \"%s\")",
                     V(group[i]), V(group[0]));
        cr_expect_eq(
            acre_dn_ancestor_hash(dn, d), acre_dn_ancestor_hash(first, d),
            "h[%u] of \"%s\" and \"%s\" differ", d, V(group[i]), V(group[0]));
        acre_dn_free(dn);
    }
    acre_dn_free(first);
}

/* ------------------------------------------------------------------------
 * Version and error names
 */
Test(dn, version)
{
    int ma = -1, mi = -1, pa = -1;
    const char *v = acre_version(&ma, &mi, &pa);

    cr_assert_not_null(v, "acre_version returned NULL");
    cr_expect_str_eq(v, "acre " ACRE_VERSION_STRING, "version \"%s\"", v);
    cr_expect_eq(ma, ACRE_VERSION_MAJOR, "major %d", ma);
    cr_expect_eq(mi, ACRE_VERSION_MINOR, "minor %d", mi);
    cr_expect_eq(pa, ACRE_VERSION_PATCH, "patch %d", pa);
    cr_expect_eq(ma * 10000 + mi * 100 + pa, ACRE_VERSION_NUMBER,
                 "ACRE_VERSION_NUMBER disagrees with the runtime version");
    cr_expect_str_eq(acre_version(NULL, NULL, NULL), v,
                     "acre_version(NULL, NULL, NULL) differs");
}

static const int all_codes[] = {
    ACRE_OK,
    ACRE_ERR_NOMEM,
    ACRE_ERR_INVAL,
    ACRE_ERR_NOSPACE,
    ACRE_ERR_BADOBJ,
    ACRE_ERR_DN_TOO_LONG,
    ACRE_ERR_DN_TOO_MANY_RDNS,
    ACRE_ERR_DN_TOO_MANY_AVAS,
    ACRE_ERR_DN_NESTING,
    ACRE_ERR_DN_EMPTY_RDN,
    ACRE_ERR_DN_TYPE,
    ACRE_ERR_DN_UNKNOWN_TYPE,
    ACRE_ERR_DN_NO_EQUALS,
    ACRE_ERR_DN_UNESCAPED,
    ACRE_ERR_DN_ESCAPE,
    ACRE_ERR_DN_QUOTE,
    ACRE_ERR_DN_HEX,
    ACRE_ERR_DN_BER,
    ACRE_ERR_DN_UTF8,
    ACRE_ERR_DN_PROHIBITED,
    ACRE_ERR_DN_VALUE,
    ACRE_ERR_DN_DUP_AVA,
};

Test(dn, strerror_names_every_code)
{
    for (size_t i = 0; i < NELEM(all_codes); i++) {
        const char *s = acre_strerror(all_codes[i]);

        cr_expect_not_null(s, "strerror(%d) is NULL", all_codes[i]);
        if (s == NULL)
            continue;
        cr_expect(s[0] != '\0', "strerror(%d) is empty", all_codes[i]);
        cr_expect_str_neq(s, "unknown acre error", "strerror(%d) is unknown",
                          all_codes[i]);
        for (size_t j = 0; j < i; j++) {
            const char *t = acre_strerror(all_codes[j]);

            cr_expect(t == NULL || strcmp(s, t) != 0,
                      "strerror(%d) == strerror(%d) == \"%s\"", all_codes[i],
                      all_codes[j], s);
        }
    }
}

Test(dn, strerror_unknown_codes)
{
    static const int unknown[] = {12345, 1, -1, -30704, -30719, -30799};

    for (size_t i = 0; i < NELEM(unknown); i++) {
        const char *s = acre_strerror(unknown[i]);

        cr_expect_not_null(s, "strerror(%d) is NULL", unknown[i]);
        if (s != NULL)
            cr_expect_str_eq(s, "unknown acre error", "strerror(%d) = \"%s\"",
                             unknown[i], s);
    }
}

/* ------------------------------------------------------------------------
 * Parsing and the two text forms
 */
Test(dn, root_dn)
{
    acre_dn *root = must_parse("");
    acre_dn *other = must_parse("cn=a,dc=b");
    size_t len = 99;

    cr_expect_eq(acre_dn_depth(root), 0u, "depth of the root DN");
    cr_expect_str_eq(acre_dn_normalised(root, &len), "", "normalised root");
    cr_expect_eq(len, 0u, "normalised root length %zu", len);
    cr_expect_str_eq(acre_dn_pretty(root, NULL), "", "pretty root");
    cr_expect_str_eq(acre_dn_ancestor(root, 0, NULL), "", "ancestor(root, 0)");
    cr_expect_null(acre_dn_ancestor(root, 1, NULL), "ancestor(root, 1)");
    cr_expect_eq(acre_dn_ancestor_hash(root, 0),
                 acre_dn_ancestor_hash(other, 0), "h[0] is the same for all");
    cr_expect_eq(acre_dn_ancestor_hash(root, 1), 0u, "h[1] of root is 0");
    cr_expect_eq(acre_dn_rdn(root, 0, NULL, NULL, NULL, NULL), ACRE_ERR_INVAL,
                 "acre_dn_rdn(root, 0)");
    acre_dn_free(root);
    acre_dn_free(other);
}

static const form_case basic_forms[] = {
    {"", "", ""},
    {"cn=a", "cn=a", "cn=a"},
    {"CN=John Smith , OU = People", "cn=john smith,ou=people",
     "cn=John Smith,ou=People"},
    {"CN=  Hello   World  ", "cn=hello world", "cn=Hello   World"},
    {" cn = a ", "cn=a", "cn=a"},
    {"cn=a;dc=b", "cn=a,dc=b", "cn=a,dc=b"},
    {"cn=a ; dc=b", "cn=a,dc=b", "cn=a,dc=b"},
    {"cn=a + sn=b , dc=c", "cn=a+sn=b,dc=c", "cn=a+sn=b,dc=c"},
    {"cn=a,ou=b,o=c,dc=d,dc=e", "cn=a,ou=b,o=c,dc=d,dc=e",
     "cn=a,ou=b,o=c,dc=d,dc=e"},
};

Test(dn, basic_forms)
{
    check_forms(basic_forms, NELEM(basic_forms));
}

static const form_case type_forms[] = {
    {"commonName=A", "cn=a", "cn=A"},
    {"COMMONNAME=A", "cn=a", "cn=A"},
    {"CN=A", "cn=a", "cn=A"},
    {"2.5.4.3=A", "cn=a", "cn=A"},
    {"surname=Doe", "sn=doe", "sn=Doe"},
    {"organizationalUnitName=People", "ou=people", "ou=People"},
    {"organizationName=Acme", "o=acme", "o=Acme"},
    {"domainComponent=COM", "dc=com", "dc=COM"},
    {"0.9.2342.19200300.100.1.25=Com", "dc=com", "dc=Com"},
    {"userid=JS", "uid=js", "uid=JS"},
    {"0.9.2342.19200300.100.1.1=JS", "uid=js", "uid=JS"},
    {"rfc822Mailbox=A@B.C", "mail=a@b.c", "mail=A@B.C"},
    {"countryName=DE", "c=de", "c=DE"},
    {"localityName=Paris", "l=paris", "l=Paris"},
    {"stateOrProvinceName=Bavaria", "st=bavaria", "st=Bavaria"},
    {"givenName=Ann", "givenname=ann", "givenName=Ann"},
    {"gn=Ann", "givenname=ann", "givenName=Ann"},
    {"GIVENNAME=Ann", "givenname=ann", "givenName=Ann"},
    {"displayName=Ann B", "displayname=ann b", "displayName=Ann B"},
    {"DISPLAYNAME=Ann", "displayname=ann", "displayName=Ann"},
    {"title=Boss", "title=boss", "title=Boss"},
    {"uidNumber=1000", "uidnumber=1000", "uidNumber=1000"},
    {"GIDNUMBER=5", "gidnumber=5", "gidNumber=5"},
    {"telephoneNumber=1", "telephonenumber=1", "telephoneNumber=1"},
    {"x121Address=1", "x121address=1", "x121Address=1"},
    {"USERPASSWORD=x", "userpassword=x", "userPassword=x"},
    {"member=cn=a", "member=cn=a", "member=cn=a"},
    {"OWNER=cn=a", "owner=cn=a", "owner=cn=a"},
    {"seealso=cn=a", "seealso=cn=a", "seeAlso=cn=a"},
    {"Manager=cn=a", "manager=cn=a", "manager=cn=a"},
    /* unknown types: lowercased when normalised, kept as written */
    {"myAttr=Foo", "myattr=foo", "myAttr=Foo"},
    {"x-Custom-1=A  B", "x-custom-1=a b", "x-Custom-1=A  B"},
    {"a-1=x", "a-1=x", "a-1=x"},
    {"1.2.3.4=Foo", "1.2.3.4=foo", "1.2.3.4=Foo"},
    {"0.1=x", "0.1=x", "0.1=x"},
    {"2.5.4.3.0=X", "2.5.4.3.0=x", "2.5.4.3.0=X"},
};

Test(dn, type_names_aliases_and_oids)
{
    check_forms(type_forms, NELEM(type_forms));
}

/*
 * A descr or numericoid of any length is a well-formed type (RFC 4512 sets
 * no limit, and acre.h documents none besides ACRE_DN_MAX_LEN); an unknown
 * one is accepted and kept as written.
 */
Test(dn, long_type_names)
{
    void *ctx = talloc_new(NULL);
    char *descr = talloc_strdup(ctx, "X");
    char *oid = talloc_strdup(ctx, "1");
    form_case c[2];

    for (int i = 0; i < 99; i++)
        descr = talloc_asprintf_append(descr, "%c", "Ab9-"[i % 4]);
    for (int i = 0; i < 64; i++)
        oid = talloc_asprintf_append(oid, ".%d", i + 1);
    c[0].in = talloc_asprintf(ctx, "%s=V,dc=x", descr);
    c[0].pretty = c[0].in;
    c[0].norm = talloc_asprintf(ctx, "%s=v,dc=x", descr);
    for (char *p = (char *)c[0].norm; *p != '\0'; p++)
        *p = (char)tolower((unsigned char)*p);
    c[1].in = talloc_asprintf(ctx, "%s=V", oid);
    c[1].pretty = c[1].in;
    c[1].norm = talloc_asprintf(ctx, "%s=v", oid);
    check_forms(c, NELEM(c));
    talloc_free(ctx);
}

static const form_case syntax_forms[] = {
    /* integer */
    {"uidNumber=007", "uidnumber=7", "uidNumber=007"},
    {"uidNumber=-0", "uidnumber=0", "uidNumber=-0"},
    {"uidNumber=-007", "uidnumber=-7", NULL},
    {"uidNumber=-12", "uidnumber=-12", NULL},
    {"uidNumber=0", "uidnumber=0", NULL},
    {"gidNumber=000", "gidnumber=0", "gidNumber=000"},
    {"uidNumber= 42 ", "uidnumber=42", "uidNumber=42"},
    /* telephoneNumber */
    {"telephoneNumber=\\+1 555-0100", "telephonenumber=\\+15550100",
     "telephoneNumber=\\+1 555-0100"},
    /* slapd does not fold telephoneNumber case (RFC 4517 would) */
    {"telephoneNumber=1-800-FLOWERS", "telephonenumber=1800FLOWERS", NULL},
    {"homePhone=\\+49 30 1234", "homephone=\\+49301234",
     "homePhone=\\+49 30 1234"},
    {"mobile=\\2B44 7700-900", "mobile=\\+447700900", NULL},
    {"pager=555 01", "pager=55501", NULL},
    /* numericString */
    {"x121Address=12 34", "x121address=1234", "x121Address=12 34"},
    {"x121Address= 1 2  3 ", "x121address=123", NULL},
    /* caseIgnoreIA5 */
    {"dc=Example", "dc=example", "dc=Example"},
    {"mail=John.Doe@Example.COM", "mail=john.doe@example.com",
     "mail=John.Doe@Example.COM"},
    {"dc=a  b", "dc=a b", NULL},
    /* distinguishedName */
    {"member=CN=A\\,DC=B", "member=cn=a\\,dc=b", NULL},
    {"owner=uid=X\\+cn=Y\\,o=Z", "owner=cn=y\\+uid=x\\,o=z", NULL},
    {"seeAlso=commonName=A", "seealso=cn=a", NULL},
    {"manager=CN = Boss \\, O = Acme", "manager=cn=boss\\,o=acme", NULL},
    {"manager=CN = Boss , O = Acme", "manager=cn=boss,o=acme", NULL},
    {"member=member=CN=B", "member=member=cn=b", NULL},
    {"member=cn=a\\;dc=b", "member=cn=a\\,dc=b", NULL},
    {"member=cn=\\5c\\2c", "member=cn=\\\\\\,", NULL},
    /* octetString */
    {"userPassword=AbC", "userpassword=AbC", "userPassword=AbC"},
    {"userPassword=a  b", "userpassword=a  b", NULL},
    {"userPassword=a\\00b", "userpassword=a\\00b", "userPassword=a\\00b"},
    {"userPassword=\\01\\FF\\7f", "userpassword=\\01\\ff\\7f", NULL},
    {"userPassword=\\c3\\a9", "userpassword=\\c3\\a9", NULL},
    {"userPassword=\\ x\\ ", "userpassword=\\ x\\ ", "userPassword=\\ x\\ "},
    {"userPassword=", "userpassword=", "userPassword="},
    {"userPassword=#0403616263", "userpassword=#0403616263",
     "userPassword=#0403616263"},
};

Test(dn, values_by_matching_rule)
{
    check_forms(syntax_forms, NELEM(syntax_forms));
}

/* caseExact (labeledURI) and caseExactIA5 (memberUid, homeDirectory...):
 * NFKC and insignificant spaces, no case folding. */
static const form_case exact_forms[] = {
    {"labeledURI=HTTP://X/Y", "labeleduri=HTTP://X/Y", "labeledURI=HTTP://X/Y"},
    {"labeledURI=  A\uFB01   B ", "labeleduri=Afi B", "labeledURI=A\uFB01   B"},
    {"labeledURI=\u01C4", "labeleduri=D\u017D", "labeledURI=\u01C4"},
    {"labeledURI=\u212B", "labeleduri=\u00c5", NULL},
    {"memberUid=JDoe", "memberuid=JDoe", "memberUid=JDoe"},
    {"homeDirectory=/Home/X", "homedirectory=/Home/X", "homeDirectory=/Home/X"},
    {"loginShell= /bin/SH ", "loginshell=/bin/SH", "loginShell=/bin/SH"},
};

static const err_case exact_errs[] = {
    {"memberUid=\u00e9", 0, 0, ACRE_ERR_DN_VALUE, 10},
    {"homeDirectory=/h\u00f6me", 0, 0, ACRE_ERR_DN_VALUE, 14},
    {"labeledURI=\uE000", 0, 0, ACRE_ERR_DN_PROHIBITED, 11},
};

Test(dn, case_exact_values)
{
    check_forms(exact_forms, NELEM(exact_forms));
    check_errs(exact_errs, NELEM(exact_errs));
}

static const form_case escape_forms[] = {
    {"cn=\\20\\20", "cn=\\ ", "cn=\\ \\ "},
    {"cn=\\ ", "cn=\\ ", "cn=\\ "},
    {"cn=\\ a\\ ", "cn=a", "cn=\\ a\\ "},
    {"cn=a\\ ", "cn=a", "cn=a\\ "},
    {"cn=a\\ \\ b", "cn=a b", "cn=a  b"},
    {"cn=a\\ b", "cn=a b", "cn=a b"},
    {"cn=a\\,b", "cn=a\\,b", "cn=a\\,b"},
    {"cn=\\#a", "cn=\\#a", "cn=\\#a"},
    {"cn=\\23a", "cn=\\#a", "cn=\\#a"},
    {"cn=a#", "cn=a#", "cn=a#"},
    {"cn=a\\#", "cn=a#", "cn=a#"},
    {"cn=a\\=b", "cn=a=b", "cn=a=b"},
    {"cn=a=b", "cn=a=b", "cn=a=b"},
    {"cn==", "cn==", "cn=="},
    {"cn=\\=", "cn==", "cn=="},
    {"cn=\\\"q\\\"", "cn=\\\"q\\\"", "cn=\\\"q\\\""},
    {"cn=\\<\\>\\;\\+\\\\\\,", "cn=\\<\\>\\;\\+\\\\\\,",
     "cn=\\<\\>\\;\\+\\\\\\,"},
    {"cn=\\3c\\3E\\3b\\2b\\5c\\2C\\22", "cn=\\<\\>\\;\\+\\\\\\,\\\"",
     "cn=\\<\\>\\;\\+\\\\\\,\\\""},
    {"cn=\\41\\42", "cn=ab", "cn=AB"},
    {"cn=\\4a", "cn=j", "cn=J"},
    {"cn=\\C3\\A9", "cn=\u00e9", "cn=\u00e9"},
    {"cn=\\c3\\89", "cn=\u00e9", "cn=\u00c9"},
    /* quoted values (RFC 2253) */
    {"cn=\"a,b\"", "cn=a\\,b", "cn=a\\,b"},
    {"cn=\"a+b;c<d>\" , ou=x", "cn=a\\+b\\;c\\<d\\>,ou=x",
     "cn=a\\+b\\;c\\<d\\>,ou=x"},
    {"cn=\"a\\\"b\"", "cn=a\\\"b", "cn=a\\\"b"},
    {"cn=\"#a\"", "cn=\\#a", "cn=\\#a"},
};

Test(dn, escapes_in_and_out)
{
    check_forms(escape_forms, NELEM(escape_forms));
}

Test(dn, input_need_not_be_nul_terminated)
{
    static const char text[] = "cn=abXYZ";
    acre_dn *dn = try_parse_flags(text, 5, 0);
    acre_dn *root = try_parse_flags(text, 0, 0);

    if (dn != NULL)
        cr_expect_str_eq(norm(dn), "cn=ab", "first 5 bytes of \"%s\"", text);
    if (root != NULL)
        cr_expect_eq(acre_dn_depth(root), 0u, "len 0 is the root DN");
    acre_dn_free(dn);
    acre_dn_free(root);
}

/* ------------------------------------------------------------------------
 * Multi-valued RDNs
 */
static const form_case multi_forms[] = {
    {"uid=js+cn=John", "cn=john+uid=js", "cn=John+uid=js"},
    {"sn=x+cn=y+uid=z", "cn=y+sn=x+uid=z", "cn=y+sn=x+uid=z"},
    /* "c=de" < "cn=b": '=' (0x3d) sorts before 'n' */
    {"cn=b+c=DE", "c=de+cn=b", "c=DE+cn=b"},
    /* a proper prefix sorts first */
    {"cn=ab+cn=a", "cn=a+cn=ab", "cn=a+cn=ab"},
    {"cn=B+cn=a", "cn=a+cn=b", "cn=a+cn=B"},
    {"cn=a+cn=b", "cn=a+cn=b", "cn=a+cn=b"},
    {"gn=Z+displayName=Y", "displayname=y+givenname=z",
     "displayName=Y+givenName=Z"},
    {"ou=a+2.5.4.3=b", "cn=b+ou=a", "cn=b+ou=a"},
    {"zz=1+aa=2", "aa=2+zz=1", "aa=2+zz=1"},
    {"uid=js+cn=John,dc=Example+o=X", "cn=john+uid=js,dc=example+o=x",
     "cn=John+uid=js,dc=Example+o=X"},
    {"cn=#0c03616263+sn=x", "cn=abc+sn=x", "cn=#0c03616263+sn=x"},
};

Test(dn, multi_valued_rdns_sorted)
{
    check_forms(multi_forms, NELEM(multi_forms));
}

static const err_case dup_errs[] = {
    {"cn=a+cn=A", 0, 0, ACRE_ERR_DN_DUP_AVA, 5},
    {"cn=a+commonName= a ", 0, 0, ACRE_ERR_DN_DUP_AVA, 5},
    {"ou=x,cn=a+2.5.4.3=A", 0, 0, ACRE_ERR_DN_DUP_AVA, 10},
    {"cn=Stra\u00dfe+cn=STRASSE", 0, 0, ACRE_ERR_DN_DUP_AVA, 11},
    {"uid=x+cn=a+uid=X", 0, 0, ACRE_ERR_DN_DUP_AVA, 11},
    {"cn=#0c0161+cn=a", 0, 0, ACRE_ERR_DN_DUP_AVA, 11},
    {"uidNumber=7+uidNumber=007", 0, 0, ACRE_ERR_DN_DUP_AVA, 12},
};

Test(dn, duplicate_ava_in_rdn)
{
    check_errs(dup_errs, NELEM(dup_errs));
}

Test(dn, rdn_accessor)
{
    acre_dn *dn = must_parse("uid=js+cn=John, dc=Example ,DC=com");
    const char *n = NULL, *p = NULL;
    size_t nl = 0, pl = 0;

    cr_assert_eq(acre_dn_depth(dn), 3u, "depth");
    cr_assert_eq(acre_dn_rdn(dn, 0, &n, &nl, &p, &pl), 0, "rdn 0");
    cr_expect(nl == 14 && memcmp(n, "cn=john+uid=js", nl) == 0,
              "rdn 0 normalised \"%s\"", vis(n, nl));
    cr_expect(pl == 14 && memcmp(p, "cn=John+uid=js", pl) == 0,
              "rdn 0 pretty \"%s\"", vis(p, pl));
    cr_assert_eq(acre_dn_rdn(dn, 2, &n, &nl, &p, &pl), 0, "rdn 2");
    cr_expect(nl == 6 && memcmp(n, "dc=com", 6) == 0, "rdn 2 \"%s\"",
              vis(n, nl));
    cr_expect(pl == 6 && memcmp(p, "dc=com", 6) == 0, "rdn 2 pretty \"%s\"",
              vis(p, pl));
    cr_expect_eq(acre_dn_rdn(dn, 1, NULL, NULL, NULL, NULL), 0,
                 "all outputs may be NULL");
    cr_expect_eq(acre_dn_rdn(dn, 3, &n, &nl, &p, &pl), ACRE_ERR_INVAL,
                 "rdn 3 of a depth-3 DN");
    acre_dn_free(dn);
}

/* ------------------------------------------------------------------------
 * #hex values
 */
static const form_case hex_forms[] = {
    {"cn=#0c03616263", "cn=abc", "cn=#0c03616263"},
    {"cn=#0C03414243", "cn=abc", "cn=#0c03414243"},
    {"cn=#0403616263", "cn=abc", "cn=#0403616263"},
    {"cn=#1203313233", "cn=123", NULL},
    {"cn=#1303414243", "cn=abc", NULL},
    {"cn=#1403414243", "cn=abc", NULL},
    {"cn=#1603414243", "cn=abc", NULL},
    {"cn=#1a03414243", "cn=abc", NULL},
    {"cn=#0c0720204120204220", "cn=a b", NULL},
    {"cn=#0c02c3a9", "cn=\u00e9", NULL},
    {"cn=#020105", "cn=#020105", "cn=#020105"},
    {"cn=#02010A", "cn=#02010a", "cn=#02010a"},
    {"cn=#3003020105", "cn=#3003020105", "cn=#3003020105"},
    {"cn=#0500", "cn=#0500", "cn=#0500"},
    {"cn=#0c03616263 , ou=x", "cn=abc,ou=x", "cn=#0c03616263,ou=x"},
    {"cn = #0c03616263", "cn=abc", "cn=#0c03616263"},
    {"dc=#1603636f6d", "dc=com", NULL},
    {"userPassword=#0C03616263", "userpassword=#0c03616263",
     "userPassword=#0c03616263"},
};

Test(dn, hex_values)
{
    check_forms(hex_forms, NELEM(hex_forms));
}

Test(dn, hex_string_equals_plain_string)
{
    static const char *const g1[] = {"cn=abc", "cn=#0c03616263",
                                     "cn=#1303414243", "CN=#0403414243", NULL};
    static const char *const g2[] = {"cn=a b,dc=x",
                                     "cn=#0c0720204120204220,dc=x", NULL};

    check_same(g1);
    check_same(g2);
}

/* BER long-form lengths: 0x81 nn and 0x82 nn nn. */
static void
check_long_form(size_t n, const char *lenbytes)
{
    size_t cap = 32 + 2 * n;
    char *in = malloc(cap), *want = malloc(n + 8);
    acre_dn *dn;
    size_t k;

    cr_assert(in != NULL && want != NULL, "malloc");
    k = (size_t)snprintf(in, cap, "cn=#0c%s", lenbytes);
    for (size_t i = 0; i < n; i++)
        k += (size_t)snprintf(in + k, cap - k, "61");
    memcpy(want, "cn=", 3);
    memset(want + 3, 'a', n);
    want[3 + n] = '\0';
    dn = try_parse(in);
    if (dn != NULL)
        cr_expect_str_eq(norm(dn), want, "long form \"%s\": \"%s\"", V(in),
                         V(norm(dn)));
    acre_dn_free(dn);
    free(in);
    free(want);
}

Test(dn, hex_ber_long_form_length)
{
    check_long_form(130, "8182");
    check_long_form(300, "82012c");
}

/* ------------------------------------------------------------------------
 * Unicode (RFC 4518) for caseIgnore strings
 */
static const form_case unicode_forms[] = {
    {"cn=\u00c9", "cn=\u00e9", "cn=\u00c9"},
    {"cn=Stra\u00dfe", "cn=strasse", "cn=Stra\u00dfe"},
    {"cn=\uFB01", "cn=fi", "cn=\uFB01"},
    {"cn=\u212B", "cn=\u00e5", "cn=\u212B"},
    {"cn=\u01C4", "cn=d\u017e", "cn=\u01C4"},
    {"cn=ab\u00ADc", "cn=abc", NULL},
    {"cn=a\u200Bb", "cn=ab", NULL},
    {"cn=a\uFEFFb\u200Dc", "cn=abc", NULL},
    {"cn=a\\01b\\7fc", "cn=abc", NULL},
    {"cn=a\u00a0\u00a0b", "cn=a b", NULL},
    {"cn=a\\09\\0a\\0Db", "cn=a b", NULL},
    {"cn=\u2003a\u2028", "cn=a", NULL},
    {"cn=\uFF21\uFF22", "cn=ab", NULL},
    {"cn=\u1100\u1161", "cn=\uAC00", NULL},
    {"cn=\u03a3", "cn=\u03c3", NULL},
    {"cn=e\u0301", "cn=\u00e9", NULL},
    {"cn=\u00e9, ou=\u00c5ngstr\u00f6m", "cn=\u00e9,ou=\u00e5ngstr\u00f6m",
     "cn=\u00e9,ou=\u00c5ngstr\u00f6m"},
};

Test(dn, unicode_normalised_forms)
{
    check_forms(unicode_forms, NELEM(unicode_forms));
}

static const char *const unicode_groups[][7] = {
    {"cn=\u01C4", "cn=\u01C5", "cn=\u01C6", "cn=D\u017D", "cn=d\u017e", NULL},
    {"cn=Stra\u00dfe", "cn=STRASSE", "cn=strasse", "cn=STRA\u1E9EE", NULL},
    {"cn=\uFB01", "cn=fi", "cn=FI", NULL},
    {"cn=\u212B", "cn=\u00e5", "cn=\u00c5", "cn=A\u030A", "cn=a\u030a", NULL},
    {"cn=\u00e9", "cn=e\u0301", "cn=E\u0301", "cn=\u00c9", "cn=\\C3\\A9",
     "cn=\\c3\\89", NULL},
    {"cn=\u03a3", "cn=\u03c3", "cn=\u03c2", NULL},
    {"cn=ab\u00ADc", "cn=abc", "cn=a\u200Bbc", "cn=ABC", NULL},
    {"cn=a b", "cn=a\u00a0b", "cn=a\\09b", "cn=a\\0ab", "cn=a\\0db",
     "cn=  a \u2003 b ", NULL},
    {"cn=\\20\\20", "cn=\\ ", "cn=\\20", "cn=\\ \\ \\ ", NULL},
    {"cn=\uFF21\uFF22", "cn=ab", NULL},
    {"cn=\u1100\u1161", "cn=\uAC00", NULL},
};

Test(dn, unicode_equivalences)
{
    for (size_t i = 0; i < NELEM(unicode_groups); i++)
        check_same(unicode_groups[i]);
}

static const err_case unicode_errs[] = {
    {"cn=\uE000", 0, 0, ACRE_ERR_DN_PROHIBITED, 3},
    {"cn=a\u0378", 0, 0, ACRE_ERR_DN_PROHIBITED, 3},
    {"cn=\uFDD0", 0, 0, ACRE_ERR_DN_PROHIBITED, 3},
    {"cn=x\uFFFD", 0, 0, ACRE_ERR_DN_PROHIBITED, 3},
    {"cn=\xf4\x8f\xbf\xbf", 0, 0, ACRE_ERR_DN_PROHIBITED, 3},
    {"cn=\\EE\\80\\80", 0, 0, ACRE_ERR_DN_PROHIBITED, 3},
    {"ou=x,cn=ok\uE000", 0, 0, ACRE_ERR_DN_PROHIBITED, 8},
    {"cn=\\ff", 0, 0, ACRE_ERR_DN_UTF8, 3},
    {"cn=\xff", 0, 0, ACRE_ERR_DN_UTF8, 3},
    {"cn=a\\C3", 0, 0, ACRE_ERR_DN_UTF8, 3},
    {"cn=a\\C3\\28", 0, 0, ACRE_ERR_DN_UTF8, 3},
    {"cn=\\C0\\AF", 0, 0, ACRE_ERR_DN_UTF8, 3},
    {"cn=\\ED\\A0\\80", 0, 0, ACRE_ERR_DN_UTF8, 3},
    {"ou=x,cn=\\ff", 0, 0, ACRE_ERR_DN_UTF8, 8},
    {"cn=#0c01ff", 0, 0, ACRE_ERR_DN_UTF8, 3},
};

Test(dn, unicode_errors)
{
    check_errs(unicode_errs, NELEM(unicode_errs));
}

/* ------------------------------------------------------------------------
 * Errors and their positions
 */
static const err_case position_errs[] = {
    {"cn=a,,dc=b", 0, 0, ACRE_ERR_DN_EMPTY_RDN, 5},
    {"cn=a,", 0, 0, ACRE_ERR_DN_EMPTY_RDN, 5},
    {",cn=a", 0, 0, ACRE_ERR_DN_EMPTY_RDN, 0},
    {"=a", 0, 0, ACRE_ERR_DN_TYPE, 0},
    {"cn", 0, 0, ACRE_ERR_DN_NO_EQUALS, 2},
    {"cn a=b", 0, 0, ACRE_ERR_DN_NO_EQUALS, 3},
    {"c_n=a", 0, 0, ACRE_ERR_DN_TYPE, 1},
    {"cn=a\\", 0, 0, ACRE_ERR_DN_ESCAPE, 4},
    {"cn=a\\zz", 0, 0, ACRE_ERR_DN_ESCAPE, 4},
    {"cn=a<b", 0, 0, ACRE_ERR_DN_UNESCAPED, 4},
    {"cn=\"abc", 0, 0, ACRE_ERR_DN_QUOTE, 3},
    {"cn=\"a\"b", 0, 0, ACRE_ERR_DN_QUOTE, 6},
    {"cn=#zz", 0, 0, ACRE_ERR_DN_HEX, 4},
    {"cn=#", 0, 0, ACRE_ERR_DN_HEX, 4},
    {"cn=#abc", 0, 0, ACRE_ERR_DN_HEX, 7},
    {"cn=#0c05616263", 0, 0, ACRE_ERR_DN_BER, 3},
    {"cn=\\ff", 0, 0, ACRE_ERR_DN_UTF8, 3},
    {"cn=a+cn=A", 0, 0, ACRE_ERR_DN_DUP_AVA, 5},
};

Test(dn, error_positions)
{
    check_errs(position_errs, NELEM(position_errs));
}

static const err_case syntax_errs[] = {
    /* separators */
    {"cn=a;;dc=b", 0, 0, ACRE_ERR_DN_EMPTY_RDN, 5},
    {"cn=a,dc=b,", 0, 0, ACRE_ERR_DN_EMPTY_RDN, 10},
    {"cn=a, ,dc=b", 0, 0, ACRE_ERR_DN_EMPTY_RDN, -1},
    {",", 0, 0, ACRE_ERR_DN_EMPTY_RDN, 0},
    /* types */
    {"1cn=a", 0, 0, ACRE_ERR_DN_TYPE, -1},
    {"-cn=a", 0, 0, ACRE_ERR_DN_TYPE, 0},
    {"cn=a,=b", 0, 0, ACRE_ERR_DN_TYPE, 5},
    {"cn=a+=b", 0, 0, ACRE_ERR_DN_TYPE, 5},
    {"2.05.4.3=a", 0, 0, ACRE_ERR_DN_TYPE, -1},
    {"00.1=a", 0, 0, ACRE_ERR_DN_TYPE, -1},
    {"2.5.4.=a", 0, 0, ACRE_ERR_DN_TYPE, -1},
    {"2..5=a", 0, 0, ACRE_ERR_DN_TYPE, -1},
    {".2.5=a", 0, 0, ACRE_ERR_DN_TYPE, 0},
    {"c n=a", 0, 0, ACRE_ERR_DN_NO_EQUALS, 2},
    {"cn=a,ou", 0, 0, ACRE_ERR_DN_NO_EQUALS, 7},
    /* escapes and specials */
    {"cn=a\\4", 0, 0, ACRE_ERR_DN_ESCAPE, 4},
    {"cn=a\\4g", 0, 0, ACRE_ERR_DN_ESCAPE, 4},
    {"cn=a\\g4", 0, 0, ACRE_ERR_DN_ESCAPE, 4},
    {"cn=\\_", 0, 0, ACRE_ERR_DN_ESCAPE, 3},
    {"cn=a>b", 0, 0, ACRE_ERR_DN_UNESCAPED, 4},
    {"cn=a\"b", 0, 0, ACRE_ERR_DN_UNESCAPED, 4},
    {"cn=a\"", 0, 0, ACRE_ERR_DN_UNESCAPED, 4},
    {"cn=a\0b", 6, 0, ACRE_ERR_DN_UNESCAPED, 4},
    {"cn=\"a,b", 0, 0, ACRE_ERR_DN_QUOTE, 3},
    /* #hex */
    {"cn=#0c0361626", 0, 0, ACRE_ERR_DN_HEX, 13},
    {"cn=#0c03616263x", 0, 0, ACRE_ERR_DN_HEX, 14},
    {"cn=#0c036162", 0, 0, ACRE_ERR_DN_BER, 3},
    {"cn=#0c0361626300", 0, 0, ACRE_ERR_DN_BER, 3},
    {"cn=#020205", 0, 0, ACRE_ERR_DN_BER, 3},
    {"cn=#0c", 0, 0, ACRE_ERR_DN_BER, 3},
    {"cn=#0c81", 0, 0, ACRE_ERR_DN_BER, 3},
    {"ou=x,cn=#0c05616263", 0, 0, ACRE_ERR_DN_BER, 8},
};

Test(dn, syntax_errors)
{
    check_errs(syntax_errs, NELEM(syntax_errs));
}

static const err_case value_errs[] = {
    {"cn=", 0, 0, ACRE_ERR_DN_VALUE, 3},
    {"cn=\"\"", 0, 0, ACRE_ERR_DN_VALUE, 3},
    {"cn=   ", 0, 0, ACRE_ERR_DN_VALUE, -1},
    {"cn=,dc=b", 0, 0, ACRE_ERR_DN_VALUE, 3},
    {"dc=", 0, 0, ACRE_ERR_DN_VALUE, 3},
    {"member=", 0, 0, ACRE_ERR_DN_VALUE, 7},
    /* a DN value of spaces only is empty too (slapd: invalid DN) */
    {"member=\\20", 0, 0, ACRE_ERR_DN_VALUE, 7},
    {"owner=\\20\\20,dc=b", 0, 0, ACRE_ERR_DN_VALUE, 6},
    {"uniqueMember=\\20", 0, 0, ACRE_ERR_DN_VALUE, 13},
    {"uniqueMember=\\20#'01'B", 0, 0, ACRE_ERR_DN_VALUE, 13},
    {"member=member=\\5c20", 0, 0, ACRE_ERR_DN_VALUE, -1},
    {"uidNumber=", 0, 0, ACRE_ERR_DN_VALUE, 10},
    {"x121Address=", 0, 0, ACRE_ERR_DN_VALUE, 12},
    {"telephoneNumber=", 0, 0, ACRE_ERR_DN_VALUE, 16},
    {"myAttr=", 0, 0, ACRE_ERR_DN_VALUE, 7},
    {"cn=#0c00", 0, 0, ACRE_ERR_DN_VALUE, 3},
    {"dc=\u00e9", 0, 0, ACRE_ERR_DN_VALUE, 3},
    {"mail=caf\u00e9@x", 0, 0, ACRE_ERR_DN_VALUE, 5},
    {"dc=#0c02c3a9", 0, 0, ACRE_ERR_DN_VALUE, 3},
    {"x121Address=12a", 0, 0, ACRE_ERR_DN_VALUE, 12},
    {"x121Address=1-2", 0, 0, ACRE_ERR_DN_VALUE, 12},
    {"uidNumber=12a", 0, 0, ACRE_ERR_DN_VALUE, 10},
    {"uidNumber=-", 0, 0, ACRE_ERR_DN_VALUE, 10},
    {"uidNumber=+5", 0, 0, ACRE_ERR_DN_VALUE, 10},
    {"uidNumber=1-2", 0, 0, ACRE_ERR_DN_VALUE, 10},
    {"uidNumber=1 2", 0, 0, ACRE_ERR_DN_VALUE, 10},
    {"ou=x,gidNumber=x", 0, 0, ACRE_ERR_DN_VALUE, 15},
    /* an invalid inner DN gives the inner error */
    {"member=cn=a\\,\\,dc=b", 0, 0, ACRE_ERR_DN_EMPTY_RDN, -1},
    {"member=foo", 0, 0, ACRE_ERR_DN_NO_EQUALS, -1},
    {"member=cn=\\5cff", 0, 0, ACRE_ERR_DN_UTF8, -1},
    {"owner=cn=x\\+cn=X", 0, 0, ACRE_ERR_DN_DUP_AVA, -1},
    /* unknown types under ACRE_DN_STRICT */
    {"myAttr=x", 0, ACRE_DN_STRICT, ACRE_ERR_DN_UNKNOWN_TYPE, 0},
    {"cn=a,myAttr=x", 0, ACRE_DN_STRICT, ACRE_ERR_DN_UNKNOWN_TYPE, 5},
    {"1.2.3.4=x", 0, ACRE_DN_STRICT, ACRE_ERR_DN_UNKNOWN_TYPE, 0},
    /* what slapd's dnNormalize refuses, under ACRE_DN_SLAPD */
    {"cn=a+cn=b,dc=x", 0, ACRE_DN_SLAPD, ACRE_ERR_DN_DUP_AVA, 0},
    {"dc=x,cn=a+commonName=b", 0, ACRE_DN_SLAPD, ACRE_ERR_DN_DUP_AVA, 0},
    {"sn=s+cn=a+CN=b", 0, ACRE_DN_SLAPD, ACRE_ERR_DN_DUP_AVA, 0},
    {"cn=#04024869,dc=x", 0, ACRE_DN_SLAPD, ACRE_ERR_DN_BER, 0},
    {"sn=s+cn=#04024869", 0, ACRE_DN_SLAPD | ACRE_DN_STRICT, ACRE_ERR_DN_BER,
     0},
};

Test(dn, value_errors)
{
    check_errs(value_errs, NELEM(value_errs));
}

Test(dn, strict_accepts_known_types)
{
    static const char *const ok[] = {"cn=a,ou=b,o=c,dc=d",
                                     "commonName=a+2.5.4.4=b",
                                     "uid=x,0.9.2342.19200300.100.1.25=y",
                                     "gn=a+displayName=b",
                                     "member=cn=x",
                                     "userPassword=x",
                                     ""};

    for (size_t i = 0; i < NELEM(ok); i++) {
        acre_dn *dn = try_parse_flags(ok[i], strlen(ok[i]), ACRE_DN_STRICT);

        acre_dn_free(dn);
    }
}

Test(dn, invalid_arguments)
{
    acre_dn *sentinel = (acre_dn *)(uintptr_t)0x5eed, *dn = sentinel;
    acre_dn *ok = must_parse("cn=a");
    acre_diag d;

    cr_expect_eq(acre_dn_parse(NULL, NULL, NULL, 0, 0, &dn, &d), ACRE_ERR_INVAL,
                 "str NULL");
    cr_expect_eq(acre_dn_parse(NULL, NULL, NULL, 4, 0, &dn, NULL),
                 ACRE_ERR_INVAL, "str NULL, diag NULL");
    cr_expect_eq(acre_dn_parse(NULL, NULL, "cn=a", 4, 0, NULL, &d),
                 ACRE_ERR_INVAL, "out NULL");
    cr_expect_eq(acre_dn_parse(NULL, NULL, "cn=a", 4, 0x80u, &dn, &d),
                 ACRE_ERR_INVAL, "unknown flag bit");
    cr_expect_eq(dn, sentinel, "*out changed on ACRE_ERR_INVAL");
    cr_expect_eq(acre_dn_parse(NULL, NULL, "cn=a,,b", 7, 0, &dn, NULL),
                 ACRE_ERR_DN_EMPTY_RDN, "diag may be NULL");
    cr_expect_eq(acre_dn_copy(NULL, NULL, &dn), ACRE_ERR_INVAL, "copy NULL");
    cr_expect_eq(acre_dn_copy(NULL, ok, NULL), ACRE_ERR_INVAL, "copy out NULL");
    cr_expect_eq(dn, sentinel, "*out changed on error");
    acre_dn_free(NULL);
    acre_dn_free(ok);
}

/* One rule for NULL (acre.h): every accessor takes it and gives the
 * neutral answer; these dereferenced it before. */
Test(dn, null_everywhere)
{
    acre_dn *ok = must_parse("cn=a,dc=x"), *out = (acre_dn *)(uintptr_t)0x5eed;
    const char *sp = "untouched";
    size_t len = 99, plen = 99;

    cr_expect_null(acre_dn_normalised(NULL, &len));
    cr_expect_eq(len, 0);
    cr_expect_null(acre_dn_normalised(NULL, NULL));
    len = 99;
    cr_expect_null(acre_dn_pretty(NULL, &len));
    cr_expect_eq(len, 0);
    cr_expect_null(acre_dn_pretty(NULL, NULL));
    cr_expect_eq(acre_dn_depth(NULL), 0);
    cr_expect_eq(acre_dn_ancestor_hash(NULL, 0), 0);
    cr_expect_eq(acre_dn_ancestor_hash(NULL, 3), 0);
    cr_expect_eq(acre_dn_rdn(NULL, 0, &sp, &len, &sp, &plen), ACRE_ERR_INVAL);
    cr_expect_str_eq(sp, "untouched");
    cr_expect_eq(plen, 99);
    cr_expect_eq(acre_dn_rdn(NULL, 0, NULL, NULL, NULL, NULL), ACRE_ERR_INVAL);
    len = 99;
    cr_expect_null(acre_dn_ancestor(NULL, 0, &len));
    cr_expect_eq(len, 0);
    len = 99;
    cr_expect_null(acre_dn_ancestor(ok, 3, &len)); /* past the depth */
    cr_expect_eq(len, 0);
    cr_expect_eq(acre_dn_equal(NULL, ok), 0);
    cr_expect_eq(acre_dn_equal(ok, NULL), 0);
    cr_expect_eq(acre_dn_equal(NULL, NULL), 0);
    cr_expect_eq(acre_dn_in_scope(NULL, NULL, ACRE_SCOPE_BASE), ACRE_ERR_INVAL);
    cr_expect_eq(acre_dn_size(NULL), 0);
    cr_expect_eq(acre_dn_copy(NULL, NULL, &out), ACRE_ERR_INVAL);
    cr_expect_eq(out, (acre_dn *)(uintptr_t)0x5eed);
    acre_dn_free(NULL);
    /* and a DN still answers as before */
    cr_expect_eq(acre_dn_equal(ok, ok), 1);
    cr_expect_eq(acre_dn_depth(ok), 2);
    acre_dn_free(ok);
}

/* ------------------------------------------------------------------------
 * Nesting of DN-valued values
 */

/* Escape s as an RFC 4514 value (no leading '#' or spaces occur here). */
static char *
escape_value(void *ctx, const char *s)
{
    char *out = talloc_strdup(ctx, "");

    for (; *s != '\0'; s++) {
        if (strchr(",+\"\\<>;", *s) != NULL)
            out = talloc_asprintf_append(out, "\\%c", *s);
        else
            out = talloc_asprintf_append(out, "%c", *s);
    }
    return out;
}

/* k levels of DN-valued values, already in normalised form:
 * nest(1) = "member=cn=x,o=l1", nest(2) = "member=member=cn=x\,o=l1,o=l2" */
static char *
nest(void *ctx, int k)
{
    if (k == 0)
        return talloc_strdup(ctx, "cn=x");
    return talloc_asprintf(ctx, "member=%s,o=l%d",
                           escape_value(ctx, nest(ctx, k - 1)), k);
}

Test(dn, nesting_up_to_the_limit)
{
    void *ctx = talloc_new(NULL);

    for (int k = 1; k <= ACRE_DN_MAX_NESTING; k++) {
        char *s = nest(ctx, k);
        acre_dn *dn = try_parse(s);

        if (dn != NULL)
            cr_expect_str_eq(norm(dn), s, "nesting %d: \"%s\" -> \"%s\"", k,
                             V(s), V(norm(dn)));
        acre_dn_free(dn);
    }
    talloc_free(ctx);
}

Test(dn, nesting_past_the_limit)
{
    void *ctx = talloc_new(NULL);
    err_case c = {nest(ctx, ACRE_DN_MAX_NESTING + 2), 0, 0, ACRE_ERR_DN_NESTING,
                  7};
    err_case c2 = {nest(ctx, 3 * ACRE_DN_MAX_NESTING), 0, 0,
                   ACRE_ERR_DN_NESTING, 7};

    check_err(&c);
    check_err(&c2);
    talloc_free(ctx);
}

/* ------------------------------------------------------------------------
 * The fast path for input that looks normalised must still validate and
 * normalise.
 */
static const form_case lookalike_forms[] = {
    {"cn=a  b", "cn=a b", NULL},
    {"cn=a ", "cn=a", NULL},
    {"cn=\\ a", "cn=a", NULL},
    {"uidnumber=007", "uidnumber=7", NULL},
    {"cn=b+cn=a", "cn=a+cn=b", NULL},
    {"cn=e\u0301", "cn=\u00e9", NULL},
    {"cn=a\u00adb", "cn=ab", NULL},
    {"cn=\\2c", "cn=\\,", NULL},
    {"cn=\\61", "cn=a", NULL},
    {"telephonenumber=1 555", "telephonenumber=1555", NULL},
    {"telephonenumber=\\+1 555", "telephonenumber=\\+1555", NULL},
    {"x121address=1 2", "x121address=12", NULL},
    /* aliases spelt in lowercase are not the canonical names */
    {"commonname=a", "cn=a", NULL},
    {"surname=x", "sn=x", NULL},
    {"userid=x", "uid=x", NULL},
    {"domaincomponent=com", "dc=com", NULL},
    {"rfc822mailbox=a@b", "mail=a@b", NULL},
    {"organizationname=x", "o=x", NULL},
    {"commonname=a,dc=b", "cn=a,dc=b", NULL},
    {"gn=x", "givenname=x", NULL},
    /* raw controls: tab maps to a space, U+0001 and DEL to nothing */
    {"cn=a\tb", "cn=a b", NULL},
    {"cn=a\x01"
     "b\x7f"
     "c",
     "cn=abc", NULL},
    {"memberuid=a  b", "memberuid=a b", NULL},
    {"cn=\"a\"", "cn=a", NULL},
    {"cn=a;dc=b", "cn=a,dc=b", NULL},
    {"cn=#0c0161", "cn=a", NULL},
    {"member=cn=a\\,dc=b", "member=cn=a\\,dc=b", NULL},
    {"member=cn=a\\2cdc=b", "member=cn=a\\,dc=b", NULL},
    {"cn=\uFB01", "cn=fi", NULL},
    {"cn=\u00e5", "cn=\u00e5", NULL},
};

static const err_case lookalike_errs[] = {
    {"dc=\u00e9", 0, 0, ACRE_ERR_DN_VALUE, 3},
    {"cn=\uFDD0", 0, 0, ACRE_ERR_DN_PROHIBITED, 3},
    {"cn=a+cn=a", 0, 0, ACRE_ERR_DN_DUP_AVA, 5},
    {"cn=\\ff", 0, 0, ACRE_ERR_DN_UTF8, 3},
    {"cn=\xc3", 0, 0, ACRE_ERR_DN_UTF8, 3},
    {"uidnumber=x", 0, 0, ACRE_ERR_DN_VALUE, 10},
    {"x121address=a", 0, 0, ACRE_ERR_DN_VALUE, 12},
    {"member=cn", 0, 0, ACRE_ERR_DN_NO_EQUALS, -1},
    {"cn=", 0, 0, ACRE_ERR_DN_VALUE, 3},
    {"cn=a<b", 0, 0, ACRE_ERR_DN_UNESCAPED, 4},
    {"myattr=x", 0, ACRE_DN_STRICT, ACRE_ERR_DN_UNKNOWN_TYPE, 0},
};

/* ACRE_DN_SLAPD refuses nothing else: escaped look-alikes, two types,
 * and the forms it refuses without the flag */
Test(dn, slapd_flag_takes_the_rest)
{
    static const char *const ok[] = {"cn=a+sn=b,dc=x",   "cn=\\#x,dc=x",
                                     "cn=a\\+cn=b,dc=x", "cn=a\\=cn,dc=x",
                                     "cn=a+ou=b+sn=c",   ""};

    for (size_t i = 0; i < NELEM(ok); i++) {
        acre_dn *dn = NULL;
        cr_expect_eq(acre_dn_parse(NULL, NULL, ok[i], strlen(ok[i]),
                                   ACRE_DN_SLAPD, &dn, NULL),
                     0, "%s", ok[i]);
        acre_dn_free(dn);
    }
    acre_dn *dn = NULL;
    cr_expect_eq(acre_dn_parse(NULL, NULL, "cn=a+cn=b", 9, 0, &dn, NULL), 0);
    acre_dn_free(dn);
    cr_expect_eq(acre_dn_parse(NULL, NULL, "cn=a", 4, 0x4u, &dn, NULL),
                 ACRE_ERR_INVAL, "an unknown flag");
    char buf[ACRE_DN_BUF_MAX] __attribute__((aligned(8)));
    dn = NULL;
    cr_expect_eq(acre_dn_parse_buf(buf, sizeof buf, NULL, "cn=a+cn=b", 9,
                                   ACRE_DN_SLAPD, &dn, NULL),
                 ACRE_ERR_DN_DUP_AVA);
    cr_expect_null(dn, "*out stays as it was");
}

/* Under slapd's profile a value is checked with its type's syntax, as
 * dnNormalize does, on every path (slaptest 2.5.13: 'bad DN
 * "c=example,dc=com"'): countryName takes two printable characters
 * although its caseIgnoreMatch takes any string. */
Test(dn, slapd_profile_checks_the_type_syntax)
{
    static const char *const bad[] = {"c=example,dc=com", "o=x,c=usa",
                                      "countryName=U S", "c=u\\73a",
                                      "c=\\c3\\a4x"};
    static const char *const good[] = {"c=US", "o=x,c=de", "C=u\\73",
                                       "countryName=fr,dc=x"};
    char buf[ACRE_DN_BUF_MAX] __attribute__((aligned(8)));
    acre_schema *slapd, *rfc;
    acre_dn *dn;

    cr_assert_eq(acre_schema_new(NULL, ACRE_SCHEMA_SLAPD, &slapd, NULL), 0);
    cr_assert_eq(acre_schema_new(NULL, 0, &rfc, NULL), 0);
    for (size_t i = 0; i < NELEM(bad); i++) {
        dn = NULL;
        cr_expect_eq(
            acre_dn_parse(NULL, slapd, bad[i], strlen(bad[i]), 0, &dn, NULL),
            ACRE_ERR_DN_VALUE, "%s", bad[i]);
        cr_expect_eq(acre_dn_parse_buf(buf, sizeof buf, slapd, bad[i],
                                       strlen(bad[i]), 0, &dn, NULL),
                     ACRE_ERR_DN_VALUE, "%s (buffer)", bad[i]);
        cr_expect_eq(
            acre_dn_parse(NULL, rfc, bad[i], strlen(bad[i]), 0, &dn, NULL), 0,
            "%s (RFC 4518 profile)", bad[i]);
        acre_dn_free(dn);
    }
    for (size_t i = 0; i < NELEM(good); i++) {
        dn = NULL;
        cr_expect_eq(
            acre_dn_parse(NULL, slapd, good[i], strlen(good[i]), 0, &dn, NULL),
            0, "%s", good[i]);
        acre_dn_free(dn);
    }
    acre_schema_free(slapd);
    acre_schema_free(rfc);
}

Test(dn, normalised_lookalikes_are_checked)
{
    check_forms(lookalike_forms, NELEM(lookalike_forms));
    check_errs(lookalike_errs, NELEM(lookalike_errs));
}

/* ------------------------------------------------------------------------
 * Idempotence: normalised(parse(normalised(x))) == normalised(x) and
 * normalised(parse(pretty(x))) == normalised(x), for every valid input of
 * every table above.
 */
static void
check_idempotent(const char *in)
{
    acre_dn *dn = try_parse(in), *n2, *p2;
    const char *n, *p;

    if (dn == NULL)
        return;
    n = norm(dn);
    p = acre_dn_pretty(dn, NULL);
    n2 = try_parse(n);
    p2 = try_parse(p);
    if (n2 != NULL)
        cr_expect_str_eq(norm(n2), n,
                         "\"%s\": normalised \"%s\" re-normalises to \"%s\"",
                         V(in), V(n), V(norm(n2)));
    if (p2 != NULL)
        cr_expect_str_eq(norm(p2), n,
                         "\"%s\": pretty \"%s\" normalises to \"%s\", "
                         "want \"%s\"",
                         V(in), V(p), V(norm(p2)), V(n));
    acre_dn_free(n2);
    acre_dn_free(p2);
    acre_dn_free(dn);
}

static void
idempotent_table(const form_case *c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        check_idempotent(c[i].in);
}

Test(dn, idempotence)
{
    void *ctx = talloc_new(NULL);

    idempotent_table(basic_forms, NELEM(basic_forms));
    idempotent_table(type_forms, NELEM(type_forms));
    idempotent_table(syntax_forms, NELEM(syntax_forms));
    idempotent_table(escape_forms, NELEM(escape_forms));
    idempotent_table(multi_forms, NELEM(multi_forms));
    idempotent_table(hex_forms, NELEM(hex_forms));
    idempotent_table(unicode_forms, NELEM(unicode_forms));
    idempotent_table(lookalike_forms, NELEM(lookalike_forms));
    idempotent_table(exact_forms, NELEM(exact_forms));
    for (size_t i = 0; i < NELEM(unicode_groups); i++) {
        for (size_t j = 0; unicode_groups[i][j] != NULL; j++)
            check_idempotent(unicode_groups[i][j]);
    }
    for (int k = 1; k <= ACRE_DN_MAX_NESTING; k++)
        check_idempotent(nest(ctx, k));
    talloc_free(ctx);
}

/* ------------------------------------------------------------------------
 * Ancestry hashes and ancestors
 */
Test(dn, ancestry_hashes_shared_suffix)
{
    acre_dn *a = must_parse("cn=a,dc=x,dc=y");
    acre_dn *b = must_parse("ou=b,dc=X,DC=Y");

    cr_assert_eq(acre_dn_depth(a), 3u, "depth of a");
    cr_assert_eq(acre_dn_depth(b), 3u, "depth of b");
    for (unsigned i = 0; i <= 2; i++)
        cr_expect_eq(acre_dn_ancestor_hash(a, i), acre_dn_ancestor_hash(b, i),
                     "h[%u] of cn=a,dc=x,dc=y and ou=b,dc=X,DC=Y", i);
    cr_expect_neq(acre_dn_ancestor_hash(a, 3), acre_dn_ancestor_hash(b, 3),
                  "h[3] of different DNs");
    cr_expect_eq(acre_dn_ancestor_hash(a, 4), 0u, "h[4] of a depth-3 DN");
    cr_expect_eq(acre_dn_ancestor_hash(a, 1000), 0u, "h[1000]");
    acre_dn_free(a);
    acre_dn_free(b);
}

Test(dn, ancestry_hashes_differ)
{
    acre_dn *a = must_parse("dc=x,dc=y");
    acre_dn *b = must_parse("dc=x,dc=z");
    acre_dn *c = must_parse("dc=y,dc=x");
    acre_dn *d = must_parse("cn=a\\,dc=x,dc=y"); /* depth 2 */
    acre_dn *e = must_parse("cn=a,dc=x,dc=y");   /* depth 3 */

    cr_expect_neq(acre_dn_ancestor_hash(a, 1), acre_dn_ancestor_hash(b, 1),
                  "h[1] dc=y vs dc=z");
    cr_expect_neq(acre_dn_ancestor_hash(a, 2), acre_dn_ancestor_hash(b, 2),
                  "h[2] dc=x,dc=y vs dc=x,dc=z");
    cr_expect_neq(acre_dn_ancestor_hash(a, 2), acre_dn_ancestor_hash(c, 2),
                  "RDN order matters");
    cr_expect_eq(acre_dn_depth(d), 2u, "escaped comma is not a separator");
    cr_expect_neq(acre_dn_ancestor_hash(d, 2), acre_dn_ancestor_hash(e, 2),
                  "RDN boundaries matter");
    cr_expect_neq(acre_dn_ancestor_hash(d, 2), acre_dn_ancestor_hash(a, 2),
                  "cn=a\\,dc=x,dc=y vs dc=x,dc=y");
    acre_dn_free(a);
    acre_dn_free(b);
    acre_dn_free(c);
    acre_dn_free(d);
    acre_dn_free(e);
}

Test(dn, ancestors)
{
    static const char *const want[] = {"", "dc=y", "dc=x,dc=y",
                                       "cn=a+sn=b,dc=x,dc=y"};
    acre_dn *dn = must_parse("SN=B+CN=A, DC=X, DC=Y");

    cr_assert_eq(acre_dn_depth(dn), 3u, "depth");
    for (unsigned i = 0; i <= 3; i++) {
        size_t len = 999;
        const char *s = acre_dn_ancestor(dn, i, &len);

        expect_text("ancestor", want[i], s, len, want[i]);
    }
    cr_expect_null(acre_dn_ancestor(dn, 4, NULL), "ancestor(dn, 4)");
    cr_expect_str_eq(acre_dn_ancestor(dn, 3, NULL), norm(dn),
                     "ancestor(dn, depth) is the DN");
    acre_dn_free(dn);
}

Test(dn, equal)
{
    static const char *const same[][2] = {
        {"CN=A,DC=B", "cn=a,dc=b"},
        {"cn=a+sn=b", "sn=b+cn=a"},
        {"commonName=x , 0.9.2342.19200300.100.1.25=Y", "cn=X,dc=y"},
        {"", ""},
    };
    static const char *const differ[][2] = {
        {"cn=a,dc=b", "cn=b,dc=a"},
        {"cn=a,dc=b", "cn=a\\,dc=b"},
        {"cn=a", "sn=a"},
        {"cn=a", ""},
        {"cn=a+sn=b", "cn=a,sn=b"},
        {"userPassword=a", "userPassword=A"},
        {"labeledURI=A", "labeledURI=a"},
        {"memberUid=A", "memberUid=a"},
    };

    for (size_t i = 0; i < NELEM(same); i++) {
        acre_dn *a = try_parse(same[i][0]), *b = try_parse(same[i][1]);

        if (a != NULL && b != NULL)
            cr_expect_eq(acre_dn_equal(a, b), 1, "equal(\"%s\", \"%s\")",
                         V(same[i][0]), V(same[i][1]));
        acre_dn_free(a);
        acre_dn_free(b);
    }
    for (size_t i = 0; i < NELEM(differ); i++) {
        acre_dn *a = try_parse(differ[i][0]), *b = try_parse(differ[i][1]);

        if (a != NULL && b != NULL)
            cr_expect_eq(acre_dn_equal(a, b), 0, "equal(\"%s\", \"%s\")",
                         V(differ[i][0]), V(differ[i][1]));
        acre_dn_free(a);
        acre_dn_free(b);
    }
}

/* ------------------------------------------------------------------------
 * Scopes
 */
typedef struct scope_case {
    const char *entry, *base;
    int base_, one, sub, children; /* expected per scope */
} scope_case;

#define EX "dc=example,dc=com"

static const scope_case scope_cases[] = {
    {EX, EX, 1, 0, 1, 0},
    {"DC=Example, DC=COM", EX, 1, 0, 1, 0},
    {"ou=a," EX, EX, 0, 1, 1, 1},
    {"ou=a+cn=b," EX, EX, 0, 1, 1, 1},
    {"cn=x,ou=a," EX, EX, 0, 0, 1, 1},
    {"CN=X,DC=Example,DC=COM",
     "domainComponent=example,"
     "0.9.2342.19200300.100.1.25=com",
     0, 1, 1, 1},
    {"ou=a,cn=b+sn=c,dc=x", "sn=c+cn=b,dc=x", 0, 1, 1, 1},
    /* above, beside, and string suffixes that are not RDN suffixes */
    {"dc=com", EX, 0, 0, 0, 0},
    {"", EX, 0, 0, 0, 0},
    {EX, "ou=a," EX, 0, 0, 0, 0},
    {"dc=other,dc=com", EX, 0, 0, 0, 0},
    {"ou=a,dc=other,dc=com", EX, 0, 0, 0, 0},
    {"ou=a,dc=bexample,dc=com", EX, 0, 0, 0, 0},
    {"ou=a,xdc=example,dc=com", EX, 0, 0, 0, 0},
    {"cn=a\\,dc=example,dc=com", EX, 0, 0, 0, 0},
    {"cn=x,cn=a\\,dc=example,dc=com", EX, 0, 0, 0, 0},
    {"dc=example,dc=com+o=x", EX, 0, 0, 0, 0},
    {"cn=q+dc=com", "dc=com", 0, 0, 0, 0},
    {"ou=a,cn=q+dc=com", "dc=com", 0, 0, 0, 0},
    {"cn=x,dc=example,dc=org", EX, 0, 0, 0, 0},
    /* the root DN as base */
    {"", "", 1, 0, 1, 0},
    {"dc=com", "", 0, 1, 1, 1},
    {EX, "", 0, 0, 1, 1},
    {"cn=x,ou=a," EX, "", 0, 0, 1, 1},
};

static void
check_scope(const scope_case *c)
{
    acre_dn *e = try_parse(c->entry), *b = try_parse(c->base);
    const int want[4] = {c->base_, c->one, c->sub, c->children};
    static const char *const names[4] = {"base", "one", "sub", "children"};

    for (int s = 0; e != NULL && b != NULL && s < 4; s++) {
        int got = acre_dn_in_scope(e, b, s);

        cr_expect_eq(got, want[s], "in_scope(\"%s\", \"%s\", %s) = %d, want %d",
                     V(c->entry), V(c->base), names[s], got, want[s]);
    }
    acre_dn_free(e);
    acre_dn_free(b);
}

static void
check_scopes(void)
{
    for (size_t i = 0; i < NELEM(scope_cases); i++)
        check_scope(&scope_cases[i]);
}

Test(dn, in_scope)
{
    check_scopes();
}

Test(dn, in_scope_bad_arguments)
{
    acre_dn *e = must_parse("ou=a," EX), *b = must_parse(EX);
    static const int bad[] = {4, -1, 100};

    for (size_t i = 0; i < NELEM(bad); i++)
        cr_expect_eq(acre_dn_in_scope(e, b, bad[i]), ACRE_ERR_INVAL, "scope %d",
                     bad[i]);
    cr_expect_eq(acre_dn_in_scope(NULL, b, ACRE_SCOPE_SUB), ACRE_ERR_INVAL,
                 "entry NULL");
    cr_expect_eq(acre_dn_in_scope(e, NULL, ACRE_SCOPE_SUB), ACRE_ERR_INVAL,
                 "base NULL");
    acre_dn_free(e);
    acre_dn_free(b);
}

/* ------------------------------------------------------------------------
 * Forced hash collisions (engine/dn.h test hook): a hash equality must
 * never be trusted alone.
 */
static uint64_t
constant_hash(const void *p, size_t n, uint64_t seed)
{
    (void)p;
    (void)n;
    (void)seed;
    return 0x0123456789abcdefULL;
}

static void
reset_hash_hook(void)
{
    acreD_set_hash_hook(NULL);
}

TestSuite(dn_collision, .fini = reset_hash_hook);

Test(dn_collision, hook_makes_all_hashes_collide)
{
    acre_dn *a, *b;

    acreD_set_hash_hook(constant_hash);
    a = must_parse("cn=a,dc=example,dc=com");
    b = must_parse("uid=zz,ou=other,o=org");
    for (unsigned i = 0; i <= 3; i++)
        cr_expect_eq(acre_dn_ancestor_hash(a, i), acre_dn_ancestor_hash(b, i),
                     "with a constant hook h[%u] should collide", i);
    acre_dn_free(a);
    acre_dn_free(b);
}

Test(dn_collision, in_scope_confirms_hash_hits)
{
    acreD_set_hash_hook(constant_hash);
    check_scopes();
}

Test(dn_collision, equal_confirms_hash_hits)
{
    static const char *const pairs[][2] = {
        {"cn=a,dc=b", "cn=b,dc=a"},
        {"dc=example,dc=com", "dc=example,dc=org"},
        {"cn=a\\,dc=b", "cn=b"},
        {"cn=x,ou=a,dc=example,dc=com", "cn=x,ou=a,xdc=example,dc=com"},
    };
    acre_dn *s1, *s2;

    acreD_set_hash_hook(constant_hash);
    for (size_t i = 0; i < NELEM(pairs); i++) {
        acre_dn *a = try_parse(pairs[i][0]), *b = try_parse(pairs[i][1]);

        if (a != NULL && b != NULL)
            cr_expect_eq(acre_dn_equal(a, b), 0,
                         "colliding equal(\"%s\", \"%s\")", V(pairs[i][0]),
                         V(pairs[i][1]));
        acre_dn_free(a);
        acre_dn_free(b);
    }
    s1 = must_parse("CN=A,DC=B");
    s2 = must_parse("cn=a,dc=b");
    cr_expect_eq(acre_dn_equal(s1, s2), 1, "equal DNs under the hook");
    acre_dn_free(s1);
    acre_dn_free(s2);
}

Test(dn_collision, null_restores_the_real_hash)
{
    acre_dn *a, *b;

    acreD_set_hash_hook(constant_hash);
    acreD_set_hash_hook(NULL);
    a = must_parse("dc=example,dc=com");
    b = must_parse("dc=example,dc=org");
    cr_expect_neq(acre_dn_ancestor_hash(a, 2), acre_dn_ancestor_hash(b, 2),
                  "hashes still collide after the hook was reset");
    acre_dn_free(a);
    acre_dn_free(b);
}

/* ------------------------------------------------------------------------
 * Limits
 */

/* "cn=" followed by 'a' up to a total of len bytes. */
static char *
long_dn(size_t len)
{
    char *s = malloc(len + 1);

    cr_assert_not_null(s, "malloc");
    memcpy(s, "cn=", 3);
    memset(s + 3, 'a', len - 3);
    s[len] = '\0';
    return s;
}

/* n copies of unit joined by sep. */
static char *
repeat(const char *unit, const char *sep, unsigned n)
{
    char *s = talloc_strdup(NULL, "");

    for (unsigned i = 0; i < n; i++)
        s = talloc_asprintf_append(s, "%s%s", i ? sep : "", unit);
    return s;
}

/* n AVAs cn=v0+cn=v1+... */
static char *
many_avas(unsigned n)
{
    char *s = talloc_strdup(NULL, "");

    for (unsigned i = 0; i < n; i++)
        s = talloc_asprintf_append(s, "%scn=v%u", i ? "+" : "", i);
    return s;
}

Test(dn, limit_input_length)
{
    char *ok = long_dn(ACRE_DN_MAX_LEN), *bad = long_dn(ACRE_DN_MAX_LEN + 1);
    acre_dn *dn = try_parse(ok);
    err_case c = {bad, 0, 0, ACRE_ERR_DN_TOO_LONG, ACRE_DN_MAX_LEN};

    if (dn != NULL)
        cr_expect_eq(strlen(norm(dn)), (size_t)ACRE_DN_MAX_LEN,
                     "normalised length of a %d-byte DN", ACRE_DN_MAX_LEN);
    check_err(&c);
    acre_dn_free(dn);
    free(ok);
    free(bad);
}

Test(dn, limit_rdns)
{
    char *ok = repeat("dc=x", ",", ACRE_DN_MAX_RDNS);
    char *bad = repeat("dc=x", ",", ACRE_DN_MAX_RDNS + 1);
    acre_dn *dn = try_parse(ok);
    err_case c = {bad, 0, 0, ACRE_ERR_DN_TOO_MANY_RDNS, -1};

    if (dn != NULL)
        cr_expect_eq(acre_dn_depth(dn), (unsigned)ACRE_DN_MAX_RDNS,
                     "depth at the limit");
    check_err(&c);
    acre_dn_free(dn);
    talloc_free(ok);
    talloc_free(bad);
}

Test(dn, limit_avas)
{
    char *ok = many_avas(ACRE_DN_MAX_AVAS);
    char *bad = many_avas(ACRE_DN_MAX_AVAS + 1);
    char *rest = repeat("dc=x", ",", ACRE_DN_MAX_RDNS - 1);
    char *both = talloc_asprintf(rest, "%s,%s", ok, rest);
    acre_dn *dn = try_parse(ok), *dn2 = try_parse(both);
    err_case c = {bad, 0, 0, ACRE_ERR_DN_TOO_MANY_AVAS, -1};

    if (dn != NULL)
        cr_expect_eq(acre_dn_depth(dn), 1u, "one RDN of %d AVAs",
                     ACRE_DN_MAX_AVAS);
    if (dn2 != NULL)
        cr_expect_eq(acre_dn_depth(dn2), (unsigned)ACRE_DN_MAX_RDNS,
                     "max AVAs and max RDNs together");
    check_err(&c);
    acre_dn_free(dn);
    acre_dn_free(dn2);
    talloc_free(ok);
    talloc_free(bad);
    talloc_free(rest);
}

/* Inputs within the input limit whose normalised form is not. */
static char *
expanding_octets(void)
{
    size_t n = 3000, k = strlen("userPassword=");
    char *s = malloc(k + n + 1);

    cr_assert_not_null(s, "malloc");
    memcpy(s, "userPassword=", k);
    memset(s + k, 0x01, n); /* raw U+0001; written "\01" when normalised */
    s[k + n] = '\0';
    return s;
}

static char *
expanding_nfkc(void)
{
    char *s = talloc_strdup(NULL, "cn=");

    for (int i = 0; i < 800; i++) /* U+FDFA: 3 bytes -> 33 bytes in NFKC */
        s = talloc_strdup_append(s, "\uFDFA");
    return s;
}

Test(dn, limit_output_length)
{
    char *a = expanding_octets(), *b = expanding_nfkc();
    err_case ca = {a, 0, 0, ACRE_ERR_DN_TOO_LONG, -1};
    err_case cb = {b, 0, 0, ACRE_ERR_DN_TOO_LONG, -1};

    check_err(&ca);
    check_err(&cb);
    free(a);
    talloc_free(b);
}

/* ------------------------------------------------------------------------
 * acre_dn_parse_buf, position independence, copies and memory
 */
typedef union big_buf {
    uint64_t align;
    unsigned char b[ACRE_DN_BUF_MAX];
} big_buf;

static void
expect_same_dn(const acre_dn *got, const acre_dn *want, const char *what)
{
    unsigned d = acre_dn_depth(want);

    cr_expect_str_eq(norm(got), norm(want), "%s: normalised differs", what);
    cr_expect_str_eq(acre_dn_pretty(got, NULL), acre_dn_pretty(want, NULL),
                     "%s: pretty differs", what);
    cr_expect_eq(acre_dn_depth(got), d, "%s: depth differs", what);
    for (unsigned i = 0; i <= d; i++)
        cr_expect_eq(acre_dn_ancestor_hash(got, i),
                     acre_dn_ancestor_hash(want, i), "%s: h[%u] differs", what,
                     i);
    cr_expect_eq(acre_dn_equal(got, want), 1, "%s: not equal", what);
}

static void
check_parse_buf(const char *s, const char *what)
{
    static big_buf buf;
    acre_dn *dn = NULL, *ref = try_parse(s);
    acre_diag d;
    int rc;

    memset(&d, 0, sizeof d);
    rc = acre_dn_parse_buf(buf.b, sizeof buf.b, NULL, s, strlen(s), 0, &dn, &d);
    cr_expect_eq(rc, 0, "%s: parse_buf into ACRE_DN_BUF_MAX: %s at %zu (%s)",
                 what, acre_strerror(rc), d.offset, d.message);
    if (rc == 0 && ref != NULL) {
        expect_same_dn(dn, ref, what);
        cr_expect_leq(acre_dn_size(dn), sizeof buf.b, "%s: size", what);
    }
    acre_dn_free(ref);
}

Test(dn, parse_buf_largest_dns)
{
    char *longest = long_dn(ACRE_DN_MAX_LEN);
    /* 128 RDNs of 63 bytes: 8191 bytes */
    char *rdn = talloc_asprintf(NULL, "dc=%060d", 0);
    char *deep = repeat(rdn, ",", ACRE_DN_MAX_RDNS);
    char *avas = many_avas(ACRE_DN_MAX_AVAS);
    char *rest = repeat("o=x", ",", ACRE_DN_MAX_RDNS - 1);
    char *wide = talloc_asprintf(rest, "%s,%s", avas, rest);

    cr_assert_eq(strlen(deep), 8191u, "test setup");
    check_parse_buf(longest, "longest value");
    check_parse_buf(deep, "deepest DN");
    check_parse_buf(wide, "max AVAs and RDNs");
    check_parse_buf("", "root DN");
    free(longest);
    talloc_free(rdn);
    talloc_free(deep);
    talloc_free(avas);
    talloc_free(rest);
}

Test(dn, parse_buf_too_small)
{
    static big_buf buf;
    const char *s = "cn=John Smith,ou=People,dc=example,dc=com";
    acre_dn *ref = must_parse(s);
    acre_dn *sentinel = (acre_dn *)(uintptr_t)0x5eed, *dn = sentinel;
    size_t need = acre_dn_size(ref);
    int rc;

    cr_assert_gt(need, 0u, "acre_dn_size");
    rc = acre_dn_parse_buf(buf.b, 8, NULL, s, strlen(s), 0, &dn, NULL);
    cr_expect_eq(rc, ACRE_ERR_NOSPACE, "8-byte buffer: %s", acre_strerror(rc));
    rc = acre_dn_parse_buf(buf.b, need - 1, NULL, s, strlen(s), 0, &dn, NULL);
    cr_expect_eq(rc, ACRE_ERR_NOSPACE, "size %zu - 1: %s", need,
                 acre_strerror(rc));
    cr_expect_eq(dn, sentinel, "*out changed on ACRE_ERR_NOSPACE");
    rc = acre_dn_parse_buf(buf.b, need, NULL, s, strlen(s), 0, &dn, NULL);
    cr_expect_eq(rc, 0, "exactly acre_dn_size() bytes (%zu): %s", need,
                 acre_strerror(rc));
    if (rc == 0)
        expect_same_dn(dn, ref, "exact-size buffer");
    acre_dn_free(ref);
}

Test(dn, parse_buf_output_limit)
{
    static big_buf buf;
    char *a = expanding_octets(), *b = expanding_nfkc();
    acre_dn *dn = NULL;
    int rc;

    rc = acre_dn_parse_buf(buf.b, sizeof buf.b, NULL, a, strlen(a), 0, &dn,
                           NULL);
    cr_expect_eq(rc, ACRE_ERR_DN_TOO_LONG, "octets: %s", acre_strerror(rc));
    rc = acre_dn_parse_buf(buf.b, sizeof buf.b, NULL, b, strlen(b), 0, &dn,
                           NULL);
    cr_expect_eq(rc, ACRE_ERR_DN_TOO_LONG, "NFKC: %s", acre_strerror(rc));
    free(a);
    talloc_free(b);
}

Test(dn, free_ignores_buffer_dns)
{
    static big_buf buf;
    acre_dn *dn = NULL;
    int rc =
        acre_dn_parse_buf(buf.b, sizeof buf.b, NULL, "cn=a", 4, 0, &dn, NULL);

    cr_assert_eq(rc, 0, "parse_buf: %s", acre_strerror(rc));
    acre_dn_free(dn);
    cr_expect_str_eq(norm(dn), "cn=a", "buffer DN after acre_dn_free");
}

/* A moved DN lives in the caller's memory: acre_dn_free ignores it, and
 * acre_dn_copy makes a proper object of it. */
static void
check_copy_of_moved(acre_dn *moved, const acre_dn *ref)
{
    acre_dn *c = NULL;

    acre_dn_free(moved);
    expect_same_dn(moved, ref, "moved DN after acre_dn_free");
    cr_expect_eq(acre_dn_copy(NULL, moved, &c), 0, "copy of a moved DN");
    if (c != NULL)
        expect_same_dn(c, ref, "copy of a moved DN");
    acre_dn_free(c);
}

/* A DN memcpy'd elsewhere works; the original's memory is then wiped. */
static void
check_moved(acre_dn *orig, const char *s, int wipe)
{
    size_t n = acre_dn_size(orig);
    uint64_t *moved = malloc(n + 8);
    acre_dn *copy = (acre_dn *)moved, *ref = must_parse(s);
    acre_dn *base = must_parse("dc=example,dc=com");
    const char *r = NULL;
    size_t rl = 0;

    cr_assert_not_null(moved, "malloc");
    memcpy(moved, orig, n);
    if (wipe)
        memset(orig, 0x5a, n);
    else
        acre_dn_free(orig);
    expect_same_dn(copy, ref, "memcpy'd DN");
    cr_expect_eq(acre_dn_in_scope(copy, base, ACRE_SCOPE_SUB), 1,
                 "in_scope on the moved DN");
    cr_expect_eq(acre_dn_in_scope(ref, copy, ACRE_SCOPE_BASE), 1,
                 "moved DN as base");
    cr_expect_str_eq(acre_dn_ancestor(copy, 2, NULL), "dc=example,dc=com",
                     "ancestor of the moved DN");
    cr_expect_eq(acre_dn_rdn(copy, 0, NULL, NULL, &r, &rl), 0, "rdn");
    cr_expect(rl == 13 && memcmp(r, "cn=John Smith", 13) == 0,
              "pretty rdn 0 of the moved DN: \"%s\"", vis(r, rl));
    check_copy_of_moved(copy, ref);
    acre_dn_free(ref);
    acre_dn_free(base);
    free(moved);
}

Test(dn, position_independent)
{
    static big_buf buf;
    const char *s = "cn=John Smith,ou=People+o=X,dc=example,dc=com";
    acre_dn *dn = NULL;
    int rc = acre_dn_parse_buf(buf.b, sizeof buf.b, NULL, s, strlen(s), 0, &dn,
                               NULL);

    cr_assert_eq(rc, 0, "parse_buf: %s", acre_strerror(rc));
    check_moved(dn, s, 1);
    check_moved(must_parse(s), s, 0);
}

Test(dn, copy)
{
    static big_buf buf;
    const char *s = "uid=js+cn=John,ou=People,dc=example,dc=com";
    acre_dn *orig = must_parse(s), *ref = must_parse(s);
    acre_dn *c1 = NULL, *c2 = NULL, *inbuf = NULL;
    void *ctx = talloc_new(NULL);

    cr_assert_eq(acre_dn_copy(ctx, orig, &c1), 0, "copy under ctx");
    cr_assert_eq(acre_dn_copy(NULL, orig, &c2), 0, "copy under NULL");
    acre_dn_free(orig);
    expect_same_dn(c1, ref, "copy under ctx");
    expect_same_dn(c2, ref, "copy under NULL");
    cr_expect_eq(acre_dn_size(c1), acre_dn_size(ref), "copy size");
    cr_assert_eq(acre_dn_parse_buf(buf.b, sizeof buf.b, NULL, s, strlen(s), 0,
                                   &inbuf, NULL),
                 0, "parse_buf");
    acre_dn_free(c2);
    cr_assert_eq(acre_dn_copy(NULL, inbuf, &c2), 0, "copy of a buffer DN");
    memset(buf.b, 0, sizeof buf.b);
    expect_same_dn(c2, ref, "copy of a buffer DN");
    acre_dn_free(c2);
    acre_dn_free(ref);
    talloc_free(ctx);
}

Test(dn, talloc_memory)
{
    void *parent = talloc_new(NULL), *child;
    size_t start = talloc_total_blocks(parent);
    acre_dn *dn = NULL, *cp = NULL;
    acre_diag d;

    cr_assert_eq(acre_dn_parse(parent, NULL, "cn=a,dc=b", 9, 0, &dn, &d), 0,
                 "parse");
    cr_expect_eq(talloc_total_blocks(parent), start + 1,
                 "acre_dn_parse makes one allocation");
    cr_assert_eq(acre_dn_copy(parent, dn, &cp), 0, "copy");
    cr_expect_eq(talloc_total_blocks(parent), start + 2,
                 "acre_dn_copy makes one allocation");
    acre_dn_free(dn);
    acre_dn_free(cp);
    cr_expect_eq(talloc_total_blocks(parent), start, "leak after free");

    /* failures leave nothing behind */
    cr_expect_neq(acre_dn_parse(parent, NULL, "cn=a,,b", 7, 0, &dn, &d), 0,
                  "bad DN");
    cr_expect_neq(
        acre_dn_parse(parent, NULL, "member=cn=\\5cff", 15, 0, &dn, &d), 0,
        "bad inner DN");
    cr_expect_eq(talloc_total_blocks(parent), start, "leak after errors");

    /* freed with the parent */
    child = talloc_new(parent);
    for (int i = 0; i < 10; i++)
        cr_assert_eq(
            acre_dn_parse(child, NULL, "member=cn=x,o=y", 15, 0, &dn, &d), 0,
            "parse under child");
    cr_expect_eq(talloc_total_blocks(parent), start + 11,
                 "ten DNs under a child context");
    talloc_free(child);
    cr_expect_eq(talloc_total_blocks(parent), start,
                 "DNs freed with their parent");
    talloc_free(parent);
}

/* ------------------------------------------------------------------------
 * The fast paths (engine/dn.c: 1, the input already normalised; 2, plain
 * ASCII values) have word-parallel and byte-loop forms; each may only take
 * a DN that the general path (3) turns into the same object, and must
 * leave the rest to it.  Randomised DNs, near-normalised, plain mixed-case
 * or anything, of lengths around the 64-byte word boundaries and past the
 * word-parallel limit, are parsed three ways (engine/dn.h:
 * acreD_set_paths): byte-identical objects, or the same error at the same
 * offset.
 */
static uint64_t path_rng = 0x9e3779b97f4a7c15ull;

static unsigned
path_rand(unsigned n)
{
    path_rng ^= path_rng << 13;
    path_rng ^= path_rng >> 7;
    path_rng ^= path_rng << 17;
    return (unsigned)(path_rng % n);
}

enum { DN_CLEAN, DN_MIXED, DN_ANY };

/* One DN of the given flavour into o (at most cap - 1 bytes); its
 * length. */
static size_t
path_dn(char *o, size_t cap, int flavour)
{
    static const char *const types[] = {"cn",
                                        "dc",
                                        "ou",
                                        "o",
                                        "uid",
                                        "sn",
                                        "mail",
                                        "l",
                                        "st",
                                        "c",
                                        "givenname",
                                        "gn",
                                        "commonname",
                                        "surname",
                                        "telephonenumber",
                                        "uidnumber",
                                        "member",
                                        "x121address",
                                        "description",
                                        "postalcode",
                                        "employeenumber",
                                        "destinationindicator",
                                        "labeleduri",
                                        "memberuid",
                                        "CN",
                                        "Dc",
                                        "1cn",
                                        "-x",
                                        "2.5.4.3",
                                        "myattr",
                                        "a-b",
                                        "cn ",
                                        " cn",
                                        "",
                                        "mailx",
                                        "objectclass",
                                        "cn = ",
                                        " =",
                                        "GivenName"};
    static const char *const bits[] = {
        "a",  "b", "z",  "q",    "0",    "7",        "A",    "Z",  " ",
        "  ", "#", "=",  "+",    ",",    "\\",       "\\2c", "\"", "<",
        ">",  ";", "\t", "\x7f", "\x01", "\xc3\xa9", "\xc3", "-",  ".",
        "@",  "*", "(",  ")",    "_",    "~",        "'"};
    size_t len = 0, rdns = 1 + path_rand(path_rand(4) ? 8 : 40);
    unsigned clean = flavour != DN_ANY, plain = flavour == DN_CLEAN ? 6 : 8;

    for (size_t r = 0; r < rdns; r++) {
        char t[32];
        size_t vlen = (path_rand(4) ? path_rand(12) : path_rand(80)) + clean;
        snprintf(t, sizeof t, "%s",
                 types[path_rand(8) ? path_rand(10) : path_rand(NELEM(types))]);
        if (flavour == DN_MIXED)
            for (char *c = t; *c; c++)
                if (path_rand(3) == 0)
                    *c = (char)toupper((unsigned char)*c);
        if (r) {
            unsigned k = path_rand(flavour == DN_MIXED ? 8 : 40);
            const char *sep = k == 0 ? ", " : k == 1 ? ";" : k == 2 ? "+" : ",";
            if (len + strlen(sep) >= cap)
                break;
            memcpy(o + len, sep, strlen(sep));
            len += strlen(sep);
        }
        if (len + strlen(t) + 1 >= cap)
            break;
        memcpy(o + len, t, strlen(t));
        len += strlen(t);
        o[len++] = '=';
        for (size_t v = 0; v < vlen; v++) {
            const char *b =
                clean ? (path_rand(400) ? bits[path_rand(plain)]
                                        : bits[path_rand(NELEM(bits))])
                      : (path_rand(3) ? bits[path_rand(4)]
                                      : bits[path_rand(NELEM(bits))]);
            if (clean && v && v + 1 < vlen && o[len - 1] != ' ' &&
                !path_rand(6))
                b = " ";
            if (len + strlen(b) >= cap)
                break;
            memcpy(o + len, b, strlen(b));
            len += strlen(b);
        }
    }
    if (len && len + 1 < cap && path_rand(30) == 0)
        o[len++] = path_rand(2) ? ',' : ' '; /* a trailing separator */
    o[len] = '\0';
    return len;
}

static void
reset_paths(void)
{
    acreD_set_paths(ACRED_PATHS_BEST);
}

TestSuite(dn_paths, .fini = reset_paths);

/* s[0..n) parsed under each path mode (best, SSE2 only, scalar, general),
 * compared with the best one's answer: the same object, or the same refusal at
 * the same offset (and with the same message when msg); the number of
 * modes that disagree (each an expectation that failed).  *ok: the best
 * mode parsed it. */
static unsigned
paths_agree(const char *s, size_t n, int msg, int *ok)
{
    static const int modes[] = {ACRED_PATHS_BEST, ACRED_PATHS_SSE2,
                                ACRED_PATHS_SCALAR, ACRED_PATHS_GENERAL};

    static union {
        uint64_t align;
        unsigned char b[ACRE_DN_BUF_MAX];
    } out[4];

    int rc[4];
    acre_diag d[4];
    acre_dn *dn[4];
    unsigned fails = 0;

    for (int m = 0; m < 4; m++) {
        memset(out[m].b, 0xa5, sizeof out[m].b);
        memset(&d[m], 0, sizeof d[m]);
        acreD_set_paths(modes[m]);
        rc[m] = acre_dn_parse_buf(out[m].b, sizeof out[m].b, NULL, s, n, 0,
                                  &dn[m], &d[m]);
    }
    acreD_set_paths(ACRED_PATHS_BEST);
    for (int m = 1; m < 4; m++) {
        int same = rc[m] == rc[0];
        if (same && rc[0] == 0)
            same = acre_dn_size(dn[0]) == acre_dn_size(dn[m]) &&
                   memcmp(out[0].b, out[m].b, acre_dn_size(dn[0])) == 0;
        else if (same)
            same = d[0].offset == d[m].offset &&
                   (!msg || strcmp(d[0].message, d[m].message) == 0);
        fails += !same;
        cr_expect(same,
                  "\"%s\": mode %d gives %d (offset %zu), mode %d "
                  "%d (offset %zu)",
                  vis(s, n), modes[0], rc[0], d[0].offset, modes[m], rc[m],
                  d[m].offset);
    }
    *ok = rc[0] == 0;
    return fails;
}

Test(dn_paths, every_path_agrees_with_the_general_one)
{
    char s[600];
    unsigned took[3] = {0}, fails = 0;

    for (unsigned i = 0; i < 120000 && fails < 10; i++) {
        int flavour = (int)(i % 3), ok;
        size_t n = path_dn(s, sizeof s, flavour);
        fails += paths_agree(s, n, 0, &ok);
        took[flavour] += ok;
    }
    /* each flavour must mostly parse, not only exercise the refusals */
    for (int f = 0; f < 3; f++)
        cr_expect_gt(took[f], f == DN_ANY ? 2000 : 15000,
                     "flavour %d: only %u DNs parsed", f, took[f]);
}

/*
 * acre_dn_parse_buf takes an already normalised DN in one pass straight
 * into the caller's buffer (engine/dn.c: nf_direct), where acre_dn_parse
 * takes it through the parser state and obj_fill.  On randomised
 * normalised DNs, of lengths around the word boundaries and up to the
 * word-parallel limit: the same object both ways and by the general path
 * (acre_dn_parse's owner and padding apart), the same ACRE_ERR_NOSPACE,
 * message and
 * all, in every buffer too small for it, and the same answer under
 * ACRE_DN_SLAPD.
 */
Test(dn_paths, one_pass_buffer_path_agrees)
{
    static union {
        uint64_t align;
        unsigned char b[ACRE_DN_BUF_MAX];
    } out[2];

    char s[600];
    unsigned took = 0, fails = 0;

    for (unsigned i = 0; i < 20000 && fails < 10; i++) {
        size_t n = path_dn(s, sizeof s, DN_CLEAN), nlen, need;
        acre_dn *raw, *a, *dn[2];
        const char *norm;
        acre_diag d[2];
        int rc[2], same;

        if (acre_dn_parse(NULL, NULL, s, n, 0, &raw, NULL) != 0)
            continue;
        norm = acre_dn_normalised(raw, &nlen);
        cr_assert_eq(acre_dn_parse(NULL, NULL, norm, nlen, 0, &a, NULL), 0,
                     "\"%s\"", vis(norm, nlen));
        norm = acre_dn_normalised(a, &nlen);
        acre_dn_free(raw);
        for (int m = 0; m < 2; m++) {
            memset(out[m].b, 0xa5, sizeof out[m].b);
            acreD_set_paths(m ? ACRED_PATHS_GENERAL : ACRED_PATHS_BEST);
            rc[m] = acre_dn_parse_buf(out[m].b, sizeof out[m].b, NULL, norm,
                                      nlen, 0, &dn[m], NULL);
        }
        acreD_set_paths(ACRED_PATHS_BEST);
        same = rc[0] == 0 && rc[1] == 0 &&
               acre_dn_size(dn[0]) == acre_dn_size(a) &&
               acre_dn_size(dn[1]) == acre_dn_size(a) &&
               memcmp(out[0].b, out[1].b, acre_dn_size(a)) == 0 &&
               memcmp(out[0].b, a, 8) == 0 &&
               memcmp(out[0].b + 16, (const char *)a + 16,
                      (size_t)(norm - (const char *)a) + nlen + 1 - 16) == 0;
        cr_expect(same, "\"%s\": %d, %d, or the objects differ",
                  vis(norm, nlen), rc[0], rc[1]);
        fails += !same;
        took += same && nlen <= 256;
        need = acre_dn_size(a);
        for (size_t size = 0; same && size < need; size += 1 + size / 3) {
            for (int m = 0; m < 2; m++) {
                memset(&d[m], 0, sizeof d[m]);
                acreD_set_paths(m ? ACRED_PATHS_GENERAL : ACRED_PATHS_BEST);
                rc[m] = acre_dn_parse_buf(out[m].b, size, NULL, norm, nlen, 0,
                                          &dn[m], &d[m]);
            }
            acreD_set_paths(ACRED_PATHS_BEST);
            same = rc[0] == ACRE_ERR_NOSPACE && rc[1] == ACRE_ERR_NOSPACE &&
                   d[0].offset == d[1].offset &&
                   strcmp(d[0].message, d[1].message) == 0;
            cr_expect(same, "\"%s\" in %zu bytes: %d \"%s\", %d \"%s\"",
                      vis(norm, nlen), size, rc[0], d[0].message, rc[1],
                      d[1].message);
            fails += !same;
        }
        for (int m = 0; same && m < 2; m++) {
            memset(out[m].b, 0xa5, sizeof out[m].b);
            acreD_set_paths(m ? ACRED_PATHS_GENERAL : ACRED_PATHS_BEST);
            rc[m] = acre_dn_parse_buf(out[m].b, sizeof out[m].b, NULL, norm,
                                      nlen, ACRE_DN_SLAPD, &dn[m], NULL);
        }
        acreD_set_paths(ACRED_PATHS_BEST);
        if (same) {
            same = rc[0] == rc[1] &&
                   (rc[0] != 0 ||
                    memcmp(out[0].b, out[1].b, acre_dn_size(a)) == 0);
            cr_expect(same, "\"%s\" under ACRE_DN_SLAPD: %d, %d",
                      vis(norm, nlen), rc[0], rc[1]);
            fails += !same;
        }
        acre_dn_free(a);
    }
    /* most must be word-parallel path 1's */
    cr_expect_gt(took, 10000, "only %u DNs of up to 256 bytes", took);
}

/*
 * The general path tries each RDN as path 2's common shape first and
 * parses it in full only when that declines (engine/dn.c: parse_text), so
 * plain RDNs and RDNs that need the general parse (escapes, quotes, #hex
 * BER, non-ASCII, multi-valued, aliases and OIDs, stray spaces) mix in one
 * DN.  Randomised mixtures parse the same three ways.
 */
static size_t
rich_rdn(char *o, size_t cap)
{
    static const char *const types[] = {"cn",
                                        "CN",
                                        "ou",
                                        "Ou",
                                        "uid",
                                        "o",
                                        "l",
                                        "dc",
                                        "sn",
                                        "mail",
                                        " cn",
                                        "cn ",
                                        "commonName",
                                        "2.5.4.3",
                                        "0.9.2342.19200300.100.1.25",
                                        "x-unknown",
                                        "telephoneNumber",
                                        "member",
                                        "c"};
    static const char *const bits[] = {
        "a", "B", "z", "7", " ", "-", ".", "'", "\\,", "\\2c", "\\2C", "\\+",
        "\\\\", "\\\"", "\\<", "\\3e", "\\;", "\\#", "\\ ", "\\20", "\\c3\\a9",
        "\\C3\\9C", "\xc3\xa9", "\xc3\x9c", "\xc3\x9f", "\xce\xa3", "\xcf\x82",
        "\xe5\xb1\xb1", "\xea\xb0\x80", "\xef\xbc\x8c", "\xc2\xa0", "\xc2\xad",
        "\xc4\xb2", "\xe2\x84\xab", "\\#",
        /* refused somewhere: rarely */
        "=", "#", "\xc3", "+", "\"", ";", "\\x"};
    static const char *const hexv[] = {"#0c03616263", "#04024142", "#13024142",
                                       "#0203010001", "#0c02c3a9", "#0c0120",
                                       "#0c"};
    size_t len = 0;
    unsigned avas = path_rand(6) ? 1 : 2 + path_rand(2);

    for (unsigned a = 0; a < avas; a++) {
        const char *t =
            types[path_rand(4) ? path_rand(6) : path_rand(NELEM(types))];
        size_t vlen = 1 + path_rand(path_rand(4) ? 10 : 40);
        int plain = path_rand(3) == 0;
        if (len + strlen(t) + 3 >= cap)
            break;
        if (a)
            o[len++] = '+';
        memcpy(o + len, t, strlen(t));
        len += strlen(t);
        o[len++] = '=';
        if (!plain && path_rand(12) == 0) {
            const char *h = hexv[path_rand(NELEM(hexv))];
            if (len + strlen(h) < cap) {
                memcpy(o + len, h, strlen(h));
                len += strlen(h);
            }
            continue;
        }
        if (!plain && path_rand(16) == 0 && len + 1 < cap)
            o[len++] = '"';
        for (size_t v = 0; v < vlen; v++) {
            const char *b = plain || path_rand(3) ? bits[path_rand(5)]
                            : path_rand(60) ? bits[path_rand(NELEM(bits) - 7)]
                                            : bits[path_rand(NELEM(bits))];
            if (len + strlen(b) + 2 >= cap)
                break;
            memcpy(o + len, b, strlen(b));
            len += strlen(b);
        }
        if (!plain && o[len - 1] != '"' && path_rand(16) == 0 && len + 1 < cap)
            o[len++] = '"';
    }
    return len;
}

Test(dn_paths, plain_and_general_rdns_mix)
{
    char s[700];
    unsigned took = 0, fails = 0;

    for (unsigned i = 0; i < 60000 && fails < 10; i++) {
        size_t n = 0, rdns = 1 + path_rand(path_rand(4) ? 8 : 30);
        int ok;
        for (size_t r = 0; r < rdns && n + 80 < sizeof s; r++) {
            if (r) {
                unsigned k = path_rand(12);
                const char *sep = k == 0 ? ", " : k == 1 ? ";" : ",";
                memcpy(s + n, sep, strlen(sep));
                n += strlen(sep);
            }
            n += rich_rdn(s + n, sizeof s - n - 1);
        }
        s[n] = '\0';
        fails += paths_agree(s, n, 1, &ok);
        took += ok;
    }
    /* most must parse, so that the lanes are compared on objects */
    cr_expect_gt(took, 20000, "only %u DNs parsed", took);
}

/*
 * Escaping on output (engine/dn.c: put_escaped) copies a value that needs
 * no escape in one piece, after a 16-byte-block scan for the specials;
 * each special, alone or past the first block, and the ends (a leading
 * '#' or space, a trailing space) still come out escaped.
 */
Test(dn_forms, escapes_found_anywhere_in_a_value)
{
    static const form_case cases[] = {
        {"cn=\\#abc", "cn=\\#abc", "cn=\\#abc"},
        {"cn=\\20abc\\20", "cn=abc", "cn=\\ abc\\ "},
        {"cn=a#b", "cn=a#b", "cn=a#b"},
        {"cn=abcdefghijklmnopqrstu\\,vwxyz", "cn=abcdefghijklmnopqrstu\\,vwxyz",
         NULL},
        {"cn=ab\\,cdefghijklmnopqrstuvwxyz", "cn=ab\\,cdefghijklmnopqrstuvwxyz",
         NULL},
        {"cn=ABCDEFGHIJKLMNOP\\+", "cn=abcdefghijklmnop\\+",
         "cn=ABCDEFGHIJKLMNOP\\+"},
        {"cn=abcdefghijklmnopq\\00rst", "cn=abcdefghijklmnopqrst",
         "cn=abcdefghijklmnopq\\00rst"},
        {"cn=0123456789abcdef\\\"\\<\\>\\;\\\\",
         "cn=0123456789abcdef\\\"\\<\\>\\;\\\\", NULL},
        {"cn=\xef\xbc\xa1\xef\xbc\x8c\xef\xbc\xa2", "cn=a\\,b", NULL},
        {"cn=\xc3\xa9t\xc3\xa9 \\2C hiver d\xc3\xa9j\xc3\xa0 l\xc3\xa0",
         "cn=\xc3\xa9t\xc3\xa9 \\, hiver d\xc3\xa9j\xc3\xa0 l\xc3\xa0", NULL},
    };

    check_forms(cases, NELEM(cases));
}

/*
 * The word-parallel paths classify bytes 16 at a time with range and
 * bit tricks (engine/dn.c: nf_classify); every byte value, in a type and
 * in a value, in a whole block and in the last one, in already normalised
 * and in mixed-case DNs, parses as the general path parses it.
 */
Test(dn_paths, every_byte_in_every_block_kind)
{
    static const char *const shapes[] = {
        "cn=a%c,ou=people,dc=example,dc=com",
        "cn=abcdefghijklmnopqrstuvwxyz,ou=pe%cple,dc=example,dc=com",
        "cn=abcdefghijklmnopqrstuvwxyz,ou=people,dc=example,dc=co%c",
        "CN=Abcdefghijklmnopqrstuvwxyz,ou=People,dc=ex%cmple,dc=com",
        "cn=abcdefghijklmnopqrstuvwxyz,o%c=people,dc=example,dc=com",
        "c%c=x",
        "cn=x%c",
    };

    static union {
        uint64_t align;
        unsigned char b[ACRE_DN_BUF_MAX];
    } out[2];

    static const int modes[] = {ACRED_PATHS_BEST, ACRED_PATHS_SSE2};

    for (size_t k = 0; k < NELEM(shapes); k++)
        for (unsigned c = 0; c < 256; c++)
            for (int w = 0; w < 2; w++) {
                char s[128];
                int n = snprintf(s, sizeof s, shapes[k], (int)c), rc[2];
                acre_diag d[2];
                acre_dn *dn[2];
                for (int m = 0; m < 2; m++) {
                    memset(out[m].b, 0xa5, sizeof out[m].b);
                    acreD_set_paths(m ? ACRED_PATHS_GENERAL : modes[w]);
                    rc[m] = acre_dn_parse_buf(out[m].b, sizeof out[m].b, NULL,
                                              s, (size_t)n, 0, &dn[m], &d[m]);
                }
                acreD_set_paths(ACRED_PATHS_BEST);
                cr_expect_eq(rc[0], rc[1],
                             "\"%s\" (%d): %d, the general path %d", V(s),
                             modes[w], rc[0], rc[1]);
                if (rc[0] == 0 && rc[1] == 0)
                    cr_expect(acre_dn_size(dn[0]) == acre_dn_size(dn[1]) &&
                                  memcmp(out[0].b, out[1].b,
                                         acre_dn_size(dn[0])) == 0,
                              "\"%s\" (%d): objects differ", V(s), modes[w]);
                else if (rc[0] == rc[1])
                    cr_expect_eq(
                        d[0].offset, d[1].offset,
                        "\"%s\" (%d): offset %zu, the general path %zu", V(s),
                        modes[w], d[0].offset, d[1].offset);
            }
}

/*
 * The word-parallel paths read a DN in blocks of 16 (SSE2) or 32 (AVX2)
 * bytes, the last block again from the DN's end (or two 16-byte halves,
 * or zero-padded, for short DNs), and check it in 64-bit words.  DNs of
 * every length around those edges, with one byte of each kind (a
 * separator, a space, '#', uppercase, an escape, a special, a control,
 * the two bytes of a UTF-8 character) at every position, parse the same
 * way under every path mode.
 */
Test(dn_paths, every_position_around_the_block_edges)
{
    static const char *const bits[] = {",",        "=",    " ",     "  ",
                                       "#",        "+",    "A",     "Z",
                                       "\\",       "\\2c", "\\2C",  ";",
                                       "<",        "\"",   "\x7f",  "\x01",
                                       "\xc3\xa9", "\xc3", "-",     "0",
                                       ",dc=",     ",cn=", "+uid=", ", ",
                                       "@"};
    static const size_t lens[] = {
        1,  2,  3,  4,   5,   6,   7,   8,   9,   14,  15,  16, 17,
        18, 30, 31, 32,  33,  34,  47,  48,  49,  63,  64,  65, 66,
        95, 96, 97, 127, 128, 129, 200, 250, 254, 255, 256, 257};
    char s[300], base[300];
    unsigned fails = 0, took = 0;

    for (size_t l = 0; l < NELEM(lens) && fails < 10; l++) {
        size_t n = lens[l];
        /* a normalised DN of n bytes: cn=aaaa,dc=bbb...,dc=x with the
         * value letters varied */
        for (size_t k = 0; k < n; k++)
            base[k] = (char)('a' + k % 26);
        memcpy(base, "cn=", n < 3 ? n : 3);
        for (size_t k = 12; k + 6 < n; k += 11)
            memcpy(base + k, ",dc=", 4);
        for (size_t b = 0; b < NELEM(bits); b++)
            for (size_t pos = 0; pos < n; pos++) {
                size_t bl = strlen(bits[b]), m = n;
                int ok;
                memcpy(s, base, n);
                memcpy(s + pos, bits[b], pos + bl <= n ? bl : n - pos);
                if (pos + bl > n) /* the bit straddles the end: grow */
                    memcpy(s + n, bits[b] + (n - pos), (m = pos + bl) - n);
                fails += paths_agree(s, m, 1, &ok);
                took += ok;
                acreD_set_paths(ACRED_PATHS_SSE2);
                ok = acreD_path1(s, m);
                acreD_set_paths(ACRED_PATHS_BEST);
                cr_expect_eq(acreD_path1(s, m), ok,
                             "\"%s\": path 1 takes it in one form only",
                             vis(s, m));
            }
        {
            int ok;
            fails += paths_agree(base, n, 1, &ok);
            took += ok;
            if (n >= 4 && n <= 256 && acreD_path1(base, n) >= 0) {
                cr_expect_eq(acreD_path1(base, n), 1, "\"%s\"", vis(base, n));
                acreD_set_paths(ACRED_PATHS_SSE2);
                cr_expect_eq(acreD_path1(base, n), 1, "\"%s\" (SSE2)",
                             vis(base, n));
                acreD_set_paths(ACRED_PATHS_BEST);
            }
        }
    }
    cr_expect_gt(took, 3000, "only %u DNs parsed", took);
}

/* ------------------------------------------------------------------------
 * 389-DS's stored form of DN values (acreD_text_389): what 389-ds-base
 * 2.3.1 returned for values added in the first form (and 2.3.8 for the
 * entry DNs marked)
 */
Test(dn, text_389_as_389_stores_dn_values)
{
    static const struct {
        const char *in, *out; /* out NULL: refused */
    } c[] = {
        {"uid=Bob, ou=People, dc=example, dc=com",
         "uid=Bob,ou=People,dc=example,dc=com"},
        {"cn=a\\,b,dc=example,dc=com", "cn=a\\2Cb,dc=example,dc=com"},
        {"UID=X,DC=EXAMPLE,DC=COM", "UID=X,DC=EXAMPLE,DC=COM"},
        {"cn=x + sn=y,dc=example,dc=com", "cn=x+sn=y,dc=example,dc=com"},
        {"cn=\"quoted, value\",dc=example,dc=com",
         "cn=quoted\\2C value,dc=example,dc=com"},
        {"cn = spaced , dc=example,dc=com", "cn=spaced,dc=example,dc=com"},
        {"cn=\\#hash,dc=x", "cn=\\23hash,dc=x"},
        {"cn=\\ lead,dc=x", "cn=\\20lead,dc=x"},
        {"cn=\\41bc,dc=x", "cn=Abc,dc=x"},
        {"cn=a=b,dc=x", "cn=a=b,dc=x"},
        {"cn=\"a=b\",dc=x", "cn=a\\3Db,dc=x"},
        {"cn=\"cn=x,o=y\",dc=x", "cn=cn\\3Dx\\2Co\\3Dy,dc=x"},
        {"cn=e\\=f,dc=x", "cn=e\\3Df,dc=x"},
        {"cn=g\\3Dh,dc=x", "cn=g\\3Dh,dc=x"},
        {"cn=\"c  d\",dc=x", "cn=c d,dc=x"},
        {"cn=\" k \",dc=x", "cn=\\20k\\20,dc=x"},
        {"cn=\"#r\",dc=x", "cn=\\23r,dc=x"},
        {"cn=\"p+q\",dc=x", "cn=p\\2Bq,dc=x"},
        {"CN=Mixed , O = Org Name ,C=US", "CN=Mixed,O=Org Name,C=US"},
        {"cn=a\\;b\\<c\\>d,dc=x", "cn=a\\3Bb\\3Cc\\3Ed,dc=x"},
        {"cn=trail\\ ,dc=x", "cn=trail\\20,dc=x"},
        {"cn=\xc3\x9cn\xc3\xaf,dc=x", "cn=\xc3\x9cn\xc3\xaf,dc=x"},
        {"cn=\\C3\\9C,dc=x", "cn=\xc3\x9c,dc=x"},
        {"cn=#04024869,dc=x", "cn=#04024869,dc=x"},
        {"cn=a;dc=x", "cn=a,dc=x"},
        /* 389-ds-base 2.3.8, entry DNs: "\20" kept, RDN AVAs sorted */
        {"cn=a\\20b,dc=x", "cn=a\\20b,dc=x"},
        {"sn=z2+cn=z1,dc=x", "cn=z1+sn=z2,dc=x"},
        {"uid=c+CN=b+sn=a,o=y+c=x", "CN=b+sn=a+uid=c,c=x+o=y"},
        {"cn=ab+cn=a,dc=x", "cn=a+cn=ab,dc=x"},
        {"sn=a\\+b+cn=z,dc=x", "cn=z+sn=a\\2Bb,dc=x"},
        {"cn=ab\\5c,dc=x", "cn=ab\\5c,dc=x"},
        {"cn=a\\2cb\\2Cc\\61,dc=x", "cn=a\\2cb\\2Cca,dc=x"},
        {"", ""},
        {"cn", NULL},
        {"=a", NULL},
        {"cn=a,", NULL},
        {"cn=\"open,dc=x", NULL},
    };

    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        uint8_t local[8];
        struct acreE_buf b;
        acreE_buf_init(&b, local, sizeof local);
        acreE_buf_putc(&b, '>');
        int rc = acreD_text_389(c[i].in, strlen(c[i].in), &b);
        if (!c[i].out) {
            cr_expect_eq(rc, ACRE_ERR_INVAL, "%s: %d", c[i].in, rc);
            cr_expect_eq(b.len, 1, "%s: out changed on error", c[i].in);
        } else {
            cr_expect_eq(rc, 0, "%s: %d", c[i].in, rc);
            cr_expect(b.len == 1 + strlen(c[i].out) &&
                          !memcmp(b.p + 1, c[i].out, b.len - 1),
                      "%s: got %.*s, want %s", c[i].in, (int)b.len - 1,
                      (const char *)b.p + 1, c[i].out);
        }
        acreE_buf_free(&b);
    }
}

/* acreD_text_slapd / acreD_cmp_slapd: acre's escapes become slapd's
 * "\XX" pairs, and siblings order as back-mdb's dn2id keeps them: the
 * shorter slapd text first, then byte by byte (checked on slapd 2.5.13:
 * "cn=Kim Lee+uid=x17" before "cn=Kim\<Garcia 40", both 18 bytes). */
Test(dn, slapd_text_and_dn2id_order)
{
    char out[64];
    size_t n = acreD_text_slapd("cn=a\\<b=c+sn=\\#x\\0d", 19, out);

    const char *want = "cn=a\\3Cb\\3Dc+sn=\\23x\\0D";

    cr_expect_eq(n, strlen(want));
    cr_expect(!memcmp(out, want, strlen(want)), "%.*s", (int)n, out);
    cr_expect_lt(
        acreD_cmp_slapd("cn=kim lee+uid=x17", 18, "cn=kim\\<garcia 40", 17), 0);
    cr_expect_gt(acreD_cmp_slapd("ou=sales", 8, "uid=g", 5), 0);
    cr_expect_lt(acreD_cmp_slapd("ou=sales", 8, "uid=hank", 8), 0);
    cr_expect_eq(acreD_cmp_slapd("ou=a", 4, "ou=a", 4), 0);
}

/*
 * The one-pass buffer paths read the process's hash key and root hash
 * (set together on first use): a process whose first DN is refused (no
 * hash made yet) then parses mixed-case and normalised DNs through them
 * with the hashes a later parse gives, and acre_dn_parse's.
 */
Test(dn_paths, first_buffer_parse_after_an_error_has_the_hashes)
{
    static const char *const dns[] = {"CN=Foo Bar,ou=People,DC=example",
                                      "cn=foo bar,ou=people,dc=example"};

    static union {
        uint64_t align;
        unsigned char b[ACRE_DN_BUF_MAX];
    } out[2];

    acre_dn *dn[2], *a;

    cr_assert_neq(acre_dn_parse_buf(out[0].b, sizeof out[0].b, NULL, "x", 1, 0,
                                    &dn[0], NULL),
                  0);
    for (size_t k = 0; k < NELEM(dns); k++) {
        size_t n = strlen(dns[k]);
        for (int m = 0; m < 2; m++)
            cr_assert_eq(acre_dn_parse_buf(out[m].b, sizeof out[m].b, NULL,
                                           dns[k], n, 0, &dn[m], NULL),
                         0);
        cr_assert_eq(acre_dn_parse(NULL, NULL, dns[k], n, 0, &a, NULL), 0);
        for (unsigned i = 0; i <= 3; i++) {
            cr_expect_eq(acre_dn_ancestor_hash(dn[0], i),
                         acre_dn_ancestor_hash(dn[1], i), "%s: h[%u]", dns[k],
                         i);
            cr_expect_eq(acre_dn_ancestor_hash(dn[0], i),
                         acre_dn_ancestor_hash(a, i), "%s: h[%u]", dns[k], i);
        }
        acre_dn_free(a);
    }
}

/*
 * A mixed-case DN that path 2 walks in part and then declines (an unknown
 * type), and that the general parse refuses, leaves the caller's buffer
 * as it was: the buffer paths compare objects byte for byte, padding
 * included, so nothing may be left in it from a DN refused before.
 */
Test(dn_paths, a_refused_mixed_case_dn_leaves_the_buffer_alone)
{
    static const char *const dns[] = {
        "CN=Foo,ou=People,1x=Bar,dc=example",
        "CN=Foo,OU=People,DC=example,a_b=1",
    };

    static union {
        uint64_t align;
        unsigned char b[ACRE_DN_BUF_MAX];
    } out;

    for (size_t k = 0; k < NELEM(dns); k++) {
        acre_dn *dn = NULL;
        size_t i;
        memset(out.b, 0xa5, sizeof out.b);
        cr_assert_neq(acre_dn_parse_buf(out.b, sizeof out.b, NULL, dns[k],
                                        strlen(dns[k]), 0, &dn, NULL),
                      0);
        for (i = 0; i < sizeof out.b && out.b[i] == 0xa5; i++)
            ;
        cr_expect_eq(i, sizeof out.b, "%s: byte %zu written", dns[k], i);
    }
}

/* Under slapd's profile: an unknown type's value is checked by no syntax
 * (its type record was partly uninitialised: the error depended on the
 * stack), and a tab, LF or CR that starts or ends a value is escaped in
 * both texts, since slapd's reader would take it for a space (libldap
 * writes "n=q\0D"). */
Test(dn, slapd_profile_unknown_types_and_edge_controls)
{
    acre_schema *slapd;
    acre_dn *dn = NULL, *again = NULL;
    acre_diag d;

    cr_assert_eq(acre_schema_new(NULL, ACRE_SCHEMA_SLAPD, &slapd, NULL), 0);
    cr_expect_eq(acre_dn_parse(NULL, slapd, "i=\xe1", 3, 0, &dn, &d),
                 ACRE_ERR_DN_UTF8, "%s", d.message);
    cr_assert_eq(acre_dn_parse(NULL, slapd, "n=\"q\r\",o=x", 10, 0, &dn, &d), 0,
                 "%s", d.message);
    cr_expect_str_eq(acre_dn_normalised(dn, NULL), "n=q\\0d,o=x");
    cr_expect_str_eq(acre_dn_pretty(dn, NULL), "n=q\\0d,o=x");
    cr_assert_eq(acre_dn_parse(NULL, slapd, acre_dn_pretty(dn, NULL),
                               strlen(acre_dn_pretty(dn, NULL)), 0, &again,
                               NULL),
                 0);
    cr_expect(acre_dn_equal(dn, again));
    acre_dn_free(again);
    acre_dn_free(dn);
    acre_schema_free(slapd);
}

/* in parses under schema (NULL: RFC 4514) to the normalised form norm;
 * norm NULL: it is refused. */
static void
expect_norm(const acre_schema *schema, const char *in, const char *norm)
{
    acre_dn *dn = NULL;
    acre_diag d;
    int rc = acre_dn_parse(NULL, schema, in, strlen(in), 0, &dn, &d);

    if (!norm) {
        cr_expect_neq(rc, 0, "%s: taken as %s", in,
                      rc ? "" : acre_dn_normalised(dn, NULL));
    } else if (rc) {
        cr_expect_eq(rc, 0, "%s: %s", in, d.message);
    } else {
        cr_expect_str_eq(acre_dn_normalised(dn, NULL), norm, "%s: %s", in,
                         acre_dn_normalised(dn, NULL));
    }
    acre_dn_free(dn);
}

/* slapd's DN reader (libldap's str2strval, 2.5.13) lets '\' escape its
 * white space too (tab, LF, CR), and inside quotes takes the byte after
 * '\' as it is, hex digit or not (RFC 1779): slapdn -N gives
 * "cn=\09#x", "cn=41" and "cn=x" for these.  RFC 4514 refuses them. */
Test(dn, slapd_profile_escapes_white_space_and_quoted_bytes)
{
    static const struct {
        const char *in, *norm, *rfc; /* rfc: RFC 4514's, NULL refused */
    } ok[] = {
        {"cn=\\\t#x,dc=a", "cn=\\09#x,dc=a", NULL},
        {"cn=a\\\nb,dc=a", "cn=a\nb,dc=a", NULL},
        {"cn=x\\\r,dc=a", "cn=x\\0d,dc=a", NULL},
        {"cn=\"\\41\",dc=a", "cn=41,dc=a", "cn=a,dc=a"},
        {"cn=\"\\x\\\"\",dc=a", "cn=x\\\",dc=a", NULL},
    };

    static const char *bad[] = {"cn=\\x,dc=a", "cn=\"a\\", "cn=\"a\\\""};
    acre_schema *slapd;

    cr_assert_eq(acre_schema_new(NULL, ACRE_SCHEMA_SLAPD, &slapd, NULL), 0);
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        expect_norm(slapd, ok[i].in, ok[i].norm);
        expect_norm(NULL, ok[i].in, ok[i].rfc);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_norm(slapd, bad[i], NULL);
    acre_schema_free(slapd);
}

/* 389's DN normaliser (slapi_dn_normalize_ext, 2.3) drops a '\' before
 * a byte that is neither special nor a hex pair ("ignore an escape"):
 * ldapadd of cn=\x and cn=a\<TAB>b makes the entries cn=x and cn=a<TAB>b
 * (recorded, with more: aci-cases/case-dn-escapes). */
Test(dn, profile_389_ignores_escapes_of_plain_bytes)
{
    static const struct {
        const char *in, *norm;
    } ok[] = {
        {"cn=\\x,dc=a", "cn=x,dc=a"},
        {"cn=\\x y,dc=a", "cn=x y,dc=a"},
        {"cn=a\\\tb,dc=a", "cn=a\tb,dc=a"},
    };

    acre_schema *s389;

    cr_assert_eq(acre_schema_new(NULL, ACRE_SCHEMA_389, &s389, NULL), 0);
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        expect_norm(s389, ok[i].in, ok[i].norm);
    expect_norm(s389, "cn=x\\", NULL);
    acre_schema_free(s389);
}
