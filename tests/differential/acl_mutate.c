/*
 * acl_mutate.c -- damaged rules for the slaptest comparison (see
 * acl_mutate.h).
 */
#include "acl_mutate.h"

#include <ctype.h>
#include <string.h>
#include <talloc.h>

/* Words and characters a mutation puts in. */
struct kit {
    const char *const *words;
    unsigned nwords;
    const char *chars;
};

/* Words a rule may hold, some of them wrong where they land, some wrong
 * anywhere (not "aci" or "dynacl/aci": slapd's ACI module, which acre
 * refuses, acre-rules(5)). */
static const char *const pool[] = {
    "by",
    "to",
    "*",
    "access",
    "read",
    "write",
    "none",
    "manage",
    "auth",
    "disclose",
    "search",
    "compare",
    "add",
    "delete",
    "+rw",
    "-w",
    "=xz",
    "+q",
    "=0",
    "stop",
    "continue",
    "break",
    "self",
    "users",
    "anonymous",
    "realself",
    "realanonymous",
    "realusers",
    "selfwrite",
    "realselfread",
    "self.level{1}",
    "self.level{-1}",
    "self.level{x}",
    "dn=\"\"",
    "dn.base=\"x\"",
    "dn.subtree=\"cn=a,,dc=b\"",
    "dn.regex=\"(\"",
    "dn.regex=\"^cn=[a-z]+,dc=example,dc=com$\"",
    "dn.regex=\".*\"",
    "dn.one=\"dc=example,dc=com\"",
    "dn.children=\"\"",
    "dn.base=\"\"",
    "dn.exact,expand=\"$1\"",
    "dn.level{2}=\"dc=example,dc=com\"",
    "dn.level{x}=\"dc=example,dc=com\"",
    "dn.nosuch=\"dc=example,dc=com\"",
    "dn.exact=\"UID=u1, OU=people, DC=example, DC=com\"",
    "filter=(cn=*)",
    "filter=(cn=",
    "filter=(&)",
    "filter=(nosuch=1)",
    "filter=cn=x",
    "filter=(cn~=x)",
    "attrs=cn",
    "attrs=nosuchattr",
    "attrs=@person",
    "attrs=!person",
    "attrs=@nosuch",
    "attrs=entry,children",
    "attrs=cn,",
    "attrs=,cn",
    "attrs=cn;lang-fr",
    "attrs=cn;x-y",
    "attrs=userPassword",
    "val=x",
    "val.regex=\"(\"",
    "val.regex=\"^a\"",
    "val.exact=x",
    "val.base=\"cn=a,dc=example,dc=com\"",
    "val/caseExactMatch=x",
    "val/nosuchMatch=x",
    "val.subtree=\"dc=example,dc=com\"",
    "group=\"cn=g,dc=example,dc=com\"",
    "group/groupOfNames/member=\"cn=g,dc=example,dc=com\"",
    "group/nosuchclass=\"cn=g\"",
    "group/groupOfNames/nosuch=\"cn=g\"",
    "group.regex=\"(\"",
    "group.expand=\"cn=$1\"",
    "set=\"user & [a]\"",
    "set=\"user &\"",
    "set=\"this/\"",
    "set=\"this/manager* & user\"",
    "set.regex=\"x\"",
    "dnattr=member",
    "dnattr=cn",
    "dnattr=nosuch",
    "realdnattr=member",
    "peername.ip=127.0.0.1",
    "peername.ip=1.2.3",
    "peername.ip=127.0.0.1%255.0.0.0",
    "peername.ipv6=::1",
    "peername.ipv6=zz",
    "peername.path=/x",
    "peername.regex=\"(\"",
    "sockname=\"IP=0.0.0.0:389\"",
    "sockurl=\"ldap:///\"",
    "sockurl.regex=\"(\"",
    "domain=example.com",
    "domain.subtree=example.com",
    "domain.expand=$1",
    "ssf=128",
    "ssf=0",
    "ssf=x",
    "ssf=-1",
    "tls_ssf=1",
    "sasl_ssf=256",
    "transport_ssf=",
    "dynacl/nosuch",
    "\"",
    "=",
    ",",
    "(",
    ")",
    "$",
    "\\",
    "#x",
};

/* Words an entry may hold, some wrong where they land, some wrong
 * anywhere. */
static const char *const data_pool[] = {
    "dn:",
    "dn::",
    "dn: dc=com",
    "dn: cn=x,dc=example,dc=com",
    "objectClass:",
    "objectClass: top",
    "objectClass: person",
    "objectClass: organizationalPerson",
    "objectClass: inetOrgPerson",
    "objectClass: organizationalUnit",
    "objectClass: groupOfNames",
    "objectClass: extensibleObject",
    "objectClass: nosuchclass",
    "structuralObjectClass: person",
    "cn:",
    "cn::",
    "cn:<",
    "cn: x",
    "cn:: eA==",
    "cn:: =",
    "sn: x",
    "uid: u1",
    "ou: x",
    "l: Berlin",
    "l: berlin",
    "c: US",
    "c: USA",
    "mail: a@example.com",
    "telephoneNumber: +1 555 0100",
    "telephoneNumber: x",
    "description;lang-en: x",
    "description;binary: x",
    "member: cn=x,dc=example,dc=com",
    "member: x",
    "seeAlso: cn=a+cn=b,dc=example,dc=com",
    "userPassword: secret",
    "entryUUID: 2d3b8a36-8c5d-103f-8a53-5f2b2b2b2b2b",
    "createTimestamp: 20200101000000Z",
    "createTimestamp: x",
    "x500UniqueIdentifier: '0101'B",
    "x500UniqueIdentifier: junk",  /* bitStringMatch: no normaliser */
    "facsimileTelephoneNumber: $", /* no equality rule */
    "nosuchattr: x",
    "changetype: add",
    "changetype: modify",
    "version: 1",
    "-",
    ":",
    "::",
    "x",
    "dc=example,dc=com",
    "cn=a+cn=b",
    "\\2C",
    "#",
};

static const struct kit rule_kit = {pool, DT_NELEM(pool),
                                    "\"=,.()*${}\\;:+-!&|/ \taZ09#"};

static const struct kit data_kit = {data_pool, DT_NELEM(data_pool),
                                    "\"=,.;:+-<>#\\ \t\r\vaZ09"};

/* The lines of the rules that belong to an access rule ("access" and
 * the indented lines that continue it). */
static int
rule_line(const char *const *lines, unsigned i)
{
    for (; lines[i]; i--) {
        const char *l = lines[i];
        if (!strncasecmp(l, "access", 6))
            return 1;
        if (!isspace((unsigned char)*l) || i == 0)
            return 0;
    }
    return 0;
}

/* Split s at single spaces into tokens (empty ones kept: they hold the
 * indentation). */
static char **
split(void *ctx, const char *s, unsigned *n)
{
    char **v = NULL;

    *n = 0;
    for (;;) {
        const char *e = strchr(s, ' ');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        v = talloc_realloc(ctx, v, char *, *n + 2);
        v[(*n)++] = talloc_strndup(v, s, len);
        if (!e)
            break;
        s = e + 1;
    }
    v[*n] = NULL;
    return v;
}

/* A token at random that is not empty (one must exist), its index. */
static unsigned
some_token(struct dt_rng *r, char **t, unsigned n)
{
    unsigned k;

    do
        k = dt_rng_below(r, n);
    while (!*t[k]);
    return k;
}

/* One mutation of line l with kit k; what it did, into *what. */
static char *
mutate_line(void *ctx, struct dt_rng *r, const struct kit *kit, const char *l,
            const char **what)
{
    unsigned n, k, j;
    char **t = split(ctx, l, &n), *x, *out;
    int nonempty = 0;

    for (k = 0; k < n; k++)
        nonempty += *t[k] != '\0';
    if (!nonempty)
        return talloc_strdup(ctx, l);
    k = some_token(r, t, n);
    switch (dt_rng_below(r, 8)) {
    case 0:
        *what = "token deleted";
        t[k][0] = '\0';
        break;
    case 1:
        *what = "token doubled";
        t[k] = talloc_asprintf(t, "%s %s", t[k], t[k]);
        break;
    case 2:
        *what = "tokens swapped";
        j = some_token(r, t, n);
        x = t[k], t[k] = t[j], t[j] = x;
        break;
    case 3:
        *what = "token replaced";
        t[k] = talloc_strdup(t, kit->words[dt_rng_below(r, kit->nwords)]);
        break;
    case 4:
        *what = "token inserted";
        t[k] = talloc_asprintf(t, "%s %s",
                               kit->words[dt_rng_below(r, kit->nwords)], t[k]);
        break;
    case 5:
        *what = "character deleted";
        x = t[k];
        j = dt_rng_below(r, (unsigned)strlen(x));
        memmove(x + j, x + j + 1, strlen(x + j));
        break;
    case 6:
        *what = "character inserted";
        x = t[k];
        j = dt_rng_below(r, (unsigned)strlen(x) + 1);
        t[k] = talloc_asprintf(
            t, "%.*s%c%s", (int)j, x,
            kit->chars[dt_rng_below(r, (unsigned)strlen(kit->chars))], x + j);
        break;
    default:
        *what = "token case changed";
        for (x = t[k]; *x; x++)
            *x = (char)(dt_rng_chance(r, 50) ? toupper((unsigned char)*x)
                                             : tolower((unsigned char)*x));
        break;
    }
    out = talloc_strdup(ctx, "");
    for (k = 0; k < n; k++)
        out = talloc_asprintf_append(out, "%s%s", k ? " " : "", t[k]);
    talloc_free(t);
    return out;
}

char *
acl_mutate(void *ctx, const char *rules, uint64_t seed, char **what)
{
    struct dt_rng r;
    unsigned n = 0, nrule, i;
    char **lines = NULL, *copy = talloc_strdup(ctx, rules), *save = NULL, *l;
    char *out;

    dt_rng_seed(&r, seed);
    lines = talloc_array(ctx, char *, 1);
    for (l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        lines = talloc_realloc(ctx, lines, char *, n + 2);
        lines[n++] = l;
    }
    lines[n] = NULL;
    *what = talloc_strdup(ctx, "");
    for (unsigned m = 1 + dt_rng_below(&r, 2); m; m--) {
        /* counted again: a mutation may end a rule or join two */
        for (nrule = 0, i = 0; i < n; i++)
            nrule += rule_line((const char *const *)lines, i);
        if (!nrule)
            break;
        unsigned pick = dt_rng_below(&r, nrule), seen = 0;
        for (i = 0; i < n; i++)
            if (rule_line((const char *const *)lines, i) && seen++ == pick)
                break;
        const char *how = "";
        lines[i] = mutate_line(ctx, &r, &rule_kit, lines[i], &how);
        *what = talloc_asprintf_append(*what, "%sline %u: %s",
                                       **what ? "; " : "", i + 1, how);
    }
    out = talloc_strdup(ctx, "");
    for (i = 0; i < n; i++)
        out = talloc_asprintf_append(out, "%s\n", lines[i]);
    return out;
}

char *
acl_mutate_data(void *ctx, const char *ldif, uint64_t seed, char **what)
{
    struct dt_rng r;
    unsigned n = 0, ndata, i;
    char **lines, *out;
    const char *p;

    dt_rng_seed(&r, seed);
    lines = talloc_array(ctx, char *, 1);
    for (p = ldif; *p;) {
        size_t len = strcspn(p, "\n");
        lines = talloc_realloc(ctx, lines, char *, n + 2);
        lines[n++] = talloc_strndup(lines, p, len);
        p += len + (p[len] == '\n');
    }
    lines[n] = NULL;
    *what = talloc_strdup(ctx, "");
    for (unsigned m = 1 + dt_rng_below(&r, 2); m; m--) {
        /* a line of an entry: not empty, not a comment */
        for (ndata = 0, i = 0; i < n; i++)
            ndata += *lines[i] && *lines[i] != '#';
        if (!ndata)
            break;
        unsigned pick = dt_rng_below(&r, ndata), seen = 0;
        for (i = 0; i < n; i++)
            if (*lines[i] && *lines[i] != '#' && seen++ == pick)
                break;
        const char *how = "";
        lines[i] = mutate_line(lines, &r, &data_kit, lines[i], &how);
        *what = talloc_asprintf_append(*what, "%sline %u: %s",
                                       **what ? "; " : "", i + 1, how);
    }
    out = talloc_strdup(ctx, "");
    for (i = 0; i < n; i++)
        out = talloc_asprintf_append(out, "%s\n", lines[i]);
    talloc_free(lines);
    return out;
}
