/*
 * openldap_gen.c -- the seeded generator of OpenLDAP access-control test
 * cases (see openldap_gen.h).
 *
 * Shape of a case
 *   Directory: dc=example,dc=com with ou=people (and sometimes ou=staff
 *   and ou=contractors below it), ou=groups, sometimes ou=admin and an
 *   empty ou; inetOrgPerson users (mostly uid=uN; some named by cn, a
 *   few of those with an escaped comma, a multi-valued RDN or non-ASCII
 *   letters), devices below some users, groupOfNames, groupOfUniqueNames
 *   and groupOfURLs groups.  Users point at each other through manager
 *   and seeAlso; groups list users, sometimes other groups and DNs of
 *   entries that do not exist.  Users (and some groups) hold values with
 *   options: language tags on cn, sn, description and title, one or two
 *   on a value, the description spelt in any case or by alias, a French
 *   cn sometimes equal to the plain one.  Sometimes a second tree,
 *   o=elsewhere, mostly held by a second database, else by none; now
 *   and then ou=staff held by a database of its own, glued to the first
 *   one with "subordinate" or apart, with rules of its own (glued, now
 *   and then with ou=people glued between them, rules of its own too).
 *   Policy: 0-3 global rules and 0-11 database rules (now and then up to
 *   30), random ones mixed with idioms administrators write, each a
 *   <what> (dn styles, regexes with captures, filters, attribute lists
 *   with classes, pseudo-attributes, options, language ranges such as
 *   cn;lang-en- and exact "-" items, val conditions, some on optioned
 *   types) and 1-4 <by> clauses (every <who> form acre knows,
 *   substitutions that fit the <what>'s captures, every access form,
 *   compare-, search- and read-only grants among them, stop / continue
 *   / break), often a permissive catch-all last; now and then a run of
 *   2-5 rules on one DN part and filter, each with its own list, value
 *   condition and clauses.
 *   Requesters: anonymous, the rootdn(s), users (some proxied by another
 *   identity, some twice with other connections), a device, a group, a
 *   DN not in the directory and one outside every suffix, each with a
 *   random connection (peer, socket, listener, domain, ssf values).
 *   Searches: random bases (existing, missing, invalid), scopes, filters
 *   (a third on optioned descriptions and ranges: equality, substrings,
 *   presence, ordering, approximate, extensible with and without a type
 *   or with :dn:) and attribute lists (with options and ranges).
 *
 * All text is built with talloc under the case; a failed allocation sets
 * g->nomem and the case is dropped.
 */
#include "openldap_gen.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <talloc.h>

/* ------------------------------------------------------------------------
 * The PRNG
 */

void
acreG_rng_seed(struct acreG_rng *r, uint64_t seed)
{
    r->s = seed ^ 0x6163726567656e31ull; /* "acregen1" */
}

uint64_t
acreG_rng_next(struct acreG_rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

unsigned
acreG_rng_below(struct acreG_rng *r, unsigned n)
{
    return n ? (unsigned)(acreG_rng_next(r) % n) : 0;
}

int
acreG_rng_pct(struct acreG_rng *r, unsigned pct)
{
    return acreG_rng_below(r, 100) < pct;
}

/* ------------------------------------------------------------------------
 * Generator state
 */

#define MAXN 64

/* enum acre_scope, without including acre.h here */
enum { ACREG_BASE = 0, ACREG_ONE, ACREG_SUB, ACREG_CHILDREN };

/* What a <what>'s regex captures in $1 (or a val.regex in ${v1}), so
 * that <who> substitutions can use it meaningfully. */
enum cap {
    CAP_NONE = 0,
    CAP_UID,      /* a uid value: u3 */
    CAP_GROUP_CN, /* a group's cn: g1 */
    CAP_RDNS,     /* the RDNs below ou=people: uid=u3,ou=staff */
    CAP_OWNER,    /* a device's parent DN */
    CAP_OU,       /* an ou value: people */
    CAP_SUBTREE,  /* a non-regex scope: $1 is the pattern's DN */
    CAP_VAL_UID   /* val.regex on a DN attribute: ${v1} a uid value */
};

struct gen {
    struct acreG_rng r;
    struct acreG_case *c;
    int nomem;
    /* names, as written in the LDIF */
    const char *users[MAXN]; /* people and admins */
    const char *uids[MAXN];
    const char *ucn[MAXN];     /* the cn an RDN names, or NULL */
    const char *uparent[MAXN]; /* the container */
    unsigned nusers;
    const char *groups[8]; /* groupOfNames */
    unsigned ngroups;
    const char *ugroups[4]; /* groupOfUniqueNames */
    unsigned nugroups;
    const char *dyns[4]; /* groupOfURLs */
    unsigned ndyns;
    const char *devices[8];
    unsigned ndevices;
    const char *ous[8];
    unsigned nous;
    int has_admin;
    unsigned cur_db;       /* the database rules are being made for */
    const char *cns[MAXN]; /* every cn value written */
    unsigned ncns;
    const char *fr[MAXN]; /* every cn;lang-fr value written */
    unsigned nfr;
};

#define P(g, n) acreG_rng_pct(&(g)->r, (n))
#define B(g, n) acreG_rng_below(&(g)->r, (n))

static const char *
pick(struct gen *g, const char *const *a, unsigned n)
{
    return n ? a[B(g, n)] : NULL;
}

#define PICK(g, arr) pick((g), (arr), sizeof(arr) / sizeof((arr)[0]))

static char *fmt(struct gen *g, const char *f, ...)
    __attribute__((format(printf, 2, 3)));

static char *
fmt(struct gen *g, const char *f, ...)
{
    va_list ap;

    va_start(ap, f);
    char *s = talloc_vasprintf(g->c, f, ap);
    va_end(ap);
    if (!s) {
        g->nomem = 1;
        return (char *)"";
    }
    return s;
}

/* ------------------------------------------------------------------------
 * Entries
 */

static int
add_entry(struct gen *g, const char *dn, int parent)
{
    struct acreG_case *c = g->c;
    struct acreG_entry *v =
        talloc_realloc(c, c->entries, struct acreG_entry, c->nentries + 1);

    if (!v) {
        g->nomem = 1;
        return -1;
    }
    c->entries = v;
    memset(&v[c->nentries], 0, sizeof(v[0]));
    v[c->nentries].dn = talloc_strdup(c, dn);
    v[c->nentries].parent = parent;
    return (int)c->nentries++;
}

static void line(struct gen *g, int e, const char *f, ...)
    __attribute__((format(printf, 3, 4)));

static void
line(struct gen *g, int e, const char *f, ...)
{
    struct acreG_entry *en;
    va_list ap;

    if (e < 0 || g->nomem)
        return;
    en = &g->c->entries[e];
    char **v = talloc_realloc(g->c, en->lines, char *, en->nlines + 1);
    uint8_t *o = talloc_realloc(g->c, en->omit_line, uint8_t, en->nlines + 1);
    if (v)
        en->lines = v;
    if (o)
        en->omit_line = o;
    if (!v || !o) {
        g->nomem = 1;
        return;
    }
    va_start(ap, f);
    v[en->nlines] = talloc_vasprintf(g->c, f, ap);
    va_end(ap);
    o[en->nlines] = 0;
    if (!v[en->nlines])
        g->nomem = 1;
    else
        en->nlines++;
}

static int
find_entry(struct gen *g, const char *dn)
{
    for (unsigned i = 0; i < g->c->nentries; i++)
        if (!strcmp(g->c->entries[i].dn, dn))
            return (int)i;
    return -1;
}

static void
base64(char *out, const unsigned char *in, size_t n)
{
    static const char t[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0;

    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)in[i] << 16;
        if (i + 1 < n)
            v |= (unsigned)in[i + 1] << 8;
        if (i + 2 < n)
            v |= in[i + 2];
        out[o++] = t[(v >> 18) & 63];
        out[o++] = t[(v >> 12) & 63];
        out[o++] = i + 1 < n ? t[(v >> 6) & 63] : '=';
        out[o++] = i + 2 < n ? t[v & 63] : '=';
    }
    out[o] = '\0';
}

static const char *const first_names[] = {
    "Alice",  "Bob",   "Carol", "Dave",    "Erin",   "Frank",  "Grace",
    "Heidi",  "Ivan",  "Judy",  "Mallory", "Niaj",   "Olivia", "Peggy",
    "Rupert", "Sybil", "Trent", "Victor",  "Walter", "Zoe"};
static const char *const last_names[] = {"Smith",  "Jones",  "Lee",   "Brown",
                                         "Garcia", "Miller", "Davis", "Wu"};
static const char *const titles[] = {"boss", "engineer", "Boss", "intern",
                                     "Engineer"};
static const char *const descriptions[] = {
    "likes regex", "on call", "Team Lead", "temporary account", "x"};

/* The organisational skeleton. */
static int
gen_skeleton(struct gen *g)
{
    int top = add_entry(g, ACREG_SUFFIX, -1);
    line(g, top, "objectClass: dcObject");
    line(g, top, "objectClass: organization");
    line(g, top, "dc: example");
    line(g, top, "o: Example");
    if (P(g, 40))
        line(g, top, "description: the top");

    int people = add_entry(g, "ou=people," ACREG_SUFFIX, top);
    line(g, people, "objectClass: organizationalUnit");
    line(g, people, "ou: people");
    g->ous[g->nous++] = "ou=people," ACREG_SUFFIX;
    int groups = add_entry(g, "ou=groups," ACREG_SUFFIX, top);
    line(g, groups, "objectClass: organizationalUnit");
    line(g, groups, "ou: groups");
    g->ous[g->nous++] = "ou=groups," ACREG_SUFFIX;
    if ((g->has_admin = P(g, 70))) {
        int a = add_entry(g, "ou=admin," ACREG_SUFFIX, top);
        line(g, a, "objectClass: organizationalUnit");
        line(g, a, "ou: admin");
        line(g, a, "description: administrators");
        g->ous[g->nous++] = "ou=admin," ACREG_SUFFIX;
    }
    if (P(g, 40)) {
        int s = add_entry(g, ACREG_SUFFIX3, people);
        line(g, s, "objectClass: organizationalUnit");
        line(g, s, "ou: staff");
        g->ous[g->nous++] = ACREG_SUFFIX3;
        if (P(g, 30)) /* a database of its own */
            g->c->nested = P(g, 50) ? ACREG_NESTED_GLUED : ACREG_NESTED_APART;
        if (g->c->nested == ACREG_NESTED_GLUED && P(g, 40))
            g->c->nested_people = 1;
    }
    if (P(g, 30)) {
        int s = add_entry(g, "ou=contractors,ou=people," ACREG_SUFFIX, people);
        line(g, s, "objectClass: organizationalUnit");
        line(g, s, "ou: contractors");
        g->ous[g->nous++] = "ou=contractors,ou=people," ACREG_SUFFIX;
    }
    if (P(g, 20)) {
        int s = add_entry(g, "ou=empty," ACREG_SUFFIX, top);
        line(g, s, "objectClass: organizationalUnit");
        line(g, s, "ou: empty");
        g->ous[g->nous++] = "ou=empty," ACREG_SUFFIX;
    }
    return people;
}

/* A user's container: ou=admin for admins, else ou=people or below. */
static const char *
user_container(struct gen *g, int admin)
{
    if (admin)
        return "ou=admin," ACREG_SUFFIX;
    unsigned n = 0;
    const char *cand[4];
    for (unsigned i = 0; i < g->nous; i++)
        if (strstr(g->ous[i], "ou=people,") &&
            strcmp(g->ous[i], "ou=people," ACREG_SUFFIX))
            cand[n++] = g->ous[i];
    if (n && P(g, 35))
        return cand[B(g, n)];
    return "ou=people," ACREG_SUFFIX;
}

/* Decide every user's DN first, so that manager and seeAlso can point
 * at any of them. */
/* Decide every user's DN first, so that manager and seeAlso can point
 * at any of them.  Most are uid=uN; some are named by cn, a few with an
 * escaped comma, a multi-valued RDN or non-ASCII letters. */
static void
name_users(struct gen *g)
{
    unsigned npeople = 3 + B(g, 14);
    unsigned nadmin = g->has_admin ? 1 + B(g, 3) : 0;

    for (unsigned i = 0; i < npeople + nadmin && g->nusers < MAXN; i++) {
        int admin = i >= npeople;
        const char *uid =
            fmt(g, admin ? "a%u" : "u%u", admin ? i - npeople + 1 : i + 1);
        const char *where = user_container(g, admin);
        const char *fn = PICK(g, first_names), *ln = PICK(g, last_names);
        unsigned k = admin ? 100 : B(g, 100);
        unsigned u = g->nusers;
        g->uids[u] = uid;
        g->uparent[u] = where;
        g->ucn[u] = NULL;
        if (k < 11) {
            g->ucn[u] = fmt(g, "%s %s %u", fn, ln, i + 1);
            g->users[u] = fmt(g, "cn=%s,%s", g->ucn[u], where);
        } else if (k < 15) {
            g->ucn[u] = fmt(g, "%s, %s %u", ln, fn, i + 1);
            g->users[u] = fmt(g, "cn=%s\\, %s %u,%s", ln, fn, i + 1, where);
        } else if (k < 19) {
            g->ucn[u] = fmt(g, "%s %s", fn, ln);
            g->users[u] = fmt(g, "cn=%s+uid=%s,%s", g->ucn[u], uid, where);
        } else if (k < 22) {
            g->ucn[u] = fmt(g,
                            "Z\xc3\xb6"
                            "e \xc3\x9c"
                            "nal %u",
                            i + 1);
            g->users[u] = fmt(g, "cn=%s,%s", g->ucn[u], where);
        } else {
            g->users[u] = fmt(g, "uid=%s,%s", uid, where);
        }
        g->nusers++;
    }
}

static int
ascii(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s >= 0x80)
            return 0;
    return 1;
}

/* "attr: value", or "attr:: base64" for a value that is not ASCII. */
static void
line_value(struct gen *g, int e, const char *attr, const char *v)
{
    if (ascii(v)) {
        line(g, e, "%s: %s", attr, v);
        return;
    }
    char *b = talloc_array(g->c, char, strlen(v) * 4 / 3 + 8);
    if (!b) {
        g->nomem = 1;
        return;
    }
    base64(b, (const unsigned char *)v, strlen(v));
    line(g, e, "%s:: %s", attr, b);
}

static const char *
any_user(struct gen *g)
{
    return g->users[B(g, g->nusers)];
}

/* A description spelt another way: upper case, mixed case or (for cn)
 * its alias; options keep their meaning whatever their case. */
static const char *
desc_spelling(struct gen *g, const char *desc)
{
    char *s;

    switch (B(g, 8)) {
    case 0:
        s = fmt(g, "%s", desc);
        for (char *p = s; *p; p++)
            if (*p >= 'a' && *p <= 'z')
                *p = (char)(*p - 'a' + 'A');
        return s;
    case 1: /* Cn;Lang-Fr */
        s = fmt(g, "%s", desc);
        for (char *p = s; *p; p++)
            if ((p == s || p[-1] == ';' || p[-1] == '-') && *p >= 'a' &&
                *p <= 'z')
                *p = (char)(*p - 'a' + 'A');
        return s;
    case 2:
        return strncmp(desc, "cn;", 3) ? desc
                                       : fmt(g, "commonName%s", desc + 2);
    default:
        return desc;
    }
}

/* Values with options (RFC 4512 2.5.2): language tags and ranges of
 * them are what rules, filters and attribute lists name, so users carry
 * cn, sn, description and title with one or two tags, spelt in any case,
 * sometimes with the value of their plain cn. */
static void
optioned_values(struct gen *g, int e, const char *cn)
{
    static const char *const two[] = {"cn;lang-de;lang-en-gb",
                                      "cn;lang-en-gb;lang-de",
                                      "cn;lang-en-us;lang-fr"};
    static const char *const descs[] = {
        "description;lang-en-us", "description;lang-en", "description;lang-fr"};
    static const char *const fr_titles[] = {"patron", "Patron", "stagiaire"};
    const char *d, *v;

    /* one draw per statement: C leaves the order of arguments open */
    if (P(g, 30)) {
        d = desc_spelling(g, "cn;lang-en");
        v = fmt(g, "%s the ", PICK(g, first_names));
        line(g, e, "%s: %s%s", d, v, PICK(g, titles));
    }
    if (P(g, 20)) {
        d = desc_spelling(g, "cn;lang-fr");
        v = P(g, 30) ? cn : fmt(g, "%s fr", PICK(g, first_names));
        line_value(g, e, d, v);
        if (g->nfr < MAXN && ascii(v))
            g->fr[g->nfr++] = v;
    }
    if (P(g, 10)) {
        d = desc_spelling(g, "sn;lang-de");
        line(g, e, "%s: %s", d, PICK(g, last_names));
    }
    if (P(g, 10)) {
        d = desc_spelling(g, PICK(g, two));
        line(g, e, "%s: %s", d, PICK(g, first_names));
    }
    if (P(g, 15)) {
        d = desc_spelling(g, PICK(g, descs));
        line(g, e, "%s: %s", d, PICK(g, descriptions));
    }
    if (P(g, 8)) {
        d = desc_spelling(g, "title;lang-fr");
        line(g, e, "%s: %s", d, PICK(g, fr_titles));
    }
}

static void
user_entry(struct gen *g, unsigned i)
{
    const char *dn = g->users[i];
    int e = add_entry(g, dn, find_entry(g, g->uparent[i]));
    const char *ln = PICK(g, last_names);
    const char *cn = g->ucn[i];

    line(g, e, "objectClass: inetOrgPerson");
    if (!cn)
        cn = fmt(g, "%s %s", PICK(g, first_names), ln);
    line_value(g, e, "cn", cn);
    if (g->ncns < MAXN && ascii(cn))
        g->cns[g->ncns++] = cn;
    if (P(g, 20))
        line(g, e, "cn: %s", g->uids[i]);
    line(g, e, "sn: %s", ln);
    line(g, e, "uid: %s", g->uids[i]);
    if (P(g, 70))
        line(g, e, "mail: %s@example.com", g->uids[i]);
    if (P(g, 50))
        line(g, e, "telephoneNumber: +1 555 01%02u", i);
    if (P(g, 35))
        line(g, e, "description: %s", PICK(g, descriptions));
    else if (P(g, 10)) {
        char b64[64];
        static const char utf8[] = "\xc3\x9c"
                                   "n"
                                   "\xc3\xaf"
                                   "c"
                                   "\xc3\xb6"
                                   "d"
                                   "\xc3\xa9";
        base64(b64, (const unsigned char *)utf8, sizeof(utf8) - 1);
        line(g, e, "description:: %s", b64);
    }
    if (P(g, 60))
        line(g, e, "userPassword: secret%u", i + 1);
    if (P(g, 40))
        line(g, e, "title: %s", PICK(g, titles));
    if (P(g, 30))
        line(g, e, "givenName: %s", PICK(g, first_names));
    optioned_values(g, e, cn);
    if (P(g, 30)) {
        unsigned j = B(g, g->nusers + 1);
        line_value(g, e, "seeAlso",
                   j == g->nusers ? "uid=ghost,ou=people," ACREG_SUFFIX
                                  : g->users[j]);
    }
    if (P(g, 40) && g->nusers > 1) {
        unsigned j = B(g, g->nusers);
        if (j != i)
            line_value(g, e, "manager", g->users[j]);
    }
}

static void
devices(struct gen *g)
{
    unsigned n = B(g, 4);

    for (unsigned i = 0; i < n && g->ndevices < 8; i++) {
        unsigned u = B(g, g->nusers);
        const char *dn = fmt(g, "cn=dev%u,%s", i + 1, g->users[u]);
        int e = add_entry(g, dn, find_entry(g, g->users[u]));
        line(g, e, "objectClass: device");
        line(g, e, "cn: dev%u", i + 1);
        line(g, e, "serialNumber: SN-%u", 100 + i);
        line_value(g, e, "owner", g->users[u]);
        if (P(g, 40))
            line(g, e, "description: %s", PICK(g, descriptions));
        if (P(g, 20))
            line_value(g, e, "seeAlso", any_user(g));
        g->devices[g->ndevices++] = dn;
    }
}

/* 1..max distinct users, written as "attr: dn" lines. */
static void
members(struct gen *g, int e, const char *attr, unsigned max)
{
    unsigned n = 1 + B(g, max), done = 0;
    uint8_t used[MAXN] = {0};

    for (unsigned k = 0; k < n * 3 && done < n; k++) {
        unsigned j = B(g, g->nusers);
        if (used[j])
            continue;
        used[j] = 1;
        /* a uniqueMember may carry the optional uid bit string */
        if (!strcmp(attr, "uniqueMember") && P(g, 15))
            line_value(g, e, attr, fmt(g, "%s#'0101'B", g->users[j]));
        else
            line_value(g, e, attr, g->users[j]);
        done++;
    }
}

static const char *const member_urls[] = {
    "ldap:///ou=people," ACREG_SUFFIX "??sub?(uid=u1*)",
    "ldap:///ou=people," ACREG_SUFFIX "??one?(title=boss)",
    "ldap:///" ACREG_SUFFIX "??sub?(objectClass=inetOrgPerson)",
    "ldap:///ou=admin," ACREG_SUFFIX "??sub?(uid=*)",
    "ldap:///uid=u2,ou=people," ACREG_SUFFIX "??base?(objectClass=*)",
    "ldap:///ou=people," ACREG_SUFFIX "??sub",
    "ldap:///" ACREG_SUFFIX "??sub?(|(mail=u2@example.com)(sn=Lee))",
};

static void
groups(struct gen *g)
{
    int top = find_entry(g, "ou=groups," ACREG_SUFFIX);
    unsigned n = 1 + B(g, 3);

    for (unsigned i = 0; i < n; i++) {
        const char *dn = fmt(g, "cn=g%u,ou=groups," ACREG_SUFFIX, i + 1);
        int e = add_entry(g, dn, top);
        line(g, e, "objectClass: groupOfNames");
        line(g, e, "cn: g%u", i + 1);
        members(g, e, "member", 5);
        if (i > 0 && P(g, 30))
            line(g, e, "member: %s", g->groups[B(g, g->ngroups)]);
        if (P(g, 20))
            line(g, e, "member: uid=ghost,ou=people," ACREG_SUFFIX);
        if (P(g, 30))
            line_value(g, e, "owner", any_user(g));
        if (P(g, 30))
            line(g, e, "description: %s", PICK(g, descriptions));
        if (P(g, 15)) {
            const char *d = desc_spelling(g, "description;lang-fr");
            line(g, e, "%s: %s", d, PICK(g, descriptions));
        }
        g->groups[g->ngroups++] = dn;
    }
    n = B(g, 3);
    for (unsigned i = 0; i < n; i++) {
        const char *dn = fmt(g, "cn=ug%u,ou=groups," ACREG_SUFFIX, i + 1);
        int e = add_entry(g, dn, top);
        line(g, e, "objectClass: groupOfUniqueNames");
        line(g, e, "cn: ug%u", i + 1);
        members(g, e, "uniqueMember", 4);
        g->ugroups[g->nugroups++] = dn;
    }
    n = B(g, 3);
    for (unsigned i = 0; i < n; i++) {
        const char *dn = fmt(g, "cn=dyn%u,ou=groups," ACREG_SUFFIX, i + 1);
        int e = add_entry(g, dn, top);
        unsigned a = B(g, sizeof(member_urls) / sizeof(member_urls[0]));
        line(g, e, "objectClass: groupOfURLs");
        line(g, e, "cn: dyn%u", i + 1);
        line(g, e, "memberURL: %s", member_urls[a]);
        if (P(g, 30)) {
            unsigned b = B(g, sizeof(member_urls) / sizeof(member_urls[0]));
            if (b != a)
                line(g, e, "memberURL: %s", member_urls[b]);
        }
        g->dyns[g->ndyns++] = dn;
    }
}

/* A second naming context, held by a second database. */
static void
elsewhere(struct gen *g)
{
    int top = add_entry(g, ACREG_SUFFIX2, -1);
    line(g, top, "objectClass: organization");
    line(g, top, "o: elsewhere");
    int ou = add_entry(g, "ou=things," ACREG_SUFFIX2, top);
    line(g, ou, "objectClass: organizationalUnit");
    line(g, ou, "ou: things");
    int boss = add_entry(g, "cn=boss," ACREG_SUFFIX2, top);
    line(g, boss, "objectClass: inetOrgPerson");
    line(g, boss, "cn: boss");
    line(g, boss, "sn: Boss");
    line(g, boss, "uid: boss");
    line_value(g, boss, "manager", any_user(g));
    int dev = add_entry(g, "cn=thing1,ou=things," ACREG_SUFFIX2, ou);
    line(g, dev, "objectClass: device");
    line(g, dev, "cn: thing1");
    line_value(g, dev, "owner", any_user(g));
    line(g, dev, "description: %s", PICK(g, descriptions));
}

static void
gen_dit(struct gen *g)
{
    gen_skeleton(g);
    name_users(g);
    for (unsigned i = 0; i < g->nusers; i++)
        user_entry(g, i);
    devices(g);
    groups(g);
    g->c->ndbs = 1;
    if (P(g, 25)) {
        elsewhere(g);
        /* mostly with its own database; else its entries belong to no
         * database and only the global rules (or none) decide them */
        g->c->ndbs = P(g, 75) ? 2 : 1;
        g->c->norootdn2 = g->c->ndbs == 2 && P(g, 35);
    }
}

/* ------------------------------------------------------------------------
 * DNs as rules write them
 */

/* Sometimes write a DN the way people do: upper-case types, a space
 * after each comma.  Rules normalise it, so it names the same entry. */
static const char *
dn_variant(struct gen *g, const char *dn)
{
    if (!P(g, 20))
        return dn;
    char *s = talloc_array(g->c, char, strlen(dn) * 2 + 1);
    size_t o = 0;
    int in_type = 1;
    if (!s) {
        g->nomem = 1;
        return dn;
    }
    for (const char *p = dn; *p; p++) {
        char ch = *p;
        if (ch == '\\' && p[1]) { /* an escaped character stays */
            s[o++] = ch;
            s[o++] = *++p;
            continue;
        }
        if (ch == '=')
            in_type = 0;
        if (in_type && ch >= 'a' && ch <= 'z')
            ch = (char)(ch - 'a' + 'A');
        s[o++] = ch;
        if (ch == ',' || ch == '+')
            in_type = 1;
        if (ch == ',')
            s[o++] = ' ';
    }
    s[o] = '\0';
    return s;
}

static const char *
any_group(struct gen *g)
{
    unsigned n = g->ngroups + g->nugroups + g->ndyns;
    unsigned i = B(g, n);

    if (i < g->ngroups)
        return g->groups[i];
    i -= g->ngroups;
    if (i < g->nugroups)
        return g->ugroups[i];
    return g->dyns[i - g->nugroups];
}

/* A DN that names some entry (or sometimes none). */
static const char *
any_dn(struct gen *g)
{
    switch (B(g, 10)) {
    case 0:
        return ACREG_SUFFIX;
    case 1:
    case 2:
        return g->ous[B(g, g->nous)];
    case 3:
        return any_group(g);
    case 4:
        return g->ndevices ? g->devices[B(g, g->ndevices)] : any_user(g);
    case 5:
        return "uid=ghost,ou=people," ACREG_SUFFIX;
    default:
        return any_user(g);
    }
}

/* A DN suitable as the base of a scope (a container, mostly). */
static const char *
scope_dn(struct gen *g)
{
    switch (B(g, 6)) {
    case 0:
        return ACREG_SUFFIX;
    case 1:
    case 2:
    case 3:
        return g->ous[B(g, g->nous)];
    default:
        return any_user(g);
    }
}

/* ------------------------------------------------------------------------
 * <what>
 */

struct what_regex {
    const char *re;
    enum cap cap;
};

static const struct what_regex what_regexes[] = {
    {"^uid=([^,]+),ou=people,dc=example,dc=com$", CAP_UID},
    {"^uid=([^,]+),.*$", CAP_UID},
    {"uid=u1", CAP_NONE},
    {"^cn=([^,]+),ou=groups,dc=example,dc=com$", CAP_GROUP_CN},
    {"ou=people,dc=example,dc=com$", CAP_NONE},
    {"^(.+),ou=people,dc=example,dc=com$", CAP_RDNS},
    {",ou=admin,", CAP_NONE},
    {"^dc=example,dc=com$", CAP_NONE},
    {"^cn=[^,]+,(uid=[^,]+,ou=people,dc=example,dc=com)$", CAP_OWNER},
    {"^ou=([a-z]+),dc=example,dc=com$", CAP_OU},
    {"^.*,dc=example,dc=com$", CAP_NONE},
    {"(uid|cn)=u[13]", CAP_NONE},
    {"^uid=u[0-9]*[02468],", CAP_NONE},
    {"^cn=g[0-9]+,", CAP_NONE},
    {"^(uid|cn)=([^,]+),ou=(people|staff|contractors)", CAP_NONE},
    /* literal tails in other cases (the index takes them as the DN) */
    {"^uid=([^,]+),OU=People,dc=Example,DC=com$", CAP_UID},
    {"^OU=people,DC=example,dc=COM$", CAP_NONE},
    {"[13],ou=people,dc=example,dc=com$", CAP_NONE},
};

static const char *const what_filters[] = {
    "(objectClass=inetOrgPerson)",
    "(objectClass=groupOfNames)",
    "(uid=u1*)",
    "(|(title=boss)(mail=*))",
    "(!(description=*))",
    "(member=*)",
    "(cn=*a*)",
    "(&(objectClass=person)(telephoneNumber=*))",
    "(|(objectClass=groupOfUniqueNames)(objectClass=groupOfURLs))",
    "(uid:caseExactMatch:=u2)",
    "(title=boss)",
    "(objectClass=organizationalUnit)",
    "(!(objectClass=inetOrgPerson))",
    "(userPassword=*)",
    "(cn~=Alice Smith)",
    "(telephoneNumber=+1 555*)",
    "(&(objectClass=inetOrgPerson)(!(uid>=u5)))",
    "(member:distinguishedNameMatch:=uid=u1,ou=people,dc=example,dc=com)",
    "(cn;lang-fr=*)",
    "(cn;lang-en-=*)",
    "(description;lang-en=*)",
    "(:caseIgnoreMatch:=boss)",
    "(name;lang-=*a*)",
};

static const char *const attr_items[] = {
    "cn",
    "sn",
    "userPassword",
    "mail",
    "entry",
    "children",
    "@inetOrgPerson",
    "!person",
    "-cn",
    "cn;lang-en",
    "name",
    "member",
    "uniqueMember",
    "manager",
    "seeAlso",
    "telephoneNumber",
    "description",
    "objectClass",
    "uid",
    "title",
    "@groupOfNames",
    "givenName",
    "memberURL",
    "owner",
    "@device",
    "!inetOrgPerson",
    "-sn",
    "sn;lang-de",
    "ou",
    "o",
    "dc",
    "@organizationalUnit",
    "cn;lang-",
    "name;lang-en",
    "@extensibleObject",
    "-entry",
    /* descriptions with options: tags, ranges of them ("lang-en-" covers
     * lang-en and lang-en-us), two tags, exact ("-") lists, any case */
    "cn;lang-fr",
    "cn;lang-en-",
    "-cn;lang-fr",
    "name;lang-fr",
    "description;lang-en-",
    "description;lang-",
    "-description",
    "cn;lang-de;lang-en-",
    "CN;Lang-FR",
    "title;lang-fr",
    "sn;lang-",
    "-cn;lang-en",
    "commonName;lang-en",
    "name;lang-",
};

/* A val condition for a single attribute; sets *cap for ${v1}. */
static const char *
gen_val(struct gen *g, const char **attr, enum cap *vcap)
{
    const char *u = any_user(g);

    *vcap = CAP_NONE;
    switch (B(g, 17)) {
    case 16: /* one class is a single attribute to slapd: val.regex only,
                on the values of every type the class takes (objectClass
                too, which no pattern here matches, by name or OID) */
        *attr = PICK(g, ((const char *const[]){"@groupOfNames", "!person",
                                               "@inetOrgPerson", "person"}));
        return PICK(g, ((const char *const[]){"val.regex=\"^uid=\"",
                                              "val.regex=\"ou=team\"",
                                              "val.regex=\"u[0-9]\""}));
    case 12:
        *attr = PICK(g, ((const char *const[]){"cn;lang-fr", "-cn;lang-fr",
                                               "cn;lang-"}));
        return g->nfr ? fmt(g, "val=\"%s\"", g->fr[B(g, g->nfr)])
                      : "val.regex=\"fr$\"";
    case 13:
        *attr = PICK(g, ((const char *const[]){"cn;lang-en", "cn;lang-en-",
                                               "name;lang-en"}));
        return fmt(g, "val.regex=\"the %s$\"", PICK(g, titles));
    case 14:
        *attr = PICK(g, ((const char *const[]){"description;lang-en-",
                                               "description;lang-"}));
        return PICK(g, ((const char *const[]){"val.regex=\"call\"",
                                              "val/caseExactMatch=\"x\"",
                                              "val=\"TEAM LEAD\""}));
    case 15:
        *attr = "cn"; /* covers cn;lang-fr and its values too */
        return g->nfr ? fmt(g, "val=\"%s\"", g->fr[B(g, g->nfr)])
                      : "val.regex=\"^[a-m]\"";
    case 0:
        *attr = "member";
        return fmt(g, "val=\"%s\"", dn_variant(g, u));
    case 1:
        *attr = PICK(g, ((const char *const[]){"member", "manager"}));
        *vcap = CAP_VAL_UID;
        return "val.regex=\"^uid=([^,]+),ou=people,\"";
    case 2:
        *attr = PICK(g, ((const char *const[]){"member", "manager", "seeAlso",
                                               "owner"}));
        return fmt(g, "val.subtree=\"%s\"", dn_variant(g, scope_dn(g)));
    case 3:
        *attr = PICK(g, ((const char *const[]){"member", "manager"}));
        return fmt(g, "val.children=\"%s\"", dn_variant(g, scope_dn(g)));
    case 4:
        *attr = PICK(g, ((const char *const[]){"member", "seeAlso"}));
        return fmt(g, "val.one=\"%s\"", dn_variant(g, scope_dn(g)));
    case 5:
        *attr = "manager";
        return fmt(g, "val.base=\"%s\"", dn_variant(g, u));
    case 6:
        *attr = "cn";
        return g->ncns ? fmt(g, "val=\"%s\"", g->cns[B(g, g->ncns)])
                       : "val=\"nobody\"";
    case 7:
        *attr = "uid";
        return "val.regex=\"^u[0-9]*[13579]$\"";
    case 8:
        *attr = "cn";
        return g->ncns
                   ? fmt(g, "val/caseExactMatch=\"%s\"", g->cns[B(g, g->ncns)])
                   : "val/caseExactMatch=\"Nobody\"";
    case 9:
        *attr = "title";
        return "val=\"BOSS\"";
    case 10:
        *attr = "uniqueMember";
        return fmt(g, "val=\"%s\"", u);
    case 11: /* the operational attributes slapd computes */
        switch (B(g, 4)) {
        case 0:
            *attr = "entryDN";
            return "val.regex=\"people\"";
        case 1:
            *attr = "hasSubordinates";
            return "val=\"TRUE\"";
        case 2:
            *attr = "subschemaSubentry";
            return "val.regex=\".\"";
        }
        /* fall through */
    default:
        *attr = "mail";
        return "val.regex=\"^u1\"";
    }
}

struct what_info {
    enum cap cap;  /* of $1 */
    enum cap vcap; /* of ${v1} */
    int regex;     /* the dn part is a regex */
    int val_regex; /* a val.regex part */
};

static const char *
gen_dn_part(struct gen *g, struct what_info *wi)
{
    const char *d;

    switch (B(g, 20)) {
    case 0:
    case 1:
    case 2:
        return NULL;
    case 3:
    case 4:
        return "*";
    case 5:
        return fmt(g, "dn=\"%s\"", dn_variant(g, any_dn(g)));
    case 6:
    case 7:
        return fmt(g, "dn.%s=\"%s\"", P(g, 50) ? "base" : "exact",
                   dn_variant(g, any_dn(g)));
    case 8:
    case 9:
        wi->cap = CAP_SUBTREE;
        return fmt(g, "dn.one=\"%s\"", dn_variant(g, scope_dn(g)));
    case 10:
    case 11:
    case 12:
        wi->cap = CAP_SUBTREE;
        d = P(g, 5) ? "" : dn_variant(g, scope_dn(g));
        if (!*d && P(g, 60)) /* the empty DN in every style */
            return fmt(
                g, "dn.%s=\"\"",
                PICK(g, ((const char *const[]){"base", "one", "children"})));
        return fmt(g, "dn.%s=\"%s\"", P(g, 50) ? "subtree" : "sub", d);
    case 13:
    case 14:
        wi->cap = CAP_SUBTREE;
        return fmt(g, "dn.children=\"%s\"", dn_variant(g, scope_dn(g)));
    default: {
        const struct what_regex *re =
            &what_regexes[B(g, sizeof(what_regexes) / sizeof(what_regexes[0]))];
        wi->cap = re->cap;
        wi->regex = 1;
        return fmt(g, "dn.regex=\"%s\"", re->re);
    }
    }
}

static const char *
gen_attrs(struct gen *g, int *single)
{
    unsigned n = 1 + (P(g, 40) ? B(g, 3) : 0);
    char *s = fmt(g, "attrs=");
    const char *used[4];

    for (unsigned i = 0; i < n; i++) {
        const char *a = PICK(g, attr_items);
        int dup = 0;
        for (unsigned j = 0; j < i; j++)
            dup |= !strcmp(used[j], a);
        if (dup) {
            n--, i--;
            continue;
        }
        used[i] = a;
        s = talloc_asprintf_append(s, "%s%s", i ? "," : "", a);
    }
    if (!s)
        g->nomem = 1;
    *single = n == 1;
    return s ? s : "";
}

static char *
gen_what(struct gen *g, struct what_info *wi)
{
    const char *dn = gen_dn_part(g, wi);
    const char *filter =
        P(g, 25) ? fmt(g, "filter=\"%s\"", PICK(g, what_filters)) : NULL;
    const char *attrs = NULL, *val = NULL;
    int single = 0;

    if (P(g, 15)) {
        const char *a = NULL;
        val = gen_val(g, &a, &wi->vcap);
        wi->val_regex = val && !strncmp(val, "val.regex", 9);
        attrs = fmt(g, "attrs=%s", a);
    } else if (P(g, 55)) {
        attrs = gen_attrs(g, &single);
    }
    char *s = fmt(g, "%s", "");
    if (filter && P(g, 30)) { /* any order but val after attrs */
        s = talloc_asprintf_append(s, "%s ", filter);
        filter = NULL;
    }
    if (dn)
        s = talloc_asprintf_append(s, "%s ", dn);
    if (filter)
        s = talloc_asprintf_append(s, "%s ", filter);
    if (attrs)
        s = talloc_asprintf_append(s, "%s ", attrs);
    if (val)
        s = talloc_asprintf_append(s, "%s ", val);
    if (!s) {
        g->nomem = 1;
        return (char *)"*";
    }
    size_t n = strlen(s);
    if (n == 0)
        return (char *)"*";
    s[n - 1] = '\0';
    return s;
}

/* ------------------------------------------------------------------------
 * <who>
 */

/* The dn-view subject of a clause, or NULL. */
static const char *
gen_subject(struct gen *g, const char *real)
{
    switch (*real ? 2 + B(g, 24) : B(g, 26)) {
    case 0:
    case 1:
        return "*";
    case 2:
        return fmt(g, "%sanonymous", real);
    case 3:
    case 4:
        return fmt(g, "%susers", real);
    case 5:
    case 6:
        return fmt(g, "%sself", real);
    case 7:
        return fmt(g, "%sself.level{%u}", real, 1 + B(g, 2));
    case 8:
    case 9:
        return fmt(g, "%sdn.exact=\"%s\"", real, dn_variant(g, any_user(g)));
    case 10:
        return fmt(g, "%sdn=\"%s\"", real, dn_variant(g, any_dn(g)));
    case 11:
        return fmt(g, "%sdn.base=\"%s\"", real, dn_variant(g, any_user(g)));
    case 12:
        return fmt(g, "%sdn.one=\"%s\"", real, dn_variant(g, scope_dn(g)));
    case 13:
    case 14:
        return fmt(g, "%sdn.subtree=\"%s\"", real, dn_variant(g, scope_dn(g)));
    case 15:
        return fmt(g, "%sdn.children=\"%s\"", real, dn_variant(g, scope_dn(g)));
    case 16:
        return fmt(g, "%sdn.level{%u}=\"%s\"", real, B(g, 3),
                   dn_variant(g, scope_dn(g)));
    case 17:
        return fmt(g,
                   "%sdn.regex=\"^uid=u[0-9]*[13579],ou=people,"
                   "dc=example,dc=com$\"",
                   real);
    case 18:
        return fmt(g, "%sdn.regex=\",ou=admin,dc=example,dc=com$\"", real);
    case 19:
        return fmt(g, "%sdn.regex=\"%s\"", real,
                   P(g, 50) ? "u1" : "^uid=u1,ou=people,dc=example,dc=com$$");
    case 20:
        return fmt(g, "%sdn.regex=\"%s\"", real,
                   PICK(g, ((const char *const[]){".+", ".*", "^cn=", ""})));
    case 21:
        return fmt(g, "%sdn.base=\"%s\"", real, dn_variant(g, any_dn(g)));
    case 22:
        return fmt(g, "%sdn.subtree=\"%s\"", real, ACREG_SUFFIX);
    case 23:
        return fmt(g, "%sdn.exact=\"%s\"", real, ACREG_ROOTDN);
    default:
        return fmt(g, "%sdn.exact=\"uid=ghost,ou=people," ACREG_SUFFIX "\"",
                   real);
    }
}

/* A subject that substitutes what the <what> captured. */
static const char *
gen_subst(struct gen *g, const struct what_info *wi)
{
    switch (wi->cap) {
    case CAP_UID:
        switch (B(g, 4)) {
        case 0:
            return "dn.regex=\"^uid=$1,ou=people,dc=example,dc=com$$\"";
        case 1:
            return "dn.exact,expand=\"uid=$1,ou=people,dc=example,dc=com\"";
        case 2:
            return "dn.regex=\"uid=$1,\"";
        default:
            return "set.expand=\"[uid=$1,ou=people,dc=example,dc=com]"
                   "/manager & user\"";
        }
    case CAP_GROUP_CN:
        return P(g, 60) ? "group.expand=\"cn=$1,ou=groups,dc=example,dc=com\""
                        : "dn.regex=\"^cn=$1,\"";
    case CAP_RDNS:
        return P(g, 50) ? "dn.exact,expand=\"$1,ou=people,dc=example,dc=com\""
                        : "dn.regex=\"^$1,ou=people,\"";
    case CAP_OWNER:
        return P(g, 50) ? "dn.exact,expand=\"$1\"" : "dn.regex=\"^$1$$\"";
    case CAP_OU:
        return P(g, 50) ? "dn.subtree,expand=\"ou=$1,dc=example,dc=com\""
                        : "dn.regex=\",ou=$1,dc=example,dc=com$$\"";
    default:
        /* slapd 2.5.13 crashes (acl.c, on the value's submatches) when an
         * expand subject substitutes $n in a rule with a val.regex and no
         * dn.regex: not generated */
        if (wi->val_regex)
            return "dn.regex=\"^$0$$\"";
        if (wi->cap == CAP_SUBTREE && P(g, 50))
            return "dn.children,expand=\"$1\"";
        return P(g, 50) ? "dn.exact,expand=\"$0\"" : "dn.regex=\"^$0$$\"";
    }
}

static const char *
gen_vsubst(struct gen *g)
{
    return P(g, 50)
               ? "dn.regex=\"^uid=${v1},\""
               : "dn.exact,expand=\"uid=${v1},ou=people,dc=example,dc=com\"";
}

static const char *
gen_dnattr(struct gen *g)
{
    /* distinguishedName: the supertype of member, seeAlso and owner,
     * whose values it takes (slapd's attrs_find) */
    return fmt(
        g, "%sdnattr=%s", P(g, 10) ? "real" : "",
        PICK(g, ((const char *const[]){"member", "manager", "seeAlso", "owner",
                                       "uniqueMember", "distinguishedName"})));
}

static const char *
gen_group(struct gen *g)
{
    switch (B(g, 8)) {
    case 0:
    case 1:
        return fmt(g, "group=\"%s\"", dn_variant(g, any_group(g)));
    case 2:
        return fmt(g, "group/groupOfNames/member=\"%s\"",
                   g->ngroups ? g->groups[B(g, g->ngroups)] : any_group(g));
    case 3:
    case 4:
        return fmt(g, "group/groupOfUniqueNames/uniqueMember=\"%s\"",
                   g->nugroups ? g->ugroups[B(g, g->nugroups)] : any_group(g));
    case 5:
    case 6:
        return fmt(g, "group/groupOfURLs/memberURL=\"%s\"",
                   g->ndyns ? g->dyns[B(g, g->ndyns)] : any_group(g));
    default:
        return fmt(g, "group.exact=\"%s\"",
                   P(g, 70) ? any_group(g)
                            : "cn=nogroup,ou=groups," ACREG_SUFFIX);
    }
}

/* A DN as a set literal: normalised (lower-case) most of the time. */
static const char *
set_lit(struct gen *g, const char *dn)
{
    char *s = fmt(g, "%s", dn);
    if (P(g, 80))
        for (char *p = s; *p; p++)
            if (*p >= 'A' && *p <= 'Z')
                *p = (char)(*p - 'A' + 'a');
    return s;
}

static const char *
gen_set(struct gen *g)
{
    switch (B(g, 16)) {
    case 0:
        return fmt(g, "set=\"user & [%s]\"", set_lit(g, any_user(g)));
    case 1:
        return "set=\"this/member & user\"";
    case 2:
        return "set=\"this/uniqueMember & user\"";
    case 3:
        return "set=\"user/manager & this\"";
    case 4:
        return "set=\"user/manager\"";
    case 5:
        return "set=\"[dc=example,dc=com]/-1\"";
    case 6:
        return "set=\"this/manager* & user\"";
    case 7:
        return "set=\"user/-1 & [ou=people,dc=example,dc=com]\"";
    case 8:
        return "set=\"this/-1 & user/-1\"";
    case 9:
        return fmt(g, "set=\"[%s]/member%s & user\"",
                   set_lit(g, g->ngroups ? g->groups[0] : any_group(g)),
                   P(g, 50) ? "*" : "");
    case 10:
        return "set=\"this/seeAlso | this/manager\"";
    case 11:
        return "set=\"user/uid & [u1]\"";
    case 12:
        return "set=\"this/entryDN & user\"";
    case 13:
        return "set=\"this/-* & [ou=people,dc=example,dc=com]\"";
    case 14:
        return "set=\"this & ([uid=] + user/uid + "
               "[,ou=people,dc=example,dc=com])\"";
    default:
        return "set=\"[ldap:///ou=groups,dc=example,dc=com?member?sub?"
               "(cn=g1)] & user\"";
    }
}

static const char *const conn_conds[] = {
    "peername.ip=127.0.0.1",
    "peername.ip=10.0.0.0%255.0.0.0",
    "peername.ip=127.0.0.1{389}",
    "peername.regex=\"^IP=127[.]0[.]0[.]\"",
    "peername=\"IP=127.0.0.1:40000\"",
    "peername.path=/var/run/ldapi",
    "peername.ipv6=::1",
    "domain=example.com",
    "domain.subtree=example.com",
    "domain.regex=\"example[.]com$\"",
    "sockurl=\"ldap:///\"",
    "sockurl.regex=\"^ldaps\"",
    "sockname.regex=\"^IP=\"",
    "sockname=\"IP=127.0.0.1:389\"",
    /* templates: "$$" makes them expand per check */
    "peername.regex=\"^IP=127[.]0[.]0[.]1:(40000|389)$$\"",
    "domain.expand=\"ldap.example.com\"",
    "sockurl.expand=\"ldap:///\"",
    "peername.expand=\"PATH=/var/run/ldapi\"",
};

static const char *const ssf_conds[] = {
    "ssf=128",     "ssf=56",           "ssf=1", "tls_ssf=128", "sasl_ssf=56",
    "tls_ssf=256", "transport_ssf=71",
};

static const char *const levels[] = {
    "none", "disclose", "auth", "compare", "search",
    "read", "write",    "add",  "delete",  "manage",
};

static const char *const letters[] = {
    "=rscxd", "=rsc", "+w", "-r",  "=0",  "+a", "-z",       "=wrscxd",
    "+m",     "-w",   "=x", "+rs", "=d",  "+c", "=mwrscxd", "-s",
    "+d",     "=rs",  "-0", "+0",  "=az", "-m", "+x",       "=cx",
    "=c",     "=r",   "=s", "=rc", "=c",  "=r", "=sc",
};

static const char *
gen_access(struct gen *g)
{
    const char *self = "", *a;

    if (P(g, 5))
        return NULL; /* "by X" alone: +0 */
    if (P(g, 8))
        self = P(g, 85) ? "self" : "realself";
    a = P(g, 55) ? PICK(g, levels) : PICK(g, letters);
    /* "self=rs" would read as the <who> "self" with a value: a self
     * prefix takes a level or +/- letters only */
    while (*self && *a == '=')
        a = PICK(g, letters);
    return fmt(g, "%s%s", self, a);
}

static char *
gen_by(struct gen *g, const struct what_info *wi)
{
    char *s = fmt(g, "%s", "");
    const char *parts[8];
    unsigned n = 0;
    int subst = (wi->cap != CAP_NONE || wi->vcap != CAP_NONE) && P(g, 30);

    if (subst)
        parts[n++] = wi->vcap && P(g, 60) ? gen_vsubst(g) : gen_subst(g, wi);
    else if (P(g, 85))
        parts[n++] = gen_subject(g, "");
    /* at most two more conditions: a clause with many rarely holds */
    for (unsigned k = 0, extra = 0; k < 6 && extra < 2; k++) {
        const char *p = NULL;
        switch (k) {
        case 0:
            p = P(g, 6) ? gen_subject(g, "real") : NULL;
            break;
        case 1:
            p = P(g, 12) ? gen_dnattr(g) : NULL;
            break;
        case 2:
            p = P(g, 12) && !(subst && strstr(parts[0], "group."))
                    ? gen_group(g)
                    : NULL;
            break;
        case 3:
            p = P(g, 10) && !(subst && strstr(parts[0], "set.")) ? gen_set(g)
                                                                 : NULL;
            break;
        case 4:
            p = P(g, 12) ? PICK(g, conn_conds) : NULL;
            break;
        default:
            p = P(g, 8) ? PICK(g, ssf_conds) : NULL;
            break;
        }
        if (p)
            parts[n++] = p, extra++;
    }
    for (unsigned i = 0; i < n; i++)
        s = talloc_asprintf_append(s, "%s%s", i ? " " : "", parts[i]);
    const char *acc = gen_access(g);
    if (acc)
        s = talloc_asprintf_append(s, "%s%s", n ? " " : "", acc);
    unsigned ctl = B(g, 20);
    const char *c = ctl < 11   ? NULL
                    : ctl < 13 ? "stop"
                    : ctl < 17 ? "continue"
                               : "break";
    if (c)
        s = talloc_asprintf_append(s, "%s%s", (n || acc) ? " " : "", c);
    else if (!n && !acc)
        s = talloc_asprintf_append(s, "*");
    if (!s) {
        g->nomem = 1;
        return (char *)"*";
    }
    return s;
}

static struct acreG_rule *
new_rule(struct gen *g, int global, const char *what, unsigned max_by)
{
    struct acreG_case *c = g->c;
    struct acreG_rule *v =
        talloc_realloc(c, c->rules, struct acreG_rule, c->nrules + 1);

    if (!v) {
        g->nomem = 1;
        return NULL;
    }
    c->rules = v;
    struct acreG_rule *r = &v[c->nrules++];
    memset(r, 0, sizeof(*r));
    r->global = global;
    r->db = global ? 0 : g->cur_db;
    r->what = fmt(g, "%s", what);
    r->by = talloc_array(c, char *, max_by);
    r->omit_by = talloc_zero_array(c, uint8_t, max_by);
    if (!r->by || !r->omit_by) {
        g->nomem = 1;
        c->nrules--;
        return NULL;
    }
    return r;
}

/* The access of a catch-all clause: permissive more often than not. */
static const char *
tail_access(struct gen *g)
{
    static const char *const tail[] = {"read",  "search",   "read",   "compare",
                                       "write", "none",     "=rscxd", "+rs",
                                       "auth",  "disclose", "read",   "manage"};
    return P(g, 75) ? PICK(g, tail) : PICK(g, letters);
}

static void
gen_rule(struct gen *g, int global)
{
    struct what_info wi = {CAP_NONE, CAP_NONE, 0, 0};
    const char *what = gen_what(g, &wi);
    unsigned n = 1 + B(g, 4);
    struct acreG_rule *r = new_rule(g, global, what, n + 1);

    if (!r)
        return;
    for (unsigned i = 0; i < n; i++)
        r->by[r->nby++] = gen_by(g, &wi);
    if (P(g, 45)) /* the common idiom: a catch-all last clause */
        r->by[r->nby++] =
            fmt(g, "* %s%s", tail_access(g), P(g, 20) ? " break" : "");
}

/* Rules one after another on the same target regex or filter, each with
 * its own attribute list (or none), value condition and clauses: the
 * engine passes by the rest of such a run once its shared test or list
 * failed (compiler/build.c: run_sig, table_runs), so the lists,
 * conditions and clauses that make the walk reach a later rule, or stop
 * before it, all occur. */
static void
gen_run(struct gen *g, int global)
{
    struct what_info base = {CAP_NONE, CAP_NONE, 0, 0};
    const char *dn; /* half of them in a node's table, not the residual */
    if (P(g, 50)) {
        base.cap = CAP_SUBTREE;
        dn = fmt(g, "dn.%s=\"%s\"", P(g, 70) ? "subtree" : "children",
                 dn_variant(g, scope_dn(g)));
    } else {
        dn = gen_dn_part(g, &base);
    }
    const char *filter = !base.regex || P(g, 40)
                             ? fmt(g, "filter=\"%s\" ", PICK(g, what_filters))
                             : "";
    unsigned k = 2 + B(g, 4);

    for (unsigned i = 0; i < k; i++) {
        struct what_info wi = base;
        const char *attrs = "", *val = "";
        int single;
        if (P(g, 20)) {
            const char *a = NULL;
            val = fmt(g, " %s", gen_val(g, &a, &wi.vcap));
            wi.val_regex = !strncmp(val, " val.regex", 10);
            attrs = fmt(g, "attrs=%s", a);
        } else if (P(g, 60)) {
            attrs = gen_attrs(g, &single);
        }
        char *what = fmt(g, "%s%s%s%s%s", dn ? dn : "", dn ? " " : "", filter,
                         attrs, val);
        for (size_t e = strlen(what); e > 0 && what[e - 1] == ' ';)
            what[--e] = '\0'; /* the last part given ends the target */
        int on = P(g, 60);    /* on to the next rule of the run */
        unsigned n = on ? B(g, 3) : 1 + B(g, 2);
        struct acreG_rule *r = new_rule(g, global, *what ? what : "*", n + 1);
        if (!r)
            return;
        for (unsigned j = 0; j < n; j++)
            r->by[r->nby++] = gen_by(g, &wi);
        if (on)
            r->by[r->nby++] = fmt(g, "* %s break", tail_access(g));
    }
}

/* Rules the way administrators write them. */
static void
gen_idiom(struct gen *g, int global)
{
    struct acreG_rule *r;

    switch (B(g, 8)) {
    case 6: { /* a value condition: slapd's state over the values (acl.c) */
        static const char *const types[] = {"cn", "mail", "description"};
        static const char *const pats[] = {"^[a-m]", "^u1", "x$"};
        const char *w =
            fmt(g, "attrs=%s val.regex=\"%s\"", PICK(g, types), PICK(g, pats));
        if (!(r = new_rule(g, global, w, 2)))
            return;
        r->by[r->nby++] = P(g, 50) ? "* none" : "users read";
        if (P(g, 50))
            r->by[r->nby++] = "* break";
        break;
    }
    case 7: /* "self" access: the same state */
        if (!(r = new_rule(g, global, "attrs=member,uniqueMember", 2)))
            return;
        r->by[r->nby++] = "users selfwrite";
        r->by[r->nby++] = "* break";
        break;
    case 0:
        if (!(r = new_rule(g, global, "attrs=userPassword", 4)))
            return;
        r->by[r->nby++] = fmt(g, "self %s", P(g, 50) ? "write" : "=wx");
        r->by[r->nby++] = "anonymous auth";
        if (P(g, 50))
            r->by[r->nby++] = fmt(g, "dn.exact=\"%s\" read", any_user(g));
        r->by[r->nby++] = "* none";
        break;
    case 1:
        if (!(r = new_rule(g, global, "*", 3)))
            return;
        r->by[r->nby++] = "self write";
        r->by[r->nby++] = "users read";
        r->by[r->nby++] = fmt(g, "* %s", tail_access(g));
        break;
    case 2:
        if (!(r = new_rule(g, global, fmt(g, "dn.subtree=\"%s\"", scope_dn(g)),
                           3)))
            return;
        r->by[r->nby++] = fmt(g, "group=\"%s\" write",
                              g->ngroups ? g->groups[0] : any_group(g));
        r->by[r->nby++] = fmt(g, "users %s", tail_access(g));
        r->by[r->nby++] = "anonymous search";
        break;
    case 3:
        if (!(r = new_rule(g, global, "attrs=entry,children,objectClass", 2)))
            return;
        r->by[r->nby++] = fmt(g, "* %s", P(g, 70) ? "read" : "search");
        if (P(g, 50))
            r->by[r->nby++] = "* break";
        break;
    case 4:
        if (!(r = new_rule(g, global, "*", 2)))
            return;
        r->by[r->nby++] = fmt(g, "* %s", tail_access(g));
        break;
    default:
        if (!(r = new_rule(g, global,
                           "dn.regex=\"^uid=([^,]+),ou=people,"
                           "dc=example,dc=com$\" attrs=mail,telephoneNumber",
                           3)))
            return;
        r->by[r->nby++] =
            "dn.exact,expand=\"uid=$1,ou=people,dc=example,dc=com\" write";
        r->by[r->nby++] = "users read";
        r->by[r->nby++] = "* break";
        break;
    }
}

/* A list of random rules with idioms mixed in; a permissive catch-all
 * last more often than not, so that checks and searches see both
 * outcomes. */
static void
gen_rules(struct gen *g, int global, unsigned n)
{
    int idiom_first = P(g, 40);

    if (!n)
        return;
    if (idiom_first)
        gen_idiom(g, global), n--;
    for (unsigned i = 0; i < n; i++) {
        if (P(g, 15))
            gen_idiom(g, global);
        else if (P(g, 8))
            gen_run(g, global);
        else
            gen_rule(g, global);
    }
    if (P(g, 55)) {
        struct acreG_rule *r = new_rule(g, global, "*", 3);
        if (!r)
            return;
        if (P(g, 40))
            r->by[r->nby++] = "self write";
        r->by[r->nby++] = fmt(g, "users %s", tail_access(g));
        r->by[r->nby++] = fmt(g, "* %s", tail_access(g));
    }
}

/* rules_on -- n rules of the current database, each on one of whats[0..nw)
 * with 1-3 random clauses. */
static void
rules_on(struct gen *g, const char *const *whats, size_t nw, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        struct what_info wi = {CAP_NONE, CAP_NONE, 0, 0};
        unsigned nby = 1 + B(g, 3);
        struct acreG_rule *r = new_rule(g, 0, whats[B(g, (unsigned)nw)], nby);
        for (unsigned j = 0; r && j < nby; j++)
            r->by[r->nby++] = gen_by(g, &wi);
    }
}

/* The rules of a database below the first one, of suffix sfx (the
 * first database's rules do not decide its entries): random ones and
 * some on its subtree, or none (then the global rules decide, else
 * slapd's default read). */
static void
gen_nested_rules(struct gen *g, unsigned db, const char *sfx)
{
    const char *const whats[] = {
        "*",
        fmt(g, "dn.subtree=\"%s\"", sfx),
        fmt(g, "dn.one=\"%s\" attrs=entry,cn,uid", sfx),
        fmt(g, "dn.base=\"%s\"", sfx),
        "dn.children=\"ou=people," ACREG_SUFFIX "\"",
        "attrs=mail,telephoneNumber,children",
    };

    g->cur_db = db;
    gen_rules(g, 0, P(g, 15) ? 0 : 1 + B(g, 6));
    rules_on(g, whats, sizeof whats / sizeof whats[0], B(g, 3));
    g->cur_db = 0;
}

static void
gen_policy(struct gen *g)
{
    unsigned nglobal = P(g, 40) ? 1 + B(g, 3) : 0;
    unsigned ndb = P(g, 5) ? 0 : 1 + B(g, 10);

    if (P(g, 8)) /* now and then a long list: many index nodes */
        ndb = 13 + B(g, 18);

    if (P(g, 3))
        nglobal = ndb = 0; /* no rules at all: the default read */
    gen_rules(g, 1, nglobal);
    g->cur_db = 0;
    gen_rules(g, 0, ndb);
    if (g->c->nested)
        gen_nested_rules(g, ACREG_DB_NESTED, ACREG_SUFFIX3);
    if (g->c->nested_people)
        gen_nested_rules(g, ACREG_DB_PEOPLE, ACREG_SUFFIX4);
    if (g->c->ndbs < 2)
        return;
    static const char *const whats[] = {
        "*",
        "dn.subtree=\"" ACREG_SUFFIX2 "\"",
        "dn.one=\"" ACREG_SUFFIX2 "\"",
        "attrs=cn,sn,owner",
        "dn.regex=\"^cn=[^,]+,o=elsewhere$\"",
        "dn.children=\"" ACREG_SUFFIX2 "\" attrs=entry,description",
    };
    g->cur_db = 1;
    /* now and then a rule that decides by a lookup in the first
     * database (its groups, the requester's entry, a URL under its
     * suffix): slapd sees every database, slapacl only the entry's */
    if (P(g, 40)) {
        struct what_info wi = {CAP_NONE, CAP_NONE, 0, 0};
        struct acreG_rule *r = new_rule(g, 0, PICK(g, whats), 2);
        const char *acc = gen_access(g);
        static const char *const first_db[] = {
            "set=\"user/uid\"",
            "set=\"user/objectClass & [inetOrgPerson]\"",
            "set=\"[ldap:///ou=people," ACREG_SUFFIX "??one?(uid=u1)]/uid\"",
            "set=\"[ldap:///" ACREG_SUFFIX "??sub?(objectClass=groupOfNames)]"
            "/member & user\"",
        };
        unsigned k = B(g, 4);
        const char *who = k == 0   ? gen_group(g)
                          : k == 1 ? gen_set(g)
                                   : PICK(g, first_db);
        if (r)
            r->by[r->nby++] = fmt(g, "%s %s", who, acc ? acc : "read");
        if (r)
            r->by[r->nby++] = gen_by(g, &wi);
    }
    rules_on(g, whats, sizeof whats / sizeof whats[0], B(g, 4));
}

/* ------------------------------------------------------------------------
 * Requesters and searches
 */

static const char *const peernames[] = {
    "IP=127.0.0.1:40000",
    "IP=127.0.0.1:389",
    "IP=10.1.2.3:389",
    "IP=192.168.1.5:1234",
    "IP=[::1]:40000",
    "PATH=/var/run/ldapi",
    NULL,
};
static const char *const domains[] = {"ldap.example.com", "example.com",
                                      "evil.org", NULL};
static const char *const sockurls[] = {"ldap:///", "ldaps:///", "ldapi:///",
                                       NULL};
static const char *const socknames[] = {"IP=127.0.0.1:389", "IP=0.0.0.0:636",
                                        NULL};

static void
connection(struct gen *g, struct acreG_requester *rq)
{
    static const unsigned ssfs[] = {0, 0, 56, 71, 128, 256};
    static const unsigned tls[] = {0, 0, 128, 256};
    static const unsigned sasl[] = {0, 0, 56};

    rq->peername = PICK(g, peernames);
    rq->domain = PICK(g, domains);
    rq->sockurl = PICK(g, sockurls);
    rq->sockname = PICK(g, socknames);
    rq->ssf = ssfs[B(g, 6)];
    rq->tls_ssf = tls[B(g, 4)];
    rq->sasl_ssf = sasl[B(g, 3)];
    rq->transport_ssf = rq->tls_ssf ? rq->tls_ssf : ssfs[B(g, 6)];
}

static void
add_rq(struct gen *g, const char *label, const char *authz, const char *authc)
{
    struct acreG_case *c = g->c;
    struct acreG_requester *v =
        talloc_realloc(c, c->rq, struct acreG_requester, c->nrq + 1);

    if (!v) {
        g->nomem = 1;
        return;
    }
    c->rq = v;
    struct acreG_requester *rq = &v[c->nrq++];
    memset(rq, 0, sizeof(*rq));
    rq->label = label;
    rq->authz_dn = authz;
    rq->authc_dn = authc;
    connection(g, rq);
}

static void
gen_requesters(struct gen *g)
{
    uint8_t used[MAXN] = {0};
    unsigned nusers = g->nusers < 10 ? g->nusers : 10;

    add_rq(g, "anonymous", NULL, NULL);
    add_rq(g, "rootdn", ACREG_ROOTDN, NULL);
    for (unsigned i = 0, done = 0; done < nusers && i < 4 * MAXN; i++) {
        unsigned j = B(g, g->nusers);
        if (used[j])
            continue;
        used[j] = 1;
        done++;
        const char *authc = NULL;
        if (P(g, 12))
            authc = P(g, 30) ? ACREG_ROOTDN : any_user(g);
        add_rq(g, fmt(g, "user %s", g->uids[j]),
               P(g, 85) ? g->users[j] : dn_variant(g, g->users[j]), authc);
    }
    if (g->ndevices)
        add_rq(g, "device", g->devices[B(g, g->ndevices)], NULL);
    if (P(g, 40))
        add_rq(g, "group", any_group(g), NULL);
    add_rq(g, "ghost", "uid=ghost,ou=people," ACREG_SUFFIX, NULL);
    if (g->c->ndbs > 1) {
        if (!g->c->norootdn2)
            add_rq(g, "rootdn2", ACREG_ROOTDN2, NULL);
        add_rq(g, "boss", "cn=boss," ACREG_SUFFIX2, NULL);
    }
    if (P(g, 40))
        add_rq(g, "outsider", "cn=someone,o=elsewhere", NULL);
    if (P(g, 20)) /* authenticated as anonymous, authorised as a user */
        add_rq(g, "proxied-anon", any_user(g), "");
    /* the same identity again with another connection (and sometimes
     * another authentication DN): answers cached per requester must
     * not leak from one to the other */
    for (unsigned i = 0, n = B(g, 3); i < n; i++) {
        unsigned j = B(g, g->nusers);
        add_rq(g, fmt(g, "twin of %s", g->uids[j]), g->users[j],
               P(g, 30) ? any_user(g) : NULL);
    }
}

/* A filter on descriptions with options, or an extensible item that
 * names no type (it covers every attribute, optioned ones included):
 * each item is checked for search access on the stored attribute's
 * whole description (issue 12). */
static const char *
gen_optioned_filter(struct gen *g)
{
    const char *fr = g->nfr ? g->fr[B(g, g->nfr)] : "Alice fr";

    switch (B(g, 16)) {
    case 0:
        return "(cn;lang-fr=*)";
    case 1:
        return "(cn;lang-en-=*)";
    case 2:
        return "(cn;lang-=*e*)";
    case 3:
        return fmt(
            g, "(%s=%s)",
            PICK(g, ((const char *const[]){"cn", "cn;lang-fr", "CN;LANG-FR",
                                           "name;lang-fr", "cn;lang-"})),
            fr);
    case 4:
        return fmt(g, "(cn;lang-fr=%.1s*)", fr);
    case 5:
        return "(description;lang-en=*)";
    case 6:
        return fmt(g, "(:%s:=%s)",
                   P(g, 50) ? "caseIgnoreMatch" : "caseExactMatch", fr);
    case 7:
        return "(:caseIgnoreMatch:=boss)";
    case 8:
        return fmt(g, "(name;lang-en:caseIgnoreMatch:=%s the %s)",
                   PICK(g, first_names), "boss");
    case 9:
        return "(:dn:caseIgnoreMatch:=people)";
    case 10:
        return fmt(g, "(name;lang-fr~=%s)", fr);
    case 11:
        return "(CN;LANG-FR>=M)";
    case 12:
        return "(title;lang-fr=patron)";
    case 13:
        return fmt(g,
                   "(|(cn;lang-en-us=*)(cn;lang-de;lang-en-=*)(sn;lang-de=%s))",
                   PICK(g, last_names));
    case 14:
        return fmt(g, "(cn;lang-fr:dn:caseExactMatch:=%s)", fr);
    default:
        return "(!(description;lang-=*))";
    }
}

static const char *
gen_filter(struct gen *g)
{
    const char *u = any_user(g);

    unsigned k = B(g, 22);

    if (P(g, 35))
        return gen_optioned_filter(g);
    switch (k) {
    case 0:
    case 1:
    case 2:
        return "(objectClass=*)";
    case 3:
        return "(uid=u1*)";
    case 4:
        return "(!(title=boss))";
    case 5:
        return "(|(cn=*)(member=*))";
    case 6:
        return "(&(objectClass=inetOrgPerson)(userPassword=*))";
    case 7:
        return fmt(g, "(member=%s)", u);
    case 8:
        return "(cn;lang-en=*)";
    case 9:
        return "(name=*a*)";
    case 10:
        return "(description=*)";
    case 11:
        return fmt(g, "(mail=%s@example.com)", g->uids[B(g, g->nusers)]);
    case 12:
        return "(uniqueMember=*)";
    case 13:
        return fmt(g, "(manager=%s)", u);
    case 14:
        return "(&(uid=*)(!(mail=*)))";
    case 15:
        return "(objectClass=groupOfURLs)";
    case 16:
        return g->ncns ? fmt(g, "(cn=%s)", g->cns[B(g, g->ncns)]) : "(cn=x)";
    case 17:
        return "(|(sn=*)(ou=*))";
    case 18:
        return "(!(objectClass=person))";
    case 19:
        return "(telephoneNumber=*)";
    case 20:
        return P(g, 30) ? "(cn=x" : "(title=Boss)";
    default:
        return "(|(title=engineer)(!(uid=u2)))";
    }
}

static const char *const *
gen_attr_list(struct gen *g, unsigned *n)
{
    static const char *const a0[] = {"*"};
    static const char *const a1[] = {"cn"};
    static const char *const a2[] = {"cn", "sn"};
    static const char *const a3[] = {"1.1"};
    static const char *const a4[] = {"+"};
    static const char *const a5[] = {"*", "+"};
    static const char *const a6[] = {"name"};
    static const char *const a7[] = {"cn;lang-en"};
    static const char *const a8[] = {"member", "uniqueMember"};
    static const char *const a9[] = {"userPassword", "mail"};
    static const char *const a10[] = {"objectClass"};
    static const char *const a11[] = {"uid", "telephoneNumber", "description"};
    static const char *const a12[] = {"manager", "seeAlso"};
    static const char *const a13[] = {"memberURL", "owner"};
    static const char *const a14[] = {"commonName", "SURNAME", "Mail"};
    static const char *const a15[] = {"CN;LANG-EN", "objectclass"};
    static const char *const a16[] = {"cn;lang-fr"};
    static const char *const a17[] = {"cn;lang-"};
    static const char *const a18[] = {"name;lang-en-"};
    static const char *const a19[] = {"description;lang-en", "cn;lang-fr"};
    static const char *const a20[] = {"CN;Lang-FR;lang-de", "sn"};
    static const char *const a21[] = {"-cn", "title;lang-"};
    static const char *const a22[] = {"cn;lang-de;lang-en-", "uid"};

    static const struct {
        const char *const *a;
        unsigned n;
    } lists[] = {{NULL, 0}, {NULL, 0}, {NULL, 0}, {a0, 1},  {a1, 1},  {a2, 2},
                 {a3, 1},   {a4, 1},   {a5, 2},   {a6, 1},  {a7, 1},  {a8, 2},
                 {a9, 2},   {a10, 1},  {a11, 3},  {a12, 2}, {a13, 2}, {a14, 3},
                 {a15, 2},  {a16, 1},  {a17, 1},  {a18, 1}, {a19, 2}, {a20, 2},
                 {a21, 2},  {a22, 2}};

    unsigned i = B(g, sizeof(lists) / sizeof(lists[0]));

    *n = lists[i].n;
    return lists[i].a;
}

static const char *
gen_base(struct gen *g)
{
    unsigned k = B(g, 100);

    if (k < 30)
        return ACREG_SUFFIX;
    if (k < 45)
        return g->ous[B(g, g->nous)];
    if (k < 75)
        return g->c->entries[B(g, g->c->nentries)].dn;
    if (k < 90)
        return fmt(g, "uid=nobody,%s", any_dn(g));
    if (k < 93)
        return "not a dn";
    if (k < 96)
        return "o=nowhere";
    return dn_variant(g, any_dn(g));
}

static void
gen_searches(struct gen *g)
{
    struct acreG_case *c = g->c;
    unsigned n = 4 + B(g, 6);

    c->searches = talloc_zero_array(c, struct acreG_search, n);
    if (!c->searches) {
        g->nomem = 1;
        return;
    }
    for (unsigned i = 0; i < n; i++) {
        struct acreG_search *s = &c->searches[c->nsearches++];
        s->base = gen_base(g);
        static const int scopes[] = {ACREG_BASE, ACREG_ONE, ACREG_SUB,
                                     ACREG_SUB,  ACREG_SUB, ACREG_CHILDREN};
        s->scope = scopes[B(g, 6)];
        s->filter = gen_filter(g);
        unsigned na;
        const char *const *a = gen_attr_list(g, &na);
        s->nattrs = na;
        s->attrs = talloc_array(c, const char *, na + 1);
        if (!s->attrs) {
            g->nomem = 1;
            return;
        }
        for (unsigned j = 0; j < na; j++)
            s->attrs[j] = a[j];
    }
}

/* ------------------------------------------------------------------------
 * The case
 */

int
acreG_case_new(void *mem_ctx, uint64_t seed, struct acreG_case **out)
{
    struct gen g;

    memset(&g, 0, sizeof(g));
    acreG_rng_seed(&g.r, seed);
    g.c = talloc_zero(mem_ctx, struct acreG_case);
    if (!g.c)
        return -1;
    g.c->seed = seed;
    gen_dit(&g);
    gen_policy(&g);
    gen_requesters(&g);
    gen_searches(&g);
    if (g.nomem) {
        talloc_free(g.c);
        return -1;
    }
    *out = g.c;
    return 0;
}

/* Append rule text; slapd.conf's tokenizer takes a backslash as an
 * escape of the next character, so the DN escapes the text holds
 * (cn=Lee\, Ann) are doubled. */
static char *
append_escaped(char *s, const char *pre, const char *text)
{
    s = talloc_asprintf_append(s, "%s", pre);
    for (const char *p = text; s && *p; p++) {
        size_t n = strcspn(p, "\\");
        s = talloc_asprintf_append(s, "%.*s%s", (int)n, p, p[n] ? "\\\\" : "");
        p += n;
        if (!*p)
            break;
    }
    return s ? talloc_asprintf_append(s, "\n") : NULL;
}

static char *
conf_rules(char *s, const struct acreG_case *c, int global, unsigned db)
{
    for (unsigned i = 0; s && i < c->nrules; i++) {
        const struct acreG_rule *r = &c->rules[i];
        if (r->omit || r->global != global || (!global && r->db != db))
            continue;
        s = append_escaped(s, "access to ", r->what);
        for (unsigned j = 0; s && j < r->nby; j++)
            if (!r->omit_by[j])
                s = append_escaped(s, "  by ", r->by[j]);
    }
    return s;
}

char *
acreG_conf(void *ctx, const struct acreG_case *c)
{
    static const char *const suffix[] = {ACREG_SUFFIX, ACREG_SUFFIX2};
    static const char *const rootdn[] = {ACREG_ROOTDN, ACREG_ROOTDN2};
    char *s = talloc_asprintf(ctx, "# acre agreement case, seed %llu\n",
                              (unsigned long long)c->seed);

    s = conf_rules(s, c, 1, 0);
    if (c->nested && s) {
        s = talloc_asprintf_append(
            s,
            "database mdb\n"
            "suffix \"%s\"\n"
            "%s"
            "rootdn \"%s\"\n",
            ACREG_SUFFIX3,
            c->nested == ACREG_NESTED_GLUED ? "subordinate\n" : "",
            ACREG_ROOTDN);
        s = conf_rules(s, c, 0, ACREG_DB_NESTED);
    }
    if (c->nested_people && s) {
        s = talloc_asprintf_append(s,
                                   "database mdb\n"
                                   "suffix \"%s\"\n"
                                   "subordinate\n"
                                   "rootdn \"%s\"\n",
                                   ACREG_SUFFIX4, ACREG_ROOTDN);
        s = conf_rules(s, c, 0, ACREG_DB_PEOPLE);
    }
    for (unsigned db = 0; s && db < c->ndbs && db < 2; db++) {
        s = talloc_asprintf_append(s,
                                   "database mdb\n"
                                   "suffix \"%s\"\n",
                                   suffix[db]);
        if (s && !(db == 1 && c->norootdn2))
            s = talloc_asprintf_append(s, "rootdn \"%s\"\n", rootdn[db]);
        s = conf_rules(s, c, 0, db);
    }
    return s;
}

/* An entry is left out with an omitted ancestor too. */
static int
entry_omitted(const struct acreG_case *c, unsigned i)
{
    for (int k = (int)i; k >= 0; k = c->entries[k].parent)
        if (c->entries[k].omit)
            return 1;
    return 0;
}

/* dn with its parent part (after the first unescaped comma) in upper case
 * when entry i is one of about a sixth: the same DN (the generator's
 * naming types all ignore case), spelt unlike the parent's own DN, which
 * slapd prints in the child's place; else dn as it is. */
static char *
parent_case_variant(void *ctx, const char *dn, unsigned i)
{
    char *s = talloc_strdup(ctx, dn);
    char *p = s;

    if (!s || ((i + 1) * 2654435761u) >> 29 != 0)
        return s;
    for (; *p && *p != ','; p++)
        if (*p == '\\' && p[1])
            p++;
    for (; *p; p++)
        if (*p >= 'a' && *p <= 'z')
            *p = (char)(*p - 32);
    return s;
}

char *
acreG_ldif(void *ctx, const struct acreG_case *c)
{
    char *s = talloc_strdup(ctx, "");

    for (unsigned i = 0; i < c->nentries; i++) {
        const struct acreG_entry *e = &c->entries[i];
        if (entry_omitted(c, i))
            continue;
        if (ascii(e->dn)) {
            char *v = parent_case_variant(ctx, e->dn, i);
            s = talloc_asprintf_append(s, "dn: %s\n", v ? v : e->dn);
            talloc_free(v);
        } else {
            char b[1024];
            size_t n = strlen(e->dn);
            if (n > 700)
                return NULL;
            base64(b, (const unsigned char *)e->dn, n);
            s = talloc_asprintf_append(s, "dn:: %s\n", b);
        }
        for (unsigned j = 0; j < e->nlines; j++)
            if (!e->omit_line[j])
                s = talloc_asprintf_append(s, "%s\n", e->lines[j]);
        s = talloc_asprintf_append(s, "\n");
    }
    return s;
}

char *
acreG_requester_text(void *ctx, const struct acreG_requester *rq)
{
    char *s = talloc_asprintf(ctx, "[%s]", rq->label ? rq->label : "");

    if (rq->authc_dn)
        s = talloc_asprintf_append(s, " -D \"%s\"", rq->authc_dn);
    s = talloc_asprintf_append(s, " -X \"%s\"",
                               rq->authz_dn ? rq->authz_dn : "");
    if (rq->peername)
        s = talloc_asprintf_append(s, " -o peername=%s", rq->peername);
    if (rq->sockname)
        s = talloc_asprintf_append(s, " -o sockname=%s", rq->sockname);
    if (rq->sockurl)
        s = talloc_asprintf_append(s, " -o sockurl=%s", rq->sockurl);
    if (rq->domain)
        s = talloc_asprintf_append(s, " -o domain=%s", rq->domain);
    return talloc_asprintf_append(
        s, " -o ssf=%u -o transport_ssf=%u -o tls_ssf=%u -o sasl_ssf=%u",
        rq->ssf, rq->transport_ssf, rq->tls_ssf, rq->sasl_ssf);
}

char *
acreG_search_text(void *ctx, const struct acreG_search *s)
{
    static const char *const scopes[] = {"base", "one", "sub", "children"};
    char *t = talloc_asprintf(ctx, "search base=\"%s\" scope=%s filter=%s",
                              s->base, scopes[s->scope & 3], s->filter);

    t = talloc_asprintf_append(t, " attrs=");
    for (unsigned i = 0; i < s->nattrs; i++)
        t = talloc_asprintf_append(t, "%s%s", i ? "," : "", s->attrs[i]);
    if (s->nattrs == 0)
        t = talloc_asprintf_append(t, "(none)");
    return t;
}

static int
write_file(const char *dir, const char *name, const char *text)
{
    char path[4096];

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    int ok = fputs(text, f) >= 0;
    return (fclose(f) == 0 && ok) ? 0 : -1;
}

int
acreG_write_reproducer(const struct acreG_case *c,
                       const struct acreG_requester *rq, const char *check,
                       const char *dir, FILE *f)
{
    void *tmp = talloc_new(NULL);
    char *conf = acreG_conf(tmp, c);
    char *ldif = acreG_ldif(tmp, c);
    char *who = rq ? acreG_requester_text(tmp, rq) : talloc_strdup(tmp, "");
    int rc = 0;

    if (!conf || !ldif || !who) {
        talloc_free(tmp);
        return -1;
    }
    if (dir) {
        char *txt = talloc_asprintf(tmp, "seed %llu\nrequester %s\n%s\n",
                                    (unsigned long long)c->seed, who,
                                    check ? check : "");
        if (!txt || (mkdir(dir, 0777) && errno != EEXIST) ||
            write_file(dir, "slapd.conf", conf) ||
            write_file(dir, "data.ldif", ldif) ||
            write_file(dir, "check.txt", txt))
            rc = -1;
    } else {
        fprintf(f,
                "==== reproducer: seed %llu ====\n"
                "---- slapd.conf (slapd also needs the core, cosine, "
                "inetorgperson, nis and dyngroup schema includes) ----\n"
                "%s"
                "---- data.ldif ----\n%s"
                "---- requester ----\n%s\n"
                "---- check ----\n%s\n"
                "==== end of reproducer ====\n",
                (unsigned long long)c->seed, conf, ldif, who,
                check ? check : "");
    }
    talloc_free(tmp);
    return rc;
}
