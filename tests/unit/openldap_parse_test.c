/*
 * openldap_parse_test.c -- unit tests of the OpenLDAP rule front end
 * (compiler/openldap_*.c): every <what>, <who>, <access> and <control>
 * form into the tree, slapd's quirks that the tree keeps, every refusal
 * with its line and column, slapd.conf lexing (continuations, quotes,
 * comments, includes), the mask arithmetic and printing, $-expansion,
 * set expressions, LDAP URLs, the POSIX-to-PCRE2 regex translation and
 * the dump.  cn=config input is in openldap_cnconfig_test.c.
 *
 * Which inputs slapd 2.5.13 accepts was checked with its slaptest on this
 * machine; the expectations below are slapd's answers.
 */
#include <criterion/criterion.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <talloc.h>
#include <unistd.h>

#include "acre.h"
#include "openldap.h"
#include "openldap_int.h"
#include "schema.h"
#include "url.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------------------
 * Helpers
 */

static void *ctx;

static void
setup(void)
{
    ctx = talloc_new(NULL);
}

static void
teardown(void)
{
    talloc_free(ctx); /* leaks elsewhere: LeakSanitizer in sanitizer builds */
}

TestSuite(openldap_parse, .init = setup, .fini = teardown);

/* Parse a slapd.conf text; NULL on error (diag filled). */
static struct acreI_policy *
conf(const char *text, acre_diag *d)
{
    struct acreI_policy *cfg = NULL;
    acre_diag local;

    if (!d)
        d = &local;
    memset(d, 0, sizeof(*d));
    int rc = acreO_parse_conf(ctx, NULL, "t.conf", text, strlen(text), &cfg, d);
    return rc ? NULL : cfg;
}

static struct acreI_policy *
conf_ok(const char *text)
{
    acre_diag d;
    struct acreI_policy *cfg = conf(text, &d);
    cr_assert(cfg, "refused: %s:%u:%u: %s\n%s", d.file, d.line, d.column,
              d.message, text);
    return cfg;
}

/* The only rule of "access <rest>" in the global section. */
static const struct acreI_rule *
rule(const char *rest)
{
    char *text = talloc_asprintf(ctx, "access %s\n", rest);
    struct acreI_policy *cfg = conf_ok(text);
    cr_assert_eq(cfg->frontend.nrules, 1);
    return &cfg->frontend.rules[0];
}

static const struct acreI_clause *
by1(const char *rest)
{
    const struct acreI_rule *r = rule(rest);
    cr_assert_geq(r->nby, 1);
    return &r->by[0];
}

static const char *
norm(const acre_dn *dn)
{
    return dn ? acre_dn_normalised(dn, NULL) : "(null)";
}

static int
attr_id(const char *name)
{
    return acreS_attr_find(acreS_builtin(), name, strlen(name));
}

static int
class_id(const char *name)
{
    return acreS_class_find(acreS_builtin(), name, strlen(name));
}

/* ------------------------------------------------------------------------
 * <what>
 */

Test(openldap_parse, what_dn_styles)
{
    static const struct {
        const char *what;
        enum acreI_dnstyle style;
        const char *dn;
    } t[] = {
        {"*", ACREI_DN_ANY, NULL},
        {"dn=\"cn=A,dc=X\"", ACREI_DN_BASE, "cn=a,dc=x"},
        {"dn.exact=cn=a,dc=x", ACREI_DN_BASE, "cn=a,dc=x"},
        {"dn.base=\"cn=a, dc=x\"", ACREI_DN_BASE, "cn=a,dc=x"},
        {"dn.baseObject=dc=x", ACREI_DN_BASE, "dc=x"},
        {"DN.ONE=dc=x", ACREI_DN_ONE, "dc=x"},
        {"dn.onelevel=dc=x", ACREI_DN_ONE, "dc=x"},
        {"dn.sub=dc=x", ACREI_DN_SUBTREE, "dc=x"},
        {"dn.subtree=dc=x", ACREI_DN_SUBTREE, "dc=x"},
        {"dn.children=dc=x", ACREI_DN_CHILDREN, "dc=x"},
        {"dn.subtree=\"\"", ACREI_DN_ANY, NULL},
        {"dn.base=\"\"", ACREI_DN_BASE, ""},
        {"dn.one=\"\"", ACREI_DN_ONE, ""},
        {"dn.regex=\"\"", ACREI_DN_BASE, ""},
        {"dn.regex=.*", ACREI_DN_ANY, NULL},
        {"dn.regex=^.*$$", ACREI_DN_ANY, NULL},
        {"dn.regex=*", ACREI_DN_ANY, NULL},
        {"dn.regex=\"^cn=[^,]+, dc=x$\"", ACREI_DN_REGEX, NULL},
        {"filter=(cn=x)", ACREI_DN_ANY, NULL},
    };

    for (size_t i = 0; i < NELEM(t); i++) {
        char *s = talloc_asprintf(ctx, "to %s by * read", t[i].what);
        const struct acreI_rule *r = rule(s);
        cr_expect_eq(r->what.dn_style, t[i].style, "%s: style %d", t[i].what,
                     r->what.dn_style);
        if (t[i].dn)
            cr_expect_str_eq(norm(r->what.dn), t[i].dn, "%s", t[i].what);
    }
    /* slapd's space folding after commas of DN regexes */
    const struct acreI_rule *r = rule("to dn.regex=\"^cn=[^,]+, dc=x$\" by * "
                                      "read");
    cr_expect_str_eq(acreI_dn_re(&r->what)->pattern, "^cn=[^,]+,dc=x$");
    cr_expect(acreI_dn_re(&r->what)->code != NULL);
}

Test(openldap_parse, what_filter_attrs)
{
    const struct acreI_rule *r =
        rule("to filter=\"(objectClass=person)\" attrs=cn,-sn,@posixAccount,"
             "!person,entry,children,cn;lang-en,groupOfNames by * read");
    const struct acreI_what *w = &r->what;
    cr_assert(w->filter != NULL);
    cr_expect_str_eq(w->filter_text, "(objectClass=person)");
    cr_assert(w->has_attrs);
    cr_assert_eq(w->nattrs, 8);
    cr_expect_eq(w->attrs[0].kind, ACREI_ATTR_TYPE);
    cr_expect_eq(w->attrs[0].type, attr_id("cn"));
    cr_expect_eq(w->attrs[1].kind, ACREI_ATTR_EXACT);
    cr_expect_eq(w->attrs[1].type, attr_id("sn"));
    cr_expect_eq(w->attrs[2].kind, ACREI_ATTR_CLASS);
    cr_expect_eq(w->attrs[2].oc, class_id("posixAccount"));
    cr_expect_eq(w->attrs[3].kind, ACREI_ATTR_NOT_CLASS);
    cr_expect_eq(w->attrs[3].oc, class_id("person"));
    cr_expect_eq(w->attrs[4].type, attr_id("entry"));
    cr_expect_eq(w->attrs[5].type, attr_id("children"));
    cr_expect_eq(w->attrs[6].nopts, 1);
    cr_expect_str_eq(w->attrs[6].opts[0], "lang-en");
    cr_expect_eq(w->attrs[7].kind, ACREI_ATTR_CLASS); /* bare class name */
    /* attrs lists add up; "attr" is tolerated with a note */
    struct acreI_policy *cfg =
        conf_ok("access to attr=cn attrs=sn by * read\n");
    cr_expect_eq(cfg->frontend.rules[0].what.nattrs, 2);
    cr_expect_eq(cfg->nnotes, 1);
    /* an empty list is a list that holds nothing */
    r = rule("to attrs=, by * read");
    cr_expect(r->what.has_attrs);
    cr_expect_eq(r->what.nattrs, 0);
    r = rule("to attrs=@extensibleObject by * read");
    cr_expect(r->what.attrs[0].extensible);
}

/* Does the attrs= list of "access to attrs=<list>" take the description
 * type[;opt] (opt NULL: none) in mode m? */
static int
takes(const char *list, const char *type, const char *opt,
      enum acreI_opts_mode m)
{
    const struct acreI_rule *r =
        rule(talloc_asprintf(ctx, "to attrs=%s by * read", list));
    uint32_t len = opt ? (uint32_t)strlen(opt) : 0;
    struct acreI_desc d = {attr_id(type), opt ? 1 : 0, &opt, &len};

    return acreI_attrs_take(acreS_builtin(), &r->what, &d, m);
}

/* The one attrs= test that evaluation (KNOWN), the tables (KNOWN, no
 * options) and lint (SOME_WIDE / SOME_NARROW) share. */
Test(openldap_parse, attrs_take_modes)
{
    const enum acreI_opts_mode K = ACREI_OPTS_KNOWN, W = ACREI_OPTS_SOME_WIDE,
                               N = ACREI_OPTS_SOME_NARROW;
    /* a type with options: its subtypes with at least those options */
    cr_expect(!takes("name;lang-en", "cn", NULL, K));
    cr_expect(takes("name;lang-en", "cn", "lang-en", K));
    cr_expect(takes("name;lang-en", "name", "lang-en", K));
    cr_expect(!takes("name;lang-en", "cn", "lang-fr", K));
    cr_expect(takes("name;lang-en-", "cn", "lang-en-us", K));
    cr_expect(takes("name;lang-en", "cn", NULL, W));
    cr_expect(!takes("name;lang-en", "cn", NULL, N));
    /* a type without options: subtypes, with or without options */
    cr_expect(takes("name", "cn", NULL, K));
    cr_expect(takes("name", "cn", "lang-en", K));
    cr_expect(takes("name", "cn", NULL, W));
    cr_expect(takes("name", "cn", NULL, N));
    /* "-type": that description exactly, no subtypes */
    cr_expect(takes("-sn", "sn", NULL, K));
    cr_expect(!takes("-sn", "sn", "lang-en", K));
    cr_expect(!takes("-name", "cn", NULL, K));
    cr_expect(!takes("-sn", "sn", NULL, W));
    cr_expect(!takes("-sn", "sn", NULL, N));
    cr_expect(takes("-sn;lang-en", "sn", "lang-en", K));
    cr_expect(!takes("-sn;lang-en", "sn", NULL, K));
    cr_expect(takes("-sn;lang-en", "sn", NULL, W));
    cr_expect(!takes("-sn;lang-en", "sn", NULL, N));
    cr_expect(!takes("-name;lang-en", "cn", NULL, W));
    /* classes: "@oc" what it allows; "!oc" decides at once */
    cr_expect(takes("@person", "sn", "lang-en", K));
    cr_expect(takes("@person", "sn", NULL, N));
    cr_expect(!takes("@person", "uid", NULL, K));
    cr_expect(takes("!person,uid", "uid", NULL, K));
    cr_expect(!takes("!person,uid", "cn", NULL, K));
    cr_expect(takes("cn,!person", "cn", NULL, K));
    cr_expect(!takes("!person", "cn", NULL, W));
}

Test(openldap_parse, what_val)
{
    const struct acreI_rule *r = rule("to attrs=cn val=\"Mark  A Elliot\" by "
                                      "* read");
    cr_expect_eq(acreI_val(&r->what)->style, ACREI_VAL_EXACT);
    cr_expect_str_eq((const char *)acreI_val(&r->what)->norm, "mark a elliot");
    r = rule("to attrs=cn val/caseExactMatch=\"Mark\" by * read");
    cr_expect_str_eq((const char *)acreI_val(&r->what)->norm, "Mark");
    r = rule("to attrs=cn val.regex=\"^John D.+\" by * read");
    cr_expect_eq(acreI_val(&r->what)->style, ACREI_VAL_REGEX);
    cr_expect_str_eq(acreI_val(&r->what)->re.pattern, "^John D.+");
    /* one class is a single attribute to slapd too, for val.regex */
    static const char *const cls[] = {"@person", "!person", "person"};
    for (size_t i = 0; i < NELEM(cls); i++) {
        char *s = talloc_asprintf(ctx, "to attrs=%s val.regex=ou=x by * read",
                                  cls[i]);
        r = rule(s);
        cr_expect_eq(acreI_val(&r->what)->style, ACREI_VAL_REGEX, "%s", s);
        cr_expect_str_eq(acreI_val(&r->what)->re.pattern, "ou=x");
    }

    static const struct {
        const char *style;
        enum acreI_valstyle v;
    } dn[] = {{"", ACREI_VAL_EXACT},
              {".exact", ACREI_VAL_EXACT},
              {".base", ACREI_VAL_EXACT},
              {".baseObject", ACREI_VAL_EXACT},
              {".one", ACREI_VAL_ONE},
              {".onelevel", ACREI_VAL_ONE},
              {".sub", ACREI_VAL_SUBTREE},
              {".subtree", ACREI_VAL_SUBTREE},
              {".children", ACREI_VAL_CHILDREN}};

    for (size_t i = 0; i < NELEM(dn); i++) {
        char *s = talloc_asprintf(ctx,
                                  "to attrs=member val%s=\"CN=X, "
                                  "DC=Y\" by * read",
                                  dn[i].style);
        r = rule(s);
        cr_expect_eq(acreI_val(&r->what)->style, dn[i].v, "val%s", dn[i].style);
        cr_expect(acreI_val(&r->what)->dn_syntax);
        cr_expect_str_eq(norm(acreI_val(&r->what)->dn), "cn=x,dc=y");
    }
}

/* ------------------------------------------------------------------------
 * <who>
 */

Test(openldap_parse, who_subjects)
{
    static const struct {
        const char *who;
        enum acreI_subject_kind kind;
        const char *dn;
        int level;
    } t[] = {
        {"*", ACREI_SUBJ_ANY, NULL, 0},
        {"anonymous", ACREI_SUBJ_ANONYMOUS, NULL, 0},
        {"users", ACREI_SUBJ_USERS, NULL, 0},
        {"self", ACREI_SUBJ_SELF, NULL, 0},
        {"self.level{2}", ACREI_SUBJ_SELF, NULL, 2},
        {"self.level{-1}", ACREI_SUBJ_SELF, NULL, -1},
        {"dn=\"CN=A,DC=X\"", ACREI_SUBJ_BASE, "cn=a,dc=x", 0},
        {"dn.exact=cn=a,dc=x", ACREI_SUBJ_BASE, "cn=a,dc=x", 0},
        {"dn.base=dc=x", ACREI_SUBJ_BASE, "dc=x", 0},
        {"dn.one=dc=x", ACREI_SUBJ_ONE, "dc=x", 0},
        {"dn.subtree=dc=x", ACREI_SUBJ_SUBTREE, "dc=x", 0},
        {"dn.children=dc=x", ACREI_SUBJ_CHILDREN, "dc=x", 0},
        {"dn.level{3}=dc=x", ACREI_SUBJ_LEVEL, "dc=x", 3},
        {"dn.expand=dc=x", ACREI_SUBJ_SUFFIX, "dc=x", 0},
        {"dn.regex=.*", ACREI_SUBJ_ANY, NULL, 0},
        {"dn.regex=\"^.*$\"", ACREI_SUBJ_ANY, NULL, 0},
    };

    for (size_t i = 0; i < NELEM(t); i++) {
        char *s = talloc_asprintf(ctx, "to * by %s read", t[i].who);
        const struct acreI_clause *b = by1(s);
        cr_expect_eq(b->dn.kind, t[i].kind, "%s: kind %d", t[i].who,
                     b->dn.kind);
        cr_expect_eq(b->dn.level, t[i].level, "%s", t[i].who);
        if (t[i].dn)
            cr_expect_str_eq(norm(b->dn.dn), t[i].dn, "%s", t[i].who);
        cr_expect_eq(acreI_rare(b)->realdn.kind, ACREI_SUBJ_NONE);
    }
}

/* slapd 2.5 keeps "users" / "anonymous" as regex text for these. */
Test(openldap_parse, who_regex_quirks)
{
    static const struct {
        const char *who, *pattern;
    } t[] = {{"dn.regex=.+", "users"},
             {"dn.regex=\"^.+$$\"", "users"},
             {"dn.regex=*", "users"},
             {"dn.regex", "users"},
             {"dn.regex=\"\"", "anonymous"},
             {"dn.regex=\"^cn=x, dc=y$\"", "^cn=x,dc=y$"}};

    for (size_t i = 0; i < NELEM(t); i++) {
        char *s = talloc_asprintf(ctx, "to * by %s read", t[i].who);
        const struct acreI_clause *b = by1(s);
        cr_expect_eq(b->dn.kind, ACREI_SUBJ_REGEX, "%s", t[i].who);
        cr_expect_str_eq(acreI_pat(&b->dn)->re_tmpl.tmpl, t[i].pattern, "%s",
                         t[i].who);
        cr_expect(acreI_pat(&b->dn)->re.code != NULL, "%s: compiled", t[i].who);
    }
    /* with substitutions the regex is compiled per check */
    const struct acreI_clause *b =
        rule("to dn.regex=\"^cn=([^,]+),dc=x$\" by dn.regex=\"^uid=$1,dc=x$$\" "
             "read")
            ->by;
    cr_expect(acreI_pat(&b->dn)->re_tmpl.expands);
    cr_expect(acreI_pat(&b->dn)->re.code == NULL);
}

Test(openldap_parse, who_expand_real_dnattr)
{
    const struct acreI_clause *b =
        by1("to dn.regex=(.*) by dn.subtree,expand=\"$1\" read");
    cr_expect_eq(b->dn.kind, ACREI_SUBJ_SUBTREE);
    cr_expect(b->dn.is_expand);
    cr_expect_str_eq(acreI_pat(&b->dn)->expand.tmpl, "$1");
    b = by1("to * by realdn.children=dc=x realdnattr=member dnattr=owner "
            "read");
    cr_expect_eq(b->dn.kind, ACREI_SUBJ_NONE);
    cr_expect_eq(acreI_rare(b)->realdn.kind, ACREI_SUBJ_CHILDREN);
    cr_assert(acreI_rare(b)->realdn.dnattr && b->dn.dnattr);
    cr_expect_eq(acreI_rare(b)->realdn.dnattr->type, attr_id("member"));
    cr_expect_eq(b->dn.dnattr->type, attr_id("owner"));
    b = by1("to * by realanonymous read");
    cr_expect_eq(acreI_rare(b)->realdn.kind, ACREI_SUBJ_ANONYMOUS);
    b = by1("to * by realself read");
    cr_expect_eq(acreI_rare(b)->realdn.kind, ACREI_SUBJ_SELF);
}

Test(openldap_parse, who_group)
{
    const struct acreI_clause *b = by1("to * by group=\"cn=G,dc=x\" read");
    cr_assert(acreI_group(b));
    cr_expect_str_eq(norm(acreI_group(b)->dn), "cn=g,dc=x");
    cr_expect_eq(acreI_group(b)->oc, class_id("groupOfNames"));
    cr_expect_eq(acreI_group(b)->at.type, attr_id("member"));
    cr_expect(!acreI_group(b)->dynamic && !acreI_group(b)->expand);
    b = by1("to * by group/groupOfUniqueNames/uniqueMember.exact=\"cn=g,dc=x\" "
            "read");
    cr_expect_eq(acreI_group(b)->oc, class_id("groupOfUniqueNames"));
    cr_expect_eq(acreI_group(b)->at.type, attr_id("uniqueMember"));
    b = by1("to * by group/groupOfURLs/memberURL=\"cn=g,dc=x\" read");
    cr_expect(acreI_group(b)->dynamic);
    b = by1("to dn.regex=^(.*)$ by group.expand=\"cn=$1\" read");
    cr_expect(acreI_group(b)->expand);
    cr_expect_str_eq(acreI_group(b)->tmpl.tmpl, "cn=$1");
    b = by1("to * by group.regex=\"cn=g\" read"); /* legacy, noted */
    cr_expect(acreI_group(b)->expand);
}

Test(openldap_parse, who_set)
{
    const struct acreI_clause *b =
        by1("to * by set=\"[cn=a,dc=x]/member* & user\" write");
    cr_assert(acreI_set(b) && acreI_set(b)->root);
    const struct acreI_setnode *n = acreI_set(b)->root;
    cr_expect_eq(n->op, ACREI_SET_INTERSECT);
    cr_expect_eq(n->kid[0]->op, ACREI_SET_ATTR);
    cr_expect(n->kid[0]->closure);
    cr_expect_eq(n->kid[0]->kid[0]->op, ACREI_SET_LITERAL);
    cr_expect_eq(n->kid[1]->op, ACREI_SET_USER);
    /* slapd only finds a bad set per check: accepted, never matches */
    struct acreI_policy *cfg = conf_ok("access to * by set=\"this/\" read\n");
    cr_expect(acreI_set(&cfg->frontend.rules[0].by[0])->invalid);
    cr_expect_eq(cfg->nnotes, 1);
    b = by1("to * by set.expand=\"[$0]/member\" read");
    cr_expect(acreI_set(b)->expand && !acreI_set(b)->root);
}

Test(openldap_parse, who_connection)
{
    const struct acreI_clause *b =
        by1("to * by peername.ip=10.1.0.0%255.255.0.0{389} read");
    cr_expect_eq(acreI_rare(b)->peername.style, ACREI_STR_IP);
    cr_expect_eq(acreI_rare(b)->peername.port, 389);
    cr_expect_eq(memcmp(acreI_rare(b)->peername.addr, "\x0a\x01\x00\x00", 4),
                 0);
    cr_expect_eq(memcmp(acreI_rare(b)->peername.mask, "\xff\xff\x00\x00", 4),
                 0);
    b = by1("to * by peername.ipv6=::1 read");
    cr_expect_eq(acreI_rare(b)->peername.style, ACREI_STR_IPV6);
    cr_expect_eq(acreI_rare(b)->peername.port, -1);
    cr_expect_eq(acreI_rare(b)->peername.addr[15], 1);
    b = by1("to * by peername.path=/run/ldapi sockname=x sockurl.regex="
            "^ldapi: domain.subtree,expand=$1.org read");
    cr_expect_eq(acreI_rare(b)->peername.style, ACREI_STR_PATH);
    cr_expect_eq(acreI_rare(b)->sockname.style, ACREI_STR_EXACT);
    cr_expect_eq(acreI_rare(b)->sockurl.style, ACREI_STR_REGEX);
    cr_expect_eq(acreI_rare(b)->domain.style, ACREI_STR_SUBTREE);
    cr_expect(acreI_rare(b)->domain.expand);
    b = by1("to * by peername.regex=* domain.expand=x read");
    cr_expect(acreI_rare(b)->peername.any);
    cr_expect_eq(acreI_rare(b)->domain.style, ACREI_STR_EXACT);
    cr_expect(acreI_rare(b)->domain.expand);
    /* slapd never refuses an IPv4 address: all ones when it is not one */
    b = by1("to * by peername.ip=1.2.3.x read");
    cr_expect_eq(memcmp(acreI_rare(b)->peername.addr, "\xff\xff\xff\xff", 4),
                 0);
    b = by1("to * by ssf=128 transport_ssf=1 tls_ssf=2 sasl_ssf=3 read");
    cr_expect(b->ssf == 128 && acreI_rare(b)->transport_ssf == 1 &&
              acreI_rare(b)->tls_ssf == 2 && acreI_rare(b)->sasl_ssf == 3);
    /* lutil_atou reads them with strtoul: leading blanks and '+' */
    b = by1("to * by ssf=+128 tls_ssf=\" 7\" sasl_ssf=\"\t+3\" read");
    cr_expect(b->ssf == 128 && acreI_rare(b)->tls_ssf == 7 &&
              acreI_rare(b)->sasl_ssf == 3);
}

/* ------------------------------------------------------------------------
 * <access> and <control>
 */

Test(openldap_parse, access_and_control)
{
    static const struct {
        const char *by;
        uint32_t mask;
        enum acreI_control ctl;
        int self;
    } t[] = {
        {"* read", ACREI_LVL_READ, ACREI_STOP, 0},
        {"* none", ACREI_LVL_NONE, ACREI_STOP, 0},
        {"* disclose", ACREI_LVL_DISCLOSE, ACREI_STOP, 0},
        {"* auth", ACREI_LVL_AUTH, ACREI_STOP, 0},
        {"* compare", ACREI_LVL_COMPARE, ACREI_STOP, 0},
        {"* search", ACREI_LVL_SEARCH, ACREI_STOP, 0},
        {"* add", ACREI_LVL_WADD, ACREI_STOP, 0},
        {"* delete", ACREI_LVL_WDEL, ACREI_STOP, 0},
        {"* write", ACREI_LVL_WRITE, ACREI_STOP, 0},
        {"* MANAGE", ACREI_LVL_MANAGE, ACREI_STOP, 0},
        {"* =rsc",
         ACREI_PRIV_NONE | ACREI_PRIV_READ | ACREI_PRIV_SEARCH |
             ACREI_PRIV_COMPARE,
         ACREI_STOP, 0},
        {"* +w continue", ACREI_PRIV_ADDITIVE | ACREI_PRIV_WRITE,
         ACREI_CONTINUE, 0},
        {"* -az break", ACREI_PRIV_SUBTRACT | ACREI_PRIV_WRITE, ACREI_BREAK, 0},
        {"* =0 stop", ACREI_PRIV_NONE, ACREI_STOP, 0},
        {"* selfwrite", ACREI_LVL_WRITE, ACREI_STOP, 1},
        {"* self+w", ACREI_PRIV_ADDITIVE | ACREI_PRIV_WRITE, ACREI_STOP, 1},
        {"*", ACREI_PRIV_ADDITIVE | ACREI_PRIV_NONE, ACREI_STOP, 0},
        {"* continue", ACREI_PRIV_ADDITIVE | ACREI_PRIV_NONE, ACREI_CONTINUE,
         0},
        {"* break", ACREI_PRIV_ADDITIVE | ACREI_PRIV_NONE, ACREI_BREAK, 0},
        {"* stop", ACREI_PRIV_ADDITIVE | ACREI_PRIV_NONE, ACREI_STOP, 0},
        {"* realread", ACREI_LVL_READ, ACREI_STOP, 0}, /* "real" dropped */
    };

    for (size_t i = 0; i < NELEM(t); i++) {
        char *s = talloc_asprintf(ctx, "to * by %s", t[i].by);
        const struct acreI_clause *b = by1(s);
        cr_expect_eq(b->mask, t[i].mask, "%s: mask %#x", t[i].by, b->mask);
        cr_expect_eq(b->control, t[i].ctl, "%s", t[i].by);
        cr_expect_eq(b->dn.self, t[i].self, "%s", t[i].by);
    }
    /* no <who> at all: the clause matches everyone */
    const struct acreI_clause *b = by1("to * by read");
    cr_expect_eq(b->dn.kind, ACREI_SUBJ_NONE);
    cr_expect_eq(b->mask, ACREI_LVL_READ);
    /* "by" right after "by": +0 stop, then the next clause */
    const struct acreI_rule *r = rule("to * by by * read");
    cr_expect_eq(r->nby, 2);
    cr_expect_eq(r->by[0].mask, ACREI_PRIV_ADDITIVE | ACREI_PRIV_NONE);
    r = rule("to * by users read continue by * none");
    cr_expect_eq(r->nby, 2);
    cr_expect_eq(r->by[0].control, ACREI_CONTINUE);
}

Test(openldap_parse, mask_functions)
{
    char buf[ACRE_MASK_BUF];

    static const struct {
        uint32_t m;
        const char *s;
    } f[] = {
        {ACREI_LVL_READ, "read(=rscxd)"},
        {ACREI_LVL_AUTH, "auth(=xd)"},
        {ACREI_LVL_NONE, "none(=0)"},
        {ACREI_LVL_MANAGE, "manage(=mwrscxd)"},
        {ACREI_LVL_WADD, "add(=arscxd)"},
        {ACREI_LVL_WDEL, "delete(=zrscxd)"},
        {ACREI_PRIV_NONE, "=0"},
        {ACREI_PRIV_NONE | ACREI_PRIV_READ | ACREI_PRIV_SEARCH |
             ACREI_PRIV_COMPARE,
         "=rsc"},
        {ACREI_PRIV_ADDITIVE | ACREI_PRIV_WRITE, "+w"},
        {ACREI_PRIV_SUBTRACT | ACREI_PRIV_READ, "-r"},
        {0, "invalid"},
        {ACREI_PRIV_WDEL & ~0x040u, ""}, /* a bare qualifier: no letter */
    };

    for (size_t i = 0; i < NELEM(f); i++)
        cr_expect_str_eq(acreI_mask_format(f[i].m, buf), f[i].s, "%#x", f[i].m);
    cr_expect_eq(acreO_mask_parse("=", 1), ACREI_PRIV_NONE);
    cr_expect_eq(acreO_mask_parse("Read", 4), ACREI_LVL_READ);
    cr_expect_eq(acreO_mask_parse("=q", 2), 0u);
    cr_expect_eq(acreO_mask_parse("reads", 5), 0u);
    cr_expect_eq(acreO_mask_parse("", 0), 0u);
    /* apply: + and - keep only privileges, = replaces */
    uint32_t m =
        acreI_mask_apply(ACREI_LVL_READ, ACREI_PRIV_ADDITIVE | ACREI_PRIV_WADD);
    cr_expect_str_eq(acreI_mask_format(m, buf), "=arscxd");
    m = acreI_mask_apply(ACREI_LVL_WRITE,
                         ACREI_PRIV_SUBTRACT | ACREI_PRIV_WADD);
    /* slapd's shared write bit: taking "a" away takes "z" too */
    cr_expect_str_eq(acreI_mask_format(m, buf), "=rscxd");
    m = acreI_mask_apply(m, ACREI_LVL_SEARCH);
    cr_expect_eq(m, ACREI_LVL_SEARCH);
    cr_expect_eq(acreI_access_priv(ACREI_ACCESS_WRITE), ACREI_PRIV_WRITE);
    cr_expect_eq(acreI_access_priv((enum acreI_access)99), 0u);
}

/* ------------------------------------------------------------------------
 * Refusals, with line and column
 */

Test(openldap_parse, errors_with_position)
{
    static const struct {
        const char *text;
        unsigned line, col;
        const char *msg;
    } t[] = {
        {"access to * by * foo\n", 1, 18, "expecting <access>"},
        {"access to * by * =q\n", 1, 18, "expecting <access>"},
        {"access to *\n", 1, 12, "no by clause"},
        {"access by * read\n", 1, 8, "to clause required"},
        {"access to * to * by * read\n", 1, 13, "missing \"=\" in \"to\""},
        {"access\n", 1, 1, "no access clause"},
        {"access to * by\n", 1, 15, "premature EOL"},
        {"access to * foo by * read\n", 1, 13, "missing \"=\""},
        {"access to * * by * read\n", 1, 13, "dn pattern already"},
        {"access to dn=a=b dn=c=d by * read\n", 1, 18, "dn pattern already"},
        {"access to dn.foo=x by * read\n", 1, 14, "unknown dn style"},
        {"access to dn=x by * read\n", 1, 15, "bad DN"},
        {"access to dn=\" \" by * read\n", 1, 15, "bad DN"},
        {"access to dn=\"foo=x\" by * read\n", 1, 15, "bad DN"},
        {"access to dn.regex=\"(\" by * read\n", 1, 21, "regular expression"},
        {"access to filter=(cn=x by * read\n", 1, 23, "bad filter"},
        {"access to attrs=* by * read\n", 1, 17, "unknown attr"},
        {"access to attrs=cn,foo by * read\n", 1, 20, "unknown attr"},
        {"access to attrs=cn;x-foo by * read\n", 1, 17, "unknown attr"},
        {"access to val=x by * read\n", 1, 11, "single attribute"},
        {"access to attrs=cn,sn val=x by * read\n", 1, 23, "single"},
        {"access to attrs=cn val=x val=y by * read\n", 1, 26, "already"},
        {"access to attrs=@person val=x by * read\n", 1, 25,
         "takes only val.regex"},
        {"access to attrs=!person val.exact=x by * read\n", 1, 25,
         "takes only val.regex"},
        {"access to attrs=person val/caseExactMatch.regex=x by * read\n", 1, 24,
         "takes only val.regex"},
        {"access to attrs=@person,cn val.regex=x by * read\n", 1, 28, "single"},
        {"access to attrs=cn val/fooMatch=x by * read\n", 1, 24,
         "invalid matching rule"},
        {"access to attrs=cn val/integerMatch=3 by * read\n", 1, 24,
         "not appropriate"},
        {"access to attrs=cn val.subtree=x by * read\n", 1, 24,
         "unknown val.<style>"},
        {"access to attrs=member val.subtree=x by * read\n", 1, 37,
         "unable to normalize DN"},
        {"access to attrs=cn val.regex=( by * read\n", 1, 30, "regular"},
        {"access to foo=x by * read\n", 1, 11, "expecting <what>"},
        {"access to * by dn read\n", 1, 16, "missing \"=\""},
        {"access to * by dn=* read\n", 1, 19, "bad DN"},
        {"access to * by dn=\"\" read\n", 1, 16, "missing \"=\""},
        {"access to * by dn.foo=x read\n", 1, 19, "unknown style"},
        {"access to * by dn.level=x read\n", 1, 19, "unable to parse level"},
        {"access to * by dn.level{x}=x read\n", 1, 19, "unable to parse"},
        {"access to * by dn.level{}=x read\n", 1, 19, "empty level"},
        {"access to * by dn.level{1=x read\n", 1, 19, "expecting closing"},
        {"access to * by dn.level{-1}=dc=x read\n", 1, 19, "negative level"},
        {"access to * by dn.exact,expand=cn=x read\n", 1, 32, "expand"},
        {"access to * by dn.regex,expand=x read\n", 1, 19, "implies"},
        {"access to * by dn.regex=( read\n", 1, 25, "regular expression"},
        {"access to * by anonymous users read\n", 1, 26, "already"},
        {"access to * by real* read\n", 1, 16, "real"},
        {"access to * by group=x read\n", 1, 23, "bad DN"},
        {"access to * by group/foo=cn=x read\n", 1, 22, "unknown"},
        {"access to * by group//member=cn=x read\n", 1, 22, "missing"},
        {"access to * by group/groupOfNames/uid=cn=x read\n", 1, 16,
         "inappropriate syntax"},
        {"access to * by group/top=cn=x read\n", 1, 16, "not allowed"},
        {"access to * by group.subtree=cn=x read\n", 1, 22, "inappropriate"},
        {"access to * by dnattr=cn read\n", 1, 23, "inappropriate syntax"},
        {"access to * by dnattr=foo read\n", 1, 23, "undefined"},
        {"access to * by dnattr read\n", 1, 16, "missing"},
        {"access to * by ssf=0 read\n", 1, 20, "invalid ssf"},
        {"access to * by ssf=x read\n", 1, 20, "unable to parse ssf"},
        {"access to * by ssf=-1 read\n", 1, 20, "unable to parse ssf"},
        {"access to * by ssf=\" -1\" read\n", 1, 21, "unable to parse ssf"},
        {"access to * by ssf=\"1 \" read\n", 1, 21, "unable to parse ssf"},
        {"access to * by ssf=0x10 read\n", 1, 20, "unable to parse ssf"},
        {"access to * by ssf=4294967296 read\n", 1, 20, "unable to parse"},
        {"access to * by ssf.sub=1 read\n", 1, 20, "inappropriate"},
        {"access to * by ssf=1 ssf=2 read\n", 1, 22, "already"},
        {"access to * by peername.ip=1.2.3.4{x} read\n", 1, 35, "port"},
        {"access to * by peername.ipv6=zz read\n", 1, 30, "illegal"},
        {"access to * by peername.subtree=x read\n", 1, 25, "inappropriate"},
        {"access to * by domain.one=x read\n", 1, 23, "inappropriate"},
        {"access to * by sockname=x sockname=y read\n", 1, 27, "already"},
        {"access to * by set=\"\" read\n", 1, 16, "no set"},
        {"access to * by set.subtree=x read\n", 1, 20, "inappropriate"},
        {"access to * by dynacl/aci read\n", 1, 16, "not supported"},
        {"access to * by * read.x\n", 1, 23, "unknown style"},
        {"access to * by self.level read\n", 1, 21, "unable to parse"},
        {"access to * by anonymous.level{-1} read\n", 1, 26, "negative"},
        {"access to * by * read to *\n", 1, 23, "only one to"},
        {"access to * by self.foo read\n", 1, 21, "unknown style"},
        {"suffix dc=x\n", 1, 1, "only allowed within a database"},
        {"database mdb\nsuffix x\n", 2, 9, "suffix DN"},
        /* slapd's "extra cruft" (slaptest 2.5.13), at the first word too
         * many: the words after it were dropped before */
        {"database mdb extra\n", 1, 14, "<database> extra cruft after <type>"},
        {"database frontend x\n", 1, 19, "extra cruft after <type>"},
        {"database mdb\nsuffix \"dc=example,dc=com\" \"dc=other,dc=com\"\n", 2,
         29, "<suffix> extra cruft after <suffix>"},
        {"database mdb\nrootdn cn=admin,dc=x junk\n", 2, 22,
         "<rootdn> extra cruft after <dn>"},
        {"include /etc/ldap/schema/core.schema extra\n", 1, 38,
         "<include> extra cruft after <file>"},
        {"database mdb\noverlay collect extra\n", 2, 17,
         "<overlay> extra cruft after <overlay>"},
        {"database mdb\noverlay syncprov x y\n", 2, 18, "extra cruft"},
        /* a CR not followed by LF: slapd reads it as a byte of the line,
         * so a file saved with CR-only line ends is one line to it (the
         * whole file a comment here, "0 rules, read for all" before) */
        {"# slapd.conf\rdatabase mdb\rsuffix dc=x\raccess to * by * none\r", 1,
         13, "carriage return"},
        {"access to * by * none\r", 1, 22, "carriage return"},
        {"access to *\r\n by * none\r\n# x\r\naccess to *\r by * none\n", 4, 12,
         "carriage return"},
        {"database mdb\nadd_content_acl maybe\n", 2, 17, "invalid value"},
        {"database mdb\nsuffix dc=x\ndatabase mdb\nsuffix dc=y,dc=x\n", 4, 8,
         "already served"},
        {"database\n", 1, 9, "missing argument"},
        /* a word no table of slapd's holds (slaptest 2.5.13: "unknown
         * directive <acces> inside backend database definition"): a
         * misspelt rule was noted and dropped before */
        {"database mdb\nsuffix dc=x\nacces to * by * none\n", 3, 1,
         "unknown directive <acces> inside backend database definition"},
        {"acces to * by * none\n", 1, 1,
         "unknown directive <acces> inside global database definition"},
        {"database mdb\nval=x\n", 2, 1, "unknown directive <val=x>"},
        /* a table directive's argument counts, as config_check_vals */
        {"database mdb\nrootpw secret to * by * read\n", 2, 15,
         "<rootpw> extra cruft after <password>"},
        {"loglevel\n", 1, 9, "<loglevel> missing <level> argument"},
        {"database mdb\ndirectory\n", 2, 10,
         "<directory> missing <dir> argument"},
        {"access to * by \"* read\n", 1, 23, "unterminated"},
        {" \n", 1, 1, "bad config line"},
        {"\n\n# c\naccess to * \n   by * foo\n", 5, 9, "expecting <access>"},
        {"access to * \\\nby * foo\n", 2, 6, "expecting <access>"},
        {"access to dn.exact=\"cn=x,\n  dc=y\" by * x\n", 2, 14,
         "expecting <access>"},
    };

    for (size_t i = 0; i < NELEM(t); i++) {
        acre_diag d;
        cr_expect(conf(t[i].text, &d) == NULL, "accepted: %s", t[i].text);
        cr_expect(d.code == ACRE_ERR_RULE_SYNTAX ||
                      d.code == ACRE_ERR_RULE_LIMIT,
                  "%s: code %d", t[i].text, d.code);
        cr_expect_str_eq(d.file, "t.conf");
        cr_expect(d.line == t[i].line && d.column == t[i].col,
                  "%s: at %u:%u, want %u:%u (%s)", t[i].text, d.line, d.column,
                  t[i].line, t[i].col, d.message);
        cr_expect(strstr(d.message, t[i].msg) != NULL, "%s: message \"%s\"",
                  t[i].text, d.message);
    }
}

/* Inputs slapd takes although they look wrong (checked with slaptest). */
Test(openldap_parse, slapd_accepts)
{
    static const char *const t[] = {
        /* directives of slapd's tables, prefixes as config_find_keyword
         * matches them */
        "allowsX bind_v2\n",
        "attributeoptions x-hidden lang-\n",
        "modulepath /usr/lib/ldap\nmoduleload back_mdb\nmoduleload memberof\n"
        "database mdb\nindex objectClass eq\nmaxsize 1000\ndbnosync\n"
        "overlay memberof\nmemberof-group-oc groupOfNames\n",
        "access to * by read\n",
        "access to * by by * read\n",
        "access to * by * stop\n",
        "access to dn.children=\"\" by * read\n",
        "access to attrs=cn val=x attrs=sn by * read\n",
        "access to filter=(cn:fooMatch:=x) by * read\n",
        "access to * by peername.ip=1.2.3.x read\n",
        "access to * by peername.ip=1.2.3.4%x read\n",
        "access to * by set=\"this/\" read\n",
        "access to * by users realusers read\n",
        "access to * by dn.level{0}=dc=x read\n",
        "access to * by dn.regex=\"*\" read\n",
        "access to * by * realselfwrite\n",
        "access to * by groupXYZ=\"cn=x,dc=y\" read\n",
        "access to * by users.level{2} read\n",
        "ACCESS TO * BY * READ\n",
        /* a DN directive alone takes the root DN (ARG_DN) */
        "database mdb\nsuffix\n",
        "database mdb\nrootdn\n",
        /* add_content_acl alone is on; words after its value are not
         * checked */
        "add_content_acl\n",
        "add_content_acl TRUE extra words\n",
    };
    for (size_t i = 0; i < NELEM(t); i++) {
        acre_diag d;
        cr_expect(conf(t[i], &d) != NULL, "refused: %s (%u:%u %s)", t[i],
                  d.line, d.column, d.message);
    }
}

/* ------------------------------------------------------------------------
 * slapd.conf: sections, lexing, includes
 */

Test(openldap_parse, conf_sections)
{
    struct acreI_policy *cfg =
        conf_ok("# comment\n"
                "access to dn.base=\"\" by * read\n"
                "pidfile /run/x.pid\n"
                "database mdb\n"
                "suffix \"dc=example,dc=com\"\n"
                "rootdn \"cn=Manager,dc=example,dc=com\"\n"
                "add_content_acl on\n"
                "access to * by users read\n"
                "database frontend\n"
                "access to * by * search\n"
                "database config\n"
                "database mdb\n"
                "suffix dc=other\n"
                "suffix dc=third\n");
    cr_expect_eq(cfg->frontend.nrules, 2);
    cr_expect_eq(cfg->frontend.rules[1].by[0].mask, ACREI_LVL_SEARCH);
    cr_assert_eq(cfg->ndbs, 3);
    cr_expect_str_eq(cfg->dbs[0].type, "mdb");
    cr_expect_eq(cfg->dbs[0].index, 1);
    cr_expect_str_eq(norm(cfg->dbs[0].suffix[0]), "dc=example,dc=com");
    cr_expect_str_eq(norm(cfg->dbs[0].rootdn), "cn=manager,dc=example,dc=com");
    cr_expect(cfg->dbs[0].add_content_acl);
    cr_expect_eq(cfg->dbs[0].nrules, 1);
    cr_expect_str_eq(cfg->dbs[1].type, "config");
    cr_expect_eq(cfg->dbs[2].nsuffix, 2);
    cr_expect_eq(cfg->nnotes, 1); /* pidfile */
    cr_expect_str_eq(cfg->notes[0].text, "directive \"pidfile\" ignored");
    cr_expect_eq(cfg->notes[0].pos.line, 3);
    /* the rootdn note of a by clause naming it */
    cfg = conf_ok("database mdb\nsuffix dc=x\nrootdn cn=r,dc=x\n"
                  "access to * by dn=cn=r,dc=x read\n");
    cr_expect_eq(cfg->nnotes, 1);
    acre_dn *dn;
    cr_assert_eq(acre_dn_parse(ctx, NULL, "cn=a,dc=x", 9, 0, &dn, NULL), 0);
    cr_expect_eq(acreI_section_for(cfg, dn), &cfg->dbs[0]);
    cr_assert_eq(acre_dn_parse(ctx, NULL, "dc=y", 4, 0, &dn, NULL), 0);
    cr_expect(acreI_section_for(cfg, dn) == NULL);
}

/* What slapd 2.5.13 makes of directives missing their value (slaptest,
 * then the olc* values it writes to a slapd.d). */
Test(openldap_parse, conf_bare_directives)
{
    struct acreI_policy *cfg = conf_ok("add_content_acl\n"
                                       "database mdb\n"
                                       "suffix\n"
                                       "rootdn\n"
                                       "add_content_acl on\n"
                                       "add_content_acl NO\n");
    cr_expect(cfg->frontend.add_content_acl);
    cr_assert_eq(cfg->ndbs, 1);
    cr_assert_eq(cfg->dbs[0].nsuffix, 1);
    cr_expect_eq(acre_dn_depth(cfg->dbs[0].suffix[0]), 0); /* olcSuffix: */
    cr_assert(cfg->dbs[0].rootdn);
    cr_expect_eq(acre_dn_depth(cfg->dbs[0].rootdn), 0); /* olcRootDN: */
    cr_expect(!cfg->dbs[0].add_content_acl);
}

Test(openldap_parse, conf_lexing)
{
    /* continuation by leading white space and by a final backslash,
     * quotes anywhere in a token, backslash escapes, CR LF, case */
    struct acreI_policy *cfg =
        conf_ok("ACCESS\tTO dn.subtree=\"dc=a b,\r\n"
                "  dc=c\"\r\n"
                "\tBY \\\n"
                "dn.exact=\"cn=x\\\\2Cy,dc=c\" WRITE\n"
                "#   by * read    (a comment line ends the rule)\n"
                "   by * read\n");
    const struct acreI_rule *r = &cfg->frontend.rules[0];
    cr_expect_str_eq(norm(r->what.dn), "dc=a b,dc=c");
    cr_assert_eq(r->nby, 1); /* the indented line continued the comment */
    cr_expect_str_eq(norm(r->by[0].dn.dn), "cn=x\\,y,dc=c");
    cr_expect_eq(r->by[0].mask, ACREI_LVL_WRITE);
    cr_expect_eq(r->pos.line, 1);
    cr_expect_eq(r->by[0].pos.line, 3);
    cr_expect_eq(r->by[0].pos.column, 2);
    /* an include line is never continued: the indented line after it is
     * a directive of its own (slapd's fp_getline) */
    char path[] = "/tmp/acre-inc-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    close(fd);
    cfg = conf_ok(
        talloc_asprintf(ctx, "include %s\n  access to * by * read\n", path));
    cr_expect_eq(cfg->frontend.nrules, 1);
    cr_expect_eq(cfg->nnotes, 0);
    unlink(path);
}

Test(openldap_parse, conf_include)
{
    char dir[] = "/tmp/acre-ol-XXXXXX";
    cr_assert(mkdtemp(dir));
    char *schema_path = talloc_asprintf(ctx, "%s/my.schema", dir);
    char *inc_path = talloc_asprintf(ctx, "%s/rules.conf", dir);
    char *main_path = talloc_asprintf(ctx, "%s/slapd.conf", dir);
    FILE *f = fopen(schema_path, "w");
    fputs("attributetype ( 1.3.6.1.4.1.99999.1 NAME 'acreTestAttr'\n"
          "  SUP name )\n"
          "objectclass ( 1.3.6.1.4.1.99999.2 NAME 'acreTestClass' SUP top\n"
          "  AUXILIARY MAY acreTestAttr )\n",
          f);
    fclose(f);
    f = fopen(inc_path, "w");
    fputs("access to attrs=acreTestAttr by * read\n"
          "access to attrs=@acreTestClass by * x\n",
          f);
    fclose(f);
    f = fopen(main_path, "w");
    fprintf(f, "include %s\ninclude rules.conf\n", schema_path);
    fclose(f);

    acre_schema *s;
    cr_assert_eq(acre_schema_new(ctx, 0, &s, NULL), 0);
    struct acreI_policy *cfg = NULL;
    acre_diag d = {0};
    int rc = acreO_parse_conf(ctx, s, main_path, NULL, 0, &cfg, &d);
    /* the error is in the included file, with its name and place */
    cr_expect_eq(rc, ACRE_ERR_RULE_SYNTAX);
    cr_expect_str_eq(d.file, inc_path);
    cr_expect(d.line == 2 && d.column == 37, "%u:%u", d.line, d.column);
    acre_schema_free(s);

    f = fopen(inc_path, "w");
    fputs("access to attrs=acreTestAttr by * read\n", f);
    fclose(f);
    cr_assert_eq(acre_schema_new(ctx, 0, &s, NULL), 0);
    rc = acreO_parse_conf(ctx, s, main_path, NULL, 0, &cfg, &d);
    cr_assert_eq(rc, 0, "%s:%u:%u %s", d.file, d.line, d.column, d.message);
    cr_expect_eq(cfg->frontend.rules[0].what.attrs[0].type,
                 acreS_attr_find(s, "acreTestAttr", 12));
    cr_expect_str_eq(cfg->frontend.rules[0].pos.file, inc_path);
    talloc_free(cfg);
    acre_schema_free(s);
    /* without a schema the definitions are noted and the rule refused */
    rc = acreO_parse_conf(ctx, NULL, main_path, NULL, 0, &cfg, &d);
    cr_expect_eq(rc, ACRE_ERR_RULE_SYNTAX);
    unlink(schema_path);
    unlink(inc_path);
    unlink(main_path);
    rmdir(dir);
    /* a file that cannot be read */
    rc = acreO_parse_conf(ctx, NULL, "/nonexistent/slapd.conf", NULL, 0, &cfg,
                          &d);
    cr_expect_eq(rc, ACRE_ERR_RULE_IO);
    cr_expect_eq(d.code, ACRE_ERR_RULE_IO);
}

/* What slaptest 2.5.13 refuses in includes, refused in the same place:
 * a missing file, whatever its name ("could not stat config file"), and
 * anything but a regular file ("regular file expected"), a FIFO among
 * them, which is never opened (it blocked for ever before). */
Test(openldap_parse, conf_include_refused, .timeout = 10)
{
    char dir[] = "/tmp/acre-ol-XXXXXX";
    cr_assert(mkdtemp(dir));
    char *fifo = talloc_asprintf(ctx, "%s/rules.conf", dir);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    const char *const inc[] = {"/nonexistent/rules.conf",
                               "/nonexistent/acre-rules.schema",
                               "acre-no-such-file.schema", fifo, dir};
    for (size_t i = 0; i < NELEM(inc); i++) {
        char *text = talloc_asprintf(ctx,
                                     "database mdb\nsuffix dc=x\n"
                                     "include  %s\naccess to * by * read\n",
                                     inc[i]);
        acre_diag d;
        cr_expect(conf(text, &d) == NULL, "accepted: %s", inc[i]);
        cr_expect_eq(d.code, ACRE_ERR_RULE_IO, "%s: %d", inc[i], d.code);
        cr_expect_str_eq(d.file, "t.conf");
        cr_expect(d.line == 3 && d.column == 10, "%s: at %u:%u (%s)", inc[i],
                  d.line, d.column, d.message);
    }
    /* the FIFO as the file itself, and as a schema file */
    struct acreI_policy *cfg = NULL;
    acre_diag d = {0};
    cr_expect_eq(acreO_parse_conf(ctx, NULL, fifo, NULL, 0, &cfg, &d),
                 ACRE_ERR_RULE_IO);
    cr_expect(strstr(d.message, "not a regular file"), "%s", d.message);
    acre_schema *s;
    cr_assert_eq(acre_schema_new(ctx, 0, &s, NULL), 0);
    cr_expect_eq(acre_schema_load_file(s, fifo, &d), ACRE_ERR_SCHEMA_IO);
    acre_schema_free(s);
    unlink(fifo);
    rmdir(dir);
}

Test(openldap_parse, limits)
{
    /* a token past the limit; a who regex past slapd's 254 bytes */
    char *big = talloc_array(ctx, char, ACREO_MAX_TOKEN + 128);
    memset(big, 'a', ACREO_MAX_TOKEN + 100); /* "dn=aaa...": too long */
    memcpy(big, "access to dn=", 13);
    strcpy(big + ACREO_MAX_TOKEN + 100, " by * read\n");
    acre_diag d;
    cr_expect(conf(big, &d) == NULL);
    cr_expect_eq(d.code, ACRE_ERR_RULE_LIMIT);
    char *re = talloc_asprintf(ctx, "access to * by dn.regex=%0300d read\n", 0);
    cr_expect(conf(re, &d) == NULL);
    cr_expect_eq(d.code, ACRE_ERR_RULE_LIMIT);
    cr_expect(strstr(d.message, "too large"));
    /* a regex whose POSIX compilation would blow up (glibc copies the
     * operand of each stacked '+') */
    char *plus = talloc_asprintf(ctx,
                                 "access to dn.regex=\"a%0100d\" by * "
                                 "read\n",
                                 0);
    for (char *p = strchr(plus, '"') + 2; *p == '0'; p++)
        *p = '+';
    cr_expect(conf(plus, &d) == NULL);
    cr_expect_eq(d.code, ACRE_ERR_RULE_LIMIT);
    cr_expect(strstr(d.message, "too costly"), "%s", d.message);
    /* nested repetitions that took glibc minutes or crashed it; a
     * single nesting level stays accepted */
    static const char *const costly[] = {
        "s*+++++++++++", "(a|b*){2,20}{2,20}{2,20}", "((a*)+)+", "a*{2}{2}"};
    for (size_t i = 0; i < sizeof(costly) / sizeof(*costly); i++) {
        char *r = talloc_asprintf(ctx, "access to dn.regex=\"%s\" by * read\n",
                                  costly[i]);
        cr_expect(conf(r, &d) == NULL, "%s", costly[i]);
        cr_expect_eq(d.code, ACRE_ERR_RULE_LIMIT, "%s", costly[i]);
    }
    cr_expect(conf_ok("access to dn.regex=\"(a+)*b\" by * read\n"));
    /* a set nested deeper than the limit is accepted but never matches */
    char *set = talloc_strdup(ctx, "access to * by set=\"");
    for (int i = 0; i < ACREO_MAX_SET_DEPTH + 2; i++)
        set = talloc_strdup_append(set, "(");
    set = talloc_strdup_append(set, "user");
    for (int i = 0; i < ACREO_MAX_SET_DEPTH + 2; i++)
        set = talloc_strdup_append(set, ")");
    set = talloc_strdup_append(set, "\" read\n");
    struct acreI_policy *cfg = conf_ok(set);
    cr_expect(acreI_set(&cfg->frontend.rules[0].by[0])->invalid);
}

/* unit repeated n times, between pre and post, as a talloc string. */
static char *
repeat(const char *pre, const char *unit, int n, const char *post)
{
    char *r = talloc_strdup(ctx, pre);
    for (int i = 0; i < n; i++)
        r = talloc_strdup_append(r, unit);
    return talloc_strdup_append(r, post);
}

/* The estimate of glibc's regcomp cost (openldap_regex.c) on the families
 * that blew it up when measured (glibc 2.36, the time or memory of the
 * smallest member in the comment), and on large patterns it handles
 * well. */
Test(openldap_parse, regcomp_cost_estimate)
{
    static const struct {
        const char *pre, *unit;
        int n;
        const char *post;
        int ok;
    } t[] = {
        {"", "()*", 2730, "", 0},        /* 47 s, 540 MB */
        {"", "()*", 800, "", 0},         /* 3 s */
        {"", "(a*)*", 800, "", 0},       /* 6.4 s */
        {"", "(a|)", 800, "", 0},        /* 51 MB */
        {"", "\\\\b()*", 12, "", 0},     /* 21 s */
        {"", "(\\\\B\\\\b)*", 6, "", 0}, /* 18 s */
        {"", "(\\\\B\\\\b)*", 1, "", 0},
        {"", "^()*", 20, "", 0},     /* 7 s */
        {"", "\\\\b()", 30, "", 0},  /* 261 MB */
        {"", "(){3,23}+", 3, "", 0}, /* 11 s */
        {"", "((a|){3,10})+", 4, "", 0},
        {"", "^(|){0,50}", 4, "", 0},                 /* 7.6 s, 1.4 GB */
        {"", "\\\\b(a|){0,60}", 2, "", 0},            /* 10 s, 1.8 GB */
        {"", "^(){3,40}", 4, "", 0},                  /* 1.9 s, 286 MB */
        {"", "\\\\b(){3,30}\\\\B(){3,30}", 1, "", 0}, /* 60 MB */
        {")", "+", 22, "", 0}, /* a stray ')' repeated: timed out */
        {"()", "+", 22, "", 0},
        {"", "()*", 100, "", 1},
        {"", "[a-z]{0,255}", 1, "", 1},
        {"", "(a*)+b", 1, "", 1},
        {"", "\\\\bfoo\\\\b|\\\\bbar\\\\b", 1, "", 1},
        {"^uid=(", "user|", 200, "x),ou=people,dc=example,dc=com$", 1},
        {"", "^|uid=([^,]+),ou=people,dc=example,dc=com$", 1, "", 1},
    };

    for (size_t i = 0; i < NELEM(t); i++) {
        char *r = repeat(t[i].pre, t[i].unit, t[i].n, t[i].post);
        char *text =
            talloc_asprintf(ctx, "access to dn.regex=\"%s\" by * read\n", r);
        acre_diag d;
        int ok = conf(text, &d) != NULL;
        cr_expect_eq(ok, t[i].ok, "%s x %d: %s", t[i].unit, t[i].n, d.message);
        if (!ok)
            cr_expect_eq(d.code, ACRE_ERR_RULE_LIMIT, "%s", t[i].unit);
    }
    /* a pattern a check substitutes is held to less: it is compiled per
     * check, and a DN or a value is part of it */
    char *plain = repeat("^cn=", "a", 1000, ",dc=example,dc=com$");
    char *empties = repeat("^cn=", "()*", 60, "$");
    struct acreI_regex re;
    const char *why;
    cr_expect_eq(
        acreO_regex_compile_expanded(ctx, plain, strlen(plain), &re, &why), 0);
    cr_expect_eq(
        acreO_regex_compile_expanded(ctx, empties, strlen(empties), &re, &why),
        ACRE_ERR_RULE_LIMIT);
    cr_expect_eq(acreO_regex_compile(ctx, empties, strlen(empties), &re, &why),
                 0);
}

/* ------------------------------------------------------------------------
 * Pieces: expansion, sets, URLs, regexes, dump
 */

Test(openldap_parse, expand)
{
    static const int off[3][2] = {{0, 9}, {3, 4}, {-1, -1}};
    static const int voff[2][2] = {{0, 3}, {1, 2}};
    const char *src = "cn=x,dc=y", *val = "abc";

    static const struct {
        const char *tmpl, *out;
        int rc;
    } t[] = {
        {"$0", "cn=x,dc=y", 0}, {"a$1b", "axb", 0}, {"$$1", "$1", 0},
        {"${1}", "x", 0},       {"${d1}", "x", 0},  {"${v1}", "b", 0},
        {"$2|", "|", 0},        {"$3", NULL, -1},   {"end$", "end$", 0},
        {"a$xyz$1", "a$1", 0},  {"${1", NULL, -1},  {"${v5}", NULL, -1},
    };

    for (size_t i = 0; i < NELEM(t); i++) {
        char out[ACREI_EXPAND_MAX + 1];
        size_t n;
        int rc = acreI_expand(t[i].tmpl, strlen(t[i].tmpl), src, off, 3, val,
                              voff, 2, out, &n);
        cr_expect_eq(rc, t[i].rc, "%s", t[i].tmpl);
        if (!rc && t[i].out)
            cr_expect_str_eq(out, t[i].out, "%s", t[i].tmpl);
    }
    char *n = acreO_regex_normalise_dn(ctx, "a,  b\\, c, d", 12);
    cr_expect_str_eq(n, "a,b\\,c,d");
    talloc_free(n);
}

static const char *
set_shape(const struct acreI_setnode *n)
{
    static const char *const name[] = {"this", "user", "lit", "attr", "-n",
                                       "-*",   "|",    "&",   "+"};
    if (!n)
        return "";
    if (n->op >= ACREI_SET_UNION)
        return talloc_asprintf(ctx, "(%s %s %s)", set_shape(n->kid[0]),
                               name[n->op], set_shape(n->kid[1]));
    if (n->kid[0])
        return talloc_asprintf(ctx, "%s/%s%s", set_shape(n->kid[0]),
                               n->op == ACREI_SET_ATTR ? n->ad->text
                                                       : name[n->op],
                               n->closure ? "*" : "");
    return name[n->op];
}

Test(openldap_parse, sets)
{
    static const struct {
        const char *s, *shape;
    } ok[] = {
        {"user", "user"},
        {"this/member", "this/member"},
        {"this -> member", "this/member"},
        {"user/-1", "user/-n"},
        {"user/-*", "user/-*"},
        {"[cn=a]/member*/cn", "lit/member*/cn"},
        {"user | this & [x]", "((user | this) & lit)"},
        {"user | (this & [x])", "(user | (this & lit))"},
        {"(user)/seeAlso", "user/seeAlso"},
        {"user & this)", "(user & this)"},
        {" user\t+\n[x] ", "(user + lit)"},
        {"this/member->seeAlso", "this/member/seeAlso"},
    };

    for (size_t i = 0; i < NELEM(ok); i++) {
        const struct acreI_setnode *root;
        size_t off;
        int rc = acreO_set_parse(ctx, acreS_builtin(), ok[i].s, strlen(ok[i].s),
                                 &root, &off);
        cr_expect_eq(rc, 0, "%s: at %zu", ok[i].s, off);
        if (!rc)
            cr_expect_str_eq(set_shape(root), ok[i].shape, "%s", ok[i].s);
    }
    static const char *const bad[] = {
        "",         "member", "user/this", "user this", "(user",
        "user)",    "[x",     "user/",     "| user",    "user/-x",
        "user/foo", "User",   "(user))",   "user/- 1",  "user/member -*",
    };
    for (size_t i = 0; i < NELEM(bad); i++) {
        const struct acreI_setnode *root;
        size_t off;
        cr_expect_eq(acreO_set_parse(ctx, acreS_builtin(), bad[i],
                                     strlen(bad[i]), &root, &off),
                     ACRE_ERR_RULE_SYNTAX, "accepted: %s", bad[i]);
    }
}

Test(openldap_parse, urls)
{
    struct acreE_url u;
    const char *s = "ldap:///ou=People,dc=x?cn,sn?sub?(uid=b%2A)";
    cr_assert_eq(acreE_url_parse(ctx, s, strlen(s), &u), 0);
    cr_expect_str_eq(u.host, "");
    cr_expect_str_eq(u.dn, "ou=People,dc=x");
    cr_expect_eq(u.nattrs, 2);
    cr_expect_eq(u.scope, ACRE_SCOPE_SUB);
    cr_expect_str_eq(u.filter, "(uid=b*)");
    s = "<URL:LDAP://host:389/dc=x>";
    cr_assert_eq(acreE_url_parse(ctx, s, strlen(s), &u), 0);
    cr_expect_str_eq(u.host, "host:389");
    cr_expect_eq(u.scope, ACRE_SCOPE_BASE);
    cr_expect(u.filter == NULL);
    static const char *const bad[] = {"http:///dc=x", "ldap:///dc=x??bad",
                                      "ldap:///a?b?c?d?e?f"};
    for (size_t i = 0; i < NELEM(bad); i++)
        cr_expect_eq(acreE_url_parse(ctx, bad[i], strlen(bad[i]), &u), -1, "%s",
                     bad[i]);
}

/* The PCRE2 form of a POSIX pattern matches as regexec would. */
static int
pcre_matches(const struct acreI_regex *re, const char *s)
{
    pcre2_match_data *md = pcre2_match_data_create(4, NULL);
    int rc =
        pcre2_match(re->code, (PCRE2_SPTR)s, strlen(s), 0, 0, md, re->mctx);
    pcre2_match_data_free(md);
    return rc >= 0;
}

Test(openldap_parse, regex_translation)
{
    static const struct {
        const char *pat, *subject;
        int match;
    } t[] = {
        {"^cn=[^,]+,dc=x$", "cn=abc,dc=x", 1},
        {"CN=ABC", "cn=abc,dc=x", 1}, /* case-insensitive */
        {"[\\.]", "a\\b", 1},         /* '\' literal in brackets */
        {"[\\.]", "ab", 0},
        {"a\\<b", "a<b", 0}, /* GNU word start */
        {"\\<ab", "x ab", 1},
        {")", "a)b", 1}, /* lone ')' literal */
        {"a{,2}b", "aab", 1},
        {"a*+c", "aac", 1}, /* (a*)+ not possessive */
        {"a+?c", "aac", 1},
        {"[[:digit:]]+", "x12", 1},
        {"[[.a.]]", "cat", 1},
        {"x$", "x\n", 0},   /* $ only at the very end */
        {"a.b", "a\nb", 1}, /* . matches newline */
        {"\\D", "d", 1},    /* \D is a plain D */
        /* a small letter escaped is compared as written with the subject
         * glibc has uppercased: never equal */
        {"\\d", "d", 0},
        {"a|\\c", "C", 0},
        /* REG_ICASE uppercases range ends: [A-z] is [A-Z] to glibc */
        {"^[A-z]$", "^", 0},
        {"^[A-z]$", "q", 1},
        {"^[a-Z]$", "b", 1},
        {"^[^A-Z]$", "b", 0},
        {"^[z-~]$", "a", 0},
        {"^[z-~]$", "_", 1},
    };

    for (size_t i = 0; i < NELEM(t); i++) {
        struct acreI_regex re;
        const char *why = NULL;
        int rc =
            acreO_regex_compile(ctx, t[i].pat, strlen(t[i].pat), &re, &why);
        cr_assert_eq(rc, 0, "%s: %s", t[i].pat, why);
        cr_expect_eq(pcre_matches(&re, t[i].subject), t[i].match, "%s on %s",
                     t[i].pat, t[i].subject);
    }
    /* refused by regcomp, so by slapd */
    static const char *const bad[] = {"(",  "*a",   "a{2,1}",
                                      "[a", "a\\1", "[Z-a]"};
    for (size_t i = 0; i < NELEM(bad); i++) {
        struct acreI_regex re;
        const char *why = NULL;
        cr_expect_eq(
            acreO_regex_compile(ctx, bad[i], strlen(bad[i]), &re, &why),
            ACRE_ERR_RULE_SYNTAX, "accepted %s", bad[i]);
        cr_expect(why != NULL);
    }
}

/* Bracket expressions: the PCRE2 form matches exactly the bytes glibc's
 * regexec matches with slapd's flags (REG_ICASE uppercases ranges). */
Test(openldap_parse, bracket_sets)
{
    static const char *const t[] = {"[?-z]",          "[A-z]",
                                    "[a-Z]",          "[z-~]",
                                    "[^?-z]",         "[!-~]",
                                    "[%--]",          "[--/]",
                                    "[a-]",           "[]a]",
                                    "[^]a]",          "[[.a.]-c]",
                                    "[a-[.c.]]",      "[[:upper:]]",
                                    "[[:lower:]x]",   "[^[:lower:]]",
                                    "[[.-.]a]",       "[[.].]]",
                                    "[\\]",           "[[=e=]q-t]",
                                    "[[:digit:]@-F]", "[^[:space:][:punct:]]",
                                    "[\x80-\xff]",    "[_-z]"};
    for (size_t i = 0; i < NELEM(t); i++) {
        char pat[64];
        struct acreI_regex re;
        const char *why = NULL;
        regex_t px;
        snprintf(pat, sizeof(pat), "^%s$", t[i]);
        if (regcomp(&px, pat, REG_EXTENDED | REG_ICASE)) {
            cr_expect_neq(acreO_regex_compile(ctx, pat, strlen(pat), &re, &why),
                          0, "%s", pat);
            continue;
        }
        cr_assert_eq(acreO_regex_compile(ctx, pat, strlen(pat), &re, &why), 0,
                     "%s: %s", pat, why);
        for (int c = 1; c < 256; c++) {
            char s[2] = {(char)c, 0};
            int want = regexec(&px, s, 0, NULL, 0) == 0;
            cr_expect_eq(pcre_matches(&re, s), want, "%s on byte %d", pat, c);
        }
        regfree(&px);
    }
}

/* Every escape outside brackets, on every one-byte subject and after one
 * letter: the PCRE2 form matches where glibc's regexec does. */
Test(openldap_parse, escape_sets)
{
    for (int e = '!'; e <= '~'; e++) {
        char pat[8];
        struct acreI_regex re;
        const char *why = NULL;
        regex_t px;
        snprintf(pat, sizeof(pat), "\\%c", e);
        if (regcomp(&px, pat, REG_EXTENDED | REG_ICASE)) {
            cr_expect_neq(acreO_regex_compile(ctx, pat, strlen(pat), &re, &why),
                          0, "%s", pat);
            continue;
        }
        cr_assert_eq(acreO_regex_compile(ctx, pat, strlen(pat), &re, &why), 0,
                     "%s: %s", pat, why);
        for (int c = 1; c < 256; c++) {
            char s[3] = {'a', (char)c, 0};
            for (int k = 0; k < 2; k++) {
                int want = regexec(&px, s + 1 - k, 0, NULL, 0) == 0;
                cr_expect_eq(pcre_matches(&re, s + 1 - k), want, "%s on \"%s\"",
                             pat, s + 1 - k);
            }
        }
        regfree(&px);
    }
}

Test(openldap_parse, dump)
{
    struct acreI_policy *cfg = conf_ok(
        "access to dn.base=\"\" attrs=objectClass by users read\n"
        "database mdb\nsuffix \"dc=Example,dc=com\"\n"
        "rootdn cn=Manager,dc=example,dc=com\n"
        "access to attrs=member val.regex=x filter=(cn=a) by dnattr="
        "member selfwrite by * =rsc continue\n"
        "access to attrs=@person,!posixAccount by * +0\n"
        "access to dn.regex=\"^(.+)$\" by dn.children,expand=$1 +w break "
        "by group/groupOfNames/member=\"cn=g,dc=x\" read by set=\"user\" "
        "search by peername.ip=1.2.3.4 ssf=3 none\n");
    char *dump = acreO_config_dump(ctx, cfg);
    cr_expect_str_eq(
        dump,
        "database frontend {-1}\n"
        "access to dn.base=\"\" attrs=objectClass by users read\n"
        "database mdb {1}\n"
        "suffix \"dc=example,dc=com\"\n"
        "rootdn \"cn=manager,dc=example,dc=com\"\n"
        "access to filter=\"(cn=a)\" attrs=member val.regex=\"x\" "
        "by dnattr=member selfwrite by * =rsc continue\n"
        "access to attrs=@person,!posixAccount by * +0\n"
        "access to dn.regex=\"^(.+)$\" by dn.children,expand=\"$1\" +w break "
        "by group/groupOfNames/member.exact=\"cn=g,dc=x\" read by "
        "set.exact=\"user\" search by peername.ip=\"1.2.3.4\" ssf=3 none\n");
}

/* slapd joins an indented line to the comment above it and has no "by"
 * directive: a clause after a comment line is dropped (and kept for
 * lint), one after a blank line is refused. */
Test(openldap_parse, clause_after_comment_or_blank_line)
{
    struct acreI_policy *cfg =
        conf_ok("access to *\n by self write\n# note\n by * read\n");
    acre_diag d;

    cr_assert_eq(cfg->frontend.nrules, 1);
    cr_expect_eq(cfg->frontend.rules[0].nby, 1);
    cr_assert_eq(cfg->nswallowed, 1);
    cr_expect_eq(cfg->swallowed[0].comment.line, 3);
    cr_expect_eq(cfg->swallowed[0].text.line, 4);
    cr_expect_eq(cfg->swallowed[0].text.column, 2);
    cr_expect_eq(cfg->swallowed[0].rule.line, 1);
    cr_expect(cfg->swallowed[0].by);
    /* blank continuation lines take nothing in */
    cfg = conf_ok("access to * by * read\n# note\n  \n\t\n");
    cr_expect_eq(cfg->nswallowed, 0);
    cr_expect_null(conf("access to *\n by self write\n\n by * read\n", &d));
    cr_expect_eq(d.code, ACRE_ERR_RULE_SYNTAX);
    cr_expect_eq(d.line, 4);
    cr_expect_eq(d.column, 2);
}

/* "subordinate" (slapd's glue): after a suffix, TRUE or advertise; and
 * slapd's startup refuses a subordinate that no later database, not a
 * subordinate, holds (glue_sub_attach: "no superior found for sub"),
 * at its database line here; a subordinate below another hangs from
 * the same superior. */
Test(openldap_parse, subordinate_needs_a_superior)
{
    static const struct {
        const char *text;
        unsigned line, col;
        const char *msg;
    } bad[] = {
        {"database mdb\nsubordinate\nsuffix dc=x\n", 2, 1, "needs a suffix"},
        {"database mdb\nsuffix ou=a,dc=x\nsubordinate yes\n"
         "database mdb\nsuffix dc=x\n",
         3, 13, "TRUE"},
        {"database mdb\nsuffix ou=a,dc=x\nsubordinate\n", 1, 1,
         "no superior found"},
        {"database mdb\nsuffix ou=a,dc=x\nsubordinate\n"
         "database mdb\nsuffix dc=y\n",
         1, 1, "no superior found"},
        {"database mdb\nsuffix ou=a,dc=x\nsubordinate\n"
         "database mdb\nsuffix dc=x\nsubordinate\n",
         1, 1, "no superior found"},
    };

    acre_diag d;

    for (size_t i = 0; i < NELEM(bad); i++) {
        cr_expect_null(conf(bad[i].text, &d), "%s", bad[i].text);
        cr_expect(d.line == bad[i].line && d.column == bad[i].col,
                  "%s: at %u:%u (%s)", bad[i].text, d.line, d.column,
                  d.message);
        cr_expect(strstr(d.message, bad[i].msg) != NULL, "%s: %s", bad[i].text,
                  d.message);
    }
    struct acreI_policy *cfg =
        conf_ok("database mdb\nsuffix ou=a,ou=b,dc=x\nsubordinate advertise\n"
                "database mdb\nsuffix ou=b,dc=x\nsubordinate TRUE\n"
                "database mdb\nsuffix dc=x\n");
    cr_expect(cfg->dbs[0].subordinate && cfg->dbs[1].subordinate &&
              !cfg->dbs[2].subordinate);
}
