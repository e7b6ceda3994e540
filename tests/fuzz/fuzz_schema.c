/*
 * fuzz_schema.c -- libFuzzer target for schema loading: the format
 * detection, the .schema reader, the LDIF path, the RFC 4512 description
 * parser, macro expansion, reference resolution and the commit.
 *
 * Each input is loaded into a fresh copy of the built-in schema (so that
 * references to standard types resolve and reach the deep checks).  Beyond
 * "never crash, never leak, never read out of bounds" (ASan/UBSan) it
 * checks, and aborts on a violation:
 *   - an error fills the diagnostic with the code returned and a position
 *     inside the input, and adds nothing (all-or-nothing);
 *   - after a success, every type and class is found again by its OID and
 *     by each of its names, every SUP chain ends, and the DN view of each
 *     type names it;
 *   - once frozen, the schema takes the same input again (it only repeats
 *     definitions) and refuses a new definition, unchanged either way;
 *   - the first bytes, read as an attribute description, parse or fail
 *     without touching anything outside them.
 */
#include "acre.h"
#include "schema.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void
check(int cond)
{
    if (!cond)
        abort();
}

static void
check_loaded(const acre_schema *s)
{
    for (unsigned id = 0; id < acreS_nattrs(s); id++) {
        const struct acreS_attr *a = acreS_attr(s, (int)id);
        check(acreS_attr_find(s, a->oid, strlen(a->oid)) == (int)id);
        for (unsigned i = 0; i < a->nnames; i++)
            check(acreS_attr_find(s, a->names[i], strlen(a->names[i])) ==
                  (int)id);
        check(a->syntax != NULL);
        check(acreS_attr_find(s, a->dn.name, a->dn.len) == (int)id);
        check(a->sup < (int)id || a->sup < (int)acreS_nattrs(s));
        check(acreS_is_subtype(s, (int)id, (int)id));
    }
    for (unsigned id = 0; id < acreS_nclasses(s); id++) {
        const struct acreS_class *c = acreS_class(s, (int)id);
        check(acreS_class_find(s, c->oid, strlen(c->oid)) == (int)id);
        check(acreS_class_is(s, (int)id, (int)id));
        for (unsigned i = 0; i < c->nsup; i++)
            check(acreS_class_is(s, (int)id, c->sup[i]));
    }
}

/* A definition no schema of the corpus holds. */
static const char new_type[] =
    "attributetype ( 1.3.6.1.4.1.4203.666.99.1 NAME 'acreFuzzNew' "
    "SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 )\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    acre_schema *s = NULL;
    struct acreS_desc desc;
    acre_diag d;
    unsigned na, nc;
    int rc;

    if (acre_schema_new(NULL, 0, &s, NULL) != ACRE_OK)
        return 0;
    na = acreS_nattrs(s);
    nc = acreS_nclasses(s);
    memset(&d, 0, sizeof d);
    rc = acre_schema_load_buffer(s, "fuzz", (const char *)data, size, &d);
    if (rc != ACRE_OK) {
        check(rc < 0 && d.code == rc);
        check(d.offset <= size);
        check(acreS_nattrs(s) == na && acreS_nclasses(s) == nc);
        check(memchr(d.message, 0, sizeof d.message) != NULL);
    } else {
        check(acreS_nattrs(s) >= na && acreS_nclasses(s) >= nc);
        acreS_freeze(s);
        check_loaded(s);
        /* frozen: a load that only repeats what the schema holds is
         * accepted (the same input again), anything new refused, and
         * nothing changes either way */
        na = acreS_nattrs(s);
        nc = acreS_nclasses(s);
        check(acre_schema_load_buffer(s, "x", "", 0, NULL) == ACRE_OK);
        check(acre_schema_load_buffer(s, "again", (const char *)data, size,
                                      NULL) == ACRE_OK);
        rc =
            acre_schema_load_buffer(s, "new", new_type, strlen(new_type), NULL);
        check(rc == ACRE_ERR_SCHEMA_FROZEN ||
              acreS_attr_find(s, "acreFuzzNew", 11) >= 0);
        check(acreS_nattrs(s) == na && acreS_nclasses(s) == nc);
    }
    if (acreS_desc_parse(s, (const char *)data, size < 64 ? size : 64, &desc) ==
        0) {
        check(desc.nopts <= ACRES_MAX_OPTIONS);
        check(acreS_desc_matches(s, &desc, &desc));
    }
    acre_schema_free(s);
    return 0;
}
