/*
 * fuzz_search_args.c -- libFuzzer target for the command line of
 * `acre search` (cli/search_args.c, with the option parsers of
 * cli/load.c it shares with the other commands).
 *
 * The input, split on NUL bytes, is argv[1..] (at most MAX_ARGS of them;
 * argv[0] is "search").  Nothing is run and no file is opened: the files
 * the arguments name are only collected.  Beyond "never crash, never
 * leak, never read out of bounds" (ASan/UBSan), it checks:
 *   - the result is CLI_EXIT_OK or CLI_EXIT_USAGE; a usage error printed
 *     one line, "acre search: ..." (more only when an argument holds a
 *     newline, as messages quote arguments); success printed nothing;
 *   - on success -b, --data and (but with --dialect aci) --policy were
 *     given, the scope is one of
 *     enum acre_scope, the filter (when there is one) starts with '(' or
 *     holds '=' and the first ATTR does neither when there is none (the
 *     ldapsearch rule), -z and -l are numbers or "max", the wrap width
 *     is not 1, and every string kept points into argv (the
 *     requester's --peer and --sockname into its buffers, NUL-terminated
 *     within them);
 *   - the requester then checks against the built-in schema
 *     (cli_who_subject) with OK, INPUT or USAGE, printing one line on
 *     error and nothing otherwise, and so does the base (cli_dn_check).
 * Standard error is captured per input (libFuzzer and the sanitizers
 * write to the file descriptor, not to this FILE).
 * Any violation aborts, which libFuzzer reports with the input.
 */
#include "cli.h"
#include "load.h"
#include "search_args.h"

#include <acre.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARGS 64

static void
check(int cond)
{
    if (!cond)
        abort();
}

/* Is p the start of one of the argument strings (or inside one, for
 * `--name=value`)? */
static int
in_argv(const char *p, int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (p >= argv[i] && p <= argv[i] + strlen(argv[i]))
            return 1;
    return 0;
}

static int
in_buf(const char *p, const char *buf, size_t size)
{
    return p == buf && memchr(buf, '\0', size) != NULL;
}

/* The messages written to the captured standard error since *pos: none
 * when !told, else one line (more only when an argument holds a newline:
 * messages quote arguments) starting with prefix (NULL: any). */
static void
check_told(FILE *err, char **text, size_t *len, size_t *pos, int told,
           const char *prefix, int newlines)
{
    unsigned n = 0;

    check(fflush(err) == 0);
    for (size_t i = *pos; i < *len; i++)
        n += (*text)[i] == '\n';
    check(told ? n == 1 || (newlines && n > 1) : n == 0);
    if (told)
        check((*text)[*len - 1] == '\n' &&
              (!prefix || strncmp(*text + *pos, prefix, strlen(prefix)) == 0));
    *pos = *len;
}

static const acre_schema *
schema(void)
{
    static acre_schema *s;
    acre_diag d;

    if (!s)
        check(acre_schema_new(NULL, ACRE_SCHEMA_SLAPD, &s, &d) == 0);
    return s;
}

static void
check_args(const struct cli_search_args *a, int argc, char **argv)
{
    const struct cli_who *w = &a->who;

    check(a->base && in_argv(a->base, argc, argv));
    /* --dialect aci takes its rules from the data: --policy optional */
    check((a->in.npolicy >= 1 || a->in.dialect == ACRE_DIALECT_ACI) &&
          a->in.ndata >= 1);
    for (unsigned i = 0; i < a->in.npolicy; i++)
        check(in_argv(a->in.policy[i], argc, argv));
    for (unsigned i = 0; i < a->in.ndata; i++)
        check(in_argv(a->in.data[i], argc, argv));
    check(a->scope >= ACRE_SCOPE_BASE && a->scope <= ACRE_SCOPE_CHILDREN);
    check(!a->filter || in_argv(a->filter, argc, argv));
    check(!a->filter || a->filter[0] == '(' || strchr(a->filter, '='));
    check(a->filter || a->nattrs == 0 ||
          (a->attrs[0][0] != '(' && !strchr(a->attrs[0], '=')));
    check(!a->file || in_argv(a->file, argc, argv));
    check(a->sizelimit >= CLI_LIMIT_MAX && a->timelimit >= CLI_LIMIT_MAX);
    check(a->wrap != 1);
    for (unsigned i = 0; i < a->nattrs; i++)
        check(in_argv(a->attrs[i], argc, argv));
    check((a->coll_flags & ~(ACRE_COLL_STACK | ACRE_COLL_NO_FILTER)) == 0);
    check(!w->authz_dn || in_argv(w->authz_dn, argc, argv));
    check(!w->authc_dn || in_argv(w->authc_dn, argc, argv));
    check(!w->auth_method || in_argv(w->auth_method, argc, argv));
    check(!w->sockurl || in_argv(w->sockurl, argc, argv));
    check(!w->domain || in_argv(w->domain, argc, argv));
    check(!w->time || in_argv(w->time, argc, argv));
    check(!w->peername || in_buf(w->peername, w->peerbuf, sizeof w->peerbuf));
    check(!w->sockname || in_buf(w->sockname, w->sockbuf, sizeof w->sockbuf));
    check(w->ssf <= 65535 && w->transport_ssf <= 65535 && w->tls_ssf <= 65535 &&
          w->sasl_ssf <= 65535);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *copy = malloc(size + 1), *argv[MAX_ARGS + 2], *text = NULL;
    int argc = 1, rc, newlines = memchr(data, '\n', size) != NULL;
    size_t len = 0, pos = 0;
    FILE *saved = stderr, *err = open_memstream(&text, &len);
    struct cli_search_args a;
    acre_subject who;

    check(copy && err);
    memcpy(copy, data, size);
    copy[size] = '\0';
    argv[0] = "search";
    for (size_t i = 0; size && argc <= MAX_ARGS; argc++) {
        argv[argc] = copy + i;
        i += strlen(copy + i) + 1;
        if (i > size) {
            argc++;
            break;
        }
    }
    argv[argc] = NULL;
    stderr = err;
    rc = cli_search_args_parse(&a, argc, argv);
    check(rc == CLI_EXIT_OK || rc == CLI_EXIT_USAGE);
    check_told(err, &text, &len, &pos, rc != CLI_EXIT_OK,
               "acre search: ", newlines);
    if (rc == CLI_EXIT_OK) {
        check_args(&a, argc, argv);
        /* -D as OpenLDAP rules take it (slapd's forms) for odd sizes */
        a.who.dn_flags = size & 1 ? ACRE_DN_SLAPD : 0;
        rc = cli_who_subject(&a.who, schema(), &who);
        check(rc == CLI_EXIT_OK || rc == CLI_EXIT_INPUT ||
              rc == CLI_EXIT_USAGE);
        check_told(err, &text, &len, &pos, rc != CLI_EXIT_OK, NULL, newlines);
        rc = cli_dn_check(schema(), "-b", a.base, 0);
        check(rc == CLI_EXIT_OK || rc == CLI_EXIT_INPUT);
        check_told(err, &text, &len, &pos, rc != CLI_EXIT_OK,
                   "-b:1:", newlines);
    }
    stderr = saved;
    cli_search_args_free(&a);
    fclose(err);
    free(text);
    free(copy);
    return 0;
}
