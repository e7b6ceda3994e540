/*
 * cmd_lint.c -- `acre lint`: check rule files for errors and for the
 * mistakes that compile (acre_lint), and print the findings as gcc-style
 * text, JSON or SARIF on standard output.
 *
 * Each FILE is one configuration: a slapd.conf, a slapd.d directory or a
 * cn=config LDIF, guessed as the other commands guess it (--dialect
 * forces one).  --data loads LDIF files (over the first file's schema
 * when it compiles) so that DNs of the rules can be looked up.
 * With --dialect aci, the rules are the `aci` values of the entries of
 * the --policy files, the FILEs and the --data files, linted together as
 * the one policy `acre search --dialect aci` would compile from them.
 * Exit status: 0 nothing found, 1 warnings only, 2 errors (in a rule
 * file, or of usage, or an unreadable --data file).
 */
#include "cli.h"
#include "load.h"

#include <acre.h>
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define LINT_STDIN_MAX (256u << 20)

struct lint_opts {
    int format;         /* enum acre_lint_format */
    int dialect;        /* 0: guess */
    char *disable;      /* ids, comma-separated (malloc'd) */
    const char **files; /* FILE... */
    unsigned nfiles;
    const char **data; /* --data */
    unsigned ndata;
    int list;
    int strict;          /* --strict: ACRE_LOAD_STRICT for --data */
    const char **policy; /* --policy (--dialect aci) */
    unsigned npolicy;
    int aci_variant; /* --aci-variant: 0 not given, 1 389, 2 opendj */
};

void
help_lint(FILE *f)
{
    fprintf(
        f,
        "usage: acre lint [--format text|json|sarif] [--data FILE]...\n"
        "                 [--strict] [--disable ID[,ID...]] [-W no-ID]\n"
        "                 [--dialect slapd.conf|cn=config] FILE...\n"
        "       acre lint --dialect aci [--aci-variant 389|opendj]\n"
        "                 [--format ...] [--disable ...] [--policy FILE]...\n"
        "                 [--data FILE]... [FILE...]\n"
        "       acre lint --list\n\n"
        "Check each rule FILE (a slapd.conf, a slapd.d directory or a\n"
        "cn=config LDIF; \"-\" is standard input) on its own: errors are\n"
        "reported as FILE:LINE:COLUMN: error: MESSAGE, mistakes that\n"
        "compile as warnings with an id.  --data looks the rules' DNs\n"
        "up in LDIF data (--strict: refusing equal values of one\n"
        "attribute, as an LDAP add does); --disable (or -W no-ID)\n"
        "leaves warnings out, as does a comment \"# acre-lint: "
        "disable=ID\" right above a\n"
        "rule; --list prints the ids.  With --dialect aci the rules\n"
        "are the aci values of the entries of every --policy, FILE and\n"
        "--data LDIF file, checked together as one policy (as acre\n"
        "search --dialect aci reads them).  Exit status: 0 nothing\n"
        "found, 1 warnings only, 2 errors.\n");
}

static int
add(const char ***v, unsigned *n, const char *s)
{
    const char **nv = realloc(*v, (*n + 1) * sizeof(**v));

    if (!nv)
        return -1;
    nv[(*n)++] = s;
    *v = nv;
    return 0;
}

/* Append ids to o->disable. */
static int
disable(struct lint_opts *o, const char *ids)
{
    size_t n = o->disable ? strlen(o->disable) : 0;
    char *d = realloc(o->disable, n + strlen(ids) + 2);

    if (!d)
        return -1;
    if (n)
        d[n++] = ',';
    strcpy(d + n, ids);
    o->disable = d;
    return 0;
}

static int
format_name(const char *s)
{
    if (!strcmp(s, "text"))
        return ACRE_LINT_TEXT;
    if (!strcmp(s, "json"))
        return ACRE_LINT_JSON;
    if (!strcmp(s, "sarif"))
        return ACRE_LINT_SARIF;
    return 0;
}

/* One option at argv[*i]; 1 taken, 0 not an option, -1 usage error. */
static int
option(struct lint_opts *o, int argc, char **argv, int *i)
{
    const char *a = argv[*i], *v;
    int bad = 0;

    if ((v = cli_opt("lint", argc, argv, i, "--format", &bad))) {
        if ((o->format = format_name(v)))
            return 1;
        fprintf(stderr,
                "acre lint: unknown format '%s' (text, json or "
                "sarif)\n",
                v);
        return -1;
    }
    if (!bad && (v = cli_opt("lint", argc, argv, i, "--data", &bad)))
        return add(&o->data, &o->ndata, v) ? -1 : 1;
    if (!bad && (v = cli_opt("lint", argc, argv, i, "--disable", &bad)))
        return disable(o, v) ? -1 : 1;
    if (!bad && (v = cli_opt("lint", argc, argv, i, "--dialect", &bad))) {
        if ((o->dialect = cli_dialect(v)))
            return 1;
        fprintf(stderr,
                "acre lint: unknown dialect '%s' (slapd.conf, "
                "cn=config or aci)\n",
                v);
        return -1;
    }
    if (!bad && (v = cli_opt("lint", argc, argv, i, "--policy", &bad)))
        return add(&o->policy, &o->npolicy, v) ? -1 : 1;
    if (!bad && (v = cli_opt("lint", argc, argv, i, "--aci-variant", &bad))) {
        if (!strcmp(v, "389") || !strcmp(v, "opendj")) {
            o->aci_variant = !strcmp(v, "389") ? 1 : 2;
            return 1;
        }
        fprintf(stderr, "acre lint: unknown ACI variant '%s' (389 or opendj)\n",
                v);
        return -1;
    }
    if (!bad && (v = cli_opt("lint", argc, argv, i, "-W", &bad))) {
        if (strncmp(v, "no-", 3) == 0)
            return disable(o, v + 3) ? -1 : 1;
        fprintf(stderr, "acre lint: -W takes no-ID\n");
        return -1;
    }
    if (!bad && strncmp(a, "-Wno-", 5) == 0)
        return disable(o, a + 5) ? -1 : 1;
    if (!bad && strcmp(a, "--list") == 0)
        return o->list = 1;
    if (!bad && strcmp(a, "--strict") == 0)
        return o->strict = 1;
    if (!bad && a[0] == '-' && a[1])
        fprintf(stderr, "acre lint: unknown option '%s'\n", a);
    if (bad || (a[0] == '-' && a[1]))
        return -1;
    return 0;
}

static void
list(void)
{
    size_t n;
    const acre_lint_check *c = acre_lint_checks(&n);

    for (size_t i = 0; i < n; i++)
        printf("%-20s %s\n", c[i].id, c[i].summary);
}

/* ------------------------------------------------------------------------
 * Sources
 */

static int
ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);

    return n > m && strcasecmp(s + n - m, suffix) == 0;
}

/* The dialect of text t[0..n): cn=config when it is LDIF (its first line
 * that is not blank or a comment is "dn:" or "version:"), else
 * slapd.conf. */
static int
sniff(const char *t, size_t n)
{
    size_t i = 0;

    while (i < n) {
        size_t e = i;
        while (e < n && t[e] != '\n')
            e++;
        if (e > i && t[i] != '#' && !isspace((unsigned char)t[i]))
            break;
        i = e + 1;
    }
    if (i < n && ((n - i >= 3 && !strncasecmp(t + i, "dn:", 3)) ||
                  (n - i >= 8 && !strncasecmp(t + i, "version:", 8))))
        return ACRE_DIALECT_SLAPD_CNCONFIG;
    return ACRE_DIALECT_SLAPD_CONF;
}

static int
guess(const char *path, const char *text, size_t len)
{
    struct stat st;
    char buf[4096];
    FILE *f;

    if (text)
        return sniff(text, len);
    int got = stat(path, &st) == 0;
    if (got && S_ISDIR(st.st_mode))
        return ACRE_DIALECT_SLAPD_CNCONFIG;
    if (ends_with(path, ".conf"))
        return ACRE_DIALECT_SLAPD_CONF;
    if (ends_with(path, ".ldif"))
        return ACRE_DIALECT_SLAPD_CNCONFIG;
    if (!got || !S_ISREG(st.st_mode) || !(f = fopen(path, "r")))
        return ACRE_DIALECT_SLAPD_CONF; /* the library says why it fails */
    len = fread(buf, 1, sizeof(buf), f);
    fclose(f);
    return sniff(buf, len);
}

static int
read_stdin(char **out, size_t *len)
{
    size_t cap = 65536, n = 0, got;
    char *buf = malloc(cap), *nb;

    while (buf && (got = fread(buf + n, 1, cap - n, stdin)) > 0) {
        n += got;
        if (n > LINT_STDIN_MAX)
            break;
        if (n == cap) {
            nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    if (!buf || ferror(stdin) || n > LINT_STDIN_MAX) {
        fprintf(stderr, "acre lint: standard input: %s\n",
                !buf                 ? "out of memory"
                : n > LINT_STDIN_MAX ? "too large"
                                     : strerror(errno));
        free(buf);
        return CLI_EXIT_USAGE;
    }
    *out = buf;
    *len = n;
    return CLI_EXIT_OK;
}

/* The sources of o->files; *stdin_text is freed by the caller. */
static int
sources(const struct lint_opts *o, acre_source *src, char **stdin_text)
{
    int seen = 0;

    for (unsigned i = 0; i < o->nfiles; i++) {
        const char *p = o->files[i];
        src[i] = (acre_source){o->dialect, p, NULL, 0};
        if (strcmp(p, "-") == 0) {
            if (seen++) {
                fprintf(stderr, "acre lint: standard input given twice\n");
                return CLI_EXIT_USAGE;
            }
            int rc = read_stdin(stdin_text, &src[i].len);
            if (rc)
                return rc;
            src[i].text = *stdin_text;
        }
        if (!src[i].dialect)
            src[i].dialect = guess(p, src[i].text, src[i].len);
    }
    return CLI_EXIT_OK;
}

/* --data: over the first source's schema when it compiles (and checked
 * against its databases as slapadd checks them: acre_load_options),
 * else the built-in one with slapd's matching. */
static int
load_data(const struct lint_opts *o, const acre_source *src,
          acre_policy **policy, acre_schema **schema, acre_directory **dir)
{
    acre_load_options opt = {0, NULL, NULL, NULL, NULL, 0};
    acre_diag d;
    const acre_schema *s;

    memset(&d, 0, sizeof(d));
    if (acre_policy_compile(NULL, NULL, src, 1, 0, policy, &d) == 0) {
        s = acre_policy_schema(*policy);
        opt.policy = *policy; /* its databases must hold the entries */
    } else if (acre_schema_new(NULL, ACRE_SCHEMA_SLAPD, schema, &d) == 0) {
        s = *schema;
    } else {
        fprintf(stderr, "acre lint: %s\n", d.message);
        return CLI_EXIT_USAGE;
    }
    memset(&d, 0, sizeof(d));
    opt.flags = o->strict ? ACRE_LOAD_STRICT : 0;
    if (acre_directory_load_opt(NULL, s, o->data, o->ndata, &opt, dir, &d) == 0)
        return CLI_EXIT_OK;
    cli_diag_print(&d, NULL);
    return CLI_EXIT_USAGE;
}

/* --dialect aci: the --policy files, the FILEs, then the --data files,
 * as one policy (no directory is loaded: the data are rules). */
static int
run_aci(struct lint_opts *o)
{
    unsigned n = o->npolicy + o->nfiles + o->ndata, k = 0;
    acre_source *src = calloc(n ? n : 1, sizeof(*src));
    acre_lint_result *res = NULL;
    char *stdin_text = NULL, *out = NULL;
    unsigned flags = o->aci_variant == 2 ? ACRE_COMPILE_ACI_OPENDJ : 0;
    acre_diag d;
    int rc = src ? CLI_EXIT_OK : CLI_EXIT_USAGE;

    if (!rc && o->strict) {
        fprintf(stderr, "acre lint: --strict does not apply to --dialect "
                        "aci (the data are read as rules)\n");
        rc = CLI_EXIT_USAGE;
    }
    for (unsigned i = 0; !rc && i < n; i++) {
        const char *p = i < o->npolicy ? o->policy[i]
                        : i < o->npolicy + o->nfiles
                            ? o->files[i - o->npolicy]
                            : o->data[i - o->npolicy - o->nfiles];
        src[k] = (acre_source){ACRE_DIALECT_ACI, p, NULL, 0};
        if (!strcmp(p, "-")) {
            if (stdin_text) {
                fprintf(stderr, "acre lint: standard input given twice\n");
                rc = CLI_EXIT_USAGE;
                break;
            }
            rc = read_stdin(&stdin_text, &src[k].len);
            src[k].text = stdin_text;
        }
        k++;
    }
    memset(&d, 0, sizeof(d));
    if (!rc && acre_lint(NULL, src, k, NULL, o->disable, flags, &res, &d)) {
        fprintf(stderr, "acre lint: %s\n", d.message);
        rc = CLI_EXIT_USAGE;
    }
    if (!rc && !(out = acre_lint_format(res, o->format))) {
        fprintf(stderr, "acre lint: out of memory\n");
        rc = CLI_EXIT_USAGE;
    }
    if (!rc) {
        fputs(out, stdout);
        rc = acre_lint_status(res);
    }
    free(out);
    acre_lint_free(res);
    free(stdin_text);
    free(src);
    return rc;
}

static int
run(struct lint_opts *o)
{
    acre_source *src = calloc(o->nfiles, sizeof(*src));
    acre_policy *policy = NULL;
    acre_schema *schema = NULL;
    acre_directory *dir = NULL;
    acre_lint_result *res = NULL;
    char *stdin_text = NULL, *out = NULL;
    acre_diag d;
    int rc = src ? sources(o, src, &stdin_text) : CLI_EXIT_USAGE;

    if (!rc && o->ndata)
        rc = load_data(o, src, &policy, &schema, &dir);
    memset(&d, 0, sizeof(d));
    if (!rc && acre_lint(NULL, src, o->nfiles, dir, o->disable, 0, &res, &d)) {
        fprintf(stderr, "acre lint: %s\n", d.message);
        rc = CLI_EXIT_USAGE;
    }
    if (!rc && !(out = acre_lint_format(res, o->format))) {
        fprintf(stderr, "acre lint: out of memory\n");
        rc = CLI_EXIT_USAGE;
    }
    if (!rc) {
        fputs(out, stdout);
        rc = acre_lint_status(res);
    }
    free(out);
    acre_lint_free(res);
    acre_directory_free(dir);
    acre_policy_release(policy);
    acre_schema_free(schema);
    free(stdin_text);
    free(src);
    return rc;
}

int
cmd_lint(int argc, char **argv)
{
    struct lint_opts o = {.format = ACRE_LINT_TEXT};
    int rc = CLI_EXIT_OK;

    for (int i = 1; i < argc && rc == CLI_EXIT_OK; i++) {
        int r = 0;
        if (strcmp(argv[i], "--") == 0) {
            while (++i < argc && rc == CLI_EXIT_OK)
                if (add(&o.files, &o.nfiles, argv[i]))
                    rc = CLI_EXIT_USAGE;
            break;
        }
        if ((r = option(&o, argc, argv, &i)) < 0) {
            help_lint(stderr);
            rc = CLI_EXIT_USAGE;
        } else if (r == 0 && add(&o.files, &o.nfiles, argv[i])) {
            rc = CLI_EXIT_USAGE;
        }
    }
    int aci = o.dialect == ACRE_DIALECT_ACI;
    if (rc == CLI_EXIT_OK && !o.list && !aci && (o.npolicy || o.aci_variant)) {
        fprintf(stderr, "acre lint: %s needs --dialect aci\n",
                o.npolicy ? "--policy" : "--aci-variant");
        rc = CLI_EXIT_USAGE;
    }
    if (rc == CLI_EXIT_OK && o.list)
        list();
    else if (rc == CLI_EXIT_OK &&
             (aci ? o.npolicy + o.nfiles + o.ndata == 0 : o.nfiles == 0)) {
        help_lint(stderr);
        rc = CLI_EXIT_USAGE;
    } else if (rc == CLI_EXIT_OK)
        rc = aci ? run_aci(&o) : run(&o);
    free(o.disable);
    free(o.files);
    free(o.data);
    free(o.policy);
    return rc;
}
