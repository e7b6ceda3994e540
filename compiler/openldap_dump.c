/*
 * openldap_dump.c -- the parsed OpenLDAP configuration as text, in the
 * shape of slapd's acl_unparse() (what slapd writes into olcAccess), for
 * golden tests, debugging and the CLI.
 *
 *   database mdb {1}
 *   suffix "dc=example,dc=com"
 *   rootdn "cn=manager,dc=example,dc=com"
 *   access to dn.base="cn=x,dc=example,dc=com" attrs=cn by * read
 *
 * DNs are printed normalised, masks as slapd prints them without levels'
 * letters ("read", "=rsc", "+0"), a clause without <access> keeps its
 * control word.  Invariant: the output depends only on the tree.
 */
#include "openldap_int.h"

#include "filter.h"
#include "schema.h"

#include <stdio.h>
#include <string.h>
#include <talloc.h>

/* Append printf-style to *s (a talloc string); *s NULL after failure. */
static void __attribute__((format(printf, 2, 3)))
put(char **s, const char *fmt, ...)
{
    va_list ap;

    if (!*s)
        return;
    va_start(ap, fmt);
    char *n = talloc_vasprintf_append_buffer(*s, fmt, ap);
    va_end(ap);
    if (!n)
        talloc_free(*s);
    *s = n;
}

static const char *
dn_text(const acre_dn *dn)
{
    return dn ? acre_dn_normalised(dn, NULL) : "";
}

static const char *const what_styles[] = {"",        "base",     "one",
                                          "subtree", "children", "regex"};

static void
dump_attrs(char **s, const struct acreI_policy *cfg, const struct acreI_what *w)
{
    put(s, " attrs=");
    for (unsigned i = 0; i < w->nattrs; i++) {
        const struct acreI_attrspec *a = &w->attrs[i];
        put(s, "%s", i ? "," : "");
        if (a->kind == ACREI_ATTR_CLASS || a->kind == ACREI_ATTR_NOT_CLASS)
            put(s, "%s%s", a->kind == ACREI_ATTR_CLASS ? "@" : "!",
                acreS_class(cfg->schema, a->oc)->name);
        else
            put(s, "%s", a->text);
    }
}

static void
dump_val(char **s, const struct acreI_val *v)
{
    static const char *const st[] = {"",        "exact",    "one",
                                     "subtree", "children", "regex"};
    const char *style =
        v->style == ACREI_VAL_EXACT && v->dn_syntax ? "base" : st[v->style];

    if (v->style == ACREI_VAL_REGEX)
        put(s, " val.regex=\"%s\"", v->re.pattern);
    else
        put(s, " val.%s=\"%.*s\"", style, (int)v->norm_len,
            (const char *)v->norm);
}

static void
dump_what(char **s, const struct acreI_policy *cfg, const struct acreI_what *w)
{
    int any = 1;

    put(s, "to");
    if (w->dn_style == ACREI_DN_REGEX)
        put(s, " dn.regex=\"%s\"", acreI_dn_re(w)->pattern);
    else if (w->dn_style != ACREI_DN_ANY)
        put(s, " dn.%s=\"%s\"", what_styles[w->dn_style], dn_text(w->dn));
    else
        any = 0;
    if (w->filter) {
        put(s, " filter=\"%s\"", w->filter_text);
        any = 1;
    }
    if (w->has_attrs) {
        dump_attrs(s, cfg, w);
        any = 1;
    }
    if (acreI_val(w)->style != ACREI_VAL_NONE)
        dump_val(s, acreI_val(w));
    if (!any)
        put(s, " *");
}

static void
dump_subject(char **s, const struct acreI_subject *sj, int real)
{
    static const char *const kinds[] = {"",         "*",          "anonymous",
                                        "users",    "self",       "dn.base",
                                        "dn.one",   "dn.subtree", "dn.children",
                                        "dn.level", "dn.regex",   "dn.suffix"};
    const char *r = real ? "real" : "";

    switch (sj->kind) {
    case ACREI_SUBJ_NONE:
        break;
    case ACREI_SUBJ_ANY:
    case ACREI_SUBJ_ANONYMOUS:
    case ACREI_SUBJ_USERS:
        put(s, " %s%s", r, kinds[sj->kind]);
        break;
    case ACREI_SUBJ_SELF:
        put(s, " %sself", r);
        if (sj->level)
            put(s, ".level{%d}", sj->level);
        break;
    case ACREI_SUBJ_REGEX:
        put(s, " %sdn.regex=\"%s\"", r, acreI_pat(sj)->re_tmpl.tmpl);
        break;
    default:
        put(s, " %s%s", r, kinds[sj->kind]);
        if (sj->kind == ACREI_SUBJ_LEVEL)
            put(s, "{%d}", sj->level);
        put(s, "%s=\"%s\"", sj->is_expand ? ",expand" : "",
            sj->is_expand ? acreI_pat(sj)->expand.tmpl : dn_text(sj->dn));
    }
    if (sj->dnattr)
        put(s, " %sdnattr=%s", r, sj->dnattr->text);
}

static void
dump_str(char **s, const char *name, const struct acreI_strmatch *m)
{
    static const char *const st[] = {"",   "exact", "regex", "expand",
                                     "ip", "ipv6",  "path",  "subtree"};
    if (m->style != ACREI_STR_NONE)
        put(s, " %s.%s%s=\"%s\"", name, st[m->style],
            m->expand ? ",expand" : "", m->pat.tmpl);
}

static void
dump_by(char **s, const struct acreI_policy *cfg, const struct acreI_clause *b)
{
    const struct acreI_clause_rare *x = acreI_rare(b);
    char buf[ACRE_MASK_BUF];

    put(s, " by");
    dump_subject(s, &b->dn, 0);
    dump_subject(s, &x->realdn, 1);
    if (acreI_group(b))
        put(s, " group/%s/%s.%s=\"%s\"",
            acreS_class(cfg->schema, acreI_group(b)->oc)->name,
            acreI_group(b)->at.text,
            acreI_group(b)->expand ? "expand" : "exact",
            acreI_group(b)->expand ? acreI_group(b)->tmpl.tmpl
                                   : dn_text(acreI_group(b)->dn));
    dump_str(s, "peername", &x->peername);
    dump_str(s, "sockname", &x->sockname);
    dump_str(s, "domain", &x->domain);
    dump_str(s, "sockurl", &x->sockurl);
    if (acreI_set(b))
        put(s, " set.%s=\"%s\"", acreI_set(b)->expand ? "expand" : "exact",
            acreI_set(b)->text.tmpl);
    if (b->ssf)
        put(s, " ssf=%u", b->ssf);
    if (x->transport_ssf)
        put(s, " transport_ssf=%u", x->transport_ssf);
    if (x->tls_ssf)
        put(s, " tls_ssf=%u", x->tls_ssf);
    if (x->sasl_ssf)
        put(s, " sasl_ssf=%u", x->sasl_ssf);
    acreI_mask_format(b->mask, buf);
    char *paren = strchr(buf, '(');
    if (paren)
        *paren = '\0'; /* levels print by name, as slapd's unparse */
    put(s, " %s%s",
        b->dn.self       ? "self"
        : x->realdn.self ? "realself"
                         : "",
        buf);
    if (b->control == ACREI_CONTINUE)
        put(s, " continue");
    else if (b->control == ACREI_BREAK)
        put(s, " break");
}

static void
dump_db(char **s, const struct acreI_policy *cfg,
        const struct acreI_section *db)
{
    put(s, "database %s {%d}\n", db->type, db->index);
    for (unsigned i = 0; i < db->nsuffix; i++)
        put(s, "suffix \"%s\"\n", dn_text(db->suffix[i]));
    if (db->rootdn)
        put(s, "rootdn \"%s\"\n", dn_text(db->rootdn));
    for (unsigned r = 0; r < db->nrules; r++) {
        const struct acreI_rule *rule = &db->rules[r];
        put(s, "access ");
        dump_what(s, cfg, &rule->what);
        for (unsigned b = 0; b < rule->nby; b++)
            dump_by(s, cfg, &rule->by[b]);
        put(s, "\n");
    }
}

char *
acreO_config_dump(void *ctx, const struct acreI_policy *cfg)
{
    char *s = talloc_strdup(ctx, "");

    dump_db(&s, cfg, &cfg->frontend);
    for (unsigned i = 0; i < cfg->ndbs; i++)
        dump_db(&s, cfg, &cfg->dbs[i]);
    return s;
}
