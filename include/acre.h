/*
 * acre.h -- the public API of acre, the Access-Control and
 * collective-attribute Rule Engine for LDAP directories.
 *
 * This header is the whole documentation of the library's interface.  It is
 * self-contained C99 and includes only standard headers.
 *
 * Conventions
 *   - Functions that can fail return int: 0 (ACRE_OK) on success, a negative
 *     ACRE_ERR_* code on failure.  acre_strerror() names every code.
 *   - Objects are handed back through an out-parameter (`**out`), which is
 *     left untouched on error.
 *   - `mem_ctx` is a talloc parent or NULL.  An object allocated under a
 *     parent is freed with it, or earlier by its own free function.
 *   - Diagnostics (acre_diag) carry the position of an error and a message in
 *     a fixed-size buffer, so reporting an error never allocates.  Every
 *     `diag` argument may be NULL.
 *   - Handles (acre_schema, acre_dn, acre_directory, acre_policy,
 *     acre_slot, acre_request, acre_filter, acre_lint_result) carry a
 *     magic number naming their kind, checked by every function that takes
 *     one.  Given something else (another kind of handle, zeroed memory),
 *     a function that returns an error code returns ACRE_ERR_BADOBJ; one
 *     that returns a pointer, count, hash or bool gives its neutral answer
 *     (NULL, 0); one that returns nothing does nothing.  NULL is
 *     ACRE_ERR_INVAL (or the neutral answer) unless a function gives NULL
 *     a meaning (a schema of NULL is the built-in one).  The check reads
 *     the first 4 bytes of the handle (of an acre_lint_result, the 4
 *     after its public struct): it catches mistakes, it cannot make a
 *     pointer to freed or foreign memory safe.  acre_entry and the view
 *     structs are not handles: they are not checked.
 *   - Ownership: what a function hands back through `out` belongs to the
 *     caller, under mem_ctx when the function takes one; strings returned
 *     "to free with free()" are malloc'd; every other returned pointer is
 *     owned by an argument and lives as long as that argument (each
 *     function says which).
 *
 * Thread rules
 *   Unless a function says otherwise: functions that take only `const`
 *   objects may be called from any number of threads at once; an object
 *   that is being modified or freed must not be used by another thread at
 *   the same time.
 */
#ifndef ACRE_H
#define ACRE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------
 * Version
 */
#define ACRE_VERSION_MAJOR  0
#define ACRE_VERSION_MINOR  1
#define ACRE_VERSION_PATCH  0
#define ACRE_VERSION_STRING "0.1.0"
/* One number that grows with every release: MAJOR*10000 + MINOR*100 + PATCH */
#define ACRE_VERSION_NUMBER \
    (ACRE_VERSION_MAJOR * 10000 + ACRE_VERSION_MINOR * 100 + ACRE_VERSION_PATCH)

/*
 * acre_version -- the version of the library actually linked.
 *   major, minor, patch: OUT, each may be NULL.
 * Returns a static string such as "acre 0.1.0".  Any thread.
 */
const char *acre_version(int *major, int *minor, int *patch);

/* ------------------------------------------------------------------------
 * Errors
 *
 * Codes live in a private negative range so they cannot be confused with
 * errno values or LDAP result codes.  Their values never change once
 * released; new codes are only ever appended.
 */
enum acre_error {
    ACRE_OK = 0,
    ACRE_ERR_NOMEM = -30700,   /* out of memory */
    ACRE_ERR_INVAL = -30701,   /* an argument is invalid (NULL, bad flag) */
    ACRE_ERR_NOSPACE = -30702, /* a caller-supplied buffer is too small */
    ACRE_ERR_BADOBJ = -30703,  /* not an object of the expected kind */

    /* Distinguished names (RFC 4514) */
    ACRE_ERR_DN_TOO_LONG = -30720,      /* input or output past the limit */
    ACRE_ERR_DN_TOO_MANY_RDNS = -30721, /* more RDNs than ACRE_DN_MAX_RDNS */
    ACRE_ERR_DN_TOO_MANY_AVAS = -30722, /* RDN with > ACRE_DN_MAX_AVAS */
    ACRE_ERR_DN_NESTING = -30723,       /* DN-valued values nested too deep */
    ACRE_ERR_DN_EMPTY_RDN = -30724,     /* separator with nothing around it */
    ACRE_ERR_DN_TYPE = -30725,          /* malformed attribute type */
    ACRE_ERR_DN_UNKNOWN_TYPE = -30726,  /* type not known (ACRE_DN_STRICT) */
    ACRE_ERR_DN_NO_EQUALS = -30727,     /* attribute type not followed by = */
    ACRE_ERR_DN_UNESCAPED = -30728,     /* special character must be escaped */
    ACRE_ERR_DN_ESCAPE = -30729,        /* malformed backslash escape */
    ACRE_ERR_DN_QUOTE = -30730,         /* bad quoted value */
    ACRE_ERR_DN_HEX = -30731,           /* malformed #hex value */
    ACRE_ERR_DN_BER = -30732,           /* #hex value is not valid BER */
    ACRE_ERR_DN_UTF8 = -30733,          /* value is not valid UTF-8 */
    ACRE_ERR_DN_PROHIBITED = -30734,    /* character prohibited by RFC 4518 */
    ACRE_ERR_DN_VALUE = -30735,         /* value invalid for its syntax */
    ACRE_ERR_DN_DUP_AVA = -30736,       /* same AVA twice in one RDN */

    /* Schema definitions (RFC 4512, OpenLDAP .schema, LDIF subschema) */
    ACRE_ERR_SCHEMA_SYNTAX = -30750,  /* malformed definition */
    ACRE_ERR_SCHEMA_UNKNOWN = -30751, /* reference to an undefined name */
    ACRE_ERR_SCHEMA_DUP = -30752,     /* name or OID defined twice */
    ACRE_ERR_SCHEMA_FROZEN = -30753,  /* schema already in use */
    ACRE_ERR_SCHEMA_IO = -30754,      /* file cannot be read */

    /* LDIF (RFC 2849) and the in-memory directory */
    ACRE_ERR_LDIF_SYNTAX = -30770,       /* malformed line or record */
    ACRE_ERR_LDIF_BASE64 = -30771,       /* bad base64 value */
    ACRE_ERR_LDIF_UNSUPPORTED = -30772,  /* :< URL value or change record */
    ACRE_ERR_LDIF_DN = -30773,           /* the dn: line is not a valid DN */
    ACRE_ERR_LDIF_DUP_ENTRY = -30774,    /* the same entry twice */
    ACRE_ERR_LDIF_NO_PARENT = -30775,    /* entry whose parent is missing */
    ACRE_ERR_LDIF_UNKNOWN_ATTR = -30776, /* attribute not in the schema */
    ACRE_ERR_LDIF_VALUE = -30777,        /* value invalid for its syntax */
    ACRE_ERR_LDIF_IO = -30778,           /* file cannot be read */
    ACRE_ERR_NO_SUCH_OBJECT = -30779,    /* no entry has that DN */

    /* Search filters (RFC 4515) */
    ACRE_ERR_FILTER_SYNTAX = -30790,   /* malformed filter */
    ACRE_ERR_FILTER_NESTING = -30791,  /* nested deeper than the limit */
    ACRE_ERR_FILTER_ESCAPE = -30792,   /* bad \XX escape in a value */
    ACRE_ERR_FILTER_RULE = -30793,     /* unknown or unusable matching rule */
    ACRE_ERR_FILTER_TOO_LONG = -30794, /* filter text past the limit */

    /* Rule languages and policies */
    ACRE_ERR_RULE_SYNTAX = -30810, /* a rule or directive the server rejects */
    ACRE_ERR_RULE_IO = -30811,     /* a rule file cannot be read */
    ACRE_ERR_RULE_LIMIT = -30812,  /* a line, token, regex, set, include
                                      nesting or rule count past a limit */
    ACRE_ERR_EVAL_LIMIT = -30813,  /* a check hit a bound while evaluating
                                      (regex match limit, set size); the
                                      check is denied */
    ACRE_ERR_LOOKUP = -30814,      /* a host lookup a check needed failed
                                      (acre_host); the check is denied */
    ACRE_ERR_UNSUPPORTED = -30815, /* the policy says something acre
                                      records but does not decide (a
                                      limits rule's numeric
                                      size.unchecked) */
    ACRE_ERR_ADMIN_LIMIT = -30816  /* the search is refused before any
                                      entry: adminLimitExceeded (11),
                                      size.unchecked=disabled */
};

/*
 * acre_strerror -- a static, human-readable name for an error code.
 * Unknown codes give "unknown acre error".  Any thread.
 */
const char *acre_strerror(int code);

/*
 * A diagnostic: where an error was found and what it was.  `file` is not
 * owned (it points at the name the caller passed in, or is NULL when the
 * input was a string).  `line` and `column` are 1-based (0 when unknown);
 * `offset` is the byte offset into the input.  The message always fits
 * (it is truncated if need be) and is NUL-terminated.
 */
typedef struct acre_diag {
    int code;
    const char *file;
    unsigned line;
    unsigned column;
    size_t offset;
    char message[256];
} acre_diag;

/* ------------------------------------------------------------------------
 * Schema handle
 *
 * An attribute-type and object-class registry.  Everywhere a
 * `const acre_schema *` is taken, NULL selects the process-wide built-in
 * schema (the definitions acre_schema_new() starts from).  A schema passed
 * to any function that reads it is frozen from then on.
 */
typedef struct acre_schema acre_schema;

/* Flags for acre_schema_new() */
#define ACRE_SCHEMA_BARE 0x1u /* start empty, without the built-in schemas */
#define ACRE_SCHEMA_SLAPD                            \
    0x2u /* prepare and match values exactly as      \
            OpenLDAP's slapd 2.5 does, instead of by \
            RFC 4518 (DNs, stored values, filters) */
#define ACRE_SCHEMA_SYNTAX_MATCH                     \
    0x4u /* a type naming no EQUALITY, ORDERING or   \
            SUBSTR rule is matched by its syntax, as \
            389-DS matches (see acre_schema_new) */
#define ACRE_SCHEMA_389                            \
    0x8u /* start from 389 Directory Server 2.3's  \
            schema instead of the built-in schemas \
            (see acre_schema_new) */

/*
 * acre_schema_new -- a schema holding the built-in definitions (OpenLDAP's
 * core, cosine, inetorgperson, nis, openldap and dyngroup schemas, the
 * RFC 3671 collective and RFC 3672 subentry types, the operational
 * attributes of RFC 4512 and friends, and the 389 and OpenDJ types their
 * exported data holds: OpenDJ's inherited collective subentries, roles,
 * memberOf, isMemberOf, aci), or nothing with ACRE_SCHEMA_BARE.
 *   mem_ctx: talloc parent, or NULL.
 *   flags:   0 or ACRE_SCHEMA_* bits.  ACRE_SCHEMA_SYNTAX_MATCH: where a
 *            type names no rule, filters match its values by their syntax
 *            as 389-DS's syntax plugins do: DN values by
 *            distinguishedNameMatch, and substrings of a DN value's normal
 *            form case-insensitively (so (manager=*smith*) and
 *            (memberOf=cn=Admins,...) match as in 389); Directory, Printable
 *            and Country String values by the caseIgnore rules; Integer
 *            values by integerMatch and integerOrderingMatch; telephone
 *            numbers in order by caseIgnoreOrderingMatch; IA5 String
 *            values by caseExactIA5Match and its substrings rule.  The
 *            schema an ACI policy makes for itself has it.
 *            ACRE_SCHEMA_389: start from the schema 389 Directory Server
 *            2.3 holds (every attribute type and object class its
 *            subschema entry lists, DESC texts left out) instead of the
 *            built-in definitions above, so that 389's own data and ACIs
 *            (nsAccountLock, numSubordinates, nsPerson, ...) load and
 *            operational types are those 389 calls operational; its
 *            filters match ~= as 389 does (phonetic words of the values
 *            as stored, on every type but octet strings), and values and
 *            DNs are prepared as 389 prepares them (its own lowercasing,
 *            no NFKC or RFC 4518 mapping: "Straße" is not "Strasse").  The
 *            schema a 389 ACI policy (without ACRE_COMPILE_ACI_OPENDJ)
 *            makes for itself has it.  Not with ACRE_SCHEMA_BARE.
 *   out:     OUT, a talloc child of mem_ctx: freed by acre_schema_free or
 *            with mem_ctx.  It must outlive everything made with it that
 *            keeps it: directories, policies compiled against it, parsed
 *            filters, entry views and the attribute ids and strings it
 *            handed out (a parsed DN does not keep it).
 * Returns 0, ACRE_ERR_NOMEM or ACRE_ERR_INVAL (out NULL, unknown flags).
 * Any thread.
 */
int acre_schema_new(void *mem_ctx, unsigned flags, acre_schema **out,
                    acre_diag *diag);

/*
 * acre_schema_load_file / acre_schema_load_buffer -- add definitions.
 * The format is recognised from the content: OpenLDAP .schema files
 * (`attributetype`, `objectclass`, `objectidentifier` directives), or LDIF
 * with `attributeTypes:` / `objectClasses:` values (a subschema entry) or
 * `olcAttributeTypes:` / `olcObjectClasses:` / `olcObjectIdentifier:`
 * values (cn=config).  Either every definition of the input is added or
 * none is; an error names the file, line and column.
 *   name: the name reported in diagnostics (acre_schema_load_buffer).
 * Returns 0, ACRE_ERR_NOMEM, ACRE_ERR_SCHEMA_* or ACRE_ERR_INVAL.
 * A schema that has been used (to parse a DN, load a directory, compile a
 * policy) is frozen and never changes again: loading into it accepts an
 * input that only repeats definitions it already holds, exactly (a new
 * policy including the schema files its predecessor included), and
 * refuses anything else with ACRE_ERR_SCHEMA_FROZEN (a new definition),
 * or ACRE_ERR_SCHEMA_DUP (a definition that differs).  ACRE_ERR_INVAL:
 * schema or path NULL, or text NULL with len > 0; ACRE_ERR_BADOBJ: schema
 * is not a schema.  ACRE_ERR_SCHEMA_IO:
 * acre_schema_load_file cannot open or read path, or it is not a regular
 * file or is larger than 16 MiB.  Nothing is kept of path, name or text
 * after the call, except that diagnostics point at name or path.
 * Loading into an unfrozen schema is not thread-safe: no other thread may
 * use the schema meanwhile; into a frozen one it only reads.
 */
int acre_schema_load_file(acre_schema *schema, const char *path,
                          acre_diag *diag);
int acre_schema_load_buffer(acre_schema *schema, const char *name,
                            const char *text, size_t len, acre_diag *diag);

/*
 * acre_schema_free -- free a schema from acre_schema_new(), and everything
 * allocated under it; NULL is ignored.  Nothing made with the schema that
 * keeps it (see acre_schema_new) may be used afterwards.  Not while any
 * other thread uses the schema.
 */
void acre_schema_free(acre_schema *schema);

/*
 * acre_schema_attr_name -- the canonical name of the attribute type that
 * description desc[0..len) names ("commonName;lang-en" and "2.5.4.3" give
 * "cn"): its first NAME, or its OID when it has none; the options are not
 * part of the answer.  NULL when desc is not a description or names no
 * type of the schema (NULL: the built-in one), or schema is not a
 * schema.  The string lives as long as the schema.  Freezes the schema.
 * Any thread once frozen.
 */
const char *acre_schema_attr_name(const acre_schema *schema, const char *desc,
                                  size_t len);

/* ------------------------------------------------------------------------
 * Distinguished names
 *
 * An acre_dn is a parsed, validated and normalised DN (RFC 4514):
 *   - attribute types are mapped to their canonical names (OIDs and aliases
 *     such as 2.5.4.3 and commonName become cn);
 *   - each value is normalised by its attribute's equality matching rule
 *     (RFC 4517/4518: case folding, NFKC and insignificant-space handling
 *     for caseIgnore strings, and so on);
 *   - the AVAs of a multi-valued RDN are put in canonical order;
 *   - two text forms are kept: the normalised form, for matching, and the
 *     pretty form (case kept, minimal escaping, no spaces), for display;
 *   - the DN carries its ancestry hashes: for a DN of depth d (d RDNs),
 *     h[i] (0 <= i <= d) is a keyed 64-bit hash of the suffix made of its
 *     last i RDNs, so h[0] is the root and h[d] the DN itself.  The key is
 *     chosen at random once per process, so crafted collisions cannot be
 *     prepared in advance; a hash is never trusted alone (see
 *     acre_dn_in_scope).
 *
 * An acre_dn is one contiguous, position-independent block of
 * acre_dn_size() bytes: a host may memcpy it next to its cached entry and
 * use the copy for the life of the process (hashes are process-specific;
 * parse again after a restart).  It is immutable once made, so any number of
 * threads may read it at once.
 *
 * NULL: every acre_dn_* function below accepts NULL for a DN argument and
 * then gives the neutral answer, never reading through it: NULL for a text
 * (acre_dn_normalised, _pretty, _ancestor, with *len set to 0), 0 for a
 * count, size or hash (acre_dn_depth, _size, _ancestor_hash), 0 for
 * acre_dn_equal (NULL names no entry, not even another NULL),
 * ACRE_ERR_INVAL for the functions that return an error code
 * (acre_dn_copy, _rdn, _in_scope; their out-parameters untouched), and
 * nothing for acre_dn_free.  A DN argument that is not an acre_dn gets the
 * same neutral answers, except that the functions returning an error code
 * return ACRE_ERR_BADOBJ.
 */
typedef struct acre_dn acre_dn;

#define ACRE_DN_MAX_LEN     8192 /* bytes of input, and of each text form */
#define ACRE_DN_MAX_RDNS    128  /* RDNs in one DN */
#define ACRE_DN_MAX_AVAS    32   /* AVAs in one RDN */
#define ACRE_DN_MAX_NESTING 4    /* DN-valued values inside DN values */

/* A buffer of this many bytes always holds any DN (acre_dn_parse_buf). */
#define ACRE_DN_BUF_MAX \
    (64 + (ACRE_DN_MAX_RDNS + 1) * 16 + 2 * (ACRE_DN_MAX_LEN + 1) + 16)

/* Flags for acre_dn_parse() and acre_dn_parse_buf() */
#define ACRE_DN_STRICT 0x1u /* unknown attribute types are an error */
/* refuse what slapd's dnNormalize refuses though RFC 4514 allows it: an
 * RDN naming one type twice (ACRE_ERR_DN_DUP_AVA) and a value in #-BER
 * form (ACRE_ERR_DN_BER) */
#define ACRE_DN_SLAPD  0x2u

/* Search scopes, with the values LDAP uses on the wire. */
enum acre_scope {
    ACRE_SCOPE_BASE = 0,    /* the base entry only */
    ACRE_SCOPE_ONE = 1,     /* immediate children of the base */
    ACRE_SCOPE_SUB = 2,     /* the base and everything below it */
    ACRE_SCOPE_CHILDREN = 3 /* everything below the base, not the base */
};

/*
 * acre_dn_parse -- parse, validate and normalise a DN string.
 *   mem_ctx: talloc parent of the result, or NULL.
 *   schema:  attribute types to use; NULL for the built-in schema.
 *   str:     the DN in RFC 4514 string form (UTF-8); need not be
 *            NUL-terminated.  Spaces around separators are insignificant;
 *            ';' is accepted as an RDN separator and "quoted" values are
 *            accepted as in RFC 2253.  The empty string is the root DN.
 *   len:     bytes of str.
 *   flags:   0, ACRE_DN_STRICT, ACRE_DN_SLAPD, or both.
 *   out:     OUT: the new DN, freed with acre_dn_free() or with mem_ctx.
 *   diag:    OUT on error: code, offset and column of the error, message.
 * Returns 0, or ACRE_ERR_NOMEM, ACRE_ERR_INVAL (str or out NULL, unknown
 * flags), ACRE_ERR_BADOBJ (schema is not a schema) or an ACRE_ERR_DN_*
 * code.
 * One allocation.  Input already in normalised form is recognised and
 * takes a fast path that skips re-validation of each value.
 * Any thread; the result is not shared until the caller shares it.
 */
int acre_dn_parse(void *mem_ctx, const acre_schema *schema, const char *str,
                  size_t len, unsigned flags, acre_dn **out, acre_diag *diag);

/*
 * acre_dn_parse_buf -- acre_dn_parse() into a caller-supplied buffer,
 * allocating nothing for DNs of ordinary size (a value longer than about a
 * kilobyte may use temporary heap memory that is freed before returning).
 *   buf:  at least ACRE_DN_BUF_MAX bytes always suffice; aligned to 8.
 *   size: bytes of buf.  ACRE_ERR_NOSPACE when the DN does not fit.
 * The other arguments are as for acre_dn_parse().  The DN lives in buf and
 * must not be passed to acre_dn_free().  Any thread.
 */
int acre_dn_parse_buf(void *buf, size_t size, const acre_schema *schema,
                      const char *str, size_t len, unsigned flags,
                      acre_dn **out, acre_diag *diag);

/*
 * acre_dn_copy -- a copy of dn under mem_ctx (one allocation).  dn may
 * live anywhere (a buffer, a memcpy'd copy); the copy is independent of
 * it.
 *   out: OUT: the copy, a talloc child of mem_ctx, freed with
 *        acre_dn_free() or with mem_ctx.
 * Returns 0 or ACRE_ERR_NOMEM / ACRE_ERR_INVAL (dn or out NULL) /
 * ACRE_ERR_BADOBJ.  Any thread.
 */
int acre_dn_copy(void *mem_ctx, const acre_dn *dn, acre_dn **out);

/*
 * acre_dn_free -- free a DN made by acre_dn_parse() or acre_dn_copy().
 * NULL and DNs living in a caller's buffer (acre_dn_parse_buf, or a
 * memcpy'd copy) are ignored: the caller owns that memory.  Not while
 * another thread reads the DN.
 */
void acre_dn_free(acre_dn *dn);

/* acre_dn_size -- bytes of the contiguous object (for memcpy).  Any
 * thread. */
size_t acre_dn_size(const acre_dn *dn);

/*
 * acre_dn_normalised / acre_dn_pretty -- the two text forms, NUL-terminated
 * and owned by dn (valid while dn is).  len: OUT, may be NULL.  Any thread.
 */
const char *acre_dn_normalised(const acre_dn *dn, size_t *len);
const char *acre_dn_pretty(const acre_dn *dn, size_t *len);

/* acre_dn_depth -- the number of RDNs (0 for the root DN).  Any thread. */
unsigned acre_dn_depth(const acre_dn *dn);

/*
 * acre_dn_ancestor_hash -- h[i], the keyed hash of the suffix made of the
 * last i RDNs (0 <= i <= depth).  Equal suffixes have equal hashes within
 * one process.  Returns 0 when i > depth.  Any thread.
 */
uint64_t acre_dn_ancestor_hash(const acre_dn *dn, unsigned i);

/*
 * acre_dn_rdn -- the i-th RDN counted from the left (0 is the entry's own
 * RDN), in both forms; not NUL-terminated, owned by dn.
 *   norm, norm_len, pretty, pretty_len: OUT, each may be NULL.
 * Returns 0, ACRE_ERR_INVAL when i >= depth, ACRE_ERR_BADOBJ.  Any
 * thread.
 */
int acre_dn_rdn(const acre_dn *dn, unsigned i, const char **norm,
                size_t *norm_len, const char **pretty, size_t *pretty_len);

/*
 * acre_dn_ancestor -- the normalised text of the ancestor made of the last
 * i RDNs (a suffix of the normalised form; "" for i == 0).
 *   len: OUT, may be NULL.  Returns NULL (and *len 0) when i > depth.
 * Owned by dn.  Any thread.
 */
const char *acre_dn_ancestor(const acre_dn *dn, unsigned i, size_t *len);

/* acre_dn_equal -- 1 when a and b name the same entry, else 0.  Any
 * thread. */
int acre_dn_equal(const acre_dn *a, const acre_dn *b);

/*
 * acre_dn_in_scope -- is `entry` within `scope` of `base`?
 * Compares ancestry hashes first and confirms a hit by comparing the
 * normalised suffix bytes, so a hash collision can never match.
 * Returns 1 (in scope), 0 (not), ACRE_ERR_INVAL (bad scope or NULL) or
 * ACRE_ERR_BADOBJ.  Allocates nothing.  Any thread.
 */
int acre_dn_in_scope(const acre_dn *entry, const acre_dn *base, int scope);

/* ========================================================================
 * Entry views: how a host presents the entries it owns
 *
 * Every decision (acre_access, acre_entry_decide, acre_entry_collective,
 * acre_filter_match, acre_explain*) reads an entry through a view: a few
 * plain structs that point at the host's own data, filled without copying
 * a value.  The host keeps the entry's acre_dn with its cached entry
 * (parse it when the entry is added or renamed, never on read: a DN that
 * is already normalised takes acre_dn_parse's fast path), resolves each
 * attribute description once to an id (acre_schema_attr_id) and caches
 * that id per description, and hands acre its attributes in its own order:
 * a verdict's arrays follow that order, so a host needs no name map.
 *
 * acre reads a view only during the call it is passed to (and, for views
 * a host lookup returned, until the host's release function is called);
 * it never keeps a pointer into one.
 */

/*
 * A value as the host stores it.  The layout is that of OpenLDAP's and
 * 389-DS's `struct berval` ({ber_len_t bv_len; char *bv_val}) on the
 * platforms they build on, so their value arrays can be handed over as
 * they are.
 */
typedef struct acre_value {
    size_t len;
    const void *val;
} acre_value;

/*
 * One attribute of a view.
 *   id:    the attribute description's id in the view's schema
 *          (acre_schema_attr_id): its type and options.  One attribute
 *          per description; several attributes of one type with
 *          different options are fine.
 *   nvals: its values (at least one), vals[0..nvals) as stored.
 *   norms: NULL, or norms[0..nvals): each value already normalised by the
 *          type's equality rule exactly as acre_value_normalise() gives
 *          it (for example slapd's a_nvals, for a schema made with
 *          ACRE_SCHEMA_SLAPD, where they agree).  acre then never
 *          normalises a value of this attribute itself; without them it
 *          normalises a value only when a rule or filter compares it.
 */
typedef struct acre_view_attr {
    int id;
    unsigned nvals;
    const acre_value *vals;
    const acre_value *norms;
} acre_view_attr;

/*
 * An entry as a host presents it.
 *   schema:    the schema the attribute ids and the DN belong to: the
 *              request's policy's schema (acre_policy_schema), or the
 *              call fails with ACRE_ERR_INVAL.
 *   dn:        the entry's DN (never NULL).
 *   attrs:     attrs[0..nattrs) in the host's order.
 *   host_data: the host's own handle on the entry (acre never reads it;
 *              callbacks that hand a view back, such as acre_search's,
 *              let the host find its entry again).
 */
typedef struct acre_entry_view {
    const acre_schema *schema;
    const acre_dn *dn;
    unsigned nattrs;
    const acre_view_attr *attrs;
    const void *host_data;
} acre_entry_view;

/* At most this many distinct attribute descriptions with options per
 * schema (acre_schema_attr_id: ACRE_ERR_NOSPACE past it). */
#define ACRE_SCHEMA_MAX_DESCS (1u << 20)

/*
 * acre_schema_attr_id -- the id of the attribute description
 * desc[0..len) ("cn", "commonName;LANG-EN", "2.5.4.3;binary"): a small
 * integer >= 0, the same for every spelling of the same type and set of
 * options (options compare without case and in any order), stable for the
 * life of the schema.  A description without options has the id of its
 * type.  A host resolves each description once and keeps the id.
 * Returns the id, or ACRE_ERR_INVAL (not a description, or desc NULL),
 * ACRE_ERR_BADOBJ (schema is not a schema), ACRE_ERR_SCHEMA_UNKNOWN (the type
 * is not in the schema: such an attribute cannot be decided and must not be
 * returned), ACRE_ERR_NOSPACE (ACRE_SCHEMA_MAX_DESCS reached), ACRE_ERR_NOMEM.
 * Freezes the schema.  Any thread (descriptions with options are
 * recorded under a lock the first time they are seen).
 */
int acre_schema_attr_id(const acre_schema *schema, const char *desc,
                        size_t len);

/*
 * acre_schema_attr_desc -- the canonical text of id ("cn",
 * "cn;lang-en"): the type's first name, then its options lowercased and
 * sorted; NUL-terminated, lives as long as the schema.  NULL for an id
 * the schema never gave, or when schema is not a schema.  len: OUT, may be
 * NULL.  Any thread.
 */
const char *acre_schema_attr_desc(const acre_schema *schema, int id,
                                  size_t *len);

/*
 * acre_value_normalise -- val[0..len) of attribute id normalised by its
 * type's equality rule, as acre compares values (what a view's `norms`
 * must hold), into buf[0..size).
 *   out_len: OUT, the normalised length (also when it does not fit).
 * Returns 0, ACRE_ERR_NOSPACE (buf too small: *out_len says how much is
 * needed), ACRE_ERR_INVAL (bad id, or a type without an equality rule),
 * ACRE_ERR_LDIF_VALUE (the value is not valid for the rule),
 * ACRE_ERR_BADOBJ (schema is not a schema), ACRE_ERR_NOMEM.  Any thread.
 */
int acre_value_normalise(const acre_schema *schema, int id, const void *val,
                         size_t len, void *buf, size_t size, size_t *out_len);

/* ========================================================================
 * Host lookups
 *
 * Some rules need entries other than the one decided: groups and their
 * members, dynamic groups' memberURLs, the requester's own entry, `dnattr`
 * and `set` expressions (this/manager*, ldap:/// URLs), the base of a
 * search and its matched DN.  A host answers those through this table,
 * passed to acre_request_begin; the in-memory directory is one such host
 * (acre_directory_host).  Every function returns a negative value on a
 * failure of its own (any value: acre treats it as ACRE_ERR_LOOKUP); a
 * check that needed a failed lookup is denied.  acre calls them only from
 * the thread using the request, during a call that takes it.
 *
 *   get:      the entry named dn: 1 with *out set (valid until release is
 *             called for it), 0 when there is no such entry.  Required for
 *             rules that read other entries; NULL: every such lookup
 *             fails (denies).  acre may keep a view past the call that
 *             got it, up to acre_request_end (the requester's own entry,
 *             for dynamic groups and userattr): a host whose entries
 *             belong to a backend transaction or cursor hands out copies
 *             (slapo-acre copies slapd's Entry and releases it at once).
 *   release:  done with a view get returned (NULL: nothing to do).
 *   search:   call fn(fn_arg, view) for each entry within scope (enum
 *             acre_scope) of base, parents before children, stopping when
 *             fn returns non-zero; the view is valid during the call.
 *             Returns 0, fn's non-zero value, 0 also when base does not
 *             exist, or a negative failure.  Needed by acre_search and
 *             by set expressions with ldap:/// elements; NULL: those fail.
 *             The root DN as base (no entry of its own) stands above
 *             every naming context: a one-level search returns their
 *             suffix entries, a subtree one the entries of all of them
 *             (acre's directory: by entry ID, as back-mdb walks a
 *             database whose suffix is "" from its root; for 389, suffix
 *             after suffix, as 389 searches every backend from "").  An
 *             ACI policy asks this of its host to find the groups and
 *             role definitions of 389's memberOf and nsRole and OpenDJ's
 *             isMemberOf (ACRE_REQ_*), wherever they sit.
 *   has_children: 1 when the entry has subordinates, 0 when not (the
 *             hasSubordinates attribute in filters); NULL: such filter
 *             items are Undefined.
 *   generation: a number the host changes whenever the entries lookups
 *             see change.  Answers that depend on the requester and those
 *             entries only (static group membership) are kept per
 *             requester across requests while it stays the same; 0 keeps
 *             them for one request only.
 */
typedef int (*acre_view_fn)(void *arg, const acre_entry_view *e);

typedef struct acre_host {
    void *arg;
    int (*get)(void *arg, const acre_dn *dn, const acre_entry_view **out);
    void (*release)(void *arg, const acre_entry_view *e);
    int (*search)(void *arg, const acre_dn *base, int scope, acre_view_fn fn,
                  void *fn_arg);
    int (*has_children)(void *arg, const acre_entry_view *e);
    uint64_t generation;
} acre_host;

/* ========================================================================
 * Directories
 *
 * An acre_directory is an in-memory, read-only set of entries loaded from
 * LDIF: the CLI's and the tests' directory, and one host of the embedding
 * interface above (acre_directory_host), used exactly as a server's own
 * host is.  An acre_entry belongs to its directory and lives as long as
 * it; acre_entry_view gives the view every decision takes.  Both are
 * immutable once loaded: any number of threads may read them.
 */
typedef struct acre_directory acre_directory;
typedef struct acre_entry acre_entry;

/*
 * acre_directory_load -- load LDIF content records (RFC 2849) into a new
 * directory over `schema` (which must stay alive): the file `path` when
 * text is NULL, else text[0..len) named `path` (may be NULL) in
 * diagnostics.  All-or-nothing, with slapadd's checks (parents first, no
 * duplicate entries, known attributes, valid values); values of one
 * attribute equal under its equality rule are kept, as slapadd keeps them
 * (acre_directory_load_opt's ACRE_LOAD_STRICT refuses them).  text is only read
 * during the call: the directory copies what it keeps. schema: NULL for the
 * built-in one; frozen. out: OUT, talloc child of mem_ctx (may be NULL); free
 * with acre_directory_free. Returns 0, ACRE_ERR_LDIF_* (ACRE_ERR_LDIF_IO: the
 * file cannot be read), ACRE_ERR_INVAL (out NULL, or both path and text NULL),
 * ACRE_ERR_BADOBJ (schema is not a schema), ACRE_ERR_NOMEM.  Any thread.
 */
int acre_directory_load(void *mem_ctx, const acre_schema *schema,
                        const char *path, const char *text, size_t len,
                        acre_directory **out, acre_diag *diag);

/*
 * acre_directory_load_files -- acre_directory_load over the LDIF files
 * paths[0..n), read in that order into one new directory ("-" is standard
 * input, at most once).  All-or-nothing over the whole set: an error in
 * any file leaves nothing; diag names that file, its line and column.  A
 * file may hold entries below entries of earlier files, and its top
 * entries may hang below entries of a later file.
 *   progress: NULL, or called every few thousand entries while a file is
 *             read, with arg, the file's path, the entries read so far
 *             from all files and the byte offset reached in this file (0
 *             when unknown: a pipe).  It must not use the directory.
 *   out:      OUT, as acre_directory_load's.
 * Returns 0, ACRE_ERR_LDIF_*, ACRE_ERR_INVAL (out or paths NULL, n 0, a
 * path NULL, "-" twice), ACRE_ERR_BADOBJ, ACRE_ERR_NOMEM.  Any thread (progress
 * is called on the calling thread).
 */
typedef void (*acre_load_progress_fn)(void *arg, const char *path,
                                      size_t entries, uint64_t offset);

int acre_directory_load_files(void *mem_ctx, const acre_schema *schema,
                              const char *const *paths, size_t n,
                              acre_load_progress_fn progress, void *arg,
                              acre_directory **out, acre_diag *diag);

/* Flags of acre_load_options */
#define ACRE_LOAD_STRICT                            \
    0x1u /* the LDAP add rule: refuse two values of \
            one attribute equal under its equality  \
            rule (slapadd keeps both) */
#define ACRE_LOAD_389                                  \
    0x2u /* store entries as 389-DS does: DN values    \
            (DN syntax, and the DN of a                \
            name-and-optional-UID value) in its form,  \
            "uid=a, ou=x" as "uid=a,ou=x", specials as \
            \XX pairs, case kept; no                   \
            structuralObjectClass added; superclasses  \
            added, userPassword last; numSubordinates  \
            on each entry with children */

/* How acre_directory_load_opt loads; zeroed: as acre_directory_load_files
 * without progress. */
typedef struct acre_load_options {
    unsigned flags;                 /* 0 or ACRE_LOAD_* bits */
    acre_load_progress_fn progress; /* as acre_directory_load_files's */
    void *progress_arg;
    const struct acre_policy *policy; /* NULL, or an OpenLDAP policy whose
                                  databases must hold every entry (as
                                  slapadd refuses an entry no database is
                                  "configured to hold"), and whose
                                  databases the directory's host then
                                  stands for (acre_directory_host); a
                                  policy with no database suffix, or an
                                  ACI policy, checks nothing */
    const char *text; /* NULL, or the LDIF text[0..len) to load instead of
                         a file: then n is 1 and paths[0] names it in
                         diagnostics (as acre_directory_load's text) */
    size_t len;
} acre_load_options;

/*
 * acre_directory_load_opt -- acre_directory_load_files with options: opt
 * NULL is all zero.  Without ACRE_LOAD_STRICT, values of one attribute
 * that are equal under its equality rule (`l: Berlin`, `l: berlin`, or
 * the same bytes twice) are all kept, in LDIF order, as slapadd keeps
 * them; with it they are refused (ACRE_ERR_LDIF_VALUE), as an LDAP add
 * is.  With ACRE_LOAD_389, values of DN syntax and the DN part of
 * name-and-optional-UID values are kept as 389-DS's syntax plugins store
 * them (what a search returns): spaces around separators and a value's
 * unescaped edge spaces dropped, quotes undone, the characters a value
 * escapes written as \XX pairs, case and attribute type spellings kept
 * (slapadd keeps values as written), and no structuralObjectClass is
 * added (389 keeps none); as 389 completes an added entry, the
 * superclasses its objectClass values lack are appended after them
 * (inetOrgPerson brings organizationalPerson, person, then top unless a
 * value names it), and userPassword comes after the other attributes;
 * as 389's back end keeps it, every entry with children holds
 * numSubordinates, their number (after its other attributes, kept up to
 * date by each file), and no other entry does, whatever the LDIF says.
 * With a policy, an entry that no database of it holds (none of whose
 * suffixes is the entry's DN or an ancestor of it, as slapd's
 * select_backend) is refused with ACRE_ERR_LDIF_DN, as slapadd refuses
 * it.  Returns as acre_directory_load_files, ACRE_ERR_INVAL for unknown
 * flags and ACRE_ERR_BADOBJ for a policy that is not one.  Any thread.
 */
int acre_directory_load_opt(void *mem_ctx, const acre_schema *schema,
                            const char *const *paths, size_t n,
                            const acre_load_options *opt, acre_directory **out,
                            acre_diag *diag);

/*
 * acre_directory_free -- free a directory and its entries; NULL is
 * ignored.  Every pointer into it (entries, views, DNs, values, its host
 * table) dies with it, so it must outlive the requests using its host and
 * the policies attached to it (acre_policy_attach_subentries).  Not while
 * another thread uses it.
 */
void acre_directory_free(acre_directory *dir);

/* acre_directory_find -- the entry named dn, or NULL (none, or dir or dn
 * NULL).  The entry lives as long as dir.  Any thread. */
const acre_entry *acre_directory_find(const acre_directory *dir,
                                      const acre_dn *dn);

/* acre_directory_count -- how many entries it holds (0 for NULL).  Any
 * thread. */
size_t acre_directory_count(const acre_directory *dir);

/* acre_directory_suffix -- the i-th (from 0) of dir's top entries, those
 * whose parent it does not hold (its naming contexts), in load order;
 * NULL past the last (or dir NULL).  Any thread. */
const acre_entry *acre_directory_suffix(const acre_directory *dir, size_t i);

/*
 * acre_directory_walk -- call fn for every entry in scope of base (enum
 * acre_scope): the base first, then the others in load order (the order
 * slapd's back-mdb and 389's back-ldbm return a search's entries: by
 * entry ID); stops when fn returns non-zero and returns that value.
 * Returns 0, fn's non-zero value, ACRE_ERR_NO_SUCH_OBJECT (base is not in
 * dir), ACRE_ERR_INVAL (an argument NULL, a bad scope), ACRE_ERR_NOMEM
 * (a very wide tree needs more than the stack holds) or ACRE_ERR_BADOBJ
 * (dir or base not of its kind).  fn must not free dir.
 * Any thread.
 */
int acre_directory_walk(const acre_directory *dir, const acre_dn *base,
                        int scope, int (*fn)(void *arg, const acre_entry *e),
                        void *arg);

/*
 * acre_directory_host -- the host lookups of dir (entries by DN, searches,
 * subordinates), for acre_request_begin; generation 0 (a directory never
 * changes).  Its search returns entries in the order of the server the
 * directory stands for: by entry ID when loaded with ACRE_LOAD_389 (389's
 * back-ldbm), else as slapd's back-mdb does without an index on the
 * filter -- by entry ID for a subtree search from the root of a tree (of
 * a database, when loaded with a policy: acre_load_options), and
 * otherwise the base's children ordered by their normalised RDN as slapd
 * writes it (shorter first, then byte by byte), then the same below each
 * child with children, in that order.  Loaded with a policy, an entry's
 * has_children counts the children its own database holds, as
 * back-mdb's hasSubordinates does.  Lives as long as dir.  NULL for
 * NULL.  Any thread; the lookups may be used from any number of requests
 * at once.
 */
const acre_host *acre_directory_host(const acre_directory *dir);

/*
 * acre_entry_view_of -- the view of a directory entry (its host_data is e):
 * its attributes in LDIF order, with their normalised values.  Lives as
 * long as the directory.  NULL for NULL.  Any thread.
 */
const acre_entry_view *acre_entry_view_of(const acre_entry *e);

/*
 * The parts of an entry: its DN; its attributes in the view's order, each
 * with its description as first written ("cn;lang-en", NUL-terminated;
 * *len its length, *nvals its values) and its values as stored (not
 * NUL-terminated; *len their length).  Each OUT argument may be NULL.
 * NULL, or 0, when e is NULL or i or j is out of range (then *len and
 * *nvals are 0).  Everything lives as long as the directory.  Any thread.
 */
const acre_dn *acre_entry_dn(const acre_entry *e);
unsigned acre_entry_nattrs(const acre_entry *e);
const char *acre_entry_attr(const acre_entry *e, unsigned i, size_t *len,
                            unsigned *nvals);
const void *acre_entry_value(const acre_entry *e, unsigned i, unsigned j,
                             size_t *len);

/*
 * acre_entry_dn_stored -- e's DN as 389-DS stores and returns it, for a
 * directory loaded with ACRE_LOAD_389: its LDIF text with separators
 * without spaces, specials as \XX pairs, attribute types as written
 * ("UID=Zed, OU=people" -> "UID=Zed,OU=people"); NUL-terminated, *len its
 * length (may be NULL).  NULL (and *len 0) otherwise: print the DN's
 * pretty form.  Lives as long as the directory.  Any thread.
 */
const char *acre_entry_dn_stored(const acre_entry *e, size_t *len);

/* ========================================================================
 * Policies
 *
 * A policy is compiled once from rule text and is then immutable,
 * reference-counted and shared by any number of threads.  Replacing it
 * is an atomic swap (acre_slot_*): requests already running keep the
 * policy they started with, which is freed when the last one ends.
 */
typedef struct acre_policy acre_policy;

enum acre_dialect {
    ACRE_DIALECT_SLAPD_CONF = 1, /* OpenLDAP slapd.conf: global and
                                    per-database "access to" rules */
    ACRE_DIALECT_SLAPD_CNCONFIG, /* OpenLDAP cn=config: an LDIF file or a
                                    slapd.d directory, olcAccess values */
    ACRE_DIALECT_ACI             /* ACI v3 (389-DS, DSEE, OpenDJ): the
                                    `aci` values of the entries of an LDIF
                                    file (other attributes are ignored) */
};

/* acre_policy_compile flags */
/* ACRE_DIALECT_ACI: OpenDJ's semantics where they differ from 389-DS's */
#define ACRE_COMPILE_ACI_OPENDJ 0x1u

/* One input of a policy: a file (or slapd.d directory) `path`, or
 * text[0..len) when text is not NULL (`path` then names it in
 * diagnostics). */
typedef struct acre_source {
    int dialect; /* enum acre_dialect */
    const char *path;
    const char *text;
    size_t len;
} acre_source;

/*
 * acre_policy_compile -- compile the rules of src[0..n) into a policy:
 * exactly one OpenLDAP source, or one or more ACI sources (their ACIs
 * together, in order).
 *   schema: the schema the input's schema definitions (include files,
 *           cn=schema entries) are loaded into; it is frozen and must
 *           outlive the policy.  A host that keeps entries (views, a
 *           directory) compiles each new policy against the schema its
 *           entries use, which is then frozen already: definitions the
 *           input repeats are accepted and new ones refused
 *           (acre_schema_load_file), so a policy swap never forces the
 *           host to reload its data.  NULL: a new schema with the built-in
 *           definitions and slapd's matching (ACRE_SCHEMA_SLAPD), owned by
 *           the policy.  OpenLDAP rules want a schema made with
 *           ACRE_SCHEMA_SLAPD.  Loading definitions into an unfrozen
 *           schema modifies it: no other thread may use it meanwhile.
 *   src:    src[0..n); the sources (and their text) are only read during
 *           the call.
 *   flags:  0, or for ACI sources ACRE_COMPILE_ACI_OPENDJ (others are
 *           ACRE_ERR_INVAL).  An ACI policy's schema, when NULL, is made
 *           without ACRE_SCHEMA_SLAPD; its root DN (who bypasses the
 *           rules) is 389's cn=Directory Manager.
 *   out:    OUT, a policy holding one reference (acre_policy_release);
 *           talloc child of mem_ctx (may be NULL).  The last release
 *           frees it from whichever thread drops it: compile a policy
 *           that threads share with mem_ctx NULL.
 *   diag:   OUT on error: code, file, line, column and message.
 * Fails closed: any rule the server would reject fails the whole policy
 * (definitions already loaded into a caller's schema stay there).
 * Returns 0, ACRE_ERR_RULE_SYNTAX, ACRE_ERR_RULE_IO, ACRE_ERR_RULE_LIMIT,
 * ACRE_ERR_INVAL (src or out NULL, n other than 1 for OpenLDAP or 0, an
 * unknown dialect or a mix, a flag not allowed), ACRE_ERR_BADOBJ (schema is not
 * a schema), ACRE_ERR_NOMEM, or a schema / LDIF error from loading definitions.
 * Any thread.
 */
int acre_policy_compile(void *mem_ctx, acre_schema *schema,
                        const acre_source *src, size_t n, unsigned flags,
                        acre_policy **out, acre_diag *diag);

/* acre_policy_ref -- take another reference (for another thread, a
 * slot...); returns p (NULL for NULL).  Any thread, at any time while the
 * caller holds a reference. */
acre_policy *acre_policy_ref(acre_policy *p);

/*
 * acre_policy_release -- drop one reference the caller holds; the last one
 * frees the policy (from the calling thread) and drops its reference on
 * the policy it was attached from.  NULL is ignored.  Any thread.
 */
void acre_policy_release(acre_policy *p);

/* acre_policy_schema -- the schema the policy was compiled against (its
 * own when compiled with schema NULL: then it lives as long as the
 * policy); NULL for NULL.  Any thread. */
const acre_schema *acre_policy_schema(const acre_policy *p);

/* acre_policy_generation -- a number that differs for every policy
 * compiled or attached in this process; 0 for NULL.  Any thread. */
uint64_t acre_policy_generation(const acre_policy *p);

/* Facts about the compiled policy (acre compile, benchmarks). */
typedef struct acre_policy_stats {
    unsigned rules;       /* rules, all sections */
    unsigned clauses;     /* who-clauses */
    unsigned nodes;       /* subtree index nodes */
    unsigned residual;    /* rules not indexable by DN (regex, any) */
    size_t table_entries; /* rule references in all node tables */
    size_t bytes;         /* memory held by the policy, tables and rules */
} acre_policy_stats;

/*
 * acre_policy_stats_get -- fill *out with the facts of p; all zero when p
 * is NULL or not a policy; nothing when out is NULL.  bytes counts the spec
 * cache as it is at the call.  Any thread (takes the policy's lock briefly).
 */
void acre_policy_stats_get(const acre_policy *p, acre_policy_stats *out);

/*
 * acre_policy_dump -- the compiled form as text: the rules in the
 * dialect's own syntax, then each index node with its table.  A
 * NUL-terminated string to free with free(); NULL when out of memory or p
 * is NULL.  Any thread.
 */
char *acre_policy_dump(const acre_policy *p);

/*
 * A slot holding the current policy of a host; swaps are atomic.  A host
 * keeps one slot, stores each new policy in it, and begins each request
 * with the policy it acquires: store and acquire may run on any number of
 * threads at once.
 */
typedef struct acre_slot acre_slot;

/*
 * acre_slot_new -- an empty slot.
 *   out: OUT, allocated with malloc (not talloc); free with acre_slot_free.
 * Returns 0, ACRE_ERR_INVAL (out NULL), ACRE_ERR_NOMEM.  Any thread.
 */
int acre_slot_new(acre_slot **out);

/* acre_slot_store -- put p in the slot (the slot takes its own reference;
 * the caller keeps its own) and release the policy it held.  p may be
 * NULL (the slot is emptied); a p that is not a policy changes nothing.
 * Any thread. */
void acre_slot_store(acre_slot *s, acre_policy *p);

/* acre_slot_acquire -- the current policy with a new reference for the
 * caller (acre_policy_release it, or let a request hold it), or NULL when
 * the slot is empty.  Any thread. */
acre_policy *acre_slot_acquire(acre_slot *s);

/*
 * acre_slot_free -- release the slot's policy (freeing it if that was the
 * last reference) and free the slot; NULL is ignored.  Policies acquired
 * from it stay valid.  Not while another thread uses the slot.
 */
void acre_slot_free(acre_slot *s);

/* ========================================================================
 * Subentries and collective attributes
 *
 * RFC 3672 subentries and administrative areas, RFC 3671 collective
 * attributes, OpenDJ's extensions (attributes made collective with the
 * ";collective" option, collectiveConflictBehavior, inherited collective
 * attributes, when the schema defines OpenDJ's types and classes) and
 * OpenLDAP's slapo-collect ("collectinfo" lines of the rules).  They live
 * in the policy's subtree index, beside the access rules, so an entry's
 * collective values are found by the same few hash probes as its access
 * decision.
 *
 * Reach of a subentry S below administrative point A, with
 * subtreeSpecification {base B, specificExclusions, minimum, maximum,
 * specificationFilter}: an entry E at or below B,A with depth (counted
 * from B,A) between minimum and maximum, not at or below any chopBefore
 * X,B,A, not strictly below any chopAfter X,B,A, and for which the
 * refinement (item:, and:, or:, not:, or an LDAP filter on E's stored
 * attributes) is true.  Subentries are never in any reach.  A
 * specification that does not parse gives nothing (a warning of the
 * attach).
 *
 * Areas (administrativeRole collectiveAttributeSpecificArea, autonomousArea
 * or collectiveAttributeInnerArea): by default X.501's -- the subentries
 * of the nearest specific point at or above E, and of the inner points
 * between it and E; a nested specific point ends the area above it.  With
 * ACRE_COLL_STACK, the subentries of every ancestor of E whatever its
 * roles (OpenDJ, ApacheDS).
 */

/* Flags for acre_policy_attach_subentries() */
/* stack every ancestor's subentries (OpenDJ, ApacheDS) */
#define ACRE_COLL_STACK     0x1u
/* search filters do not see collective values (ApacheDS); X.500 says
 * they do */
#define ACRE_COLL_NO_FILTER 0x2u

/*
 * acre_policy_attach_subentries -- a new policy deciding access exactly as
 * `rules` (it shares its compiled rules and holds a reference on it) whose
 * index also holds the subentries of dir and the sources of the rules'
 * collectinfo lines.  Rebuilding after dir changed is calling it again
 * with the new directory and storing the result in the host's slot.
 *   rules:  a compiled policy (or an attached one: its rules are used).
 *   dir:    loaded with the policy's schema; it must outlive the new
 *           policy, whose collective values point into it.  slapo-collect
 *           values come from it too (a policy never attached gives none).
 *   flags:  0 or ACRE_COLL_* bits.
 *   out:    OUT, a policy with one reference (acre_policy_release), talloc
 *           child of mem_ctx.
 *   diag:   OUT on error; on success, when diag->code is set afterwards,
 *           the first warning (a subtreeSpecification that does not parse,
 *           with the subentry's LDIF line and the column in the value).
 * Returns 0, ACRE_ERR_INVAL (rules, dir or out NULL, a directory of
 * another schema, bad flags), ACRE_ERR_BADOBJ (rules not a policy, dir not
 * a directory), ACRE_ERR_NOMEM.  Reads only its arguments:
 * any thread.
 */
int acre_policy_attach_subentries(void *mem_ctx, acre_policy *rules,
                                  const acre_directory *dir, unsigned flags,
                                  acre_policy **out, acre_diag *diag);

/*
 * An entry's collective attributes (acre_entry_collective, and the
 * verdicts of acre_entry_decide and acre_search): attributes 0..nattrs-1
 * in order of first appearance (subentries in directory order, then the
 * slapo-collect sources in slapd's order); when any subentry applies the
 * last one is collectiveAttributeSubentries with their DNs.  Read them
 * with the accessors below; they point into the request and the directory
 * and stay valid until the request's next collective, decide or search
 * call.
 */
typedef struct acre_collective_view {
    unsigned nattrs;
    unsigned nsubentries; /* the subentries that apply */
    const void *impl;     /* the request's result (use the accessors) */
} acre_collective_view;

/* Flags of a collective attribute (acre_collective_attr) */
/* virtual-overrides-real: the entry's own values of the type are hidden */
#define ACRE_COLLATTR_REPLACES 0x1u
#define ACRE_COLLATTR_COLLECT  0x2u /* from slapo-collect */
#define ACRE_COLLATTR_OPER     0x4u /* collectiveAttributeSubentries */

/*
 * acre_collective_attr -- attribute i: its description ("c-ou",
 * "description;lang-en"), NUL-terminated; len, nvals, flags (ACRE_COLLATTR_*
 * bits): OUT, each may be NULL.  NULL when i >= nattrs.
 * acre_collective_value -- value j of attribute i as returned (not
 * NUL-terminated), or NULL.  len: OUT, may be NULL.
 * acre_collective_subentry -- the k-th applicable subentry, or NULL.
 * v must come from the request (acre_entry_collective, a verdict), and
 * what they return lives as the view does (see above).  NULL for a NULL
 * v.  For the request's thread.
 */
const char *acre_collective_attr(const acre_collective_view *v, unsigned i,
                                 size_t *len, unsigned *nvals, unsigned *flags);
const void *acre_collective_value(const acre_collective_view *v, unsigned i,
                                  unsigned j, size_t *len);
const acre_entry *acre_collective_subentry(const acre_collective_view *v,
                                           unsigned k);

/* ========================================================================
 * Lint
 *
 * acre_lint reads rule files as acre_policy_compile does and reports what
 * keeps them from compiling (errors) and the mistakes that compile but do
 * not do what their author meant (warnings), each with a stable id:
 *
 *   shadowed-rule       a rule that never applies: earlier rules that
 *                       always stop cover every entry and attribute it
 *                       targets (slapd semantics: the global rules follow
 *                       each database's own, a matched rule whose clauses
 *                       do not match stops by the implicit "by * none",
 *                       only a reachable "break" lets a later rule run)
 *   outside-suffix      a database's rule whose target lies outside the
 *                       database's suffixes, so it never matches
 *   unreachable-clause  "by" clauses after one that matches everyone and
 *                       stops (or breaks)
 *   useless-continue    "continue" in a rule's last clause: the implicit
 *                       "by * none" follows, so the clause grants nothing
 *   unanchored-regex    a dn.regex target (slapd searches the DN for
 *                       it, metacharacters or not) without "^" that also
 *                       matches the entries below the ones it names; or
 *                       naming a suffix without "$" after it, in a rule
 *                       that entries of other naming contexts reach (a
 *                       global rule, or a database with several
 *                       suffixes): it matches them too
 *   unknown-attribute   attrs= names a type or class no schema the input
 *                       loads defines (slapd refuses the rule unless its
 *                       own schema does; the rule is read as if it did)
 *   rootdn-clause       "by dn=" names the rootdn, which never reaches
 *                       the rules of its database
 *   public-write        a clause that grants add, delete or write to "*"
 *                       or "anonymous"
 *   catastrophic-regex  a regular expression whose failing matches
 *                       backtrack exponentially or as the cube of the
 *                       subject's length (acre(1) gives the rule)
 *   missing-base        (with data) a rule's base DN, a requester DN or a
 *                       group DN that names no entry although the data
 *                       holds entries above it
 *   comment-continuation  (slapd.conf) a line slapd reads as part of the
 *                       comment line above it (indented, or after a
 *                       comment ending with '\'): a "by" clause there
 *                       is cut off its rule
 *   outside-holder      (aci) a target pattern no DN at or below the entry
 *                       holding the aci can match: it never applies
 *   odd-value           (aci, 389 variant) a bind-rule value 389 stores
 *                       unchecked and reads otherwise than it is written
 *                       (the message says how it reads it)
 * For ACI sources: unknown-attribute covers every attribute name of an
 * aci, shadowed-rule an allow that a deny provably overrides everywhere,
 * public-write an allow of write, add, delete or selfwrite to
 * ldap:///anyone or ldap:///all, odd-value a value 389 reads its own way;
 * the others do not apply.
 * Errors have the id "parse-error", or "read-error" for input that cannot
 * be read.  A warning is silenced for one rule by a comment line directly
 * above the rule (slapd.conf "access" line, or cn=config olcAccess line):
 *     # acre-lint: disable=ID[,ID...]      ("all": every warning)
 * and everywhere by the `disable` argument of acre_lint.  ("Directly
 * above": in the run of physical lines starting with '#' that ends on the
 * line before the rule's.)  The comments are the ones read with the rules:
 * no file is opened again, and a source given as text without a path is
 * silenced as a file is.
 */

enum acre_lint_severity { ACRE_LINT_WARNING = 1, ACRE_LINT_ERROR = 2 };

typedef struct acre_lint_finding {
    const char *id;        /* "shadowed-rule", ...; "parse-error" */
    int severity;          /* enum acre_lint_severity */
    const char *file;      /* NULL: unknown, or text without a name */
    unsigned line, column; /* 1-based; 0: unknown */
    const char *message;   /* one line, no newline */
    const char *note;      /* a related place (the rule that shadows this
                              one, the clause that matches everyone...):
                              what it is, or NULL when there is none */
    const char *note_file;
    unsigned note_line, note_column;
} acre_lint_finding;

typedef struct acre_lint_result {
    size_t count;                      /* findings */
    const acre_lint_finding *findings; /* by source, file, line, column */
    unsigned errors, warnings;
    unsigned suppressed; /* warnings silenced (argument or comment) */
} acre_lint_result;

/* One kind of warning: its id and what it means. */
typedef struct acre_lint_check {
    const char *id;
    const char *summary;
} acre_lint_check;

/* acre_lint_checks -- every warning kind, in a fixed order; *n (may be
 * NULL) receives the count.  Static, never freed.  Any thread. */
const acre_lint_check *acre_lint_checks(size_t *n);

/*
 * acre_lint -- check the rules of src[0..n), each source on its own (each
 * is one configuration, read with a fresh built-in schema with slapd's
 * matching plus the definitions it loads itself); the ACRE_DIALECT_ACI
 * sources together, as the one policy acre_policy_compile makes of them
 * (every refused aci value is an error, the reading going on at the
 * next value; warnings only when none is).
 *   data:    NULL, or a directory whose entries the DNs of the rules
 *            should name (missing-base).
 *   disable: NULL, or ids separated by commas: those warnings are left
 *            out (counted in `suppressed`).
 *   flags:   0, or ACRE_COMPILE_ACI_OPENDJ with ACI sources.
 *   out:     OUT, talloc child of mem_ctx; free with acre_lint_free (or
 *            with mem_ctx).  Every string of its findings lives in it.
 * src and data are only read during the call (data is not kept).
 * A source that does not compile gives no warnings and one error finding
 * for each directive or value the server refuses, each with its file,
 * line and column, in the order of the file: the reading goes on at the
 * next slapd.conf directive (logical line) or the next cn=config value
 * (olcAccess, olcSuffix, olcRootDN).  An error that ends the reading (a
 * file that cannot be read, a limit, a schema or LDIF error) is the last
 * one; at most 101 errors per source.  acre_policy_compile still stops
 * at the first error and keeps nothing.
 * Returns 0 (whatever was found), ACRE_ERR_INVAL (bad arguments, an
 * unknown id in disable, named in diag), ACRE_ERR_BADOBJ (data is not a
 * directory), ACRE_ERR_NOMEM.
 * Cost is bounded: linear in the rules times their depth for most checks;
 * at most ACRE_LINT_MAX_RETRIES re-reads to resolve unknown attributes.
 * Any thread; the sources are only read.
 */
#define ACRE_LINT_MAX_RETRIES 32

int acre_lint(void *mem_ctx, const acre_source *src, size_t n,
              const acre_directory *data, const char *disable, unsigned flags,
              acre_lint_result **out, acre_diag *diag);

/*
 * acre_lint_status -- what the findings amount to: 0 none, 1 warnings
 * only, 2 errors (the exit status of `acre lint`); 2 for NULL;
 * ACRE_ERR_BADOBJ when r is not a lint result.  Any thread.
 */
int acre_lint_status(const acre_lint_result *r);

enum acre_lint_format {
    ACRE_LINT_TEXT = 1, /* gcc style: FILE:LINE:COL: warning: MSG [ID],
                           then FILE:LINE:COL: note: NOTE */
    ACRE_LINT_JSON,     /* an array of objects: id, severity, file, line,
                           column, message[, related {file, line, column,
                           message}] */
    ACRE_LINT_SARIF     /* a SARIF 2.1.0 log: one run of tool "acre" */
};

/*
 * acre_lint_format -- the findings as text in one of the formats above,
 * NUL-terminated, to free with free(); NULL when out of memory, r is NULL
 * or the format is unknown.  Any thread.
 */
char *acre_lint_format(const acre_lint_result *r, int format);

/* acre_lint_free -- free a result and its findings; NULL is ignored.
 * Not while another thread reads it. */
void acre_lint_free(acre_lint_result *r);

/* ========================================================================
 * Requests: one requester, one operation
 *
 * Every function below that takes a request and returns an error code
 * returns ACRE_ERR_INVAL for a NULL request and ACRE_ERR_BADOBJ for one
 * that is not a request (acre_filter_match: a filter that is not a
 * filter too), before anything else.
 */

/*
 * Who asks.  DNs are strings; NULL or "" is anonymous (one difference: a
 * slapd set naming `user` fails for NULL, slapd's anonymous connection,
 * which has no DN, and takes "" for "", an operation proxied to
 * anonymous, which has the empty DN).  authc_dn is the
 * authentication DN (NULL: the same as authz_dn); under a 389 ACI policy
 * a non-NULL one is 389's proxied authorization control (each entry
 * needs authc_dn's proxy right, the checks are authz_dn's: acre-rules(5)).
 * Connection strings use
 * slapd's forms: peername "IP=127.0.0.1:40000", "IP=[::1]:40000",
 * "PATH=/run/ldapi"; sockname likewise; sockurl the listener URL
 * ("ldap:///"); domain the peer's host name.  NULL means unknown (a rule
 * on it does not match), except sockurl, which is then the empty URL as
 * in slapacl.  The ssf values are security strength factors.
 * Zero the whole structure before filling it: fields may be added.
 */
typedef struct acre_subject {
    const char *authz_dn;
    const char *authc_dn;
    const char *peername;
    const char *sockname;
    const char *sockurl;
    const char *domain;
    unsigned ssf, transport_ssf, tls_ssf, sasl_ssf;
    /* ACI rules (authmethod, dayofweek, timeofday): how the requester
     * bound -- "none", "simple", "ssl" (a TLS client certificate),
     * "sasl/MECH"; "": none known (what 389's get-effective-rights
     * evaluates: only authmethod="none" takes it); NULL: simple when
     * authz_dn is given, else none --
     * and the time of the operation, seconds since the Epoch in the
     * local time zone's calendar; 0: the time acre_request_begin runs */
    const char *auth_method;
    int64_t time;
} acre_subject;

typedef struct acre_request acre_request;

/*
 * acre_request_begin -- start an operation for `who` under policy p
 * (which gains a reference until acre_request_end), with the host's
 * lookups (NULL: none; every check that needs one is denied with
 * ACRE_ERR_LOOKUP).  The host table is copied; its `arg` and whatever it
 * reaches must stay valid until acre_request_end.  Every condition that
 * depends only on the requester is decided once per requester identity,
 * at its first use, and shared by all requests of that identity through
 * the policy's cache; static group membership is kept there too while the
 * host's generation stays the same.  A request is for one thread at a
 * time; its results point into it.
 *   who:  NULL: anonymous.  Its strings are copied: who need not outlive
 *         the call.
 *   out:  OUT, a talloc root of its own (no parent: it must not be freed
 *         with anything else); end it with acre_request_end.  p (held by
 *         the request) and host->arg must outlive it.
 * Returns 0, ACRE_ERR_INVAL (p or out NULL), ACRE_ERR_BADOBJ (p is not a
 * policy), ACRE_ERR_DN_* (a bad requester DN), ACRE_ERR_NOMEM.  Any thread, any
 * number at once on one policy.
 */
int acre_request_begin(acre_policy *p, const acre_subject *who,
                       const acre_host *host, acre_request **out);

/*
 * acre_request_end -- end the request: free it and everything its results
 * pointed to (verdicts, collective views, matched DNs), and release its
 * reference on the policy (freeing the policy if that was the last one).
 * NULL is ignored.  On the request's thread (or any thread, once no
 * other one uses it).
 */
void acre_request_end(acre_request *rq);

/* Flags of a request (acre_request_set_flags) */
/* the subentries control (RFC 3672, 1.3.6.1.4.1.4203.1.10.1) with
 * visibility TRUE: searches return subentries only */
#define ACRE_REQ_SUBENTRIES 0x1u
/* OpenDJ's virtual isMemberOf: an entry that stores no isMemberOf has
 * one computed from the host's groups (static, nested, dynamic), seen by
 * search filters, filter= rules and specificationFilter refinements */
#define ACRE_REQ_ISMEMBEROF 0x2u
/* 389's memberOf where the data does not store it: an entry that stores
 * no memberOf has one computed from the host's static groups
 * (groupOfNames, groupOfEntries, groupOfUniqueNames; nested; no dynamic
 * groups), as 389's memberOf plugin would have written it (slapd's
 * memberof overlay writes only direct groupOfNames memberships), seen by search
 * filters, filter= rules and specificationFilter refinements */
#define ACRE_REQ_MEMBEROF   0x4u
/* 389's nsRole, as its roles plugin computes it: an entry that stores no
 * nsRole holds each role (an nsRoleDefinition entry among the host's
 * entries) whose parent's subtree holds it and whose definition takes
 * it: managed (its nsRoleDN names the role, compared as a DN), filtered
 * (it matches nsRoleFilter) or nested (it holds a role the definition's
 * nsRoleDN names; 8 levels at most); seen by search filters (= and
 * presence) and targetfilters */
#define ACRE_REQ_NSROLE     0x8u
/* a search for attribute types only (attrsonly, ldapsearch -A): the
 * verdicts acre_search gives answer each selected attribute of the
 * entry, and each collective one, by slapd's check of read on the
 * attribute alone (send_search_entry's, without a value: a val= rule
 * never applies, a "self" access never does), ACRE_ATTR_ALL or
 * ACRE_ATTR_NONE; their value bytes are as without the flag.  The
 * OpenLDAP dialect (ACIs decide attributes whole already) */
#define ACRE_REQ_ATTRSONLY  0x10u
/* 389's Class of Service, as its cos plugin computes it from the host's
 * CoS definitions (ldapSubEntry entries of class cosPointerDefinition,
 * cosClassicDefinition or cosIndirectDefinition) and templates: the
 * attributes they give an entry are seen by search filters and
 * targetfilters (on those values alone, where CoS gives the attribute)
 * and returned through acre_entry_cos (see acre(3)) */
#define ACRE_REQ_COS        0x20u

/*
 * acre_entry_ismemberof -- the virtual isMemberOf values of entry e under
 * ACRE_REQ_ISMEMBEROF, as an operational attribute to return (requested
 * by name or by "+", never by "*"): the DNs of the groups e is in, as the
 * group entries have them, in the order of their normalised DNs.  None
 * without the flag, or when e stores isMemberOf (its own values are
 * returned then).  Values are not checked: ask acre_access for read on
 * "isMemberOf" with each value before returning it.
 *   vals, n: OUT, valid until the request's next call.
 * Returns 0, ACRE_ERR_INVAL, ACRE_ERR_BADOBJ, ACRE_ERR_LOOKUP (the group
 * index could not be built) or ACRE_ERR_NOMEM.  For the request's thread.
 */
int acre_entry_ismemberof(acre_request *rq, const acre_entry_view *e,
                          const acre_value **vals, uint32_t *n);

/*
 * acre_entry_memberof -- the virtual memberOf values of entry e under
 * ACRE_REQ_MEMBEROF, as acre_entry_ismemberof gives isMemberOf's (same
 * order, same lifetime, same errors) but from static groups only.  The
 * built-in schema has memberOf as a user attribute (as 389 defines it), so
 * return them for "*" as well as by name; none without the flag or when e
 * stores memberOf.  Ask acre_access for read on "memberOf" with each value
 * before returning it.
 */
int acre_entry_memberof(acre_request *rq, const acre_entry_view *e,
                        const acre_value **vals, uint32_t *n);

/*
 * acre_entry_nsrole -- the virtual nsRole values of entry e under
 * ACRE_REQ_NSROLE: the normalised DNs of the roles e holds, in their
 * order, as 389 returns them; an operational attribute (requested by name
 * or by "+").  Same lifetime and errors as acre_entry_ismemberof; none
 * without the flag or when e stores nsRole.  Ask acre_access for read on
 * "nsRole" with each value before returning it.
 */
int acre_entry_nsrole(acre_request *rq, const acre_entry_view *e,
                      const acre_value **vals, uint32_t *n);

/*
 * acre_entry_cos -- under ACRE_REQ_COS, the attribute named `name` (a type
 * without options) as 389's Class of Service gives it to entry e: 1 with
 * its values in vals[0..n) (valid until the request's next call) and
 * *operational 1 when the definition makes it operational (returned by
 * name or "+" only, never by "*"), 0 when CoS gives e no such attribute
 * (e's own values, if any, stand), or ACRE_ERR_INVAL, ACRE_ERR_BADOBJ,
 * ACRE_ERR_LOOKUP (the definitions could not be read) or ACRE_ERR_NOMEM.
 * CoS values replace e's own of that type when it gives them.  Values are
 * not checked: ask acre_access for read on the attribute before
 * returning them.  operational may be NULL.  For the request's thread.
 */
int acre_entry_cos(acre_request *rq, const acre_entry_view *e, const char *name,
                   const acre_value **vals, uint32_t *n, int *operational);

/*
 * acre_entry_cos_names -- under ACRE_REQ_COS, the names of the attribute
 * types Class of Service may give (every definition's, in 389's order:
 * by name), for a host listing what to ask acre_entry_cos about when it
 * returns all attributes, each spelt as 389 returns it for "*" (a
 * template's attribute by its schema name, an indirect definition's
 * cosAttribute as written).  names[0..n): owned by the request, valid until
 * it ends.  Returns 0 (n 0 without the flag) or acre_entry_cos's errors.
 */
int acre_entry_cos_names(acre_request *rq, const char *const **names,
                         uint32_t *n);

/*
 * acre_request_set_flags -- set the request's ACRE_REQ_* flags (replacing
 * the previous ones; a new request has none).  As back-mdb does: without
 * ACRE_REQ_SUBENTRIES one-level and subtree searches skip subentries and
 * a base search returns one; with it only subentries are returned, at any
 * scope.  NULL is ignored.  For the request's thread only.
 */
void acre_request_set_flags(acre_request *rq, unsigned flags);

/*
 * acre_entry_collective -- the collective attributes entry e shows under
 * the request's policy (nothing unless it was made by
 * acre_policy_attach_subentries): union of the values of the subentries
 * whose reach includes e, less e's collectiveExclusions (all of them for
 * excludeAllCollectiveAttributes), with OpenDJ's conflict behaviour and
 * inheritance, then the slapo-collect values readable by the requester on
 * their source entry.  Access to the values on e itself is not decided
 * here: acre_entry_decide and acre_search do, as for e's own values.
 *   out: OUT, valid until the request's next collective, decide or search
 *        call.
 * Costs the same index probes as a decision, then a walk of the node's
 * candidates; allocation-free once the request has seen a result of this
 * size.  Returns 0, ACRE_ERR_INVAL (an argument NULL, a view of another
 * schema), ACRE_ERR_NOMEM, ACRE_ERR_LOOKUP (a slapo-collect source's check
 * needed a host lookup that failed).  For the request's thread.
 */
int acre_entry_collective(acre_request *rq, const acre_entry_view *e,
                          acre_collective_view *out);

/* What a check asks for (slapd's access levels). */
enum acre_right {
    ACRE_RIGHT_DISCLOSE = 1,
    ACRE_RIGHT_AUTH,
    ACRE_RIGHT_COMPARE,
    ACRE_RIGHT_SEARCH,
    ACRE_RIGHT_READ,
    ACRE_RIGHT_ADD,    /* add a value, or an entry (with attr "children") */
    ACRE_RIGHT_DELETE, /* delete a value, or an entry */
    ACRE_RIGHT_WRITE,  /* both */
    ACRE_RIGHT_MANAGE
};

/*
 * ACRE_ACCESS_PREPARED -- or'd into the right of acre_access (and
 * acre_explain, acre_explain_steps): val is not a value as stored but an
 * assertion as the host's filter code prepared it, normalised by its
 * item's matching rule, which is how slapd passes a filter's value to its
 * search checks.  It is compared as it is, never normalised again nor
 * parsed: so a val= rule takes (:caseExactMatch:=Boss) on a title "Boss"
 * only as slapd does, by the normalised bytes, a val.one, val.subtree or
 * val.children rule on a DN-valued attribute compares its end with the
 * rule's normalised DN byte for byte (slapd's acl_get), and val.regex
 * sees it unchanged.  slapacl checks a value typed on its command line
 * that way, as typed.  The OpenLDAP dialect only.
 */
#define ACRE_ACCESS_PREPARED 0x100

/*
 * ACRE_ACCESS_AFTER_ATTR -- or'd into the right of acre_access: the check
 * of the value val that slapd makes right after checking the attribute
 * without a value, as it does for the operational attributes it computes
 * for a search result (entryDN, subschemaSubentry, hasSubordinates:
 * slap_send_search_entry).  slapd's state from that first check answers
 * the value unless the first check reached a clause whose access has
 * "self" (selfwrite, selfnone, ...); then the value's check resumes after
 * the last rule that matched before that clause, so a val= rule the first
 * check passed by (it had no value) is not looked at again.  Denied when
 * the check without a value denies.  val is taken as slapd sends it (the
 * entry's DN as slapd prints it, "cn=Subschema", "TRUE"), not normalised:
 * slapd checks these values in that form, so a "self" access matches an
 * entryDN only when it is byte for byte the requester's normalised DN, and
 * val= rules compare it as ACRE_ACCESS_PREPARED says.  A plain check of a value
 * is the first of its attribute, as slapd makes for the attributes an entry
 * stores.  The OpenLDAP dialect only (ACIs ignore the flag).
 */
#define ACRE_ACCESS_AFTER_ATTR 0x200

/*
 * acre_access -- may the requester have `right` on entry e's attribute
 * `attr` (a description such as "cn;lang-en", or "entry" / "children"),
 * for the value val[0..val_len) as stored when val is not NULL?
 *   mask: OUT (may be NULL): the privileges the deciding rule left
 *         (ACRE_PRIV_* bits), what slapacl prints.
 * Returns 1 granted, 0 denied, or a negative error (denied): ACRE_ERR_INVAL
 * (rq, e or attr NULL, unknown attribute, bad right, a view of another
 * schema), ACRE_ERR_EVAL_LIMIT, ACRE_ERR_LOOKUP (a host lookup the check
 * needed failed), ACRE_ERR_NOMEM.  No allocation, except where a rule's
 * pattern is substituted per check ($n, ",expand"): that pattern is
 * compiled per check, as slapd does.  For the request's thread.
 */
int acre_access(acre_request *rq, const acre_entry_view *e, const char *attr,
                const void *val, size_t val_len, int right, uint32_t *mask);

/* Privilege bits of a mask (slapd's layout) */
#define ACRE_PRIV_NONE     0x0001u
#define ACRE_PRIV_DISCLOSE 0x0002u
#define ACRE_PRIV_AUTH     0x0004u
#define ACRE_PRIV_COMPARE  0x0008u
#define ACRE_PRIV_SEARCH   0x0010u
#define ACRE_PRIV_READ     0x0020u
#define ACRE_PRIV_ADD      0x0140u
#define ACRE_PRIV_DELETE   0x0240u
#define ACRE_PRIV_WRITE    0x0340u
#define ACRE_PRIV_MANAGE   0x0080u
#define ACRE_PRIV_LEVEL    0x1000u /* set by a level keyword (printing) */

/* Bytes of a buffer that holds any text acre_mask_format gives. */
#define ACRE_MASK_BUF 32

/*
 * acre_mask_format -- slapd's text for a mask, as slapacl prints it
 * ("read(=rscxd)", "=rsc", "=0", "invalid" for 0), NUL-terminated.
 *   buf: at least ACRE_MASK_BUF bytes, written.
 * Returns buf.  No allocation; any thread.
 */
char *acre_mask_format(uint32_t mask, char *buf);

/*
 * The verdict on one entry: may it be returned, and which of its values
 * may be read.  Arrays follow the entry's attribute order
 * (acre_entry_attr) and point into the request: valid until its next
 * decide or search call.
 */
enum acre_attr_verdict {
    ACRE_ATTR_NONE = 0, /* no value readable: leave the attribute out */
    ACRE_ATTR_SOME = 1, /* value[first[i] + j] says which */
    ACRE_ATTR_ALL = 2
};

typedef struct acre_verdict {
    int visible;           /* the entry itself (`right` on "entry") */
    unsigned nattrs;       /* the entry's attributes */
    const uint8_t *attr;   /* [nattrs]: enum acre_attr_verdict */
    const uint8_t *value;  /* one byte per value, all attributes in
                              order: 1 readable */
    const uint32_t *first; /* [nattrs]: index of attribute i's first
                              value in value[] */
    /* the collective attributes the entry shows (an attached policy),
     * read through `coll`; an attribute of the entry that one of them
     * hides (virtual-overrides-real) is ACRE_ATTR_NONE above */
    acre_collective_view coll;
    const uint8_t *coll_attr;   /* [coll.nattrs]: enum acre_attr_verdict
                                   (NONE for one not selected:
                                   collectiveAttributeSubentries unless a
                                   search asks for it) */
    const uint8_t *coll_value;  /* one byte per value: 1 readable */
    const uint32_t *coll_first; /* [coll.nattrs]: attribute i's first
                                   value in coll_value[] */
} acre_verdict;

/*
 * acre_entry_decide -- decide e and all its attributes and values at once
 * for `right` (normally ACRE_RIGHT_READ) as a search result is checked:
 * `right` on "entry", then on each value.  The search right on filter
 * items is not part of it: a host filtering its own candidates calls
 * acre_filter_match first.  Allocation-free once the request has seen an
 * entry of this size.  Returns 0, or a negative error: ACRE_ERR_INVAL (a
 * view of another schema, a bad right), ACRE_ERR_NOMEM, ACRE_ERR_LOOKUP
 * (a check needed a host lookup that failed).  On any error *out shows
 * nothing (visible 0, every attribute ACRE_ATTR_NONE, no collective
 * attribute).  A check that reaches an evaluation bound
 * (ACRE_ERR_EVAL_LIMIT) denies what it checked: the entry, or that value.
 * *out points into the request (see acre_verdict).  For the request's
 * thread.
 */
int acre_entry_decide(acre_request *rq, const acre_entry_view *e, int right,
                      acre_verdict *out);

/* One entry a search returns, with its verdict restricted to the
 * attributes the search asked for. */
typedef int (*acre_search_fn)(void *arg, const acre_entry_view *e,
                              const acre_verdict *v);

/*
 * acre_search -- a search of the request's host (its get and search
 * lookups: acre_request_begin) as the requester, checked as slapd does:
 * base DN, scope (enum acre_scope), RFC 4515 filter, requested attributes
 * attrs[0..nattrs) (none: all user attributes; "*", "+", names, "1.1").
 * The base entry needs search on "entry" (else noSuchObject, or
 * insufficientAccess when disclose is granted; a missing base's matched
 * DN only when disclosed); under an OpenLDAP policy the base "" at a
 * scope other than ACRE_SCOPE_BASE (which is slapd's root DSE, held by
 * no database) names the root of the database whose suffix is "", and
 * when the host has no entry "" that is back-mdb's glue entry
 * (objectClass and structuralObjectClass "glue"), checked as any base,
 * never returned, and only that database's entries are (at any base,
 * a search returns the entries of its base's database alone, then, for
 * one-level and subtree scopes, those of the databases glued below it
 * with "subordinate", as slapd's glue overlay: acre-rules(5)); filter items
 * need search (denied items are
 * Undefined: acre_filter_match), returned entries read on "entry", values
 * read each.  fn is called for each returned entry in the host's search
 * order with its view and verdict; a non-zero return stops the search.
 *   ldap_rc: OUT: 0 success, 32 noSuchObject, 34 invalidDNSyntax (a
 *            base that does not parse, or that slapd refuses: an RDN
 *            naming one type twice, a #-BER value), 50
 *            insufficientAccess, 87 filterError; under an ACI policy
 *            as 389-DS answers: 2 protocolError for ACRE_SCOPE_CHILDREN
 *            (389 has no subordinate scope) and for a filter holding an
 *            empty set, (&) or (|); 12 unavailableCriticalExtension for
 *            an extensible item without a type or with a rule 389 does
 *            not know (of those two, the first in the filter decides);
 *            53 unwillingToPerform for a filter that is one item on
 *            numSubordinates or hasSubordinates its back end cannot
 *            rewrite (it rewrites the others: acre-rules(5));
 *            0 with no entry for a
 *            missing base whose nearest existing ancestor the
 *            requester may not read, no access check on the base;
 *            under an OpenLDAP policy 11 adminLimitExceeded, with no
 *            entry, for a requester whose size.unchecked is "disabled"
 *            or is passed by both back-mdb's index candidates and the
 *            entries in scope (acre_search_limits).
 *   matched: OUT (may be NULL): the matched DN disclosed, or NULL; points
 *            into the request.
 * Returns 0, or ACRE_ERR_NOMEM / ACRE_ERR_INVAL (rq, base, filter, fn,
 * ldap_rc or an attrs[i] NULL, a bad scope) / ACRE_ERR_LOOKUP (a host
 * lookup failed: the search stops; what fn was given stays given) /
 * ACRE_ERR_UNSUPPORTED (a size.unchecked limit applies and back-mdb would
 * count the candidates with index keys acre does not reproduce: an
 * equality rule whose keys are not its values, or an integer past 8
 * digits or a time before 1970 in an inequality, on an indexed attribute;
 * before any entry).  fn is
 * called on the calling thread and must not end the request.  For the
 * request's thread.
 */
int acre_search(acre_request *rq, const char *base, int scope,
                const char *filter, const char *const *attrs, unsigned nattrs,
                acre_search_fn fn, void *arg, int *ldap_rc,
                const char **matched);

/* The limits of a search: entries and seconds, and the most candidates
 * the back end may consider (size.unchecked: set by acre_search_limits
 * only). */
typedef struct acre_limits {
    long size;
    long time;
    long unchecked;
} acre_limits;

#define ACRE_LIMIT_NONE (-1L)       /* in force: no limit */
#define ACRE_LIMIT_MAX  2147483647L /* asked: the most granted ("max") */

/*
 * acre_search_limits -- the size limit (entries) and time limit
 * (seconds) slapd puts on a search of the request's requester under
 * `base`, as its limits_check.  asked: what the client asked, as the
 * protocol carries it (0 none, up to ACRE_LIMIT_MAX, which ldapsearch's
 * "max" sends).  out: the limits in force, ACRE_LIMIT_NONE or a count
 * (0 too: no entry).  The database holding base (the frontend when none;
 * for a base in a glued subordinate, the first database holding it that
 * is none, as slapd's frontend selects it) decides: its rootdn gets
 * what it asked (0 or ACRE_LIMIT_MAX: none);
 * anyone else gets the limits of its first "limits" rule (olcLimits
 * value) whose selector matches (the requester's DN, its membership of a
 * group through the host, or base for dn.this), else its sizelimit and
 * timelimit (olcSizeLimit, olcTimeLimit; slapd's defaults 500 entries
 * and 3600 s when the policy sets none): nothing asked gives the soft
 * limit, more than the hard limit (ACRE_LIMIT_MAX too) the hard one, a
 * hard limit of "soft" the soft one, an unlimited hard limit what was
 * asked.  A search stops with sizeLimitExceeded (4) before an entry past
 * out->size, timeLimitExceeded (3) once out->time seconds have passed.
 * out->unchecked: their size.unchecked, ACRE_LIMIT_NONE or the most
 * candidates the back end may take for the search (slapd's back-mdb
 * answers adminLimitExceeded, 11, with no entry when both its index
 * candidates and the entries in scope are more: a host with indexes of
 * its own applies it; acre_search applies it for its host as back-mdb
 * does).  asked->unchecked is not read.  Returns 0, ACRE_ERR_INVAL /
 * ACRE_ERR_BADOBJ (a NULL or bad argument), ACRE_ERR_LOOKUP /
 * ACRE_ERR_EVAL_LIMIT / ACRE_ERR_NOMEM (a group's lookup failed, a regex limit
 * was reached: out untouched), or ACRE_ERR_ADMIN_LIMIT (out untouched) when
 * they set size.unchecked to "disabled" or 0 (slapd refuses the search with
 * adminLimitExceeded, 11, before looking at the base).  Allocates nothing.  For
 * the request's thread.
 */
int acre_search_limits(acre_request *rq, const acre_dn *base,
                       const acre_limits *asked, acre_limits *out);

/*
 * acre_filter_check -- does filter[0..len) parse as acre_search parses a
 * filter (RFC 4515, against schema; NULL: the built-in one)?  Returns 0,
 * or an ACRE_ERR_FILTER_* code with diag giving the offset and column of
 * the error (where acre_search would answer 87 filterError), or
 * ACRE_ERR_NOMEM / ACRE_ERR_INVAL.  Any thread.
 */
int acre_filter_check(const acre_schema *schema, const char *filter, size_t len,
                      acre_diag *diag);

/*
 * A search filter parsed once for many entries (acre_filter_match).
 */
typedef struct acre_filter acre_filter;

/*
 * acre_filter_parse -- parse filter[0..len) (RFC 4515) against schema
 * (NULL: the built-in one; for acre_filter_match, the policy's).
 *   out: OUT, talloc child of mem_ctx; free with acre_filter_free.
 * Returns 0, an ACRE_ERR_FILTER_* code with diag giving the offset and
 * column of the error, ACRE_ERR_NOMEM or ACRE_ERR_INVAL (filter or out
 * NULL).  The schema must outlive the filter.  Any thread; the filter may
 * then be used by any number of threads at once.
 */
int acre_filter_parse(void *mem_ctx, const acre_schema *schema,
                      const char *filter, size_t len, acre_filter **out,
                      acre_diag *diag);

/* acre_filter_free -- free a parsed filter; NULL is ignored.  Not while
 * another thread uses it. */
void acre_filter_free(acre_filter *f);

/*
 * acre_filter_match -- does e match f as the requester may search it?
 * What acre_search does to each candidate, for a host that selects its
 * own candidates: each filter item is checked for search access (on the
 * item's attribute description with its asserted value, then on each
 * stored attribute it covers, as slapd's filterentry.c asks), and an item
 * the requester may not search is Undefined (OpenLDAP's rule), so no
 * filter can probe values the requester may not search.  Under an
 * attached policy the entry's collective values are seen too (unless
 * ACRE_COLL_NO_FILTER).  Allocation-free once the request has seen an
 * entry of this size.
 * Returns 1 (True), 0 (False or Undefined), or a negative error (then the
 * entry must not be returned): ACRE_ERR_INVAL (an argument NULL, a view
 * or filter of another schema), ACRE_ERR_NOMEM, ACRE_ERR_EVAL_LIMIT,
 * ACRE_ERR_LOOKUP.  For the request's thread (f may be shared).
 */
int acre_filter_match(acre_request *rq, const acre_filter *f,
                      const acre_entry_view *e);

/*
 * acre_explain -- the check acre_access would make, told step by step:
 * the index node used, each rule visited and whether its target matched,
 * each clause and why it applied or not, the mask after it, and the
 * decision.  A NUL-terminated string to free with free(); NULL when out
 * of memory or rq is NULL (an error of the check itself is written as the
 * decision).  *granted (may be NULL) receives the decision: 1 granted, 0
 * denied or an error.  For the request's thread.
 */
char *acre_explain(acre_request *rq, const acre_entry_view *e, const char *attr,
                   const void *val, size_t val_len, int right, int *granted);

/* What one step of an explained check is (acre_explain_steps). */
enum acre_explain_kind {
    ACRE_EXPLAIN_NODE = 1,       /* the index node used; text: its DN */
    ACRE_EXPLAIN_ROOTDN,         /* the requester is the database's rootdn:
                                    manage, granted */
    ACRE_EXPLAIN_NO_USER_MOD,    /* write to a no-user-modification
                                    attribute: granted */
    ACRE_EXPLAIN_DEFAULT,        /* no rule applies anywhere: default read */
    ACRE_EXPLAIN_RULE_SKIPPED,   /* a rule whose target does not cover the
                                    check; text says why */
    ACRE_EXPLAIN_RULE,           /* a rule whose target covers the check:
                                    its clauses follow */
    ACRE_EXPLAIN_CLAUSE_SKIPPED, /* a clause that does not apply; text says
                                    why, detail may say more */
    ACRE_EXPLAIN_CLAUSE,         /* a clause that applies: mask after it,
                                    control */
    ACRE_EXPLAIN_IMPLICIT_NONE,  /* no clause stopped: the implicit
                                    "by * none" ends the rule */
    ACRE_EXPLAIN_LIMIT,          /* an evaluation bound was reached: denied */
    ACRE_EXPLAIN_NO_MORE_RULES,  /* no rule left: denied */
    /* ACI policies (the aci_* fields say which ACI) */
    ACRE_EXPLAIN_ACI_SKIPPED,   /* a permission of a candidate ACI that does
                                   not apply to the check; text says why
                                   (rights, targetattr, target) */
    ACRE_EXPLAIN_ACI,           /* a permission that applies: outcome is
                                   its bind rule's; its ACI_BIND steps
                                   follow */
    ACRE_EXPLAIN_ACI_BIND,      /* one keyword test of that bind rule, as
                                   evaluated (left to right, stopping as
                                   389 does): outcome, bind */
    ACRE_EXPLAIN_ACI_ANONYMOUS, /* 389's anonymous profile decided (the
                                   ACI that granted, if any) */
    ACRE_EXPLAIN_ACI_DECISION   /* the last step: granted or denied, by
                                   the ACI named (none: no permission
                                   applied, or a lookup failed) */
};

/* A bind rule's (or keyword test's) outcome. */
enum acre_outcome {
    ACRE_OUTCOME_TRUE = 1,
    ACRE_OUTCOME_FALSE,
    ACRE_OUTCOME_UNDEFINED, /* could not be evaluated (389's failure): an
                               allow does not apply, a deny does */
    ACRE_OUTCOME_INVALID    /* 389 cannot evaluate its operator or value
                               (an ordering on ip, dns or dayofweek, ...):
                               an allow does not apply, nor a deny; in an
                               ACI with a deny rule its rules are walked
                               in order, and an Invalid deny, or any deny
                               after an Invalid allow, ends the walk
                               without a deny */
};

/* What an applying clause does next (slapd's stop, continue, break). */
enum acre_control {
    ACRE_CONTROL_STOP = 1,
    ACRE_CONTROL_CONTINUE,
    ACRE_CONTROL_BREAK
};

typedef struct acre_explain_step {
    int kind;              /* enum acre_explain_kind */
    int rule;              /* the rule's number in evaluation order, as
                              acre_policy_dump numbers them; -1: none */
    unsigned clause;       /* its clause, from 1; 0: the rule itself */
    const char *section;   /* the rule's section: "frontend" or the database
                              type ("mdb"); NULL without a rule */
    int index;             /* the rule's index in its section, from 0; -1 */
    const char *file;      /* where the rule (clause) is written, or NULL */
    unsigned line, column; /* 1-based there; 0 when unknown */
    uint32_t mask;         /* the mask after this step (ACRE_PRIV_*) */
    int control;           /* ACRE_EXPLAIN_CLAUSE*: enum acre_control of
                              the clause; else 0 */
    const char *text;      /* one line, no newline: what the step is */
    const char *detail;    /* "" or lines ending in a newline: the notes
                              of a clause that does not apply (group
                              membership, set value, ...) */
    /* ACI steps (ACRE_EXPLAIN_ACI*); NULL, -1 or 0 in other steps, and
     * in an ACI_DECISION that no ACI made.  file, line and column say
     * where the aci value starts. */
    const char *aci_holder; /* DN of the entry holding the aci value */
    const char *aci_name;   /* its acl "NAME" */
    int aci_value;          /* index among the holder's aci values, from 0 */
    unsigned aci_perm;      /* its "allow|deny (rights) bind rule;", from 1 */
    int aci_deny;           /* 1: that permission denies, 0: allows */
    int outcome;            /* ACI and ACI_BIND: enum acre_outcome; else 0 */
    const char *bind;       /* ACI_BIND: the keyword test as acre reads it,
                               `userdn = "ldap:///self"`; else NULL */
} acre_explain_step;

typedef void (*acre_explain_fn)(void *arg, const acre_explain_step *s);

/*
 * acre_explain_steps -- the check acre_access would make, with each step
 * of its walk handed to fn(arg, step) in order: the index node, every
 * rule of the node's table met and why it was skipped or matched, every
 * clause of a matching rule and why it did or did not apply.  The step and
 * its strings are valid during the call only.  The last RULE and CLAUSE
 * steps (or the ROOTDN, NO_USER_MOD, DEFAULT, IMPLICIT_NONE, LIMIT or
 * NO_MORE_RULES step) are what decided.
 *   mask: OUT (may be NULL), as acre_access's.
 * Returns as acre_access (1, 0, a negative error), or ACRE_ERR_NOMEM, or
 * ACRE_ERR_INVAL when fn is NULL.  fn is called on the calling thread and
 * must not end the request.  For the request's thread.
 */
int acre_explain_steps(acre_request *rq, const acre_entry_view *e,
                       const char *attr, const void *val, size_t val_len,
                       int right, acre_explain_fn fn, void *arg,
                       uint32_t *mask);

/*
 * acre_effective_rights -- 389-DS's get-effective-rights (the control
 * 1.3.6.1.4.1.42.2.27.9.5.2) of the request's requester on e, under an
 * ACI policy: two lines, each ending in a newline,
 *   entryLevelRights: v a d n (or "none")
 *   attributeLevelRights: TYPE:r s c w o (or W O, or "none"), ...
 * as 389-DS 2.3 prints them.  attrs[0..nattrs): the attributes asked
 * for, as a search names them ("*", "+", names); none: every attribute
 * of e that is not operational, in e's order.  Names are printed as
 * given; e's own attributes by their schema names.  *out receives the
 * text, to free with free().  Returns 0, ACRE_ERR_INVAL (an argument
 * NULL), ACRE_ERR_UNSUPPORTED (not a 389 ACI policy: OpenLDAP rules, or
 * ACIs compiled with ACRE_COMPILE_ACI_OPENDJ), ACRE_ERR_NOMEM or
 * ACRE_ERR_LOOKUP (a failed lookup: nothing printed).  Like 389, it
 * answers in an operation of its own: nothing the request's checks kept
 * is used, and the substrings of URL filters (userdn, memberURL,
 * #LDAPURL) match as usual, where a 389 search takes them as written.
 * For the request's thread.
 */
int acre_effective_rights(acre_request *rq, const acre_entry_view *e,
                          const char *const *attrs, size_t nattrs, char **out);

#ifdef __cplusplus
}
#endif

#endif /* ACRE_H */
