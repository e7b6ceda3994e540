/*
 * fuzz_regex_check.c -- libFuzzer target for regular-expression rules
 * whose submatches a clause substitutes, through the whole check path:
 * the rule compiled (or refused), then checks of an entry whose DN and
 * value the input chooses, each compared with the reference evaluator.
 *
 * Input: one byte of choices, then up to three NUL-separated fields: the
 * target pattern P, the clause's template T and the entry's RDN value V
 * (also its description).  The policy is
 *     access to dn.regex="P|^$" by <who>="T" read by * none
 *     access to * by * read
 * or, by the choice byte, "attrs=description val.regex=..." as the target,
 * with <who> one of dn.exact,expand / dn.regex / dn.children,expand /
 * peername.regex.  "|^$" keeps a '|' in every pattern (it never matches a
 * DN or a value), so the submatches are slapd's, taken from regexec.
 * With bit 3 of the choice byte, V is repeated to 1,000 to 8,000 bytes
 * (bits 4-5): subjects past the regexec budget, where only the bounds
 * are checked (the oracle's unbounded regexec is not run on them).
 * Every input must:
 *   - compile, or be refused with a rule, limit or memory error and a
 *     message (a back-reference in such a pattern is refused: glibc's
 *     regexec has no bound on it; so is a pattern too costly for regcomp);
 *   - decide each check (the entry, the description value, "entry" and
 *     "children" for a few requesters) as the oracle does -- except where
 *     the engine reports a bound reached (ACRE_ERR_EVAL_LIMIT): then it
 *     denies, and the oracle is not asked; and except for patterns with
 *     an anchor inside a repeated group, which glibc misjudges
 *     (anchor_repeated);
 *   - neither crash, nor leak, nor run past libFuzzer's -timeout: that is
 *     the time bound this target exists for.
 * Any violation aborts.
 */
#include <acre.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>

#include "directory.h"
#include "entry.h"
#include "openldap.h"
#include "openldap_oracle.h"

#define FIELD_MAX 300 /* bytes of one field */

#define check(cond) check_at((cond), __LINE__, #cond)

static void
check_at(int cond, int line, const char *what)
{
    if (!cond) {
        fprintf(stderr, "fuzz_regex_check.c:%d: check failed: %s\n", line,
                what);
        abort();
    }
}

static const char *const who_kinds[] = {"dn.exact,expand", "dn.regex",
                                        "dn.children,expand", "peername.regex"};

/* Field i of data[0..n) (NUL-separated), or "" past the last. */
static const char *
field(void *ctx, const uint8_t *data, size_t n, int i)
{
    size_t a = 0;

    for (int k = 0; k < i; k++) {
        const uint8_t *z = memchr(data + a, '\0', n - a);
        if (!z)
            return "";
        a = (size_t)(z - data) + 1;
    }
    const uint8_t *z = memchr(data + a, '\0', n - a);
    size_t len = z ? (size_t)(z - (data + a)) : n - a;
    return talloc_strndup(ctx, (const char *)data + a,
                          len > FIELD_MAX ? FIELD_MAX : len);
}

/* s for a quoted slapd.conf string: '\' doubled; NULL when it holds what
 * a quoted string cannot (a quote, a line end). */
static char *
quoted(void *ctx, const char *s)
{
    char *o = talloc_strdup(ctx, "");

    if (strpbrk(s, "\"\r\n"))
        return NULL;
    for (; o && *s; s++)
        o = *s == '\\' ? talloc_strdup_append(o, "\\\\")
                       : talloc_asprintf_append(o, "%c", *s);
    return o;
}

/* v as an RFC 4514 attribute value. */
static char *
dn_value(void *ctx, const char *v)
{
    char *o = talloc_strdup(ctx, "");
    size_t n = strlen(v);

    for (size_t i = 0; o && i < n; i++) {
        unsigned char c = (unsigned char)v[i];
        int esc = strchr(",+\"\\<>;=", c) ||
                  (i == 0 && (c == '#' || c == ' ')) ||
                  (i == n - 1 && c == ' ');
        o = c < 0x20 || c >= 0x7f ? talloc_asprintf_append(o, "\\%02x", c)
            : esc                 ? talloc_asprintf_append(o, "\\%c", c)
                                  : talloc_asprintf_append(o, "%c", c);
    }
    return o;
}

/* base64 of s, for an LDIF "attr:: " line. */
static char *
b64(void *ctx, const char *s)
{
    static const char t[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t n = strlen(s);
    char *o = talloc_size(ctx, 4 * (n / 3 + 1) + 1), *p = o;

    for (size_t i = 0; o && i < n; i += 3) {
        uint32_t v = (uint32_t)(unsigned char)s[i] << 16;
        v |= i + 1 < n ? (uint32_t)(unsigned char)s[i + 1] << 8 : 0;
        v |= i + 2 < n ? (uint32_t)(unsigned char)s[i + 2] : 0;
        *p++ = t[v >> 18 & 63];
        *p++ = t[v >> 12 & 63];
        *p++ = i + 1 < n ? t[v >> 6 & 63] : '=';
        *p++ = i + 2 < n ? t[v & 63] : '=';
    }
    if (o)
        *p = '\0';
    return o;
}

/*
 * Does p put an anchor inside something glibc copies to repeat it (the
 * operand of '+' or of {n,m})?  glibc's regexec, hence slapd, misjudges
 * some of those ("(^a|b)+" does not match "ba", "($a|b){2}" matches "ba";
 * acre-rules(5), CAVEATS), where acre matches the pattern as written: the
 * oracle's answer is not compared there.
 */
static int
anchor_repeated(const char *p)
{
    unsigned char has[64] = {0}; /* an anchor in the group at each depth */
    int depth = 0, last = 0;     /* the atom before holds an anchor */

    for (size_t i = 0; p[i]; i++) {
        char c = p[i];
        int anchor = 0;
        if (c == '+' || c == '{') {
            if (last)
                return 1;
            continue;
        }
        if (c == '*' || c == '?')
            continue;
        if (c == '|') {
            last = 0;
            continue;
        }
        if (c == '(') {
            depth += depth < 63;
            has[depth] = 0;
            last = 0;
            continue;
        }
        if (c == ')' && depth > 0) {
            anchor = has[depth--];
        } else if (c == '\\' && p[i + 1]) {
            anchor = strchr("<>bB`'", p[++i]) != NULL;
        } else if (c == '[') {
            i += p[i + 1] == '^';
            i += p[i + 1] == ']';
            while (p[i + 1] && p[i + 1] != ']')
                i++;
        } else {
            anchor = c == '^' || c == '$';
        }
        has[depth] |= (unsigned char)anchor;
        last = anchor;
    }
    return 0;
}

struct world {
    void *ctx;
    acre_policy *p;
    acre_directory *dir;
    struct acreI_policy *cfg;
    struct acreE_dir *odir;
    const char *edn; /* the fuzzed entry's DN */
    int compare;     /* the oracle's answers are acre's to match */
};

/* Abort unless acre's answer (g1, m1) is the oracle's; a bound reached
 * is no answer. */
static void
agree(const struct world *w, int g1, uint32_t m1, struct acreR_oracle *o,
      const struct acreR_target *t, int right, const char *what)
{
    uint32_t m2 = 0;

    if (g1 == ACRE_ERR_EVAL_LIMIT)
        return;
    check(g1 == 0 || g1 == 1);
    if (!w->compare)
        return;
    int g2 = acreR_oracle_check(o, t, (enum acreI_access)right, &m2, NULL);
    if (g1 != g2 || m1 != m2)
        fprintf(stderr, "%s, right %d: acre %d mask %#x, oracle %d mask %#x\n",
                what, right, g1, (unsigned)m1, g2, (unsigned)m2);
    check(g1 == g2 && m1 == m2);
}

/* The checks of one requester on the fuzzed entry. */
static void
requester(struct world *w, const char *authz)
{
    const acre_subject who = {.authz_dn = authz,
                              .peername = "IP=127.0.0.1:40000",
                              .sockurl = "ldap:///",
                              .domain = "localhost"};
    const struct acreR_requester orq = {.authz_dn = who.authz_dn,
                                        .peername = who.peername,
                                        .sockurl = who.sockurl,
                                        .domain = who.domain};
    struct acreR_oracle *o;
    acre_request *rq;
    acre_dn *dn;
    struct acreR_target t;
    acre_verdict v;

    check(acre_request_begin(w->p, &who, acre_directory_host(w->dir), &rq) ==
          0);
    check(acreR_oracle_new(w->ctx, w->cfg, w->odir, &orq, &o) == 0);
    check(acre_dn_parse(w->ctx, acre_policy_schema(w->p), w->edn,
                        strlen(w->edn), 0, &dn, NULL) == 0);
    const acre_entry_view *e =
        acre_entry_view_of(acre_directory_find(w->dir, dn));
    const struct acreE_entry *oe = acreE_dir_find(w->odir, dn);
    check(e && oe);
    static const char *const what[] = {"entry", "children", "cn"};
    for (int k = 0; k < 3; k++)
        for (int right = ACRE_RIGHT_SEARCH; right <= ACRE_RIGHT_WRITE;
             right++) {
            uint32_t m1 = 0;
            int g1 = acre_access(rq, e, what[k], NULL, 0, right, &m1);
            acreR_target_type(o, &t, &oe->v, what[k]);
            agree(w, g1, m1, o, &t, right, what[k]);
        }
    int id = acreR_target_type(o, &t, &oe->v, "description");
    for (uint32_t a = 0; id >= 0 && a < oe->v.nattrs; a++) {
        const acre_view_attr *at = &oe->v.attrs[a];
        for (uint32_t j = 0; at->id == id && j < at->nvals; j++) {
            uint32_t m1 = 0;
            int g1 = acre_access(rq, e, "description", at->vals[j].val,
                                 at->vals[j].len, ACRE_RIGHT_READ, &m1);
            acreR_target_attr(&t, oe->v.schema, &oe->v, at, (int)j);
            agree(w, g1, m1, o, &t, ACRE_RIGHT_READ, "a description value");
        }
    }
    check(acre_entry_decide(rq, e, ACRE_RIGHT_READ, &v) == 0);
    acre_request_end(rq);
    talloc_free(o);
}

/* The policy text of the input, or NULL when it cannot be written. */
static char *
policy_text(void *ctx, unsigned pick, const char *pat, const char *tmpl)
{
    char *p = quoted(ctx, pat), *t = quoted(ctx, tmpl);
    const char *target = pick & 4 ? "attrs=description val.regex" : "dn.regex";

    if (!p || !t || !t[0])
        return NULL;
    return talloc_asprintf(ctx,
                           "database mdb\nsuffix \"dc=example,dc=com\"\n"
                           "rootdn \"cn=manager,dc=example,dc=com\"\n"
                           "access to %s=\"%s|^$\"\n"
                           "  by %s=\"%s\" read\n  by * none\n"
                           "access to * by * read\n",
                           target, p, who_kinds[pick & 3], t);
}

/* v repeated up to n bytes. */
static const char *
repeat_to(void *ctx, const char *v, size_t n)
{
    size_t k = strlen(v);
    char *o = talloc_size(ctx, n + 1);

    for (size_t i = 0; o && i < n; i++)
        o[i] = v[i % k];
    if (o)
        o[n] = '\0';
    return o ? o : v;
}

/* The LDIF: the suffix and the entry cn=V (V its description too). */
static char *
ldif_text(void *ctx, const char *v, const char **edn)
{
    const char *val = v[0] ? v : "x";

    *edn = talloc_asprintf(ctx, "cn=%s,dc=example,dc=com", dn_value(ctx, val));
    return talloc_asprintf(ctx,
                           "dn: dc=example,dc=com\nobjectClass: domain\n"
                           "dc: example\n\n"
                           "dn:: %s\nobjectClass: person\ncn:: %s\nsn: s\n"
                           "description:: %s\n",
                           b64(ctx, *edn), b64(ctx, val), b64(ctx, val));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct world w = {0};
    acre_schema *s1, *s2;
    acre_diag d;

    if (size < 2)
        return 0;
    w.ctx = talloc_new(NULL);
    const char *pat = field(w.ctx, data + 1, size - 1, 0);
    const char *tmpl = field(w.ctx, data + 1, size - 1, 1);
    const char *val = field(w.ctx, data + 1, size - 1, 2);
    char *conf = policy_text(w.ctx, data[0], pat, tmpl);
    w.compare = !anchor_repeated(pat) && !anchor_repeated(tmpl) &&
                !(strpbrk(val, "^$\\") && strpbrk(tmpl, "+{"));
    if (data[0] & 8) { /* a long RDN: the bounds only */
        val = repeat_to(w.ctx, val[0] ? val : "a",
                        (size_t)1000 << (data[0] >> 4 & 3));
        w.compare = 0;
    }
    char *ldif = ldif_text(w.ctx, val, &w.edn);
    if (!conf) {
        talloc_free(w.ctx);
        return 0;
    }
    acre_source src = {ACRE_DIALECT_SLAPD_CONF, "fuzz.conf", conf,
                       strlen(conf)};
    check(acre_schema_new(w.ctx, ACRE_SCHEMA_SLAPD, &s1, NULL) == 0);
    int rc = acre_policy_compile(NULL, s1, &src, 1, 0, &w.p, &d);
    if (rc) {
        check(d.code == rc && d.message[0] != '\0');
        check(rc == ACRE_ERR_RULE_SYNTAX || rc == ACRE_ERR_RULE_LIMIT ||
              rc == ACRE_ERR_NOMEM);
        talloc_free(w.ctx);
        return 0;
    }
    check(acre_schema_new(w.ctx, ACRE_SCHEMA_SLAPD, &s2, NULL) == 0);
    check(acreO_parse_conf(w.ctx, s2, "fuzz.conf", conf, strlen(conf), &w.cfg,
                           &d) == 0);
    if (acre_directory_load(w.ctx, s1, "fuzz.ldif", ldif, strlen(ldif), &w.dir,
                            NULL) == 0) {
        check(acreE_dir_new(w.ctx, s2, 0, &w.odir) == 0);
        check(acreE_dir_load_ldif(w.odir, NULL, ldif, strlen(ldif), "fuzz.ldif",
                                  NULL, NULL, NULL) == 0);
        requester(&w, NULL);
        requester(&w, w.edn);
        requester(&w, "cn=x,dc=example,dc=com");
    }
    acre_policy_release(w.p);
    talloc_free(w.ctx);
    return 0;
}
