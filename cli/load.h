/*
 * load.h -- what the subcommands of the acre command share to take their
 * inputs: command-line options, the policy (one or several rule files,
 * dialect guessed or given), the LDIF directory (one or several files,
 * all-or-nothing, over the policy's schema), the requester, and
 * diagnostics printed gcc-style (`FILE:LINE:COLUMN: error: MESSAGE`).
 *
 * Every function that can fail prints one line on standard error and
 * returns an exit code of cli.h: CLI_EXIT_OK, CLI_EXIT_INPUT (something
 * does not parse: a rule, an LDIF record, a DN, a filter) or
 * CLI_EXIT_USAGE (a usage error, a file that cannot be read, out of
 * memory).  Nothing is half-loaded: on error the out-parameter is left
 * untouched and nothing needs freeing.
 *
 * A typical command:
 *
 *     struct cli_inputs in = {.cmd = "lint"};
 *     struct cli_who who = {.cmd = "lint"};
 *     for (int i = 1; i < argc; i++) {
 *         int r = cli_inputs_option(&in, argc, argv, &i);
 *         if (r == 0)
 *             r = cli_who_option(&who, argc, argv, &i);
 *         ...                        (r < 0: usage error, already told)
 *     }
 *     rc = cli_policy_load(&in, &policy);
 *     rc = cli_data_load(&in, policy, &dir);
 *     rc = cli_who_subject(&who, acre_policy_schema(policy), &subject);
 *     ...
 *     cli_inputs_free(&in);
 */
#ifndef ACRE_CLI_LOAD_H
#define ACRE_CLI_LOAD_H

#include <acre.h>
#include <stdio.h>

/* ------------------------------------------------------------------------
 * Options
 */

/*
 * cli_opt -- is argv[*i] the option `name` ("-D", "--policy"), which takes
 * a value?  Accepts `NAME VALUE`, and `NAME=VALUE` for a long option.
 * Returns the value and moves *i to the last argument used; NULL when
 * argv[*i] is another option.  A missing value is a usage error: it is
 * printed, *bad is set and NULL returned.  `cmd` names the command in
 * messages ("search").
 */
const char *cli_opt(const char *cmd, int argc, char **argv, int *i,
                    const char *name, int *bad);

/*
 * cli_once -- the check of a single-valued option: 0 when *seen is clear
 * (and sets it), else prints "acre CMD: option NAME given twice" and
 * returns -1.
 */
int cli_once(const char *cmd, const char *name, int *seen);

/* The policy and data files a command reads. */
struct cli_inputs {
    const char *cmd;     /* the command, for messages */
    const char **policy; /* --policy FILE, in order */
    unsigned npolicy;
    const char **data; /* --data FILE, in order */
    unsigned ndata;
    int dialect;     /* --dialect: enum acre_dialect, 0: guess (given once) */
    int strict;      /* --strict: ACRE_LOAD_STRICT for the data */
    int aci_variant; /* --aci-variant: 0 not given, 1 389, 2 opendj */
    int bad;         /* a usage error was printed */
};

/*
 * cli_inputs_option -- take argv[*i] when it is --policy, --data,
 * --dialect, --aci-variant or --strict.  Returns 1 taken, 0 not one of these,
 * -1 usage error (printed).  in->cmd must be set.
 */
int cli_inputs_option(struct cli_inputs *in, int argc, char **argv, int *i);

/* cli_inputs_free -- free the arrays of in (not the strings: argv's). */
void cli_inputs_free(struct cli_inputs *in);

/*
 * cli_dialect -- the dialect a --dialect value names: "slapd.conf" (or
 * "conf"), "cn=config" (or "slapd.d", "cnconfig") or "aci"; 0 when none.
 */
int cli_dialect(const char *name);

/* ------------------------------------------------------------------------
 * Loading
 */

/*
 * cli_policy_load -- compile the rule files of in (at least one) into one
 * policy over the built-in schema with slapd's matching.  One file is
 * compiled in its dialect: in->dialect, else guessed (a directory is
 * slapd.d; `.conf` is slapd.conf; `.ldif` is cn=config; else the content
 * decides: LDIF or slapd.conf directives).  "-" is standard input.
 * Several files are slapd.conf files read as one, in order, as if each
 * were included in turn (a database section goes on into the next
 * file); errors name the file where they are.  With --dialect aci the
 * rules are the `aci` values of the entries of the --policy files, then
 * of the --data files (LDIF), in 389-DS's semantics or OpenDJ's
 * (--aci-variant); no --policy is needed.
 *   out: OUT, release with acre_policy_release.
 */
int cli_policy_load(const struct cli_inputs *in, acre_policy **out);

/*
 * cli_data_load -- load the LDIF files of in (at least one) into one
 * directory over policy's schema, all-or-nothing.  When standard error is
 * a terminal and the load takes more than a second, a progress line is
 * kept up to date there and ended with a summary.
 *   out: OUT, free with acre_directory_free.
 */
int cli_data_load(const struct cli_inputs *in, const acre_policy *policy,
                  acre_directory **out);

/*
 * cli_diag_print -- print d as `FILE:LINE:COLUMN: error: MESSAGE`, the
 * parts that are unknown (0 or NULL) left out; `name` stands in for a
 * NULL d->file (NULL: none).
 */
void cli_diag_print(const acre_diag *d, const char *name);

/* cli_diag_warn -- the same as a warning (`...: warning: MESSAGE`). */
void cli_diag_warn(const acre_diag *d, const char *name);

/*
 * cli_diag_exit -- the exit code for an error: CLI_EXIT_USAGE for a file
 * that cannot be read at all (an I/O code without a line), an invalid
 * argument or no memory; CLI_EXIT_INPUT for everything that is wrong
 * inside an input.
 */
int cli_diag_exit(const acre_diag *d);

/*
 * cli_dn_check -- parse dn with schema as the library will (flags: for
 * acre_dn_parse, 0 or ACRE_DN_SLAPD); on error print
 * `SOURCE:1:COLUMN: error: MESSAGE` (SOURCE names where the DN came
 * from, e.g. "-b") and return CLI_EXIT_INPUT.
 */
int cli_dn_check(const acre_schema *schema, const char *source, const char *dn,
                 unsigned flags);

/* ------------------------------------------------------------------------
 * The requester
 */

struct cli_who {
    const char *cmd;         /* the command, for messages */
    const char *authz_dn;    /* -D: NULL anonymous */
    const char *authc_dn;    /* --authc-dn */
    const char *auth_method; /* --auth-method, validated */
    const char *peername;    /* --peer, in slapd's form */
    const char *sockname, *sockurl, *domain;
    const char *time; /* --time, validated */
    int64_t epoch;    /* --time in seconds since the Epoch; 0: now */
    unsigned ssf, transport_ssf, tls_ssf, sasl_ssf;
    int subentries;     /* --subentries */
    unsigned req_flags; /* further ACRE_REQ_* flags the command sets */
    unsigned seen;      /* options given (bit k: names[k] of load.c) */
    int ismemberof;     /* --ismemberof */
    int memberof;       /* --memberof */
    int nsrole;         /* 389's virtual nsRole (--dialect aci, 389 variant:
                           its roles plugin always computes it) */
    unsigned dn_flags;  /* -D and --authc-dn are parsed with these
                           (ACRE_DN_SLAPD: the OpenLDAP dialect, whose
                           slapd refuses some forms a bind could name) */
    char peerbuf[96];   /* --peer rewritten to IP=ADDR:PORT */
    char sockbuf[96];   /* --sockname likewise */
};

/*
 * cli_who_option -- take argv[*i] when it is one of the requester's
 * options: -D, --authc-dn, --auth-method, --ssf, --peer, --sockname,
 * --sockurl, --domain, --time, --subentries, --ismemberof, --memberof.
 * Values are validated here; each option but --ssf (one per kind),
 * --subentries, --ismemberof and --memberof may be given once: a second
 * one is a usage error, not an override.
 * Returns 1 taken, 0 not one of these, -1 usage error (printed).
 */
int cli_who_option(struct cli_who *w, int argc, char **argv, int *i);

/*
 * cli_who_subject -- the acre_subject of w (pointing into w and argv)
 * once its DNs are checked against schema; CLI_EXIT_INPUT for a DN that
 * does not parse, CLI_EXIT_USAGE for options that contradict each other.
 */
int cli_who_subject(const struct cli_who *w, const acre_schema *schema,
                    acre_subject *out);

/*
 * cli_request -- acre_request_begin for w over policy and host (a
 * directory's: acre_directory_host), with the request flags w asks for
 * (--subentries, --ismemberof, --memberof, and nsRole).  Prints the
 * error.
 */
int cli_request(const struct cli_who *w, acre_policy *policy,
                const acre_host *host, acre_request **out);

/* ------------------------------------------------------------------------
 * Output
 */

/*
 * cli_attr_name -- the name to show for attribute description desc[0..n),
 * as slapd shows it: the schema's canonical name for its type followed by
 * the options in lower case and sorted ("CN;Lang-FR;lang-de" is
 * "cn;lang-de;lang-fr"), into buf (size bytes); the description as
 * written when the schema does not know it or it does not fit.  Returns
 * buf.
 */
const char *cli_attr_name(const acre_schema *schema, const char *desc, size_t n,
                          char *buf, size_t size);

/*
 * cli_attr_name_389 -- cli_attr_name as 389-DS stores a description: the
 * options in lower case but in the order written.
 */
const char *cli_attr_name_389(const acre_schema *schema, const char *desc,
                              size_t n, char *buf, size_t size);

/*
 * cli_json_str -- s[0..n) as a JSON string on f: quotes, backslashes and
 * control characters escaped, UTF-8 kept, each byte that is not part of
 * valid UTF-8 written as U+FFFD.
 */
void cli_json_str(FILE *f, const char *s, size_t n);

/*
 * cli_base64 -- v[0..n) in base64 (RFC 4648, with padding) on f, as LDIF
 * writes a value after "::".
 */
void cli_base64(FILE *f, const void *v, size_t n);

/*
 * cli_text_safe -- can v[0..n) be printed as it is on a line of text: valid
 * UTF-8 without control characters (C0, DEL, C1) or line and paragraph
 * separators (U+2028, U+2029)?  1 or 0.
 */
int cli_text_safe(const void *v, size_t n);

#endif /* ACRE_CLI_LOAD_H */
