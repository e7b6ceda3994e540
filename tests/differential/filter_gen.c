/*
 * filter_gen.c -- seeded search-filter and search generator (see
 * filter_gen.h).
 *
 * A filter is a tree: at each level a composite (&, |, !) with a
 * probability that falls with depth, otherwise one item.  An item starts
 * from an attribute value found in a random entry, then the attribute
 * description and the value are respelt by the rules of the type's kind.
 * Values are escaped as RFC 4515 requires (and sometimes more).
 *
 * Things ldapsearch rejects, and that are therefore never produced: a
 * substring with two stars in a row, an unescaped parenthesis or star in a
 * value, a bad escape, a star in an extensible match, an extensible match
 * with neither type nor rule.
 */
#include "filter_gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fg {
    struct dt_rng r;
    const struct dt_dit *d;
};

static void gen_filter(struct fg *g, unsigned depth, struct dt_str *out);

/* ---- picking values from the DIT ----------------------------------------- */

struct av {
    const struct dt_entry *e;
    const struct dt_attr *a;
    const char *desc; /* a->desc */
    const char *val;
};

static void
pick_av(struct fg *g, struct av *av)
{
    const struct dt_entry *e;

    do {
        e = &g->d->v[dt_rng_below(&g->r, g->d->n)];
    } while (!e->nattrs);
    av->e = e;
    av->a = &e->attrs[dt_rng_below(&g->r, e->nattrs)];
    av->desc = av->a->desc;
    av->val = av->a->vals[dt_rng_below(&g->r, av->a->nvals)];
}

/* pick_kind -- a value of some attribute of the given kind (tries a few
 * times, then any value). */
static void
pick_kind(struct fg *g, struct av *av, enum dt_kind k)
{
    for (int i = 0; i < 200; i++) {
        pick_av(g, av);
        if (av->a->type->kind == k)
            return;
    }
}

/* ---- spelling attribute descriptions ------------------------------------- */

static void
desc_variant(struct fg *g, const struct dt_attr *a, struct dt_str *out)
{
    const struct dt_type *t = a->type;
    const char *opts = strchr(a->desc, ';');
    unsigned how = dt_rng_below(&g->r, 100);
    struct dt_str s;

    dt_str_init(&s);
    if (how < 10 && t->sup)
        dt_str_puts(&s, t->sup);
    else if (how < 18)
        dt_str_puts(&s, t->oid);
    else if (how < 26 && t->alias)
        dt_str_puts(&s, t->alias);
    else if (how < 36)
        dt_case_variant(&g->r, t->name, 2, &s);
    else
        dt_str_puts(&s, t->name);
    how = dt_rng_below(&g->r, 100);
    if (opts && how < 70)
        dt_str_puts(&s, opts);
    else if (opts && how < 80)
        dt_case_variant(&g->r, opts, 2, &s);
    else if (!opts && how < 6)
        dt_str_puts(&s, dt_rng_chance(&g->r, 50) ? ";lang-de" : ";lang-de-");
    else if (opts && how < 85 && !strncmp(opts, ";lang-de", 8))
        dt_str_puts(&s, ";lang-de-"); /* a language range */
    dt_str_puts(out, s.p);
    dt_str_free(&s);
}

/* ---- spelling values ----------------------------------------------------- */

/* Collapse or grow runs of spaces; sometimes pad the ends. */
static void
space_variant(struct fg *g, const char *v, struct dt_str *out)
{
    int pad = dt_rng_chance(&g->r, 20);

    if (pad)
        dt_str_putc(out, ' ');
    for (const char *p = v; *p; p++) {
        if (*p == ' ' && dt_rng_chance(&g->r, 40))
            dt_str_putc(out, ' ');
        if (*p == ' ' && p[1] == ' ' && dt_rng_chance(&g->r, 40))
            continue;
        dt_str_putc(out, *p);
    }
    if (pad && dt_rng_chance(&g->r, 50))
        dt_str_putc(out, ' ');
}

static void
tel_variant(struct fg *g, const char *v, struct dt_str *out)
{
    unsigned how = dt_rng_below(&g->r, 3);

    for (const char *p = v; *p; p++) {
        if ((*p == ' ' || *p == '-') && how == 0)
            continue;
        if (*p == ' ' && how == 1)
            dt_str_putc(out, '-');
        else
            dt_str_putc(out, *p);
        if (how == 2 && *p >= '0' && *p <= '9' && dt_rng_chance(&g->r, 10))
            dt_str_putc(out, ' ');
    }
}

static void
int_variant(struct fg *g, const char *v, struct dt_str *out)
{
    long n = strtol(v, NULL, 10);

    switch (dt_rng_below(&g->r, 10)) {
    case 0:
        dt_str_printf(out, "%ld", n + 1);
        break;
    case 1:
        dt_str_printf(out, "%ld", n - 1);
        break;
    case 2:
        dt_str_printf(out, "%ld", -n);
        break;
    default:
        dt_str_puts(out, v);
        break;
    }
}

/* value_variant -- another spelling of v for kind k (most spellings still
 * match under the type's equality rule; some deliberately do not). */
static void
value_variant(struct fg *g, enum dt_kind k, const char *v, struct dt_str *out)
{
    struct dt_str tmp;
    int keep = dt_rng_chance(&g->r, 35);

    if (keep) {
        dt_str_puts(out, v);
        return;
    }
    dt_str_init(&tmp);
    switch (k) {
    case DT_TEL:
        tel_variant(g, v, out);
        break;
    case DT_INT:
        int_variant(g, v, out);
        break;
    case DT_DN:
        dt_dn_variant(&g->r, v, out);
        break;
    case DT_NUMSTR:
        tel_variant(g, v, out);
        break;
    case DT_OCTET:
    case DT_NAMEUID:
        dt_str_puts(out, v);
        break;
    default:
        dt_case_variant(&g->r, v, (int)dt_rng_below(&g->r, 3), &tmp);
        space_variant(g, tmp.p, out);
        break;
    }
    dt_str_free(&tmp);
}

/* ---- escaping ------------------------------------------------------------ */

/* Append v[0..n) escaped for a filter value (RFC 4515 3): the specials
 * always, and at random a printable character or a whole UTF-8 sequence. */
static void
put_value(struct fg *g, const char *v, size_t n, struct dt_str *out)
{
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)v[i];
        size_t len = 1;
        while (c >= 0xc0 && i + len < n &&
               ((unsigned char)v[i + len] & 0xc0) == 0x80)
            len++;
        int must = c == '*' || c == '(' || c == ')' || c == '\\' || c == 0;
        int may = (c >= 0x80 && dt_rng_chance(&g->r, 20)) ||
                  (c > ' ' && c < 0x7f && dt_rng_chance(&g->r, 3));
        for (size_t k = 0; k < len; k++)
            if (must || may)
                dt_str_printf(out, "\\%02x", (unsigned char)v[i + k]);
            else
                dt_str_putc(out, v[i + k]);
        i += len;
    }
}

static void
put_str(struct fg *g, const char *v, struct dt_str *out)
{
    put_value(g, v, strlen(v), out);
}

/* ---- items --------------------------------------------------------------- */

static void
item_equality(struct fg *g, struct dt_str *out, const char *op)
{
    struct av av;
    struct dt_str v;

    pick_av(g, &av);
    dt_str_init(&v);
    value_variant(g, av.a->type->kind, av.val, &v);
    dt_str_putc(out, '(');
    desc_variant(g, av.a, out);
    dt_str_puts(out, op);
    put_str(g, v.p, out);
    dt_str_putc(out, ')');
    dt_str_free(&v);
}

/* Offsets of the characters of v (UTF-8 sequence starts), and its end. */
static unsigned
char_starts(const char *v, unsigned *pos, unsigned max)
{
    unsigned n = 0;

    for (unsigned i = 0; v[i] && n < max - 1; i++)
        if (((unsigned char)v[i] & 0xc0) != 0x80)
            pos[n++] = i;
    pos[n] = (unsigned)strlen(v);
    return n;
}

/* Append a substring of v between character indices a <= b, respelt. */
static void
piece(struct fg *g, enum dt_kind k, const char *v, const unsigned *pos,
      unsigned a, unsigned b, struct dt_str *out)
{
    char *s = dt_strndup(v + pos[a], pos[b] - pos[a]);
    struct dt_str tmp;

    dt_str_init(&tmp);
    if (k != DT_CE && k != DT_IA5CE && dt_rng_chance(&g->r, 40))
        dt_case_variant(&g->r, s, 2, &tmp);
    else
        dt_str_puts(&tmp, s);
    put_str(g, tmp.p, out);
    dt_str_free(&tmp);
    free(s);
}

/* (type=[initial]*[any*]...[final]) with at least one non-empty part. */
static void
item_substrings(struct fg *g, struct dt_str *out)
{
    unsigned pos[512], n, cut[4], nc = 0;
    struct av av;

    do {
        pick_av(g, &av);
        n = char_starts(av.val, pos, DT_NELEM(pos));
    } while (n < 2);
    unsigned want = 1 + dt_rng_below(&g->r, n < 4 ? 2 : 4);
    for (unsigned i = 0; i < want; i++) /* sorted, distinct cuts */
        cut[nc++] = 1 + dt_rng_below(&g->r, n - 1);
    for (unsigned i = 1; i < nc; i++)
        for (unsigned j = i; j > 0 && cut[j - 1] > cut[j]; j--) {
            unsigned t = cut[j];
            cut[j] = cut[j - 1];
            cut[j - 1] = t;
        }
    dt_str_putc(out, '(');
    desc_variant(g, av.a, out);
    dt_str_putc(out, '=');
    int initial = dt_rng_chance(&g->r, 60);
    unsigned prev = 0;
    if (initial)
        piece(g, av.a->type->kind, av.val, pos, 0, cut[0], out);
    prev = cut[0];
    for (unsigned i = 1; i < nc; i++) {
        if (cut[i] == prev)
            continue;
        if (dt_rng_chance(&g->r, 50) || i + 1 == nc) {
            dt_str_putc(out, '*');
            piece(g, av.a->type->kind, av.val, pos, prev, cut[i], out);
        }
        prev = cut[i];
    }
    dt_str_putc(out, '*');
    int final = !initial || dt_rng_chance(&g->r, 50);
    if (final)
        piece(g, av.a->type->kind, av.val, pos, prev, n, out);
    dt_str_putc(out, ')');
}

/* (type>=v) or (type<=v), v near a stored value (or a prefix of one). */
static void
item_ordering(struct fg *g, struct dt_str *out)
{
    const char *op = dt_rng_chance(&g->r, 50) ? ">=" : "<=";
    struct av av;
    struct dt_str v;

    if (dt_rng_chance(&g->r, 50))
        pick_kind(g, &av, DT_INT);
    else
        pick_av(g, &av);
    dt_str_init(&v);
    if (av.a->type->kind != DT_INT && dt_rng_chance(&g->r, 40))
        dt_str_putn(&v, av.val, 1 + dt_rng_below(&g->r, strlen(av.val)));
    else
        value_variant(g, av.a->type->kind, av.val, &v);
    if (v.p[0] == ' ' && av.a->type->kind == DT_INT)
        dt_str_puts(&v, "0");
    dt_str_putc(out, '(');
    desc_variant(g, av.a, out);
    dt_str_puts(out, op);
    put_str(g, v.p, out);
    dt_str_putc(out, ')');
    dt_str_free(&v);
}

static void
item_presence(struct fg *g, struct dt_str *out)
{
    static const char *const odd[] = {
        "objectClass", "OBJECTCLASS",       "2.5.4.0",
        "name",        "distinguishedName", "cn;lang-de",
        "cn;LANG-DE",  "cn;lang-de-",       "fooBar",
        "1.2.3.4.5",   "sn;lang-de",        "description;lang-en"};
    struct av av;

    dt_str_putc(out, '(');
    if (dt_rng_chance(&g->r, 25)) {
        dt_str_puts(out, DT_PICK(&g->r, odd));
    } else {
        pick_av(g, &av);
        desc_variant(g, av.a, out);
    }
    dt_str_puts(out, "=*)");
}

/* A value a little off: a letter dropped or changed, or the case. */
static void
approx_value(struct fg *g, const char *v, struct dt_str *out)
{
    size_t n = strlen(v), at = dt_rng_below(&g->r, (unsigned)n);

    switch (dt_rng_below(&g->r, 4)) {
    case 0: /* drop an ASCII letter */
        if ((v[at] | 0x20) >= 'a' && (v[at] | 0x20) <= 'z') {
            dt_str_putn(out, v, at);
            dt_str_puts(out, v + at + 1);
            break;
        }
        /* fall through */
    case 1: /* a vowel for another */
        for (const char *p = v; *p; p++)
            dt_str_putc(out, *p == 'i' ? 'y' : *p == 'o' ? 'u' : *p);
        break;
    default:
        dt_case_variant(&g->r, v, 2, out);
        break;
    }
}

static void
item_approx(struct fg *g, struct dt_str *out)
{
    struct av av;
    struct dt_str v;

    pick_av(g, &av);
    dt_str_init(&v);
    approx_value(g, av.val, &v);
    dt_str_putc(out, '(');
    desc_variant(g, av.a, out);
    dt_str_puts(out, "~=");
    put_str(g, v.p, out);
    dt_str_putc(out, ')');
    dt_str_free(&v);
}

/* ---- extensible matches -------------------------------------------------- */

struct rule {
    const char *name, *oid;
};

static const struct rule rules[] = {
    {"caseIgnoreMatch", "2.5.13.2"},
    {"caseExactMatch", "2.5.13.5"},
    {"caseIgnoreOrderingMatch", "2.5.13.3"},
    {"caseExactOrderingMatch", "2.5.13.6"},
    {"caseIgnoreSubstringsMatch", "2.5.13.4"},
    {"caseIgnoreIA5Match", "1.3.6.1.4.1.1466.109.114.2"},
    {"caseExactIA5Match", "1.3.6.1.4.1.1466.109.114.1"},
    {"integerMatch", "2.5.13.14"},
    {"integerOrderingMatch", "2.5.13.15"},
    {"numericStringMatch", "2.5.13.8"},
    {"telephoneNumberMatch", "2.5.13.20"},
    {"distinguishedNameMatch", "2.5.13.1"},
    {"octetStringMatch", "2.5.13.17"},
    {"objectIdentifierMatch", "2.5.13.0"},
    {"uniqueMemberMatch", "2.5.13.23"},
    {"caseIgnoreListMatch", "2.5.13.11"},
    {"booleanMatch", "2.5.13.13"},
    {"generalizedTimeMatch", "2.5.13.27"},
    {"integerBitAndMatch", "1.2.840.113556.1.4.803"},
    {"integerBitOrMatch", "1.2.840.113556.1.4.804"},
    {"fooMatch", "1.2.3.4.5.6"},
};

/* Index in rules[] of rules that suit each kind, -1 terminated. */
static const int *
rules_for(enum dt_kind k)
{
    static const int ci[] = {0, 1, 2, 3, 4, -1}, ia5[] = {5, 6, 0, 1, -1},
                     in[] = {7, 8, 18, 19, -1}, tel[] = {10, 0, -1},
                     num[] = {9, 0, -1}, dn[] = {11, 14, -1},
                     oid[] = {13, 0, -1}, oct[] = {12, 1, -1},
                     list[] = {15, 0, -1};
    switch (k) {
    case DT_IA5CI:
    case DT_IA5CE:
        return ia5;
    case DT_INT:
        return in;
    case DT_TEL:
        return tel;
    case DT_NUMSTR:
        return num;
    case DT_DN:
    case DT_NAMEUID:
        return dn;
    case DT_OID:
        return oid;
    case DT_OCTET:
        return oct;
    case DT_LIST:
        return list;
    default:
        return ci;
    }
}

static void
put_rule(struct fg *g, enum dt_kind k, struct dt_str *out)
{
    const struct rule *r;

    if (dt_rng_chance(&g->r, 75)) {
        const int *v = rules_for(k);
        unsigned n = 0;
        while (v[n] >= 0)
            n++;
        r = &rules[v[dt_rng_below(&g->r, n)]];
    } else {
        r = &rules[dt_rng_below(&g->r, DT_NELEM(rules))];
    }
    if (dt_rng_chance(&g->r, 30))
        dt_str_puts(out, r->oid);
    else if (dt_rng_chance(&g->r, 15))
        dt_case_variant(&g->r, r->name, 2, out);
    else
        dt_str_puts(out, r->name);
}

/* A value found in a DN: one AVA of one RDN of a random entry. */
static void
rdn_value(struct fg *g, struct dt_str *type, struct dt_str *val)
{
    const char *dn = g->d->v[dt_rng_below(&g->r, g->d->n)].dn;
    const char *p = dn, *start = dn;
    unsigned want = dt_rng_below(&g->r, 4), i = 0;

    for (;; p++) { /* find the want-th AVA (or the last one) */
        if (*p == '\\' && p[1]) {
            p++;
            continue;
        }
        if (*p && *p != ',' && *p != '+')
            continue;
        if (i++ == want || !*p)
            break;
        start = p + 1;
    }
    const char *eq = memchr(start, '=', (size_t)(p - start));
    dt_str_putn(type, start, (size_t)(eq - start));
    for (const char *q = eq + 1; q < p; q++) { /* unescape */
        if (*q == '\\')
            q++;
        dt_str_putc(val, *q);
    }
}

/* The :dn: forms: type:dn:[rule]:=v or :dn:rule:=v, v from some RDN. */
static void
item_ext_dn(struct fg *g, struct dt_str *out)
{
    struct dt_str type, val, v2;
    int typed = dt_rng_chance(&g->r, 70);

    dt_str_init(&type);
    dt_str_init(&val);
    dt_str_init(&v2);
    rdn_value(g, &type, &val);
    if (dt_rng_chance(&g->r, 40))
        dt_case_variant(&g->r, val.p, 2, &v2);
    else
        dt_str_puts(&v2, val.p);
    dt_str_putc(out, '(');
    if (typed)
        dt_str_puts(out, dt_rng_chance(&g->r, 15) ? "name" : type.p);
    dt_str_puts(out, ":dn");
    if (!typed || dt_rng_chance(&g->r, 50)) {
        dt_str_putc(out, ':');
        put_rule(g, DT_CI, out);
    }
    dt_str_puts(out, ":=");
    put_str(g, v2.p, out);
    dt_str_putc(out, ')');
    dt_str_free(&type);
    dt_str_free(&val);
    dt_str_free(&v2);
}

/* type:rule:=v, type:=v or :rule:=v, v from a stored value. */
static void
item_ext_value(struct fg *g, struct dt_str *out)
{
    unsigned form = dt_rng_below(&g->r, 3);
    struct av av;
    struct dt_str v;

    pick_av(g, &av);
    dt_str_init(&v);
    value_variant(g, av.a->type->kind, av.val, &v);
    dt_str_putc(out, '(');
    if (form != 2)
        desc_variant(g, av.a, out);
    if (form != 1) {
        dt_str_putc(out, ':');
        put_rule(g, av.a->type->kind, out);
    }
    dt_str_puts(out, ":=");
    put_str(g, v.p, out);
    dt_str_putc(out, ')');
    dt_str_free(&v);
}

static void
item_extensible(struct fg *g, struct dt_str *out)
{
    if (dt_rng_chance(&g->r, 35))
        item_ext_dn(g, out);
    else
        item_ext_value(g, out);
}

/* ---- object classes, unknown types, bad values, absolutes ---------------- */

static void
item_objectclass(struct fg *g, struct dt_str *out)
{
    static const char *const cls[] = {"person",
                                      "organizationalPerson",
                                      "inetOrgPerson",
                                      "top",
                                      "posixAccount",
                                      "posixGroup",
                                      "groupOfNames",
                                      "groupOfUniqueNames",
                                      "organizationalUnit",
                                      "organization",
                                      "dcObject",
                                      "device",
                                      "organizationalRole",
                                      "PERSON",
                                      "InetOrgPerson",
                                      "2.5.6.6",
                                      "2.5.6.7",
                                      "2.16.840.1.113730.3.2.2",
                                      "2.5.6.0",
                                      "1.3.6.1.1.1.2.0",
                                      "fooClass",
                                      "residentialPerson",
                                      " person ",
                                      "1.2.3.999"};
    static const char *const ops[] = {"=", "=", "=", "~=", ">=", "<="};
    const char *c = DT_PICK(&g->r, cls);

    dt_str_puts(out, "(objectClass");
    switch (dt_rng_below(&g->r, 8)) {
    case 0:
        dt_str_puts(out, "=*");
        put_str(g, c + (c[0] == ' '), out);
        break;
    case 1:
        dt_str_puts(out, ":objectIdentifierMatch:=");
        put_str(g, c, out);
        break;
    case 2:
        dt_str_puts(out, ":caseIgnoreMatch:=");
        put_str(g, c, out);
        break;
    default:
        dt_str_puts(out, DT_PICK(&g->r, ops));
        put_str(g, c, out);
        break;
    }
    dt_str_putc(out, ')');
}

static void
item_odd(struct fg *g, struct dt_str *out)
{
    static const char *const odd[] = {
        "(fooBar=x)",
        "(1.2.3.4=x)",
        "(x-unknown=*)",
        "(fooBar>=1)",
        "(fooBar:caseIgnoreMatch:=x)",
        "(uidNumber=abc)",
        "(uidNumber>=x1)",
        "(uidNumber=01000)",
        "(uidNumber=+5)",
        "(uidNumber= 5)",
        "(gidNumber<=-0)",
        "(gidNumber=)",
        "(x121Address=12ab)",
        "(member=not a dn)",
        "(seeAlso=cn=)",
        "(telephoneNumber=)",
        "(description=)",
        "(objectClass=)",
        "(mail=\\c3\\bc@example.com)",
        "(uniqueMember=cn=x#'012'B)",
        "(uidNumber:integerMatch:=x)",
        "(cn:integerMatch:=5)",
        "(uidNumber:caseIgnoreMatch:=1000)",
        "(uidNumber~=1000)",
        "(member~=cn=x)",
        "(telephoneNumber>=5)",
        "(cn;binary=x)",
        "(:1.2.3.4.5.6:=x)",
        "(:fooMatch:=x)",
        "(cn:dn:fooMatch:=x)",
        "(userPassword=secret)",
        "(userPassword=*)",
        "(entryDN=*)",
        "(hasSubordinates=TRUE)",
    };
    const char *f = DT_PICK(&g->r, odd);

    if (dt_rng_chance(&g->r, 40)) {
        dt_str_puts(out, "(!");
        dt_str_puts(out, f);
        dt_str_putc(out, ')');
    } else {
        dt_str_puts(out, f);
    }
}

static void
item_absolute(struct fg *g, struct dt_str *out)
{
    static const char *const abs[] = {"(&)", "(|)", "(!(&))", "(!(|))"};

    dt_str_puts(out, DT_PICK(&g->r, abs));
}

static void
gen_item(struct fg *g, struct dt_str *out)
{
    unsigned roll = dt_rng_below(&g->r, 100);

    if (roll < 24)
        item_equality(g, out, "=");
    else if (roll < 39)
        item_substrings(g, out);
    else if (roll < 49)
        item_ordering(g, out);
    else if (roll < 56)
        item_presence(g, out);
    else if (roll < 62)
        item_approx(g, out);
    else if (roll < 81)
        item_extensible(g, out);
    else if (roll < 88)
        item_objectclass(g, out);
    else if (roll < 95)
        item_odd(g, out);
    else
        item_absolute(g, out);
}

static void
gen_filter(struct fg *g, unsigned depth, struct dt_str *out)
{
    static const unsigned pct[] = {55, 35, 15, 0};
    unsigned p = depth < DT_NELEM(pct) ? pct[depth] : 0;

    if (!dt_rng_chance(&g->r, p)) {
        gen_item(g, out);
        return;
    }
    unsigned roll = dt_rng_below(&g->r, 100);
    if (roll < 25) {
        dt_str_puts(out, "(!");
        gen_filter(g, depth + 1, out);
    } else {
        dt_str_puts(out, roll < 65 ? "(&" : "(|");
        for (unsigned i = 1 + dt_rng_below(&g->r, 4); i > 0; i--)
            gen_filter(g, depth + 1, out);
    }
    dt_str_putc(out, ')');
}

/* ---- bases and scopes ---------------------------------------------------- */

static char *
pick_base(struct fg *g)
{
    const struct dt_dit *d = g->d;
    const struct dt_entry *e = &d->v[dt_rng_below(&g->r, d->n)];
    struct dt_str s;

    dt_str_init(&s);
    switch (dt_rng_below(&g->r, 10)) {
    case 0:
        dt_str_printf(&s, "ou=Nowhere,%s", d->suffix);
        break;
    case 1:
        dt_str_printf(&s, "cn=Ghost,%s", e->dn);
        break;
    case 2:
        dt_str_puts(&s, dt_rng_chance(&g->r, 50) ? "dc=example,dc=org"
                                                 : "o=Elsewhere");
        break;
    case 3:
        dt_dn_variant(&g->r, e->dn, &s);
        break;
    case 4:
        dt_str_puts(&s, d->suffix);
        break;
    default: /* an entry with children, when we find one */
        for (int i = 0; i < 20 && e->cls != DT_C_OU; i++)
            e = &d->v[dt_rng_below(&g->r, d->n)];
        dt_str_puts(&s, e->dn);
        break;
    }
    return dt_str_take(&s);
}

void
fg_generate(const struct dt_dit *d, uint64_t seed, unsigned n,
            struct fg_search **out, unsigned *nout)
{
    static const char *const scopes[] = {"base", "one", "sub", "children"};
    struct fg_search *v = dt_alloc(2 * (size_t)n * sizeof *v);
    struct fg g;
    struct dt_str f;

    g.d = d;
    dt_rng_seed(&g.r, seed ^ 0x5eed5eedull);
    dt_str_init(&f);
    for (unsigned i = 0; i < n; i++) {
        dt_str_clear(&f);
        gen_filter(&g, 0, &f);
        v[2 * i].scope = "sub";
        v[2 * i].base = dt_strdup(d->suffix);
        v[2 * i].filter = dt_strdup(f.p);
        v[2 * i + 1].scope = DT_PICK(&g.r, scopes);
        v[2 * i + 1].base = pick_base(&g);
        v[2 * i + 1].filter = dt_strdup(f.p);
    }
    dt_str_free(&f);
    *out = v;
    *nout = 2 * n;
}

void
fg_free(struct fg_search *v, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        free(v[i].base);
        free(v[i].filter);
    }
    free(v);
}
