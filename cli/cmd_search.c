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
 * ldapsearch -LLL prints slapd's (or 389's) answer (search_print.c), a
 * blank line after each; then "# matched: DN" when the result discloses one;
 * then, always last, "# result: CODE NAME".  A search stops at the size or time
 * limit slapd would put on it (result 4 or 3): what -z and -l ask, granted as
 * the searched database's limits say (acre_search_limits; slapd's default of
 * 500 entries for anyone but the rootdn); -f runs one search per line of a
 * file, a blank line between them, as ldapsearch.
 *
 * Exit status as ldapsearch: the LDAP result of the (last) search (34
 * for a base that is not a DN, as slapd answers); 200 for input that does
 * not parse (rules, LDIF, the requester, the filter), 201 for usage and
 * system errors (cli.h).
 */
#include "cli.h"
#include "ldif_out.h"
#include "load.h"
#include "search.h"
#include "search_args.h"

#include <acre.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* help_search -- see cli.h: the usage of the command. */
void
help_search(FILE *f)
{
    fprintf(
        f,
        "usage: acre search --policy FILE... --data FILE.ldif... [-D DN]\n"
        "                   -b BASE [-s base|one|sub|children] [-z N] "
        "[-l N]\n"
        "                   [-o ldif-wrap=N|no] [-f FILE] [-A] "
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
        "FILE, put in FILTER's %%s, as ldapsearch does; -A prints\n"
        "attribute names only, each the requester may read as a whole.\n"
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
    case 12:
        return "unavailableCriticalExtension";
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
    s->want_ismo = s->a.who.ismemberof && search_wants(s, "isMemberOf", "+");
    s->want_mo = s->a.who.memberof && search_wants(s, "memberOf", "*");
    s->want_role = s->a.who.nsrole && search_wants(s, "nsRole", "+");
    s->want_cos = s->a.who.nsrole;
    clock_gettime(CLOCK_MONOTONIC, &s->start);
    rc = acre_search(rq, s->a.base, s->a.scope, filter, s->a.attrs, s->a.nattrs,
                     search_print_entry, s, ldap_rc, &matched);
    free(owned);
    if (rc == ACRE_ERR_UNSUPPORTED) {
        fprintf(stderr, "acre search: size.unchecked: back-mdb counts this "
                        "filter's candidates with index keys acre does not "
                        "reproduce (a rule whose keys are not its values, or "
                        "an integer past 8 digits or a time before 1970 in an "
                        "inequality, on an indexed attribute)\n");
        return CLI_EXIT_USAGE;
    }
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
        if (!(rc = cli_request(&s->a.who, p, acre_directory_host(dir), &rq))) {
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
    /* the DN bound: --authc-dn under proxied authorization */
    const char *who = s->a.who.authc_dn ? s->a.who.authc_dn : s->a.who.authz_dn;
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
    acre_limits asked = {s->a.sizelimit, s->a.timelimit, ACRE_LIMIT_NONE};
    acre_dn *base = NULL;
    int rc;

    if (asked.size == CLI_LIMIT_MAX)
        asked.size = ACRE_LIMIT_MAX;
    if (asked.time == CLI_LIMIT_MAX)
        asked.time = ACRE_LIMIT_MAX;
    if (acre_dn_parse(NULL, s->schema, s->a.base, strlen(s->a.base), 0, &base,
                      NULL))
        return CLI_EXIT_OK; /* the search answers invalidDNSyntax */
    if ((rc = acre_search_limits(rq, base, &asked, &s->lim)) ==
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
    s->a.who.req_flags = s->a.attrsonly ? ACRE_REQ_ATTRSONLY : 0;
    s->host = acre_directory_host(dir);
    if ((rc = search_setup_389(s)))
        return rc;
    if (s->a.file && !pattern_ok(s->a.filter ? s->a.filter : "")) {
        fprintf(stderr, "acre search: bad filter pattern '%s'\n", s->a.filter);
        return CLI_EXIT_USAGE;
    }
    /* 389 maps a search from "" but for the root DSE to its default
     * naming context, which dscreate makes the first suffix (do_search):
     * here the data's first top entry */
    const acre_entry *top = acre_directory_suffix(dir, 0);
    int is389 = s->a.in.dialect == ACRE_DIALECT_ACI && s->a.in.aci_variant != 2;
    if (is389 && !*s->a.base && s->a.scope != ACRE_SCOPE_BASE && top) {
        const char *b = acre_entry_dn_stored(top, NULL);
        s->a.base = b ? b : acre_dn_pretty(acre_entry_dn(top), NULL);
    }
    /* a base that is not a DN is the search's result, as slapd answers
     * it (invalidDNSyntax, before anything else): said, not refused */
    (void)cli_dn_check(s->schema, "-b", s->a.base, 0);
    if ((rc = cli_request(&s->a.who, p, acre_directory_host(dir), &rq)))
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

    search_free_389(s);
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
