/*
 * cmd_search.c -- `acre search`: search an LDIF directory as a requester,
 * under a policy, checked as slapd checks a search (acre_search), and
 * print what the requester would see as LDIF.
 *
 * The policy is attached to the directory's subentries
 * (acre_policy_attach_subentries), so entries show the collective
 * attributes the subentries give them, checked like their own.
 *
 * Output: each returned entry as an LDIF record (its DN in pretty form,
 * its attributes under their schema's canonical names with the options
 * as written, then its collective attributes; a value in base64 exactly
 * where ldapsearch would use it; no line folding), a blank line after
 * each; then "# matched: DN" when the result discloses one; then, always
 * last, "# result: CODE NAME".
 *
 * Exit 0 whenever the search ran, whatever its LDAP result (which is in
 * the last line); 1 for input that does not parse (rules, LDIF, the base,
 * the requester, the filter); 2 for usage and system errors.
 */
#include "cli.h"
#include "load.h"
#include "search_args.h"

#include <acre.h>
#include <stdlib.h>
#include <string.h>

struct search {
    struct cli_search_args a; /* the command line (search_args.h) */
    const acre_schema *schema;
};

/* help_search -- see cli.h: the usage of the command. */
void
help_search(FILE *f)
{
    fprintf(
        f,
        "usage: acre search --policy FILE... --data FILE.ldif... [-D DN]\n"
        "                   -b BASE [-s base|one|sub|children] "
        "[FILTER [ATTR...]]\n"
        "                   [--authc-dn DN] [--auth-method METHOD] "
        "[--ssf [KIND=]N]\n"
        "                   [--peer ADDR] [--sockname ADDR] [--sockurl URL]\n"
        "                   [--domain HOST] [--time TIME] [--subentries]\n"
        "                   [--ismemberof]\n"
        "                   [--collective-stack] [--no-collective-filter]\n"
        "                   [--dialect slapd.conf|cn=config]\n\n"
        "Search the LDIF directory as the requester DN (anonymous without\n"
        "-D; the rootdn of the policy bypasses access control) and print\n"
        "the entries and values the policy lets it read, as LDIF, then\n"
        "'# result: CODE NAME'.  FILTER defaults to (objectClass=*); ATTR\n"
        "is a name, * (user attributes), + (operational ones) or 1.1\n"
        "(none).  --policy and --data repeat; - is standard input.\n"
        "--collective-stack applies the subentries of every enclosing\n"
        "administrative area (ApacheDS, OpenDJ) instead of X.501's rule\n"
        "that a specific area ends the one above it;\n"
        "--no-collective-filter hides collective values from FILTER.\n"
        "--ismemberof gives entries OpenDJ's virtual isMemberOf in\n"
        "filters (FILTER, filter=, specificationFilter).\n"
        "Exit status: 0 the search ran (its LDAP result is in the last\n"
        "line), 1 input errors, 2 usage or system errors.\n");
}

/* ------------------------------------------------------------------------
 * LDIF output
 */

/* needs_base64 -- would ldapsearch write v[0..n) in base64? */
static int
needs_base64(const unsigned char *v, size_t n)
{
    if (n == 0)
        return 0;
    if (v[0] == ' ' || v[0] == ':' || v[0] == '<' || v[n - 1] == ' ')
        return 1;
    for (size_t i = 0; i < n; i++)
        if (v[i] < 0x20 || v[i] >= 0x7f)
            return 1;
    return 0;
}

/* ldif_line -- `name: value`, or `name:: base64` when needed. */
static void
ldif_line(const char *name, const void *val, size_t len)
{
    const unsigned char *v = val;

    fputs(name, stdout);
    if (needs_base64(v, len)) {
        fputs(":: ", stdout);
        cli_base64(stdout, v, len);
    } else {
        fputs(": ", stdout);
        fwrite(v, 1, len, stdout);
    }
    putchar('\n');
}

/* print_collective -- the readable collective attributes of a verdict. */
static void
print_collective(const struct search *s, const acre_verdict *v)
{
    char name[256];

    for (unsigned i = 0; i < v->coll.nattrs; i++) {
        unsigned nvals;
        size_t dlen, len;
        const char *desc =
            acre_collective_attr(&v->coll, i, &dlen, &nvals, NULL);
        if (v->coll_attr[i] == ACRE_ATTR_NONE)
            continue;
        cli_attr_name(s->schema, desc, dlen, name, sizeof name);
        for (unsigned j = 0; j < nvals; j++) {
            const void *val = acre_collective_value(&v->coll, i, j, &len);
            if (v->coll_attr[i] == ACRE_ATTR_ALL ||
                v->coll_value[v->coll_first[i] + j])
                ldif_line(name, val, len);
        }
    }
}

/* print_entry -- acre_search's callback: the readable part of e, its
 * own attributes first, then its collective ones. */
static int
print_entry(void *arg, const acre_entry_view *view, const acre_verdict *v)
{
    const struct search *s = arg;
    const acre_entry *e = view->host_data; /* the directory's own entry */
    const char *dn = acre_dn_pretty(acre_entry_dn(e), NULL);
    char name[256];

    ldif_line("dn", dn, strlen(dn));
    for (unsigned i = 0; i < v->nattrs; i++) {
        unsigned nvals;
        size_t dlen, len;
        const char *desc = acre_entry_attr(e, i, &dlen, &nvals);
        if (v->attr[i] == ACRE_ATTR_NONE)
            continue;
        cli_attr_name(s->schema, desc, dlen, name, sizeof name);
        for (unsigned j = 0; j < nvals; j++) {
            const void *val = acre_entry_value(e, i, j, &len);
            if (v->attr[i] == ACRE_ATTR_ALL || v->value[v->first[i] + j])
                ldif_line(name, val, len);
        }
    }
    print_collective(s, v);
    putchar('\n');
    return 0;
}

static const char *
result_name(int rc)
{
    switch (rc) {
    case 0:
        return "success";
    case 32:
        return "noSuchObject";
    case 34:
        return "invalidDNSyntax";
    case 50:
        return "insufficientAccess";
    case 87:
        return "filterError";
    default:
        return "other";
    }
}

/* ------------------------------------------------------------------------
 * The search
 */

/* check_filter -- the filter acre_search will take (a bare item such as
 * cn=x gets its parentheses, as ldapsearch's library does), checked. */
static int
check_filter(struct search *s, char **owned)
{
    const char *f = s->a.filter ? s->a.filter : "(objectClass=*)";
    int wrapped = f[0] != '(';
    acre_diag d;

    if (wrapped) {
        size_t n = strlen(f);
        if (!(*owned = malloc(n + 3)))
            return CLI_EXIT_USAGE;
        sprintf(*owned, "(%s)", f);
        f = *owned;
    }
    s->a.filter = f;
    memset(&d, 0, sizeof d);
    if (acre_filter_check(s->schema, f, strlen(f), &d) == 0)
        return CLI_EXIT_OK;
    d.file = NULL;
    d.line = 1;
    d.column = d.column > (unsigned)wrapped ? d.column - (unsigned)wrapped : 1;
    cli_diag_print(&d, "filter");
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

static int
run_search(struct search *s, acre_policy *p, const acre_directory *dir)
{
    acre_request *rq;
    const char *matched = NULL;
    char *owned = NULL;
    int rc, ldap_rc = 0;

    s->schema = acre_policy_schema(p);
    if ((rc = cli_dn_check(s->schema, "-b", s->a.base)) ||
        (rc = check_filter(s, &owned)) ||
        (rc = cli_request(&s->a.who, p, dir, &rq))) {
        free(owned);
        return rc;
    }
    rc = acre_search(rq, s->a.base, s->a.scope, s->a.filter, s->a.attrs,
                     s->a.nattrs, print_entry, s, &ldap_rc, &matched);
    if (rc) {
        fprintf(stderr, "acre search: %s\n", acre_strerror(rc));
        rc = CLI_EXIT_USAGE;
    } else {
        if (matched)
            printf("# matched: %s\n", matched);
        printf("# result: %d %s\n", ldap_rc, result_name(ldap_rc));
    }
    acre_request_end(rq);
    free(owned);
    return rc;
}

/* cmd_search -- see cli.h: run the command; returns its exit status. */
int
cmd_search(int argc, char **argv)
{
    struct search s;
    acre_policy *p = NULL, *ap = NULL;
    acre_directory *dir = NULL;
    int rc;

    memset(&s, 0, sizeof s);
    if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        help_search(stdout);
        return CLI_EXIT_OK;
    }
    if (!(rc = cli_search_args_parse(&s.a, argc, argv)) &&
        !(rc = cli_policy_load(&s.a.in, &p)) &&
        !(rc = cli_data_load(&s.a.in, p, &dir)) &&
        !(rc = attach(p, dir, s.a.coll_flags, &ap)))
        rc = run_search(&s, ap, dir);
    if (fflush(stdout) && !rc) {
        perror("acre search: standard output");
        rc = CLI_EXIT_USAGE;
    }
    acre_policy_release(ap); /* before the directory it points into */
    acre_directory_free(dir);
    acre_policy_release(p);
    cli_search_args_free(&s.a);
    return rc;
}
