/*
 * cmd_search.c -- `acre search`: search an LDIF directory as a requester,
 * under a policy, checked as slapd checks a search (acre_search), and
 * print what the requester would see as ldapsearch -LLL prints it.
 *
 * The policy is attached to the directory's subentries
 * (acre_policy_attach_subentries), so entries show the collective
 * attributes the subentries give them, checked like their own.
 *
 * Output: each returned entry as an LDIF record, byte for byte as
 * ldapsearch -LLL prints slapd's answer (ldif_out.h: the DN in slapd's
 * text, attributes in the entry's stored order under their schema's
 * canonical names with the options lowercased and sorted, then its
 * collective attributes; base64 and line folding as ldapsearch's; with
 * --dialect aci, as 389 sends them: print_389), a blank line
 * after each; then "# matched: DN" when the result discloses one; then,
 * always last, "# result: CODE NAME".  A search stops at the size or
 * time limit slapd would put on it (result 4 or 3): what -z and -l ask,
 * granted as the searched database's limits say (acre_search_limits;
 * slapd's default of 500 entries for anyone but the rootdn); -f runs one
 * search per line of a file, a blank line between them, as ldapsearch.
 *
 * Exit status as ldapsearch: the LDAP result of the (last) search; 200
 * for input that does not parse (rules, LDIF, the base, the requester,
 * the filter), 201 for usage and system errors (cli.h).
 */
#include "cli.h"
#include "ldif_out.h"
#include "load.h"
#include "search_args.h"

#include <acre.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

struct search {
    struct cli_search_args a; /* the command line (search_args.h) */
    const acre_schema *schema;
    acre_limits lim;       /* in force (acre_search_limits) */
    unsigned long count;   /* entries the current search returned */
    int exceeded;          /* it stopped at a limit: 4 size, 3 time */
    struct timespec start; /* when it began (-l) */
    int nomem;             /* printing ran out of memory */
    unsigned line;         /* -f: the line being searched, from 1 */
    acre_request *rq;      /* the current search's */
    int want_ismo;         /* --ismemberof and isMemberOf or + asked */
    int want_mo;           /* --memberof and memberOf, * or no list */
    int want_role;         /* 389's nsRole (aci) and nsRole or + asked */
    const acre_host *host; /* the directory's lookups */
    int as389;             /* attributes named and ordered as 389 sends them */
    char **req389;         /* as389: the names asked for, normalised as 389
                              does, without repeats (NULL: no list) */
    const char **spell389; /* [i]: req389[i] as the client wrote it */
    unsigned nreq389;
    int all_user, all_op; /* as389: "*" (or no list), "+" asked */
};

/* help_search -- see cli.h: the usage of the command. */
void
help_search(FILE *f)
{
    fprintf(
        f,
        "usage: acre search --policy FILE... --data FILE.ldif... [-D DN]\n"
        "                   -b BASE [-s base|one|sub|children] [-z N] "
        "[-l N]\n"
        "                   [-o ldif-wrap=N|no] [-f FILE] "
        "[FILTER [ATTR...]]\n"
        "                   [--authc-dn DN] [--auth-method METHOD] "
        "[--ssf [KIND=]N]\n"
        "                   [--peer ADDR] [--sockname ADDR] [--sockurl URL]\n"
        "                   [--domain HOST] [--time TIME] [--subentries]\n"
        "                   [--ismemberof] [--memberof]\n"
        "                   [--collective-stack] [--no-collective-filter]\n"
        "                   [--strict]\n"
        "                   [--dialect slapd.conf|cn=config|aci]\n"
        "                   [--aci-variant 389|opendj]\n\n"
        "Search the LDIF directory as the requester DN (anonymous without\n"
        "-D; the rootdn of the policy bypasses access control) and print\n"
        "the entries and values the policy lets it read as ldapsearch -LLL\n"
        "prints them, then '# result: CODE NAME'.  FILTER (the first\n"
        "argument when it starts with ( or holds =) defaults to\n"
        "(objectClass=*); ATTR is a name, * (user attributes), + (operational\n"
        "ones) or 1.1 (none).  --policy and --data repeat; - is standard\n"
        "input.  -z and -l are size and time limits (0, none: none), -o\n"
        "ldif-wrap folds lines (default 78), -f runs one search per line of\n"
        "FILE, put in FILTER's %%s, as ldapsearch does.\n"
        "--strict refuses equal values of one attribute in the data, as\n"
        "an LDAP add does (slapadd and acre keep them).\n"
        "--collective-stack applies the subentries of every enclosing\n"
        "administrative area (ApacheDS, OpenDJ) instead of X.501's rule\n"
        "that a specific area ends the one above it;\n"
        "--no-collective-filter hides collective values from FILTER.\n"
        "--ismemberof gives entries OpenDJ's virtual isMemberOf in\n"
        "filters (FILTER, filter=, specificationFilter) and output;\n"
        "--memberof gives those that store no memberOf the one 389's\n"
        "memberOf plugin would have written (static groups, nested).\n"
        "--dialect aci takes the rules from the aci values of the data\n"
        "(and of --policy LDIF files, then optional) as 389-DS decides\n"
        "them (--aci-variant opendj: as OpenDJ); cn=Directory Manager\n"
        "bypasses them.\n"
        "Exit status: the search's LDAP result code (0 success, 4\n"
        "sizeLimitExceeded, 32 noSuchObject, ...), 200 input errors, 201\n"
        "usage or system errors.\n");
}

/* ------------------------------------------------------------------------
 * LDIF output (ldif_out.h)
 */

/* out_line -- one `name: value` line as ldapsearch prints it. */
static int
out_line(const struct search *s, const char *name, const void *val, size_t len)
{
    return cli_ldif_line(stdout, s->a.wrap, name, val, len);
}

/* print_coll_attr -- the readable values of collective attribute i. */
static int
print_coll_attr(const struct search *s, const acre_verdict *v, unsigned i,
                const char *name)
{
    unsigned nvals;
    size_t len;
    int rc = 0;

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

/* print_virtual_as -- the virtual values of attribute name of e the
 * requester may read, from get (acre_entry_ismemberof,
 * acre_entry_memberof, acre_entry_nsrole), when want, shown as `shown`. */
static int
print_virtual_as(const struct search *s, const acre_entry_view *e, int want,
                 const char *name, const char *shown, virtual_fn get)
{
    const acre_value *vals;
    uint32_t n;
    int rc = 0;

    if (!want || get(s->rq, e, &vals, &n))
        return !want ? 0 : -1;
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

/* print_virtual -- print_virtual_as under the attribute's own name. */
static int
print_virtual(const struct search *s, const acre_entry_view *e, int want,
              const char *name, virtual_fn get)
{
    return print_virtual_as(s, e, want, name, name, get);
}

/* wants -- does the attribute list ask for name, by name or by all (the
 * meta name "+" or "*"; "*" also by no list)? */
static int
wants(const struct search *s, const char *name, const char *all)
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
 * on such an attribute without a value first, and its access state then
 * answers each value the same (a val= rule never applies there), so the
 * attribute's check decides. */
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

        if (!wants(s, names[k], "+"))
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
        ok = acre_access(s->rq, view, names[k], NULL, 0, ACRE_RIGHT_READ, NULL);
        if (ok > 0)
            rc = out_line(s, names[k], val, strlen(val));
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

/* name_389 -- the name 389 stores attribute i of e under. */
static const char *
name_389(const struct search *s, const acre_entry *e, unsigned i, char *buf,
         size_t size)
{
    size_t dlen;
    const char *desc = acre_entry_attr(e, i, &dlen, NULL);

    return cli_attr_name_389(s->schema, desc, dlen, buf, size);
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
                !covered(s, name_389(s, e, i, name, sizeof name))) {
                rc = print_values(s, e, v, i, name);
                rc = rc ? rc : print_merged(s, v, name, done);
            }
        rc = rc ? rc : print_collective(s, v, done);
        if (!rc && s->all_user && !covered(s, "memberOf"))
            rc = print_virtual(s, view, s->want_mo, "memberOf",
                               acre_entry_memberof);
        if (!rc && s->all_op && !covered(s, "nsRole"))
            rc = print_virtual(s, view, s->want_role, "nsRole",
                               acre_entry_nsrole);
    }
    for (unsigned r = 0; r < s->nreq389 && !rc; r++) {
        const char *q = s->req389[r];
        unsigned match = 0;

        for (unsigned i = 0; i < v->nattrs && !rc; i++) {
            int exact;

            if (!covers(q, name_389(s, e, i, name, sizeof name)))
                continue;
            exact = !strcasecmp(q, name);
            if (match++ > 0 && !exact && listed(s, name))
                continue;
            if (v->attr[i] != ACRE_ATTR_NONE)
                rc = print_values(s, e, v, i, exact ? s->spell389[r] : name);
        }
        rc = rc ? rc : asked_virtual(s, view, q, s->spell389[r]);
    }
    return rc;
}

/* free_389 -- the normalised list of setup_389. */
static void
free_389(struct search *s)
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

/* setup_389 -- under --dialect aci (389), the attribute list as 389 takes
 * it.  Returns a CLI_EXIT_* code. */
static int
setup_389(struct search *s)
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

/* print_entry -- acre_search's callback: the readable part of e, its
 * own attributes in the entry's stored order (each followed by the
 * collective values merged into it), then its other collective ones.
 * Stops the search (returns 1) at an entry past the size limit, or once
 * the time limit has passed. */
static int
print_entry(void *arg, const acre_entry_view *view, const acre_verdict *v)
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
        if (v->attr[i] == ACRE_ATTR_NONE)
            continue;
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

static const char *
result_name(int rc)
{
    switch (rc) {
    case 0:
        return "success";
    case 2:
        return "protocolError";
    case 3:
        return "timeLimitExceeded";
    case 4:
        return "sizeLimitExceeded";
    case 32:
        return "noSuchObject";
    case 11:
        return "adminLimitExceeded";
    case 34:
        return "invalidDNSyntax";
    case 50:
        return "insufficientAccess";
    case 53:
        return "unwillingToPerform";
    case 87:
        return "filterError";
    default:
        return "other";
    }
}

/* ------------------------------------------------------------------------
 * The search
 */

/* check_filter -- f as acre_search will take it (a bare item such as
 * cn=x gets its parentheses, as ldapsearch's library does), checked;
 * *out is f or *owned.  `where` names the filter in messages. */
static int
check_filter(const struct search *s, const char *f, const char *where,
             const char **out, char **owned)
{
    int wrapped = f[0] != '(';
    acre_diag d;

    if (wrapped) {
        size_t n = strlen(f);
        if (!(*owned = malloc(n + 3)))
            return CLI_EXIT_USAGE;
        sprintf(*owned, "(%s)", f);
        f = *owned;
    }
    *out = f;
    memset(&d, 0, sizeof d);
    if (acre_filter_check(s->schema, f, strlen(f), &d) == 0)
        return CLI_EXIT_OK;
    d.file = NULL;
    d.line = s->line ? s->line : 1;
    d.column = d.column > (unsigned)wrapped ? d.column - (unsigned)wrapped : 1;
    cli_diag_print(&d, where);
    return CLI_EXIT_INPUT;
}

/* attach -- rules with the directory's subentries in its index, so that
 * entries show their collective attributes (flags: ACRE_COLL_*); a
 * subtreeSpecification that does not parse is printed as a warning. */
static int
attach(acre_policy *rules, const acre_directory *dir, unsigned flags,
       acre_policy **out)
{
    acre_diag d;
    int rc;

    memset(&d, 0, sizeof d);
    if ((rc =
             acre_policy_attach_subentries(NULL, rules, dir, flags, out, &d))) {
        fprintf(stderr, "acre search: %s\n",
                d.message[0] ? d.message : acre_strerror(rc));
        return CLI_EXIT_USAGE;
    }
    if (d.code)
        cli_diag_warn(&d, NULL);
    return CLI_EXIT_OK;
}

/* one_search -- the search with filter f (not yet checked); *ldap_rc gets
 * its LDAP result.  Prints the entries, then the matched DN and result
 * lines.  Returns a CLI_EXIT_* code. */
static int
one_search(struct search *s, acre_request *rq, const char *f, int *ldap_rc)
{
    const char *filter, *matched = NULL;
    char *owned = NULL, *mdn;
    int rc;

    rc = check_filter(s, f, s->a.file ? s->a.file : "filter", &filter, &owned);
    if (rc) {
        free(owned);
        return rc;
    }
    s->count = 0;
    s->exceeded = 0;
    s->rq = rq;
    s->want_ismo = s->a.who.ismemberof && wants(s, "isMemberOf", "+");
    s->want_mo = s->a.who.memberof && wants(s, "memberOf", "*");
    s->want_role = s->a.who.nsrole && wants(s, "nsRole", "+");
    clock_gettime(CLOCK_MONOTONIC, &s->start);
    rc = acre_search(rq, s->a.base, s->a.scope, filter, s->a.attrs, s->a.nattrs,
                     print_entry, s, ldap_rc, &matched);
    free(owned);
    if (rc || s->nomem) {
        fprintf(stderr, "acre search: %s\n",
                acre_strerror(rc ? rc : ACRE_ERR_NOMEM));
        return CLI_EXIT_USAGE;
    }
    if (s->exceeded)
        *ldap_rc = s->exceeded; /* after the entries within the limit */
    if (matched) {
        if (!(mdn = cli_dn_slapd(matched)))
            return CLI_EXIT_USAGE;
        printf("# matched: %s\n", mdn);
        free(mdn);
    }
    printf("# result: %d %s\n", *ldap_rc, result_name(*ldap_rc));
    return CLI_EXIT_OK;
}

/* pattern_ok -- ldapsearch's rule for a -f filter pattern: no '%' but
 * one "%s" at most. */
static int
pattern_ok(const char *p)
{
    const char *q = strchr(p, '%');

    return !q || (q[1] == 's' && !strchr(q + 2, '%'));
}

/* line_filter -- the pattern with its "%s" replaced by line (malloc'd);
 * the pattern itself when it has none. */
static char *
line_filter(const char *pat, const char *line)
{
    const char *q = strstr(pat, "%s");
    size_t n = strlen(pat) + strlen(line) + 1;
    char *f = malloc(n);

    if (f && q)
        snprintf(f, n, "%.*s%s%s", (int)(q - pat), pat, line, q + 2);
    else if (f)
        snprintf(f, n, "%s", pat);
    return f;
}

/* file_searches -- -f: one search per line of the file, the line put in
 * the filter pattern; a blank line between searches; the first search
 * whose result is not success ends the run, as in ldapsearch. */
static int
file_searches(struct search *s, acre_policy *p, const acre_directory *dir,
              int *ldap_rc)
{
    acre_request *rq;
    const char *pat = s->a.filter ? s->a.filter : "(objectclass=*)";
    int is_stdin = !strcmp(s->a.file, "-"), rc = CLI_EXIT_OK;
    FILE *fp = is_stdin ? stdin : fopen(s->a.file, "r");
    char *line = NULL, *f;
    size_t cap = 0;
    ssize_t n;

    if (!fp) {
        perror(s->a.file);
        return CLI_EXIT_USAGE;
    }
    while (!rc && !*ldap_rc && (n = getline(&line, &cap, fp)) >= 0) {
        if (n > 0)
            line[n - 1] = '\0'; /* ldapsearch drops the last byte */
        if (s->line++)
            putchar('\n');
        if (!(f = line_filter(pat, line))) {
            rc = CLI_EXIT_USAGE;
            break;
        }
        /* each line is an operation of its own, as ldapsearch -f makes
         * it (ACI results are kept per operation) */
        if (!(rc = cli_request(&s->a.who, p, dir, &rq))) {
            rc = one_search(s, rq, f, ldap_rc);
            acre_request_end(rq);
        }
        free(f);
    }
    if (!rc && ferror(fp)) {
        perror(s->a.file);
        rc = CLI_EXIT_USAGE;
    }
    free(line);
    if (!is_stdin)
        fclose(fp);
    return rc;
}

static void
root_step(void *arg, const acre_explain_step *st)
{
    if (st->kind == ACRE_EXPLAIN_ROOTDN)
        *(int *)arg = 1;
}

/* is_rootdn -- is the requester the rootdn of the database that holds the
 * search base?  (What a check of the base entry says; 0 when the base
 * has no entry.) */
static int
is_rootdn(const struct search *s, acre_request *rq, const acre_directory *dir)
{
    const acre_entry *e;
    acre_dn *base = NULL;
    int root = 0;

    if (acre_dn_parse(NULL, s->schema, s->a.base, strlen(s->a.base), 0, &base,
                      NULL))
        return 0;
    if ((e = acre_directory_find(dir, base)))
        acre_explain_steps(rq, acre_entry_view_of(e), "entry", NULL, 0,
                           ACRE_RIGHT_READ, root_step, &root, NULL);
    acre_dn_free(base);
    return root;
}

/* aci_rootdn -- under --dialect aci, is dn 389's Directory Manager? */
static int
aci_rootdn(const struct search *s, const acre_dn *dn)
{
    static const char root[] = "cn=Directory Manager";
    acre_dn *r = NULL;
    int is;

    if (s->a.in.dialect != ACRE_DIALECT_ACI ||
        acre_dn_parse(NULL, s->schema, root, sizeof root - 1, 0, &r, NULL))
        return 0;
    is = acre_dn_equal(dn, r);
    acre_dn_free(r);
    return is;
}

/* warn_unknown_user -- a -D that names no entry of the data: slapd takes
 * it as a user it does not know (no group, no self); say so, as it is
 * most often a typo.  Not for the rootdn, which needs no entry. */
static void
warn_unknown_user(const struct search *s, acre_request *rq,
                  const acre_directory *dir)
{
    const char *who = s->a.who.authz_dn;
    acre_dn *dn = NULL;

    if (!who || !*who ||
        acre_dn_parse(NULL, s->schema, who, strlen(who), 0, &dn, NULL))
        return;
    if (!acre_directory_find(dir, dn) && !is_rootdn(s, rq, dir) &&
        !aci_rootdn(s, dn))
        fprintf(stderr,
                "acre search: warning: -D '%s' names no entry of the data "
                "(to slapd, a user it does not know)\n",
                who);
    acre_dn_free(dn);
}

/* inactivated -- does 389 refuse the bind of -D because its entry is an
 * inactivated account (the first nsAccountLock value is "true", in any
 * case: slapi_check_account_lock)?  Then the search never runs and
 * ldapsearch exits with 53. */
static int
inactivated(const struct search *s, const acre_directory *dir)
{
    const char *who = s->a.who.authz_dn;
    const acre_entry *e;
    acre_dn *dn = NULL;
    size_t len;
    unsigned nvals;

    if (!s->as389 || !who || !*who ||
        acre_dn_parse(NULL, s->schema, who, strlen(who), 0, &dn, NULL))
        return 0;
    e = acre_directory_find(dir, dn);
    acre_dn_free(dn);
    for (unsigned i = 0; e && i < acre_entry_nattrs(e); i++) {
        const char *desc = acre_entry_attr(e, i, NULL, &nvals);
        const char *v = acre_entry_value(e, i, 0, &len);
        if (!strcasecmp(desc, "nsAccountLock"))
            return nvals > 0 && len == 4 && !strncasecmp(v, "true", 4);
    }
    return 0;
}

/* in_force -- the size and time limits slapd would apply to the search
 * (acre_search_limits: the base's database, the requester, -z and -l)
 * into s->lim; *ldap_rc 11 (printed) when they refuse the search.
 * Returns a CLI_EXIT_* code. */
static int
in_force(struct search *s, acre_request *rq, int *ldap_rc)
{
    acre_limits asked = {s->a.sizelimit, s->a.timelimit};
    acre_dn *base = NULL;
    int rc;

    if (asked.size == CLI_LIMIT_MAX)
        asked.size = ACRE_LIMIT_MAX;
    if (asked.time == CLI_LIMIT_MAX)
        asked.time = ACRE_LIMIT_MAX;
    rc = acre_dn_parse(NULL, s->schema, s->a.base, strlen(s->a.base), 0, &base,
                       NULL);
    if (!rc && (rc = acre_search_limits(rq, base, &asked, &s->lim)) ==
                   ACRE_ERR_ADMIN_LIMIT) {
        *ldap_rc = 11; /* adminLimitExceeded, before any entry */
        printf("# result: %d %s\n", *ldap_rc, result_name(*ldap_rc));
        rc = 0;
    } else if (rc)
        fprintf(stderr, "acre search: the search's limits: %s\n",
                acre_strerror(rc));
    acre_dn_free(base);
    return rc ? CLI_EXIT_USAGE : CLI_EXIT_OK;
}

static int
run_search_(struct search *s, acre_policy *p, const acre_directory *dir,
            int *ldap_rc)
{
    acre_request *rq;
    int rc;

    s->schema = acre_policy_schema(p);
    /* slapd refuses a bind DN it cannot normalise, as a search base */
    s->a.who.dn_flags = s->a.in.dialect == ACRE_DIALECT_ACI ? 0 : ACRE_DN_SLAPD;
    s->a.who.nsrole =
        s->a.in.dialect == ACRE_DIALECT_ACI && s->a.in.aci_variant != 2;
    s->host = acre_directory_host(dir);
    if ((rc = setup_389(s)))
        return rc;
    if (s->a.file && !pattern_ok(s->a.filter ? s->a.filter : "")) {
        fprintf(stderr, "acre search: bad filter pattern '%s'\n", s->a.filter);
        return CLI_EXIT_USAGE;
    }
    if ((rc = cli_dn_check(s->schema, "-b", s->a.base, 0)) ||
        (rc = cli_request(&s->a.who, p, dir, &rq)))
        return rc;
    warn_unknown_user(s, rq, dir);
    if (inactivated(s, dir)) {
        *ldap_rc = 53;
        fprintf(stderr, "acre search: the bind of -D is refused: Account "
                        "inactivated. Contact system administrator.\n");
        printf("# result: %d %s\n", *ldap_rc, result_name(*ldap_rc));
        acre_request_end(rq);
        return CLI_EXIT_OK;
    }
    if ((rc = in_force(s, rq, ldap_rc)) || *ldap_rc) {
        acre_request_end(rq);
        return rc;
    }
    if (s->a.file) {
        acre_request_end(rq);
        return file_searches(s, p, dir, ldap_rc);
    }
    rc = one_search(s, rq, s->a.filter ? s->a.filter : "(objectClass=*)",
                    ldap_rc);
    acre_request_end(rq);
    return rc;
}

static int
run_search(struct search *s, acre_policy *p, const acre_directory *dir,
           int *ldap_rc)
{
    int rc = run_search_(s, p, dir, ldap_rc);

    free_389(s);
    return rc;
}

/* exit_code -- the command's exit status: the search's LDAP result, or
 * one of the codes no result takes for input and usage errors. */
static int
exit_code(int rc, int ldap_rc)
{
    if (rc == CLI_EXIT_INPUT)
        return CLI_SEARCH_EXIT_INPUT;
    if (rc)
        return CLI_SEARCH_EXIT_USAGE;
    return ldap_rc;
}

/* cmd_search -- see cli.h: run the command; returns its exit status. */
int
cmd_search(int argc, char **argv)
{
    struct search s;
    acre_policy *p = NULL, *ap = NULL;
    acre_directory *dir = NULL;
    int rc, ldap_rc = 0;

    memset(&s, 0, sizeof s);
    if (!(rc = cli_search_args_parse(&s.a, argc, argv)) &&
        !(rc = cli_policy_load(&s.a.in, &p)) &&
        !(rc = cli_data_load(&s.a.in, p, &dir)) &&
        !(rc = attach(p, dir, s.a.coll_flags, &ap)))
        rc = run_search(&s, ap, dir, &ldap_rc);
    if (fflush(stdout) && !rc) {
        perror("acre search: standard output");
        rc = CLI_EXIT_USAGE;
    }
    acre_policy_release(ap); /* before the directory it points into */
    acre_directory_free(dir);
    acre_policy_release(p);
    cli_search_args_free(&s.a);
    return exit_code(rc, ldap_rc);
}
