/*
 * aci_parse_test.c -- the ACI dialect's parser (compiler/aci_*.c): values
 * 389-DS 2.3 accepts and the IR they give, values it refuses with the
 * diagnostic's column, the OpenDJ variant, the bounds, and whole LDIF
 * files (positions through folds and base64).
 */
#include <criterion/criterion.h>

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>

#include "aci.h"
#include "acre.h"
#include "alloc_hook.h"
#include "dn.h"
#include "filter.h"
#include "schema.h"

static void *ctx;
static acre_dn *holder;

static void
setup(void)
{
    acre_diag d;

    ctx = talloc_new(NULL);
    cr_assert_eq(
        acre_dn_parse(ctx, NULL, "dc=example,dc=com", 17, 0, &holder, &d), 0);
}

static void
teardown(void)
{
    talloc_free(ctx);
}

TestSuite(aci_parse, .init = setup, .fini = teardown);

static const struct acreI_pos at = {"t.ldif", 7, 5};

static int
parse_v(const char *s, int variant, struct acreI_aci *a, acre_diag *d)
{
    memset(d, 0, sizeof(*d));
    return acreA_parse_value(ctx, NULL, holder, 1, s, strlen(s), variant, &at,
                             a, d);
}

static const struct acreI_aci *
ok(const char *s)
{
    struct acreI_aci *a = talloc_zero(ctx, struct acreI_aci);
    acre_diag d;
    int rc = parse_v(s, ACREI_ACI_389, a, &d);

    cr_assert_eq(rc, 0, "refused: %s\n  %s", s, d.message);
    return a;
}

static const struct acreI_aci *
ok_dj(const char *s)
{
    struct acreI_aci *a = talloc_zero(ctx, struct acreI_aci);
    acre_diag d;
    int rc = parse_v(s, ACREI_ACI_OPENDJ, a, &d);

    cr_assert_eq(rc, 0, "refused (OpenDJ): %s\n  %s", s, d.message);
    return a;
}

/* refused with ACRE_ERR_RULE_SYNTAX at byte `off` of the value */
static void
bad_at(const char *s, int variant, size_t off)
{
    struct acreI_aci a;
    acre_diag d;
    int rc = parse_v(s, variant, &a, &d);

    cr_assert_eq(rc, ACRE_ERR_RULE_SYNTAX, "accepted or other error %d: %s", rc,
                 s);
    cr_assert_eq(d.code, ACRE_ERR_RULE_SYNTAX);
    cr_assert_str_eq(d.file, "t.ldif");
    cr_assert_eq(d.line, 7);
    cr_assert_eq(d.offset, off, "%s: offset %zu, expected %zu (%s)", s,
                 d.offset, off, d.message);
    cr_assert_eq(d.column, 5 + off);
    cr_assert(strstr(d.message, "entry 'dc=example,dc=com', aci value 2: ") ==
                  d.message,
              "%s", d.message);
    cr_assert_eq(a.perms, NULL);
    cr_assert_eq(a.nperms, 0);
}

static void
bad(const char *s)
{
    struct acreI_aci a;
    acre_diag d;
    int rc = parse_v(s, ACREI_ACI_389, &a, &d);

    cr_assert_eq(rc, ACRE_ERR_RULE_SYNTAX, "accepted or other error %d: %s", rc,
                 s);
    cr_assert_eq(a.nperms, 0);
}

#define BODY "(version 3.0; acl \"a\"; allow (read) userdn=\"ldap:///anyone\";)"

/* timeofday: 389 reads any value as atoi() does, or a range "a-b"
 * (checked on 389-ds-base 2.3.1: "2460", "9999", "abc", "0800-2300" are
 * all stored); OpenDJ's variant keeps hhmm. */
Test(aci_parse, timeofday_as_389_reads_it)
{
    static const struct {
        const char *v;
        int tod;
        long num, end;
    } c[] = {{"2460", ACREI_TOD_VALUE, 2460, 0},
             {"12", ACREI_TOD_VALUE, 12, 0},
             {"abc", ACREI_TOD_VALUE, 0, 0},
             {" 0730x", ACREI_TOD_VALUE, 730, 0},
             {"0800-2300", ACREI_TOD_RANGE, 800, 2300},
             {"-5", ACREI_TOD_RANGE, 0, 5},
             {"0800-123456", ACREI_TOD_INVALID, 0, 0}};

    char buf[160];

    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        snprintf(buf, sizeof buf,
                 "(version 3.0; acl \"a\"; allow (read) timeofday=\"%s\";)",
                 c[i].v);
        const struct acreI_bind *b = ok(buf)->perms[0].bind;
        cr_expect_eq(b->tod, c[i].tod, "%s", c[i].v);
        if (c[i].tod != ACREI_TOD_INVALID)
            cr_expect_eq(b->num, c[i].num, "%s: %ld", c[i].v, b->num);
        if (c[i].tod == ACREI_TOD_RANGE)
            cr_expect_eq(b->num_end, c[i].end, "%s", c[i].v);
        struct acreI_aci a;
        acre_diag d;
        cr_expect_eq(parse_v(buf, ACREI_ACI_OPENDJ, &a, &d) == 0,
                     !strcmp(c[i].v, "12"), "OpenDJ and %s", c[i].v);
    }
}

/* Values 389 stores and reads its own way (each checked on 389 2.3.1:
 * the golden aci-odd-389 holds its answers) */
static const struct acreI_bind *
bind_of(const char *rule)
{
    char buf[256];

    snprintf(buf, sizeof buf, "(version 3.0; acl \"a\"; allow (read) %s;)",
             rule);
    const struct acreI_aci *a = ok(buf);
    cr_assert_eq(a->nperms, 1);
    return a->perms[0].bind;
}

/* "a.b.c.d/len" of IR address i */
static void
expect_prefix(const struct acreI_bind *b, unsigned i, const char *want)
{
    char buf[64], txt[80];
    unsigned n = b->addrs[i].family == 4 ? 4 : 16, len = 0;

    cr_assert_lt(i, b->naddrs);
    inet_ntop(b->addrs[i].family == 4 ? AF_INET : AF_INET6, b->addrs[i].addr,
              buf, sizeof buf);
    for (unsigned k = 0; k < n; k++)
        len += (unsigned)__builtin_popcount(b->addrs[i].mask[k]);
    snprintf(txt, sizeof txt, "%s/%u", buf, len);
    cr_expect_str_eq(txt, want);
}

Test(aci_parse, ip_as_389_reads_it)
{
    static const struct {
        const char *v;
        int mode;
        unsigned n;
        const char *p0, *p1;
    } c[] = {
        {"10.1.300.1", ACREI_IP_TREE, 1, "10.2.44.1/32", NULL},
        {"1.2.3.4.5", ACREI_IP_TREE, 1, "1.2.3.4/32", NULL},
        {"1.2.3.", ACREI_IP_TREE, 1, "1.2.3.0/32", NULL},
        {"1.2.3.4+255.x", ACREI_IP_TREE, 1, "1.0.0.0/8", NULL},
        {"10.1", ACREI_IP_TREE, 1, "10.1.0.0/16", NULL},
        {"*.0.0.1", ACREI_IP_TREE, 1, "0.0.0.1/32", NULL},
        {"1.*.3.4", ACREI_IP_TREE, 1, "1.0.3.4/32", NULL},
        {"10.*, 10.1.2.3", ACREI_IP_TREE, 2, "10.0.0.0/8", "10.1.2.3/32"},
        {" 1.2.3.4", ACREI_IP_TREE, 1, "0.0.0.0/8", NULL},
        {"1.2.3.4 + 255.0.0.0", ACREI_IP_TREE, 2, "1.0.0.0/8", "55.0.0.0/32"},
        {"0.0.0.0+0.0.0.0", ACREI_IP_TREE, 1, "0.0.0.0/0", NULL},
        {"fe80::/200", ACREI_IP_TREE, 0, NULL, NULL},
        {"1.2.3.4, fe80::1/10", ACREI_IP_TREE, 2, "1.2.3.4/32", "fe80::/10"},
        {"localhost", ACREI_IP_NEVER, 0, NULL, NULL},
    };

    char buf[96];

    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        snprintf(buf, sizeof buf, "ip=\"%s\"", c[i].v);
        const struct acreI_bind *b = bind_of(buf);
        cr_expect_eq(b->ipmode, c[i].mode, "%s", c[i].v);
        cr_assert_eq(b->naddrs, c[i].n, "%s: %u", c[i].v, b->naddrs);
        if (c[i].p0)
            expect_prefix(b, 0, c[i].p0);
        if (c[i].p1)
            expect_prefix(b, 1, c[i].p1);
    }
    /* OpenDJ keeps its own reading */
    struct acreI_aci a;
    acre_diag d;
    cr_expect_eq(parse_v("(version 3.0; acl \"a\"; allow (read) ip=\"10.1\";)",
                         ACREI_ACI_OPENDJ, &a, &d),
                 ACRE_ERR_RULE_SYNTAX);
}

Test(aci_parse, keywords_as_389_reads_them)
{
    const struct acreI_bind *b;

    /* orderings are stored with any keyword (the engine: Undefined) */
    b = bind_of("userdn>=\"ldap:///all\"");
    cr_expect_eq(b->op, ACREI_ACI_GE);
    cr_expect_eq(bind_of("dns<=\"a.example\"")->op, ACREI_ACI_LE);
    /* ssf: (int)strtol */
    cr_expect_eq(bind_of("ssf=\"high\"")->num, 0);
    cr_expect_eq(bind_of("ssf>=\"-5\"")->num, -5);
    cr_expect_eq(bind_of("ssf=\"0x10\"")->num, 0);
    cr_expect_eq(bind_of("ssf=\"4294967297\"")->num, 1);
    /* dayofweek: the days named inside the value */
    cr_expect_eq(bind_of("dayofweek=\"sunday\"")->days, 1u);
    cr_expect_eq(bind_of("dayofweek=\"Thursday, FRIDAY\"")->days, 0x30u);
    cr_expect_eq(bind_of("dayofweek=\"xyz\"")->days, 0u);
    /* userattr: no '#' never evaluates; parent levels as strtok cuts them */
    b = bind_of("userattr=\"manager\"");
    cr_expect_eq(b->uakind, ACREI_ACI_UA_VALUE);
    cr_expect_eq(b->attr, -1);
    b = bind_of("userattr=\"parent[0,12].manager#USERDN\"");
    cr_expect_eq(b->levels, 1u | 1u << 12);
    cr_expect_geq(b->attr, 0);
    cr_expect_eq(bind_of("userattr=\"parent[0, 1].manager#USERDN\"")->levels,
                 1u);
    cr_expect_eq(bind_of("userattr=\"parent[1 ].manager#USERDN\"")->levels, 2u);
    cr_expect_eq(
        bind_of("userattr=\"parent[2,1,1,1,1,1,1,1,1,1,0].manager#USERDN\"")
            ->levels,
        6u);
    cr_expect_eq(bind_of("userattr=\"parent[].manager#USERDN\"")->attr, -1);
    cr_expect_eq(bind_of("userattr=\"parent[1]manager#USERDN\"")->attr, -1);
    /* the '.' ends the piece " ": strtok has made it a NUL (case-29) */
    cr_expect_eq(bind_of("userattr=\"parent[0,1] .manager#USERDN\"")->attr, -1);
    cr_expect_eq(bind_of("userattr=\"nosuchattr#USERDN\"")->attr, -1);
    /* a value rule reads no levels: "parent[..." in its text names no
     * attribute, even when the levels read would be the entry alone */
    cr_expect_eq(bind_of("userattr=\"parent[0, 2].departmentNumber#20\"")->attr,
                 -1);
    cr_expect_eq(bind_of("userattr=\"parent[0].l#Paris\"")->attr, -1);
    /* an LDAP URL scope 389 cannot read names no one */
    b = bind_of("userdn=\"ldap:///dc=x??tree?(cn=a)\"");
    cr_expect_eq(b->terms[0].scope, -1);
}

Test(aci_parse, targets_as_389_reads_them)
{
    /* several ACL texts: the last is evaluated, the others' rights and
     * kinds kept (xperms) */
    const struct acreI_aci *a =
        ok("(targetattr=\"*\")(version 3.0; acl \"a\"; deny (read, search) "
           "userdn=\"ldap:///anyone\";)(version 3.0; acl \"b\"; allow (read) "
           "userdn=\"ldap:///anyone\";)");
    cr_expect_str_eq(a->name, "b");
    cr_expect_eq(a->nperms, 1);
    cr_expect_eq(a->perms[0].deny, 0);
    cr_expect_eq(a->nxperms, 1);
    cr_expect_eq(a->xperms[0].deny, 1);
    cr_expect_eq(a->xperms[0].rights, ACREI_ACI_READ | ACREI_ACI_SEARCH);
    struct acreI_aci y;
    acre_diag e;
    cr_expect_eq(parse_v(BODY BODY, ACREI_ACI_OPENDJ, &y, &e),
                 ACRE_ERR_RULE_SYNTAX);
    /* targattrfilters "!=" is "=" */
    a = ok("(targattrfilters!=\"add=cn:(cn=a)\")" BODY);
    cr_expect_eq(a->t.nadd_filters, 1);
    /* a "||" ending the list ends it */
    a = ok("(targetattr=\"cn ||\")" BODY);
    cr_expect_eq(a->t.nattrs, 1);
    struct acreI_aci x;
    acre_diag d;
    cr_expect_eq(
        parse_v("(targetattr=\"cn || || sn\")" BODY, ACREI_ACI_389, &x, &d),
        ACRE_ERR_RULE_SYNTAX);
}

/* ------------------------------------------------------------------------
 * Accepted, with the IR
 */
Test(aci_parse, minimal)
{
    const struct acreI_aci *a = ok(BODY);

    cr_assert_str_eq(a->name, "a");
    cr_assert_eq(a->nperms, 1);
    cr_assert_eq(a->perms[0].deny, 0);
    cr_assert_eq(a->perms[0].rights, ACREI_ACI_READ);
    cr_assert_eq(a->perms[0].bind->kw, ACREI_ACI_USERDN);
    cr_assert_eq(a->perms[0].bind->op, ACREI_ACI_EQ);
    cr_assert_eq(a->perms[0].bind->nterms, 1);
    cr_assert_eq(a->perms[0].bind->terms[0].kind, ACREI_ACI_S_ANYONE);
    cr_assert_eq(a->t.has, 0);
    cr_assert_eq(a->t.scope, ACRE_SCOPE_SUB);
    cr_assert_eq(a->holder, holder);
    cr_assert_eq(a->value_index, 1);
    cr_assert_eq(a->len, strlen(BODY));
    cr_assert_str_eq(a->text, BODY);
    cr_assert_eq(a->pos.line, 7);
}

Test(aci_parse, rights)
{
    const struct acreI_aci *a =
        ok("(version 3.0; aci \"x\"; allow (read, Write ,add,delete,search,"
           "compare,selfwrite,proxy,moddn) userdn=\"ldap:///all\";)");

    cr_assert_eq(a->perms[0].rights,
                 ACREI_ACI_READ | ACREI_ACI_WRITE | ACREI_ACI_ADD |
                     ACREI_ACI_DELETE | ACREI_ACI_SEARCH | ACREI_ACI_COMPARE |
                     ACREI_ACI_SELFWRITE | ACREI_ACI_PROXY | ACREI_ACI_MODDN);
    a = ok("(version 3.0; acl \"x\"; deny (all) userdn=\"ldap:///self\";)");
    cr_assert_eq(a->perms[0].deny, 1);
    cr_assert_eq(a->perms[0].rights, ACREI_ACI_ALL);
    cr_assert_eq(a->perms[0].bind->terms[0].kind, ACREI_ACI_S_SELF);
    a = ok("(version 3.0; acl \"x\"; allow (selfwrite) "
           "userdn=\"ldap:///parent\";)");
    /* the rights named: selfwrite grants no plain write (389's libaccess
     * tests the right's name) */
    cr_assert_eq(a->perms[0].rights, ACREI_ACI_SELFWRITE);
    cr_assert_eq(a->perms[0].bind->terms[0].kind, ACREI_ACI_S_PARENT);
    a = ok("(version 3.0; acl \"x\"; deny absolute (read) "
           "userdn=\"ldap:///anyone\";)");
    cr_assert_eq(a->perms[0].deny, 1);
}

Test(aci_parse, several_perms_and_case)
{
    const struct acreI_aci *a =
        ok("(targetattr=\"*\")(version 3.0; ACL \"two\"; ALLOW (READ) "
           "userdn = \"ldap:///anyone\"; Deny(write) groupdn!="
           "\"ldap:///cn=g,dc=example,dc=com\";)");

    cr_assert_eq(a->nperms, 2);
    cr_assert_eq(a->perms[1].deny, 1);
    cr_assert_eq(a->perms[1].rights, ACREI_ACI_WRITE);
    cr_assert_eq(a->perms[1].bind->kw, ACREI_ACI_GROUPDN);
    cr_assert_eq(a->perms[1].bind->op, ACREI_ACI_NE);
    cr_assert_eq(a->perms[1].bind->terms[0].kind, ACREI_ACI_S_DN);
    cr_assert_str_eq(acreD_norm(a->perms[1].bind->terms[0].pat.dn),
                     "cn=g,dc=example,dc=com");
    cr_assert_eq(a->t.attr_star, 1);
}

Test(aci_parse, targets_any_order)
{
    const struct acreI_aci *a =
        ok("(targetfilter=\"(objectClass=person)\")  (targetattr != "
           "\"cn || sn;lang-en||userPassword\")(target=\"ldap:///ou=people,"
           "dc=example,dc=com\") " BODY);

    cr_assert_eq(a->t.has,
                 ACREI_ACI_T_TARGET | ACREI_ACI_T_ATTR | ACREI_ACI_T_FILTER);
    cr_assert_eq(a->t.target.kind, ACREI_ACI_PAT_DN);
    cr_assert_str_eq(acreD_norm(a->t.target.dn), "ou=people,dc=example,dc=com");
    cr_assert_eq(a->t.target_neg, 0);
    cr_assert_eq(a->t.attr_neg, 1);
    cr_assert_eq(a->t.nattrs, 3);
    cr_assert_eq(a->t.attrs[0], acreS_attr_find(NULL, "cn", 2));
    cr_assert_neq(a->t.attrs[1], acreS_attr_find(NULL, "sn", 2));
    cr_assert_eq(a->t.attrs[2], acreS_attr_find(NULL, "userPassword", 12));
    cr_assert_not_null(a->t.filter);
    cr_assert_str_eq(a->t.filter_text, "(objectClass=person)");
    cr_assert_eq(a->t.filter_neg, 0);
}

Test(aci_parse, target_patterns)
{
    const struct acreI_aci *a =
        ok("(target=\"ldap:///UID=*, ou=People,dc=example,dc=com\")" BODY);

    cr_assert_eq(a->t.target.kind, ACREI_ACI_PAT_PATTERN);
    cr_assert_str_eq(a->t.target.text, "uid=*,ou=people,dc=example,dc=com");
    a = ok("(target!=\"ldap:///*=carol,ou=people,dc=example,dc=com\")" BODY);
    cr_assert_eq(a->t.target_neg, 1);
    cr_assert_str_eq(a->t.target.text, "*=carol,ou=people,dc=example,dc=com");
    a = ok("(target=\"ldap:///ou=sub*,dc=example,dc=com\")" BODY);
    cr_assert_str_eq(a->t.target.text, "ou=sub*,dc=example,dc=com");
    /* targets outside the holder: only exact DNs are checked (389) */
    ok("(target=\"ldap:///uid=*,dc=other,dc=com\")" BODY);
    ok("(target=\"ldaps:///dc=example,dc=com\")" BODY);
}

/* 389 expands a userdn URL holding a macro anywhere, its filter too, and
 * reads the URL after (DS_LASUserDnEval, acllas_eval_one_user): such a
 * filter is kept as text */
Test(aci_parse, macro_in_userdn_url_filter)
{
    const struct acreI_aci *a =
        ok("(targetattr=\"*\")(version 3.0; acl \"m\"; allow (read) "
           "userdn=\"ldap:///dc=example,dc=com??sub?(l=($attr.l))\";)");

    cr_assert_eq(a->flags & ACREI_ACI_F_MACRO, ACREI_ACI_F_MACRO);
    const struct acreI_aci_term *t = &a->perms[0].bind->terms[0];
    cr_assert_eq(t->kind, ACREI_ACI_S_URL);
    cr_assert_eq(t->pat.flags, ACREI_ACI_MACRO_ATTR);
    cr_assert_null(t->filter);
    cr_assert_str_eq(t->url, "dc=example,dc=com??sub?(l=($attr.l))");
    bad("(targetattr=\"*\")(version 3.0; acl \"m\"; allow (read) "
        "userdn=\"ldap:///dc=example,dc=com??sub?(l=($dn))\";)");
}

Test(aci_parse, macros)
{
    const struct acreI_aci *a =
        ok("(target=\"ldap:///uid=*,($dn),dc=example,dc=com\")(targetattr="
           "\"uid\")(version 3.0; acl \"m\"; allow (read) groupdn=\"ldap:///"
           "cn=u1,ou=groups,[$dn],dc=example,dc=com\" or userdn=\"ldap:///"
           "uid=($attr.uid),ou=people,dc=example,dc=com\";)");

    cr_assert_eq(a->flags & ACREI_ACI_F_MACRO, ACREI_ACI_F_MACRO);
    cr_assert_eq(a->t.target.kind, ACREI_ACI_PAT_PATTERN);
    cr_assert_eq(a->t.target.flags, ACREI_ACI_MACRO_DN);
    cr_assert_str_eq(a->t.target.text, "uid=*,($dn),dc=example,dc=com");
    const struct acreI_bind *b = a->perms[0].bind;
    cr_assert_eq(b->kw, ACREI_ACI_OR);
    cr_assert_eq(b->a->terms[0].kind, ACREI_ACI_S_PATTERN);
    cr_assert_eq(b->a->terms[0].pat.flags, ACREI_ACI_MACRO_DN_UP);
    cr_assert_str_eq(b->a->terms[0].pat.text,
                     "cn=u1,ou=groups,[$dn],dc=example,dc=com");
    cr_assert_eq(b->b->terms[0].pat.flags, ACREI_ACI_MACRO_ATTR);
    cr_assert_str_eq(b->b->terms[0].pat.text,
                     "uid=($attr.uid),ou=people,dc=example,dc=com");
    /* ($attr.X) needs no macro target */
    ok("(version 3.0; acl \"m\"; allow (read) userdn=\"ldap:///uid="
       "($attr.uid),dc=example,dc=com\";)");
    /* a macro targetfilter after a macro target */
    a = ok("(target=\"ldap:///($dn),dc=example,dc=com\")(targetfilter="
           "\"(cn=($dn))\")" BODY);
    cr_assert_null(a->t.filter);
    cr_assert_str_eq(a->t.filter_text, "(cn=($dn))");
}

Test(aci_parse, bind_tree_right_assoc)
{
    const struct acreI_aci *a =
        ok("(version 3.0; acl \"t\"; allow (read) userdn=\"ldap:///all\" and "
           "ssf>=\"56\" or not (ip=\"10.1.*\" and dns = \"*.example.com\");)");
    const struct acreI_bind *b = a->perms[0].bind;

    /* a and (b or (not (c and d))) */
    cr_assert_eq(b->kw, ACREI_ACI_AND);
    cr_assert_eq(b->a->kw, ACREI_ACI_USERDN);
    cr_assert_eq(b->b->kw, ACREI_ACI_OR);
    cr_assert_eq(b->b->a->kw, ACREI_ACI_SSF);
    cr_assert_eq(b->b->a->op, ACREI_ACI_GE);
    cr_assert_eq(b->b->a->num, 56);
    cr_assert_eq(b->b->b->kw, ACREI_ACI_NOT);
    cr_assert_eq(b->b->b->a->kw, ACREI_ACI_AND);
    cr_assert_eq(b->b->b->a->a->kw, ACREI_ACI_IP);
    cr_assert_eq(b->b->b->a->b->kw, ACREI_ACI_DNS);
    cr_assert_str_eq(b->b->b->a->b->text, "*.example.com");
    cr_assert_eq(b->a->pos.column, 5 + 36);
}

Test(aci_parse, userdn_lists_and_urls)
{
    const struct acreI_aci *a =
        ok("(version 3.0; acl \"u\"; allow (read) userdn=\"ldap:///uid=alice,"
           "dc=example,dc=com || ldap:///uid=a*,dc=example,dc=com ||ldap:///"
           "ou=people,dc=example,dc=com??sub?(departmentNumber=42)|| LDAP:///"
           "ou=people,dc=example,dc=com??one?sn=C || ldap:///dc=example,dc=com"
           "\";)");
    const struct acreI_bind *b = a->perms[0].bind;

    cr_assert_eq(b->nterms, 5);
    cr_assert_eq(b->terms[0].kind, ACREI_ACI_S_DN);
    cr_assert_eq(b->terms[1].kind, ACREI_ACI_S_PATTERN);
    cr_assert_str_eq(b->terms[1].pat.text, "uid=a*,dc=example,dc=com");
    cr_assert_eq(b->terms[2].kind, ACREI_ACI_S_URL);
    cr_assert_eq(b->terms[2].scope, ACRE_SCOPE_SUB);
    cr_assert_not_null(b->terms[2].filter);
    cr_assert_str_eq(acreD_norm(b->terms[2].pat.dn),
                     "ou=people,dc=example,dc=com");
    cr_assert_eq(b->terms[3].scope, ACRE_SCOPE_ONE);
    cr_assert_not_null(b->terms[3].filter);
    cr_assert_eq(b->terms[4].kind, ACREI_ACI_S_DN);
    a = ok("(version 3.0; acl \"u\"; allow (read) userdn=\"ldap:///"
           "ou=people,dc=example,dc=com??sub\";)");
    cr_assert_null(a->perms[0].bind->terms[0].filter);
    a = ok("(version 3.0; acl \"u\"; allow (read) userdn=\"ldap:///"
           "ou=people,dc=example,dc=com?\";)");
    cr_assert_eq(a->perms[0].bind->terms[0].scope, ACRE_SCOPE_BASE);
}

Test(aci_parse, userattr_forms)
{
    const struct acreI_aci *a = ok(
        "(version 3.0; acl \"u\"; allow (read) userattr=\"manager#USERDN\" or "
        "userattr=\"seeAlso#groupdn\" or userattr=\"departmentNumber#42\" or "
        "userattr=\"parent[0, 1,3].manager#USERDN\" or userattr=\"nsRoleDN#"
        "ROLEDN\" or userattr=\"seeAlso#LDAPURL\" or userattr=\"manager#"
        "SELFDN\" or userdnattr=\"manager\" or groupdnattr=\"parent[2]."
        "seeAlso\";)");
    const struct acreI_bind *b = a->perms[0].bind;
    const struct acreI_bind *t[9];
    int n = 0;

    for (; b->kw == ACREI_ACI_OR; b = b->b)
        t[n++] = b->a;
    t[n++] = b;
    cr_assert_eq(n, 9);
    cr_assert_eq(t[0]->uakind, ACREI_ACI_UA_USERDN);
    cr_assert_eq(t[0]->attr, acreS_attr_find(NULL, "manager", 7));
    cr_assert_eq(t[0]->levels, 1);
    cr_assert_eq(t[1]->uakind, ACREI_ACI_UA_GROUPDN);
    cr_assert_eq(t[2]->uakind, ACREI_ACI_UA_VALUE);
    cr_assert_str_eq(t[2]->value, "42");
    cr_assert_eq(t[2]->value_len, 2);
    /* 389 cuts "0, 1,3" at the commas: " 1" is no level (strtok) */
    cr_assert_eq(t[3]->levels, 0x9u);
    cr_assert_eq(t[4]->uakind, ACREI_ACI_UA_ROLEDN);
    cr_assert_eq(t[5]->uakind, ACREI_ACI_UA_LDAPURL);
    cr_assert_eq(t[6]->uakind, ACREI_ACI_UA_SELFDN);
    cr_assert_eq(t[7]->kw, ACREI_ACI_USERDNATTR);
    cr_assert_eq(t[7]->uakind, ACREI_ACI_UA_USERDN);
    cr_assert_eq(t[8]->kw, ACREI_ACI_GROUPDNATTR);
    cr_assert_eq(t[8]->levels, 0x4u);
}

Test(aci_parse, connection_keywords)
{
    const struct acreI_aci *a = ok(
        "(version 3.0; acl \"c\"; allow (read) authmethod=\"SASL GSSAPI\" and "
        "ssf=\"0\" and ip=\"10.1.*, 192.168.0.0+255.255.0.0,::1,fe80::/10\" "
        "and dayofweek=\"Sun,mon,sat\" and timeofday<=\"1730\" and timeofday"
        ">=0800 and ssf!=\"128\" and roledn=\"ldap:///cn=r,dc=example,"
        "dc=com\";)");
    const struct acreI_bind *b = a->perms[0].bind, *t[8];
    int n = 0;

    for (; b->kw == ACREI_ACI_AND; b = b->b)
        t[n++] = b->a;
    t[n++] = b;
    cr_assert_eq(n, 8);
    cr_assert_str_eq(t[0]->text, "sasl gssapi");
    cr_assert_eq(t[1]->num, 0);
    cr_assert_eq(t[2]->naddrs, 4);
    cr_assert_eq(t[2]->addrs[0].family, 4);
    cr_assert_eq(t[2]->addrs[0].addr[0], 10);
    cr_assert_eq(t[2]->addrs[0].addr[1], 1);
    cr_assert_eq(t[2]->addrs[0].mask[1], 0xff);
    cr_assert_eq(t[2]->addrs[0].mask[2], 0);
    cr_assert_eq(t[2]->addrs[1].mask[1], 0xff);
    cr_assert_eq(t[2]->addrs[1].mask[2], 0);
    cr_assert_eq(t[2]->addrs[1].mask[3], 0);
    cr_assert_eq(t[2]->addrs[2].family, 6);
    cr_assert_eq(t[2]->addrs[2].addr[15], 1);
    cr_assert_eq(t[2]->addrs[2].mask[15], 0xff);
    cr_assert_eq(t[2]->addrs[3].mask[0], 0xff);
    cr_assert_eq(t[2]->addrs[3].mask[1], 0xc0);
    cr_assert_eq(t[2]->addrs[3].mask[2], 0);

    a = ok(
        "(version 3.0; acl \"c\"; allow (read) ip=\"10.*.3.*,*,10.1.*.*\";)");
    b = a->perms[0].bind;
    cr_assert_eq(b->naddrs, 3);
    /* 389's tree follows the address down to the netmask's last bit:
     * "10.*.3.*" is 10.0.3.0/24 */
    cr_assert_eq(b->ipmode, ACREI_IP_TREE);
    cr_assert_eq(b->addrs[0].mask[0], 0xff);
    cr_assert_eq(b->addrs[0].mask[1], 0xff);
    cr_assert_eq(b->addrs[0].addr[1], 0);
    cr_assert_eq(b->addrs[0].mask[2], 0xff);
    cr_assert_eq(b->addrs[0].addr[2], 3);
    cr_assert_eq(b->addrs[0].mask[3], 0);
    cr_assert_eq(b->addrs[1].mask[0], 0);
    cr_assert_eq(b->addrs[2].mask[1], 0xff);
    cr_assert_eq(b->addrs[2].mask[2], 0);
    cr_assert_eq(t[3]->days, 0x1u | 0x2u | 0x40u);
    cr_assert_eq(t[4]->op, ACREI_ACI_LE);
    cr_assert_eq(t[4]->num, 1730);
    cr_assert_eq(t[5]->num, 800);
    cr_assert_eq(t[6]->op, ACREI_ACI_NE);
    cr_assert_eq(t[7]->kw, ACREI_ACI_ROLEDN);
}

Test(aci_parse, targattrfilters_and_moddn)
{
    const struct acreI_aci *a =
        ok("(targattrfilters=\"add=cn:(cn=a*) && sn:(|(sn=b*)(sn;x=c)), "
           "del=cn:(cn=x)\")"
           "(target_to=\"ldap:///ou=a,dc=example,dc=com\")(target_from!="
           "\"ldap:///uid=*,ou=b,dc=example,dc=com\")" BODY);

    cr_assert_eq(a->t.nadd_filters, 2);
    cr_assert_eq(a->t.ndel_filters, 1);
    cr_assert_eq(a->t.add_filters[1].type, acreS_attr_find(NULL, "sn", 2));
    cr_assert_str_eq(a->t.add_filters[1].text, "(|(sn=b*)(sn;x=c))");
    cr_assert_not_null(a->t.del_filters[0].filter);
    cr_assert_eq(a->t.to.kind, ACREI_ACI_PAT_DN);
    cr_assert_eq(a->t.from.kind, ACREI_ACI_PAT_PATTERN);
    cr_assert_eq(a->t.has,
                 ACREI_ACI_T_ATTRFLT | ACREI_ACI_T_TO | ACREI_ACI_T_FROM);
    /* 389 keeps one "!=" flag (ACI_TARGET_NOT) for the three targets */
    cr_assert(a->t.target_neg);
}

/* 389 (__aclp__init_targetattrfilters) finds the second list at the
 * first "del=" (or "add=") of the text, wherever it is, and cuts off the
 * character before it: " && ", ", " and " " all separate the two lists,
 * a list may end with "&&", and "del=" in a filter splits it there. */
Test(aci_parse, targattrfilters_lists_as_389_splits_them)
{
    const struct acreI_aci *a =
        ok("(targattrfilters=\"add=cn:(!(cn=a)) && del=sn:(!(sn=b))\")" BODY);
    cr_assert_eq(a->t.nadd_filters, 1);
    cr_assert_eq(a->t.ndel_filters, 1);
    cr_assert_str_eq(a->t.add_filters[0].text, "(!(cn=a))");
    cr_assert_str_eq(a->t.del_filters[0].text, "(!(sn=b))");
    a = ok(
        "(targattrfilters=\"del=sn:(sn=b) && cn:(cn=c) add=cn:(cn=a)\")" BODY);
    cr_assert_eq(a->t.nadd_filters, 1);
    cr_assert_eq(a->t.ndel_filters, 2);
    cr_assert_str_eq(a->t.del_filters[1].text, "(cn=c)");
    a = ok("(targattrfilters=\"add=cn:(cn=a),del =sn:(sn=b)\")" BODY);
    cr_assert_eq(a->t.nadd_filters, 1);
    cr_assert_eq(a->t.ndel_filters, 1);
    cr_assert_str_eq(a->t.add_filters[0].text, "(cn=a)");
    /* slapi_str2filter reads up to the closing parenthesis: the rest of
     * "(cn=a)&" (the '&' before "del=" was cut), "(cn=a), add=..." goes */
    a = ok("(targattrfilters=\"add=cn:(cn=a)&&del=sn:(sn=b)\")" BODY);
    cr_assert_str_eq(a->t.add_filters[0].text, "(cn=a)");
    cr_assert_eq(a->t.ndel_filters, 1);
    a = ok("(targattrfilters=\"add=cn:(cn=a), add=cn:(cn=b)\")" BODY);
    cr_assert_eq(a->t.nadd_filters, 1);
    cr_assert_str_eq(a->t.add_filters[0].text, "(cn=a)");
    cr_assert_null(a->t.del_filters);
    a = ok("(targattrfilters=\"add=cn:(((cn=a)))\")" BODY);
    cr_assert_str_eq(a->t.add_filters[0].text, "(cn=a)");
    bad("(targattrfilters=\"add=description:(description=del=1)\")" BODY);
    bad("(targattrfilters=\" add=cn:(cn=a)\")" BODY);
    bad("(targattrfilters=\"add =cn:(cn=a)\")" BODY);
    bad("(targattrfilters=\"add=&& cn:(cn=a)\")" BODY);
}

Test(aci_parse, one_negation_for_target_to_from)
{
    const struct acreI_aci *a =
        ok("(target_to!=\"ldap:///ou=a,dc=example,dc=com\")"
           "(target=\"ldap:///ou=b,dc=example,dc=com\")" BODY);
    cr_assert(a->t.target_neg, "target_to's != negates the target");
    a = ok("(target=\"ldap:///ou=b,dc=example,dc=com\")"
           "(target_from!=\"ldap:///ou=a,dc=example,dc=com\")" BODY);
    cr_assert(a->t.target_neg, "target_from's != negates the target");
    a = ok("(target=\"ldap:///ou=b,dc=example,dc=com\")"
           "(target_to=\"ldap:///ou=a,dc=example,dc=com\")" BODY);
    cr_assert(!a->t.target_neg);
}

Test(aci_parse, odd_but_389_accepts)
{
    /* unquoted values, comments, a word as the acl name, text after the
     * last group, targetattr patterns, a filter without parentheses */
    const struct acreI_aci *a =
        ok("  (targetattr=cn*)(targetfilter=\"objectClass=*\")"
           "(version 3.5;acl name;allow(read)ip=127.0.0.1 # why\n;) junk");

    cr_assert_str_eq(a->name, "name");
    cr_assert_eq(a->t.nattr_pat, 1);
    cr_assert_str_eq(a->t.attr_pat[0], "cn*");
    cr_assert_not_null(a->t.filter);

    /* a value rule under parent[]: 389 looks for an attribute named
     * "parent[1].ou", which nothing has: a value rule on no attribute */
    a = ok("(version 3.0; acl \"a\"; allow (read) "
           "userattr=\"parent[1].ou#x\";)");
    cr_assert_eq(a->perms[0].bind->uakind, ACREI_ACI_UA_VALUE);
    cr_assert_eq(a->perms[0].bind->attr, -1);
}

/* 389 (checked on 2.3.1): "acl", allow/deny, rights, and/or/not in any
 * case, but a bind rule keyword only in lowercase (libaccess finds the
 * LAS by its exact name), and no ';' in the acl name; OpenDJ takes
 * keywords in any case */
Test(aci_parse, keyword_case_389)
{
    static const char *const refused[] = {
        "userDN=\"ldap:///anyone\"",
        "USERDN=\"ldap:///anyone\"",
        "Userdn=\"ldap:///anyone\"",
        "groupDN=\"ldap:///cn=g,dc=x\"",
        "userAttr=\"manager#USERDN\"",
        "userDNattr=\"manager\"",
        "roleDN=\"ldap:///cn=r,dc=x\"",
        "authMethod=\"simple\"",
        "IP=\"127.0.0.1\"",
        "Dns=\"localhost\"",
        "dayOfWeek=\"sun\"",
        "timeOfDay=\"0800\"",
        "SSF>=\"0\"",
    };
    char buf[256];

    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        snprintf(buf, sizeof buf, "(version 3.0; acl \"a\"; allow (read) %s;)",
                 refused[i]);
        bad_at(buf, ACREI_ACI_389, 36);
        if (strncmp(refused[i], "roleDN", 6) &&
            strncmp(refused[i], "userDNattr", 10))
            ok_dj(buf);
    }
    ok("(version 3.0; acl \"a\"; ALLOW (Read, SEARCH) userdn=\"ldap:///"
       "anyone\" AND ssf>=\"0\" Or NOT ip=\"1.2.3.4\";)");
    bad_at("(version 3.0; acl \"a;b\"; allow (read) userdn=\"ldap:///"
           "anyone\";)",
           ACREI_ACI_389, 19);
    ok("(version 3.0; acl \"a,b (c)=d#e\"; allow (read) userdn=\"ldap:///"
       "anyone\";)");
}

/* 389 2.3.1 stores these (aci-cases/case-21, case-22 hold its answers) */
Test(aci_parse, filters_attrs_dns_389)
{
    static const char *const tf[][2] = {
        {"((uid=a))", "(uid=a)"},
        {"(((uid=a)))", "(uid=a)"},
        {"(uid=a)(uid=b)", "(uid=a)"},
        {"(uid=a)x", "(uid=a)"},
        {"(&(uid=a))(uid=b)", "(&(uid=a))"},
        {"((uid=a)(uid=b))", "(uid=a)"},
        {"((|(uid=a)(uid=b)))", "(|(uid=a)(uid=b))"},
        {"(cn=a\\29)(uid=b)", "(cn=a\\29)"},
        {"uid=a", "uid=a"},
    };
    char buf[256];
    const struct acreI_aci *a;

    for (size_t i = 0; i < sizeof tf / sizeof tf[0]; i++) {
        snprintf(buf, sizeof buf, "(targetfilter=\"%s\")" BODY, tf[i][0]);
        a = ok(buf);
        cr_expect_str_eq(a->t.filter_text, tf[i][1], "%s", tf[i][0]);
    }
    a = ok("(targetattr=\"\")" BODY);
    cr_expect(a->t.has & ACREI_ACI_T_ATTR);
    cr_expect_eq(a->t.nattrs, 0);
    cr_expect_eq(a->t.attr_star, 0);
    a = ok("(version 3.0; acl \"a\"; allow (read) dns = \"A b,,c;d\tE\";)");
    cr_expect_str_eq(a->perms[0].bind->text, "a,b,c;d,e");
    ok("(version 3.0; acl \"a\"; allow (read) dns = \"\";)");
}

/* 389's rule scanner takes the first rule name a word holds, in its own
 * order (userdn before userattr, ip before dns): each checked on 389-DS
 * 2.3.1 (stored or refused by ldapmodify) */
Test(aci_parse, rule_scanner_389)
{
    static const char *const refused[] = {
        "userattr=\"manager#userdn\"",
        "userattr=\"manager#groupdn\"",
        "userattr=\"parent[0,1].manager#groupdn\"",
        "dns=\"ship.example.com\"",
        "dns=\"*.ipa.test\"",
        "userdn=\"ldap:///anyone\" and dns=\"ship.example.com\"",
        "userdn=\"ldap:///anyone\" and userattr=\"manager#userdn\"",
        "roledn=\"ldap:///cn=userdn,dc=example,dc=com\"",
    };
    static const char *const stored[] = {
        "userattr = \"manager#userdn\"",
        "userattr=\"manager#Userdn\"",
        "userattr=\"manager#roledn\"",
        "userattr=\"manager#ldapurl\"",
        "dns = \"ship.example.com\"",
        "dns=\"ship.example.com\" and userdn=\"ldap:///anyone\"",
        "dns=\"host.ssf.example\"",
        "userdn=\"ldap:///anyone\" and ip=\"1.2.3.4;5\"",
        "authmethod=\"simple\"",
    };
    char buf[256];

    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        snprintf(buf, sizeof buf, "(version 3.0; acl \"a\"; allow (read) %s;)",
                 refused[i]);
        bad(buf);
        if (strncmp(refused[i], "roledn", 6)) /* OpenDJ has no roledn */
            ok_dj(buf);
    }
    for (size_t i = 0; i < sizeof stored / sizeof stored[0]; i++) {
        snprintf(buf, sizeof buf, "(version 3.0; acl \"a\"; allow (read) %s;)",
                 stored[i]);
        ok(buf);
    }
    /* a subject pattern is a substring filter over the DN's text, RDNs
     * with no '=' too (aci-cases/case-24); targets still want them */
    const struct acreI_aci *a =
        ok("(version 3.0; acl \"a\"; allow (read) userdn=\"ldap:///*Judy*\";)");
    cr_expect_str_eq(a->perms[0].bind->terms[0].pat.text, "*judy*");
    bad("(target=\"ldap:///u*,dc=example,dc=com\")" BODY);
    /* targets too (case-30), but "*" alone is a presence filter there */
    a = ok("(target=\"ldap:///*P5*\")" BODY);
    cr_expect_str_eq(a->t.target.text, "*p5*");
    bad("(target=\"ldap:///*\")" BODY);
}

Test(aci_parse, opendj_variant)
{
    const struct acreI_aci *a = ok_dj(
        "(targetscope=\"onelevel\")(targetattr=\"*||+\")(targetcontrol="
        "\"1.2.3\")(extop=\"1.3.6.1.4.1.4203.1.11.1\")(version 3.0; acl "
        "\"d\"; allow (import,export) ssf>\"0\" and timeofday<\"2300\";)");

    cr_assert_eq(a->t.scope, ACRE_SCOPE_ONE);
    cr_assert_eq(a->t.attr_star, 1);
    cr_assert_eq(a->t.attr_plus, 1);
    cr_assert_eq(a->perms[0].rights, ACREI_ACI_IMPORT | ACREI_ACI_EXPORT);
    cr_assert_eq(a->perms[0].bind->a->op, ACREI_ACI_GT);
    cr_assert_eq(a->t.has & (ACREI_ACI_T_CONTROL | ACREI_ACI_T_EXTOP),
                 ACREI_ACI_T_CONTROL | ACREI_ACI_T_EXTOP);
}

/* ------------------------------------------------------------------------
 * Refused, at the right byte
 */
Test(aci_parse, refused_columns)
{
    bad_at("version 3.0", ACREI_ACI_389, 0);
    bad_at("(targetattr=\"nosuchattrx\")" BODY, ACREI_ACI_389, 13);
    bad_at("(target=\"ldap:///dc=other,dc=com\")" BODY, ACREI_ACI_389, 9);
    bad_at("(target=\"ldap:///*,dc=example,dc=com\")" BODY, ACREI_ACI_389, 18);
    bad_at("(target=\"ldap:///ou=sub,*,dc=example,dc=com\")" BODY,
           ACREI_ACI_389, 25);
    bad_at("(targetscope=\"base\")" BODY, ACREI_ACI_389, 1);
    bad_at("(targetcontrol=\"1.2\")" BODY, ACREI_ACI_389, 1);
    bad_at("(targetattr=\"cn\")(targetattr=\"sn\")" BODY, ACREI_ACI_389, 18);
    bad_at("(targetattr==\"cn\")" BODY, ACREI_ACI_389, 12);
    bad_at("(targetattr=\"cn)" BODY, ACREI_ACI_389, 12);
    bad_at("(Target=\"ldap:///dc=example,dc=com\")" BODY, ACREI_ACI_389, 1);
    bad_at("(version 2.0; acl \"a\"; allow (read) userdn=\"ldap:///all\";)",
           ACREI_ACI_389, 9);
    /* 389's rule scanner finds no '=' after "ssf" in the word (with
     * spaces, "ssf > \"0\"", it takes the rule) */
    bad_at("(version 3.0; acl \"a\"; allow (read) ssf>\"0\";)", ACREI_ACI_389,
           36);
    bad_at("(version 3.0; acl \"a\"; allow (read) timeofday<\"0001\";)",
           ACREI_ACI_389, 36);
    ok("(version 3.0; acl \"a\"; allow (read) ssf > \"0\" and timeofday "
       "<\"0001\";)");
    ok("(version 3.0; acl \"a\"; allow (read) ssf>\"0\" and userdn="
       "\"ldap:///all\";)");
    bad_at("(version 3.0; acl \"a\"; allow (read) userdn ! = \"ldap:///all\";)",
           ACREI_ACI_389, 23);
    bad_at("(version 3.0; acl \"a\"; allow (read) userdn=\"ldap:///*,dc="
           "example,dc=com\";)",
           ACREI_ACI_389, 53); /* 389's normaliser: ',' in a type */
    bad_at("(version 3.0; acl \"a\"; allow (read,fly) userdn=\"ldap:///all\";)",
           ACREI_ACI_389, 35);
    bad_at("(version 3.0; acl \"a\"; allow () userdn=\"ldap:///all\";)",
           ACREI_ACI_389, 30);
    bad_at("(version 3.0; acl \"a\"; allow (read) userdn=\"ldap:///all\")",
           ACREI_ACI_389, 56);
    bad_at("(version 3.0; acl \"a\"; allow absolute (read) userdn=\"ldap:///"
           "all\";)",
           ACREI_ACI_389, 29);
    bad_at("(version 3.0; acl \"a\"; allow (read) userdn=\"cn=x\";)",
           ACREI_ACI_389, 44);
    bad_at("(version 3.0; acl \"a\"; allow (read) color=\"red\";)",
           ACREI_ACI_389, 36);
    bad_at("(version 3.0; acl \"a\"; allow (import) userdn=\"ldap:///all\";)",
           ACREI_ACI_389, 30);
    bad_at("(version 3.0; acl \"a\";)", ACREI_ACI_389, 22);
}

Test(aci_parse, subjects_389_normalises)
{
    /* aclparse.c hands 389's DN normaliser the text from the first
     * ldap:/// to the first '?' or the end, as one DN: a first term with
     * no '=' followed by " ||" is a type followed by something else than
     * '=' (checked on 389-ds-base 2.3.1) */
    bad_at("(version 3.0; acl \"a\"; allow (read) userdn=\"ldap:///self || "
           "ldap:///anyone\";)",
           ACREI_ACI_389, 57);
    bad_at("(version 3.0; acl \"a\"; allow (read) groupdn=\"ldap:///anyone "
           "|| ldap:///cn=g,dc=example,dc=com\";)",
           ACREI_ACI_389, 60);
    bad_at("(version 3.0; acl \"a\"; allow (read) userdn=\"ldap:///cn=x,"
           "dc=example,dc=com,nobody || ldap:///self\";)",
           ACREI_ACI_389, 82);
    bad_at("(version 3.0; acl \"a\"; allow (read) userdn=\"ldap:///a;b\";)",
           ACREI_ACI_389, 53);
    /* the same texts it passes: no space before "||", a '?' cutting it,
     * a list whose first term has its '=' */
    ok("(version 3.0; acl \"a\"; allow (read) userdn=\"ldap:///self||"
       "ldap:///cn=x,dc=example,dc=com\";)");
    ok("(version 3.0; acl \"a\"; allow (read) userdn=\"ldap:///cn=x,"
       "dc=example,dc=com || ldap:///anyone\";)");
    ok("(version 3.0; acl \"a\"; allow (read) userdn=\"ldap:///"
       "dc=example,dc=com??sub?(uid=a) || ldap:///self\";)");
    /* OpenDJ does not normalise so: its own reading */
    ok_dj("(version 3.0; acl \"a\"; allow (read) userdn=\"ldap:///self || "
          "ldap:///anyone\";)");

    /* groupdn and roledn "anyone" is everyone; a text with no '=' names
     * no one */
    const struct acreI_aci *a =
        ok("(version 3.0; acl \"a\"; allow (read) groupdn=\"ldap:///anyone\" "
           "or roledn=\"ldap:///cn=r,dc=example,dc=com || ldap:///anyone\" "
           "or userdn=\"ldap:///nobody\" or groupdn=\"ldap:///self\";)");
    const struct acreI_bind *b = a->perms[0].bind;
    cr_assert_eq(b->a->kw, ACREI_ACI_GROUPDN);
    cr_assert_eq(b->a->terms[0].kind, ACREI_ACI_S_ANYONE);
    cr_assert_eq(b->b->a->terms[1].kind, ACREI_ACI_S_ANYONE);
    cr_assert_eq(b->b->b->a->terms[0].kind, ACREI_ACI_S_URL);
    cr_assert_eq(b->b->b->a->terms[0].scope, -1);
    cr_assert_str_eq(b->b->b->a->terms[0].url, "nobody");
    cr_assert_eq(b->b->b->b->terms[0].kind, ACREI_ACI_S_URL);
    /* so does an LDAP URL whose base has none */
    a = ok("(version 3.0; acl \"a\"; allow (read) userdn=\"ldap:///"
           "anyone??sub?(cn=x)\";)");
    cr_assert_eq(a->perms[0].bind->terms[0].kind, ACREI_ACI_S_URL);
    cr_assert_eq(a->perms[0].bind->terms[0].scope, -1);
}

Test(aci_parse, ldap_prefix_case)
{
    /* aclparse.c normalises a userdn and wants "ldap:///" in lowercase
     * then; DS_LASUserDnEval itself takes any case (OpenDJ: any case) */
    ok_dj("(version 3.0; acl \"a\"; allow (read) USERDN=\"LDAP:///anyone\";)");
    ok("(version 3.0; acl \"a\"; allow (read) groupdn=\"LDAPS:///cn=g,"
       "dc=example,dc=com || ldap:///cn=h,dc=example,dc=com\";)");
    bad_at("(version 3.0; acl \"a\"; allow (read) userdn=\"LDAP:///anyone\";)",
           ACREI_ACI_389, 44);
    bad_at("(version 3.0; acl \"a\"; allow (read) roledn=\"LDAP:///cn=r,"
           "dc=example,dc=com\";)",
           ACREI_ACI_389, 44);
}

Test(aci_parse, target_macros)
{
    const struct acreI_aci *a =
        ok("(target=\"ldap:///($dn),dc=example,dc=com\")" BODY);

    cr_assert_eq(a->t.target.flags, ACREI_ACI_MACRO_DN);
    cr_assert_str_eq(a->t.target.text, "($dn),dc=example,dc=com");
    /* other macros in a target: 389 stores the text as a DN no entry is
     * under (it logs "The ACL target ... does not exist") */
    a = ok("(target=\"ldap:///ou=x,[$dn],dc=example,dc=com\")" BODY);
    cr_assert_eq(a->t.target.kind, ACREI_ACI_PAT_NONE);
    a = ok("(target=\"ldap:///uid=($attr.uid),dc=example,dc=com\")" BODY);
    cr_assert_eq(a->t.target.kind, ACREI_ACI_PAT_NONE);
    a = ok("(target!=\"ldap:///($foo), dc=example, dc=com\")" BODY);
    cr_assert_eq(a->t.target.kind, ACREI_ACI_PAT_NONE);
    cr_assert_eq(a->t.target_neg, 1);
    /* ... when its normaliser passes it and it ends under the holder */
    bad_at("(target=\"ldap:///($foo)\")" BODY, ACREI_ACI_389, 17);
    bad_at("(target=\"ldap:///nobody,dc=example,dc=com\")" BODY, ACREI_ACI_389,
           23);
    bad_at("(target=\"ldap:///($foo)\")" BODY, ACREI_ACI_OPENDJ, 17);
    /* ($dn) inside an RDN (389 finds "ou=" in the DN), in the target
     * and the subject; "ou=x[$dn]" 389 stores as a DN no entry is
     * under */
    a = ok("(target=\"ldap:///uid=*,ou=($dn),dc=example,dc=com\")(version 3.0; "
           "acl \"a\"; allow (read) userdn=\"ldap:///cn=admin,OU=($dn),"
           "dc=example,dc=com\";)");
    cr_assert_eq(a->t.target.flags, ACREI_ACI_MACRO_DN);
    cr_assert_str_eq(a->t.target.text, "uid=*,ou=($dn),dc=example,dc=com");
    cr_assert_str_eq(a->perms[0].bind->terms[0].pat.text,
                     "cn=admin,ou=($dn),dc=example,dc=com");
    a = ok("(target=\"ldap:///ou=x[$dn],dc=example,dc=com\")" BODY);
    cr_assert_eq(a->t.target.kind, ACREI_ACI_PAT_NONE);
    /* ($attr.X) as the whole DN: its values are DNs */
    a = ok("(version 3.0; acl \"a\"; allow (read) "
           "userdn=\"ldap:///($attr.manager)\";)");
    cr_assert_eq(a->perms[0].bind->terms[0].pat.flags, ACREI_ACI_MACRO_ATTR);
    cr_assert_str_eq(a->perms[0].bind->terms[0].pat.text, "($attr.manager)");
    /* [$dn] in a subject needs a ($dn) target too */
    bad_at("(version 3.0; acl \"a\"; allow (read) groupdn=\"ldap:///cn=g,"
           "[$dn],dc=example,dc=com\";)",
           ACREI_ACI_389, 0);
}

Test(aci_parse, refused)
{
    bad("");
    bad("(targetattr=\"cn\")");
    bad("(version 3.0; acl \"a\"; allow (read) userdn=\"ldap:///uid=carol,"
        "($dn),dc=example,dc=com\";)");
    bad("(targetfilter=\"(cn=($dn))\")" BODY);
    bad("(target=\"ldap:///($foo),dc=other,dc=com\")" BODY);
    bad("(version 3.0; acl \"a\"; allow (read) userdn=\"ldap:///uid="
        "($attr.1x),dc=example,dc=com\";)");
    bad("(targetfilter=\"(cn=a\")" BODY);
    bad("(targattrfilters=\"add=nosuch:(cn=a)\")" BODY);
    bad("(targattrfilters=\"mod=cn:(cn=a)\")" BODY);
    bad("(targattrfilters=add=cn:(cn=a))" BODY);
    bad("(targattrfilters=\"add=cn:(sn=a)\")" BODY);
    bad("(targattrfilters=\"add=cn:(&(cn=a)(|(sn=b)))\")" BODY);
    bad("(version 3.0; acl \"a\"; allow (read) (userdn=\"ldap:///all\";)");
    bad("(version 3.0; acl \"a\"; allow (read) userdn=\"ldap:///all\" and;)");
    bad("(version 3.0; acl \"a\"; allow (read) userdn=\"ldap:///all;)");
    bad("(version 3.0; acl \"a\"; allow (read) userdn=\"ldap:///all\" "
        "@ ip=\"1.2.3.4\";)");
    bad("(version 3.0; acl \"a\"; allow (read,,write) "
        "userdn=\"ldap:///all\";)");
    bad("(version 3.0 acl \"a\"; allow (read) userdn=\"ldap:///all\";)");
    bad("(version 3.0; acl \"a\" allow (read) userdn=\"ldap:///all\";)");
    bad("(version 3.0; acl \"a\"; permit (read) userdn=\"ldap:///all\";)");
    bad("(version 3.0; acl \"a\"; allow (read) userdn=\"ldap:///all\"; "
        "junk;)");
    bad("(target=\"dc=example,dc=com\")" BODY);
    bad("((version 3.0; acl \"a\"; allow (read) userdn=\"ldap:///all\";)");
    bad("x" BODY);
}

/* A value is its n bytes, not a string: a list with an escape (read
 * from a copy 389's normaliser makes) reads nothing past them (under
 * ASan, the buffer below ends at the value's last byte; fuzz_aci found
 * the read past it). */
Test(aci_parse, escaped_list_reads_the_value_only)
{
    static const char v[] = "(version 3.0; acl \"f\"; allow (all) "
                            "groupdn=\"ldap:///cn=g,d\\=example,dc=com\";)";
    size_t n = sizeof v - 1;
    char *exact = malloc(n);
    struct acreI_aci a;
    acre_diag d;

    cr_assert_not_null(exact);
    memcpy(exact, v, n);
    int rc = acreA_parse_value(ctx, NULL, holder, 0, exact, n, ACREI_ACI_389,
                               &at, &a, &d);
    cr_expect(rc == 0 || rc == ACRE_ERR_RULE_SYNTAX, "%d", rc);
    int again = acreA_parse_value(ctx, NULL, holder, 0, v, n, ACREI_ACI_389,
                                  &at, &a, &d);
    cr_expect_eq(rc, again, "the same value, NUL after it or not");
    free(exact);
}

Test(aci_parse, nul_and_limits)
{
    struct acreI_aci a;
    acre_diag d;
    char nul[] = "(version 3.0; acl \"a\";\0 allow (read) userdn=\"ldap:///"
                 "all\";)";

    cr_assert_eq(acreA_parse_value(ctx, NULL, holder, 0, nul, sizeof(nul) - 1,
                                   ACREI_ACI_389, &at, &a, &d),
                 ACRE_ERR_RULE_SYNTAX);
    cr_assert_eq(d.offset, 22);

    /* nesting past ACREA_MAX_DEPTH */
    char *deep = talloc_strdup(ctx, "(version 3.0; acl \"a\"; allow (read) ");
    for (int i = 0; i < ACREA_MAX_DEPTH + 1; i++)
        deep = talloc_strdup_append(deep, "not (");
    deep = talloc_strdup_append(deep, "ssf>=\"1\"");
    for (int i = 0; i < ACREA_MAX_DEPTH + 1; i++)
        deep = talloc_strdup_append(deep, ")");
    deep = talloc_strdup_append(deep, ";)");
    cr_assert_eq(parse_v(deep, ACREI_ACI_389, &a, &d), ACRE_ERR_RULE_LIMIT);

    /* just under the nesting bound is fine */
    char *fine = talloc_strdup(ctx, "(version 3.0; acl \"a\"; allow (read) ");
    for (int i = 0; i < 10; i++)
        fine = talloc_strdup_append(fine, "not (");
    fine = talloc_strdup_append(fine, "ssf>=\"1\"");
    for (int i = 0; i < 10; i++)
        fine = talloc_strdup_append(fine, ")");
    fine = talloc_strdup_append(fine, ";)");
    cr_assert_eq(parse_v(fine, ACREI_ACI_389, &a, &d), 0, "%s", d.message);

    /* too many terms */
    char *many = talloc_strdup(ctx, "(version 3.0; acl \"a\"; allow (read) "
                                    "ssf>=\"1\"");
    for (int i = 0; i < ACREA_MAX_TERMS; i++)
        many = talloc_strdup_append(many, " or ssf>=\"1\"");
    many = talloc_strdup_append(many, ";)");
    cr_assert_eq(parse_v(many, ACREI_ACI_389, &a, &d), ACRE_ERR_RULE_LIMIT);

    /* too long */
    size_t n = ACREA_MAX_VALUE + 1;
    char *big = talloc_size(ctx, n);
    memset(big, ' ', n);
    cr_assert_eq(acreA_parse_value(ctx, NULL, holder, 0, big, n, ACREI_ACI_389,
                                   &at, &a, &d),
                 ACRE_ERR_RULE_LIMIT);
}

Test(aci_parse, no_leak_on_error)
{
    void *c = talloc_new(ctx);
    struct acreI_aci a;
    acre_diag d;
    const char *s = "(targetattr=\"cn\")(targetfilter=\"(cn=a)\")(version "
                    "3.0; acl \"a\"; allow (read) userdn=\"ldap:///all\" "
                    "and color=\"red\";)";

    cr_assert_eq(acreA_parse_value(c, NULL, holder, 0, s, strlen(s),
                                   ACREI_ACI_389, NULL, &a, &d),
                 ACRE_ERR_RULE_SYNTAX);
    cr_assert_eq(talloc_total_blocks(c), 1);
    cr_assert_eq(d.column, 0);
    cr_assert_null(d.file);
}

/* ------------------------------------------------------------------------
 * LDIF files
 */
Test(aci_parse, ldif_file)
{
    const char *ldif =
        "version: 1\n"
        "\n"
        "dn: dc=example,dc=com\n"
        "objectClass: domain\n"
        "aci: (targetattr=\"*\")(version 3.0; acl \"r\"; allow (read,search) "
        "userdn=\"ldap:///anyone\";)\n"
        "aci: (version 3.0; acl \"f\"; allow (write)\n"
        "  userdn=\"ldap:///self\";)\n"
        "\n"
        "dn: ou=people,dc=example,dc=com\n"
        "ou: people\n"
        "aci:: KHZlcnNpb24gMy4wOyBhY2wgImI2NCI7IGRlbnkgKGFsbCkgdXNlcmRuPSJs"
        "ZGFwOi8vL2FueW9uZSI7KQ==\n";
    struct acreI_policy *ir = NULL;
    acre_diag d;

    cr_assert_eq(acreA_parse_ldif(ctx, NULL, "f.ldif", ldif, strlen(ldif),
                                  ACREI_ACI_389, &ir, &d),
                 0, "%s", d.message);
    cr_assert_eq(ir->magic, ACREI_POLICY_MAGIC);
    cr_assert_eq(ir->model, ACREI_MODEL_ACI);
    cr_assert_not_null(ir->schema);
    cr_assert_eq(ir->aci->variant, ACREI_ACI_389);
    cr_assert_eq(ir->aci->n, 3);
    cr_assert_str_eq(ir->aci->acis[0].name, "r");
    cr_assert_eq(ir->aci->acis[0].pos.line, 5);
    cr_assert_eq(ir->aci->acis[0].pos.column, 6);
    cr_assert_eq(ir->aci->acis[1].value_index, 1);
    cr_assert_eq(ir->aci->acis[1].perms[0].bind->terms[0].kind,
                 ACREI_ACI_S_SELF);
    cr_assert_str_eq(ir->aci->acis[2].name, "b64");
    cr_assert_eq(ir->aci->acis[2].value_index, 0);
    cr_assert_str_eq(acreD_norm(ir->aci->acis[2].holder),
                     "ou=people,dc=example,dc=com");
    cr_assert_eq(ir->aci->acis[2].perms[0].deny, 1);
}

Test(aci_parse, ldif_error_position_past_fold)
{
    const char *ldif = "dn: dc=example,dc=com\n"
                       "aci: (version 3.0; acl \"f\"; allow (write)\n"
                       "  userdn=\"ldap:///self\" and color=\"red\";)\n";
    struct acreI_policy *ir = NULL;
    acre_diag d;

    cr_assert_eq(acreA_parse_ldif(ctx, NULL, "f.ldif", ldif, strlen(ldif),
                                  ACREI_ACI_389, &ir, &d),
                 ACRE_ERR_RULE_SYNTAX);
    cr_assert_null(ir);
    cr_assert_str_eq(d.file, "f.ldif");
    cr_assert_eq(d.line, 3);
    /* the continuation line: " " + " userdn=..." ; 'color' at column 29 */
    cr_assert_eq(d.column, 29, "column %u: %s", d.column, d.message);
    cr_assert(strstr(d.message, "entry 'dc=example,dc=com', aci value 1"), "%s",
              d.message);
}

Test(aci_parse, ldif_target_outside_holder)
{
    const char *ldif = "dn: ou=people,dc=example,dc=com\n"
                       "aci: (target=\"ldap:///ou=groups,dc=example,dc=com\")"
                       "(version 3.0; acl \"x\"; allow (read) userdn="
                       "\"ldap:///anyone\";)\n";
    struct acreI_policy *ir = NULL;
    acre_diag d;

    cr_assert_eq(acreA_parse_ldif(ctx, NULL, "f.ldif", ldif, strlen(ldif),
                                  ACREI_ACI_389, &ir, &d),
                 ACRE_ERR_RULE_SYNTAX);
    cr_assert_eq(d.line, 2);
    cr_assert_eq(d.column, 15);
    /* 389 checks the target alone: target_to / target_from may name
     * another subtree (a move's destination usually does) */
    ldif = "dn: ou=people,dc=example,dc=com\n"
           "aci: (target_to=\"ldap:///ou=groups,dc=example,dc=com\")"
           "(target_from=\"ldap:///ou=old,dc=example,dc=com\")"
           "(version 3.0; acl \"x\"; allow (moddn) userdn="
           "\"ldap:///anyone\";)\n";
    cr_assert_eq(acreA_parse_ldif(ctx, NULL, "f.ldif", ldif, strlen(ldif),
                                  ACREI_ACI_389, &ir, &d),
                 0, "%s", d.message);
}

Test(aci_parse, ldif_errors_pass_through)
{
    const char *ldif = "dn: dc=example,dc=com\nchangetype: modify\n";
    struct acreI_policy *ir = NULL;
    acre_diag d;

    cr_assert_lt(acreA_parse_ldif(ctx, NULL, "f.ldif", ldif, strlen(ldif),
                                  ACREI_ACI_389, &ir, &d),
                 0);
    cr_assert_null(ir);
    cr_assert_eq(
        acreA_parse_ldif(ctx, NULL, "e.ldif", "", 0, ACREI_ACI_OPENDJ, &ir, &d),
        0);
    cr_assert_eq(ir->aci->n, 0);
    cr_assert_eq(ir->aci->variant, ACREI_ACI_OPENDJ);
}

/* ------------------------------------------------------------------------
 * Out of memory: every allocation refused in turn gives ACRE_ERR_NOMEM
 * and leaves nothing behind, or the same result as without failures.
 */
#if ALLOC_HOOK
static const char oom_value[] =
    "(target=\"ldap:///uid=*,($dn),dc=example,dc=com\")(targetattr=\"cn || "
    "sn\")(targetfilter=\"(objectClass=*)\")(targattrfilters=\"add=cn:"
    "(cn=a*)\")(version 3.0; acl \"o\"; allow (read) groupdn=\"ldap:///"
    "cn=g,[$dn],dc=example,dc=com\" or userdn=\"ldap:///ou=p,dc=example,"
    "dc=com??sub?(cn=x) || ldap:///uid=a*,dc=example,dc=com\"; deny (write) "
    "ip=\"10.*,::1\" and dayofweek=\"mon\" and not userattr=\"parent[1]."
    "manager#USERDN\";)";

Test(aci_parse, oom_sweep_value)
{
    struct acreI_aci a;
    acre_diag d;
    unsigned long n;

    cr_assert_eq(acreA_parse_value(ctx, NULL, holder, 0, oom_value,
                                   strlen(oom_value), ACREI_ACI_389, &at, &a,
                                   &d),
                 0, "%s", d.message);
    for (n = 1; n < 10000; n++) {
        long live = alloc_live();
        alloc_fail_after(n);
        int rc =
            acreA_parse_value(ctx, NULL, holder, 0, oom_value,
                              strlen(oom_value), ACREI_ACI_389, &at, &a, &d);
        alloc_fail_after(0);
        if (rc == 0)
            break;
        cr_assert_eq(rc, ACRE_ERR_NOMEM, "n=%lu rc=%d %s", n, rc, d.message);
        cr_assert_eq(alloc_live(), live, "n=%lu leaked", n);
        cr_assert_eq(a.nperms, 0);
    }
    cr_assert_lt(n, 10000);
    cr_assert_eq(a.nperms, 2);
}

Test(aci_parse, oom_sweep_ldif)
{
    const char *ldif = "dn: dc=example,dc=com\n"
                       "aci: (targetattr=\"*\")(version 3.0; acl \"r\"; allow "
                       "(read) userdn=\"ldap:///anyone\";)\n"
                       "aci: (version 3.0; acl \"s\"; allow (write) userdn="
                       "\"ldap:///self\";)\n";
    struct acreI_policy *ir = NULL;
    acre_diag d;
    unsigned long n;

    for (n = 1; n < 10000; n++) {
        long live = alloc_live();
        alloc_fail_after(n);
        int rc = acreA_parse_ldif(ctx, NULL, "o.ldif", ldif, strlen(ldif),
                                  ACREI_ACI_389, &ir, &d);
        alloc_fail_after(0);
        if (rc == 0)
            break;
        cr_assert_eq(rc, ACRE_ERR_NOMEM, "n=%lu rc=%d %s", n, rc, d.message);
        cr_assert_eq(alloc_live(), live, "n=%lu leaked", n);
        cr_assert_null(ir);
    }
    cr_assert_lt(n, 10000);
    cr_assert_eq(ir->aci->n, 2);
}
#endif
