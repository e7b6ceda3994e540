/*
 * cmd_explain.c -- `acre explain`: what a requester may do with one entry,
 * as OpenLDAP's slapacl tells it, and why.
 *
 * Checks: with no ATTR, the entry itself, its children and every value of
 * every attribute (userPassword values shown as ****), each for auth with
 * the mask the deciding rule left, as slapacl does; otherwise one check
 * per ATTR[/LEVEL][=VALUE] (':' may stand for '=', as in slapacl): the
 * mask, or with /LEVEL whether that level is allowed, in argument order.
 * A VALUE is checked as typed in the slapacl format, as slapacl does
 * (ACRE_ACCESS_PREPARED), and normalised in the others, as a real
 * operation's values are; stored values are normalised in all.
 *
 * Formats:
 *   slapacl  slapacl's lines: `entry: =0`, `cn=Jim Jones: read(=rscxd)`,
 *            `read access to cn=Jim: ALLOWED`; a value that is not
 *            printable text (cli_text_safe: a newline would forge a
 *            line) as LDIF writes it, `description:: dHdv...: read(...)`;
 *   text     each of those lines followed by the steps of the check
 *            (acre_explain_steps): the index node, every rule met and why
 *            it was skipped, the clauses of the rule that matched and why
 *            each did or did not apply, and a last line naming what
 *            decided;
 *   json     one object: the entry, the requester and the checks, each
 *            with its mask, decision, steps and decider.
 * Attributes are listed in the directory's order (by type), not the
 * LDIF's.  Exit: 0 done, 1 input errors (rules, LDIF, a DN, an unknown
 * attribute or entry), 2 usage and system errors.
 */
#include "cli.h"
#include "ir.h" /* acreI_section_for: the database holding a DN */
#include "load.h"
#include "policy.h" /* the policy's databases */

#include <acre.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum format { FMT_DEFAULT, FMT_SLAPACL, FMT_TEXT, FMT_JSON, FMT_GER };

/* One check to make and print. */
struct check {
    const char *attr; /* the description checked ("entry", "cn") */
    const void *val;  /* the value, or NULL */
    size_t len;
    const char *shown; /* the value as printed */
    size_t shown_len;
    int right;         /* enum acre_right */
    const char *level; /* as written after '/', or NULL: the mask */
    int typed;         /* val is an argument's VALUE, not a stored value */
};

/* The deciding step, kept past the callback. */
struct decider {
    acre_explain_step s;
    char text[1024];
    char file[256];
    char holder[512];
    char name[256];
};

struct explain {
    struct cli_inputs in;
    struct cli_who who;
    const char *entry_dn; /* -e */
    int format;
    int seen_e, seen_format; /* each option once */
    const char **specs;      /* ATTR[/LEVEL][=VALUE] */
    unsigned nspecs;
    const acre_schema *schema;
    acre_request *rq;
    const acre_entry *e;
    int aci;          /* --dialect aci */
    int all_dbs;      /* --all-databases */
    unsigned nchecks; /* printed so far (json commas) */
    unsigned nsteps;  /* of the current check */
    struct decider last;
};

/* help_explain -- see cli.h: the usage of the command. */
void
help_explain(FILE *f)
{
    fprintf(
        f, "usage: acre explain --policy FILE... --data FILE.ldif... [-D DN]\n"
           "                    -e ENTRYDN [ATTR[/LEVEL][=VALUE]...]\n"
           "                    [--format slapacl|text|json] "
           "[--all-databases]\n"
           "       acre explain --dialect aci --data FILE.ldif... "
           "[--policy FILE...]\n"
           "                    [-D DN] -e ENTRYDN [ATTR[/LEVEL]...]\n"
           "                    [--format text|json|ger] "
           "[--aci-variant 389|opendj]\n"
           "     both:          [--authc-dn DN] [--auth-method METHOD] "
           "[--ssf [KIND=]N]\n"
           "                    [--peer ADDR] [--sockname ADDR] "
           "[--sockurl URL]\n"
           "                    [--domain HOST] [--time TIME] "
           "[--dialect D]\n"
           "                    [--strict]\n\n"
           "Like slapacl: print the privileges the requester has on the entry\n"
           "(and its children and every value), or on each ATTR and VALUE\n"
           "given; with /LEVEL, whether that access is allowed.  A VALUE is\n"
           "checked as typed, as slapacl does; --format text adds which rule\n"
           "and clause decided each line and why the earlier ones did not,\n"
           "checking a VALUE normalised, as an operation's; json the same\n"
           "for programs.  With ACIs:\n"
           "read (or LEVEL) on each ATTR (none: each attribute), each with\n"
           "the ACIs met, their bind rules' outcomes and the deciding ACI;\n"
           "--format ger prints 389's get-effective-rights of the requester\n"
           "(ATTRs: the attributes asked for, as a search names them).\n"
           "Like slapacl, which starts the entry's database alone, OpenLDAP\n"
           "rules find no entry of another database (groups, sets, the\n"
           "requester's entry); --all-databases looks in every one, as\n"
           "slapd does.\n"
           "--strict refuses equal values of one attribute in the data.\n"
           "Exit status: 0 done, 1 input errors, 2 usage or system errors.\n");
}

/* ------------------------------------------------------------------------
 * Steps
 */

static const char *
kind_name(int kind)
{
    static const char *const names[] = {
        "?",           "node",          "rootdn",   "no_user_mod",
        "default",     "rule_skipped",  "rule",     "clause_skipped",
        "clause",      "implicit_none", "limit",    "no_more_rules",
        "aci_skipped", "aci",           "aci_bind", "aci_anonymous",
        "aci_decision"};

    return kind > 0 && kind <= ACRE_EXPLAIN_ACI_DECISION ? names[kind] : "?";
}

static const char *
control_name(int control)
{
    return control == ACRE_CONTROL_CONTINUE ? "continue"
           : control == ACRE_CONTROL_BREAK  ? "break"
                                            : "stop";
}

/* keep -- remember step s as the decider so far. */
static void
keep(struct decider *d, const acre_explain_step *s)
{
    d->s = *s;
    snprintf(d->text, sizeof d->text, "%s", s->text);
    snprintf(d->file, sizeof d->file, "%s", s->file ? s->file : "");
    snprintf(d->holder, sizeof d->holder, "%s",
             s->aci_holder ? s->aci_holder : "");
    snprintf(d->name, sizeof d->name, "%s", s->aci_name ? s->aci_name : "");
    d->s.text = d->text;
    d->s.file = s->file ? d->file : NULL;
    d->s.detail = "";
    d->s.aci_holder = s->aci_holder ? d->holder : NULL;
    d->s.aci_name = s->aci_name ? d->name : NULL;
    d->s.bind = NULL;
}

/* Each line of detail, indented. */
static void
text_detail(const char *d)
{
    while (*d) {
        const char *nl = strchr(d, '\n');
        size_t n = nl ? (size_t)(nl - d) : strlen(d);
        while (n && *d == ' ')
            d++, n--;
        if (n)
            printf("          %.*s\n", (int)n, d);
        d += n + (nl != NULL);
    }
}

static void
text_step(void *arg, const acre_explain_step *s)
{
    struct explain *x = arg;
    int inner = s->kind == ACRE_EXPLAIN_CLAUSE ||
                s->kind == ACRE_EXPLAIN_CLAUSE_SKIPPED ||
                s->kind == ACRE_EXPLAIN_IMPLICIT_NONE ||
                s->kind == ACRE_EXPLAIN_ACI_BIND;

    if (s->kind == ACRE_EXPLAIN_ACI_DECISION) { /* the => line says it */
        keep(&x->last, s);
        return;
    }
    printf("    %s%s", inner ? "  " : "", s->text);
    if (inner && s->file && (s->clause || s->kind == ACRE_EXPLAIN_ACI_BIND))
        printf(" (%s:%u:%u)", s->file, s->line, s->column);
    putchar('\n');
    text_detail(s->detail);
    keep(&x->last, s);
}

static const char *
outcome_name(int o)
{
    return o == ACRE_OUTCOME_TRUE      ? "true"
           : o == ACRE_OUTCOME_FALSE   ? "false"
           : o == ACRE_OUTCOME_INVALID ? "invalid"
                                       : "undefined";
}

/* json_aci -- the ACI fields of step s, when it names an ACI */
static void
json_aci(const acre_explain_step *s)
{
    if (!s->aci_holder)
        return;
    printf(",\"holder\":");
    cli_json_str(stdout, s->aci_holder, strlen(s->aci_holder));
    printf(",\"aci\":");
    cli_json_str(stdout, s->aci_name ? s->aci_name : "",
                 s->aci_name ? strlen(s->aci_name) : 0);
    printf(",\"value_index\":%d", s->aci_value);
    if (s->aci_perm)
        printf(",\"perm\":%u,\"effect\":\"%s\"", s->aci_perm,
               s->aci_deny ? "deny" : "allow");
}

static void
json_step(void *arg, const acre_explain_step *s)
{
    struct explain *x = arg;
    char mask[ACRE_MASK_BUF];

    printf("%s\n    {\"kind\":\"%s\"", x->nsteps++ ? "," : "",
           kind_name(s->kind));
    if (s->rule >= 0)
        printf(",\"rule\":%d,\"section\":\"%s\",\"index\":%d", s->rule,
               s->section ? s->section : "", s->index);
    if (s->clause)
        printf(",\"clause\":%u,\"control\":\"%s\"", s->clause,
               control_name(s->control));
    if (s->file) {
        printf(",\"file\":");
        cli_json_str(stdout, s->file, strlen(s->file));
        printf(",\"line\":%u,\"column\":%u", s->line, s->column);
    }
    json_aci(s);
    if (s->outcome)
        printf(",\"outcome\":\"%s\"", outcome_name(s->outcome));
    if (s->bind) {
        printf(",\"bind\":");
        cli_json_str(stdout, s->bind, strlen(s->bind));
    }
    if (!x->aci)
        printf(",\"mask\":\"%s\"", acre_mask_format(s->mask, mask));
    printf(",\"text\":");
    cli_json_str(stdout, s->text, strlen(s->text));
    if (*s->detail) {
        printf(",\"detail\":");
        cli_json_str(stdout, s->detail, strlen(s->detail));
    }
    putchar('}');
    keep(&x->last, s);
}

/* The decider in words, for the text format. */
static void
text_decider(const struct decider *d, const char *outcome)
{
    const acre_explain_step *s = &d->s;

    printf("    => %s", outcome);
    if (s->kind == ACRE_EXPLAIN_ACI_DECISION)
        printf(", %s", s->text);
    else if (s->kind == ACRE_EXPLAIN_CLAUSE)
        printf(", decided by rule %d (%s#%d) by #%u", s->rule, s->section,
               s->index, s->clause);
    else if (s->kind == ACRE_EXPLAIN_IMPLICIT_NONE)
        printf(", decided by rule %d (%s#%d): no clause applied, implicit "
               "by * none",
               s->rule, s->section, s->index);
    else
        printf(", decided by: %s", s->text);
    if (s->file && s->kind != ACRE_EXPLAIN_IMPLICIT_NONE &&
        s->kind != ACRE_EXPLAIN_ACI_DECISION)
        printf(" at %s:%u:%u", s->file, s->line, s->column);
    putchar('\n');
}

/* ------------------------------------------------------------------------
 * Checks
 */

static void
slapacl_line(const struct explain *x, const struct check *c, int rc,
             uint32_t mask)
{
    char name[256], buf[ACRE_MASK_BUF];

    cli_attr_name(x->schema, c->attr, strlen(c->attr), name, sizeof name);
    if (c->level)
        printf("%s access to %s", c->level, name);
    else
        printf("%s", name);
    if (c->shown && cli_text_safe(c->shown, c->shown_len)) {
        printf("=%.*s", (int)c->shown_len, c->shown);
    } else if (c->shown) { /* a newline would forge a line: as LDIF */
        fputs(":: ", stdout);
        cli_base64(stdout, c->shown, c->shown_len);
    }
    /* a mask left with no privilege bit at all ("by users -0": invalid)
     * slapd replaces by none before slapacl prints it: "=0" */
    if (c->level)
        printf(": %s\n", rc == 1 ? "ALLOWED" : "DENIED");
    else
        printf(": %s\n", acre_mask_format(mask ? mask : ACRE_PRIV_NONE, buf));
}

static void
json_check_start(struct explain *x, const struct check *c)
{
    char name[256];

    cli_attr_name(x->schema, c->attr, strlen(c->attr), name, sizeof name);
    printf("%s\n  {\"attr\":", x->nchecks++ ? "," : "");
    cli_json_str(stdout, name, strlen(name));
    printf(",\"value\":");
    if (c->shown)
        cli_json_str(stdout, c->shown, c->shown_len);
    else
        printf("null");
    printf(",\"right\":\"%s\",\"steps\":[", c->level ? c->level : "auth");
    x->nsteps = 0;
}

static void
json_check_end(const struct explain *x, int rc, uint32_t mask)
{
    const acre_explain_step *s = &x->last.s;
    char buf[ACRE_MASK_BUF];

    if (x->aci)
        printf("],\n   \"granted\":%s", rc == 1 ? "true" : "false");
    else
        printf("],\n   \"mask\":\"%s\",\"granted\":%s",
               acre_mask_format(mask, buf), rc == 1 ? "true" : "false");
    if (rc < 0)
        printf(",\"error\":\"%s\"", acre_strerror(rc));
    printf(",\"decided_by\":{\"kind\":\"%s\"", kind_name(s->kind));
    if (s->rule >= 0)
        printf(",\"rule\":%d,\"section\":\"%s\",\"index\":%d", s->rule,
               s->section ? s->section : "", s->index);
    if (s->clause)
        printf(",\"clause\":%u", s->clause);
    json_aci(s);
    if (s->file) {
        printf(",\"file\":");
        cli_json_str(stdout, s->file, strlen(s->file));
        printf(",\"line\":%u,\"column\":%u", s->line, s->column);
    }
    printf("}}");
}

/* one -- make check c and print it in x's format. */
static void
one(struct explain *x, const struct check *c)
{
    uint32_t mask = 0;
    char buf[ACRE_MASK_BUF], outcome[64];
    int rc;

    memset(&x->last, 0, sizeof x->last);
    x->last.s.rule = -1;
    if (x->format == FMT_SLAPACL) {
        /* slapacl hands an argument's value to access_allowed_mask as
         * typed, and slapd never normalises it: a self access, val=,
         * val.regex and DN styles compare those bytes (slap_acl_mask,
         * acl_get), where a stored value is checked in its normalised
         * form (print_access), as a real operation checks values */
        rc = acre_access(
            x->rq, acre_entry_view_of(x->e), c->attr, c->val, c->len,
            c->right | (c->typed ? ACRE_ACCESS_PREPARED : 0), &mask);
        slapacl_line(x, c, rc, mask);
        return;
    }
    if (x->format == FMT_JSON) {
        json_check_start(x, c);
        rc = acre_explain_steps(x->rq, acre_entry_view_of(x->e), c->attr,
                                c->val, c->len, c->right, json_step, x, &mask);
        json_check_end(x, rc, mask);
        return;
    }
    /* text: the slapacl line first, the steps below it */
    rc = acre_access(x->rq, acre_entry_view_of(x->e), c->attr, c->val, c->len,
                     c->right, &mask);
    slapacl_line(x, c, rc, mask);
    rc = acre_explain_steps(x->rq, acre_entry_view_of(x->e), c->attr, c->val,
                            c->len, c->right, text_step, x, &mask);
    if (rc < 0)
        snprintf(outcome, sizeof outcome, "%s", acre_strerror(rc));
    else if (c->level)
        snprintf(outcome, sizeof outcome, "%s", rc ? "ALLOWED" : "DENIED");
    else
        snprintf(outcome, sizeof outcome, "mask %s",
                 acre_mask_format(mask, buf));
    text_decider(&x->last, outcome);
}

/* all -- slapacl with no attributes: entry, children, every value. */
static void
all(struct explain *x)
{
    struct check c = {"entry", NULL, 0, NULL, 0, ACRE_RIGHT_AUTH, NULL, 0};
    char desc[256];

    one(x, &c);
    c.attr = "children";
    one(x, &c);
    for (unsigned i = 0; i < acre_entry_nattrs(x->e); i++) {
        unsigned nvals;
        size_t dlen;
        const char *d = acre_entry_attr(x->e, i, &dlen, &nvals);
        const char *name = acre_schema_attr_name(x->schema, d, dlen);
        int pw = name && !strcasecmp(name, "userPassword");
        snprintf(desc, sizeof desc, "%.*s", (int)dlen, d);
        c.attr = desc;
        for (unsigned j = 0; j < nvals; j++) {
            c.val = acre_entry_value(x->e, i, j, &c.len);
            c.shown = pw ? "****" : c.val;
            c.shown_len = pw ? 4 : c.len;
            one(x, &c);
        }
    }
}

/* all_aci -- ACIs with no attributes: read on each attribute */
static void
all_aci(struct explain *x)
{
    struct check c = {NULL, NULL, 0, NULL, 0, ACRE_RIGHT_READ, "read", 0};
    char desc[256];

    for (unsigned i = 0; i < acre_entry_nattrs(x->e); i++) {
        size_t dlen;
        const char *d = acre_entry_attr(x->e, i, &dlen, NULL);
        snprintf(desc, sizeof desc, "%.*s", (int)dlen, d);
        c.attr = desc;
        one(x, &c);
    }
}

static int
right_of(const char *level)
{
    static const char *const names[] = {"disclose", "auth",  "compare",
                                        "search",   "read",  "add",
                                        "delete",   "write", "manage"};

    for (int i = 0; i < 9; i++)
        if (!strcasecmp(level, names[i]))
            return ACRE_RIGHT_DISCLOSE + i;
    return 0;
}

/* spec -- one ATTR[/LEVEL][=VALUE] argument as a check (modifies it). */
static int
spec(struct explain *x, char *a, struct check *c)
{
    char *v = strpbrk(a, "=:"), *slash;

    memset(c, 0, sizeof *c);
    c->right = ACRE_RIGHT_AUTH;
    if (v) {
        *v++ = '\0';
        c->val = c->shown = v;
        c->len = c->shown_len = strlen(v);
        c->typed = 1;
    }
    if ((slash = strchr(a, '/'))) {
        *slash++ = '\0';
        if (!strcasecmp(slash, "none")) {
            fprintf(stderr,
                    "acre explain: 'none' is no access to check for "
                    "'%s'\n",
                    a);
            return CLI_EXIT_USAGE;
        }
        if (!(c->right = right_of(slash))) {
            fprintf(stderr,
                    "acre explain: unknown access level '%s' for "
                    "'%s'\n",
                    slash, a);
            return CLI_EXIT_USAGE;
        }
        c->level = slash;
    }
    c->attr = a;
    if (x->aci && !c->level) {
        c->right = ACRE_RIGHT_READ;
        c->level = "read";
    }
    if (x->aci &&
        (c->right == ACRE_RIGHT_AUTH || c->right == ACRE_RIGHT_DISCLOSE ||
         c->right == ACRE_RIGHT_MANAGE)) {
        fprintf(stderr,
                "acre explain: '%s' is no ACI right (compare, search, read, "
                "add, delete, write)\n",
                c->level);
        return CLI_EXIT_USAGE;
    }
    if (x->aci && v) {
        fprintf(stderr,
                "acre explain: '%s=%s': values play no part in the ACI "
                "checks acre explains\n",
                a, v);
        return CLI_EXIT_USAGE;
    }
    if (!acre_schema_attr_name(x->schema, a, strlen(a))) {
        fprintf(stderr, "acre explain: unknown attribute type '%s'\n", a);
        return CLI_EXIT_INPUT;
    }
    return CLI_EXIT_OK;
}

/* ------------------------------------------------------------------------
 * Arguments
 */

static int
option(struct explain *x, int argc, char **argv, int *i)
{
    const char *v;
    int r, bad = 0;

    if ((r = cli_inputs_option(&x->in, argc, argv, i)) ||
        (r = cli_who_option(&x->who, argc, argv, i)))
        return r;
    if ((v = cli_opt("explain", argc, argv, i, "-e", &bad))) {
        x->entry_dn = v;
        return cli_once("explain", "-e", &x->seen_e) ? -1 : 1;
    }
    if (!strcmp(argv[*i], "--all-databases")) {
        x->all_dbs = 1;
        return 1;
    }
    if (!bad && (v = cli_opt("explain", argc, argv, i, "--format", &bad))) {
        if (cli_once("explain", "--format", &x->seen_format))
            return -1;
        x->format = !strcmp(v, "slapacl") ? FMT_SLAPACL
                    : !strcmp(v, "text")  ? FMT_TEXT
                    : !strcmp(v, "json")  ? FMT_JSON
                    : !strcmp(v, "ger")   ? FMT_GER
                                          : -1;
        if (x->format >= 0)
            return 1;
        fprintf(stderr,
                "acre explain: unknown format '%s' (slapacl, text, json, "
                "ger)\n",
                v);
        return -1;
    }
    if (!bad)
        fprintf(stderr,
                "acre explain: unknown option '%s' (see 'acre help "
                "explain')\n",
                argv[*i]);
    return -1;
}

static int
parse(struct explain *x, int argc, char **argv)
{
    int ended = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **ns;
        if (!ended && !strcmp(a, "--")) {
            ended = 1;
        } else if (!ended && a[0] == '-' && a[1]) {
            if (option(x, argc, argv, &i) < 0)
                return CLI_EXIT_USAGE;
        } else if ((ns = realloc(x->specs, (x->nspecs + 1) * sizeof(*ns)))) {
            ns[x->nspecs++] = a;
            x->specs = ns;
        } else {
            fprintf(stderr, "acre explain: out of memory\n");
            return CLI_EXIT_USAGE;
        }
    }
    int aci = x->in.dialect == ACRE_DIALECT_ACI; /* rules in the data */
    if (!x->entry_dn || (!x->in.npolicy && !aci) || !x->in.ndata) {
        fprintf(stderr,
                "acre explain: %s is required (see 'acre help "
                "explain')\n",
                !x->in.npolicy && !aci ? "--policy"
                : !x->in.ndata         ? "--data"
                                       : "-e");
        return CLI_EXIT_USAGE;
    }
    x->aci = aci;
    if (x->format == FMT_DEFAULT)
        x->format = aci ? FMT_TEXT : FMT_SLAPACL;
    if (aci && x->format == FMT_SLAPACL) {
        fprintf(stderr, "acre explain: --format slapacl tells OpenLDAP "
                        "rules; ACIs: text, json or ger\n");
        return CLI_EXIT_USAGE;
    }
    if (aci && x->format == FMT_GER && x->in.aci_variant == 2) {
        fprintf(stderr, "acre explain: --format ger is 389's "
                        "get-effective-rights: not with --aci-variant "
                        "opendj\n");
        return CLI_EXIT_USAGE;
    }
    if (!aci && x->format == FMT_GER) {
        fprintf(stderr, "acre explain: --format ger is 389's "
                        "get-effective-rights: it needs --dialect aci\n");
        return CLI_EXIT_USAGE;
    }
    return CLI_EXIT_OK;
}

/* ------------------------------------------------------------------------
 * The command
 */

/* find_entry -- the -e entry, or an error naming it. */
static int
find_entry(struct explain *x, const acre_directory *dir)
{
    acre_dn *dn;
    int rc;

    if ((rc = cli_dn_check(x->schema, "-e", x->entry_dn, 0)))
        return rc;
    if (acre_dn_parse(NULL, x->schema, x->entry_dn, strlen(x->entry_dn), 0, &dn,
                      NULL))
        return CLI_EXIT_USAGE;
    x->e = acre_directory_find(dir, dn);
    acre_dn_free(dn);
    if (x->e)
        return CLI_EXIT_OK;
    fprintf(stderr, "-e: error: no entry '%s' in the data\n", x->entry_dn);
    return CLI_EXIT_INPUT;
}

/*
 * slapacl starts the database holding the entry it checks and no other
 * (slap_tool_init's slap_startup(be)), so a lookup of an entry that
 * another database holds -- a group, a set's user/... or this/...
 * element, a dynamic group's requester, a set's ldap:/// search --
 * finds nothing.  The directory's host confined so: get finds, and
 * search visits, only the entries of the checked entry's database
 * (acreI_section_for, slapd's select_backend), and a search whose base
 * another database holds (or none) visits nothing.
 */
struct confined {
    acre_host in;
    acre_host out; /* the request's */
    const struct acreI_policy *cfg;
    const struct acreI_section *db;
    acre_view_fn fn; /* the search under way */
    void *fn_arg;
};

static int
confined_get(void *arg, const acre_dn *dn, const acre_entry_view **out)
{
    const struct confined *c = arg;

    *out = NULL;
    if (acreI_section_for(c->cfg, dn) != c->db)
        return 0;
    return c->in.get(c->in.arg, dn, out);
}

static void
confined_release(void *arg, const acre_entry_view *e)
{
    const struct confined *c = arg;

    if (c->in.release)
        c->in.release(c->in.arg, e);
}

static int
confined_visit(void *arg, const acre_entry_view *e)
{
    const struct confined *c = arg;

    return acreI_section_for(c->cfg, e->dn) == c->db ? c->fn(c->fn_arg, e) : 0;
}

static int
confined_search(void *arg, const acre_dn *base, int scope, acre_view_fn fn,
                void *fn_arg)
{
    struct confined *c = arg;
    acre_view_fn outer = c->fn;
    void *outer_arg = c->fn_arg;

    /* a search goes to the database holding its base (select_backend) */
    if (acreI_section_for(c->cfg, base) != c->db)
        return 0;
    c->fn = fn;
    c->fn_arg = fn_arg;
    int rc = c->in.search(c->in.arg, base, scope, confined_visit, c);
    c->fn = outer;
    c->fn_arg = outer_arg;
    return rc;
}

static int
confined_children(void *arg, const acre_entry_view *e)
{
    const struct confined *c = arg;

    return c->in.has_children(c->in.arg, e);
}

/* The host of the explained request: dir's, confined to the entry's
 * database as slapacl's (OpenLDAP policies, without --all-databases). */
static const acre_host *
explain_host(const struct explain *x, const acre_policy *p,
             const acre_directory *dir, struct confined *c)
{
    const acre_host *h = acre_directory_host(dir);

    if (x->aci || x->all_dbs)
        return h;
    c->in = *h;
    c->cfg = p->ir;
    c->db = acreI_section_for(p->ir, acre_entry_dn(x->e));
    c->fn = NULL;
    c->fn_arg = NULL;
    c->out =
        (acre_host){.arg = c,
                    .get = h->get ? confined_get : NULL,
                    .release = confined_release,
                    .search = h->search ? confined_search : NULL,
                    .has_children = h->has_children ? confined_children : NULL,
                    .generation = 0}; /* nothing kept past it */
    return &c->out;
}

static void
json_head(const struct explain *x)
{
    const char *dn = acre_dn_pretty(acre_entry_dn(x->e), NULL);

    printf("{\"entry\":");
    cli_json_str(stdout, dn, strlen(dn));
    printf(",\"requester\":");
    if (x->who.authz_dn && *x->who.authz_dn)
        cli_json_str(stdout, x->who.authz_dn, strlen(x->who.authz_dn));
    else
        printf("null");
    printf(",\"checks\":[");
}

/* ger -- 389's get-effective-rights of the requester on the entry, as
 * ldapsearch prints the entry with the control (unwrapped). */
static int
ger(struct explain *x)
{
    /* the DN as 389 stores it, as acre search prints it */
    size_t n;
    const char *dn = acre_entry_dn_stored(x->e, &n);
    if (!dn)
        dn = acre_dn_pretty(acre_entry_dn(x->e), &n);
    char *out = NULL;
    int rc = acre_effective_rights(x->rq, acre_entry_view_of(x->e), x->specs,
                                   x->nspecs, &out);

    if (rc) {
        fprintf(stderr, "acre explain: get-effective-rights: %s\n",
                acre_strerror(rc));
        return rc == ACRE_ERR_NOMEM ? CLI_EXIT_USAGE : CLI_EXIT_INPUT;
    }
    printf("dn: %.*s\n%s", (int)n, dn, out);
    free(out);
    return CLI_EXIT_OK;
}

static int
run_explain(struct explain *x, acre_policy *p, const acre_directory *dir)
{
    struct check *checks;
    int rc;

    x->schema = acre_policy_schema(p);
    if ((rc = find_entry(x, dir)))
        return rc;
    if (!(checks = calloc(x->nspecs + 1, sizeof *checks)))
        return CLI_EXIT_USAGE;
    for (unsigned i = 0; !rc && x->format != FMT_GER && i < x->nspecs; i++)
        rc = spec(x, (char *)x->specs[i], &checks[i]);
    /* 389's get-effective-rights evaluates the subject with no
     * authentication method (its internal operation has none): only
     * authmethod="none" takes it */
    if (x->format == FMT_GER && !x->who.auth_method)
        x->who.auth_method = "";
    /* slapd refuses a bind DN it cannot normalise */
    x->who.dn_flags = x->in.dialect == ACRE_DIALECT_ACI ? 0 : ACRE_DN_SLAPD;
    x->who.nsrole = x->in.dialect == ACRE_DIALECT_ACI && x->in.aci_variant != 2;
    struct confined conf;
    const acre_host *host = rc ? NULL : explain_host(x, p, dir, &conf);
    if (!rc && x->format == FMT_GER &&
        !(rc = cli_request(&x->who, p, host, &x->rq))) {
        rc = ger(x);
        acre_request_end(x->rq);
    } else if (!rc && !(rc = cli_request(&x->who, p, host, &x->rq))) {
        if (x->format == FMT_JSON)
            json_head(x);
        if (x->nspecs == 0 && x->aci)
            all_aci(x);
        else if (x->nspecs == 0)
            all(x);
        for (unsigned i = 0; i < x->nspecs; i++)
            one(x, &checks[i]);
        if (x->format == FMT_JSON)
            printf("\n]}\n");
        acre_request_end(x->rq);
    }
    free(checks);
    return rc;
}

/* cmd_explain -- see cli.h: run the command; returns its exit status. */
int
cmd_explain(int argc, char **argv)
{
    struct explain x;
    acre_policy *p = NULL;
    acre_directory *dir = NULL;
    int rc;

    memset(&x, 0, sizeof x);
    x.in.cmd = x.who.cmd = "explain";
    if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        help_explain(stdout);
        return CLI_EXIT_OK;
    }
    if (!(rc = parse(&x, argc, argv)) && !(rc = cli_policy_load(&x.in, &p)) &&
        !(rc = cli_data_load(&x.in, p, &dir)))
        rc = run_explain(&x, p, dir);
    if (fflush(stdout) && !rc) {
        perror("acre explain: standard output");
        rc = CLI_EXIT_USAGE;
    }
    acre_directory_free(dir);
    acre_policy_release(p);
    cli_inputs_free(&x.in);
    free(x.specs);
    return rc;
}
