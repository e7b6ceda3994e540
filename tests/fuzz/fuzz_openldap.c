/*
 * fuzz_openldap.c -- libFuzzer target for the OpenLDAP rule front end
 * (compiler/openldap_*.c): slapd.conf text and cn=config LDIF.
 *
 * The first byte picks the reader (even: slapd.conf, odd: cn=config LDIF);
 * the rest is the input.  Beyond "never crash, never leak, never read out
 * of bounds" (ASan/UBSan) and bounded time, it checks on every input:
 *   - a rejected input has an error code of the front end (or a schema,
 *     LDIF or memory code), a diagnostic carrying that code, a line within
 *     the input (0 only when the error has no place) and a message;
 *   - an accepted configuration dumps to text, and every rule's parts are
 *     consistent: at least one clause, masks valid, controls known,
 *     patterns and compiled regexes present where the style needs them.
 * Schema definitions in the input are only noted (no schema is given), so
 * the target never changes process state.  Any violation aborts.
 */
#include <acre.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>

#include "openldap.h"

static void
check(int cond)
{
    if (!cond)
        abort();
}

static int
known_error(int rc)
{
    return rc == ACRE_ERR_RULE_SYNTAX || rc == ACRE_ERR_RULE_IO ||
           rc == ACRE_ERR_RULE_LIMIT || rc == ACRE_ERR_NOMEM ||
           (rc <= ACRE_ERR_SCHEMA_SYNTAX && rc >= ACRE_ERR_NO_SUCH_OBJECT);
}

static unsigned
count_lines(const uint8_t *p, size_t n)
{
    unsigned lines = 1;
    for (size_t i = 0; i < n; i++)
        lines += p[i] == '\n';
    return lines;
}

static void
check_rule(const struct acreI_rule *r)
{
    const struct acreI_what *w = &r->what;

    check(r->nby > 0);
    check(w->dn_style != ACREI_DN_REGEX || acreI_dn_re(w)->code);
    check(w->dn_style == ACREI_DN_ANY || w->dn_style == ACREI_DN_REGEX ||
          w->dn != NULL);
    check(acreI_val(w)->style == ACREI_VAL_NONE ||
          w->nattrs >= 1); /* slapd adds
                     later attrs */
    for (unsigned i = 0; i < r->nby; i++) {
        const struct acreI_clause *b = &r->by[i];
        check(b->mask != 0);
        check(b->control >= ACREI_STOP && b->control <= ACREI_BREAK);
        check(b->dn.kind != ACREI_SUBJ_REGEX ||
              acreI_pat(&b->dn)->re_tmpl.tmpl);
    }
}

static void
check_config(const struct acreI_policy *cfg)
{
    check(cfg->magic == ACREI_POLICY_MAGIC);
    for (unsigned r = 0; r < cfg->frontend.nrules; r++)
        check_rule(&cfg->frontend.rules[r]);
    for (unsigned d = 0; d < cfg->ndbs; d++)
        for (unsigned r = 0; r < cfg->dbs[d].nrules; r++)
            check_rule(&cfg->dbs[d].rules[r]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct acreI_policy *cfg = NULL;
    acre_diag d;
    int rc;

    if (size < 1 || size > 65536)
        return 0;
    const char *text = (const char *)data + 1;
    size_t len = size - 1;
    memset(&d, 0, sizeof(d));
    rc =
        (data[0] & 1)
            ? acreO_parse_cnconfig(NULL, NULL, "fuzz.ldif", text, len, &cfg, &d)
            : acreO_parse_conf(NULL, NULL, "fuzz.conf", text, len, &cfg, &d);
    if (rc) {
        check(known_error(rc) && d.code == rc && d.message[0]);
        check(d.line <= count_lines(data + 1, len) || d.file == NULL ||
              strcmp(d.file, "fuzz.conf") != 0);
        return 0;
    }
    check_config(cfg);
    char *dump = acreO_config_dump(NULL, cfg);
    check(dump != NULL);
    talloc_free(cfg);
    talloc_free(dump);
    return 0;
}
