/*
 * aci_oracle_test.c -- unit tests of the ACI reference evaluator
 * (tests/oracle/aci_oracle*.c) on hand-built intermediate form
 * (engine/ir_aci.h), over the directory the i15-389 helper probed the
 * real 389-DS 2.3 with (/work/notes/389-findings.md): people alice, bob
 * and carol, groups g1 > g2 > ... > g7 nested seven deep, a
 * groupOfUniqueNames, a dynamic group and two roles.  Where a finding
 * gives 389's answer, the test expects it; the other cases follow 389's
 * acl.c / acllas.c / filterentry.c as the oracle's banners say.
 */
#include <criterion/criterion.h>

#include <stdarg.h>
#include <string.h>
#include <talloc.h>

#include "aci_oracle.h"
#include "acre.h"
#include "directory.h"
#include "schema.h"

#define SFX    "dc=example,dc=com"
#define PEOPLE "ou=people," SFX
#define GROUPS "ou=groups," SFX
#define ALICE  "uid=alice," PEOPLE
#define BOB    "uid=bob," PEOPLE
#define CAROL  "uid=carol," PEOPLE

static const char ldif[] =
    "dn: " SFX "\nobjectClass: domain\ndc: example\n"
    "aci: (targetattr=\"*\")(version 3.0; acl \"doc\"; allow (read) "
    "userdn=\"ldap:///anyone\";)\n\n"
    "dn: " PEOPLE "\nobjectClass: organizationalUnit\nou: people\n\n"
    "dn: " ALICE "\nobjectClass: inetOrgPerson\nuid: alice\ncn: Alice\n"
    "sn: A\nmail: alice@example.com\ndepartmentNumber: 42\n"
    "manager: " BOB "\ndescription: first\nnsRoleDN: cn=mrole," SFX "\n\n"
    "dn: " BOB "\nobjectClass: inetOrgPerson\nuid: bob\ncn: Bob\nsn: B\n"
    "mail: bob@example.com\ndepartmentNumber: 42\nseeAlso: cn=g1," GROUPS "\n\n"
    "dn: " CAROL "\nobjectClass: inetOrgPerson\nuid: carol\ncn: Carol\n"
    "sn: C\ndepartmentNumber: 7\nlabeledURI: ldap:///" PEOPLE "??one?(sn=B)\n\n"
    "dn: ou=sub," CAROL "\nobjectClass: organizationalUnit\nou: sub\n\n"
    "dn: " GROUPS "\nobjectClass: organizationalUnit\nou: groups\n\n"
    "dn: cn=g1," GROUPS "\nobjectClass: groupOfNames\ncn: g1\n"
    "member: cn=g2," GROUPS "\nmember: " ALICE "\n\n"
    "dn: cn=g2," GROUPS
    "\nobjectClass: groupOfNames\ncn: g2\nmember: cn=g3," GROUPS "\n\n"
    "dn: cn=g3," GROUPS
    "\nobjectClass: groupOfNames\ncn: g3\nmember: cn=g4," GROUPS "\n\n"
    "dn: cn=g4," GROUPS
    "\nobjectClass: groupOfNames\ncn: g4\nmember: cn=g5," GROUPS "\n\n"
    "dn: cn=g5," GROUPS
    "\nobjectClass: groupOfNames\ncn: g5\nmember: cn=g6," GROUPS "\n\n"
    "dn: cn=g6," GROUPS
    "\nobjectClass: groupOfNames\ncn: g6\nmember: cn=g7," GROUPS "\n\n"
    "dn: cn=g7," GROUPS "\nobjectClass: groupOfNames\ncn: g7\nmember: " BOB
    "\n\n"
    "dn: cn=cyc1," GROUPS "\nobjectClass: groupOfNames\ncn: cyc1\n"
    "member: cn=cyc2," GROUPS "\n\n"
    "dn: cn=cyc2," GROUPS "\nobjectClass: groupOfNames\ncn: cyc2\n"
    "member: cn=cyc1," GROUPS "\nmember: " CAROL "\n\n"
    "dn: cn=u1," GROUPS "\nobjectClass: groupOfUniqueNames\ncn: u1\n"
    "uniqueMember: " CAROL "\n\n"
    "dn: cn=dyn," GROUPS "\nobjectClass: groupOfURLs\ncn: dyn\n"
    "memberURL: ldap:///" PEOPLE "??sub?(departmentNumber=42)\n\n"
    "dn: cn=mrole," SFX "\nobjectClass: nsManagedRoleDefinition\ncn: mrole\n\n"
    "dn: cn=frole," SFX "\nobjectClass: nsFilteredRoleDefinition\ncn: frole\n"
    "nsRoleFilter: (departmentNumber=7)\n\n";

static void *ctx;
static const acre_schema *schema;
static struct acreE_dir *dir;

static void
setup(void)
{
    acre_schema *s;

    ctx = talloc_new(NULL);
    cr_assert_eq(acre_schema_new(ctx, ACRE_SCHEMA_SLAPD, &s, NULL), 0);
    schema = s;
    /* stored and searched as 389 does (ID order) */
    cr_assert_eq(acreE_dir_new(ctx, s, ACRED_DIR_389, &dir), 0);
    acre_diag d;
    cr_assert_eq(acreE_dir_load_ldif(dir, NULL, ldif, strlen(ldif), "t.ldif",
                                     NULL, NULL, &d),
                 0, "%s", d.message);
}

static void
teardown(void)
{
    talloc_free(ctx);
}

TestSuite(aci_oracle, .init = setup, .fini = teardown);

/* ------------------------------------------------------------------------
 * Building the intermediate form by hand
 */

static const acre_dn *
dn(const char *s)
{
    acre_dn *d;

    cr_assert_eq(acre_dn_parse(ctx, schema, s, strlen(s), 0, &d, NULL), 0, "%s",
                 s);
    return d;
}

static int
type(const char *name)
{
    int t = acreS_attr_find(schema, name, strlen(name));

    cr_assert_geq(t, 0, "%s", name);
    return t;
}

static const struct acreF_filter *
filter(const char *s)
{
    struct acreF_filter *f;

    cr_assert_eq(acreF_parse(ctx, schema, s, strlen(s), &f, NULL), 0, "%s", s);
    return f;
}

static struct acreI_bind *
node(enum acreI_aci_kw kw, enum acreI_aci_op op)
{
    struct acreI_bind *b = talloc_zero(ctx, struct acreI_bind);

    b->kw = kw;
    b->op = op;
    return b;
}

static struct acreI_bind *
and_(const struct acreI_bind *a, const struct acreI_bind *b)
{
    struct acreI_bind *n = node(ACREI_ACI_AND, ACREI_ACI_EQ);

    n->a = a;
    n->b = b;
    return n;
}

static struct acreI_bind *
or_(const struct acreI_bind *a, const struct acreI_bind *b)
{
    struct acreI_bind *n = node(ACREI_ACI_OR, ACREI_ACI_EQ);

    n->a = a;
    n->b = b;
    return n;
}

static struct acreI_bind *
not_(const struct acreI_bind *a)
{
    struct acreI_bind *n = node(ACREI_ACI_NOT, ACREI_ACI_EQ);

    n->a = a;
    return n;
}

/* A userdn / groupdn / roledn with its "||" terms, each given as the
 * text after "ldap:///" ("anyone", "all", "self", "parent", a DN, a
 * pattern with '*' or a macro, or "base??scope?(filter)"). */
static struct acreI_bind *
subj(enum acreI_aci_kw kw, enum acreI_aci_op op, int n, ...)
{
    struct acreI_bind *b = node(kw, op);
    struct acreI_aci_term *t = talloc_zero_array(ctx, struct acreI_aci_term, n);
    va_list ap;

    va_start(ap, n);
    for (int i = 0; i < n; i++) {
        const char *s = va_arg(ap, const char *);
        const char *q = strchr(s, '?');
        t[i].pat.text = s;
        t[i].pat.len = strlen(s);
        if (!strcmp(s, "anyone"))
            t[i].kind = ACREI_ACI_S_ANYONE;
        else if (!strcmp(s, "all"))
            t[i].kind = ACREI_ACI_S_ALL;
        else if (!strcmp(s, "self"))
            t[i].kind = ACREI_ACI_S_SELF;
        else if (!strcmp(s, "parent"))
            t[i].kind = ACREI_ACI_S_PARENT;
        else if (q) {
            t[i].kind = ACREI_ACI_S_URL;
            t[i].pat.kind = ACREI_ACI_PAT_DN;
            t[i].pat.dn = dn(talloc_strndup(ctx, s, (size_t)(q - s)));
            const char *sc = q + 2, *f = strchr(sc, '?');
            t[i].scope = !strncmp(sc, "base", 4)  ? ACRE_SCOPE_BASE
                         : !strncmp(sc, "one", 3) ? ACRE_SCOPE_ONE
                                                  : ACRE_SCOPE_SUB;
            t[i].filter = f && f[1] ? filter(f + 1) : NULL;
            t[i].url = s;
        } else if (strchr(s, '*') || strchr(s, '$')) {
            t[i].kind = ACREI_ACI_S_PATTERN;
            t[i].pat.kind = ACREI_ACI_PAT_PATTERN;
            t[i].pat.flags = strstr(s, "($dn)")   ? ACREI_ACI_MACRO_DN
                             : strstr(s, "[$dn]") ? ACREI_ACI_MACRO_DN_UP
                             : strstr(s, "$attr") ? ACREI_ACI_MACRO_ATTR
                                                  : 0;
        } else {
            t[i].kind = ACREI_ACI_S_DN;
            t[i].pat.kind = ACREI_ACI_PAT_DN;
            t[i].pat.dn = dn(s);
        }
    }
    va_end(ap);
    b->terms = t;
    b->nterms = (unsigned)n;
    return b;
}

static struct acreI_bind *
userattr(enum acreI_aci_op op, const char *attr, enum acreI_aci_uakind k,
         unsigned levels, const char *value)
{
    struct acreI_bind *b = node(ACREI_ACI_USERATTR, op);

    b->attr = type(attr);
    b->uakind = k;
    b->levels = levels;
    b->value = value;
    b->value_len = value ? strlen(value) : 0;
    return b;
}

static struct acreI_bind *
text_kw(enum acreI_aci_kw kw, enum acreI_aci_op op, const char *text)
{
    struct acreI_bind *b = node(kw, op);

    b->text = text;
    return b;
}

static struct acreI_bind *
num_kw(enum acreI_aci_kw kw, enum acreI_aci_op op, long n)
{
    struct acreI_bind *b = node(kw, op);

    b->num = n;
    return b;
}

static struct acreI_bind *
ip4(enum acreI_aci_op op, int a, int b, int c, int d, int bits)
{
    struct acreI_bind *n = node(ACREI_ACI_IP, op);
    struct acreI_aci_addr *x = talloc_zero(ctx, struct acreI_aci_addr);
    uint8_t v[4] = {(uint8_t)a, (uint8_t)b, (uint8_t)c, (uint8_t)d};

    x->family = 4;
    for (int i = 0; i < 4; i++) {
        int keep = bits >= 8 * (i + 1) ? 8 : bits > 8 * i ? bits - 8 * i : 0;
        x->mask[i] = (uint8_t)(0xff00u >> keep);
        x->addr[i] = v[i];
    }
    n->addrs = x;
    n->naddrs = 1;
    return n;
}

static struct acreI_aci_set *set;

/* A new ACI held by `holder` (appended to the set). */
static struct acreI_aci *
aci(const char *holder)
{
    if (!set) {
        set = talloc_zero(ctx, struct acreI_aci_set);
        set->rootdn = dn("cn=Directory Manager");
    }
    struct acreI_aci *v =
        talloc_realloc(ctx, (void *)set->acis, struct acreI_aci, set->n + 1);
    cr_assert(v);
    set->acis = v;
    struct acreI_aci *a = &v[set->n++];
    memset(a, 0, sizeof(*a));
    a->holder = dn(holder);
    a->name = "t";
    a->t.scope = ACRE_SCOPE_SUB;
    return a;
}

static void
target(struct acreI_aci *a, const char *text, int neg)
{
    a->t.has |= ACREI_ACI_T_TARGET;
    a->t.target_neg = neg;
    a->t.target.text = text;
    a->t.target.len = strlen(text);
    if (strstr(text, "($dn)")) {
        a->t.target.kind = ACREI_ACI_PAT_PATTERN;
        a->t.target.flags = ACREI_ACI_MACRO_DN;
        a->flags |= ACREI_ACI_F_MACRO;
    } else if (strchr(text, '*')) {
        a->t.target.kind = ACREI_ACI_PAT_PATTERN;
    } else {
        a->t.target.kind = ACREI_ACI_PAT_DN;
        a->t.target.dn = dn(text);
    }
}

/* targetattr: names separated by spaces, or "*". */
static void
attrs(struct acreI_aci *a, const char *names, int neg)
{
    int *ids = talloc_zero_array(ctx, int, 16);
    char *copy = talloc_strdup(ctx, names), *save = NULL;

    a->t.has |= ACREI_ACI_T_ATTR;
    a->t.attr_neg = neg;
    for (char *w = strtok_r(copy, " ", &save); w;
         w = strtok_r(NULL, " ", &save)) {
        if (!strcmp(w, "*"))
            a->t.attr_star = 1;
        else
            ids[a->t.nattrs++] = type(w);
    }
    a->t.attrs = ids;
}

static void
tfilter(struct acreI_aci *a, const char *f, int neg)
{
    a->t.has |= ACREI_ACI_T_FILTER;
    a->t.filter = filter(f);
    a->t.filter_text = f;
    a->t.filter_neg = neg;
}

static void
perm(struct acreI_aci *a, int deny, unsigned rights, const struct acreI_bind *b)
{
    struct acreI_aci_perm *p = talloc_realloc(
        ctx, (void *)a->perms, struct acreI_aci_perm, a->nperms + 1);

    cr_assert(p);
    p[a->nperms].deny = deny;
    p[a->nperms].rights = rights;
    p[a->nperms].bind = b;
    a->perms = p;
    a->nperms++;
}

#define RS (ACREI_ACI_READ | ACREI_ACI_SEARCH)

/* ------------------------------------------------------------------------
 * Asking
 */

static struct acreR_aci *
who_full(const char *bind, const char *method, unsigned ssf, const char *ip,
         const char *dns, int64_t t)
{
    struct acreR_aci_who w = {bind, method, ssf, ip, dns, t, NULL};
    struct acreR_aci *o;

    if (!set) {
        set = talloc_zero(ctx, struct acreI_aci_set);
        set->rootdn = dn("cn=Directory Manager");
    }
    cr_assert_eq(acreR_aci_new(ctx, set, dir, &w, &o), 0);
    return o;
}

/* 2026-12-02 (a Wednesday) 10:30 */
#define WED_1030 1796207400

static struct acreR_aci *
who(const char *bind)
{
    return who_full(bind, NULL, 0, "127.0.0.1", "localhost", WED_1030);
}

static const acre_entry_view *
entry(const char *s)
{
    const struct acreE_entry *e = acreE_dir_find(dir, dn(s));

    cr_assert(e, "%s", s);
    return &e->v;
}

static int
can(const char *bind, const char *e, const char *attr, unsigned right)
{
    return acreR_aci_check(who(bind), entry(e), attr ? type(attr) : -1, right);
}

/* The RDNs of the entries a search below ou=people returns. */
static char *
uids(struct acreR_aci *o, const char *filter_text)
{
    struct acreR_aci_search *r;
    const char *want[] = {"uid"};
    char *s = talloc_strdup(ctx, "");

    cr_assert_eq(acreR_aci_search(o, ctx, PEOPLE, ACRE_SCOPE_SUB, filter_text,
                                  want, 1, &r),
                 0);
    cr_assert_eq(r->rc, 0);
    for (unsigned i = 0; i < r->nentries; i++) {
        const acre_entry_view *e = r->entries[i].entry;
        const char *rdn;
        size_t n;
        acre_dn_rdn(e->dn, 0, &rdn, &n, NULL, NULL);
        s = talloc_asprintf_append(s, "%s%.*s", *s ? " " : "", (int)n, rdn);
    }
    return s;
}

/* ------------------------------------------------------------------------
 * Decision
 */

Test(aci_oracle, default_deny_and_rootdn)
{
    cr_assert_not(can(ALICE, ALICE, "cn", ACREI_ACI_READ));
    cr_assert_not(can(NULL, ALICE, "cn", ACREI_ACI_READ));
    cr_assert(can("cn=Directory Manager", ALICE, "cn", ACREI_ACI_READ));
    cr_assert(acreR_aci_visible(who("cn=directory manager"), entry(BOB)));
}

Test(aci_oracle, deny_overrides_allow)
{
    struct acreI_aci *a = aci(SFX);
    attrs(a, "*", 0);
    perm(a, 0, RS, subj(ACREI_ACI_USERDN, ACREI_ACI_EQ, 1, "anyone"));
    struct acreI_aci *d = aci(PEOPLE);
    attrs(d, "mail", 0);
    perm(d, 1, ACREI_ACI_READ, subj(ACREI_ACI_USERDN, ACREI_ACI_EQ, 1, BOB));
    cr_assert(can(BOB, ALICE, "cn", ACREI_ACI_READ));
    cr_assert_not(can(BOB, ALICE, "mail", ACREI_ACI_READ));
    cr_assert(can(BOB, ALICE, "mail", ACREI_ACI_SEARCH));
    cr_assert(can(CAROL, ALICE, "mail", ACREI_ACI_READ));
    cr_assert(can(BOB, GROUPS, "ou", ACREI_ACI_READ)); /* outside the deny */
}

Test(aci_oracle, targetattr_forms)
{
    struct acreI_aci *a = aci(SFX);
    attrs(a, "cn sn", 0);
    perm(a, 0, RS, subj(ACREI_ACI_USERDN, ACREI_ACI_EQ, 1, "anyone"));
    struct acreI_aci *b = aci(SFX);
    attrs(b, "mail userPassword", 1); /* everything but these */
    perm(b, 0, ACREI_ACI_COMPARE,
         subj(ACREI_ACI_USERDN, ACREI_ACI_EQ, 1, "anyone"));
    cr_assert(can(NULL, ALICE, "cn", ACREI_ACI_READ));
    cr_assert(can(NULL, ALICE, "sn", ACREI_ACI_SEARCH));
    cr_assert_not(can(NULL, ALICE, "mail", ACREI_ACI_READ));
    cr_assert(acreR_aci_check(who(NULL), entry(ALICE),
                              acre_schema_attr_id(schema, "cn;lang-fr", 10),
                              ACREI_ACI_READ)); /* options ignored */
    cr_assert(can(NULL, ALICE, "uid", ACREI_ACI_COMPARE));
    cr_assert_not(can(NULL, ALICE, "mail", ACREI_ACI_COMPARE));
    cr_assert_not(can(BOB, ALICE, NULL, ACREI_ACI_READ)); /* entry level */
    /* 389's anonymous profile grants the entry level from any anyone ACI
     * with read about the entry */
    cr_assert(can(NULL, ALICE, NULL, ACREI_ACI_READ));
}

Test(aci_oracle, entry_level_and_attribute_level)
{
    struct acreI_aci *e = aci(SFX); /* no targetattr: entry level only */
    perm(e, 0, RS | ACREI_ACI_ADD,
         subj(ACREI_ACI_USERDN, ACREI_ACI_EQ, 1, "anyone"));
    cr_assert(can(NULL, ALICE, NULL, ACREI_ACI_READ));
    cr_assert_not(can(NULL, ALICE, "cn", ACREI_ACI_READ));
    cr_assert(can(NULL, ALICE, "cn", ACREI_ACI_ADD)); /* add needs no attr */
    struct acreI_aci *w = aci(SFX); /* targetattr + write: modrdn case */
    attrs(w, "cn", 0);
    perm(w, 0, ACREI_ACI_WRITE, subj(ACREI_ACI_USERDN, ACREI_ACI_EQ, 1, BOB));
    cr_assert(can(BOB, ALICE, NULL, ACREI_ACI_WRITE));
    cr_assert(can(BOB, ALICE, "cn", ACREI_ACI_WRITE));
    cr_assert_not(can(BOB, ALICE, "sn", ACREI_ACI_WRITE));
}

Test(aci_oracle, targets)
{
    struct acreI_aci *a = aci(SFX);
    target(a, GROUPS, 0);
    attrs(a, "cn", 0);
    perm(a, 0, RS, subj(ACREI_ACI_USERDN, ACREI_ACI_EQ, 1, "anyone"));
    struct acreI_aci *p = aci(SFX);
    target(p, "uid=*," PEOPLE, 0);
    attrs(p, "sn", 0);
    perm(p, 0, RS, subj(ACREI_ACI_USERDN, ACREI_ACI_EQ, 1, "anyone"));
    struct acreI_aci *n = aci(SFX);
    target(n, PEOPLE, 1);
    attrs(n, "ou", 0);
    perm(n, 0, RS, subj(ACREI_ACI_USERDN, ACREI_ACI_EQ, 1, "anyone"));
    cr_assert(can(NULL, "cn=g1," GROUPS, "cn", ACREI_ACI_READ));
    cr_assert_not(can(NULL, ALICE, "cn", ACREI_ACI_READ));
    cr_assert(can(NULL, ALICE, "sn", ACREI_ACI_READ));
    /* 389 finds the initial part anywhere: ou=sub,uid=carol,... matches */
    cr_assert(can(NULL, "ou=sub," CAROL, "ou", ACREI_ACI_READ) == 0);
    cr_assert(acreR_aci_check(who(NULL), entry("ou=sub," CAROL), type("sn"),
                              ACREI_ACI_READ));
    cr_assert_not(can(NULL, PEOPLE, "sn", ACREI_ACI_READ));
    cr_assert(can(NULL, GROUPS, "ou", ACREI_ACI_READ));
    cr_assert_not(can(NULL, PEOPLE, "ou", ACREI_ACI_READ));
}

Test(aci_oracle, holders_and_root_dse)
{
    struct acreI_aci *a = aci(GROUPS);
    attrs(a, "cn", 0);
    perm(a, 0, RS, subj(ACREI_ACI_USERDN, ACREI_ACI_EQ, 1, "anyone"));
    struct acreI_aci *r = aci("");
    attrs(r, "*", 0);
    perm(r, 0, RS, subj(ACREI_ACI_USERDN, ACREI_ACI_EQ, 1, "anyone"));
    cr_assert(can(NULL, "cn=g1," GROUPS, "cn", ACREI_ACI_READ));
    cr_assert_not(can(NULL, ALICE, "cn", ACREI_ACI_READ));
    cr_assert_not(can(NULL, SFX, "dc", ACREI_ACI_READ));
}

Test(aci_oracle, targetfilter)
{
    struct acreI_aci *a = aci(SFX);
    tfilter(a, "(departmentNumber=42)", 0);
    attrs(a, "cn", 0);
    perm(a, 0, RS, subj(ACREI_ACI_USERDN, ACREI_ACI_EQ, 1, "anyone"));
    struct acreI_aci *n = aci(SFX);
    tfilter(n, "(departmentNumber=42)", 1);
    attrs(n, "sn", 0);
    perm(n, 0, RS, subj(ACREI_ACI_USERDN, ACREI_ACI_EQ, 1, "anyone"));
    cr_assert(can(NULL, ALICE, "cn", ACREI_ACI_READ));
    cr_assert_not(can(NULL, CAROL, "cn", ACREI_ACI_READ));
    cr_assert_not(can(NULL, ALICE, "sn", ACREI_ACI_READ));
    cr_assert(can(NULL, CAROL, "sn", ACREI_ACI_READ));
    cr_assert(can(NULL, GROUPS, "sn", ACREI_ACI_READ));
}

Test(aci_oracle, targetscope)
{
    struct acreI_aci *a = aci(SFX);
    set->variant = ACREI_ACI_OPENDJ; /* 389 2.3 has no targetscope */
    target(a, PEOPLE, 0);
    a->t.has |= ACREI_ACI_T_SCOPE;
    a->t.scope = ACRE_SCOPE_ONE;
    attrs(a, "*", 0);
    perm(a, 0, RS, subj(ACREI_ACI_USERDN, ACREI_ACI_EQ, 1, "anyone"));
    cr_assert(can(NULL, ALICE, "cn", ACREI_ACI_READ));
    cr_assert_not(can(NULL, PEOPLE, "ou", ACREI_ACI_READ));
    cr_assert_not(can(NULL, "ou=sub," CAROL, "ou", ACREI_ACI_READ));
}

/* ------------------------------------------------------------------------
 * Bind rules: the rows of 389-findings.md (e)-(l), read on uid
 */

static void
uid_rule(const struct acreI_bind *b)
{
    struct acreI_aci *a = aci(SFX);
    attrs(a, "uid", 0);
    perm(a, 0, RS, b);
}

/* Who of anonymous, alice, bob, carol reads uid on entry e. */
static char *
readers(const char *e)
{
    const char *names[] = {"-", "alice", "bob", "carol"};
    const char *dns[] = {NULL, ALICE, BOB, CAROL};
    char *s = talloc_strdup(ctx, "");

    for (int i = 0; i < 4; i++)
        if (can(dns[i], e, "uid", ACREI_ACI_READ))
            s = talloc_asprintf_append(s, "%s%s", *s ? " " : "", names[i]);
    return s;
}

#define READERS(e, want) cr_assert_str_eq(readers(e), want, "on %s", e)

Test(aci_oracle, userdn_forms)
{
    uid_rule(subj(ACREI_ACI_USERDN, ACREI_ACI_EQ, 1, "all"));
    READERS(ALICE, "alice bob carol");
}

Test(aci_oracle, userdn_self_and_ne)
{
    uid_rule(subj(ACREI_ACI_USERDN, ACREI_ACI_NE, 1, "self"));
    READERS(ALICE, "- bob carol");
    READERS(BOB, "- alice carol");
}

Test(aci_oracle, userdn_parent)
{
    uid_rule(subj(ACREI_ACI_USERDN, ACREI_ACI_EQ, 1, "parent"));
    READERS(ALICE, "");
    READERS("ou=sub," CAROL, "carol");
}

Test(aci_oracle, userdn_patterns_urls_lists)
{
    uid_rule(subj(ACREI_ACI_USERDN, ACREI_ACI_EQ, 1, "uid=a*," PEOPLE));
    READERS(BOB, "alice");
}

Test(aci_oracle, userdn_url)
{
    uid_rule(subj(ACREI_ACI_USERDN, ACREI_ACI_EQ, 1,
                  PEOPLE "??sub?(departmentNumber=42)"));
    READERS(CAROL, "alice bob");
}

Test(aci_oracle, userdn_url_one)
{
    uid_rule(subj(ACREI_ACI_USERDN, ACREI_ACI_EQ, 1, PEOPLE "??one?(sn=C)"));
    READERS(CAROL, "carol");
}

Test(aci_oracle, userdn_list_and_not)
{
    uid_rule(subj(ACREI_ACI_USERDN, ACREI_ACI_EQ, 2, ALICE, CAROL));
    READERS(BOB, "alice carol");
}

Test(aci_oracle, userdn_ne_dn)
{
    uid_rule(not_(subj(ACREI_ACI_USERDN, ACREI_ACI_EQ, 1, ALICE)));
    READERS(BOB, "- bob carol");
}

Test(aci_oracle, userdn_self_ends_the_list)
{
    /* 389's DS_LASUserDnEval stops at "self" whether it matched or not */
    uid_rule(subj(ACREI_ACI_USERDN, ACREI_ACI_EQ, 2, "self", CAROL));
    READERS(ALICE, "alice");
    uid_rule(subj(ACREI_ACI_USERDN, ACREI_ACI_EQ, 2, CAROL, "self"));
    READERS(BOB, "bob carol");
}

Test(aci_oracle, groupdn_nesting)
{
    uid_rule(subj(ACREI_ACI_GROUPDN, ACREI_ACI_EQ, 1, "cn=g1," GROUPS));
    READERS(CAROL, "alice"); /* bob is 7 levels down: undefined */
}

Test(aci_oracle, groupdn_six_levels)
{
    uid_rule(subj(ACREI_ACI_GROUPDN, ACREI_ACI_EQ, 1, "cn=g2," GROUPS));
    READERS(CAROL, "bob");
}

Test(aci_oracle, groupdn_ne_undefined)
{
    uid_rule(subj(ACREI_ACI_GROUPDN, ACREI_ACI_NE, 1, "cn=g1," GROUPS));
    READERS(ALICE, "-"); /* bob, carol: the walk hits the limit */
}

Test(aci_oracle, groupdn_undefined_deny_denies)
{
    uid_rule(subj(ACREI_ACI_USERDN, ACREI_ACI_EQ, 1, "anyone"));
    struct acreI_aci *d = aci(SFX);
    attrs(d, "uid", 0);
    perm(d, 1, ACREI_ACI_READ,
         subj(ACREI_ACI_GROUPDN, ACREI_ACI_EQ, 1, "cn=g1," GROUPS));
    READERS(ALICE, "-"); /* alice: true; bob, carol: undefined */
}

Test(aci_oracle, groupdn_unique_dynamic_cycle)
{
    uid_rule(subj(ACREI_ACI_GROUPDN, ACREI_ACI_EQ, 2, "cn=u1," GROUPS,
                  "cn=dyn," GROUPS));
    READERS(ALICE, "alice bob carol");
    uid_rule(subj(ACREI_ACI_GROUPDN, ACREI_ACI_EQ, 1, "cn=cyc1," GROUPS));
    READERS(ALICE, "alice bob carol");
}

Test(aci_oracle, groupdn_cycle_terminates)
{
    uid_rule(subj(ACREI_ACI_GROUPDN, ACREI_ACI_EQ, 1, "cn=cyc1," GROUPS));
    READERS(ALICE, "carol");
}

Test(aci_oracle, roledn)
{
    uid_rule(subj(ACREI_ACI_ROLEDN, ACREI_ACI_EQ, 1, "cn=mrole," SFX));
    READERS(BOB, "alice");
}

Test(aci_oracle, roledn_filtered_and_ne)
{
    uid_rule(subj(ACREI_ACI_ROLEDN, ACREI_ACI_EQ, 1, "cn=frole," SFX));
    READERS(BOB, "carol");
    uid_rule(subj(ACREI_ACI_ROLEDN, ACREI_ACI_NE, 1, "cn=mrole," SFX));
    READERS(BOB, "- bob carol"); /* the frole rule still grants carol */
}

Test(aci_oracle, userattr_userdn)
{
    uid_rule(userattr(ACREI_ACI_EQ, "manager", ACREI_ACI_UA_USERDN, 0, NULL));
    READERS(ALICE, "bob");
    READERS(BOB, "");
}

Test(aci_oracle, userattr_groupdn)
{
    uid_rule(userattr(ACREI_ACI_EQ, "seeAlso", ACREI_ACI_UA_GROUPDN, 0, NULL));
    READERS(BOB, "alice");
}

Test(aci_oracle, userattr_value)
{
    uid_rule(userattr(ACREI_ACI_EQ, "departmentNumber", ACREI_ACI_UA_VALUE, 0,
                      "42"));
    READERS(ALICE, "alice bob");
    READERS(CAROL, "");
    /* "parent[0,1].departmentNumber#42": the parser's attr -1, never true */
    struct acreI_bind *pv =
        userattr(ACREI_ACI_EQ, "departmentNumber", ACREI_ACI_UA_VALUE, 0, "42");
    pv->attr = -1;
    set = NULL;
    uid_rule(pv);
    READERS(ALICE, "");
}

Test(aci_oracle, userattr_value_mismatch_is_undefined)
{
    uid_rule(subj(ACREI_ACI_USERDN, ACREI_ACI_EQ, 1, "anyone"));
    struct acreI_aci *d = aci(SFX);
    attrs(d, "uid", 0);
    perm(d, 1, ACREI_ACI_READ,
         userattr(ACREI_ACI_EQ, "departmentNumber", ACREI_ACI_UA_VALUE, 0,
                  "42"));
    /* no match: undefined, and a deny denies -- except anonymous, whom
     * 389's anonymous profile lets through (the deny is not an "anyone"
     * ACI, so the profile ignores it) */
    READERS(CAROL, "-");
}

Test(aci_oracle, userattr_parent_levels)
{
    uid_rule(userattr(ACREI_ACI_EQ, "manager", ACREI_ACI_UA_USERDN, 0x3, NULL));
    READERS(ALICE, "bob");
    struct acreI_aci *a = aci(SFX);
    attrs(a, "ou", 0);
    perm(a, 0, RS,
         userattr(ACREI_ACI_EQ, "uid", ACREI_ACI_UA_VALUE, 0, "nobody"));
    cr_assert_not(can(CAROL, "ou=sub," CAROL, "ou", ACREI_ACI_READ));
}

Test(aci_oracle, userattr_roledn_and_ldapurl)
{
    uid_rule(userattr(ACREI_ACI_EQ, "nsRoleDN", ACREI_ACI_UA_ROLEDN, 0, NULL));
    READERS(ALICE, "alice");
    uid_rule(
        userattr(ACREI_ACI_EQ, "labeledURI", ACREI_ACI_UA_LDAPURL, 0, NULL));
    READERS(CAROL, "bob");
}

Test(aci_oracle, authmethod_ssf)
{
    uid_rule(text_kw(ACREI_ACI_AUTHMETHOD, ACREI_ACI_EQ, "simple"));
    READERS(ALICE, "alice bob carol");
    set = NULL;
    uid_rule(text_kw(ACREI_ACI_AUTHMETHOD, ACREI_ACI_EQ, "none"));
    READERS(ALICE, "- alice bob carol");
    set = NULL;
    uid_rule(text_kw(ACREI_ACI_AUTHMETHOD, ACREI_ACI_EQ, "sasl EXTERNAL"));
    cr_assert(
        acreR_aci_check(who_full(ALICE, "SASL/external", 0, NULL, NULL, 0),
                        entry(ALICE), type("uid"), ACREI_ACI_READ));
    cr_assert_not(can(ALICE, ALICE, "uid", ACREI_ACI_READ));
    set = NULL;
    uid_rule(num_kw(ACREI_ACI_SSF, ACREI_ACI_GE, 128));
    cr_assert_not(can(ALICE, ALICE, "uid", ACREI_ACI_READ));
    cr_assert(acreR_aci_check(who_full(ALICE, NULL, 256, NULL, NULL, 0),
                              entry(ALICE), type("uid"), ACREI_ACI_READ));
}

Test(aci_oracle, ip_dns_unknown_is_undefined)
{
    uid_rule(ip4(ACREI_ACI_EQ, 127, 0, 0, 0, 8));
    READERS(ALICE, "- alice bob carol");
    cr_assert_not(acreR_aci_check(who_full(ALICE, NULL, 0, "10.1.1.1", NULL, 0),
                                  entry(ALICE), type("uid"), ACREI_ACI_READ));
    set = NULL;
    uid_rule(text_kw(ACREI_ACI_DNS, ACREI_ACI_EQ, "*.example.com, localhost"));
    READERS(ALICE, "- alice bob carol");
    cr_assert(
        acreR_aci_check(who_full(ALICE, NULL, 0, NULL, "ws.Example.COM", 0),
                        entry(ALICE), type("uid"), ACREI_ACI_READ));
    /* unknown address: an undefined deny denies */
    set = NULL;
    uid_rule(subj(ACREI_ACI_USERDN, ACREI_ACI_EQ, 1, "anyone"));
    struct acreI_aci *d = aci(SFX);
    attrs(d, "uid", 0);
    perm(d, 1, ACREI_ACI_READ, ip4(ACREI_ACI_NE, 127, 0, 0, 1, 32));
    READERS(ALICE, "- alice bob carol");
    cr_assert_not(acreR_aci_check(who_full(ALICE, NULL, 0, NULL, NULL, 0),
                                  entry(ALICE), type("uid"), ACREI_ACI_READ));
}

Test(aci_oracle, dayofweek_timeofday)
{
    struct acreI_bind *wed = node(ACREI_ACI_DAYOFWEEK, ACREI_ACI_EQ);
    wed->days = 1u << 3;
    uid_rule(and_(wed, num_kw(ACREI_ACI_TIMEOFDAY, ACREI_ACI_LT, 1100)));
    READERS(ALICE, "- alice bob carol");
    set = NULL;
    uid_rule(num_kw(ACREI_ACI_TIMEOFDAY, ACREI_ACI_GE, 1031));
    READERS(ALICE, "");
    set = NULL;
    struct acreI_bind *thu = node(ACREI_ACI_DAYOFWEEK, ACREI_ACI_EQ);
    thu->days = 1u << 4;
    uid_rule(thu);
    READERS(ALICE, "");
}

Test(aci_oracle, three_valued_logic)
{
    /* bob in g1: undefined; not undefined is undefined; libaccess walks
     * left to right and stops at the first undefined keyword, so "U or
     * T" and "U and F" are undefined (an undefined deny denies) */
    const struct acreI_bind *g1 =
        subj(ACREI_ACI_GROUPDN, ACREI_ACI_EQ, 1, "cn=g1," GROUPS);
    uid_rule(not_(g1));
    READERS(ALICE, "-");
    set = NULL;
    uid_rule(or_(g1, subj(ACREI_ACI_USERDN, ACREI_ACI_EQ, 1, "self")));
    READERS(BOB, "alice");
    set = NULL;
    uid_rule(or_(subj(ACREI_ACI_USERDN, ACREI_ACI_EQ, 1, "self"), g1));
    READERS(BOB, "alice bob");
    set = NULL;
    struct acreI_aci *a = aci(SFX);
    attrs(a, "uid", 0);
    perm(a, 0, RS, subj(ACREI_ACI_USERDN, ACREI_ACI_EQ, 1, "anyone"));
    struct acreI_aci *d = aci(SFX);
    attrs(d, "uid", 0);
    perm(d, 1, ACREI_ACI_READ,
         and_(g1, subj(ACREI_ACI_USERDN, ACREI_ACI_EQ, 1, ALICE)));
    READERS(BOB, "-"); /* alice: T and T; bob, carol: U, stops there */
}

Test(aci_oracle, macro_dn)
{
    struct acreI_aci *a = aci(SFX);
    target(a, "($dn)," SFX, 0);
    attrs(a, "uid", 0);
    perm(a, 0, RS,
         subj(ACREI_ACI_USERDN, ACREI_ACI_EQ, 1, "uid=alice,[$dn]," SFX));
    /* the target matches uid=bob,ou=people; [$dn] tries that and
     * ou=people: uid=alice,ou=people,dc=example,dc=com */
    READERS(BOB, "alice");
    READERS(SFX, "");
}

/* ------------------------------------------------------------------------
 * Searches: 389-findings.md (a)-(c)
 */

static void
anyone_attrs(const char *names, unsigned rights)
{
    struct acreI_aci *a = aci(SFX);
    attrs(a, names, 0);
    perm(a, 0, rights, subj(ACREI_ACI_USERDN, ACREI_ACI_EQ, 1, "anyone"));
}

/* The attributes returned for entry i of r, space separated. */
static char *
returned(const struct acreR_aci_search *r, unsigned i)
{
    const struct acreR_aci_sentry *se = &r->entries[i];
    char *s = talloc_strdup(ctx, "");

    for (unsigned k = 0; k < se->nattrs; k++) {
        int id = se->entry->attrs[se->attrs[k]].id;
        s = talloc_asprintf_append(s, "%s%s", *s ? " " : "",
                                   acreS_dinfo(schema, id)->text);
    }
    return s;
}

Test(aci_oracle, search_needs_search_on_filter_attrs)
{
    anyone_attrs("cn sn", RS);
    struct acreR_aci *o = who(NULL);
    cr_assert_str_eq(uids(o, "(objectClass=*)"), "");
    cr_assert_str_eq(uids(o, "(cn=*)"), "uid=alice uid=bob uid=carol");
    struct acreR_aci_search *r;
    const char *want[] = {"cn", "mail", "sn"};
    cr_assert_eq(
        acreR_aci_search(o, ctx, ALICE, ACRE_SCOPE_BASE, "(cn=*)", want, 3, &r),
        0);
    cr_assert_eq(r->nentries, 1);
    cr_assert_str_eq(returned(r, 0), "cn sn");
    cr_assert_eq(
        acreR_aci_search(o, ctx, ALICE, ACRE_SCOPE_BASE, "(cn=*)", NULL, 0, &r),
        0);
    cr_assert_str_eq(returned(r, 0), "cn sn");
    const char *none[] = {"1.1"};
    cr_assert_eq(
        acreR_aci_search(o, ctx, ALICE, ACRE_SCOPE_BASE, "(cn=*)", none, 1, &r),
        0);
    cr_assert_eq(r->nentries, 1);
    cr_assert_str_eq(returned(r, 0), "");
    cr_assert_eq(acreR_aci_search(o, ctx, "cn=nobody," SFX, ACRE_SCOPE_BASE,
                                  "(cn=*)", NULL, 0, &r),
                 0);
    /* 389's findentry.c: the nearest ancestor (the suffix) may not be
     * read on "1.1" (no targetattr="*" here): success, nothing */
    cr_assert_eq(r->rc, 0);
    cr_assert_eq(r->nentries, 0);
    cr_assert_eq(acreR_aci_search(o, ctx, SFX, ACRE_SCOPE_CHILDREN, "(cn=*)",
                                  NULL, 0, &r),
                 0);
    cr_assert_eq(r->rc, 2); /* 389-findings.md: no children scope */
}

Test(aci_oracle, visible_by_read_on_any_attribute)
{
    anyone_attrs("cn", ACREI_ACI_SEARCH);
    anyone_attrs("description", ACREI_ACI_READ);
    struct acreR_aci *o = who(NULL);
    cr_assert_str_eq(uids(o, "(cn=*)"), "uid=alice uid=bob uid=carol");
    struct acreR_aci_search *r;
    cr_assert_eq(
        acreR_aci_search(o, ctx, PEOPLE, ACRE_SCOPE_ONE, "(cn=*)", NULL, 0, &r),
        0);
    cr_assert_eq(r->nentries, 3);
    cr_assert_str_eq(returned(r, 0), "description");
    cr_assert_str_eq(returned(r, 1), "");
}

Test(aci_oracle, visible_by_read_on_absent_attribute)
{
    anyone_attrs("cn", ACREI_ACI_SEARCH);
    anyone_attrs("title", ACREI_ACI_READ);
    cr_assert_str_eq(uids(who(NULL), "(cn=*)"), "uid=alice uid=bob uid=carol");
}

Test(aci_oracle, search_without_read_returns_nothing)
{
    anyone_attrs("cn", ACREI_ACI_SEARCH);
    cr_assert_str_eq(uids(who(NULL), "(cn=*)"), "");
}

Test(aci_oracle, entry_level_read_returns_bare_dns)
{
    anyone_attrs("cn", ACREI_ACI_SEARCH);
    struct acreI_aci *e = aci(SFX);
    perm(e, 0, ACREI_ACI_READ,
         subj(ACREI_ACI_USERDN, ACREI_ACI_EQ, 1, "anyone"));
    struct acreR_aci_search *r;
    cr_assert_eq(acreR_aci_search(who(NULL), ctx, PEOPLE, ACRE_SCOPE_ONE,
                                  "(cn=*)", NULL, 0, &r),
                 0);
    cr_assert_eq(r->nentries, 3);
    cr_assert_str_eq(returned(r, 0), "");
}

Test(aci_oracle, entry_level_deny_hides)
{
    anyone_attrs("*", RS);
    struct acreI_aci *d = aci(SFX);
    target(d, BOB, 0);
    perm(d, 1, ACREI_ACI_READ,
         subj(ACREI_ACI_USERDN, ACREI_ACI_EQ, 1, "anyone"));
    cr_assert_str_eq(uids(who(NULL), "(uid=*)"), "uid=alice uid=carol");
    cr_assert(acreR_aci_visible(who(NULL), entry(ALICE)));
    cr_assert_not(acreR_aci_visible(who(NULL), entry(BOB)));
}

Test(aci_oracle, attribute_deny_keeps_entry)
{
    anyone_attrs("*", RS);
    struct acreI_aci *d = aci(SFX);
    target(d, BOB, 0);
    attrs(d, "cn sn", 0);
    perm(d, 1, ACREI_ACI_READ,
         subj(ACREI_ACI_USERDN, ACREI_ACI_EQ, 1, "anyone"));
    struct acreR_aci_search *r;
    const char *want[] = {"uid", "cn", "sn", "mail"};
    cr_assert_eq(acreR_aci_search(who(NULL), ctx, BOB, ACRE_SCOPE_BASE,
                                  "(cn=*)", want, 4, &r),
                 0);
    cr_assert_eq(r->nentries, 1);
    cr_assert_str_eq(returned(r, 0), "uid mail");
}

/* 389-findings.md (c): read,search on cn uid sn; read only on mail.  Base
 * ou=people: the entries ou=people, alice, bob, carol, ou=sub. */
#define ALL4 "ou=people uid=alice uid=bob uid=carol ou=sub"

static char *
people(const char *f)
{
    struct acreR_aci_search *r;
    char *s = talloc_strdup(ctx, "");

    cr_assert_eq(acreR_aci_search(who(NULL), ctx, PEOPLE, ACRE_SCOPE_SUB, f,
                                  NULL, 0, &r),
                 0);
    for (unsigned i = 0; i < r->nentries; i++) {
        const char *rdn;
        size_t n;
        acre_dn_rdn(r->entries[i].entry->dn, 0, &rdn, &n, NULL, NULL);
        s = talloc_asprintf_append(s, "%s%.*s", *s ? " " : "", (int)n, rdn);
    }
    return s;
}

Test(aci_oracle, filter_rules_of_389)
{
    anyone_attrs("cn uid sn", RS);
    anyone_attrs("mail", ACREI_ACI_READ);
    cr_assert_str_eq(people("(mail=alice@example.com)"), "");
    cr_assert_str_eq(people("(|(mail=alice@example.com)(uid=bob))"), "uid=bob");
    cr_assert_str_eq(people("(|(mail=zzz)(uid=bob))"), "uid=bob");
    cr_assert_str_eq(people("(|(uid=bob)(mail=zzz))"), "uid=bob");
    cr_assert_str_eq(people("(!(mail=zzz))"), "");
    cr_assert_str_eq(people("(!(mail=alice@example.com))"), "");
    cr_assert_str_eq(people("(&(uid=alice)(!(mail=zzz)))"), "");
    cr_assert_str_eq(people("(!(!(mail=alice@example.com)))"), "");
    cr_assert_str_eq(people("(&(uid=*)(!(mail=*)))"), "");
    cr_assert_str_eq(people("(!(&(mail=alice@example.com)(uid=bob)))"),
                     "ou=people uid=alice uid=carol ou=sub");
    cr_assert_str_eq(people("(!(|(mail=zzz)(cn=zzz)))"), ALL4);
    cr_assert_str_eq(people("(!(|(cn=zzz)(mail=zzz)))"), ALL4);
    cr_assert_str_eq(people("(!(cn=zzz))"), ALL4);
    /* filterentry.c's OR ignores the unsearchable part (alice: FALSE, so
     * the NOT is TRUE), but the plain match of the filter must hold too,
     * and for alice it is FALSE */
    cr_assert_str_eq(people("(!(|(mail=alice@example.com)(uid=bob)))"),
                     "ou=people uid=carol ou=sub");
    /* an OR asked for access alone still matches its parts (2.3.1's
     * list_or never looks at only_check_access): an OR part that is an
     * OR matching nothing is ignored like an unsearchable item, and so is
     * a NOT over one (the NOT hands the access answer on unchanged).
     * Checked against 389-DS 2.3.1: the last three hide every entry. */
    cr_assert_str_eq(people("(|(|(uid=zzz)(cn=zzz))(sn=B))"), "uid=bob");
    cr_assert_str_eq(people("(!(|(|(uid=zzz)(cn=zzz))(sn=zzz)))"), ALL4);
    cr_assert_str_eq(people("(!(|(|(uid=zzz)(cn=zzz))(mail=zzz)))"), "");
    cr_assert_str_eq(people("(|(!(|(cn=zzz)(uid=zzz)))(sn=zzz))"), "");
    cr_assert_str_eq(people("(|(!(|(cn=zzz)(uid=zzz)))(sn=B))"), "uid=bob");
}

Test(aci_oracle, filter_three_values)
{
    anyone_attrs("cn uid", RS);
    struct acreR_aci *o = who(NULL);
    const acre_entry_view *e = entry(ALICE);
    cr_assert_eq(acreR_aci_filter(o, e, filter("(uid=alice)")), 1);
    cr_assert_eq(acreR_aci_filter(o, e, filter("(uid=bob)")), 0);
    cr_assert_eq(acreR_aci_filter(o, e, filter("(sn=A)")), -1);
    cr_assert_eq(acreR_aci_filter(o, e, filter("(|(sn=A)(cn=x))")), 0);
    cr_assert_eq(acreR_aci_filter(o, e, filter("(|(sn=A)(sn=B))")), -1);
    cr_assert_eq(acreR_aci_filter(o, e, filter("(&(sn=A)(cn=alice))")), -1);
    cr_assert_eq(acreR_aci_filter(o, e, filter("(&(sn=A)(cn=x))")), 0);
    cr_assert_eq(
        acreR_aci_filter(who("cn=directory manager"), e, filter("(sn=A)")), 1);
}

/* ------------------------------------------------------------------------
 * 389's anonymous profile
 */

Test(aci_oracle, anonymous_profile_ignores_ne)
{
    /* 389-findings.md: userdn!="ldap:///anyone" grants anonymous only */
    uid_rule(subj(ACREI_ACI_USERDN, ACREI_ACI_NE, 1, "anyone"));
    READERS(ALICE, "-");
}

Test(aci_oracle, anonymous_profile_cancelled_by_complex_rule)
{
    anyone_attrs("cn", ACREI_ACI_SEARCH);
    struct acreI_aci *e = aci(SFX);
    perm(e, 0, ACREI_ACI_READ,
         and_(subj(ACREI_ACI_USERDN, ACREI_ACI_EQ, 1, "anyone"),
              ip4(ACREI_ACI_EQ, 127, 0, 0, 0, 8)));
    /* no profile: the ordinary path finds no readable attribute */
    cr_assert_str_eq(uids(who(NULL), "(cn=*)"), "");
    cr_assert(can(NULL, ALICE, NULL, ACREI_ACI_READ));
    cr_assert_not(acreR_aci_visible(who(NULL), entry(ALICE)));
}

Test(aci_oracle, anonymous_profile_cancelled_by_deny)
{
    anyone_attrs("cn uid", RS);
    struct acreI_aci *d = aci(SFX);
    target(d, BOB, 0);
    attrs(d, "uid", 0);
    perm(d, 1, ACREI_ACI_READ,
         subj(ACREI_ACI_USERDN, ACREI_ACI_EQ, 1, "anyone"));
    cr_assert_not(can(NULL, BOB, "uid", ACREI_ACI_READ));
    cr_assert(can(NULL, ALICE, "uid", ACREI_ACI_READ));
    cr_assert_not(can(NULL, ALICE, NULL, ACREI_ACI_READ));
}

Test(aci_oracle, subentries_only_when_asked)
{
    anyone_attrs("cn objectClass", RS);
    struct acreR_aci_search *r;
    cr_assert_eq(acreR_aci_search(who(ALICE), ctx, SFX, ACRE_SCOPE_ONE,
                                  "(cn=*role)", NULL, 0, &r),
                 0);
    cr_assert_eq(r->nentries, 0);
    cr_assert_eq(acreR_aci_search(who(ALICE), ctx, SFX, ACRE_SCOPE_ONE,
                                  "(&(cn=*role)(objectClass=LDAPsubentry))",
                                  NULL, 0, &r),
                 0);
    cr_assert_eq(r->nentries, 2);
    cr_assert_eq(acreR_aci_search(who(ALICE), ctx, "cn=mrole," SFX,
                                  ACRE_SCOPE_BASE, "(cn=*)", NULL, 0, &r),
                 0);
    cr_assert_eq(r->nentries, 1);
}

Test(aci_oracle, anonymous_profile_ignores_macro_targets)
{
    /* 389 keeps a ($dn) target out of aci->target, so its anonymous
     * profile takes the holder's subtree: the suffix itself too */
    struct acreI_aci *a = aci(SFX);
    target(a, "uid=*,($dn)," SFX, 0);
    attrs(a, "dc uid", 0);
    perm(a, 0, RS, subj(ACREI_ACI_USERDN, ACREI_ACI_EQ, 1, "anyone"));
    cr_assert(can(NULL, SFX, "dc", ACREI_ACI_READ));
    cr_assert_not(can(BOB, SFX, "dc", ACREI_ACI_READ));
    cr_assert(can(BOB, CAROL, "uid", ACREI_ACI_READ));
    cr_assert_not(can(BOB, PEOPLE, "uid", ACREI_ACI_READ));
}

Test(aci_oracle, explicit_star_returns_aci)
{
    /* observed on 389-DS 2.3.1: an explicit "*" returns the operational
     * aci attribute, an empty list does not */
    anyone_attrs("*", RS);
    struct acreR_aci_search *r;
    const char *star[] = {"*"}, *plus[] = {"+"};
    cr_assert_eq(acreR_aci_search(who(BOB), ctx, SFX, ACRE_SCOPE_BASE, "(dc=*)",
                                  star, 1, &r),
                 0);
    cr_assert_str_eq(returned(r, 0), "objectClass dc aci");
    cr_assert_eq(acreR_aci_search(who(BOB), ctx, SFX, ACRE_SCOPE_BASE, "(dc=*)",
                                  NULL, 0, &r),
                 0);
    cr_assert_str_eq(returned(r, 0), "objectClass dc");
    cr_assert_eq(acreR_aci_search(who(BOB), ctx, SFX, ACRE_SCOPE_BASE, "(dc=*)",
                                  plus, 1, &r),
                 0);
    cr_assert_str_eq(returned(r, 0), "aci"); /* 389 keeps no
                                                 structuralObjectClass */
}

Test(aci_oracle, entry_level_deny_without_allow_hides_unevaluated)
{
    /* 389-DS 2.3.1, probed: acl__TestRights denies at once when no allow
     * ACI is about the entry, and counts it as a deny when a deny ACI is
     * -- whose bind rule (here FALSE for bob) is never evaluated */
    anyone_attrs("*", RS);
    struct acreI_aci *d = aci(SFX);
    perm(d, 1, RS,
         subj(ACREI_ACI_USERDN, ACREI_ACI_EQ, 1, "uid=nobody," PEOPLE));
    cr_assert_not(acreR_aci_visible(who(BOB), entry(ALICE)));
    cr_assert(can(BOB, ALICE, "cn", ACREI_ACI_READ));
    /* an entry-level allow makes it evaluate the deny: FALSE, visible */
    struct acreI_aci *e = aci(SFX);
    perm(e, 0, ACREI_ACI_READ,
         subj(ACREI_ACI_USERDN, ACREI_ACI_EQ, 1, "uid=nobody," PEOPLE));
    cr_assert(acreR_aci_visible(who(BOB), entry(ALICE)));
}
