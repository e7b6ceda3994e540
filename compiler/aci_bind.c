/*
 * aci_bind.c -- the ACL text of an `aci` value:
 *   version 3.0; acl "NAME"; allow|deny (RIGHTS) BINDRULE; ...
 * and its bind rules (keyword operands: aci_kw.c).
 *
 * Read as 389-DS 2.3 reads it: aclparse.c's sanity check and
 * normalisation, then libaccess's grammar (lib/libaccess/acltext.y,
 * aclscan.l), checked against those sources:
 *   - tokens as aclscan.l makes them: spaces, tabs and newlines between
 *     tokens; "#" starts a comment to the end of the line; a quoted
 *     string runs to the next '"' (no escapes); a word is
 *     [*A-Za-z0-9._-]+; operators = != < <= > >=; punctuation ( ) , ;
 *     keywords case-insensitive (the scanner is built with -i), but
 *     389 finds a bind rule's LAS by its exact name: bind rule keywords
 *     are lowercase under the 389 variant (aci_kw.c);
 *   - "version" then a word starting with '3' (389's sanity check), ';';
 *     "acl" (or "aci", which 389 rewrites to acl) then the name, quoted
 *     or a word (389: no ';' in it), ';';
 *   - one or more "allow|deny (RIGHTS) RULE ;"; "deny absolute" is
 *     accepted (389 adds absolute to every deny), "allow absolute" is
 *     not (389's rights reader wants '(' after allow);
 *   - RIGHTS: words separated by single commas, each (case-insensitive)
 *     read write add delete search compare selfwrite proxy moddn all
 *     (OpenDJ: import export too); a perm keeps the rights it names,
 *     as 389's rights list does (selfwrite: SELF alone -- it grants no
 *     plain write --, all: ACREI_ACI_ALL); the ACI's own rights (389's
 *     aci_access, aci_build.c) count selfwrite as SELF|WRITE;
 *   - RULE: factor [(and|or) RULE] -- right-associative with no
 *     precedence, as acltext.y's "expression" (so "a and b or c" is
 *     "a and (b or c)"); factor: "(" RULE ")" | not factor |
 *     KEYWORD OP VALUE, VALUE quoted or a word.
 * Bounds: ( ) and not nest at most ACREA_MAX_DEPTH deep (the recursion
 * is bounded by it), at most ACREA_MAX_TERMS keyword tests and "||"
 * terms in one value, ACREA_MAX_PERMS allow/deny pairs.
 */
#include "aci.h"
#include "internal.h"

#include <string.h>
#include <strings.h>
#include <talloc.h>

static int
is_word(char c)
{
    return acreE_is_alpha((unsigned char)c) ||
           acreE_is_digit((unsigned char)c) || c == '*' || c == '.' ||
           c == '-' || c == '_';
}

int
acreA_next(struct acreA_lex *L)
{
    struct acreA_p *p = L->p;
    const char *s = p->s;
    size_t i = L->i;

    for (;;) {
        while (i < L->end &&
               (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
            i++;
        if (i < L->end && s[i] == '#') {
            while (i < L->end && s[i] != '\n')
                i++;
            continue;
        }
        /* libaccess's scanner has no rule for other bytes: flex's default
         * rule drops them ("=!" is "=") */
        if (i < L->end && L->rule && p->variant == ACREI_ACI_389 &&
            !is_word(s[i]) && !strchr("\"=<>(){},;", s[i]) &&
            !(s[i] == '!' && i + 1 < L->end && s[i + 1] == '=')) {
            i++;
            continue;
        }
        break;
    }
    L->t.off = i;
    if (i >= L->end) {
        L->t.kind = ACREA_TEOF;
        L->t.n = 0;
        L->i = i;
        return 0;
    }
    size_t j = i + 1;
    char c = s[i];
    if (c == '"') {
        while (j < L->end && s[j] != '"')
            j++;
        if (j >= L->end)
            return acreA_err(p, ACRE_ERR_RULE_SYNTAX, i,
                             "unterminated quoted string");
        L->t.kind = ACREA_TQSTR;
        L->t.off = i + 1;
        L->t.n = j - i - 1;
        L->i = j + 1;
        return 0;
    }
    if (is_word(c)) {
        while (j < L->end && is_word(s[j]))
            j++;
        L->t.kind = ACREA_TWORD;
    } else if (c == '=' || c == '<' || c == '>' || c == '!') {
        if (j < L->end && s[j] == '=')
            j++;
        else if (c == '!')
            return acreA_err(p, ACRE_ERR_RULE_SYNTAX, i, "expected \"!=\"");
        L->t.kind = ACREA_TOP;
    } else if (c == '(' || c == ')' || c == ',' || c == ';' || c == '{' ||
               c == '}') {
        L->t.kind = (enum acreA_tkind)c;
    } else {
        return acreA_err(p, ACRE_ERR_RULE_SYNTAX, i, "unexpected '%c'", c);
    }
    L->t.n = j - i;
    L->i = j;
    return 0;
}

int
acreA_is(const struct acreA_lex *L, const char *word)
{
    return L->t.kind == ACREA_TWORD && L->t.n == strlen(word) &&
           !strncasecmp(L->p->s + L->t.off, word, L->t.n);
}

static int
expect(struct acreA_lex *L, enum acreA_tkind k, const char *what)
{
    if (L->t.kind != k)
        return acreA_err(L->p, ACRE_ERR_RULE_SYNTAX, L->t.off, "expected %s",
                         what);
    return acreA_next(L);
}

/* ------------------------------------------------------------------------
 * Rights
 */
static const struct {
    const char *name;
    unsigned bits;
    int opendj_only;
} rights_tab[] = {
    {"read", ACREI_ACI_READ, 0},
    {"write", ACREI_ACI_WRITE, 0},
    {"add", ACREI_ACI_ADD, 0},
    {"delete", ACREI_ACI_DELETE, 0},
    {"search", ACREI_ACI_SEARCH, 0},
    {"compare", ACREI_ACI_COMPARE, 0},
    {"selfwrite", ACREI_ACI_SELFWRITE, 0},
    {"proxy", ACREI_ACI_PROXY, 0},
    {"moddn", ACREI_ACI_MODDN, 0},
    {"all", ACREI_ACI_ALL, 0},
    {"import", ACREI_ACI_IMPORT, 1},
    {"export", ACREI_ACI_EXPORT, 1},
};

static int
right(struct acreA_lex *L, unsigned *bits)
{
    for (size_t k = 0; k < sizeof(rights_tab) / sizeof(rights_tab[0]); k++)
        if (acreA_is(L, rights_tab[k].name) &&
            (!rights_tab[k].opendj_only || L->p->variant == ACREI_ACI_OPENDJ)) {
            *bits |= rights_tab[k].bits;
            return acreA_next(L);
        }
    return acreA_err(L->p, ACRE_ERR_RULE_SYNTAX, L->t.off, "unknown right");
}

static int
rights(struct acreA_lex *L, unsigned *bits)
{
    int rc = expect(L, '(', "'(' before the rights");

    while (!rc) {
        if ((rc = right(L, bits)))
            break;
        if (L->t.kind != ',')
            break;
        rc = acreA_next(L);
    }
    if (rc || L->t.kind != ')')
        return rc ? rc : expect(L, ')', "',' or ')' in the rights");
    L->rule = 1; /* up to the ';' ending the bind rule */
    return acreA_next(L);
}

/* ------------------------------------------------------------------------
 * Bind rules
 */
static int rule(struct acreA_lex *L, unsigned depth,
                const struct acreI_bind **out);

static struct acreI_bind *
node(struct acreA_lex *L, enum acreI_aci_kw kw, size_t off)
{
    struct acreI_bind *b = talloc_zero(L->p->ctx, struct acreI_bind);

    if (b) {
        b->kw = kw;
        b->pos.file = L->p->at ? L->p->at->file : NULL;
        b->pos.line = L->p->at ? L->p->at->line : 0;
        b->pos.column =
            L->p->at && L->p->at->column ? L->p->at->column + (unsigned)off : 0;
    }
    return b;
}

static int
factor(struct acreA_lex *L, unsigned depth, const struct acreI_bind **out)
{
    size_t off = L->t.off;
    int rc;

    if (depth >= ACREA_MAX_DEPTH)
        return acreA_err(L->p, ACRE_ERR_RULE_LIMIT, off,
                         "bind rule nested deeper than %d", ACREA_MAX_DEPTH);
    if (L->t.kind == '(') {
        if ((rc = acreA_next(L)) || (rc = rule(L, depth + 1, out)))
            return rc;
        return expect(L, ')', "')' or and/or in the bind rule");
    }
    if (acreA_is(L, "not")) {
        struct acreI_bind *b = node(L, ACREI_ACI_NOT, off);
        if (!b)
            return ACRE_ERR_NOMEM;
        if ((rc = acreA_next(L)) || (rc = factor(L, depth + 1, &b->a)))
            return rc;
        *out = b;
        return 0;
    }
    return acreA_keyword(L, out);
}

/* factor [(and|or) rule]: right-associative, built without recursing:
 * each operator takes the last factor read as its left operand. */
static int
rule(struct acreA_lex *L, unsigned depth, const struct acreI_bind **out)
{
    const struct acreI_bind **slot = out;
    int rc = factor(L, depth, out);

    while (!rc && (acreA_is(L, "and") || acreA_is(L, "or"))) {
        struct acreI_bind *c = node(
            L, acreA_is(L, "and") ? ACREI_ACI_AND : ACREI_ACI_OR, L->t.off);
        if (!c)
            return ACRE_ERR_NOMEM;
        c->a = *slot;
        *slot = c;
        slot = &c->b;
        if (!(rc = acreA_next(L)))
            rc = factor(L, depth, slot);
    }
    return rc;
}

/* ------------------------------------------------------------------------
 * The ACL text
 */
static int
header(struct acreA_lex *L, struct acreI_aci *a)
{
    int rc;

    if (!acreA_is(L, "version"))
        return acreA_err(L->p, ACRE_ERR_RULE_SYNTAX, L->t.off,
                         "expected \"version 3.0\"");
    if ((rc = acreA_next(L)))
        return rc;
    if (L->t.kind != ACREA_TWORD || L->p->s[L->t.off] != '3')
        return acreA_err(L->p, ACRE_ERR_RULE_SYNTAX, L->t.off,
                         "the aci version must be 3.0");
    if ((rc = acreA_next(L)) || (rc = expect(L, ';', "';' after the version")))
        return rc;
    if (!acreA_is(L, "acl") && !acreA_is(L, "aci"))
        return acreA_err(L->p, ACRE_ERR_RULE_SYNTAX, L->t.off,
                         "expected acl \"NAME\"");
    if ((rc = acreA_next(L)))
        return rc;
    if (L->t.kind != ACREA_TQSTR && L->t.kind != ACREA_TWORD)
        return acreA_err(L->p, ACRE_ERR_RULE_SYNTAX, L->t.off,
                         "expected the acl name");
    /* 389's sanity check cuts the ACL text at each ';' first */
    if (L->p->variant == ACREI_ACI_389 &&
        memchr(L->p->s + L->t.off, ';', L->t.n))
        return acreA_err(L->p, ACRE_ERR_RULE_SYNTAX, L->t.off,
                         "389-DS refuses an acl name that holds ';'");
    if (!(a->name = talloc_strndup(L->p->ctx, L->p->s + L->t.off, L->t.n)))
        return ACRE_ERR_NOMEM;
    if ((rc = acreA_next(L)))
        return rc;
    return expect(L, ';', "';' after the acl name");
}

static int
perm(struct acreA_lex *L, struct acreI_aci_perm *pm)
{
    int rc;

    if (acreA_is(L, "allow"))
        pm->deny = 0;
    else if (acreA_is(L, "deny"))
        pm->deny = 1;
    else
        return acreA_err(L->p, ACRE_ERR_RULE_SYNTAX, L->t.off,
                         "expected allow or deny");
    if ((rc = acreA_next(L)))
        return rc;
    if (pm->deny && acreA_is(L, "absolute") && (rc = acreA_next(L)))
        return rc;
    if ((rc = rights(L, &pm->rights)) || (rc = rule(L, 0, &pm->bind)))
        return rc;
    L->rule = 0;
    return expect(L, ';', "';' after the bind rule");
}

int
acreA_acltext(struct acreA_p *p, size_t off, size_t n, struct acreI_aci *a)
{
    struct acreA_lex L = {.p = p, .i = off, .end = off + n};
    struct acreI_aci_perm *perms =
        talloc_zero_array(p->ctx, struct acreI_aci_perm, ACREA_MAX_PERMS);
    unsigned np = 0;
    int rc;

    if (!perms)
        return ACRE_ERR_NOMEM;
    if ((rc = acreA_next(&L)) || (rc = header(&L, a)))
        return rc;
    do {
        if (np == ACREA_MAX_PERMS)
            return acreA_err(p, ACRE_ERR_RULE_LIMIT, L.t.off,
                             "more than %d allow/deny parts", ACREA_MAX_PERMS);
        if ((rc = perm(&L, &perms[np++])))
            return rc;
    } while (L.t.kind != ACREA_TEOF);
    if (p->variant == ACREI_ACI_389 && (rc = acreA_scan389(p, off, n)))
        return rc;
    a->perms = perms;
    a->nperms = np;
    return 0;
}
