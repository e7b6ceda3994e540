/*
 * openldap_limits.c -- slapd's search limits as the configuration says
 * them: the "sizelimit" and "timelimit" directives (olcSizeLimit,
 * olcTimeLimit) and the "limits" rules (olcLimits), recorded in the
 * database's section (engine/ir.h: struct acreI_limits, acreI_limrule).
 * The engine applies them (engine/limits.c); nothing here looks at an
 * entry or a requester.
 *
 * What slapd 2.5 does and this reproduces:
 *   - a database starts with the frontend's limits (slapd's defaults:
 *     500 entries, 3600 s, hard limits "soft") as they stand when it is
 *     declared; a "limits" rule starts with its database's as they stand
 *     when the rule is read, and sets what it names;
 *   - "sizelimit N|unlimited" sets the soft limit and makes the hard one
 *     "soft"; "sizelimit size[.soft|.hard|.unchecked|.pr|.prtotal]=V"
 *     sets that one ("size=V" as the plain form); timelimit likewise with
 *     "time", and several words may follow one directive;
 *   - a "limits" selector is *, anonymous, users,
 *     dn[.self|.this][.exact|.base|.onelevel|.subtree|.children|.regex]=P
 *     (the requester's DN, or with .this the search's base; P a DN, or
 *     for .regex a POSIX extended pattern, case-insensitive, kept as
 *     written) or group[/oc[/at]]=DN (class and attribute looked up in
 *     the schema, groupOfNames and member by default); "dn...=*" and
 *     "dn...regex=.*" select everyone, and any other P that is not a DN
 *     ("dn.exact=.*") is an error, as slapd's;
 * Not applied: size.pr and size.prtotal (paged results, which acre has
 * not: checked, then dropped).  size.unchecked is recorded (0 for
 * "disabled", which refuses the search; a numeric one makes the search
 * fail: the index candidates it bounds are slapd's backend's, not
 * acre's).
 */
#include "openldap_int.h"

#include "internal.h"
#include "schema.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <talloc.h>

/* acreO_limits_default -- see openldap_int.h. */
void
acreO_limits_default(struct acreI_limits *l)
{
    l->size_soft = ACREI_DEFAULT_SIZELIMIT;
    l->time_soft = ACREI_DEFAULT_TIMELIMIT;
    l->size_hard = l->time_hard = 0;
    l->size_unchecked = ACREI_UNLIMITED;
}

/* An int as slapd's lutil_atoix (base: 0 takes 0x and 0 prefixes); 0 or
 * -1 when s is not all of one within the range of an int. */
static int
int_value(const char *s, int base, long *out)
{
    char *end;

    errno = 0;
    long v = strtol(s, &end, base);
    if (!*s || *end || errno || v < INT_MIN || v > INT_MAX)
        return -1;
    *out = v;
    return 0;
}

/* A limit's value: "unlimited" / "none", or an integer from -1 up. */
static int
limit_value(const char *v, long *out)
{
    if (!strcasecmp(v, "unlimited") || !strcasecmp(v, "none")) {
        *out = ACREI_UNLIMITED;
        return 0;
    }
    return int_value(v, 10, out) || *out < -1 ? -1 : 0;
}

/* The values of size.unchecked, size.pr, size.prtotal: checked, unused. */
static int
other_value(const char *v)
{
    long n;

    if (!strcasecmp(v, "disabled") || !strcasecmp(v, "noEstimate") ||
        !strcasecmp(v, "hard"))
        return 0;
    return limit_value(v, &n);
}

/* One "size..." or "time..." word w into *l (slapd's limits_parse_one);
 * -1 when it is neither or its value is bad. */
static int
limit_word(const char *w, struct acreI_limits *l)
{
    int time = !strncasecmp(w, "time", 4);
    long *soft = time ? &l->time_soft : &l->size_soft;
    long *hard = time ? &l->time_hard : &l->size_hard;
    const char *v;

    if (!time && strncasecmp(w, "size", 4))
        return -1;
    v = w + 4;
    if (!strncasecmp(v, ".hard=", 6)) {
        if (!strcasecmp(v + 6, "soft")) {
            *hard = 0;
            return 0;
        }
        return limit_value(v + 6, hard);
    }
    if (!strncasecmp(v, ".soft=", 6))
        return limit_value(v + 6, soft);
    if (!time && !strncasecmp(v, ".unchecked=", 11)) {
        if (!strcasecmp(v + 11, "disabled")) {
            l->size_unchecked = 0;
            return 0;
        }
        return limit_value(v + 11, &l->size_unchecked);
    }
    if (!time && !strncasecmp(v, ".pr=", 4))
        return other_value(v + 4);
    if (!time && !strncasecmp(v, ".prtotal=", 9))
        return other_value(v + 9);
    if (*v != '=' || limit_value(v + 1, soft))
        return -1;
    *hard = 0;
    return 0;
}

/* acreO_limits_directive -- see openldap_int.h. */
int
acreO_limits_directive(struct acreI_limits *l, const struct acreO_ptext *toks,
                       unsigned n, const char *file, acre_diag *diag)
{
    int time = !strcasecmp(toks[0].s, "timelimit") ||
               !strcasecmp(toks[0].s, "olcTimeLimit");
    const char *kind = time ? "time" : "size";

    if (n < 2)
        return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, file, &toks[0],
                           toks[0].len, "%s: a limit is missing", toks[0].s);
    for (unsigned i = 1; i < n; i++) {
        const char *w = toks[i].s;
        int bad;
        if (!strncasecmp(w, kind, 4))
            bad = limit_word(w, l);
        else if (!strcasecmp(w, "unlimited"))
            bad = 0, *(time ? &l->time_soft : &l->size_soft) = ACREI_UNLIMITED;
        else
            bad = int_value(w, 0, time ? &l->time_soft : &l->size_soft);
        if (!bad && strncasecmp(w, kind, 4))
            *(time ? &l->time_hard : &l->size_hard) = 0;
        if (bad)
            return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, file, &toks[i], 0,
                               "%s: unable to parse limit \"%s\"", toks[0].s,
                               w);
    }
    return 0;
}

/* The style of dn[.type][.style]=: s after "dn"; sets *sel, r->on_base
 * and *s past the qualifiers, at the '='.  -1 when a qualifier is
 * unknown. */
static int
dn_style(const char **s, struct acreI_limrule *r)
{
    static const struct {
        const char *w;
        enum acreI_limsel sel;
    } styles[] = {
        {"exact", ACREI_LIMSEL_EXACT},       {"base", ACREI_LIMSEL_EXACT},
        {"onelevel", ACREI_LIMSEL_ONE},      {"one", ACREI_LIMSEL_ONE},
        {"subtree", ACREI_LIMSEL_SUB},       {"sub", ACREI_LIMSEL_SUB},
        {"children", ACREI_LIMSEL_CHILDREN}, {"regex", ACREI_LIMSEL_REGEX}};

    r->sel = ACREI_LIMSEL_EXACT;
    if (!strncasecmp(*s, ".self", 5) && strchr(".=", (*s)[5]))
        *s += 5;
    else if (!strncasecmp(*s, ".this", 5) && strchr(".=", (*s)[5]))
        *s += 5, r->on_base = 1;
    if (**s == '.') {
        size_t k = 0, n = strcspn(*s + 1, "=");
        while (
            k < sizeof styles / sizeof *styles &&
            !(strlen(styles[k].w) == n && !strncasecmp(*s + 1, styles[k].w, n)))
            k++;
        if (k == sizeof styles / sizeof *styles)
            return -1;
        r->sel = styles[k].sel;
        *s += 1 + n;
    }
    return **s == '=' ? 0 : -1;
}

/* group[/oc[/at]]=DN (w's text): the class (groupOfNames by default)
 * and the attribute (member) slapd's limits_parse looks up, and the
 * group's DN, into a group of r's. */
static int
group_selector(struct acreO_build *b, const struct acreO_ptext *w,
               const char *file, struct acreI_limrule *r, acre_diag *diag)
{
    const char *oc = w->s + 5, *eq = strchr(oc, '='), *at = NULL;
    struct acreI_group *g = talloc_zero(b->cfg, struct acreI_group);
    acre_diag d = {0};
    acre_dn *dn;
    int rc;

    if (!g)
        return ACRE_ERR_NOMEM;
    size_t ocn = 0;
    if (*oc == '/') {
        oc++;
        at = memchr(oc, '/', (size_t)(eq - oc));
        ocn = (size_t)((at ? at : eq) - oc);
        at = at ? at + 1 : NULL;
    }
    g->oc = w->s[5] != '/' ? acreS_class_find(b->schema, "groupOfNames", 12)
            : ocn          ? acreS_class_find(b->schema, oc, ocn)
                           : -1;
    if (g->oc < 0)
        return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, file, w, 5,
                           "limits: unknown group objectClass in \"%s\"", w->s);
    g->at.kind = ACREI_ATTR_EXACT;
    g->at.oc = -1;
    rc = at ? acreO_attr_desc(b, at, (size_t)(eq - at), &g->at)
            : acreO_attr_desc(b, "member", 6, &g->at);
    if (rc < 0)
        return ACRE_ERR_NOMEM;
    if (!rc)
        return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, file, w,
                           at ? (size_t)(at - w->s) : 5,
                           "limits: unknown group attribute in \"%s\"", w->s);
    int uri = acreS_attr_find(b->schema, "labeledURI", 10);
    g->dynamic = uri >= 0 && acreS_is_subtype(b->schema, g->at.type, uri);
    if ((rc = acreO_parse_dn(b, eq + 1, strlen(eq + 1), &dn, &d)) ==
        ACRE_ERR_NOMEM)
        return rc;
    if (rc)
        return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, file, w,
                           (size_t)(eq + 1 - w->s) + d.offset,
                           "limits: DN \"%s\" is invalid: %s", eq + 1,
                           d.message);
    g->pos = r->pos;
    g->dn = dn;
    r->group = g;
    r->sel = ACREI_LIMSEL_GROUP;
    return 0;
}

/* The selector of a limits rule, word w, into r (its DN under b). */
static int
selector(struct acreO_build *b, const struct acreO_ptext *w, const char *file,
         struct acreI_limrule *r, acre_diag *diag)
{
    const char *s = w->s, *why = NULL;
    acre_diag d = {0};
    acre_dn *dn;
    int rc;

    if (!strcmp(s, "*") || !strcasecmp(s, "anonymous") ||
        !strcasecmp(s, "users")) {
        r->sel = *s == '*'                     ? ACREI_LIMSEL_ANY
                 : !strcasecmp(s, "anonymous") ? ACREI_LIMSEL_ANON
                                               : ACREI_LIMSEL_USERS;
        return 0;
    }
    if (!strncasecmp(s, "group", 5) && strchr("/=", s[5]) && strchr(s, '='))
        return group_selector(b, w, file, r, diag);
    if (strncasecmp(s, "dn", 2) || dn_style((s += 2, &s), r))
        return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, file, w, 0,
                           "limits: unknown selector \"%s\"", w->s);
    s++; /* past '=' */
    if (!strcmp(s, "*") || (r->sel == ACREI_LIMSEL_REGEX && !strcmp(s, ".*"))) {
        r->sel = ACREI_LIMSEL_ANY; /* slapd's "obvious cases" */
        r->on_base = 0;
        return 0;
    }
    if (r->sel == ACREI_LIMSEL_REGEX) {
        rc = acreO_build_regex(b, s, strlen(s), &r->re, &why);
        if (rc && rc != ACRE_ERR_NOMEM)
            return acreO_error(diag, rc, file, w, (size_t)(s - w->s),
                               "limits: bad regular expression \"%s\": %s", s,
                               why ? why : "refused");
        return rc;
    }
    if ((rc = acreO_parse_dn(b, s, strlen(s), &dn, &d)) == ACRE_ERR_NOMEM)
        return rc;
    if (rc)
        return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, file, w,
                           (size_t)(s - w->s) + d.offset,
                           "limits: DN \"%s\" is invalid: %s", s, d.message);
    r->dn = dn;
    return 0;
}

/* acreO_limits_rule -- see openldap_int.h. */
int
acreO_limits_rule(struct acreO_build *b, struct acreI_section *db,
                  const struct acreO_ptext *toks, unsigned n, const char *file,
                  acre_diag *diag)
{
    struct acreI_limrule r = {.pos = acreO_pos_of(file, toks, 0),
                              .lim = db->limits};
    int rc;

    if (n < 3)
        return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, file, &toks[0],
                           toks[0].len,
                           "limits: a selector and a limit are needed");
    if ((rc = selector(b, &toks[1], file, &r, diag)))
        return rc;
    for (unsigned i = 2; i < n; i++)
        if (limit_word(toks[i].s, &r.lim))
            return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, file, &toks[i], 0,
                               "limits: unknown limit \"%s\"", toks[i].s);
    struct acreI_limrule *v = talloc_realloc(
        b->cfg, db->limrules, struct acreI_limrule, db->nlimrules + 1);
    if (!v)
        return ACRE_ERR_NOMEM;
    db->limrules = v;
    v[db->nlimrules++] = r;
    return 0;
}
