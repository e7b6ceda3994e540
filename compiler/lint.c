/*
 * lint.c -- acre_lint: rule files read into the intermediate form
 * (engine/ir.h) as acre_policy_compile reads them, then checked for the
 * mistakes that compile but do not do what their author meant.
 *
 * Each source is one configuration, read with a fresh built-in schema
 * (slapd's matching), the front end going on past each directive or value
 * slapd refuses (acreO_parse_*_all) so that every error is reported.
 * When attrs= names a type or class nobody defined (a schema file missing
 * where the lint runs, or a typing mistake), a placeholder definition is
 * added for each such name and the source read again, with at most
 * ACRE_LINT_MAX_RETRIES placeholders: the name becomes a warning and the
 * rest of the file is still checked.
 *
 * The checks follow slapd's evaluation (acl.c), as the engine does:
 *   - a database's rules are tried in order, then the global rules; the
 *     rootdn never reaches them;
 *   - the first rule whose target matches decides: its clauses are tried
 *     in order, "continue" goes on to the next clause, "break" to the next
 *     rule, "stop" ends; a rule whose clauses all fail stops with the
 *     implicit "by * none".  So a rule always ends the walk for an entry
 *     and attribute it targets unless one of its clauses that can be
 *     reached ends with "break" (a *stopper*);
 *   - a later rule is *shadowed* when stoppers before it, in every chain
 *     of rules it belongs to, together cover every (entry, attribute) it
 *     targets: for each attribute type (with and without options) a
 *     stopper targeting it whose DN scope contains the later rule's, and
 *     whose filter is none or the same text.  DN scopes are compared
 *     through the ancestors of the later rule's base (a hash of stoppers
 *     by filter, base and style); a regex stopper covers a single entry
 *     when its regex matches that DN, or a regex with the same text.
 *   - a global rule belongs to the chain of each database (restricted to
 *     the database's suffixes) and to the chain of entries outside every
 *     database.
 * Cost: per rule, its attribute bitmap (attribute types x list items,
 * once per distinct list), its regexes (linear in their length) and for
 * shadowing one hash probe per ancestor of its base per chain, plus at
 * most MAX_RE_STOPPERS regex stoppers tried on a base; a global rule is
 * compared with at most MAX_CONTEXTS databases, a regex with at most
 * MAX_PROBES other suffixes.
 * The comments of a slapd.conf that took in later lines (an indented "by"
 * after a comment line) are kept by the front end as it reads
 * (acreI_policy.swallowed) and reported as they are.
 * A "# acre-lint: disable=" comment silences the rule below it; the front
 * end keeps those comments as it reads (acreI_policy.lintmarks), so lint
 * never opens a file itself.
 */
#include "lint.h"

#include "directory.h"
#include "entry.h"
#include "eval.h"
#include "internal.h"
#include "ir_aci.h"
#include "openldap_int.h"
#include "schema.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <talloc.h>

/* Bounds on the work for one configuration.  Past MAX_SUFFIXES suffixes
 * (all databases together) no DN is looked up to find its database. */
#define RESULT_MAGIC    0x61636c74u /* "aclt" */
#define MAX_CONTEXTS    256         /* databases a global rule is tried in */
#define MAX_SUFFIXES    4096        /* suffixes of all databases */
#define MAX_PROBES      64          /* other suffixes tried on a regex */
#define MAX_RE_STOPPERS 64          /* regex stoppers tried on one base */
#define LINT_POSIX_BYTES                                \
    512 /* a '|' pattern's regexec allowance that warns \
         */

/* Placeholder definitions for unknown attrs= names: a UUID arc (2.25). */
#define PH_ARC    "2.25.271828182845904523536028747135266249"
#define PH_SYNTAX "1.3.6.1.4.1.1466.115.121.1.15"

/* Warnings in the order of enum acreW_check.  ORDER LINT CHECK */
static const acre_lint_check checks[ACREW_NCHECKS] = {
    {"shadowed-rule", "a rule that never applies: earlier rules that always "
                      "stop cover every entry and attribute it targets (aci: "
                      "an allow that a deny overrides everywhere)"},
    {"outside-suffix", "a database's rule whose target lies outside the "
                       "database's suffixes"},
    {"unreachable-clause", "clauses after one that matches every requester "
                           "and stops or breaks"},
    {"useless-continue", "\"continue\" in a rule's last clause: the implicit "
                         "\"by * none\" follows, so it grants nothing"},
    {"unanchored-regex", "a dn.regex target without '$' (or '^') that also "
                         "matches entries it does not name"},
    {"unknown-attribute", "attrs= (or an aci) names an attribute type or "
                          "class that no loaded schema defines"},
    {"rootdn-clause", "\"by dn=\" names the rootdn, which never reaches the "
                      "rules of its database"},
    {"public-write", "a clause granting add, delete or write to \"*\" or "
                     "\"anonymous\" (aci: an allow of write, add, delete or "
                     "selfwrite to ldap:///anyone or ldap:///all)"},
    {"catastrophic-regex", "a regular expression whose failing matches "
                           "backtrack exponentially or as the cube of the "
                           "subject's length, or whose submatches only short "
                           "subjects can afford"},
    {"missing-base", "(with data) a base, requester or group DN that names "
                     "no entry of the data"},
    {"comment-continuation",
     "a line slapd reads as part of the comment above it (indented, or "
     "after a '\\' ending the comment): a \"by\" clause there is cut off "
     "its rule"},
    {"outside-holder", "(aci) a target pattern that no entry at or below "
                       "the entry holding the aci matches: the aci never "
                       "applies"},
    {"odd-value", "(aci, 389) a bind-rule value 389 stores unchecked and "
                  "reads otherwise than it is written (an ordering it never "
                  "evaluates, an ip, ssf, dayofweek or userattr value, an "
                  "LDAP URL scope, a targetattr or targetfilter name by "
                  "alias)"},
};

/* acreW_check_id -- see lint.h. */
const char *
acreW_check_id(int c)
{
    return c >= 0 && c < ACREW_NCHECKS ? checks[c].id : ACREW_ID_PARSE;
}

/* acre_lint_checks -- see acre.h. */
ACRE_PUBLIC const acre_lint_check *
acre_lint_checks(size_t *n)
{
    if (n)
        *n = ACREW_NCHECKS;
    return checks;
}

/* ------------------------------------------------------------------------
 * State
 */

struct finding {
    acre_lint_finding pub;
    unsigned source, seq;  /* for a stable order */
    struct acreI_pos rule; /* the rule it is about (silencing) */
};

struct result {
    acre_lint_result pub; /* first: the public pointer is this one */
    uint32_t magic;
};

/* What the analysis learns of one rule. */
struct rinfo {
    const struct acreI_rule *r;
    const struct acreI_section *sec; /* NULL: a global rule */
    uint64_t order;                  /* in evaluation order */
    int catchall;   /* first clause matching everyone that ends the rule */
    int stopper;    /* it always ends the walk for what it targets */
    uint64_t *bits; /* (type, plain / with options) it targets */
    const uint64_t *cbits; /* a stopper: those it surely covers */
    struct rinfo *next;    /* the next stopper of its cover union */
};

/* Stoppers of one chain of rules, by (filter, base, style). */
enum { ST_ANY, ST_BASE, ST_ONE, ST_SUB, ST_CHILDREN, NST };

struct cunion {
    uint64_t *bits;     /* of all its stoppers */
    struct rinfo *list; /* its stoppers, earliest first */
    struct rinfo **tail;
};

#define MAX_NOTE_SCAN 16 /* stoppers of a union looked at for the note */

struct cslot {
    const char *filter; /* its text, NULL: none */
    const char *dn;     /* normalised base ("" for ANY); NULL: empty slot */
    size_t dnlen;
    uint64_t hash;
    struct cunion u[NST];
};

struct cover {
    struct cslot *slots;
    size_t mask, used;
    const struct rinfo **re; /* regex stoppers */
    unsigned nre;
};

struct lint {
    struct result *res;
    struct finding *v;
    size_t n, cap;
    unsigned seq;
    int disabled[ACREW_NCHECKS];
    const struct acreE_dir *data;
    void *dnbuf; /* ACRE_DN_BUF_MAX bytes, for data lookups */
    /* the source being read */
    unsigned source;
    void *tmp;
    const struct acreI_policy *cfg;
    unsigned nsuffixes; /* of all databases */
    const acre_schema *schema;
    unsigned nattrs, words;
    struct rinfo *front, **dbs; /* per section, in rule order */
    struct cover fcover, *dcover;
    struct bits_memo *memo; /* BITS_MEMO entries */
};

/* ------------------------------------------------------------------------
 * Findings
 */

static int
known_pos(const struct acreI_pos *p)
{
    return p && (p->file || p->line);
}

/* AT -- the whole position (an acreI_pos *, for the enclosing
 * expression) of lc, a position inside rule r. */
#define AT(r, lc) (&(struct acreI_pos){(r)->pos.file, (lc).line, (lc).column})

static struct finding *
new_finding(struct lint *l)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 32;
        struct finding *v = talloc_realloc(l->res, l->v, struct finding, cap);
        if (!v)
            return NULL;
        l->v = v;
        l->cap = cap;
    }
    struct finding *f = &l->v[l->n++];
    memset(f, 0, sizeof(*f));
    f->source = l->source;
    f->seq = l->seq++;
    return f;
}

/*
 * warn -- a warning of check c at `at`, about the rule at `rule`, with an
 * optional note at `nat`.  Rules without a place (built in by the reader)
 * are not reported.  0 or ACRE_ERR_NOMEM.
 */
static int warn(struct lint *l, int c, const struct acreI_pos *at,
                const struct acreI_pos *rule, const struct acreI_pos *nat,
                const char *note, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));

static int vwarn(struct lint *l, int c, const struct acreI_pos *at,
                 const struct acreI_pos *rule, const struct acreI_pos *nat,
                 const char *note, const char *fmt, va_list ap)
    __attribute__((format(printf, 7, 0)));

static int
warn(struct lint *l, int c, const struct acreI_pos *at,
     const struct acreI_pos *rule, const struct acreI_pos *nat,
     const char *note, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    int rc = vwarn(l, c, at, rule, nat, note, fmt, ap);
    va_end(ap);
    return rc;
}

/* acreW_warn -- see lint.h. */
int
acreW_warn(struct lint *l, int c, const struct acreI_pos *at,
           const struct acreI_pos *rule, const struct acreI_pos *nat,
           const char *note, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    int rc = vwarn(l, c, at, rule, nat, note, fmt, ap);
    va_end(ap);
    return rc;
}

static int
vwarn(struct lint *l, int c, const struct acreI_pos *at,
      const struct acreI_pos *rule, const struct acreI_pos *nat,
      const char *note, const char *fmt, va_list ap)
{
    if (!known_pos(rule))
        return 0;
    if (l->disabled[c]) {
        l->res->pub.suppressed++;
        return 0;
    }
    struct finding *f = new_finding(l);
    if (!f)
        return ACRE_ERR_NOMEM;
    f->rule = *rule;
    f->pub.id = checks[c].id;
    f->pub.severity = ACRE_LINT_WARNING;
    f->pub.file = at->file;
    f->pub.line = at->line;
    f->pub.column = at->column;
    f->pub.message = talloc_vasprintf(l->res, fmt, ap);
    if (note && known_pos(nat)) {
        f->pub.note = talloc_strdup(l->res, note);
        f->pub.note_file = nat->file;
        f->pub.note_line = nat->line;
        f->pub.note_column = nat->column;
        if (!f->pub.note)
            return ACRE_ERR_NOMEM;
    }
    return f->pub.message ? 0 : ACRE_ERR_NOMEM;
}

/* One error of a source (of the front end's list). */
static int
error_finding(struct lint *l, const acre_source *src, const acre_diag *d)
{
    return acreW_error(l, src->path, d);
}

/* acreW_error -- see lint.h. */
int
acreW_error(struct lint *l, const char *path, const acre_diag *d)
{
    struct finding *f = new_finding(l);

    if (!f)
        return ACRE_ERR_NOMEM;
    f->pub.id = d->code == ACRE_ERR_RULE_IO || d->code == ACRE_ERR_SCHEMA_IO ||
                        d->code == ACRE_ERR_LDIF_IO
                    ? ACREW_ID_READ
                    : ACREW_ID_PARSE;
    f->pub.severity = ACRE_LINT_ERROR;
    f->pub.file = d->file ? d->file : acreO_file_name(path);
    f->pub.line = d->line;
    f->pub.column = d->column;
    f->pub.message = talloc_strdup(
        l->res, d->message[0] ? d->message : acre_strerror(d->code));
    return f->pub.message ? 0 : ACRE_ERR_NOMEM;
}

/* ------------------------------------------------------------------------
 * Texts for messages
 */

static const char *
dn_text(const acre_dn *dn)
{
    return acre_dn_pretty(dn, NULL);
}

static const char *
style_name(enum acreI_dnstyle s)
{
    static const char *const names[] = {
        "*", "dn.base", "dn.one", "dn.subtree", "dn.children", "dn.regex"};
    return names[s];
}

static const char *
subject_style(enum acreI_subject_kind k)
{
    switch (k) {
    case ACREI_SUBJ_BASE:
        return "dn.exact";
    case ACREI_SUBJ_ONE:
        return "dn.one";
    case ACREI_SUBJ_SUBTREE:
        return "dn.subtree";
    case ACREI_SUBJ_CHILDREN:
        return "dn.children";
    default:
        return "dn.level";
    }
}

/* The section's suffixes for a message: "a", "b" (the first three). */
static char *
suffixes_text(void *ctx, const struct acreI_section *s)
{
    char *t = talloc_strdup(ctx, "");

    for (unsigned i = 0; t && i < s->nsuffix && i < 3; i++)
        t = talloc_asprintf_append(t, "%s\"%s\"", i ? ", " : "",
                                   dn_text(s->suffix[i]));
    if (t && s->nsuffix > 3)
        t = talloc_asprintf_append(t, ", ...");
    return t;
}

static const char *
section_name(void *ctx, const struct acreI_section *s)
{
    if (!s)
        return "the global rules";
    return talloc_asprintf(ctx, "database %d (%s)", s->index, s->type);
}

/* ------------------------------------------------------------------------
 * Clauses
 */

static int
no_connection(const struct acreI_clause *c)
{
    const struct acreI_clause_rare *x = acreI_rare(c);

    return x->sockurl.style == ACREI_STR_NONE &&
           x->domain.style == ACREI_STR_NONE &&
           x->peername.style == ACREI_STR_NONE &&
           x->sockname.style == ACREI_STR_NONE;
}

/* No condition on who asks beyond the DN kinds in `ok` (a bit per
 * enum acreI_subject_kind) and, with ssf_ok, security strength. */
static int
only_subjects(const struct acreI_clause *c, unsigned ok, int ssf_ok)
{
    const struct acreI_clause_rare *x = acreI_rare(c);

    return (ok >> c->dn.kind & 1) && (ok >> x->realdn.kind & 1) &&
           !c->dn.dnattr && !x->realdn.dnattr && !c->dn.self &&
           !x->realdn.self && !acreI_group(c) && !acreI_set(c) &&
           no_connection(c) &&
           (ssf_ok ||
            (!c->ssf && !x->transport_ssf && !x->tls_ssf && !x->sasl_ssf));
}

#define KIND(k) (1u << (k))

/* The clause applies to every requester and every check. */
static int
matches_everyone(const struct acreI_clause *c)
{
    return only_subjects(c, KIND(ACREI_SUBJ_NONE) | KIND(ACREI_SUBJ_ANY), 0);
}

/* Clauses: the first that matches everyone and does not continue ends
 * the rule for everybody; a reachable "break" lets later rules run. */
static void
clauses_info(struct rinfo *ri)
{
    const struct acreI_rule *r = ri->r;

    ri->catchall = -1;
    for (unsigned i = 0; i < r->nby && ri->catchall < 0; i++)
        if (r->by[i].control != ACREI_CONTINUE && matches_everyone(&r->by[i]))
            ri->catchall = (int)i;
    unsigned reach = ri->catchall < 0 ? r->nby : (unsigned)ri->catchall + 1;
    ri->stopper = acreI_val(&r->what)->style == ACREI_VAL_NONE;
    for (unsigned i = 0; i < reach; i++)
        if (r->by[i].control == ACREI_BREAK)
            ri->stopper = 0;
}

static unsigned
reachable(const struct rinfo *ri)
{
    return ri->catchall < 0 ? ri->r->nby : (unsigned)ri->catchall + 1;
}

static int
check_clauses(struct lint *l, const struct rinfo *ri)
{
    const struct acreI_rule *r = ri->r;
    int rc = 0;

    if (ri->catchall >= 0 && (unsigned)ri->catchall + 1 < r->nby) {
        const struct acreI_clause *c = &r->by[ri->catchall];
        unsigned dead = r->nby - (unsigned)ri->catchall - 1;
        rc = warn(l, ACREW_UNREACHABLE_CLAUSE,
                  AT(r, r->by[ri->catchall + 1].pos), &r->pos, AT(r, c->pos),
                  c->control == ACREI_BREAK
                      ? "this clause matches every requester and breaks"
                      : "this clause matches every requester and stops",
                  "%s never appl%s: an earlier clause of the rule matches "
                  "every requester and ends the rule",
                  dead == 1 ? "this clause"
                            : "this clause and the ones after "
                              "it",
                  dead == 1 ? "ies" : "y");
    }
    if (!rc && ri->catchall < 0 && r->by[r->nby - 1].control == ACREI_CONTINUE)
        rc = warn(l, ACREW_USELESS_CONTINUE, AT(r, r->by[r->nby - 1].pos),
                  &r->pos, NULL, NULL,
                  "\"continue\" in the rule's last clause: no clause follows, "
                  "so slapd's implicit \"by * none\" takes back what it "
                  "granted and stops; it grants nothing");
    return rc;
}

/* Does mask m give add or delete (the write bit with a or z)? */
static int
grants_write(uint32_t m)
{
    return !(m & ACREI_PRIV_SUBTRACT) &&
           ((m & ACREI_PRIV_WADD) == ACREI_PRIV_WADD ||
            (m & ACREI_PRIV_WDEL) == ACREI_PRIV_WDEL);
}

static int
check_public_write(struct lint *l, const struct rinfo *ri)
{
    const unsigned pub = KIND(ACREI_SUBJ_NONE) | KIND(ACREI_SUBJ_ANY) |
                         KIND(ACREI_SUBJ_ANONYMOUS);

    for (unsigned i = 0; i < reachable(ri); i++) {
        const struct acreI_clause *c = &ri->r->by[i];
        char buf[ACRE_MASK_BUF];
        if (!grants_write(c->mask) || !only_subjects(c, pub, 1))
            continue;
        int anon = c->dn.kind == ACREI_SUBJ_ANONYMOUS ||
                   acreI_rare(c)->realdn.kind == ACREI_SUBJ_ANONYMOUS;
        int rc = warn(l, ACREW_PUBLIC_WRITE,
                      known_pos(AT(ri->r, c->mask_pos)) ? AT(ri->r, c->mask_pos)
                                                        : AT(ri->r, c->pos),
                      &ri->r->pos, NULL, NULL, "this clause grants %s to %s",
                      acreI_mask_format(c->mask & ~ACREI_PRIV_ADDITIVE, buf),
                      anon ? "anonymous requesters"
                           : "every requester, anonymous ones included");
        if (rc)
            return rc;
    }
    return 0;
}

/* "by dn=<rootdn>": in a database's rule, its rootdn; in a global rule,
 * the rootdn of the one database all its targets lie in. */
static const struct acreI_section *
rule_home(const struct lint *l, const struct rinfo *ri)
{
    const struct acreI_what *w = &ri->r->what;

    if (ri->sec)
        return ri->sec;
    if (w->dn_style == ACREI_DN_ANY || w->dn_style == ACREI_DN_REGEX ||
        l->nsuffixes > MAX_SUFFIXES)
        return NULL;
    return acreI_section_for(l->cfg, w->dn);
}

static int
check_rootdn(struct lint *l, const struct rinfo *ri)
{
    const struct acreI_section *s = rule_home(l, ri);

    if (!s || !s->rootdn)
        return 0;
    for (unsigned i = 0; i < reachable(ri); i++) {
        const struct acreI_subject *sj = &ri->r->by[i].dn;
        if (sj->kind != ACREI_SUBJ_BASE || !sj->dn || sj->is_expand ||
            !acre_dn_equal(sj->dn, s->rootdn))
            continue;
        int rc = warn(l, ACREW_ROOTDN_CLAUSE, AT(ri->r, sj->pos), &ri->r->pos,
                      &s->pos, "the database is defined here",
                      "\"%s\" is the rootdn of %s: it is granted everything "
                      "before any rule is read, so this clause never applies",
                      dn_text(sj->dn), section_name(l->tmp, s));
        if (rc)
            return rc;
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * Attributes: one bit per (type, plain) and (type, with options)
 */

static int
is_placeholder(const char *oid)
{
    return oid && !strncmp(oid, PH_ARC ".", sizeof(PH_ARC));
}

/*
 * Does the attrs list of w take `type` (optioned: with some options)?
 * widen: read items with options as if they had none (a superset, for
 * the rule that may be covered); else leave them out (a subset, for
 * the rules that cover).  See acreI_attrs_take.
 */
static int
list_has(const acre_schema *s, const struct acreI_what *w, int type,
         int optioned, int widen)
{
    struct acreI_desc d = {type, 0, NULL, NULL};

    return acreI_attrs_take(s, w, &d,
                            !optioned ? ACREI_OPTS_KNOWN
                            : widen   ? ACREI_OPTS_SOME_WIDE
                                      : ACREI_OPTS_SOME_NARROW);
}

/* The bitmaps made so far, by attrs list: the front end shares one list
 * between the rules that spell it alike, so most rules find theirs. */
struct bits_memo {
    const struct acreI_attrspec *attrs; /* NULL: no attrs= (all) */
    int widen, used;
    uint64_t *bits;
};

#define BITS_MEMO 1024

static uint64_t *
attr_bits(struct lint *l, const struct acreI_what *w, int widen)
{
    const struct acreI_attrspec *key = w->has_attrs ? w->attrs : NULL;
    size_t h = ((uintptr_t)key >> 4) * 0x9e3779b97f4a7c15ull >> 54;
    struct bits_memo *m = &l->memo[(h ^ (unsigned)widen) % BITS_MEMO];

    int memo = !w->has_attrs || w->attrs; /* "attrs=" alone: not kept */

    if (memo && m->used && m->attrs == key && m->widen == widen)
        return m->bits;
    uint64_t *b = talloc_zero_array(l->tmp, uint64_t, l->words);

    if (!b)
        return NULL;
    if (memo)
        *m = (struct bits_memo){key, widen, 1, b};
    for (unsigned t = 0; t < l->nattrs; t++)
        for (int o = 0; o < 2; o++)
            if (!w->has_attrs || list_has(l->schema, w, (int)t, o, widen))
                b[(2 * t + (unsigned)o) >> 6] |=
                    (uint64_t)1 << ((2 * t + (unsigned)o) & 63);
    return b;
}

static int
check_unknown_attrs(struct lint *l, const struct rinfo *ri)
{
    const struct acreI_what *w = &ri->r->what;

    for (unsigned i = 0; i < w->nattrs; i++) {
        const struct acreI_attrspec *a = &w->attrs[i];
        const char *oid = a->type >= 0 ? acreS_attr(l->schema, a->type)->oid
                          : a->oc >= 0 ? acreS_class(l->schema, a->oc)->oid
                                       : NULL;
        if (!is_placeholder(oid))
            continue;
        int rc =
            warn(l, ACREW_UNKNOWN_ATTRIBUTE,
                 known_pos(AT(ri->r, w->attrs_pos)) ? AT(ri->r, w->attrs_pos)
                                                    : AT(ri->r, w->pos),
                 &ri->r->pos, NULL, NULL,
                 "attrs= names \"%s\", which no schema loaded here "
                 "defines: slapd refuses the rule unless its own schema "
                 "does (the rest is checked as if it did)",
                 a->text);
        if (rc)
            return rc;
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * Regular expressions
 */

/* One regex of a rule: the pattern (tmpl: a <who> template). */
static int
check_backtrack(struct lint *l, const struct rinfo *ri, const char *p, size_t n,
                int tmpl, const struct acreI_pos *at)
{
    char why[512];
    struct acreW_rx *rx;
    int rc = 0;

    if (!p || !n || !(rx = acreW_rx_parse(l->tmp, p, n, tmpl)))
        return 0;
    int d = acreW_rx_backtrack(rx, why, sizeof(why));
    if (d < 0)
        rc = warn(l, ACREW_CATASTROPHIC_REGEX, at, &ri->r->pos, NULL, NULL,
                  "regular expression \"%.*s\" can backtrack exponentially: "
                  "%s; PCRE2's match limit then denies the check",
                  (int)n, p, why);
    else if (d >= 3)
        rc = warn(l, ACREW_CATASTROPHIC_REGEX, at, &ri->r->pos, NULL, NULL,
                  "regular expression \"%.*s\" can take O(n^%d) steps on a "
                  "DN of n bytes that does not match: %s; PCRE2's match limit "
                  "then denies the check",
                  (int)n, p, d, why);
    talloc_free(rx);
    return rc;
}

static int
subject_regex(struct lint *l, const struct rinfo *ri,
              const struct acreI_subject *sj)
{
    if (sj->kind != ACREI_SUBJ_REGEX)
        return 0;
    if (acreI_pat(sj)->re.code)
        return check_backtrack(l, ri, acreI_pat(sj)->re.pattern,
                               acreI_pat(sj)->re.len, 0, AT(ri->r, sj->pos));
    return check_backtrack(l, ri, acreI_pat(sj)->re_tmpl.tmpl,
                           acreI_pat(sj)->re_tmpl.len, 1, AT(ri->r, sj->pos));
}

static int
str_regex(struct lint *l, const struct rinfo *ri,
          const struct acreI_strmatch *m)
{
    if (m->style != ACREI_STR_REGEX || m->any)
        return 0;
    if (m->re.code)
        return check_backtrack(l, ri, m->re.pattern, m->re.len, 0, &m->pos);
    return check_backtrack(l, ri, m->pat.tmpl, m->pat.len, 1, &m->pos);
}

/* Does a clause of r substitute the submatches of its target? */
static int
substitutes(const struct acreI_rule *r)
{
    for (unsigned i = 0; i < r->nby; i++)
        if (acreV_clause_flags(&r->by[i]) & ACREP_C_MATCHES)
            return 1;
    return 0;
}

/* A '|' pattern whose submatches the clauses substitute: acre takes them
 * from regexec, as slapd does, within a budget that a large pattern
 * spends on a short DN. */
static int
check_posix_budget(struct lint *l, const struct rinfo *ri,
                   const struct acreI_regex *re, const struct acreI_pos *at)
{
    if (!(re->flags & ACREI_RE_POSIX) || !re->cost || !substitutes(ri->r))
        return 0;
    size_t bytes = ACREV_POSIX_BUDGET / re->cost - 1;
    if (bytes >= LINT_POSIX_BYTES)
        return 0;
    return warn(l, ACREW_CATASTROPHIC_REGEX, at, &ri->r->pos, NULL, NULL,
                "regular expression \"%s\" has '|' and the clauses "
                "substitute its submatches, which acre takes from the C "
                "library's regexec, as slapd does, within a budget: a "
                "subject of more than %zu bytes from where the match starts "
                "is denied (ACRE_ERR_EVAL_LIMIT)",
                re->pattern, bytes);
}

static int
check_regexes(struct lint *l, const struct rinfo *ri)
{
    const struct acreI_what *w = &ri->r->what;
    int rc = 0;

    if (w->dn_style == ACREI_DN_REGEX)
        rc = check_backtrack(l, ri, acreI_dn_re(w)->pattern,
                             acreI_dn_re(w)->len, 0, AT(ri->r, w->dn_pos));
    if (!rc && w->dn_style == ACREI_DN_REGEX)
        rc = check_posix_budget(l, ri, acreI_dn_re(w), AT(ri->r, w->dn_pos));
    if (!rc && acreI_val(w)->style == ACREI_VAL_REGEX)
        rc = check_backtrack(l, ri, acreI_val(w)->re.pattern,
                             acreI_val(w)->re.len, 0, &acreI_val(w)->pos);
    if (!rc && acreI_val(w)->style == ACREI_VAL_REGEX)
        rc = check_posix_budget(l, ri, &acreI_val(w)->re, &acreI_val(w)->pos);
    for (unsigned i = 0; !rc && i < ri->r->nby; i++) {
        const struct acreI_clause *c = &ri->r->by[i];
        const struct acreI_clause_rare *x = acreI_rare(c);
        const struct acreI_strmatch *m[] = {&x->sockurl, &x->domain,
                                            &x->peername, &x->sockname};
        rc = subject_regex(l, ri, &c->dn);
        if (!rc)
            rc = subject_regex(l, ri, &x->realdn);
        for (int k = 0; !rc && k < 4; k++)
            rc = str_regex(l, ri, m[k]);
    }
    return rc;
}

/* Does the normalised DN text t end the string w[0..n) at an RDN
 * boundary (w is t, or ends with "," t)? */
static int
ends_with_dn(const char *w, size_t n, const char *t, size_t tn)
{
    if (tn == 0 || tn > n || strncasecmp(w + n - tn, t, tn))
        return 0;
    return tn == n || w[n - tn - 1] == ',';
}

/* The suffix (of `s`, or of every section when s is NULL) the example
 * string ends with. */
static const acre_dn *
named_suffix(const struct lint *l, const struct acreI_section *s, const char *w,
             size_t n)
{
    for (unsigned d = 0; d < l->cfg->ndbs; d++) {
        const struct acreI_section *x = &l->cfg->dbs[d];
        for (unsigned i = 0; (!s || x == s) && i < x->nsuffix; i++) {
            size_t tn;
            const char *t = acre_dn_normalised(x->suffix[i], &tn);
            if (ends_with_dn(w, n, t, tn))
                return x->suffix[i];
        }
    }
    return NULL;
}

/* A DN outside `home` the regex also matches: w followed by another
 * suffix of the chain, else (global rules) by a made-up one. */
static char *
foreign_match(struct lint *l, const struct rinfo *ri, const char *w,
              const acre_dn *home)
{
    const struct acreI_regex *re = acreI_dn_re(&ri->r->what);
    unsigned tried = 0;

    for (unsigned d = 0; d < l->cfg->ndbs && tried < MAX_PROBES; d++) {
        const struct acreI_section *x = &l->cfg->dbs[d];
        for (unsigned i = 0;
             (!ri->sec || x == ri->sec) && i < x->nsuffix && tried < MAX_PROBES;
             i++) {
            if (acre_dn_in_scope(x->suffix[i], home, ACRE_SCOPE_SUB) == 1)
                continue;
            tried++;
            char *p = talloc_asprintf(l->tmp, "%s,%s", w,
                                      acre_dn_normalised(x->suffix[i], NULL));
            if (p && acreW_re_match(re, p, strlen(p), NULL) == 1)
                return p;
        }
    }
    if (ri->sec)
        return NULL;
    char *p = talloc_asprintf(l->tmp, "%s,dc=other", w);
    if (p && acreW_re_match(re, p, strlen(p), NULL) == 1)
        return p;
    p = talloc_asprintf(l->tmp, "%s-other", w);
    return p && acreW_re_match(re, p, strlen(p), NULL) == 1 ? p : NULL;
}

/* Do the rule's clauses substitute submatches of its target ($1...)? */
static int
uses_submatches(const struct acreI_rule *r)
{
    for (unsigned i = 0; i < r->nby; i++) {
        const struct acreI_clause *c = &r->by[i];
        const struct acreI_clause_rare *x = acreI_rare(c);
        const struct acreI_subject *sj[] = {&c->dn, &x->realdn};
        const struct acreI_strmatch *m[] = {&x->sockurl, &x->domain,
                                            &x->peername, &x->sockname};
        for (int k = 0; k < 2; k++)
            if ((sj[k]->kind == ACREI_SUBJ_REGEX &&
                 acreI_pat(sj[k])->re_tmpl.expands) ||
                (sj[k]->is_expand && acreI_pat(sj[k])->expand.expands))
                return 1;
        for (int k = 0; k < 4; k++)
            if (m[k]->style != ACREI_STR_NONE && m[k]->pat.expands)
                return 1;
        if ((acreI_group(c) && acreI_group(c)->expand &&
             acreI_group(c)->tmpl.expands) ||
            (acreI_set(c) && acreI_set(c)->expand &&
             acreI_set(c)->text.expands))
            return 1;
    }
    return 0;
}

/*
 * unanchored-regex, two ways (each decided on probe DNs with the rule's
 * own regex, which slapd runs as a search in the DN, metacharacters or
 * not):
 *   - the regex's example DN ends with a suffix and the regex also
 *     matches it followed by more RDNs or text (another suffix of the
 *     chain, "dc=other", "-other"), in a rule that entries of other
 *     naming contexts reach: a global rule, or a database with several
 *     suffixes;
 *   - its example DN ends with a suffix and it also matches the example
 *     below one more RDN, without that RDN: the rule then targets the entries
 * below the ones it names (and when the clauses substitute submatches, those
 * come from the ancestor's DN).
 */
static int
check_unanchored(struct lint *l, const struct rinfo *ri)
{
    const struct acreI_what *w = &ri->r->what;
    size_t at = 1;
    int rc = 0;

    if (w->dn_style != ACREI_DN_REGEX || !acreI_dn_re(w)->code)
        return 0;
    struct acreW_rx *rx =
        acreW_rx_parse(l->tmp, acreI_dn_re(w)->pattern, acreI_dn_re(w)->len, 0);
    char *ex = rx ? acreW_rx_example(l->tmp, rx) : NULL;
    talloc_free(rx);
    if (!ex || acreW_re_match(acreI_dn_re(w), ex, strlen(ex), &at) != 1 || at)
        return 0;
    const acre_dn *home = named_suffix(l, ri->sec, ex, strlen(ex));
    char *other = NULL;
    if (!home)
        return 0;
    if (!ri->sec || ri->sec->nsuffix > 1)
        other = foreign_match(l, ri, ex, home);
    if (other)
        return warn(l, ACREW_UNANCHORED_REGEX, AT(ri->r, w->dn_pos),
                    &ri->r->pos, NULL, NULL,
                    "dn.regex \"%s\" names the suffix \"%s\" but is not "
                    "anchored after it ('$'): it also matches \"%s\", outside "
                    "that suffix%s",
                    acreI_dn_re(w)->pattern, dn_text(home), other,
                    ri->sec ? ", in another suffix of this database"
                            : " (global rules are tried for every database)");
    char *below = talloc_asprintf(l->tmp, "cn=acre-lint,%s", ex);
    if (!below ||
        acreW_re_match(acreI_dn_re(w), below, strlen(below), &at) != 1 ||
        at == 0)
        return below ? 0 : ACRE_ERR_NOMEM;
    if (acreI_dn_re(w)->ncapture && uses_submatches(ri->r))
        rc = warn(l, ACREW_UNANCHORED_REGEX, AT(ri->r, w->dn_pos), &ri->r->pos,
                  NULL, NULL,
                  "dn.regex \"%s\" is not anchored at the start ('^') and "
                  "the clauses use its submatches: it also matches \"%s\", "
                  "an entry below the ones it names, with the submatches "
                  "taken from that entry's ancestor",
                  acreI_dn_re(w)->pattern, below);
    else
        rc = warn(l, ACREW_UNANCHORED_REGEX, AT(ri->r, w->dn_pos), &ri->r->pos,
                  NULL, NULL,
                  "dn.regex \"%s\" is not anchored at the start ('^'): slapd "
                  "searches the DN for it, so it also matches \"%s\", an "
                  "entry below the ones it names (anchor it with '^' and "
                  "'$', or use dn.base or dn.subtree)",
                  acreI_dn_re(w)->pattern, below);
    return rc;
}

/* Can a DN ending in the literal t[0..tn) lie under suffix s? */
static int
tail_fits(const char *t, size_t tn, const acre_dn *s)
{
    size_t sn;
    const char *st = acre_dn_normalised(s, &sn);

    if (tn <= sn)
        return strncasecmp(st + sn - tn, t, tn) == 0;
    return ends_with_dn(t, tn, st, sn);
}

/* A database's dn.regex that must end with a literal no suffix of the
 * database can end with. */
static int
regex_outside(struct lint *l, const struct rinfo *ri)
{
    const struct acreI_what *w = &ri->r->what;
    char tail[512];
    struct acreW_rx *rx =
        acreW_rx_parse(l->tmp, acreI_dn_re(w)->pattern, acreI_dn_re(w)->len, 0);
    size_t tn = rx ? acreW_rx_end_literal(rx, tail, sizeof(tail)) : 0;

    talloc_free(rx);
    if (tn == 0 || tn == sizeof(tail))
        return 0;
    for (unsigned i = 0; i < ri->sec->nsuffix; i++)
        if (tail_fits(tail, tn, ri->sec->suffix[i]))
            return 0;
    return 1;
}

/* ------------------------------------------------------------------------
 * Coverage of targets
 */

/* Entries a rule targets, or a part of them. */
struct region {
    enum acreI_dnstyle style;
    const acre_dn *dn;            /* BASE ONE SUBTREE CHILDREN */
    const struct acreI_regex *re; /* REGEX */
};

#define MAX_PIECES 64

static uint64_t
fnv(uint64_t h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static uint64_t
filter_hash(const char *filter)
{
    uint64_t h = 0xcbf29ce484222325ull;

    return filter ? fnv(h ^ 1, filter, strlen(filter)) : h;
}

static int
same_filter(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
}

static struct cslot *
cover_find(const struct cover *cv, const char *filter, uint64_t fh,
           const char *dn, size_t n)
{
    if (!cv->slots)
        return NULL;
    uint64_t h = fnv(fh ^ 0xff, dn, n);
    for (size_t i = h & cv->mask;; i = (i + 1) & cv->mask) {
        struct cslot *s = &cv->slots[i];
        if (!s->dn)
            return NULL;
        if (s->hash == h && s->dnlen == n && !memcmp(s->dn, dn, n) &&
            same_filter(s->filter, filter))
            return s;
    }
}

static int
cover_grow(void *ctx, struct cover *cv)
{
    size_t size = cv->slots ? 2 * (cv->mask + 1) : 64;
    struct cslot *v = talloc_zero_array(ctx, struct cslot, size);

    if (!v)
        return ACRE_ERR_NOMEM;
    for (size_t i = 0; cv->slots && i <= cv->mask; i++) {
        if (!cv->slots[i].dn)
            continue;
        size_t k = cv->slots[i].hash & (size - 1);
        while (v[k].dn)
            k = (k + 1) & (size - 1);
        v[k] = cv->slots[i];
    }
    talloc_free(cv->slots);
    cv->slots = v;
    cv->mask = size - 1;
    return 0;
}

static struct cslot *
cover_slot(void *ctx, struct cover *cv, const char *filter, const char *dn,
           size_t n)
{
    uint64_t fh = filter_hash(filter);
    struct cslot *s = cover_find(cv, filter, fh, dn, n);

    if (s)
        return s;
    if ((!cv->slots || 2 * (cv->used + 1) > cv->mask + 1) &&
        cover_grow(ctx, cv))
        return NULL;
    uint64_t h = fnv(fh ^ 0xff, dn, n);
    size_t i = h & cv->mask;
    while (cv->slots[i].dn)
        i = (i + 1) & cv->mask;
    s = &cv->slots[i];
    s->filter = filter;
    s->dn = dn;
    s->dnlen = n;
    s->hash = h;
    cv->used++;
    return s;
}

static int
style_slot(enum acreI_dnstyle s)
{
    static const int st[] = {ST_ANY, ST_BASE, ST_ONE, ST_SUB, ST_CHILDREN};
    return st[s];
}

/* Add stopper ri (its target, with the attributes it surely covers). */
static int
cover_add(struct lint *l, struct cover *cv, struct rinfo *ri,
          const uint64_t *bits)
{
    const struct acreI_what *w = &ri->r->what;
    size_t n = 0;
    const char *dn = "";

    if (w->dn_style == ACREI_DN_REGEX) {
        const struct rinfo **v =
            talloc_realloc(l->tmp, cv->re, const struct rinfo *, cv->nre + 1);
        if (!v)
            return ACRE_ERR_NOMEM;
        cv->re = v;
        v[cv->nre++] = ri;
        return 0;
    }
    if (w->dn_style != ACREI_DN_ANY)
        dn = acre_dn_normalised(w->dn, &n);
    struct cslot *s = cover_slot(l->tmp, cv, w->filter_text, dn, n);
    if (!s)
        return ACRE_ERR_NOMEM;
    struct cunion *u = &s->u[style_slot(w->dn_style)];
    if (!u->bits && !(u->bits = talloc_zero_array(l->tmp, uint64_t, l->words)))
        return ACRE_ERR_NOMEM;
    for (unsigned i = 0; i < l->words; i++)
        u->bits[i] |= bits[i];
    *(u->tail ? u->tail : &u->list) = ri;
    u->tail = &ri->next;
    return 0;
}

/* What the stoppers consulted so far cover of `want`. */
struct query {
    uint64_t *acc;
    const uint64_t *want;
    unsigned words;
    const struct rinfo *first; /* earliest stopper that covers a part */
    const struct rinfo *alone; /* earliest that covers all of it alone */
};

/* One stopper's part: is it the earliest that covers some, or all? */
static int
q_note(struct query *q, const uint64_t *bits, const struct rinfo *ri)
{
    int overlap = 0, all = 1;

    for (unsigned i = 0; i < q->words; i++) {
        overlap |= (bits[i] & q->want[i]) != 0;
        all &= (q->want[i] & ~bits[i]) == 0;
    }
    if (overlap && (!q->first || ri->order < q->first->order))
        q->first = ri;
    if (all && (!q->alone || ri->order < q->alone->order))
        q->alone = ri;
    return overlap;
}

/* A union of stoppers (list: its members) or one regex stopper. */
static void
q_add(struct query *q, const uint64_t *bits, const struct rinfo *list)
{
    unsigned k = 0;

    if (!bits)
        return;
    for (unsigned i = 0; i < q->words; i++)
        q->acc[i] |= bits[i];
    for (const struct rinfo *r = list; r && k < MAX_NOTE_SCAN; r = r->next, k++)
        q_note(q, r->cbits, r);
}

static void
q_probe(struct query *q, const struct cover *cv, const char *filter,
        uint64_t fh, const char *dn, size_t n, int st)
{
    struct cslot *s = cover_find(cv, filter, fh, dn, n);

    if (s)
        q_add(q, s->u[st].bits, s->u[st].list);
}

/* Regex stoppers: one whose regex matches the base of a single entry,
 * or one with the same pattern as a regex target. */
static void
q_regex(struct query *q, const struct cover *cv, const char *filter,
        const struct region *g)
{
    size_t n = 0;
    const char *t =
        g->style == ACREI_DN_BASE ? acre_dn_normalised(g->dn, &n) : NULL;

    for (unsigned k = 0; k < cv->nre && k < MAX_RE_STOPPERS; k++) {
        const struct rinfo *a = cv->re[k];
        const struct acreI_what *w = &a->r->what;
        int hit = 0;
        if (w->filter_text && !same_filter(w->filter_text, filter))
            continue;
        if (t)
            hit = acreW_re_match(acreI_dn_re(w), t, n, NULL) == 1;
        else if (g->style == ACREI_DN_REGEX)
            hit = !strcmp(acreI_dn_re(w)->pattern, g->re->pattern);
        if (hit)
            q_note(q, a->cbits, a), q_add(q, a->cbits, NULL);
    }
}

/* The stoppers of cv (with no filter or with `filter`) whose scope
 * contains region g. */
static void
q_region(struct query *q, const struct cover *cv, const char *filter,
         const struct region *g)
{
    uint64_t fh = filter_hash(filter);
    unsigned d = g->dn ? acre_dn_depth(g->dn) : 0;

    q_probe(q, cv, filter, fh, "", 0, ST_ANY);
    q_regex(q, cv, filter, g);
    if (g->style == ACREI_DN_ANY || g->style == ACREI_DN_REGEX)
        return;
    for (unsigned i = 0; i <= d; i++) {
        size_t n;
        const char *a = acre_dn_ancestor(g->dn, i, &n);
        q_probe(q, cv, filter, fh, a, n, ST_SUB);
        if (i < d || g->style == ACREI_DN_ONE || g->style == ACREI_DN_CHILDREN)
            q_probe(q, cv, filter, fh, a, n, ST_CHILDREN);
        if ((g->style == ACREI_DN_BASE && i + 1 == d) ||
            (g->style == ACREI_DN_ONE && i == d))
            q_probe(q, cv, filter, fh, a, n, ST_ONE);
        if (g->style == ACREI_DN_BASE && i == d)
            q_probe(q, cv, filter, fh, a, n, ST_BASE);
    }
}

/* Do the covers cv[0..ncv) cover every attribute of ri in region g? */
static int
covered(struct lint *l, struct query *q, const struct cover *const *cv,
        unsigned ncv, const struct rinfo *ri, const struct region *g)
{
    const char *filter = ri->r->what.filter_text;

    memset(q->acc, 0, l->words * sizeof(uint64_t));
    for (unsigned k = 0; k < ncv; k++) {
        q_region(q, cv[k], NULL, g);
        if (filter)
            q_region(q, cv[k], filter, g);
    }
    for (unsigned i = 0; i < l->words; i++)
        if (ri->bits[i] & ~q->acc[i])
            return 0;
    return 1;
}

/* The parts of region b inside section s (out[0..*n)); -1 when there are
 * too many to tell.  A section without a suffix may hold anything. */
static int
pieces(const struct lint *l, const struct acreI_section *s,
       const struct region *b, struct region *out, unsigned *n)
{
    int whole = 0;

    *n = 0;
    if (s->nsuffix == 0) {
        out[(*n)++] = *b;
        return 0;
    }
    if (s->nsuffix > MAX_PIECES || l->nsuffixes > MAX_SUFFIXES)
        return -1;
    for (unsigned i = 0; i < s->nsuffix; i++) {
        const acre_dn *x = s->suffix[i];
        struct region p = {ACREI_DN_SUBTREE, x, NULL};
        if (acreI_section_for(l->cfg, x) != s)
            continue;
        if (b->style == ACREI_DN_ANY) {
            /* the whole suffix */
        } else if (b->style == ACREI_DN_REGEX ||
                   acre_dn_in_scope(b->dn, x, ACRE_SCOPE_SUB) == 1) {
            if (whole++)
                continue;
            p = *b;
        } else if (b->style == ACREI_DN_BASE) {
            continue;
        } else if (b->style == ACREI_DN_ONE) {
            if (acre_dn_in_scope(x, b->dn, ACRE_SCOPE_ONE) != 1)
                continue;
            p.style = ACREI_DN_BASE; /* the suffix entry is a child */
        } else if (acre_dn_in_scope(x, b->dn, ACRE_SCOPE_CHILDREN) != 1) {
            continue;
        }
        if (*n == MAX_PIECES)
            return -1;
        out[(*n)++] = p;
    }
    return 0;
}

/* Is ri dead in section s: every part of it there covered by the
 * stoppers of the chain (s's rules, then the global ones before it)? */
static int
dead_in(struct lint *l, struct query *q, const struct acreI_section *s,
        const struct cover *const *cv, unsigned ncv, const struct rinfo *ri)
{
    struct region parts[MAX_PIECES];
    struct region b = {ri->r->what.dn_style, ri->r->what.dn,
                       acreI_dn_re(&ri->r->what)};
    unsigned n;

    const struct rinfo *alone = NULL;
    int same = 1;

    if (pieces(l, s, &b, parts, &n))
        return 0;
    for (unsigned i = 0; i < n; i++) {
        q->alone = NULL;
        if (!covered(l, q, cv, ncv, ri, &parts[i]))
            return 0;
        same &= q->alone && (!alone || alone == q->alone);
        alone = q->alone;
    }
    q->alone = same ? alone : NULL;
    return 1;
}

static int
report_shadow(struct lint *l, const struct rinfo *ri, const struct query *q)
{
    const struct rinfo *by = q->alone ? q->alone : q->first;

    return warn(l, ACREW_SHADOWED_RULE, AT(ri->r, ri->r->what.pos), &ri->r->pos,
                by ? AT(by->r, by->r->what.pos) : NULL,
                q->alone ? "this rule covers it"
                         : "the first of the rules that cover it",
                "this rule never applies: rules before it that always stop "
                "match every entry and attribute it targets");
}

static const uint64_t *cover_bits(struct lint *l, const struct rinfo *ri);

/* A database's rule: outside its suffixes, or shadowed in its chain. */
static int
db_rule(struct lint *l, struct query *q, struct rinfo *ri, struct cover *cv)
{
    const struct acreI_what *w = &ri->r->what;
    const struct acreI_section *s = ri->sec;
    struct region b = {w->dn_style, w->dn, acreI_dn_re(w)}, parts[MAX_PIECES];
    unsigned n;
    int rc = 0;

    if (s->nsuffix > 0 &&
        (w->dn_style == ACREI_DN_REGEX ? regex_outside(l, ri)
                                       : !pieces(l, s, &b, parts, &n) && !n)) {
        return warn(l, ACREW_OUTSIDE_SUFFIX,
                    known_pos(AT(ri->r, w->dn_pos)) ? AT(ri->r, w->dn_pos)
                                                    : AT(ri->r, w->pos),
                    &ri->r->pos, &s->pos, "the database is defined here",
                    "the rule's target (%s=\"%s\") is outside the suffix%s of "
                    "its database (%s): it never matches",
                    style_name(w->dn_style),
                    w->dn_style == ACREI_DN_REGEX ? acreI_dn_re(w)->pattern
                                                  : dn_text(w->dn),
                    s->nsuffix > 1 ? "es" : "", suffixes_text(l->tmp, s));
    }
    const struct cover *cvs[1] = {cv};
    q->first = q->alone = NULL;
    if (dead_in(l, q, s, cvs, 1, ri))
        rc = report_shadow(l, ri, q);
    if (!rc && ri->stopper)
        rc = (ri->cbits = cover_bits(l, ri)) ? cover_add(l, cv, ri, ri->cbits)
                                             : ACRE_ERR_NOMEM;
    return rc;
}

/* A global rule: dead in the chain of entries outside every database
 * and in the chain of each database. */
static int
global_dead(struct lint *l, struct query *q, const struct rinfo *ri)
{
    const struct acreI_what *w = &ri->r->what;
    struct region b = {w->dn_style, w->dn, acreI_dn_re(w)};
    const struct cover *fcv[1] = {&l->fcover};
    const struct rinfo *first = NULL, *alone = NULL;
    int same = 1;

    q->first = q->alone = NULL;
    if (covered(l, q, fcv, 1, ri, &b))
        return 1;
    if (l->cfg->ndbs > MAX_CONTEXTS)
        return 0;
    int outside_all =
        w->dn_style != ACREI_DN_ANY && w->dn_style != ACREI_DN_REGEX &&
        l->nsuffixes <= MAX_SUFFIXES && acreI_section_for(l->cfg, w->dn);
    if (!outside_all)
        return 0; /* not covered for entries outside every database */
    for (unsigned d = 0; d < l->cfg->ndbs; d++) {
        const struct cover *cv[2] = {&l->dcover[d], &l->fcover};
        q->first = q->alone = NULL;
        if (!dead_in(l, q, &l->cfg->dbs[d], cv, 2, ri))
            return 0;
        if (q->first && (!first || q->first->order < first->order))
            first = q->first;
        if (q->first) { /* a database where it has entries */
            same &= q->alone && (!alone || alone == q->alone);
            alone = q->alone;
        }
    }
    q->first = first;
    q->alone = same ? alone : NULL;
    return 1;
}

/* ------------------------------------------------------------------------
 * Data (missing-base)
 */

/* dn, of the rule at ri, should name an entry of the data; `what` says
 * which DN it is.  Quiet when the data holds nothing above dn. */
static int
check_exists(struct lint *l, const struct rinfo *ri, const acre_dn *dn,
             const struct acreI_pos *at, const char *what, const char *after)
{
    size_t n;
    const char *text = acre_dn_pretty(dn, &n);
    acre_dn *mine;

    if (!l->data || acre_dn_depth(dn) == 0 ||
        acre_dn_parse_buf(l->dnbuf, ACRE_DN_BUF_MAX, acreE_dir_schema(l->data),
                          text, n, 0, &mine, NULL) ||
        acreE_dir_find(l->data, mine))
        return 0;
    const struct acreE_entry *up = acreE_dir_matched(l->data, mine);
    if (!up)
        return 0;
    return warn(l, ACREW_MISSING_BASE,
                known_pos(at) ? at : AT(ri->r, ri->r->what.pos), &ri->r->pos,
                NULL, NULL,
                "%s \"%s\" names no entry of the data (the nearest entry "
                "above it is \"%s\")%s",
                what, text, dn_text(up->v.dn), after);
}

static int
subject_exists(struct lint *l, const struct rinfo *ri,
               const struct acreI_subject *sj)
{
    char what[64];

    if (sj->kind < ACREI_SUBJ_BASE || sj->kind > ACREI_SUBJ_LEVEL || !sj->dn ||
        sj->is_expand)
        return 0;
    const struct acreI_section *home = rule_home(l, ri);
    if (sj->kind == ACREI_SUBJ_BASE && home && home->rootdn &&
        acre_dn_equal(sj->dn, home->rootdn))
        return 0; /* rootdn-clause says more */
    snprintf(what, sizeof(what), "the requester DN of %s",
             subject_style(sj->kind));
    return check_exists(l, ri, sj->dn, AT(ri->r, sj->pos), what, "");
}

static int
check_data(struct lint *l, const struct rinfo *ri)
{
    const struct acreI_what *w = &ri->r->what;
    int rc = 0;
    char what[64];

    if (!l->data)
        return 0;
    if (w->dn_style != ACREI_DN_ANY && w->dn_style != ACREI_DN_REGEX) {
        snprintf(what, sizeof(what), "the base of %s", style_name(w->dn_style));
        rc = check_exists(l, ri, w->dn, AT(ri->r, w->dn_pos), what, "");
    }
    for (unsigned i = 0; !rc && i < ri->r->nby; i++) {
        const struct acreI_clause *c = &ri->r->by[i];
        rc = subject_exists(l, ri, &c->dn);
        if (!rc)
            rc = subject_exists(l, ri, &acreI_rare(c)->realdn);
        if (!rc && acreI_group(c) && !acreI_group(c)->expand &&
            acreI_group(c)->dn)
            rc = check_exists(l, ri, acreI_group(c)->dn, &acreI_group(c)->pos,
                              "the group", ": the clause never matches");
    }
    return rc;
}

/* ------------------------------------------------------------------------
 * One configuration
 */

static int
rule_checks(struct lint *l, const struct rinfo *ri)
{
    int rc = check_clauses(l, ri);

    if (!rc)
        rc = check_public_write(l, ri);
    if (!rc)
        rc = check_rootdn(l, ri);
    if (!rc)
        rc = check_unknown_attrs(l, ri);
    if (!rc)
        rc = check_regexes(l, ri);
    if (!rc)
        rc = check_unanchored(l, ri);
    if (!rc)
        rc = check_data(l, ri);
    return rc;
}

/* The rules of section s (NULL: global) with what clauses tell. */
static struct rinfo *
section_info(struct lint *l, const struct acreI_section *s, unsigned k)
{
    const struct acreI_section *x = s ? s : &l->cfg->frontend;
    struct rinfo *v = talloc_zero_array(l->tmp, struct rinfo, x->nrules + 1);

    for (unsigned i = 0; v && i < x->nrules; i++) {
        v[i].r = &x->rules[i];
        v[i].sec = s;
        v[i].order = (uint64_t)k << 32 | i;
        clauses_info(&v[i]);
        if (!(v[i].bits = attr_bits(l, &v[i].r->what, 1)))
            return NULL;
    }
    return v;
}

/* The attributes a stopper surely covers: its list without the items
 * with options (the same bits when it has none). */
static const uint64_t *
cover_bits(struct lint *l, const struct rinfo *ri)
{
    const struct acreI_what *w = &ri->r->what;

    for (unsigned i = 0; i < w->nattrs; i++)
        if (w->attrs[i].nopts)
            return attr_bits(l, w, 0);
    return ri->bits;
}

/* comment-continuation: the comments that took in later lines (slapd.conf
 * continuation rules, kept by the front end as acreI_swallow), silenced
 * above the rule the text was cut off from. */
static int
check_swallowed(struct lint *l)
{
    int rc = 0;

    for (unsigned i = 0; !rc && i < l->cfg->nswallowed; i++) {
        const struct acreI_swallow *w = &l->cfg->swallowed[i];
        if (w->by && w->rule.line)
            rc = warn(l, ACREW_COMMENT_CONTINUATION, &w->text, &w->rule,
                      &w->comment, "the comment it continues",
                      "this \"by\" clause is not part of the rule at line "
                      "%u: slapd reads it as part of the comment line above "
                      "it (a comment's indented lines continue the comment), "
                      "so the rule ends before it",
                      w->rule.line);
        else
            rc = warn(l, ACREW_COMMENT_CONTINUATION, &w->text, &w->comment,
                      &w->comment, "the comment it continues",
                      "this line continues the comment at line %u (it is "
                      "indented, or the comment ends with '\\'): slapd "
                      "ignores it with the comment",
                      w->comment.line);
    }
    return rc;
}

static int
analyse(struct lint *l)
{
    const struct acreI_policy *cfg = l->cfg;
    struct query q = {NULL, NULL, l->words, NULL, NULL};
    int rc = 0;

    l->dbs = talloc_zero_array(l->tmp, struct rinfo *, cfg->ndbs + 1);
    l->dcover = talloc_zero_array(l->tmp, struct cover, cfg->ndbs + 1);
    l->front = section_info(l, NULL, cfg->ndbs);
    q.acc = talloc_zero_array(l->tmp, uint64_t, l->words);
    if (!l->dbs || !l->dcover || !l->front || !q.acc)
        return ACRE_ERR_NOMEM;
    memset(&l->fcover, 0, sizeof(l->fcover));
    rc = check_swallowed(l);
    for (unsigned d = 0; !rc && d < cfg->ndbs; d++) {
        if (!(l->dbs[d] = section_info(l, &cfg->dbs[d], d)))
            return ACRE_ERR_NOMEM;
        for (unsigned i = 0; !rc && i < cfg->dbs[d].nrules; i++) {
            struct rinfo *ri = &l->dbs[d][i];
            q.want = ri->bits;
            rc = rule_checks(l, ri);
            if (!rc)
                rc = db_rule(l, &q, ri, &l->dcover[d]);
        }
    }
    for (unsigned i = 0; !rc && i < cfg->frontend.nrules; i++) {
        struct rinfo *ri = &l->front[i];
        q.want = ri->bits;
        rc = rule_checks(l, ri);
        if (!rc && global_dead(l, &q, ri))
            rc = report_shadow(l, ri, &q);
        if (!rc && ri->stopper)
            rc = (ri->cbits = cover_bits(l, ri))
                     ? cover_add(l, &l->fcover, ri, ri->cbits)
                     : ACRE_ERR_NOMEM;
    }
    return rc;
}

/* ------------------------------------------------------------------------
 * Reading a source, with placeholders for unknown attrs= names
 */

static int
parse(void *ctx, acre_schema *schema, const acre_source *src,
      struct acreI_policy **ir, acre_diag *diag, struct acreO_errors *errs)
{
    if (src->dialect == ACRE_DIALECT_SLAPD_CONF)
        return acreO_parse_conf_all(ctx, schema, src->path, src->text, src->len,
                                    ir, diag, errs);
    return acreO_parse_cnconfig_all(ctx, schema, src->path, src->text, src->len,
                                    ir, diag, errs);
}

static int
is_keystring(const char *s, size_t n)
{
    if (n == 0 || n > 64 || !((s[0] | 0x20) >= 'a' && (s[0] | 0x20) <= 'z'))
        return 0;
    for (size_t i = 1; i < n; i++)
        if (!(((s[i] | 0x20) >= 'a' && (s[i] | 0x20) <= 'z') ||
              (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
            return 0;
    return 1;
}

/*
 * The name of an unknown attrs= item, from the front end's message for it
 * (openldap_acl.c, what_attrs: "unknown attr \"NAME\" in to clause"), made
 * a placeholder definition appended to *defs: an auxiliary class for
 * "@name" / "!name", else an attribute type.  1 when one was added; 0
 * when the error is another one, or the name cannot be stood for (a known
 * type with options slapd refuses, a name already given one).
 */
static int
placeholder(char **defs, unsigned *count, const acre_diag *d)
{
    static const char head[] = "unknown attr \"", tail[] = "\" in to clause";
    size_t n = strlen(d->message), hl = sizeof(head) - 1, tl = sizeof(tail) - 1;

    if (d->code != ACRE_ERR_RULE_SYNTAX || n <= hl + tl ||
        strncmp(d->message, head, hl) || strcmp(d->message + n - tl, tail))
        return 0;
    const char *name = d->message + hl;
    size_t len = n - hl - tl;
    int cls = name[0] == '@' || name[0] == '+' || name[0] == '!';
    if (cls || name[0] == '-')
        name++, len--;
    const char *semi = memchr(name, ';', len);
    if (semi)
        len = (size_t)(semi - name);
    if (!is_keystring(name, len) ||
        acreS_attr_find(acreS_builtin(), name, len) >= 0 ||
        acreS_class_find(acreS_builtin(), name, len) >= 0)
        return 0;
    char quoted[80];
    snprintf(quoted, sizeof(quoted), "NAME '%.*s'", (int)len, name);
    if (strcasestr(*defs, quoted))
        return 0;
    char *v = talloc_asprintf_append(
        *defs,
        cls ? "objectclass ( " PH_ARC ".%u %s SUP top AUXILIARY )\n"
            : "attributetype ( " PH_ARC ".%u %s EQUALITY caseIgnoreMatch "
              "SUBSTR caseIgnoreSubstringsMatch SYNTAX " PH_SYNTAX " )\n",
        ++*count, quoted);
    if (!v)
        return 0;
    *defs = v;
    return 1;
}

/*
 * read_source -- the source read as a configuration into *ir; 0, or the
 * first error with every error in *errs (ACRE_ERR_NOMEM: nothing).  Each
 * reading that fails gets a placeholder for each unknown attrs= name it
 * met, and the source is read again while some were added.
 */
static int
read_source(struct lint *l, const acre_source *src, struct acreI_policy **ir,
            struct acreO_errors *errs)
{
    char *defs = talloc_strdup(l->tmp, "");
    unsigned count = 0;
    struct acreO_errors last = {0};
    acre_diag d;

    if (!defs)
        return ACRE_ERR_NOMEM;
    for (;;) {
        acre_schema *schema;
        int rc = acre_schema_new(l->tmp, ACRE_SCHEMA_SLAPD, &schema, &d);
        if (rc)
            return rc;
        if (count && acre_schema_load_buffer(schema, "acre-lint", defs,
                                             strlen(defs), NULL)) {
            acre_schema_free(schema);
            *errs = last; /* a placeholder clashed: the earlier errors */
            return last.v[0].code;
        }
        memset(&d, 0, sizeof(d));
        *errs = (struct acreO_errors){l->tmp, NULL, 0};
        rc = parse(l->tmp, schema, src, ir, &d, errs);
        if (rc == 0 || rc == ACRE_ERR_NOMEM)
            return rc;
        acre_schema_free(schema);
        if (!errs->n) /* the reader had no list to keep it in */
            return ACRE_ERR_NOMEM;
        unsigned before = count;
        for (unsigned i = 0; i < errs->n; i++)
            if (count < ACRE_LINT_MAX_RETRIES)
                placeholder(&defs, &count, &errs->v[i]);
        if (count == before)
            return rc;
        last = *errs;
    }
}

/* ------------------------------------------------------------------------
 * Silencing: "# acre-lint: disable=ID[,ID...]" right above a rule
 */

/* Does the comment s[0..n) (after its '#') disable `id`? */
static int
directive_has(const char *s, size_t n, const char *id)
{
    static const char key[] = "acre-lint:", dis[] = "disable=";
    size_t i = 0;

    while (i < n && (s[i] == ' ' || s[i] == '\t'))
        i++;
    if (n - i < sizeof(key) - 1 || strncmp(s + i, key, sizeof(key) - 1))
        return 0;
    for (i += sizeof(key) - 1; i < n && (s[i] == ' ' || s[i] == '\t');)
        i++;
    if (n - i < sizeof(dis) - 1 || strncmp(s + i, dis, sizeof(dis) - 1))
        return 0;
    i += sizeof(dis) - 1;
    while (i < n && s[i] != ' ' && s[i] != '\t' && s[i] != '\r') {
        size_t j = i;
        while (j < n && s[j] != ',' && s[j] != ' ' && s[j] != '\t' &&
               s[j] != '\r')
            j++;
        if ((j - i == strlen(id) && !strncmp(s + i, id, j - i)) ||
            (j - i == 3 && !strncmp(s + i, "all", 3)))
            return 1;
        i = j + (j < n && s[j] == ',');
    }
    return 0;
}

/* Marks by file, then by the line their run ends on. */
static int
by_file_end(const void *a, const void *b)
{
    const struct acreI_lintmark *x = a, *y = b;
    uintptr_t fx = (uintptr_t)x->file, fy = (uintptr_t)y->file;

    if (fx != fy)
        return fx < fy ? -1 : 1;
    return x->end < y->end ? -1 : x->end > y->end;
}

/* Is `id` disabled by a comment of the run ending right above line `line`
 * of `file` (marks sorted by by_file_end)? */
static int
silenced(const struct acreI_lintmark *v, unsigned n, const char *file,
         unsigned line, const char *id)
{
    struct acreI_lintmark key = {.file = file, .end = line - 1};
    unsigned lo = 0, hi = n;

    while (lo < hi) { /* the first mark not before key */
        unsigned mid = lo + (hi - lo) / 2;
        if (by_file_end(&v[mid], &key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < n && !by_file_end(&v[lo], &key); lo++)
        if (directive_has(v[lo].text, v[lo].len, id))
            return 1;
    return 0;
}

/* Drop the findings from `start` on that a comment silences: the front
 * end kept the "# acre-lint:" comments as it read the source (IR
 * lintmarks), so no file is read again here, and a text without a path
 * (file NULL) is silenced as a file is. */
static void
silence(struct lint *l, size_t start)
{
    struct acreI_lintmark *v = l->cfg->lintmarks;
    unsigned n = l->cfg->nlintmarks;
    size_t keep = start;

    if (n) /* v is NULL when there are none */
        qsort(v, n, sizeof(v[0]), by_file_end);
    for (size_t i = start; i < l->n; i++) {
        const struct finding *f = &l->v[i];
        if (n && f->rule.line > 1 &&
            silenced(v, n, f->rule.file, f->rule.line, f->pub.id)) {
            l->res->pub.suppressed++;
            continue;
        }
        l->v[keep++] = l->v[i];
    }
    l->n = keep;
}

/* ------------------------------------------------------------------------
 * The calls
 */

static int
lint_source(struct lint *l, const acre_source *src)
{
    struct acreI_policy *ir;
    struct acreO_errors errs;
    size_t start = l->n;
    int rc = read_source(l, src, &ir, &errs);

    if (rc == ACRE_ERR_NOMEM)
        return rc;
    for (unsigned i = 0; rc && i < errs.n; i++)
        if (error_finding(l, src, &errs.v[i]))
            return ACRE_ERR_NOMEM;
    if (rc)
        return 0;
    l->cfg = ir;
    l->nsuffixes = 0;
    for (unsigned k = 0; k < ir->ndbs; k++)
        l->nsuffixes += ir->dbs[k].nsuffix;
    l->schema = ir->schema;
    l->nattrs = acreS_nattrs(l->schema);
    l->words = (2 * l->nattrs + 63) / 64 + 1;
    if (!(l->memo = talloc_zero_array(l->tmp, struct bits_memo, BITS_MEMO)))
        return ACRE_ERR_NOMEM;
    if ((rc = analyse(l)))
        return rc;
    silence(l, start);
    return 0;
}

/* The ACI sources of src[0..n), read and checked as one policy. */
static int
lint_aci(struct lint *l, const acre_source *src, size_t n, unsigned flags)
{
    const struct acreI_policy *ir = NULL;
    size_t start = l->n;
    int rc = acreW_aci(l, l->tmp, src, n,
                       flags & ACRE_COMPILE_ACI_OPENDJ ? ACREI_ACI_OPENDJ
                                                       : ACREI_ACI_389,
                       &ir);

    if (rc || !ir)
        return rc;
    l->cfg = ir;
    silence(l, start);
    return 0;
}

static int
by_place(const void *a, const void *b)
{
    const struct finding *x = a, *y = b;
    int c;

    if (x->source != y->source)
        return x->source < y->source ? -1 : 1;
    if (x->pub.file != y->pub.file) {
        if (!x->pub.file || !y->pub.file)
            return x->pub.file ? 1 : -1;
        if ((c = strcmp(x->pub.file, y->pub.file)))
            return c;
    }
    if (x->pub.line != y->pub.line)
        return x->pub.line < y->pub.line ? -1 : 1;
    if (x->pub.column != y->pub.column)
        return x->pub.column < y->pub.column ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int
parse_disable(struct lint *l, const char *s, acre_diag *diag)
{
    while (s && *s) {
        size_t n = strcspn(s, ",");
        int found = 0;
        for (int c = 0; c < ACREW_NCHECKS; c++)
            if (strlen(checks[c].id) == n && !strncmp(s, checks[c].id, n))
                l->disabled[c] = found = 1;
        if (n == 3 && !strncmp(s, "all", 3))
            for (int c = 0; c < ACREW_NCHECKS; c++)
                l->disabled[c] = found = 1;
        if (!found && n)
            return acreE_diag_set(diag, ACRE_ERR_INVAL, 0,
                                  "unknown lint check \"%.*s\"", (int)n, s);
        s += n + (s[n] == ',');
    }
    return 0;
}

static int
check_args(const acre_source *src, size_t n, unsigned flags,
           acre_lint_result **out, acre_diag *diag)
{
    int aci = 0;

    for (size_t i = 0; src && i < n; i++)
        aci |= src[i].dialect == ACRE_DIALECT_ACI;
    /* the variant flag only with ACI sources, as acre_policy_compile */
    if (!out || (flags & ~(aci ? ACRE_COMPILE_ACI_OPENDJ : 0u)) || (n && !src))
        return acreE_diag_set(diag, ACRE_ERR_INVAL, 0, "invalid argument");
    for (size_t i = 0; i < n; i++) {
        if ((src[i].dialect != ACRE_DIALECT_SLAPD_CONF &&
             src[i].dialect != ACRE_DIALECT_SLAPD_CNCONFIG &&
             src[i].dialect != ACRE_DIALECT_ACI) ||
            (!src[i].path && !src[i].text))
            return acreE_diag_set(diag, ACRE_ERR_INVAL, 0, "invalid source %zu",
                                  i);
    }
    return 0;
}

/* Sort the findings and hand them out as the public array. */
static int
finish(struct lint *l)
{
    acre_lint_finding *v =
        talloc_array(l->res, acre_lint_finding, l->n ? l->n : 1);

    if (!v)
        return ACRE_ERR_NOMEM;
    if (l->n)
        qsort(l->v, l->n, sizeof(l->v[0]), by_place);
    for (size_t i = 0; i < l->n; i++) {
        v[i] = l->v[i].pub;
        if (v[i].severity == ACRE_LINT_ERROR)
            l->res->pub.errors++;
        else
            l->res->pub.warnings++;
    }
    l->res->pub.findings = v;
    l->res->pub.count = l->n;
    talloc_free(l->v);
    l->v = NULL;
    return 0;
}

/* acre_lint -- see acre.h. */
ACRE_PUBLIC int
acre_lint(void *mem_ctx, const acre_source *src, size_t n,
          const acre_directory *data, const char *disable, unsigned flags,
          acre_lint_result **out, acre_diag *diag)
{
    int rc = check_args(src, n, flags, out, diag);

    if (rc)
        return rc;
    if (data && !acreE_is(data, ACREE_DIR_MAGIC))
        return acreE_diag_set(diag, ACRE_ERR_BADOBJ, 0, "not a directory");
    struct result *res = talloc_zero(mem_ctx, struct result);
    if (!res)
        return acreE_diag_set(diag, ACRE_ERR_NOMEM, 0, "out of memory");
    res->magic = RESULT_MAGIC;
    struct lint l = {.res = res, .data = (const struct acreE_dir *)data};
    if ((rc = parse_disable(&l, disable, diag)))
        goto fail;
    if (data && !(l.dnbuf = talloc_size(res, ACRE_DN_BUF_MAX)))
        rc = ACRE_ERR_NOMEM;
    int aci_done = 0;
    for (size_t i = 0; !rc && i < n; i++) {
        int aci = src[i].dialect == ACRE_DIALECT_ACI;
        if (aci && aci_done++) /* all ACI sources: one policy */
            continue;
        l.source = (unsigned)i;
        if (!(l.tmp = talloc_new(res)))
            rc = ACRE_ERR_NOMEM;
        else
            rc = aci ? lint_aci(&l, src, n, flags) : lint_source(&l, &src[i]);
        talloc_free(l.tmp);
        l.tmp = NULL;
    }
    if (!rc)
        rc = finish(&l);
    if (rc) {
        if (rc == ACRE_ERR_NOMEM)
            acreE_diag_set(diag, rc, 0, "out of memory");
        goto fail;
    }
    talloc_free(l.dnbuf);
    *out = &res->pub;
    return 0;
fail:
    talloc_free(res);
    return rc;
}

/* ok -- r is a lint result: its magic follows the public struct
 * (internal.h: Handles). */
static int
ok(const acre_lint_result *r)
{
    return r && acreE_is(&((const struct result *)r)->magic, RESULT_MAGIC);
}

/* acre_lint_status -- see acre.h. */
ACRE_PUBLIC int
acre_lint_status(const acre_lint_result *r)
{
    if (!r)
        return 2;
    if (!ok(r))
        return ACRE_ERR_BADOBJ;
    return r->errors ? 2 : r->warnings ? 1 : 0;
}

/* acre_lint_format -- see acre.h. */
ACRE_PUBLIC char *
acre_lint_format(const acre_lint_result *r, int format)
{
    if (!ok(r))
        return NULL;
    return acreW_format(r, format);
}

/* acre_lint_free -- see acre.h. */
ACRE_PUBLIC void
acre_lint_free(acre_lint_result *r)
{
    struct result *res = (struct result *)r;

    if (ok(r)) {
        res->magic = 0;
        talloc_free(res);
    }
}
