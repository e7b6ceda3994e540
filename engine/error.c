/*
 * error.c -- version information, error names and diagnostics.
 *
 * Every code in enum acre_error has exactly one entry in the table below;
 * the unit tests check that each code has its own text.
 */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    int code;
    const char *text;
} errors[] = {
    {ACRE_OK, "success"},
    {ACRE_ERR_NOMEM, "out of memory"},
    {ACRE_ERR_INVAL, "invalid argument"},
    {ACRE_ERR_NOSPACE, "buffer too small"},
    {ACRE_ERR_BADOBJ, "not an acre object of the expected kind"},
    {ACRE_ERR_DN_TOO_LONG, "DN too long"},
    {ACRE_ERR_DN_TOO_MANY_RDNS, "DN has too many RDNs"},
    {ACRE_ERR_DN_TOO_MANY_AVAS, "RDN has too many attribute value assertions"},
    {ACRE_ERR_DN_NESTING, "DN-valued values nested too deeply"},
    {ACRE_ERR_DN_EMPTY_RDN, "empty RDN"},
    {ACRE_ERR_DN_TYPE, "malformed attribute type in DN"},
    {ACRE_ERR_DN_UNKNOWN_TYPE, "unknown attribute type in DN"},
    {ACRE_ERR_DN_NO_EQUALS, "attribute type not followed by '=' in DN"},
    {ACRE_ERR_DN_UNESCAPED, "character must be escaped in a DN value"},
    {ACRE_ERR_DN_ESCAPE, "malformed escape in DN value"},
    {ACRE_ERR_DN_QUOTE, "malformed quoted DN value"},
    {ACRE_ERR_DN_HEX, "malformed #hex DN value"},
    {ACRE_ERR_DN_BER, "#hex DN value is not valid BER"},
    {ACRE_ERR_DN_UTF8, "DN value is not valid UTF-8"},
    {ACRE_ERR_DN_PROHIBITED, "DN value contains a prohibited character"},
    {ACRE_ERR_DN_VALUE, "DN value is invalid for its attribute syntax"},
    {ACRE_ERR_DN_DUP_AVA, "duplicate attribute value assertion in RDN"},
    {ACRE_ERR_SCHEMA_SYNTAX, "malformed schema definition"},
    {ACRE_ERR_SCHEMA_UNKNOWN, "schema definition refers to an unknown name"},
    {ACRE_ERR_SCHEMA_DUP, "schema name or OID defined twice"},
    {ACRE_ERR_SCHEMA_FROZEN, "schema is in use and can no longer change"},
    {ACRE_ERR_SCHEMA_IO, "cannot read schema file"},
    {ACRE_ERR_LDIF_SYNTAX, "malformed LDIF"},
    {ACRE_ERR_LDIF_BASE64, "invalid base64 in LDIF"},
    {ACRE_ERR_LDIF_UNSUPPORTED, "unsupported LDIF construct"},
    {ACRE_ERR_LDIF_DN, "invalid DN in LDIF"},
    {ACRE_ERR_LDIF_DUP_ENTRY, "duplicate entry in LDIF"},
    {ACRE_ERR_LDIF_NO_PARENT, "entry's parent does not exist"},
    {ACRE_ERR_LDIF_UNKNOWN_ATTR, "attribute type not in the schema"},
    {ACRE_ERR_LDIF_VALUE, "value invalid for its attribute syntax"},
    {ACRE_ERR_LDIF_IO, "cannot read LDIF file"},
    {ACRE_ERR_NO_SUCH_OBJECT, "no such object"},
    {ACRE_ERR_FILTER_SYNTAX, "malformed search filter"},
    {ACRE_ERR_FILTER_NESTING, "search filter nested too deeply"},
    {ACRE_ERR_FILTER_ESCAPE, "malformed escape in search filter value"},
    {ACRE_ERR_FILTER_RULE, "unknown or unusable matching rule in filter"},
    {ACRE_ERR_FILTER_TOO_LONG, "search filter too long"},
    {ACRE_ERR_RULE_SYNTAX, "rule syntax error"},
    {ACRE_ERR_RULE_IO, "rule file cannot be read"},
    {ACRE_ERR_RULE_LIMIT, "rule input past a limit"},
    {ACRE_ERR_EVAL_LIMIT, "evaluation limit reached; access denied"},
    {ACRE_ERR_LOOKUP, "a host lookup failed; access denied"},
    {ACRE_ERR_UNSUPPORTED,
     "the policy asks for something acre does not decide"},
    {ACRE_ERR_ADMIN_LIMIT, "the search is refused: adminLimitExceeded"},
};

ACRE_PUBLIC const char *
acre_version(int *major, int *minor, int *patch)
{
    if (major)
        *major = ACRE_VERSION_MAJOR;
    if (minor)
        *minor = ACRE_VERSION_MINOR;
    if (patch)
        *patch = ACRE_VERSION_PATCH;
    return "acre " ACRE_VERSION_STRING;
}

ACRE_PUBLIC const char *
acre_strerror(int code)
{
    for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++)
        if (errors[i].code == code)
            return errors[i].text;
    return "unknown acre error";
}

void
acreE_assert_fail(const char *file, int line, const char *expr)
{
    fprintf(stderr, "acre: %s:%d: invariant violated: %s\n", file, line, expr);
    fflush(stderr);
    abort();
}

int
acreE_diag_set(acre_diag *diag, int code, size_t offset, const char *fmt, ...)
{
    va_list ap;

    if (!diag)
        return code;
    diag->code = code;
    diag->file = NULL;
    diag->line = 1;
    diag->column = (unsigned)offset + 1;
    diag->offset = offset;
    va_start(ap, fmt);
    vsnprintf(diag->message, sizeof(diag->message), fmt, ap);
    va_end(ap);
    return code;
}
