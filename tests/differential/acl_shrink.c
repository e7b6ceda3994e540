/*
 * acl_shrink.c -- shrinking a differing case (see acl_shrink.h).
 *
 * The case is kept as text (rules.conf, data.ldif, the one search) and
 * cut into units for each pass: access statements (an "access" line and
 * its continuation lines), "by" continuation lines, LDIF records, the
 * lines of a record.  A candidate is the current text without a set of
 * units; it replaces the current text when slapd and acre still differ
 * on it.
 */
#include "acl_shrink.h"

#include "acre.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <talloc.h>

struct shrink {
    void *ctx;
    struct acl_runner *run;
    const char *work;
    unsigned max_runs;
    struct acl_case *best;
    struct acl_outcome *out;
};

/* Does candidate c still differ?  Keeps it (and its outcome) if so. */
static int
attempt(struct shrink *s, struct acl_case *c)
{
    int rc;
    struct acl_outcome *o;

    if (s->run->runs >= s->max_runs)
        return 0;
    o = acl_one(s->ctx, s->run, c, s->work, &rc);
    if (!o || !o->differ[0]) {
        talloc_free(o);
        return 0;
    }
    talloc_steal(s->ctx, c);
    s->best = c;
    s->out = o;
    return 1;
}

static struct acl_case *
copy_case(struct shrink *s)
{
    return acl_case_single(s->ctx, s->best, 0);
}

/* ---- units over lines -------------------------------------------------- */

struct lines {
    char **v;
    unsigned n;
};

static void
split(void *ctx, const char *text, struct lines *l)
{
    char *copy = talloc_strdup(ctx, text);

    l->v = NULL;
    l->n = 0;
    for (char *p = copy; *p;) {
        size_t n = strcspn(p, "\n");
        l->v = talloc_realloc(ctx, l->v, char *, l->n + 1);
        l->v[l->n++] = p;
        if (!p[n])
            break;
        p[n] = 0;
        p += n + 1;
    }
}

/* A unit: lines [first, last] of the text (and, for entries, its
 * subtree: parent is the unit above it, -1 for none). */
struct unit {
    unsigned first, last;
    int parent;
};

typedef char *(*render_fn)(void *ctx, const struct lines *l,
                           const struct unit *u, unsigned nu,
                           const uint8_t *drop);

/* The text without the lines of dropped units (and of units whose
 * parent chain holds a dropped one). */
static char *
render(void *ctx, const struct lines *l, const struct unit *u, unsigned nu,
       const uint8_t *drop)
{
    uint8_t *gone = talloc_zero_array(ctx, uint8_t, l->n + 1);
    char *t = talloc_strdup(ctx, "");

    for (unsigned i = 0; i < nu; i++) {
        int d = 0;
        for (int k = (int)i; k >= 0 && !d; k = u[k].parent)
            d = drop[k];
        for (unsigned j = u[i].first; d && j <= u[i].last; j++)
            gone[j] = 1;
    }
    for (unsigned j = 0, blank = 1; j < l->n; j++) {
        if (gone[j] || (blank && !*l->v[j]))
            continue; /* and no runs of blank lines */
        t = talloc_asprintf_append(t, "%s\n", l->v[j]);
        blank = !*l->v[j];
    }
    return t;
}

/* Which text of the case a pass cuts. */
enum target { T_RULES, T_LDIF };

/*
 * Delta debugging over nu units: try dropping chunks of the units still
 * kept, halving the chunk size down to one unit.
 */
static void
ddmin(struct shrink *s, enum target t, const struct lines *l,
      const struct unit *u, unsigned nu)
{
    uint8_t *drop = talloc_zero_array(s->ctx, uint8_t, nu + 1);
    unsigned *kept = talloc_array(s->ctx, unsigned, nu + 1);

    for (unsigned chunk = (nu + 1) / 2; chunk >= 1; chunk /= 2) {
        unsigned nk = 0;
        for (unsigned i = 0; i < nu; i++)
            if (!drop[i])
                kept[nk++] = i;
        for (unsigned start = 0; start < nk; start += chunk) {
            uint8_t *cand = talloc_memdup(s->ctx, drop, nu + 1);
            for (unsigned k = start; k < start + chunk && k < nk; k++)
                cand[kept[k]] = 1;
            struct acl_case *c = copy_case(s);
            char *text = render(c, l, u, nu, cand);
            if (t == T_RULES)
                c->rules = text;
            else
                c->ldif = text;
            if (attempt(s, c))
                memcpy(drop, cand, nu + 1);
            talloc_free(cand);
            if (s->run->runs >= s->max_runs)
                return;
        }
        if (chunk == 1)
            break;
    }
}

static int
starts_with_word(const char *line, const char *w)
{
    size_t n = strlen(w);
    while (*line == ' ' || *line == '\t')
        line++;
    return !strncasecmp(line, w, n) &&
           (line[n] == ' ' || line[n] == '\t' || !line[n]);
}

/* Access statements of the rules. */
static void
pass_rules(struct shrink *s)
{
    struct lines l;
    struct unit *u = NULL;
    unsigned nu = 0;

    split(s->ctx, s->best->rules, &l);
    for (unsigned j = 0; j < l.n; j++) {
        if (starts_with_word(l.v[j], "access") && l.v[j][0] != ' ' &&
            l.v[j][0] != '\t') {
            u = talloc_realloc(s->ctx, u, struct unit, nu + 1);
            u[nu++] = (struct unit){j, j, -1};
        } else if (nu && (l.v[j][0] == ' ' || l.v[j][0] == '\t') &&
                   u[nu - 1].last + 1 == j) {
            u[nu - 1].last = j;
        }
    }
    if (nu)
        ddmin(s, T_RULES, &l, u, nu);
}

/* "by" lines of the rules. */
static void
pass_clauses(struct shrink *s)
{
    struct lines l;
    struct unit *u = NULL;
    unsigned nu = 0;

    split(s->ctx, s->best->rules, &l);
    for (unsigned j = 0; j < l.n; j++)
        if ((l.v[j][0] == ' ' || l.v[j][0] == '\t') &&
            starts_with_word(l.v[j], "by")) {
            u = talloc_realloc(s->ctx, u, struct unit, nu + 1);
            u[nu++] = (struct unit){j, j, -1};
        }
    if (nu)
        ddmin(s, T_RULES, &l, u, nu);
}

/* The normalised DN of the LDIF record at line j, or NULL. */
static char *
record_dn(void *ctx, const struct lines *l, unsigned j)
{
    char *text = talloc_strdup(ctx, l->v[j]), *v, *s = NULL;
    acre_dn *dn;

    for (unsigned k = j + 1; k < l->n && l->v[k][0] == ' '; k++)
        text = talloc_asprintf_append(text, "\n%s", l->v[k]);
    v = acl_ldif_dn(ctx, text);
    if (v &&
        !acre_dn_parse(NULL, acl_slapd_schema(), v, strlen(v), 0, &dn, NULL)) {
        s = talloc_strdup(ctx, acre_dn_normalised(dn, NULL));
        acre_dn_free(dn);
    }
    return s;
}

/* Is normalised DN a strictly below b? */
static int
below(const char *a, const char *b)
{
    size_t na, nb;

    if (!a || !b)
        return 0;
    na = strlen(a), nb = strlen(b);
    return nb == 0 ? na > 0
                   : na > nb + 1 && a[na - nb - 1] == ',' &&
                         !strcmp(a + na - nb, b);
}

/* LDIF records (with their subtrees), or the attribute lines of each
 * record (lines == 1). */
static void
pass_ldif(struct shrink *s, int lines)
{
    struct lines l;
    struct unit *u = NULL;
    char **dns = NULL;
    unsigned nu = 0;

    int in_unit = 0;

    split(s->ctx, s->best->ldif, &l);
    for (unsigned j = 0; j < l.n; j++) {
        const char *x = l.v[j];
        if (!*x) {
            in_unit = 0;
            continue;
        }
        if (x[0] == '#') /* a comment (its folded lines join it) */
            continue;
        if (x[0] == ' ') { /* a folded line goes with its line */
            if (in_unit)
                u[nu - 1].last = j;
            continue;
        }
        int is_dn = !strncmp(x, "dn:", 3);
        if (lines ? is_dn : !is_dn) {
            if (!lines && in_unit)
                u[nu - 1].last = j;
            in_unit = !lines && in_unit;
            continue;
        }
        in_unit = 1;
        u = talloc_realloc(s->ctx, u, struct unit, nu + 1);
        dns = talloc_realloc(s->ctx, dns, char *, nu + 1);
        u[nu] = (struct unit){j, j, -1};
        dns[nu] = lines ? NULL : record_dn(s->ctx, &l, j);
        for (unsigned k = 0; !lines && dns[nu] && k < nu; k++)
            if (dns[k] && below(dns[nu], dns[k]) &&
                (u[nu].parent < 0 || below(dns[k], dns[u[nu].parent])))
                u[nu].parent = (int)k;
        nu++;
    }
    if (nu)
        ddmin(s, T_LDIF, &l, u, nu);
}

/* ---- the filter -------------------------------------------------------- */

struct fnode {
    char op; /* '&', '|', '!', or 0 for an item */
    char *text;
    struct fnode **kid;
    unsigned n;
};

static struct fnode *
fparse(void *ctx, const char **p)
{
    struct fnode *f = talloc_zero(ctx, struct fnode);
    const char *s = *p;

    if (*s != '(')
        return NULL;
    s++;
    if (*s == '&' || *s == '|' || *s == '!') {
        f->op = *s++;
        while (*s == '(') {
            struct fnode *k = fparse(ctx, &s);
            if (!k)
                return NULL;
            f->kid = talloc_realloc(ctx, f->kid, struct fnode *, f->n + 1);
            f->kid[f->n++] = k;
        }
    } else {
        const char *start = s;
        int depth = 0;
        for (; *s && (depth || *s != ')'); s++) {
            if (*s == '\\' && s[1])
                s++;
            else if (*s == '(')
                depth++;
            else if (*s == ')')
                depth--;
        }
        f->text = talloc_strndup(ctx, start, (size_t)(s - start));
    }
    if (*s != ')')
        return NULL;
    *p = s + 1;
    return f;
}

static char *
funparse(void *ctx, const struct fnode *f, const struct fnode *skip,
         const struct fnode *from, const struct fnode *to)
{
    if (f == from)
        f = to;
    if (!f->op)
        return talloc_asprintf(ctx, "(%s)", f->text);
    char *s = talloc_asprintf(ctx, "(%c", f->op);
    for (unsigned i = 0; i < f->n; i++)
        if (f->kid[i] != skip)
            s = talloc_asprintf_append(
                s, "%s", funparse(ctx, f->kid[i], skip, from, to));
    return talloc_asprintf_append(s, ")");
}

static int
try_filter(struct shrink *s, const char *filter)
{
    struct acl_case *c = copy_case(s);

    if (!strcmp(filter, s->best->s[0].filter))
        return 0;
    c->s[0].filter = talloc_strdup(c, filter);
    return attempt(s, c);
}

/* One successful simplification of the filter, or 0. */
static int
filter_step(struct shrink *s, const struct fnode *root, const struct fnode *f)
{
    if (!f->op)
        return 0;
    for (unsigned i = 0; i < f->n; i++) /* f replaced by a child */
        if (try_filter(s, funparse(s->ctx, root, NULL, f, f->kid[i])))
            return 1;
    for (unsigned i = 0; f->op != '!' && f->n > 1 && i < f->n; i++)
        if (try_filter(s, funparse(s->ctx, root, f->kid[i], NULL, NULL)))
            return 1;
    for (unsigned i = 0; i < f->n; i++)
        if (filter_step(s, root, f->kid[i]))
            return 1;
    return 0;
}

static void
pass_filter(struct shrink *s)
{
    for (;;) {
        const char *p = s->best->s[0].filter;
        struct fnode *root = fparse(s->ctx, &p);
        if (!root || *p || s->run->runs >= s->max_runs ||
            !filter_step(s, root, root))
            return;
    }
}

static void
pass_attrs(struct shrink *s)
{
    for (unsigned i = 0; i < s->best->s[0].nattrs;) {
        struct acl_case *c = copy_case(s);
        struct acl_search *x = &c->s[0];
        memmove(&x->attrs[i], &x->attrs[i + 1],
                (x->nattrs - i - 1) * sizeof *x->attrs);
        x->nattrs--;
        if (!attempt(s, c))
            i++;
        if (s->run->runs >= s->max_runs)
            return;
    }
}

static size_t
size_of(const struct acl_case *c)
{
    return strlen(c->rules) + strlen(c->ldif) + strlen(c->s[0].filter) +
           c->s[0].nattrs;
}

struct acl_case *
acl_shrink(void *ctx, struct acl_runner *run, const struct acl_case *c,
           unsigned i, const char *work, unsigned max_runs,
           struct acl_outcome **out)
{
    struct shrink s = {ctx, run, work, run->runs + max_runs, NULL, NULL};
    struct acl_case *first = acl_case_single(ctx, c, i);
    int rc;

    s.out = acl_one(ctx, run, first, work, &rc);
    s.best = first;
    if (!s.out || !s.out->differ[0]) { /* not reproducible alone */
        *out = s.out;
        return first;
    }
    for (size_t before = 0;
         before != size_of(s.best) && run->runs < s.max_runs;) {
        before = size_of(s.best);
        pass_filter(&s);
        pass_attrs(&s);
        pass_rules(&s);
        pass_clauses(&s);
        pass_ldif(&s, 0);
        pass_ldif(&s, 1);
    }
    /* leave the directory holding the smallest case and its answers */
    talloc_free(acl_one(ctx, run, s.best, work, &rc));
    *out = s.out;
    return s.best;
}
