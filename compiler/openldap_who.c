/*
 * openldap_who.c -- one "by <who> [<access>] [<control>]" clause, parsed
 * as slapd 2.5's parse_acl() does (aclparse.c, the "by" branch).
 *
 * How slapd reads a clause, and so how this file does:
 *   - each token is split name[.style[,modifier]]=value; the style is
 *     read first (level{n} included) and an unknown style is an error
 *     whatever the name;
 *   - a "real" prefix selects the authentication-DN view and is dropped
 *     from the name, whatever follows it;
 *   - known <who> names are consumed; the first other token is the
 *     <access> (so "by read" has no condition and matches everyone);
 *     "stop", "continue", "break", "by" or the end instead of an access
 *     mean "+0" with that control;
 *   - <access> may carry a "self" / "realself" prefix, then a level or
 *     =/+/- letters; a control word may follow.
 * slapd's quirks are kept and named where they happen.
 */
#include "openldap_int.h"

#include "schema.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <talloc.h>

#define DN_SYNTAX      "1.3.6.1.4.1.1466.115.121.1.12"
#define NAMEUID_SYNTAX "1.3.6.1.4.1.1466.115.121.1.34"

/* slapd's style of a <who> token (slap_style_t). */
enum sty {
    STY_REGEX,
    STY_EXPAND,
    STY_BASE,
    STY_ONE,
    STY_SUBTREE,
    STY_CHILDREN,
    STY_LEVEL,
    STY_IP,
    STY_IPV6,
    STY_PATH,
    STY_ANONYMOUS,
    STY_USERS,
    STY_SELF
};

/* One <who> token, split. */
struct who {
    const struct acreO_ptext *t;
    size_t name, name_len; /* after a "real" prefix */
    int real;
    int has_right;
    size_t right;    /* offset of the value */
    size_t style_at; /* offset of the style, for messages */
    enum sty sty;
    int expand; /* ",expand" modifier */
    int level;
    size_t access_len; /* the token as an <access>: bytes from name */
};

/* Parsing state of one clause. */
struct by_state {
    struct acreO_build *b;
    const struct acreI_section *db;
    const char *file;
    struct acreI_clause *by;
};

/* The clause's group, set and rare parts (ir.h), made on first use;
 * NULL out of memory. */
static struct acreI_clause_ext *
ext(struct by_state *st)
{
    if (!st->by->ext)
        st->by->ext = acreO_alloc(st->b, sizeof(struct acreI_clause_ext));
    return st->by->ext;
}

/* The clause's rare conditions (ir.h), made on first use; NULL out of
 * memory. */
static struct acreI_clause_rare *
rare(struct by_state *st)
{
    struct acreI_clause_ext *x = ext(st);

    if (x && !x->rare)
        x->rare = acreO_alloc(st->b, sizeof(struct acreI_clause_rare));
    return x ? x->rare : NULL;
}

/* The subject a token sets: realdn's for the real* forms; NULL out of
 * memory. */
static struct acreI_subject *
subject_of(struct by_state *st, const struct who *w)
{
    struct acreI_clause_rare *x;

    if (!w->real)
        return &st->by->dn;
    return (x = rare(st)) ? &x->realdn : NULL;
}

/* inlined: strlen of a literal word is then a constant */
static inline __attribute__((always_inline)) int
name_is(const struct who *w, const char *s)
{
    return acreO_word_is(w->t->s + w->name, w->name_len, s);
}

static const char *
rv(const struct who *w)
{
    return w->t->s + w->right;
}

static size_t
rlen(const struct who *w)
{
    return w->t->len - w->right;
}

static int
err(struct by_state *st, const struct who *w, size_t at, const char *fmt,
    const char *a, size_t an, acre_diag *diag)
{
    return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, st->file, w->t, at, fmt,
                       (int)an, a);
}

/* ------------------------------------------------------------------------
 * Splitting and styles
 */

/* inlined: strlen of a literal word is then a constant */
static inline __attribute__((always_inline)) int
word_eq(const char *s, size_t n, const char *w)
{
    return acreO_word_is(s, n, w);
}

/* slapd's lutil_atoi: all of s[0..n) a decimal int. */
static int
parse_int(const char *s, size_t n, int *out)
{
    char buf[32], *end;

    if (n == 0 || n >= sizeof(buf))
        return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    errno = 0;
    long v = strtol(buf, &end, 10);
    if (*end || errno || v < INT_MIN || v > INT_MAX)
        return -1;
    *out = (int)v;
    return 0;
}

/* The level text of "level{n}" in s[0..n): [*lv, *lv + *lvn), or *lv
 * NULL when there is no '{'; *name_n is the length before '{'.  The text
 * after '}' is ignored, as slapd does. */
static int
split_level(struct by_state *st, struct who *w, const char *s, size_t n,
            const char **lv, size_t *lvn, size_t *name_n, acre_diag *diag)
{
    const char *open = memchr(s, '{', n);

    *lv = NULL;
    *name_n = open ? (size_t)(open - s) : n;
    if (!open)
        return 0;
    const char *close = memchr(open + 1, '}', n - *name_n - 1);
    if (!close)
        return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, st->file, w->t,
                           w->style_at,
                           "premature eol: expecting closing "
                           "'}' in \"level{n}\"");
    if (close == open + 1)
        return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, st->file, w->t,
                           w->style_at, "empty level in \"level{n}\"");
    *lv = open + 1;
    *lvn = (size_t)(close - open - 1);
    return 0;
}

static const struct {
    const char *name;
    enum sty sty;
} styles[] = {
    {"exact", STY_BASE},  {"baseObject", STY_BASE},
    {"base", STY_BASE},   {"onelevel", STY_ONE},
    {"one", STY_ONE},     {"subtree", STY_SUBTREE},
    {"sub", STY_SUBTREE}, {"children", STY_CHILDREN},
    {"regex", STY_REGEX}, {"expand", STY_EXPAND},
    {"ip", STY_IP},       {"ipv6", STY_IPV6},
    {"path", STY_PATH},
};

/* The style part s[0..n) (before any ",modifier"). */
static int
parse_style(struct by_state *st, struct who *w, const char *s, size_t n,
            acre_diag *diag)
{
    if (n == 0) {
        w->sty = STY_BASE;
        return 0;
    }
    if (acreO_prefix_is(s, n, "level")) {
        const char *lv;
        size_t lvn = 0, name_n;
        int rc = split_level(st, w, s, n, &lv, &lvn, &name_n, diag);
        if (rc)
            return rc;
        if (word_eq(s, name_n, "level")) {
            if (!lv || parse_int(lv, lvn, &w->level)) /* no {n}: slapd
                                                         crashes */
                return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, st->file, w->t,
                                   w->style_at,
                                   "unable to parse level in "
                                   "\"level{n}\"");
            w->sty = STY_LEVEL;
            return 0;
        }
        n = name_n;
    }
    for (size_t i = 0; i < sizeof(styles) / sizeof(styles[0]); i++)
        if (word_eq(s, n, styles[i].name)) {
            w->sty = styles[i].sty;
            return 0;
        }
    return err(st, w, w->style_at, "unknown style \"%.*s\" in by clause", s, n,
               diag);
}

static int
who_split(struct by_state *st, const struct acreO_ptext *t, struct who *w,
          acre_diag *diag)
{
    const char *eq = memchr(t->s, '=', t->len);
    size_t lhs = eq ? (size_t)(eq - t->s) : t->len;
    const char *dot = memchr(t->s, '.', lhs);
    size_t left = dot ? (size_t)(dot - t->s) : lhs;

    memset(w, 0, sizeof(*w));
    w->t = t;
    w->has_right = eq != NULL;
    w->right = eq ? lhs + 1 : t->len;
    w->access_len = dot ? left : t->len;
    w->sty = STY_BASE;
    if (dot) {
        const char *s = dot + 1;
        size_t n = lhs - left - 1;
        const char *comma = memchr(s, ',', n);
        w->style_at = left + 1;
        if (comma && word_eq(comma + 1, n - (size_t)(comma + 1 - s), "expand"))
            w->expand = 1;
        int rc = parse_style(st, w, s, comma ? (size_t)(comma - s) : n, diag);
        if (rc)
            return rc;
    }
    if (acreO_prefix_is(t->s, left, "real")) {
        w->real = 1;
        w->name = 4;
    }
    w->name_len = left - w->name;
    if (w->expand && w->sty == STY_REGEX)
        return err(st, w, w->style_at,
                   "\"regex\" style implies \"expand\" "
                   "modifier%.*s",
                   "", 0, diag);
    if (w->sty == STY_EXPAND)
        w->expand = 0; /* expand style: the modifier adds nothing */
    return 0;
}

/* ------------------------------------------------------------------------
 * DN subjects: *, anonymous, users, self, dn
 */

static const char *const users_res[] = {".+",   "^.+",  ".+$",
                                        "^.+$", ".+$$", "^.+$$"};
static const char *const any_res[] = {".*",   "^.*",  ".*$",
                                      "^.*$", ".*$$", "^.*$$"};

static int
in_list(const char *s, size_t n, const char *const *list, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (strlen(list[i]) == n && memcmp(list[i], s, n) == 0)
            return 1;
    return 0;
}

/* The subject pattern chosen by a dn.regex token: the (quirky) literal
 * pattern slapd keeps, or NULL for a real regex. */
static const char *
dn_regex_special(const struct who *w)
{
    if (!w->has_right)
        return "users";
    if (rlen(w) == 0)
        return "anonymous";
    if (rlen(w) == 1 && rv(w)[0] == '*')
        return "users";
    if (in_list(rv(w), rlen(w), users_res, 6))
        return "users";
    if (in_list(rv(w), rlen(w), any_res, 6))
        return "*";
    return NULL;
}

/* The patterns of sj, made when first needed; NULL: out of memory. */
static struct acreI_subject_pat *
subject_pat(struct by_state *st, struct acreI_subject *sj)
{
    if (!sj->pat)
        sj->pat = acreO_alloc(st->b, sizeof(struct acreI_subject_pat));
    return sj->pat;
}

static int
subject_regex(struct by_state *st, struct acreI_subject *sj,
              const struct who *w, acre_diag *diag)
{
    const char *special = dn_regex_special(w);
    char *pat;
    char why[160];

    if (special && strcmp(special, "*") == 0) {
        sj->kind = ACREI_SUBJ_ANY;
        return 0;
    }
    sj->kind = ACREI_SUBJ_REGEX;
    void *tmp = acreO_build_scratch(st->b);
    pat = !tmp      ? NULL
          : special ? talloc_strdup(tmp, special)
                    : acreO_regex_normalise_dn(tmp, rv(w), rlen(w));
    struct acreI_subject_pat *sp = pat ? subject_pat(st, sj) : NULL;
    if (!sp || acreO_template_init(st->b->ctx, pat, strlen(pat), &sp->re_tmpl))
        return ACRE_ERR_NOMEM;
    if (!special && strcmp(pat, "*") != 0) {
        int rc = acreO_regex_test_template(pat, strlen(pat), why, sizeof(why));
        if (rc)
            return acreO_error(diag, rc, st->file, w->t, w->right,
                               "bad regular expression (%s): \"%s\"", why, pat);
    }
    if (strcmp(pat, "*") == 0) { /* slapd: "*" matches anyone */
        sj->kind = ACREI_SUBJ_ANY;
        return 0;
    }
    if (sp->re_tmpl.expands)
        return 0;
    char out[ACREI_EXPAND_MAX + 1];
    size_t olen;
    const char *why2 = NULL;
    if (acreI_expand(pat, strlen(pat), NULL, NULL, 0, NULL, NULL, 0, out,
                     &olen))
        return 0; /* cannot happen without substitutions */
    int rc = acreO_build_regex(st->b, out, olen, &sp->re, &why2);
    if (rc && rc != ACRE_ERR_NOMEM)
        return acreO_error(diag, rc, st->file, w->t, w->right,
                           "bad regular expression (%s): \"%s\"", why2, out);
    return rc;
}

static enum acreI_subject_kind
subject_kind(enum sty sty)
{
    switch (sty) {
    case STY_BASE:
        return ACREI_SUBJ_BASE;
    case STY_ONE:
        return ACREI_SUBJ_ONE;
    case STY_SUBTREE:
        return ACREI_SUBJ_SUBTREE;
    case STY_CHILDREN:
        return ACREI_SUBJ_CHILDREN;
    case STY_LEVEL:
        return ACREI_SUBJ_LEVEL;
    default:
        return ACREI_SUBJ_SUFFIX;
    }
}

/* slapd's check for ",expand": a '$' followed by a digit or '{'. */
static int
has_dollar_ref(const char *s, size_t n)
{
    for (size_t i = 0; i + 1 < n; i++)
        if (s[i] == '$' &&
            ((s[i + 1] >= '0' && s[i + 1] <= '9') || s[i + 1] == '{'))
            return 1;
    return 0;
}

/* dn[.style]=<DN>, not regex. */
static int
subject_dn(struct by_state *st, struct acreI_subject *sj, const struct who *w,
           acre_diag *diag)
{
    if (!w->has_right || rlen(w) == 0)
        return err(st, w, 0,
                   "missing \"=\" in (or value after) \"%.*s\" in "
                   "by clause",
                   w->t->s, w->name + w->name_len, diag);
    sj->kind = subject_kind(w->sty);
    sj->level = w->level;
    if (w->expand) {
        struct acreI_subject_pat *sp = subject_pat(st, sj);
        int rc =
            !sp ? ACRE_ERR_NOMEM
                : acreO_template_init(st->b->ctx, rv(w), rlen(w), &sp->expand);
        if (rc)
            return rc;
        if (!has_dollar_ref(rv(w), rlen(w)))
            return err(st, w, w->right,
                       "\"expand\" used with no expansions "
                       "in \"pattern\"%.*s",
                       "", 0, diag);
        sj->is_expand = 1;
        return 0;
    }
    acre_dn *dn;
    acre_diag d = {0};
    size_t h;
    int rc = acreO_parse_dn_hash(st->b, rv(w), rlen(w), &dn, &h, &d);
    if (rc == ACRE_ERR_NOMEM)
        return rc;
    if (rc)
        return err(st, w, w->right + d.offset,
                   "bad DN \"%.*s\" in by DN "
                   "clause",
                   rv(w), rlen(w), diag);
    sj->dn = dn;
    const acre_dn *root = st->db ? st->db->rootdn : NULL;
    /* the hash first: dn, likely made rules before, is not read */
    if (w->sty == STY_BASE && root &&
        h == (size_t)acre_dn_ancestor_hash(root, acre_dn_depth(root)) &&
        acre_dn_equal(dn, root))
        acreO_note_add(st->b, acreO_pos_of(st->file, w->t, 0),
                       "rootdn is always granted unlimited privileges");
    return 0;
}

/* The level checks slapd makes once a DN subject is set. */
static int
subject_level(struct by_state *st, struct acreI_subject *sj,
              const struct who *w, acre_diag *diag)
{
    if (sj->kind == ACREI_SUBJ_SELF) {
        sj->level = w->level;
        return 0;
    }
    if (w->level < 0)
        return err(st, w, w->style_at,
                   "bad negative level in by DN "
                   "clause%.*s",
                   "", 0, diag);
    if (w->level == 1 || (w->level == 0 && w->sty == STY_LEVEL))
        acreO_note_add(st->b, acreO_pos_of(st->file, w->t, w->style_at),
                       "\"%s\" should be used instead of \"level{%d}\" in "
                       "by DN clause",
                       w->level ? "onelevel" : "base", w->level);
    sj->level = w->level;
    return 0;
}

/* *, anonymous, users, self, dn; 1 when the token is none of them. */
static int
who_subject(struct by_state *st, const struct who *w, acre_diag *diag)
{
    struct acreI_subject *sj = subject_of(st, w);
    enum sty sty = w->sty;
    int rc;

    if (!sj)
        return ACRE_ERR_NOMEM;
    if (name_is(w, "*")) {
        if (w->real)
            return err(st, w, 0, "\"real\" with \"*\"%.*s", "", 0, diag);
        sty = STY_REGEX;
    } else if (name_is(w, "anonymous")) {
        sty = STY_ANONYMOUS;
    } else if (name_is(w, "users")) {
        sty = STY_USERS;
    } else if (name_is(w, "self")) {
        sty = STY_SELF;
    } else if (!name_is(w, "dn")) {
        return 1;
    }
    if (sj->kind != ACREI_SUBJ_NONE)
        return err(st, w, 0, "dn pattern already specified%.*s", "", 0, diag);
    sj->pos = acreI_lc_of(acreO_pos_of(st->file, w->t, 0));
    if (w->expand && (sty == STY_REGEX || sty == STY_ANONYMOUS ||
                      sty == STY_USERS || sty == STY_SELF))
        return err(st, w, w->style_at,
                   "\"expand\" used with no expansions "
                   "in \"pattern\"%.*s",
                   "", 0, diag);
    if (name_is(w, "*"))
        sj->kind = ACREI_SUBJ_ANY;
    else if (sty == STY_ANONYMOUS)
        sj->kind = ACREI_SUBJ_ANONYMOUS;
    else if (sty == STY_USERS)
        sj->kind = ACREI_SUBJ_USERS;
    else if (sty == STY_SELF)
        sj->kind = ACREI_SUBJ_SELF;
    rc = sj->kind != ACREI_SUBJ_NONE ? 0
         : sty == STY_REGEX          ? subject_regex(st, sj, w, diag)
                                     : subject_dn(st, sj, w, diag);
    return rc ? rc : subject_level(st, sj, w, diag);
}

/* ------------------------------------------------------------------------
 * dnattr, group
 */

static int
dn_or_nameuid(const struct acreS_attr *at)
{
    return at->syntax && (!strcmp(at->syntax, DN_SYNTAX) ||
                          !strcmp(at->syntax, NAMEUID_SYNTAX));
}

static int
who_dnattr(struct by_state *st, const struct who *w, acre_diag *diag)
{
    struct acreI_subject *sj = subject_of(st, w);
    struct acreI_attrspec *a;

    if (!sj)
        return ACRE_ERR_NOMEM;
    if (!w->has_right || rlen(w) == 0)
        return err(st, w, 0,
                   "missing \"=\" in (or value after) \"%.*s\" in "
                   "by clause",
                   w->t->s, w->name + w->name_len, diag);
    if (sj->dnattr)
        return err(st, w, 0, "dnattr already specified%.*s", "", 0, diag);
    const struct acreO_memo *m =
        acreO_memo_find(st->b, ACREO_MEMO_DNATTR, rv(w), rlen(w));
    if (m) { /* checked before: share it */
        sj->dnattr = m->p;
        return 0;
    }
    if (!(a = talloc_zero(st->b->ctx, struct acreI_attrspec)))
        return ACRE_ERR_NOMEM;
    a->kind = ACREI_ATTR_TYPE;
    a->oc = -1;
    int ok = acreO_attr_desc(st->b, rv(w), rlen(w), a);
    if (ok < 0)
        return ACRE_ERR_NOMEM;
    if (!ok)
        return err(st, w, w->right,
                   "dnattr \"%.*s\": undefined attribute "
                   "type",
                   rv(w), rlen(w), diag);
    const struct acreS_attr *at = acreS_attr(st->b->schema, a->type);
    if (!dn_or_nameuid(at))
        return err(st, w, w->right, "dnattr \"%.*s\": inappropriate syntax",
                   rv(w), rlen(w), diag);
    if (!acreS_attr_rule(st->b->schema, a->type, 1))
        return err(st, w, w->right,
                   "dnattr \"%.*s\": inappropriate matching "
                   "(no EQUALITY)",
                   rv(w), rlen(w), diag);
    sj->dnattr = a;
    struct acreO_memo v = {a, NULL, 0};
    (void)acreO_memo_put(st->b, ACREO_MEMO_DNATTR, rv(w), rlen(w), &v);
    return 0;
}

/* Is class oc a subclass of the class named `name`? */
static int
class_under(const acre_schema *s, int oc, const char *name)
{
    int sup = acreS_class_find(s, name, strlen(name));

    return sup >= 0 && acreS_class_is(s, oc, sup);
}

/* slapd's oc_check_allowed(at, {oc}, NULL). */
static int
class_allows(const acre_schema *s, int oc, int type)
{
    const struct acreS_attr *at = acreS_attr(s, type);
    const struct acreS_class *c = acreS_class(s, oc);

    if (!strcasecmp(at->dn.name, "objectClass") || at->usage != ACRES_USER)
        return 1;
    if (acreS_class_find(s, "extensibleObject", 16) == oc)
        return 1;
    if (c->kind == ACRES_ABSTRACT)
        return 0;
    unsigned word = (unsigned)type >> 6;
    uint64_t bit = (uint64_t)1 << ((unsigned)type & 63);
    return ((c->all_must[word] | c->all_may[word]) & bit) != 0;
}

/* group/oc/attr: the class and attribute parts of the name. */
static int
group_parts(struct by_state *st, const struct who *w, struct acreI_group *g,
            acre_diag *diag)
{
    const char *name = w->t->s + w->name;
    const char *end = name + w->name_len;
    const char *oc = memchr(name, '/', w->name_len), *at = NULL;
    const struct acreS_class *c;
    size_t ocn = 0;

    if (oc) {
        oc++;
        if (oc == end || *oc == '/') /* slapd aborts on an empty class */
            return err(st, w, (size_t)(oc - w->t->s),
                       "group objectclass "
                       "missing%.*s",
                       "", 0, diag);
        at = memchr(oc, '/', (size_t)(end - oc));
        ocn = (size_t)((at ? at : end) - oc);
        if (at)
            at++;
    }
    g->oc = ocn ? acreS_class_find(st->b->schema, oc, ocn)
                : acreS_class_find(st->b->schema, "groupOfNames", 12);
    if (g->oc < 0)
        return err(st, w, oc ? (size_t)(oc - w->t->s) : 0,
                   "group objectclass \"%.*s\" unknown",
                   ocn ? oc : "groupOfNames", ocn ? ocn : 12, diag);
    c = acreS_class(st->b->schema, g->oc);
    if (class_under(st->b->schema, g->oc, "referral") ||
        class_under(st->b->schema, g->oc, "alias"))
        return err(st, w, 0,
                   "group objectclass \"%.*s\" is subclass of "
                   "referral or alias",
                   c->name, strlen(c->name), diag);
    const char *an = at && at < end ? at : "member";
    size_t ann = at && at < end ? (size_t)(end - at) : 6;
    g->at.kind = ACREI_ATTR_EXACT;
    g->at.oc = -1;
    int ok = acreO_attr_desc(st->b, an, ann, &g->at);
    if (ok < 0)
        return ACRE_ERR_NOMEM;
    if (!ok)
        return err(st, w, 0, "group \"%.*s\": undefined attribute type", an,
                   ann, diag);
    return 0;
}

static int
group_attr_checks(struct by_state *st, const struct who *w,
                  struct acreI_group *g, acre_diag *diag)
{
    const acre_schema *s = st->b->schema;
    const struct acreS_attr *at = acreS_attr(s, g->at.type);
    int uri = acreS_attr_find(s, "labeledURI", 10);

    g->dynamic = uri >= 0 && acreS_is_subtype(s, g->at.type, uri);
    if (!dn_or_nameuid(at) && !g->dynamic)
        return err(st, w, 0,
                   "group attr \"%.*s\": inappropriate syntax; "
                   "must be DN, NameUID or a subtype of labeledURI",
                   at->dn.name, strlen(at->dn.name), diag);
    if (!class_allows(s, g->oc, g->at.type))
        return err(st, w, 0,
                   "group: \"%.*s\" not allowed by the group "
                   "objectclass",
                   at->dn.name, strlen(at->dn.name), diag);
    return 0;
}

static int
group_pattern(struct by_state *st, const struct who *w, struct acreI_group *g,
              acre_diag *diag)
{
    char why[160];

    if (g->expand) {
        void *tmp = acreO_build_scratch(st->b);
        char *pat = tmp ? acreO_regex_normalise_dn(tmp, rv(w), rlen(w)) : NULL;
        if (!pat || acreO_template_init(st->b->ctx, pat, strlen(pat), &g->tmpl))
            return ACRE_ERR_NOMEM;
        int rc = strcmp(pat, "*") ? acreO_regex_test_template(pat, strlen(pat),
                                                              why, sizeof(why))
                                  : 0;
        if (rc)
            return acreO_error(diag, rc, st->file, w->t, w->right,
                               "bad regular expression (%s): \"%s\"", why, pat);
        return 0;
    }
    acre_dn *dn;
    acre_diag d = {0};
    int rc = acreO_parse_dn(st->b, rv(w), rlen(w), &dn, &d);
    if (rc == ACRE_ERR_NOMEM)
        return rc;
    if (rc)
        return err(st, w, w->right + d.offset, "bad DN \"%.*s\"", rv(w),
                   rlen(w), diag);
    g->dn = dn;
    return 0;
}

static int
who_group(struct by_state *st, const struct who *w, acre_diag *diag)
{
    struct acreI_group *g;
    int rc;

    if (w->sty == STY_REGEX)
        acreO_note_add(st->b, acreO_pos_of(st->file, w->t, w->style_at),
                       "deprecated group style \"regex\"; use \"expand\"");
    else if (w->sty != STY_BASE && w->sty != STY_EXPAND)
        return err(st, w, w->style_at,
                   "inappropriate style in by "
                   "clause%.*s",
                   "", 0, diag);
    if (!w->has_right || rlen(w) == 0)
        return err(st, w, 0,
                   "missing \"=\" in (or value after) \"%.*s\" in "
                   "by clause",
                   w->t->s, w->name + w->name_len, diag);
    if (acreI_group(st->by))
        return err(st, w, 0, "group pattern already specified%.*s", "", 0,
                   diag);
    if (!(g = acreO_alloc(st->b, sizeof(*g))))
        return ACRE_ERR_NOMEM;
    g->pos = acreO_pos_of(st->file, w->t, 0);
    g->expand = w->sty != STY_BASE;
    if ((rc = group_pattern(st, w, g, diag)) ||
        (rc = group_parts(st, w, g, diag)) ||
        (rc = group_attr_checks(st, w, g, diag)))
        return rc;
    if (!ext(st))
        return ACRE_ERR_NOMEM;
    st->by->ext->group = g;
    return 0;
}

/* ------------------------------------------------------------------------
 * peername, sockname, domain, sockurl
 */

/* inet_addr of s[0..n), INADDR_NONE (all ones) when it is not an
 * address.  slapd compares inet_addr's 32-bit result with an unsigned
 * long -1, which never matches on 64-bit systems: it never refuses an
 * IPv4 address or mask, it keeps all ones. */
static void
ipv4(const char *s, size_t n, uint8_t out[4])
{
    char buf[64];
    in_addr_t a = INADDR_NONE;

    if (n < sizeof(buf)) {
        memcpy(buf, s, n);
        buf[n] = '\0';
        a = inet_addr(buf);
    }
    memcpy(out, &a, 4);
}

static int
ipv6(const char *s, size_t n, uint8_t out[16])
{
    char buf[128];

    if (n >= sizeof(buf))
        return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    return inet_pton(AF_INET6, buf, out) == 1 ? 0 : -1;
}

/* {port} after an address: slapd's strtol and '}' check. */
static int
parse_port(const char *s, size_t n, int *port)
{
    char buf[32], *end;

    if (n >= sizeof(buf))
        return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    long v = strtol(buf, &end, 10);
    if (end == buf || *end != '}')
        return -1;
    *port = (int)v;
    return 0;
}

/* peername.ip= / .ipv6=: addr[%mask][{port}] */
static int
peer_addr(struct by_state *st, const struct who *w, struct acreI_strmatch *m,
          acre_diag *diag)
{
    const char *s = rv(w), *brace = memchr(s, '{', rlen(w));
    size_t an = brace ? (size_t)(brace - s) : rlen(w);
    const char *pct = memchr(s, '%', an);
    size_t addr_n = pct ? (size_t)(pct - s) : an;
    int v6 = m->style == ACREI_STR_IPV6;

    if (!v6)
        ipv4(s, addr_n, m->addr);
    else if (ipv6(s, addr_n, m->addr))
        return err(st, w, w->right, "illegal peername address \"%.*s\"", s,
                   addr_n, diag);
    memset(m->mask, 0xff, sizeof(m->mask));
    if (pct && !v6)
        ipv4(pct + 1, an - addr_n - 1, m->mask);
    else if (pct && ipv6(pct + 1, an - addr_n - 1, m->mask))
        return err(st, w, w->right + addr_n + 1,
                   "illegal peername address "
                   "mask \"%.*s\"",
                   pct + 1, an - addr_n - 1, diag);
    m->port = -1;
    if (brace && parse_port(brace + 1, rlen(w) - an - 1, &m->port))
        return err(st, w, w->right + an,
                   "illegal peername port "
                   "specification \"%.*s\"",
                   brace, rlen(w) - an, diag);
    return 0;
}

static enum acreI_str_style
str_style(enum sty sty)
{
    switch (sty) {
    case STY_REGEX:
        return ACREI_STR_REGEX;
    case STY_EXPAND:
        return ACREI_STR_EXPAND;
    case STY_IP:
        return ACREI_STR_IP;
    case STY_IPV6:
        return ACREI_STR_IPV6;
    case STY_PATH:
        return ACREI_STR_PATH;
    case STY_SUBTREE:
        return ACREI_STR_SUBTREE;
    default:
        return ACREI_STR_EXACT;
    }
}

/* The pattern of a string match; regexes are normalised and tested. */
static int
str_pattern(struct by_state *st, const struct who *w, struct acreI_strmatch *m,
            acre_diag *diag)
{
    char why[160];

    if (m->style != ACREI_STR_REGEX) {
        int rc = acreO_template_init(st->b->ctx, rv(w), rlen(w), &m->pat);
        m->any = rlen(w) == 1 && rv(w)[0] == '*';
        return rc;
    }
    void *tmp = acreO_build_scratch(st->b);
    char *pat = tmp ? acreO_regex_normalise_dn(tmp, rv(w), rlen(w)) : NULL;
    if (!pat || acreO_template_init(st->b->ctx, pat, strlen(pat), &m->pat))
        return ACRE_ERR_NOMEM;
    m->any = strcmp(pat, "*") == 0;
    int rc =
        m->any ? 0
               : acreO_regex_test_template(pat, strlen(pat), why, sizeof(why));
    if (rc)
        return acreO_error(diag, rc, st->file, w->t, w->right,
                           "bad regular expression (%s): \"%s\"", why, pat);
    if (m->any || m->pat.expands)
        return 0;
    char out[ACREI_EXPAND_MAX + 1];
    size_t olen;
    const char *why2 = NULL;
    acreI_expand(pat, strlen(pat), NULL, NULL, 0, NULL, NULL, 0, out, &olen);
    rc = acreO_build_regex(st->b, out, olen, &m->re, &why2);
    if (rc && rc != ACRE_ERR_NOMEM)
        return acreO_error(diag, rc, st->file, w->t, w->right,
                           "bad regular expression (%s): \"%s\"", why2, out);
    return rc;
}

/* Which connection string a name is (*m NULL: none), and the styles it
 * allows; ACRE_ERR_NOMEM or 0. */
static int
str_target(struct by_state *st, const struct who *w, struct acreI_strmatch **m,
           unsigned *allowed)
{
    const unsigned common = 1u << STY_REGEX | 1u << STY_BASE | 1u << STY_EXPAND;
    struct acreI_clause_rare *x;
    int k;

    *m = NULL;
    if (name_is(w, "peername"))
        k = 0,
        *allowed = common | 1u << STY_IP | 1u << STY_IPV6 | 1u << STY_PATH;
    else if (name_is(w, "sockname"))
        k = 1, *allowed = common;
    else if (name_is(w, "domain"))
        k = 2, *allowed = common | 1u << STY_SUBTREE;
    else if (name_is(w, "sockurl"))
        k = 3, *allowed = common;
    else
        return 0;
    if (!(x = rare(st)))
        return ACRE_ERR_NOMEM;
    *m = k == 0   ? &x->peername
         : k == 1 ? &x->sockname
         : k == 2 ? &x->domain
                  : &x->sockurl;
    return 0;
}

static int
who_string(struct by_state *st, const struct who *w, acre_diag *diag)
{
    unsigned allowed;
    struct acreI_strmatch *m;
    enum sty sty = w->sty;
    int expand = w->expand;

    if (str_target(st, w, &m, &allowed))
        return ACRE_ERR_NOMEM;
    if (!m)
        return 1;
    if (!(allowed & (1u << sty)))
        return err(st, w, w->style_at,
                   "inappropriate style in by "
                   "clause%.*s",
                   "", 0, diag);
    if (m == &st->by->ext->rare->domain && sty == STY_EXPAND) {
        sty = STY_BASE; /* tolerated: means exact,expand */
        expand = 1;
    }
    if (!w->has_right || rlen(w) == 0)
        return err(st, w, 0,
                   "missing \"=\" in (or value after) \"%.*s\" in "
                   "by clause",
                   w->t->s, w->name + w->name_len, diag);
    if (m->style != ACREI_STR_NONE)
        return err(st, w, 0, "%.*s pattern already specified",
                   w->t->s + w->name, w->name_len, diag);
    m->style = str_style(sty);
    m->pos = acreO_pos_of(st->file, w->t, 0);
    m->expand = m == &st->by->ext->rare->domain && expand;
    int rc = str_pattern(st, w, m, diag);
    if (!rc && (m->style == ACREI_STR_IP || m->style == ACREI_STR_IPV6))
        rc = peer_addr(st, w, m, diag);
    return rc;
}

/* ------------------------------------------------------------------------
 * set, ssf
 */

static int
who_set(struct by_state *st, const struct who *w, acre_diag *diag)
{
    struct acreI_set *set;
    size_t off = 0;

    if (w->sty == STY_REGEX)
        acreO_note_add(st->b, acreO_pos_of(st->file, w->t, w->style_at),
                       "deprecated set style \"regex\"; use \"expand\"");
    else if (w->sty != STY_BASE && w->sty != STY_EXPAND)
        return err(st, w, w->style_at,
                   "inappropriate style in by "
                   "clause%.*s",
                   "", 0, diag);
    if (acreI_set(st->by))
        return err(st, w, 0, "set attribute already specified%.*s", "", 0,
                   diag);
    if (!w->has_right || rlen(w) == 0)
        return err(st, w, 0, "no set is defined%.*s", "", 0, diag);
    if (!(set = talloc_zero(st->b->ctx, struct acreI_set)))
        return ACRE_ERR_NOMEM;
    set->pos = acreO_pos_of(st->file, w->t, w->right);
    set->expand = w->sty != STY_BASE;
    if (acreO_template_init(st->b->ctx, rv(w), rlen(w), &set->text) || !ext(st))
        return ACRE_ERR_NOMEM;
    st->by->ext->set = set;
    if (set->expand)
        return 0;
    int rc = acreO_set_parse(st->b->ctx, st->b->schema, rv(w), rlen(w),
                             &set->root, &off);
    if (rc == ACRE_ERR_NOMEM)
        return rc;
    if (rc) { /* slapd only finds out per check: never true */
        set->invalid = 1;
        return acreO_note_add(
            st->b, acreO_pos_of(st->file, w->t, w->right + off),
            "set expression %s: it never matches",
            rc == ACRE_ERR_RULE_LIMIT ? "too long or too deep" : "malformed");
    }
    return 0;
}

/* lutil_atou: strtoul's leading blanks and '+' (no '-'), then decimal
 * digits alone, fitting an unsigned. */
static int
parse_uint(const char *s, size_t n, unsigned *out)
{
    unsigned long v = 0;
    size_t i = 0;

    while (i < n && (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r')))
        i++;
    if (i < n && s[i] == '+')
        i++;
    if (i == n)
        return -1;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (unsigned long)(s[i] - '0');
        if (v > UINT_MAX)
            return -1;
    }
    *out = (unsigned)v;
    return 0;
}

static int
who_ssf(struct by_state *st, const struct who *w, acre_diag *diag)
{
    static const char *const names[] = {"ssf", "transport_ssf", "tls_ssf",
                                        "sasl_ssf"};
    struct acreI_clause_rare *x;
    unsigned *slot[4] = {&st->by->ssf};

    for (int k = 0; k < 4; k++) {
        if (!name_is(w, names[k]))
            continue;
        if (k) {
            if (!(x = rare(st)))
                return ACRE_ERR_NOMEM;
            slot[1] = &x->transport_ssf;
            slot[2] = &x->tls_ssf;
            slot[3] = &x->sasl_ssf;
        }
        if (w->sty != STY_REGEX && w->sty != STY_BASE)
            return err(st, w, w->style_at,
                       "inappropriate style in by "
                       "clause%.*s",
                       "", 0, diag);
        if (*slot[k])
            return err(st, w, 0, "%.*s attribute already specified", names[k],
                       strlen(names[k]), diag);
        if (!w->has_right || rlen(w) == 0)
            return err(st, w, 0, "no %.*s is defined", names[k],
                       strlen(names[k]), diag);
        if (parse_uint(rv(w), rlen(w), slot[k]))
            return err(st, w, w->right, "unable to parse %.*s value", names[k],
                       strlen(names[k]), diag);
        if (!*slot[k])
            return err(st, w, w->right, "invalid %.*s value", names[k],
                       strlen(names[k]), diag);
        return 0;
    }
    return 1;
}

/* ------------------------------------------------------------------------
 * The clause
 */

/* One <who> token: 0 consumed, 1 not a <who> (the access), <0 error. */
static int
who_token(struct by_state *st, const struct who *w, acre_diag *diag)
{
    int rc = who_subject(st, w, diag);

    if (rc != 1)
        return rc;
    if (name_is(w, "dnattr"))
        return who_dnattr(st, w, diag);
    if (acreO_prefix_is(w->t->s + w->name, w->name_len, "group"))
        return who_group(st, w, diag);
    if ((rc = who_string(st, w, diag)) != 1)
        return rc;
    if (name_is(w, "set"))
        return who_set(st, w, diag);
    if (name_is(w, "aci") ||
        acreO_prefix_is(w->t->s + w->name, w->name_len, "dynacl/"))
        return err(st, w, 0, "dynacl \"%.*s\" is not supported by acre",
                   w->t->s + w->name, w->name_len, diag);
    return who_ssf(st, w, diag);
}

/* The <access> token: mask with its self prefix. */
static int
access_token(struct by_state *st, const struct who *w, acre_diag *diag)
{
    const char *s = w->t->s + w->name;
    size_t n = w->access_len - w->name;

    if (acreO_prefix_is(s, n, "self")) {
        st->by->dn.self = 1;
        s += 4;
        n -= 4;
    } else if (acreO_prefix_is(s, n, "realself")) {
        struct acreI_clause_rare *x = rare(st);
        if (!x)
            return ACRE_ERR_NOMEM;
        x->realdn.self = 1;
        s += 8;
        n -= 8;
    }
    st->by->mask = acreO_mask_parse(s, n);
    st->by->mask_pos = acreI_lc_of(acreO_pos_of(st->file, w->t, 0));
    if (!st->by->mask)
        return err(st, w, 0, "expecting <access> got \"%.*s\"", w->t->s,
                   w->access_len, diag);
    return 0;
}

static int
control_word(const struct acreO_ptext *t, enum acreI_control *c)
{
    if (word_eq(t->s, t->len, "stop"))
        *c = ACREI_STOP;
    else if (word_eq(t->s, t->len, "continue"))
        *c = ACREI_CONTINUE;
    else if (word_eq(t->s, t->len, "break"))
        *c = ACREI_BREAK;
    else
        return 0;
    return 1;
}

/* No <access>: "+0" with a control (slapd's plain stop/continue/break). */
static void
plain(struct acreI_clause *by, enum acreI_control c)
{
    by->mask = ACREI_PRIV_ADDITIVE | ACREI_PRIV_NONE;
    by->control = c;
}

int
acreO_parse_by(struct acreO_build *b, const struct acreI_section *db,
               const struct acreO_ptext *toks, unsigned ntoks, unsigned *i,
               const char *file, struct acreI_clause *by, acre_diag *diag)
{
    struct by_state st = {b, db, file, by};
    struct who w;
    int rc = 1;

    by->pos = acreI_lc_of(acreO_pos_of(file, &toks[*i - 1], 0));
    if (*i >= ntoks)
        return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, file, &toks[*i - 1],
                           toks[*i - 1].len, "premature EOL: expecting <who>");
    for (; *i < ntoks; (*i)++)
        if ((rc = who_split(&st, &toks[*i], &w, diag)) ||
            (rc = who_token(&st, &w, diag)))
            break;
    if (rc < 0)
        return rc;
    if (*i == ntoks) {
        plain(by, ACREI_STOP);
        return 0;
    }
    struct acreO_ptext word = {(char *)w.t->s + w.name, w.access_len - w.name,
                               NULL, NULL};
    if (control_word(&word, &by->control)) {
        plain(by, by->control);
        (*i)++;
        return 0;
    }
    if (word_eq(word.s, word.len, "by")) {
        plain(by, ACREI_STOP);
        return 0;
    }
    if ((rc = access_token(&st, &w, diag)))
        return rc;
    by->control = ACREI_STOP;
    if (++(*i) < ntoks && control_word(&toks[*i], &by->control))
        (*i)++;
    return 0;
}
