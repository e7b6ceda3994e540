/*
 * cmd_dn.c -- `acre dn`: parse, validate and normalise DNs and show what
 * acre makes of them (normalised and pretty forms, RDNs, ancestry hashes).
 *
 * Errors are printed gcc-style, `SOURCE:LINE:COLUMN: error: MESSAGE`, where
 * SOURCE is "arg" for a command-line DN (LINE is its position among the
 * arguments) or the file name ("-" for standard input) with one DN a line.
 */
#include "cli.h"

#include <acre.h>
#include <stdlib.h>
#include <string.h>

struct opts {
    int json;
    int quiet;
    unsigned flags;
    unsigned schema_flags; /* for acre_schema_new: ACRE_SCHEMA_SLAPD */
    acre_schema *schema;   /* NULL: the built-in schema */
};

void
help_dn(FILE *f)
{
    fprintf(
        f,
        "usage: acre dn [--slapd] [--schema FILE]... [--strict] [--json] "
        "[--quiet] DN...\n"
        "       acre dn [--slapd] [--schema FILE]... [--strict] [--json] "
        "[--quiet] --file FILE|-\n\n"
        "Parse each DN (RFC 4514), print its normalised and pretty\n"
        "forms, depth, RDNs and ancestry hashes.  --slapd normalises as\n"
        "OpenLDAP's slapd does instead of by RFC 4518.  --schema adds schema\n"
        "definitions (.schema or LDIF) to the built-in ones; --strict\n"
        "rejects attribute types the schema does not know; --quiet\n"
        "prints only errors.  Exit status: 0 all valid, 1 some DN\n"
        "invalid, 2 usage or unreadable schema.\n");
}

static void
json_str(const char *s, size_t n)
{
    putchar('"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c < 0x20)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
    putchar('"');
}

static void
show_text(const acre_dn *dn)
{
    unsigned d = acre_dn_depth(dn);

    printf("normalised: %s\npretty:     %s\ndepth:      %u\n",
           acre_dn_normalised(dn, NULL), acre_dn_pretty(dn, NULL), d);
    for (unsigned i = 0; i < d; i++) {
        const char *r;
        size_t n;
        acre_dn_rdn(dn, i, &r, &n, NULL, NULL);
        printf("rdn[%u]:     %.*s\n", i, (int)n, r);
    }
    for (unsigned i = 0; i <= d; i++)
        printf("h[%u]:       %016llx  %s\n", i,
               (unsigned long long)acre_dn_ancestor_hash(dn, i),
               i ? acre_dn_ancestor(dn, i, NULL) : "(root)");
}

static void
show_json(const char *in, const acre_dn *dn)
{
    size_t n;
    const char *s;

    printf("{\"input\":");
    json_str(in, strlen(in));
    s = acre_dn_normalised(dn, &n);
    printf(",\"normalised\":");
    json_str(s, n);
    s = acre_dn_pretty(dn, &n);
    printf(",\"pretty\":");
    json_str(s, n);
    printf(",\"depth\":%u}\n", acre_dn_depth(dn));
}

/* One DN; returns 0 when valid, 1 when not. */
static int
one(const struct opts *o, const char *src, unsigned line, const char *s)
{
    acre_dn *dn;
    acre_diag diag;

    if (acre_dn_parse(NULL, o->schema, s, strlen(s), o->flags, &dn, &diag)) {
        fprintf(stderr, "%s:%u:%u: error: %s\n", src, line, diag.column,
                diag.message);
        return 1;
    }
    if (!o->quiet) {
        if (o->json) {
            show_json(s, dn);
        } else {
            printf("input:      %s\n", s);
            show_text(dn);
            putchar('\n');
        }
    }
    acre_dn_free(dn);
    return 0;
}

static int
from_file(const struct opts *o, const char *path)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    unsigned no = 0;
    int bad = 0;

    if (!f) {
        perror(path);
        return CLI_EXIT_USAGE;
    }
    while ((n = getline(&line, &cap, f)) >= 0) {
        no++;
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        bad |= one(o, path, no, line);
    }
    free(line);
    if (f != stdin)
        fclose(f);
    return bad ? CLI_EXIT_INPUT : CLI_EXIT_OK;
}

/* Add a schema file to o->schema (made on first use); 0 or an exit code. */
static int
add_schema(struct opts *o, const char *path)
{
    acre_diag d;

    if (!o->schema && acre_schema_new(NULL, o->schema_flags, &o->schema, &d)) {
        fprintf(stderr, "acre: %s\n", d.message);
        return CLI_EXIT_USAGE;
    }
    if (path && acre_schema_load_file(o->schema, path, &d)) {
        fprintf(stderr, "%s:%u:%u: error: %s\n", d.file ? d.file : path, d.line,
                d.column, d.message);
        return CLI_EXIT_USAGE;
    }
    return 0;
}

static int
run(struct opts *o, int argc, char **argv)
{
    const char *file = NULL;
    int i, rc, bad = 0;

    for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
        if (strcmp(argv[i], "--schema") == 0 && i + 1 < argc) {
            if ((rc = add_schema(o, argv[++i])))
                return rc;
        } else if (strcmp(argv[i], "--slapd") == 0) {
            if (o->schema) { /* must come before any --schema */
                help_dn(stderr);
                return CLI_EXIT_USAGE;
            }
            o->schema_flags |= ACRE_SCHEMA_SLAPD;
            if ((rc = add_schema(o, NULL)))
                return rc;
        } else if (strcmp(argv[i], "--strict") == 0)
            o->flags |= ACRE_DN_STRICT;
        else if (strcmp(argv[i], "--json") == 0)
            o->json = 1;
        else if (strcmp(argv[i], "--quiet") == 0)
            o->quiet = 1;
        else if (strcmp(argv[i], "--file") == 0 && i + 1 < argc)
            file = argv[++i];
        else if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        } else {
            help_dn(stderr);
            return CLI_EXIT_USAGE;
        }
    }
    if (file)
        return i == argc ? from_file(o, file) : CLI_EXIT_USAGE;
    if (i == argc) {
        help_dn(stderr);
        return CLI_EXIT_USAGE;
    }
    for (int k = i; k < argc; k++)
        bad |= one(o, "arg", (unsigned)(k - i + 1), argv[k]);
    return bad ? CLI_EXIT_INPUT : CLI_EXIT_OK;
}

int
cmd_dn(int argc, char **argv)
{
    struct opts o = {0, 0, 0, 0, NULL};
    int rc = run(&o, argc, argv);

    acre_schema_free(o.schema);
    return rc;
}
