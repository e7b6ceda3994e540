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

#include <acre.h>
#include <stdlib.h>
#include <string.h>

struct search {
    struct cli_inputs in;
    struct cli_who who;
    const char *base;
    int scope;
    const char *filter;
    const char **attrs;
    unsigned nattrs;
    unsigned coll_flags; /* ACRE_COLL_*: --collective-stack, ... */
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
 * Arguments
 */

static int
scope_of(const char *s)
{
    if (!strcmp(s, "base"))
        return ACRE_SCOPE_BASE;
    if (!strcmp(s, "one") || !strcmp(s, "onelevel"))
        return ACRE_SCOPE_ONE;
    if (!strcmp(s, "sub") || !strcmp(s, "subtree"))
        return ACRE_SCOPE_SUB;
    if (!strcmp(s, "children"))
        return ACRE_SCOPE_CHILDREN;
    return -1;
}

/* option -- argv[*i], an option of search: 1 taken, -1 bad (told). */
static int
option(struct search *s, int argc, char **argv, int *i)
{
    const char *v;
    int r, bad = 0;

    if ((r = cli_inputs_option(&s->in, argc, argv, i)) ||
        (r = cli_who_option(&s->who, argc, argv, i)))
        return r;
    if (!strcmp(argv[*i], "--collective-stack")) {
        s->coll_flags |= ACRE_COLL_STACK;
        return 1;
    }
    if (!strcmp(argv[*i], "--no-collective-filter")) {
        s->coll_flags |= ACRE_COLL_NO_FILTER;
        return 1;
    }
    if ((v = cli_opt("search", argc, argv, i, "-b", &bad))) {
        s->base = v;
        return 1;
    }
    if (!bad && (v = cli_opt("search", argc, argv, i, "-s", &bad))) {
        if ((s->scope = scope_of(v)) >= 0)
            return 1;
        fprintf(stderr,
                "acre search: unknown scope '%s' (base, one, sub, "
                "children)\n",
                v);
        return -1;
    }
    if (!bad)
        fprintf(stderr,
                "acre search: unknown option '%s' (see 'acre help "
                "search')\n",
                argv[*i]);
    return -1;
}

/* positional -- FILTER first, then ATTRs. */
static int
positional(struct search *s, const char *a)
{
    const char **na;

    if (!s->filter) {
        s->filter = a;
        return 0;
    }
    if (!(na = realloc(s->attrs, (s->nattrs + 1) * sizeof(*na))))
        return -1;
    na[s->nattrs++] = a;
    s->attrs = na;
    return 0;
}

static int
parse(struct search *s, int argc, char **argv)
{
    int ended = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!ended && !strcmp(a, "--")) {
            ended = 1;
        } else if (!ended && a[0] == '-' && a[1]) {
            if (option(s, argc, argv, &i) < 0)
                return CLI_EXIT_USAGE;
        } else if (positional(s, a)) {
            fprintf(stderr, "acre search: out of memory\n");
            return CLI_EXIT_USAGE;
        }
    }
    if (!s->base || !s->in.npolicy || !s->in.ndata) {
        fprintf(stderr,
                "acre search: %s is required (see 'acre help "
                "search')\n",
                !s->in.npolicy ? "--policy"
                : !s->in.ndata ? "--data"
                               : "-b");
        return CLI_EXIT_USAGE;
    }
    return CLI_EXIT_OK;
}

/* ------------------------------------------------------------------------
 * The search
 */

/* check_filter -- the filter acre_search will take (a bare item such as
 * cn=x gets its parentheses, as ldapsearch's library does), checked. */
static int
check_filter(struct search *s, char **owned)
{
    const char *f = s->filter ? s->filter : "(objectClass=*)";
    int wrapped = f[0] != '(';
    acre_diag d;

    if (wrapped) {
        size_t n = strlen(f);
        if (!(*owned = malloc(n + 3)))
            return CLI_EXIT_USAGE;
        sprintf(*owned, "(%s)", f);
        f = *owned;
    }
    s->filter = f;
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
    if ((rc = cli_dn_check(s->schema, "-b", s->base)) ||
        (rc = check_filter(s, &owned)) ||
        (rc = cli_request(&s->who, p, dir, &rq))) {
        free(owned);
        return rc;
    }
    rc = acre_search(rq, s->base, s->scope, s->filter, s->attrs, s->nattrs,
                     print_entry, s, &ldap_rc, &matched);
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
    s.in.cmd = s.who.cmd = "search";
    s.scope = ACRE_SCOPE_SUB;
    if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        help_search(stdout);
        return CLI_EXIT_OK;
    }
    if (!(rc = parse(&s, argc, argv)) && !(rc = cli_policy_load(&s.in, &p)) &&
        !(rc = cli_data_load(&s.in, p, &dir)) &&
        !(rc = attach(p, dir, s.coll_flags, &ap)))
        rc = run_search(&s, ap, dir);
    if (fflush(stdout) && !rc) {
        perror("acre search: standard output");
        rc = CLI_EXIT_USAGE;
    }
    acre_policy_release(ap); /* before the directory it points into */
    acre_directory_free(dir);
    acre_policy_release(p);
    cli_inputs_free(&s.in);
    free(s.attrs);
    return rc;
}
