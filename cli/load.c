/*
 * load.c -- the inputs the acre subcommands share (see load.h): options,
 * policies, LDIF directories, the requester, diagnostics.
 *
 * Invariants: every error is reported here, once, on one line of standard
 * error, and turned into an exit code of cli.h; an out-parameter is only
 * written on success.  Only the library's public API is used.
 */
#include "load.h"

#include "cli.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_STDIN (256u << 20) /* bytes of rules read from standard input */
#define SNIFF     4096         /* bytes looked at to guess a dialect */

/* ------------------------------------------------------------------------
 * Options
 */

/* cli_opt -- see load.h. */
const char *
cli_opt(const char *cmd, int argc, char **argv, int *i, const char *name,
        int *bad)
{
    const char *a = argv[*i];
    size_t n = strlen(name);

    if (strncmp(a, name, n) != 0)
        return NULL;
    if (a[n] == '=' && name[1] == '-')
        return a + n + 1;
    if (a[n] != '\0')
        return NULL;
    if (*i + 1 >= argc) {
        fprintf(stderr, "acre %s: option %s needs a value\n", cmd, name);
        *bad = 1;
        return NULL;
    }
    return argv[++*i];
}

/* cli_once -- see load.h. */
int
cli_once(const char *cmd, const char *name, int *seen)
{
    if (!*seen) {
        *seen = 1;
        return 0;
    }
    fprintf(stderr, "acre %s: option %s given twice\n", cmd, name);
    return -1;
}

/* push -- append s to the array *v of *n strings. */
static int
push(const char ***v, unsigned *n, const char *s)
{
    const char **nv = realloc(*v, (*n + 1) * sizeof(**v));

    if (!nv)
        return -1;
    nv[(*n)++] = s;
    *v = nv;
    return 0;
}

/* cli_dialect -- see load.h. */
int
cli_dialect(const char *name)
{
    if (!strcmp(name, "slapd.conf") || !strcmp(name, "conf"))
        return ACRE_DIALECT_SLAPD_CONF;
    if (!strcmp(name, "cn=config") || !strcmp(name, "slapd.d") ||
        !strcmp(name, "cnconfig"))
        return ACRE_DIALECT_SLAPD_CNCONFIG;
    if (!strcmp(name, "aci"))
        return ACRE_DIALECT_ACI;
    return 0;
}

/* cli_inputs_option -- see load.h. */
int
cli_inputs_option(struct cli_inputs *in, int argc, char **argv, int *i)
{
    const char *v;
    int bad = 0;

    if ((v = cli_opt(in->cmd, argc, argv, i, "--policy", &bad)))
        return push(&in->policy, &in->npolicy, v) ? -1 : 1;
    if (!bad && (v = cli_opt(in->cmd, argc, argv, i, "--data", &bad)))
        return push(&in->data, &in->ndata, v) ? -1 : 1;
    if (!bad && strcmp(argv[*i], "--strict") == 0)
        return in->strict = 1;
    if (!bad && (v = cli_opt(in->cmd, argc, argv, i, "--aci-variant", &bad))) {
        if (in->aci_variant) {
            cli_once(in->cmd, "--aci-variant", &in->aci_variant);
        } else if (!strcmp(v, "389") || !strcmp(v, "opendj")) {
            in->aci_variant = !strcmp(v, "389") ? 1 : 2;
            return 1;
        } else {
            fprintf(stderr,
                    "acre %s: unknown ACI variant '%s' (389 or opendj)\n",
                    in->cmd, v);
        }
        bad = 1;
    }
    if (!bad && (v = cli_opt(in->cmd, argc, argv, i, "--dialect", &bad))) {
        if (in->dialect) {
            cli_once(in->cmd, "--dialect", &in->dialect);
        } else if ((in->dialect = cli_dialect(v))) {
            return 1;
        } else {
            fprintf(stderr,
                    "acre %s: unknown dialect '%s' (slapd.conf, "
                    "cn=config or aci)\n",
                    in->cmd, v);
        }
        bad = 1;
    }
    if (bad)
        in->bad = 1;
    return bad ? -1 : 0;
}

/* cli_inputs_free -- see load.h. */
void
cli_inputs_free(struct cli_inputs *in)
{
    free(in->policy);
    free(in->data);
    in->policy = in->data = NULL;
    in->npolicy = in->ndata = 0;
}

/* ------------------------------------------------------------------------
 * Diagnostics
 */

static void
diag_print(const acre_diag *d, const char *name, const char *kind)
{
    const char *file = d->file ? d->file : name;

    if (file && d->line && d->column)
        fprintf(stderr, "%s:%u:%u: %s: %s\n", file, d->line, d->column, kind,
                d->message);
    else if (file && d->line)
        fprintf(stderr, "%s:%u: %s: %s\n", file, d->line, kind, d->message);
    else if (file)
        fprintf(stderr, "%s: %s: %s\n", file, kind, d->message);
    else
        fprintf(stderr, "acre: %s: %s\n", kind, d->message);
}

/* cli_diag_print -- see load.h. */
void
cli_diag_print(const acre_diag *d, const char *name)
{
    diag_print(d, name, "error");
}

/* cli_diag_warn -- see load.h. */
void
cli_diag_warn(const acre_diag *d, const char *name)
{
    diag_print(d, name, "warning");
}

/* cli_diag_exit -- see load.h. */
int
cli_diag_exit(const acre_diag *d)
{
    switch (d->code) {
    case ACRE_ERR_RULE_IO:
    case ACRE_ERR_LDIF_IO:
    case ACRE_ERR_SCHEMA_IO:
        return d->line ? CLI_EXIT_INPUT : CLI_EXIT_USAGE;
    case ACRE_ERR_NOMEM:
    case ACRE_ERR_INVAL:
        return CLI_EXIT_USAGE;
    default:
        return CLI_EXIT_INPUT;
    }
}

/* cli_dn_check -- see load.h. */
int
cli_dn_check(const acre_schema *schema, const char *source, const char *dn,
             unsigned flags)
{
    acre_diag d;
    acre_dn *out;

    memset(&d, 0, sizeof d);
    if (acre_dn_parse(NULL, schema, dn, strlen(dn), flags, &out, &d) == 0) {
        acre_dn_free(out);
        return CLI_EXIT_OK;
    }
    d.file = NULL;
    d.line = 1;
    if (!d.column)
        d.column = 1;
    cli_diag_print(&d, source);
    return CLI_EXIT_INPUT;
}

/* ------------------------------------------------------------------------
 * Policies
 */

/* read_stream -- all of f into a new buffer (*out, free()), bounded. */
static int
read_stream(const char *cmd, FILE *f, char **out, size_t *len)
{
    size_t cap = 65536, n = 0, got;
    char *buf = malloc(cap), *nb;

    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n > MAX_STDIN) {
            fprintf(stderr, "acre %s: standard input is larger than %u MiB\n",
                    cmd, MAX_STDIN >> 20);
            free(buf);
            return CLI_EXIT_USAGE;
        }
        if (n == cap) {
            if (!(nb = realloc(buf, cap * 2))) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    if (!buf || ferror(f)) {
        fprintf(stderr, "acre %s: standard input: %s\n", cmd,
                buf ? strerror(errno) : "out of memory");
        free(buf);
        return CLI_EXIT_USAGE;
    }
    *out = buf;
    *len = n;
    return CLI_EXIT_OK;
}

static int
has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);

    return n > m && strcasecmp(s + n - m, suffix) == 0;
}

/* Directives a slapd.conf commonly starts with. */
static const char *const conf_words[] = {
    "access",        "include",        "database",     "suffix",
    "rootdn",        "rootpw",         "backend",      "modulepath",
    "moduleload",    "attributetype",  "objectclass",  "objectidentifier",
    "pidfile",       "argsfile",       "loglevel",     "add_content_acl",
    "directory",     "index",          "overlay",      "limits",
    "sizelimit",     "timelimit",      "allow",        "disallow",
    "require",       "security",       "authz-regexp", "authz-policy",
    "password-hash", "ditcontentrule", "ldapsyntax",   "defaultsearchbase"};

/* sniff -- the dialect text[0..len) looks like: its first line that is
 * neither blank nor a comment starts an LDIF record or a directive. */
static int
sniff(const char *t, size_t len)
{
    size_t i = 0, w;

    while (i < len) {
        size_t e = i;
        while (e < len && t[e] != '\n')
            e++;
        while (i < e && (t[i] == ' ' || t[i] == '\t' || t[i] == '\r'))
            i++;
        if (i < e && t[i] != '#')
            break;
        i = e + 1;
    }
    if (i >= len)
        return 0;
    if ((len - i >= 3 && !strncasecmp(t + i, "dn:", 3)) ||
        (len - i >= 8 && !strncasecmp(t + i, "version:", 8)))
        return ACRE_DIALECT_SLAPD_CNCONFIG;
    for (w = i; w < len && !isspace((unsigned char)t[w]); w++)
        ;
    for (size_t k = 0; k < sizeof conf_words / sizeof *conf_words; k++)
        if (strlen(conf_words[k]) == w - i &&
            !strncasecmp(t + i, conf_words[k], w - i))
            return ACRE_DIALECT_SLAPD_CONF;
    return 0;
}

/* guess -- the dialect of path (text: its content when already read). */
static int
guess(const char *path, const char *text, size_t len)
{
    struct stat st;
    char buf[SNIFF];
    FILE *f;

    if (text)
        return sniff(text, len < SNIFF ? len : SNIFF);
    int got = stat(path, &st) == 0;
    if (got && S_ISDIR(st.st_mode))
        return ACRE_DIALECT_SLAPD_CNCONFIG;
    if (has_suffix(path, ".conf"))
        return ACRE_DIALECT_SLAPD_CONF;
    if (has_suffix(path, ".ldif"))
        return ACRE_DIALECT_SLAPD_CNCONFIG;
    if (!got || !S_ISREG(st.st_mode) || !(f = fopen(path, "r")))
        return 0; /* never opened when it could block (a FIFO) */
    len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    return sniff(buf, len);
}

/* readable -- can path be opened?  Prints why not. */
static int
readable(const char *path)
{
    struct stat st;
    FILE *f;

    int got = stat(path, &st) == 0;
    if (got && S_ISDIR(st.st_mode))
        return CLI_EXIT_OK;
    if (got && !S_ISREG(st.st_mode)) { /* a FIFO would block: not opened */
        fprintf(stderr, "%s: error: cannot open: not a regular file\n", path);
        return CLI_EXIT_USAGE;
    }
    if (!(f = fopen(path, "r"))) {
        fprintf(stderr, "%s: error: cannot open: %s\n", path, strerror(errno));
        return CLI_EXIT_USAGE;
    }
    fclose(f);
    return CLI_EXIT_OK;
}

static int
compile(const acre_source *src, acre_policy **out)
{
    acre_diag d;

    memset(&d, 0, sizeof d);
    if (acre_policy_compile(NULL, NULL, src, 1, 0, out, &d) == 0)
        return CLI_EXIT_OK;
    cli_diag_print(&d, src->path);
    return cli_diag_exit(&d);
}

/* one_policy -- the one rule file of in. */
static int
one_policy(const struct cli_inputs *in, acre_policy **out)
{
    const char *path = in->policy[0];
    acre_source src = {in->dialect, path, NULL, 0};
    char *text = NULL;
    int rc;

    if (strcmp(path, "-") == 0) {
        if ((rc = read_stream(in->cmd, stdin, &text, &src.len)))
            return rc;
        src.text = text;
    } else if ((rc = readable(path))) {
        return rc;
    }
    if (!src.dialect && !(src.dialect = guess(path, src.text, src.len))) {
        fprintf(stderr,
                "%s: error: cannot tell the rule dialect: use --dialect "
                "slapd.conf or --dialect cn=config\n",
                path);
        free(text);
        return CLI_EXIT_USAGE;
    }
    rc = compile(&src, out);
    free(text);
    return rc;
}

/* include_line -- `include "PATH"` for one of several slapd.conf files. */
static int
include_line(const struct cli_inputs *in, const char *path, char **text,
             size_t *len)
{
    int dialect = in->dialect ? in->dialect : guess(path, NULL, 0);
    char *nt;

    if (strcmp(path, "-") == 0) {
        fprintf(stderr,
                "acre %s: standard input can only be the one --policy\n",
                in->cmd);
        return CLI_EXIT_USAGE;
    }
    if (strpbrk(path, "\"\\\n")) {
        fprintf(stderr,
                "acre %s: '%s': with several --policy files each must be a "
                "file name without quotes, backslashes or newlines\n",
                in->cmd, path);
        return CLI_EXIT_USAGE;
    }
    if (readable(path))
        return CLI_EXIT_USAGE;
    if (dialect != ACRE_DIALECT_SLAPD_CONF) {
        fprintf(stderr,
                "%s: error: several --policy files are read as one "
                "slapd.conf; this one is not a slapd.conf file\n",
                path);
        return CLI_EXIT_USAGE;
    }
    if (!(nt = realloc(*text, *len + strlen(path) + 12))) {
        fprintf(stderr, "acre %s: out of memory\n", in->cmd);
        return CLI_EXIT_USAGE;
    }
    *text = nt;
    *len += (size_t)sprintf(nt + *len, "include \"%s\"\n", path);
    return CLI_EXIT_OK;
}

/* several_policies -- the rule files of in as one slapd.conf that
 * includes each in turn; errors name the included file. */
static int
several_policies(const struct cli_inputs *in, acre_policy **out)
{
    acre_source src = {ACRE_DIALECT_SLAPD_CONF, "(--policy files)", NULL, 0};
    char *text = NULL;
    size_t len = 0;
    int rc = CLI_EXIT_OK;

    for (unsigned i = 0; !rc && i < in->npolicy; i++)
        rc = include_line(in, in->policy[i], &text, &len);
    if (!rc) {
        src.text = text;
        src.len = len;
        rc = compile(&src, out);
    }
    free(text);
    return rc;
}

/* aci_policy -- the ACIs of the --policy and --data files (LDIF) */
static int
aci_policy(const struct cli_inputs *in, acre_policy **out)
{
    unsigned n = in->npolicy + in->ndata;
    acre_source *src = calloc(n ? n : 1, sizeof *src);
    unsigned flags = in->aci_variant == 2 ? ACRE_COMPILE_ACI_OPENDJ : 0;
    acre_diag d;
    int rc = CLI_EXIT_OK;

    if (!src) {
        fprintf(stderr, "acre %s: out of memory\n", in->cmd);
        return CLI_EXIT_USAGE;
    }
    if (in->ndata == 0) {
        fprintf(stderr, "acre %s: no --data given\n", in->cmd);
        rc = CLI_EXIT_USAGE;
    }
    for (unsigned i = 0; rc == CLI_EXIT_OK && i < n; i++) {
        const char *path =
            i < in->npolicy ? in->policy[i] : in->data[i - in->npolicy];
        if (!strcmp(path, "-")) {
            fprintf(stderr,
                    "acre %s: with --dialect aci the data is read twice "
                    "(rules, then entries): standard input cannot be one "
                    "of the files\n",
                    in->cmd);
            rc = CLI_EXIT_USAGE;
        } else {
            rc = readable(path);
        }
        src[i] = (acre_source){ACRE_DIALECT_ACI, path, NULL, 0};
    }
    memset(&d, 0, sizeof d);
    if (rc == CLI_EXIT_OK &&
        acre_policy_compile(NULL, NULL, src, n, flags, out, &d) != 0) {
        cli_diag_print(&d, src[0].path);
        rc = cli_diag_exit(&d);
    }
    free(src);
    return rc;
}

/* cli_policy_load -- see load.h. */
int
cli_policy_load(const struct cli_inputs *in, acre_policy **out)
{
    if (in->dialect == ACRE_DIALECT_ACI)
        return aci_policy(in, out);
    if (in->aci_variant) {
        fprintf(stderr, "acre %s: --aci-variant needs --dialect aci\n",
                in->cmd);
        return CLI_EXIT_USAGE;
    }
    if (in->npolicy == 0) {
        fprintf(stderr, "acre %s: no --policy given\n", in->cmd);
        return CLI_EXIT_USAGE;
    }
    return in->npolicy == 1 ? one_policy(in, out) : several_policies(in, out);
}

/* ------------------------------------------------------------------------
 * Directories
 */

struct progress {
    struct timespec start, last;
    int shown;
    const char *path; /* the file whose size is in `size` */
    uint64_t size;    /* 0: unknown */
    size_t entries;
};

static double
since(const struct timespec *a, const struct timespec *b)
{
    return (double)(b->tv_sec - a->tv_sec) + (b->tv_nsec - a->tv_nsec) / 1e9;
}

/* progress -- the library's progress function: a line on the terminal,
 * from one second into the load, redrawn at most five times a second. */
static void
progress(void *arg, const char *path, size_t entries, uint64_t offset)
{
    struct progress *pr = arg;
    struct timespec now;
    struct stat st;

    pr->entries = entries;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (since(&pr->start, &now) < 1.0 ||
        (pr->shown && since(&pr->last, &now) < 0.2))
        return;
    if (pr->path != path) {
        pr->path = path;
        pr->size = stat(path, &st) == 0 && S_ISREG(st.st_mode)
                       ? (uint64_t)st.st_size
                       : 0;
    }
    if (pr->size && offset)
        fprintf(stderr, "\racre: loading %s: %zu entries, %u%%\033[K", path,
                entries, (unsigned)(offset * 100 / pr->size));
    else
        fprintf(stderr, "\racre: loading %s: %zu entries\033[K", path, entries);
    pr->shown = 1;
    pr->last = now;
}

/* progress_end -- replace a progress line by a summary (or nothing). */
static void
progress_end(const struct progress *pr, const acre_directory *dir)
{
    struct timespec now;

    if (!pr->shown)
        return;
    clock_gettime(CLOCK_MONOTONIC, &now);
    fprintf(stderr, "\r\033[K");
    if (dir)
        fprintf(stderr, "acre: loaded %zu entries in %.1f s\n",
                acre_directory_count(dir), since(&pr->start, &now));
}

/* cli_data_load -- see load.h. */
int
cli_data_load(const struct cli_inputs *in, const acre_policy *policy,
              acre_directory **out)
{
    struct progress pr;
    acre_load_options opt;
    acre_directory *dir = NULL;
    acre_diag d;
    int rc;

    if (in->ndata == 0) {
        fprintf(stderr, "acre %s: no --data given\n", in->cmd);
        return CLI_EXIT_USAGE;
    }
    memset(&pr, 0, sizeof pr);
    memset(&d, 0, sizeof d);
    memset(&opt, 0, sizeof opt);
    clock_gettime(CLOCK_MONOTONIC, &pr.start);
    opt.flags = in->strict ? ACRE_LOAD_STRICT : 0;
    /* 389 returns DN values as its syntax plugin stored them */
    if (in->dialect == ACRE_DIALECT_ACI && in->aci_variant != 2)
        opt.flags |= ACRE_LOAD_389;
    opt.progress = isatty(2) ? progress : NULL;
    /* slapadd refuses an entry no database is configured to hold */
    opt.policy = policy;
    opt.progress_arg = &pr;
    rc = acre_directory_load_opt(NULL, acre_policy_schema(policy), in->data,
                                 in->ndata, &opt, &dir, &d);
    progress_end(&pr, rc ? NULL : dir);
    if (rc == 0) {
        *out = dir;
        return CLI_EXIT_OK;
    }
    cli_diag_print(&d, "--data");
    return cli_diag_exit(&d);
}

/* ------------------------------------------------------------------------
 * The requester
 */

/* number -- s as an unsigned at most max; -1 when it is not one. */
static long
number(const char *s, unsigned long max)
{
    char *end;
    unsigned long v;

    if (!isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    v = strtoul(s, &end, 10);
    return *end || errno || v > max ? -1 : (long)v;
}

static int
set_ssf(struct cli_who *w, const char *v)
{
    static const char *const kinds[] = {"transport=", "tls=", "sasl="};
    unsigned *slot[] = {&w->transport_ssf, &w->tls_ssf, &w->sasl_ssf};
    unsigned *to = &w->ssf;
    long n;

    for (int k = 0; k < 3; k++)
        if (!strncmp(v, kinds[k], strlen(kinds[k]))) {
            to = slot[k];
            v += strlen(kinds[k]);
        }
    if ((n = number(v, 65535)) < 0)
        return -1;
    *to = (unsigned)n;
    return 0;
}

/* addr -- an address as slapd writes peer and socket names: IP=A:PORT,
 * IP=[A6]:PORT or PATH=/socket, from that form or a bare address with
 * an optional port (":PORT", IPv6 in brackets; no port: 0). */
static int
addr(const char *v, char *buf, size_t size)
{
    char host[64];
    unsigned char bin[16];
    const char *port = "0", *h = v, *e;
    int v6;

    if (!strncmp(v, "PATH=/", 6))
        return snprintf(buf, size, "%s", v) < (int)size ? 0 : -1;
    if (!strncmp(v, "IP=", 3))
        h = v + 3;
    if (*h == '[') {
        if (!(e = strchr(h, ']')) || (e[1] && e[1] != ':'))
            return -1;
        h++;
        port = e[1] ? e + 2 : port;
    } else {
        e = strrchr(h, ':');
        if (e && strchr(h, ':') == e) /* IPv4 with a port */
            port = e + 1;
        else
            e = h + strlen(h);
    }
    if ((size_t)(e - h) >= sizeof host || number(port, 65535) < 0)
        return -1;
    memcpy(host, h, (size_t)(e - h));
    host[e - h] = '\0';
    v6 = strchr(host, ':') != NULL;
    if (inet_pton(v6 ? AF_INET6 : AF_INET, host, bin) != 1)
        return -1;
    return snprintf(buf, size, v6 ? "IP=[%s]:%s" : "IP=%s:%s", host, port) <
                   (int)size
               ? 0
               : -1;
}

/* auth_method -- none, simple, ssl (a TLS client certificate: ACI's
 * authmethod), sasl or sasl/MECHANISM (RFC 4422 names). */
static int
auth_method(const char *v)
{
    if (!strcmp(v, "none") || !strcmp(v, "simple") || !strcmp(v, "sasl") ||
        !strcmp(v, "ssl"))
        return 0;
    if (strncmp(v, "sasl/", 5) || !v[5] || strlen(v + 5) > 20)
        return -1;
    for (const char *p = v + 5; *p; p++)
        if (!isupper((unsigned char)*p) && !isdigit((unsigned char)*p) &&
            *p != '-' && *p != '_')
            return -1;
    return 0;
}

/* digits -- n digits at *s as a number between lo and hi, moving *s. */
static int
digits(const char **s, int n, int lo, int hi)
{
    int v = 0;

    for (int i = 0; i < n; i++, (*s)++) {
        if (!isdigit((unsigned char)**s))
            return -1;
        v = v * 10 + (**s - '0');
    }
    return v < lo || v > hi ? -1 : v;
}

/* zone -- Z, or +HH[:]MM / -HH[:]MM, ending the string. */
static int
zone(const char *s, int colon, long *off)
{
    int sign, h, m;

    *off = 0;
    if (*s == 'Z')
        return s[1] ? -1 : 0;
    if (*s != '+' && *s != '-')
        return -1;
    sign = *s++ == '-' ? -1 : 1;
    if ((h = digits(&s, 2, 0, 23)) < 0 || (colon && *s++ != ':') ||
        (m = digits(&s, 2, 0, 59)) < 0)
        return -1;
    *off = sign * (h * 3600L + m * 60L);
    return *s ? -1 : 0;
}

/* a_time -- "now" (*out 0), RFC 3339 (2024-05-01T12:00:00Z) or
 * generalized time (20240501120000Z), each with optional fractions of a
 * second (dropped): *out the seconds since the Epoch. */
static int
a_time(const char *s, int64_t *out)
{
    static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int iso = strlen(s) > 4 && s[4] == '-', y, m, d, hh, mi, ss;
    struct tm tm;
    long off;

    *out = 0;
    if (!strcmp(s, "now"))
        return 0;
    if ((y = digits(&s, 4, 0, 9999)) < 0 || (iso && *s++ != '-') ||
        (m = digits(&s, 2, 1, 12)) < 0 || (iso && *s++ != '-') ||
        (d = digits(&s, 2, 1, mdays[m - 1])) < 0 ||
        (m == 2 && d == 29 && (y % 4 || (y % 100 == 0 && y % 400))) ||
        (iso && *s++ != 'T') || (hh = digits(&s, 2, 0, 23)) < 0 ||
        (iso && *s++ != ':') || (mi = digits(&s, 2, 0, 59)) < 0 ||
        (iso && *s++ != ':') || (ss = digits(&s, 2, 0, 60)) < 0)
        return -1;
    if (*s == '.' || *s == ',') {
        if (!isdigit((unsigned char)*++s))
            return -1;
        while (isdigit((unsigned char)*s))
            s++;
    }
    if (zone(s, iso, &off))
        return -1;
    memset(&tm, 0, sizeof tm);
    tm.tm_year = y - 1900;
    tm.tm_mon = m - 1;
    tm.tm_mday = d;
    tm.tm_hour = hh;
    tm.tm_min = mi;
    tm.tm_sec = ss;
    *out = (int64_t)timegm(&tm) - off;
    return 0;
}

/* who_value -- check and keep the value of requester option `name`. */
static int
who_value(struct cli_who *w, const char *name, const char *v)
{
    if (!strcmp(name, "-D"))
        w->authz_dn = v;
    else if (!strcmp(name, "--authc-dn"))
        w->authc_dn = v;
    else if (!strcmp(name, "--auth-method"))
        return auth_method(v) ? -1 : (w->auth_method = v, 0);
    else if (!strcmp(name, "--ssf"))
        return set_ssf(w, v);
    else if (!strcmp(name, "--peer"))
        return addr(v, w->peerbuf, sizeof w->peerbuf)
                   ? -1
                   : (w->peername = w->peerbuf, 0);
    else if (!strcmp(name, "--sockname"))
        return addr(v, w->sockbuf, sizeof w->sockbuf)
                   ? -1
                   : (w->sockname = w->sockbuf, 0);
    else if (!strcmp(name, "--sockurl"))
        return strstr(v, "://") && !strpbrk(v, " \t\n") ? (w->sockurl = v, 0)
                                                        : -1;
    else if (!strcmp(name, "--domain"))
        return *v && strspn(v, "abcdefghijklmnopqrstuvwxyz"
                               "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-") ==
                           strlen(v)
                   ? (w->domain = v, 0)
                   : -1;
    else if (!strcmp(name, "--time"))
        return a_time(v, &w->epoch) ? -1 : (w->time = v, 0);
    return 0;
}

/* cli_who_option -- see load.h. */
int
cli_who_option(struct cli_who *w, int argc, char **argv, int *i)
{
    static const char *const names[] = {
        "-D",         "--authc-dn", "--auth-method", "--ssf", "--peer",
        "--sockname", "--sockurl",  "--domain",      "--time"};
    const char *v;
    int bad = 0;

    if (!strcmp(argv[*i], "--subentries")) {
        w->subentries = 1;
        return 1;
    }
    if (!strcmp(argv[*i], "--ismemberof")) {
        w->ismemberof = 1;
        return 1;
    }
    if (!strcmp(argv[*i], "--memberof")) {
        w->memberof = 1;
        return 1;
    }
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
        int seen = (w->seen >> k) & 1;
        if (!(v = cli_opt(w->cmd, argc, argv, i, names[k], &bad)))
            continue;
        if (strcmp(names[k], "--ssf") && cli_once(w->cmd, names[k], &seen))
            return -1;
        w->seen |= 1u << k;
        if (who_value(w, names[k], v) == 0)
            return 1;
        fprintf(stderr, "acre %s: invalid value for %s: '%s'\n", w->cmd,
                names[k], v);
        return -1;
    }
    return bad ? -1 : 0;
}

/* cli_who_subject -- see load.h. */
int
cli_who_subject(const struct cli_who *w, const acre_schema *schema,
                acre_subject *out)
{
    int rc;

    /* an anonymous connection: no DN bound; -D only names the DN of a
     * proxied authorization, with --authc-dn '' (the DN bound, none) */
    if (w->auth_method && !strcmp(w->auth_method, "none") &&
        ((w->authc_dn && *w->authc_dn) ||
         (!w->authc_dn && w->authz_dn && *w->authz_dn))) {
        fprintf(stderr,
                "acre %s: --auth-method none is anonymous: it takes "
                "no -D or --authc-dn (but -D DN --authc-dn '', a proxied "
                "authorization on an anonymous connection)\n",
                w->cmd);
        return CLI_EXIT_USAGE;
    }
    if ((w->authz_dn &&
         (rc = cli_dn_check(schema, "-D", w->authz_dn, w->dn_flags))) ||
        (w->authc_dn &&
         (rc = cli_dn_check(schema, "--authc-dn", w->authc_dn, w->dn_flags))))
        return rc;
    memset(out, 0, sizeof *out);
    out->authz_dn = w->authz_dn;
    out->authc_dn = w->authc_dn;
    out->peername = w->peername;
    out->sockname = w->sockname;
    out->sockurl = w->sockurl;
    out->domain = w->domain;
    out->ssf = w->ssf;
    out->transport_ssf = w->transport_ssf;
    out->tls_ssf = w->tls_ssf;
    out->sasl_ssf = w->sasl_ssf;
    out->auth_method = w->auth_method;
    out->time = w->epoch;
    return CLI_EXIT_OK;
}

/* cli_request -- see load.h. */
int
cli_request(const struct cli_who *w, acre_policy *policy, const acre_host *host,
            acre_request **out)
{
    acre_subject who;
    acre_request *rq;
    int rc;

    if ((rc = cli_who_subject(w, acre_policy_schema(policy), &who)))
        return rc;
    if ((rc = acre_request_begin(policy, &who, host, &rq))) {
        fprintf(stderr, "acre %s: cannot start the request: %s\n", w->cmd,
                acre_strerror(rc));
        return CLI_EXIT_USAGE;
    }
    acre_request_set_flags(
        rq, (w->subentries ? ACRE_REQ_SUBENTRIES : 0) |
                (w->ismemberof ? ACRE_REQ_ISMEMBEROF : 0) |
                (w->memberof ? ACRE_REQ_MEMBEROF : 0) |
                (w->nsrole ? ACRE_REQ_NSROLE | ACRE_REQ_COS : 0) |
                w->req_flags);
    *out = rq;
    return CLI_EXIT_OK;
}

/* ------------------------------------------------------------------------
 * Output
 */

/* as_written -- desc[0..n) into buf, cut to fit. */
static const char *
as_written(const char *desc, size_t n, char *buf, size_t size)
{
    if (n >= size)
        n = size - 1;
    memcpy(buf, desc, n);
    buf[n] = '\0';
    return buf;
}

/* cli_attr_name -- see load.h. */
const char *
cli_attr_name(const acre_schema *schema, const char *desc, size_t n, char *buf,
              size_t size)
{
    int id = acre_schema_attr_id(schema, desc, n);
    size_t len;
    const char *canon =
        id >= 0 ? acre_schema_attr_desc(schema, id, &len) : NULL;

    if (!canon || len >= size)
        return as_written(desc, n, buf, size);
    memcpy(buf, canon, len + 1);
    return buf;
}

/* cli_attr_name_389 -- see load.h. */
const char *
cli_attr_name_389(const acre_schema *schema, const char *desc, size_t n,
                  char *buf, size_t size)
{
    const char *name = acre_schema_attr_name(schema, desc, n);
    const char *semi = memchr(desc, ';', n);
    size_t opts = semi ? n - (size_t)(semi - desc) : 0;

    if (!name || strlen(name) + opts >= size)
        return as_written(desc, n, buf, size);
    snprintf(buf, size, "%s%.*s", name, (int)opts, semi ? semi : "");
    for (char *p = strchr(buf, ';'); p && *p; p++)
        *p = (char)tolower((unsigned char)*p);
    return buf;
}

/* utf8_len -- bytes of the valid UTF-8 sequence at s[0..n), or 0. */
static size_t
utf8_len(const unsigned char *s, size_t n)
{
    size_t len = s[0] >= 0xf0 && s[0] <= 0xf4   ? 4
                 : s[0] >= 0xe0                 ? 3
                 : s[0] >= 0xc2 && s[0] <= 0xdf ? 2
                                                : 0;
    unsigned cp;

    if (len == 0 || len > n)
        return 0;
    cp = s[0] & (0x7f >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
        (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
        return 0;
    return len;
}

/* cli_base64 -- see load.h. */
void
cli_base64(FILE *f, const void *val, size_t n)
{
    static const char abc[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const unsigned char *v = val;

    for (size_t i = 0; i < n; i += 3) {
        unsigned long x = (unsigned long)v[i] << 16;
        if (i + 1 < n)
            x |= (unsigned long)v[i + 1] << 8;
        if (i + 2 < n)
            x |= v[i + 2];
        fputc(abc[x >> 18 & 63], f);
        fputc(abc[x >> 12 & 63], f);
        fputc(i + 1 < n ? abc[x >> 6 & 63] : '=', f);
        fputc(i + 2 < n ? abc[x & 63] : '=', f);
    }
}

/* cli_text_safe -- see load.h. */
int
cli_text_safe(const void *val, size_t n)
{
    const unsigned char *v = val;

    for (size_t i = 0, k; i < n; i += k) {
        if (v[i] < 0x80) {
            if (v[i] < 0x20 || v[i] == 0x7f)
                return 0;
            k = 1;
            continue;
        }
        if (!(k = utf8_len(v + i, n - i)))
            return 0;
        if ((k == 2 && v[i] == 0xc2 && v[i + 1] < 0xa0) || /* C1 */
            (k == 3 && v[i] == 0xe2 && v[i + 1] == 0x80 &&
             (v[i + 2] == 0xa8 || v[i + 2] == 0xa9))) /* U+2028/9 */
            return 0;
    }
    return 1;
}

/* cli_json_str -- see load.h. */
void
cli_json_str(FILE *f, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;

    fputc('"', f);
    for (size_t i = 0; i < n; i++) {
        size_t k;
        if (p[i] == '"' || p[i] == '\\')
            fprintf(f, "\\%c", p[i]);
        else if (p[i] == '\n')
            fputs("\\n", f);
        else if (p[i] < 0x20 || p[i] == 0x7f)
            fprintf(f, "\\u%04x", p[i]);
        else if (p[i] < 0x80)
            fputc(p[i], f);
        else if ((k = utf8_len(p + i, n - i)) > 0) {
            fwrite(p + i, 1, k, f);
            i += k - 1;
        } else
            fputs("\\ufffd", f);
    }
    fputc('"', f);
}
