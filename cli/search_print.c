/*
 * search_print.c -- `acre search`'s output: each returned entry as an
 * LDIF record, byte for byte as ldapsearch -LLL prints slapd's answer
 * (ldif_out.h: the DN in slapd's text, attributes in the entry's stored
 * order under their schema's canonical names with the options lowercased
 * and sorted, then its collective attributes and the computed ones asked
 * for), or with --dialect aci as 389 sends them (print_389).  What is
 * printed was decided by acre_search; this file only spells it.
 */
#include "search.h"

#include "cli.h"
#include "ldif_out.h"

#include <acre.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unicase.h>

/* ------------------------------------------------------------------------
 * LDIF output (ldif_out.h)
 */

/* out_line -- one `name: value` line as ldapsearch prints it. */
static int
out_line(const struct search *s, const char *name, const void *val, size_t len)
{
    return cli_ldif_line(stdout, s->a.wrap, name, val, len);
}

/* out_name -- an attribute's name alone, as ldapsearch -A prints it. */
static int
out_name(const char *name)
{
    return printf("%s:\n", name) < 0 ? -1 : 0;
}

/* read_attr -- slapd's check of read on attribute `name` as a whole (-A
 * sends the names that pass it, without values): 1, 0, or -1 (an error:
 * denied, printing stops). */
static int
read_attr(const struct search *s, const acre_entry_view *view, const char *name)
{
    int ok = acre_access(s->rq, view, name, NULL, 0, ACRE_RIGHT_READ, NULL);

    return ok < 0 ? -1 : ok;
}

/* print_coll_attr -- the readable values of collective attribute i (-A:
 * its name when one is readable). */
static int
print_coll_attr(const struct search *s, const acre_verdict *v, unsigned i,
                const char *name)
{
    unsigned nvals;
    size_t len;
    int rc = 0;

    if (s->a.attrsonly)
        return v->coll_attr[i] != ACRE_ATTR_NONE ? out_name(name) : 0;
    acre_collective_attr(&v->coll, i, NULL, &nvals, NULL);
    for (unsigned j = 0; j < nvals && !rc; j++) {
        const void *val = acre_collective_value(&v->coll, i, j, &len);
        if (v->coll_attr[i] == ACRE_ATTR_ALL ||
            v->coll_value[v->coll_first[i] + j])
            rc = out_line(s, name, val, len);
    }
    return rc;
}

/* coll_name -- the name collective attribute i is shown under, or NULL
 * when the requester reads none of it. */
static const char *
coll_name(const struct search *s, const acre_verdict *v, unsigned i, char *buf,
          size_t size)
{
    size_t dlen;
    const char *desc = acre_collective_attr(&v->coll, i, &dlen, NULL, NULL);

    if (v->coll_attr[i] == ACRE_ATTR_NONE)
        return NULL;
    return cli_attr_name(s->schema, desc, dlen, buf, size);
}

/* print_merged -- after the entry's own attribute `name`, the values
 * slapo-collect gives the same description (ACRE_COLLATTR_COLLECT): it
 * adds them to the attribute the entry has, so slapd returns them there,
 * after the entry's own.  done[i] marks those printed. */
static int
print_merged(const struct search *s, const acre_verdict *v, const char *name,
             unsigned char *done)
{
    char cname[256];
    unsigned flags;
    int rc = 0;

    for (unsigned i = 0; i < v->coll.nattrs && !rc; i++)
        if (!done[i] &&
            (acre_collective_attr(&v->coll, i, NULL, NULL, &flags),
             flags & ACRE_COLLATTR_COLLECT) &&
            coll_name(s, v, i, cname, sizeof cname) &&
            !strcasecmp(cname, name)) {
            done[i] = 1;
            if (!s->a.attrsonly) /* -A: one name, the entry's */
                rc = print_coll_attr(s, v, i, cname);
        }
    return rc;
}

/* print_collective -- the readable collective attributes of a verdict
 * not printed with the entry's own (done), after them. */
static int
print_collective(const struct search *s, const acre_verdict *v,
                 const unsigned char *done)
{
    char name[256];
    int rc = 0;

    for (unsigned i = 0; i < v->coll.nattrs && !rc; i++)
        if (!done[i] && coll_name(s, v, i, name, sizeof name))
            rc = print_coll_attr(s, v, i, name);
    return rc;
}

typedef int (*virtual_fn)(acre_request *, const acre_entry_view *,
                          const acre_value **, uint32_t *);

/* print_readable -- computed values vals[0..n) of attribute name of e
 * (not stored: virtual, or Class of Service's) that the requester may
 * read, as `shown` (with -A, the name when read on it is allowed). */
static int
print_readable(const struct search *s, const acre_entry_view *e,
               const char *name, const char *shown, const acre_value *vals,
               uint32_t n)
{
    int rc = 0;

    if (s->a.attrsonly && n) {
        int ok = read_attr(s, e, name);
        return ok < 0 ? -1 : ok ? out_name(shown) : 0;
    }
    for (uint32_t j = 0; j < n && !rc; j++) {
        int ok = acre_access(s->rq, e, name, vals[j].val, vals[j].len,
                             ACRE_RIGHT_READ, NULL);
        if (ok < 0)
            return -1;
        if (ok)
            rc = out_line(s, shown, vals[j].val, vals[j].len);
    }
    return rc;
}

/* print_virtual_as -- the virtual values of attribute name of e the
 * requester may read, from get (acre_entry_ismemberof,
 * acre_entry_memberof, acre_entry_nsrole), when want, shown as `shown`. */
static int
print_virtual_as(const struct search *s, const acre_entry_view *e, int want,
                 const char *name, const char *shown, virtual_fn get)
{
    const acre_value *vals;
    uint32_t n;

    if (!want || get(s->rq, e, &vals, &n))
        return !want ? 0 : -1;
    return print_readable(s, e, name, shown, vals, n);
}

/* print_virtual -- print_virtual_as under the attribute's own name. */
static int
print_virtual(const struct search *s, const acre_entry_view *e, int want,
              const char *name, virtual_fn get)
{
    return print_virtual_as(s, e, want, name, name, get);
}

/* search_wants -- see search.h: does the attribute list ask for name, by name
 * or by all (the meta name "+" or "*"; "*" also by no list)? */
int
search_wants(const struct search *s, const char *name, const char *all)
{
    if (!s->a.nattrs && !strcmp(all, "*"))
        return 1;
    for (unsigned i = 0; i < s->a.nattrs; i++)
        if (!strcmp(s->a.attrs[i], all) || !strcasecmp(s->a.attrs[i], name))
            return 1;
    return 0;
}

/* print_computed -- the operational attributes slapd computes for an
 * entry and sends after its others when the list names them or has "+"
 * (back-mdb and slapd's frontend, checked on slapd 2.5): entryDN (the DN
 * as printed), subschemaSubentry and hasSubordinates.  slapd checks read
 * on such an attribute without a value first, then on its value with the
 * state that check left (ACRE_ACCESS_AFTER_ATTR): the attribute's answer,
 * unless a clause with "self" access was reached (an entryDN naming the
 * requester is then a self value). */
static int
print_computed(const struct search *s, const acre_entry_view *view,
               const acre_entry *e)
{
    static const char *const names[] = {"entryDN", "subschemaSubentry",
                                        "hasSubordinates"};
    int rc = 0;

    for (unsigned k = 0; k < 3 && !rc; k++) {
        char *dn = NULL;
        const char *val = "cn=Subschema";
        int ok;

        if (!search_wants(s, names[k], "+"))
            continue;
        if (k == 0 &&
            !(val = dn = cli_dn_slapd(acre_dn_pretty(acre_entry_dn(e), NULL))))
            return -1;
        if (k == 2) {
            int has = s->host->has_children
                          ? s->host->has_children(s->host->arg, view)
                          : -1;
            if (has < 0)
                continue; /* unknown: not sent */
            val = has ? "TRUE" : "FALSE";
        }
        /* -A: the attribute's check alone; else the value's, which
         * makes the attribute's first */
        ok = s->a.attrsonly
                 ? acre_access(s->rq, view, names[k], NULL, 0, ACRE_RIGHT_READ,
                               NULL)
                 : acre_access(s->rq, view, names[k], val, strlen(val),
                               ACRE_RIGHT_READ | ACRE_ACCESS_AFTER_ATTR, NULL);
        if (ok > 0)
            rc = s->a.attrsonly ? out_name(names[k])
                                : out_line(s, names[k], val, strlen(val));
        free(dn);
        if (ok < 0)
            return -1;
    }
    return rc;
}

/* print_dn -- the entry's DN line: as 389 stores it (--dialect aci:
 * acre_entry_dn_stored), else in slapd's text (cli_dn_slapd). */
static int
print_dn(const struct search *s, const acre_entry *e)
{
    size_t n;
    const char *stored = acre_entry_dn_stored(e, &n);
    if (stored)
        return out_line(s, "dn", stored, n);
    char *dn = cli_dn_slapd(acre_dn_pretty(acre_entry_dn(e), NULL));
    int rc;

    if (!dn)
        return -1;
    rc = out_line(s, "dn", dn, strlen(dn));
    free(dn);
    return rc;
}

/* print_values -- the values of e's attribute i the verdict lets the
 * requester read, as `name`. */
static int
print_values(const struct search *s, const acre_entry *e, const acre_verdict *v,
             unsigned i, const char *name)
{
    unsigned nvals;
    size_t len;
    int rc = 0;

    if (s->a.attrsonly) /* the attribute's check decided (-A) */
        return v->attr[i] != ACRE_ATTR_NONE ? out_name(name) : 0;
    acre_entry_attr(e, i, NULL, &nvals);
    for (unsigned j = 0; j < nvals && !rc; j++) {
        const void *val = acre_entry_value(e, i, j, &len);
        if (v->attr[i] == ACRE_ATTR_ALL || v->value[v->first[i] + j])
            rc = out_line(s, name, val, len);
    }
    return rc;
}

/* ------------------------------------------------------------------------
 * Attributes as 389-DS sends them (--dialect aci, variant 389)
 *
 * 389 (result.c) names an entry's attribute by its type's schema name
 * with the options in lower case, as it stored them.  With "*" (or no
 * list) or "+" it first sends the entry's attributes in their order,
 * leaving out each that some name of the list covers (same type, and at
 * least the attribute's options: "sn;lang-en" covers sn and sn;lang-en).
 * Then, for each name of the list in turn -- normalised: a type's name or
 * OID becomes its schema name, other text is lowercased; repeats dropped;
 * "*" adds "aci" -- the entry's attributes of that type with at least the
 * name's options: the one it names exactly under the name as the client
 * wrote it, the others under their own, except that past the first match
 * those the list names are left to their own turn.  So "* cn" sends
 * cn;lang-fr twice and "* sn;lang-en" sends no sn: as 389 does.  The
 * verdict decides which values the requester reads, as for slapd.
 */

/* opt_in -- does description d[0..n) have option o[0..on) (no case)? */
static int
opt_in(const char *d, size_t n, const char *o, size_t on)
{
    size_t i = strcspn(d, ";");

    while (i < n) {
        size_t j = ++i;
        while (j < n && d[j] != ';')
            j++;
        if (j - i == on && !strncasecmp(d + i, o, on))
            return 1;
        i = j;
    }
    return 0;
}

/* covers -- 389's slapi_attr_type_cmp(a, b, SLAPI_TYPE_CMP_SUBTYPE) == 0:
 * the same type name (no case), and each option of a is one of b's. */
static int
covers(const char *a, const char *b)
{
    size_t an = strlen(a), bn = strlen(b);
    size_t ab = strcspn(a, ";"), i = ab;

    if (ab != strcspn(b, ";") || strncasecmp(a, b, ab))
        return 0;
    while (i < an) {
        size_t j = ++i;
        while (j < an && a[j] != ';')
            j++;
        if (!opt_in(b, bn, a + i, j - i))
            return 0;
        i = j;
    }
    return 1;
}

/* covered -- does a name of the list cover attribute name? */
static int
covered(const struct search *s, const char *name)
{
    for (unsigned r = 0; r < s->nreq389; r++)
        if (covers(name, s->req389[r]))
            return 1;
    return 0;
}

/* listed -- is name itself in the list (no case)? */
static int
listed(const struct search *s, const char *name)
{
    for (unsigned r = 0; r < s->nreq389; r++)
        if (!strcasecmp(name, s->req389[r]))
            return 1;
    return 0;
}

/* named -- does a name of the list cover attribute name the other way
 * (name has at least its options)?  Without "*", an attribute selected
 * for such a name alone is a user attribute (an operational one has no
 * options), which only that name's turn sends. */
static int
named(const struct search *s, const char *name)
{
    for (unsigned r = 0; r < s->nreq389; r++)
        if (covers(s->req389[r], name))
            return 1;
    return 0;
}

/* name_389 -- the name 389 stores attribute i of e under. */
static const char *
name_389(const struct search *s, const acre_entry *e, unsigned i, char *buf,
         size_t size)
{
    size_t dlen;
    const char *desc = acre_entry_attr(e, i, &dlen, NULL);

    return cli_attr_name_389(s->schema, desc, dlen, buf, size);
}

/*
 * 389's Class of Service (acre_entry_cos): an attribute it gives the
 * entry is sent with its values instead of the entry's own (where the
 * entry has some: a definition's override or operational attribute);
 * with "*" or "+" after the entry's own attributes, for each type CoS
 * knows and gives the entry, when no list name covers it -- an
 * operational one only for "+" --; and for a list name that names one,
 * instead of the entry's values of that type and of its subtypes.
 */

/* cos_get -- CoS's values of plain type `name` of the entry, copied
 * (the caller frees *copy): 1, 0 when CoS gives none, -1 when memory ran
 * out; a query that failed otherwise gives 1 and no values. */
static int
cos_get(const struct search *s, const acre_entry_view *view, const char *name,
        acre_value **copy, uint32_t *n, int *op)
{
    const acre_value *vals;
    int rc;

    *copy = NULL;
    *n = 0;
    if (!s->want_cos || strchr(name, ';'))
        return 0;
    rc = acre_entry_cos(s->rq, view, name, &vals, n, op);
    if (rc == ACRE_ERR_NOMEM)
        return -1;
    if (rc < 0) {
        /* fail closed: the attribute is left out, and so are the
         * entry's own values of it, which CoS may have replaced */
        size_t dn_len;
        const char *dn = acre_dn_pretty(view->dn, &dn_len);
        fprintf(stderr,
                "acre search: %.*s: %s from Class of Service left out: %s\n",
                (int)dn_len, dn, name, acre_strerror(rc));
        *n = 0;
        return 1;
    }
    if (!rc)
        return 0;
    /* the values live until the request's next call: acre_access may
     * ask CoS again (a targetfilter on a CoS attribute) */
    size_t bytes = *n * sizeof(**copy);
    for (uint32_t j = 0; j < *n; j++)
        bytes += vals[j].len + 1;
    if (!(*copy = malloc(bytes ? bytes : 1)))
        return -1;
    char *at = (char *)(*copy + *n);
    for (uint32_t j = 0; j < *n; j++) {
        memcpy(at, vals[j].val, vals[j].len);
        (*copy)[j] = (acre_value){.val = at, .len = vals[j].len};
        at += vals[j].len + 1;
    }
    return 1;
}

/* cos_instead -- 1 (after printing CoS's values as `shown`) when CoS
 * gives the entry attribute name, 0 when the entry's own values stand,
 * -1 on error. */
static int
cos_instead(const struct search *s, const acre_entry_view *view,
            const char *name, const char *shown)
{
    acre_value *vals;
    uint32_t n;
    int op, rc = cos_get(s, view, name, &vals, &n, &op);

    if (rc > 0)
        rc = print_readable(s, view, name, shown, vals, n) ? -1 : 1;
    free(vals);
    return rc;
}

/* stores -- does the entry hold an attribute of plain type name? */
static int
stores(const acre_entry *e, unsigned nattrs, const char *name)
{
    for (unsigned i = 0; i < nattrs; i++) {
        size_t dlen;
        const char *d = acre_entry_attr(e, i, &dlen, NULL);
        if (dlen == strlen(name) && !strncasecmp(d, name, dlen))
            return 1;
    }
    return 0;
}

/* cos_all -- the CoS attributes "*" and "+" bring that the entry does not
 * store and no list name covers. */
static int
cos_all(const struct search *s, const acre_entry_view *view, unsigned nattrs)
{
    const char *const *names;
    uint32_t k;
    int rc = 0;

    if (!s->want_cos)
        return 0;
    if ((rc = acre_entry_cos_names(s->rq, &names, &k)) == ACRE_ERR_NOMEM)
        return -1;
    if (rc) { /* the definitions cannot be read: none given */
        fprintf(stderr, "acre search: Class of Service: %s\n",
                acre_strerror(rc));
        return 0;
    }
    for (uint32_t i = 0; i < k && !rc; i++) {
        acre_value *vals;
        uint32_t n;
        int op;
        if (covered(s, names[i]) || stores(view->host_data, nattrs, names[i]))
            continue;
        rc = cos_get(s, view, names[i], &vals, &n, &op);
        if (rc > 0)
            rc = (op ? s->all_op : s->all_user)
                     ? print_readable(s, view, names[i], names[i], vals, n)
                     : 0;
        free(vals);
    }
    return rc;
}

/* asked_virtual -- the virtual attributes of 389 (nsRole) and of
 * --memberof, at list name q spelt `spelt`. */
static int
asked_virtual(const struct search *s, const acre_entry_view *view,
              const char *q, const char *spelt)
{
    if (!strcasecmp(q, "memberOf"))
        return print_virtual_as(s, view, s->want_mo, "memberOf", spelt,
                                acre_entry_memberof);
    if (!strcasecmp(q, "nsRole"))
        return print_virtual_as(s, view, s->want_role, "nsRole", spelt,
                                acre_entry_nsrole);
    return 0;
}

/*
 * The operational attributes 389's back end computes for an entry it
 * sends (ldbm_compute_evaluator and the entrydn one; checked on 389-DS
 * 2.3.1): numSubordinates, "0" on an entry that stores none (one with
 * children stores their number), hasSubordinates, TRUE or FALSE, and
 * entrydn, the DN as 389 stores it in lower case; each when the list
 * names it (by any name, sent under the name as written) and read on it
 * is allowed.  "+" brings entrydn alone of these.
 */

/* computed_389 -- the value 389 computes for the attribute named q of
 * the entry of view, which holds none of it: a constant, or the entrydn
 * text in *owned (malloc'd, the caller frees it); NULL with *len 1 when
 * 389 computes none, with *len 0 when out of memory. */
static const char *
computed_389(const struct search *s, const acre_entry_view *view, const char *q,
             char **owned, size_t *len)
{
    const char *v = NULL;

    *owned = NULL;
    *len = 1;
    if (!strcasecmp(q, "numSubordinates")) {
        v = "0";
    } else if (!strcasecmp(q, "hasSubordinates")) {
        int has = s->host->has_children
                      ? s->host->has_children(s->host->arg, view)
                      : -1;
        v = has < 0 ? NULL : has ? "TRUE" : "FALSE";
    } else if (!strcasecmp(q, "entrydn")) {
        const acre_entry *e = view->host_data;
        size_t n;
        const char *dn = acre_entry_dn_stored(e, &n);
        if (!dn)
            dn = acre_dn_pretty(acre_entry_dn(e), &n);
        *owned =
            (char *)u8_tolower((const uint8_t *)dn, n, NULL, NULL, NULL, len);
        if (!*owned)
            *len = 0;
        return *owned;
    }
    if (v)
        *len = strlen(v);
    return v;
}

/* asked_computed -- computed_389's attribute q, shown as `shown`. */
static int
asked_computed(const struct search *s, const acre_entry_view *view,
               const char *q, const char *shown)
{
    char *owned;
    size_t len;
    const char *val = computed_389(s, view, q, &owned, &len);
    int ok, rc;

    if (!val)
        return len ? 0 : -1;
    ok = acre_access(s->rq, view, q, s->a.attrsonly ? NULL : val,
                     s->a.attrsonly ? 0 : len, ACRE_RIGHT_READ, NULL);
    rc = ok < 0           ? -1
         : !ok            ? 0
         : s->a.attrsonly ? out_name(shown)
                          : out_line(s, shown, val, len);
    free(owned);
    return rc;
}

/* print_389 -- the attributes of the entry of view as 389 sends them. */
static int
print_389(const struct search *s, const acre_entry_view *view,
          const acre_verdict *v, unsigned char *done)
{
    const acre_entry *e = view->host_data;
    char name[256];
    int rc = 0;

    if (s->all_user || s->all_op) {
        for (unsigned i = 0; i < v->nattrs && !rc; i++)
            if (v->attr[i] != ACRE_ATTR_NONE &&
                !covered(s, name_389(s, e, i, name, sizeof name)) &&
                (s->all_user || !named(s, name))) {
                rc = cos_instead(s, view, name, name);
                rc = rc ? (rc < 0 ? rc : 0) : print_values(s, e, v, i, name);
                rc = rc ? rc : print_merged(s, v, name, done);
            }
        rc = rc ? rc : print_collective(s, v, done);
        if (!rc && s->all_user && !covered(s, "memberOf"))
            rc = print_virtual(s, view, s->want_mo, "memberOf",
                               acre_entry_memberof);
        /* entrydn is real in 389 (back-ldbm adds it as it reads the
         * entry); nsRole, virtual, comes after every real attribute,
         * then Class of Service's */
        if (!rc && s->all_op && !covered(s, "entrydn"))
            rc = asked_computed(s, view, "entrydn", "entrydn");
        if (!rc && s->all_op && !covered(s, "nsRole"))
            rc = print_virtual(s, view, s->want_role, "nsRole",
                               acre_entry_nsrole);
        /* CoS's, virtual too: 389's roles plugin lists its type first */
        rc = rc ? rc : cos_all(s, view, v->nattrs);
    }
    for (unsigned r = 0; r < s->nreq389 && !rc; r++) {
        const char *q = s->req389[r];
        unsigned match = 0;
        /* a type CoS gives is sent with CoS's values alone: the entry's
         * own values of it and of its subtypes are not (389 asks the
         * virtual attribute first, for the name as asked) */
        int cos = cos_instead(s, view, q, s->spell389[r]);

        rc = cos < 0 ? cos : 0;
        for (unsigned i = 0; i < v->nattrs && !rc; i++) {
            int exact;

            if (!covers(q, name_389(s, e, i, name, sizeof name)))
                continue;
            exact = !strcasecmp(q, name);
            if (match++ > 0 && !exact && listed(s, name))
                continue;
            if (v->attr[i] != ACRE_ATTR_NONE && !cos)
                rc = print_values(s, e, v, i, exact ? s->spell389[r] : name);
        }
        rc = rc ? rc : asked_virtual(s, view, q, s->spell389[r]);
        if (!rc && !match)
            rc = asked_computed(s, view, q, s->spell389[r]);
    }
    return rc;
}

/* search_free_389 -- see search.h: the normalised list of
 * search_setup_389. */
void
search_free_389(struct search *s)
{
    for (unsigned r = 0; r < s->nreq389; r++)
        free(s->req389[r]);
    free(s->req389);
    free(s->spell389);
    s->req389 = NULL;
    s->spell389 = NULL;
    s->nreq389 = 0;
}

/* norm_389 -- name as 389 normalises a requested name (malloc'd): the
 * schema name of the type it names (a name or OID without options),
 * else the text before any space, lowercased. */
static char *
norm_389(const acre_schema *schema, const char *name)
{
    size_t n = strcspn(name, " ");
    const char *c =
        memchr(name, ';', n) ? NULL : acre_schema_attr_name(schema, name, n);
    char *r = c ? strdup(c) : strndup(name, n);

    for (char *p = r; r && !c && *p; p++)
        *p = (char)tolower((unsigned char)*p);
    return r;
}

/* search_setup_389 -- see search.h: under --dialect aci (389), the attribute
 * list as 389 takes it.  Returns a CLI_EXIT_* code. */
int
search_setup_389(struct search *s)
{
    const char **in = s->a.attrs;
    unsigned n = s->a.nattrs, star = 0, aci = 0;

    s->as389 = s->a.in.dialect == ACRE_DIALECT_ACI && s->a.in.aci_variant != 2;
    s->all_user = !n;
    if (!s->as389 || !n || (n == 1 && !strcmp(in[0], "1.1")))
        return CLI_EXIT_OK;
    for (unsigned i = 0; i < n; i++) {
        star |= !strcmp(in[i], "*");
        s->all_op |= !strcmp(in[i], "+");
        aci |= !strcasecmp(in[i], "aci");
    }
    s->all_user = star;
    s->req389 = calloc(n + 1, sizeof *s->req389);
    s->spell389 = calloc(n + 1, sizeof *s->spell389);
    if (!s->req389 || !s->spell389)
        return CLI_EXIT_USAGE;
    for (unsigned i = 0; i < n + (star && !aci); i++) {
        const char *w = i < n ? in[i] : "aci";
        char *q = norm_389(s->schema, w);

        if (!q)
            return CLI_EXIT_USAGE;
        if (listed(s, q)) {
            free(q);
            continue;
        }
        s->spell389[s->nreq389] = w;
        s->req389[s->nreq389++] = q;
    }
    return CLI_EXIT_OK;
}

/* elapsed -- whole seconds since the current search began. */
static long
elapsed(const struct search *s)
{
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long)(now.tv_sec - s->start.tv_sec);
}

/* search_print_entry -- see search.h: acre_search's callback: the readable part
 * of e, its own attributes in the entry's stored order (each followed by the
 * collective values merged into it), then its other collective ones.
 * Stops the search (returns 1) at an entry past the size limit, or once
 * the time limit has passed. */
int
search_print_entry(void *arg, const acre_entry_view *view,
                   const acre_verdict *v)
{
    struct search *s = arg;
    const acre_entry *e = view->host_data; /* the directory's own entry */
    unsigned char *done;
    char name[256];
    int rc;

    if (s->lim.size >= 0 && s->count >= (unsigned long)s->lim.size) {
        s->exceeded = 4; /* sizeLimitExceeded */
        return 1;
    }
    if (s->lim.time >= 0 && elapsed(s) >= s->lim.time) {
        s->exceeded = 3; /* timeLimitExceeded */
        return 1;
    }
    s->count++;
    if (!(done = calloc(v->coll.nattrs + 1, 1))) {
        s->nomem = 1;
        return -1;
    }
    rc = print_dn(s, e);
    if (s->as389) {
        rc = rc ? rc : print_389(s, view, v, done);
        goto out;
    }
    for (unsigned i = 0; i < v->nattrs && !rc; i++) {
        size_t dlen;
        const char *desc = acre_entry_attr(e, i, &dlen, NULL);
        if (v->attr[i] == ACRE_ATTR_NONE) {
            /* slapo-collect's values went into this attribute: slapd
             * sends those the requester may read where it stands, none
             * of the entry's own being readable (-A asks the attribute
             * alone, as the entry's) */
            if (v->coll.nattrs && !s->a.attrsonly) {
                cli_attr_name(s->schema, desc, dlen, name, sizeof name);
                rc = print_merged(s, v, name, done);
            }
            continue;
        }
        cli_attr_name(s->schema, desc, dlen, name, sizeof name);
        rc = print_values(s, e, v, i, name);
        if (!rc)
            rc = print_merged(s, v, name, done);
    }
    if (!rc)
        rc = print_collective(s, v, done);
    if (!rc) /* memberOf: a user attribute in the built-in schema */
        rc =
            print_virtual(s, view, s->want_mo, "memberOf", acre_entry_memberof);
    if (!rc && s->a.in.dialect != ACRE_DIALECT_ACI)
        rc = print_computed(s, view, e);
    if (!rc) /* isMemberOf: an operational one */
        rc = print_virtual(s, view, s->want_ismo, "isMemberOf",
                           acre_entry_ismemberof);
    if (!rc) /* nsRole: an operational one, of 389's roles */
        rc = print_virtual(s, view, s->want_role, "nsRole", acre_entry_nsrole);
out:
    free(done);
    putchar('\n');
    if (rc)
        s->nomem = 1;
    return rc ? -1 : 0;
}
