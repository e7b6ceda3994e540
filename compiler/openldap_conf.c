/*
 * openldap_conf.c -- slapd.conf input of the OpenLDAP front end, and the
 * configuration builder the cn=config reader shares.
 *
 * Two passes over the text:
 *   1. read every logical line, following "include" into existing files
 *      (depth <= ACREO_MAX_INCLUDE) and loading the schema definitions met
 *      on the way (attributetype, objectclass, objectidentifier, ...) into
 *      the caller's schema, in order: the definitions before an include
 *      are loaded before the included file's; the lexer keeps the
 *      "# acre-lint:" comments for acre_lint (acreO_comment), and so does
 *      this pass the comments that took in later lines (acreI_swallow);
 *   2. with the schema frozen, act on the other directives: "database"
 *      opens a section ("frontend" goes back to the global rules),
 *      "suffix" and "rootdn" set the section's, "access" parses a rule
 *      into the current section (the global rules before any database),
 *      "by" is refused as slapd refuses it (a clause cut off its rule by
 *      a blank line),
 *      "overlay collect" and its "collectinfo" lines (slapo-collect) are
 *      kept, "sizelimit", "timelimit" and "limits" set the section's
 *      search limits (openldap_limits.c), a word that is no directive of
 *      slapd's is refused (openldap_directives.c), anything else is noted
 *      and ignored.
 * slapd's own refusals kept here: a quote left open, suffix or rootdn
 * outside a database or with a bad DN, a suffix already served by an
 * earlier database, a database without a type, a word after the one
 * argument of database, suffix, rootdn, include and overlay ("extra
 * cruft"), an add_content_acl value that is not a boolean.
 * acre_lint reads on past a directive slapd refuses (acreO_recover) to
 * report every one; the result still fails.
 * Invariant: on any error the whole result is freed and *out untouched.
 */
#include "openldap_int.h"

#include "internal.h"
#include "schema.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <talloc.h>

/* ------------------------------------------------------------------------
 * The builder
 */

struct acreI_section *
acreO_db_new(struct acreO_build *b, const char *type, struct acreI_pos pos,
             int index)
{
    struct acreI_policy *cfg = b->cfg;
    struct acreI_section *v = cfg->dbs;
    size_t cap = v ? talloc_get_size(v) / sizeof(*v) : 0;

    /* doubling (trimmed by acreO_build_finish): n databases, O(n) copies */
    if (cfg->ndbs == cap &&
        !(v = talloc_realloc(cfg, v, struct acreI_section, cap ? 2 * cap : 4)))
        return NULL;
    cfg->dbs = v;
    struct acreI_section *db = &v[cfg->ndbs++];
    memset(db, 0, sizeof(*db));
    db->pos = pos;
    db->index = index;
    db->type = talloc_strdup(cfg, type);
    db->limits = cfg->frontend.limits; /* slapd: as the frontend's now */
    return db->type ? db : NULL;
}

/* How many rules db will get, when the reader said (0: unknown). */
static unsigned
rules_hint(const struct acreO_build *b, const struct acreI_section *db)
{
    const struct acreI_policy *cfg = b->cfg;

    if (db == &cfg->frontend)
        return b->front_hint;
    size_t k = (size_t)(db - cfg->dbs);
    return k < cfg->ndbs && k < b->ndb_hint ? b->db_hint[k] : 0;
}

int
acreO_db_add_rule(struct acreO_build *b, struct acreI_section *db,
                  const struct acreO_ptext *toks, unsigned ntoks,
                  const char *file, acre_diag *diag)
{
    if (b->nrules >= ACREO_MAX_RULES)
        return acreO_error(diag, ACRE_ERR_RULE_LIMIT, file, &toks[0], 0,
                           "too many access rules (limit %u)", ACREO_MAX_RULES);
    struct acreI_rule *v = db->rules;
    size_t cap = v ? talloc_get_size(v) / sizeof(*v) : 0;
    if (db->nrules == cap) { /* the size known, or doubling */
        size_t hint = rules_hint(b, db), want = cap ? cap * 2 : 16;
        v = talloc_realloc(b->cfg, db->rules, struct acreI_rule,
                           hint > cap ? hint : want);
        if (!v)
            return ACRE_ERR_NOMEM;
        db->rules = v;
    }
    int rc = acreO_parse_access(b, db, toks, ntoks, file, &v[db->nrules], diag);
    if (rc)
        return rc;
    v[db->nrules].index = db->nrules;
    db->nrules++;
    b->nrules++;
    return 0;
}

/* Is dn within a suffix of a database before `db` (one of cfg->dbs)?  The
 * first database holding dn is found through the suffix index. */
static const struct acreI_section *
served_before(const struct acreI_policy *cfg, const struct acreI_section *db,
              const acre_dn *dn)
{
    const struct acreI_section *s = acreI_section_for(cfg, dn);

    return s && s < db ? s : NULL;
}

/* acreO_check_glue -- see openldap_int.h. */
int
acreO_check_glue(struct acreO_build *b, acre_diag *diag)
{
    const struct acreI_policy *cfg = b->cfg;
    int rc = 0;

    for (unsigned d = 0; !rc && d < cfg->ndbs; d++) {
        const struct acreI_section *s = &cfg->dbs[d];
        if (s->subordinate && s->nsuffix && !acreI_superior(cfg, s))
            rc = acreO_recover(
                b,
                acreO_error_pos(diag, ACRE_ERR_RULE_SYNTAX, s->pos,
                                "no superior found for subordinate database "
                                "\"%s\" (a later database, not subordinate, "
                                "whose suffix holds its suffix)",
                                acre_dn_pretty(s->suffix[0], NULL)),
                diag);
    }
    return rc;
}

int
acreO_db_add_suffix(struct acreO_build *b, struct acreI_section *db,
                    const char *s, size_t n, const char *file,
                    const struct acreO_ptext *tok, size_t at, acre_diag *diag)
{
    acre_dn *dn;
    acre_diag d = {0};
    int rc = acreO_parse_dn(b, s, n, &dn, &d);

    if (db == &b->cfg->frontend)
        return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, file, tok, at,
                           "suffix not allowed in the frontend database");
    if (rc == ACRE_ERR_NOMEM)
        return rc;
    if (rc)
        return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, file, tok, at + d.offset,
                           "suffix DN \"%.*s\" is invalid: %s", (int)n, s,
                           d.message);
    if (served_before(b->cfg, db, dn))
        return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, file, tok, at,
                           "suffix \"%.*s\" already served by a preceding "
                           "backend",
                           (int)n, s);
    const acre_dn **v =
        talloc_realloc(b->cfg, db->suffix, const acre_dn *, db->nsuffix + 1);
    if (!v)
        return ACRE_ERR_NOMEM;
    v[db->nsuffix++] = dn;
    db->suffix = v;
    return acreI_suffix_add(b->cfg, (unsigned)(db - b->cfg->dbs), dn);
}

int
acreO_db_set_rootdn(struct acreO_build *b, struct acreI_section *db,
                    const char *s, size_t n, const char *file,
                    const struct acreO_ptext *tok, size_t at, acre_diag *diag)
{
    acre_dn *dn;
    acre_diag d = {0};
    int rc = acreO_parse_dn(b, s, n, &dn, &d);

    if (rc == ACRE_ERR_NOMEM)
        return rc;
    if (rc)
        return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, file, tok, at + d.offset,
                           "rootdn DN \"%.*s\" is invalid: %s", (int)n, s,
                           d.message);
    db->rootdn = dn;
    return 0;
}

/* ------------------------------------------------------------------------
 * slapo-collect
 */

/* Is dn already a collectinfo DN of database db? */
static int
collect_dup(const struct acreI_policy *cfg, int db, const acre_dn *dn)
{
    for (unsigned i = 0; i < cfg->ncollect; i++)
        if (cfg->collect[i].db == db && acre_dn_equal(cfg->collect[i].dn, dn))
            return 1;
    return 0;
}

/* The attribute list of collectinfo as collect_cf reads it: strtok on
 * ',' counts the names, then each is taken from the start of the last
 * one plus its length plus one, so an empty name inside the list fails
 * and trailing commas do not. */
static int
collect_attrs(struct acreO_build *b, const struct acreO_ptext *t,
              const char *file, struct acreI_collect *ci, acre_diag *diag)
{
    const char *s = t->s;
    size_t n = t->len, count = 0, at = 0;

    for (size_t i = 0; i < n; i++)
        if (s[i] != ',' && (i == 0 || s[i - 1] == ','))
            count++;
    ci->attrs = talloc_zero_array(b->cfg, struct acreI_attrspec, count + 1);
    if (!ci->attrs)
        return ACRE_ERR_NOMEM;
    for (size_t k = 0; k < count; k++) {
        size_t e = at;
        while (e < n && s[e] != ',')
            e++;
        struct acreI_attrspec *a = &ci->attrs[k];
        a->kind = ACREI_ATTR_EXACT;
        a->oc = -1;
        int ok = acreO_attr_desc(b, s + at, e - at, a);
        if (ok < 0)
            return ACRE_ERR_NOMEM;
        if (!ok)
            return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, file, t, at,
                               "collectinfo attribute description unknown: "
                               "\"%.*s\"",
                               (int)(n - at), s + at);
        at = e + 1;
    }
    ci->nattrs = (unsigned)count;
    return 0;
}

int
acreO_collect_add(struct acreO_build *b, int db, const struct acreO_ptext *toks,
                  unsigned ntoks, const char *file, acre_diag *diag)
{
    struct acreI_policy *cfg = b->cfg;
    acre_diag d = {0};
    acre_dn *dn;

    if (ntoks < 3)
        return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, file, &toks[0], 0,
                           "collectinfo: missing <dn> <attribute> argument");
    if (ntoks > 3)
        return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, file, &toks[3], 0,
                           "<collectinfo> extra cruft after <dn> "
                           "<attribute>");
    int rc = acreO_parse_dn(b, toks[1].s, toks[1].len, &dn, &d);
    if (rc == ACRE_ERR_NOMEM)
        return rc;
    if (rc)
        return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, file, &toks[1], d.offset,
                           "collectinfo invalid DN: \"%s\"", toks[1].s);
    if (collect_dup(cfg, db, dn))
        return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, file, &toks[1], 0,
                           "collectinfo DN already configured: \"%s\"",
                           toks[1].s);
    struct acreI_collect *v = talloc_realloc(
        cfg, cfg->collect, struct acreI_collect, cfg->ncollect + 1);
    if (!v)
        return ACRE_ERR_NOMEM;
    cfg->collect = v;
    struct acreI_collect *ci = &v[cfg->ncollect];
    memset(ci, 0, sizeof(*ci));
    ci->pos = acreO_pos_of(file, toks, 0);
    ci->db = db;
    ci->dn = dn;
    if ((rc = collect_attrs(b, &toks[2], file, ci, diag)))
        return rc;
    cfg->ncollect++;
    return 0;
}

/* slapd's order: each database's list by normalised DN length, longest
 * first, ties as configured; the databases in order, the global list
 * last (a stable insertion sort). */
static void
collect_order(struct acreI_policy *cfg)
{
    struct acreI_collect *v = cfg->collect;

    for (unsigned i = 1; i < cfg->ncollect; i++)
        for (unsigned j = i; j > 0; j--) {
            unsigned da = v[j - 1].db < 0 ? UINT_MAX : (unsigned)v[j - 1].db;
            unsigned db = v[j].db < 0 ? UINT_MAX : (unsigned)v[j].db;
            size_t la, lb;
            acre_dn_normalised(v[j - 1].dn, &la);
            acre_dn_normalised(v[j].dn, &lb);
            if (da < db || (da == db && la >= lb))
                break;
            struct acreI_collect t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
}

/* How the engine compiles patterns a check substitutes (ir.h). */
static const struct acreI_hooks acreO_hooks = {acreO_regex_compile_expanded,
                                               acreO_set_parse};

int
acreO_build_start(void *mem_ctx, struct acreO_build *b)
{
    memset(b, 0, sizeof(*b));
    b->cfg = talloc_zero(mem_ctx, struct acreI_policy);
    b->ctx = b->cfg;
    if (!b->cfg)
        return ACRE_ERR_NOMEM;
    b->cfg->magic = ACREI_POLICY_MAGIC;
    b->cfg->model = ACREI_MODEL_FIRST_MATCH;
    b->cfg->hooks = &acreO_hooks;
    b->cfg->frontend.type = "frontend";
    b->cfg->frontend.index = -1;
    acreO_limits_default(&b->cfg->frontend.limits);
    return 0;
}

void
acreO_build_schema(struct acreO_build *b, acre_schema *schema)
{
    b->schema = acreS_freeze(schema);
    b->cfg->schema = b->schema;
}

/* The rules array of db at its exact size (it grew by doubling). */
static void
trim_rules(struct acreI_policy *cfg, struct acreI_section *db)
{
    struct acreI_rule *v;

    if (db->nrules && db->nrules < talloc_get_size(db->rules) / sizeof(*v) &&
        (v = talloc_realloc(cfg, db->rules, struct acreI_rule, db->nrules)))
        db->rules = v;
}

int
acreO_build_finish(struct acreO_build *b, int rc, struct acreI_policy **out)
{
    struct acreI_policy *cfg = b->cfg;
    struct acreI_note *notes;

    talloc_free(b->scratch);
    b->scratch = NULL;
    b->memo = NULL;
    if (rc) {
        talloc_free(cfg);
        return rc;
    }
    trim_rules(cfg, &cfg->frontend);
    for (unsigned i = 0; i < cfg->ndbs; i++)
        trim_rules(cfg, &cfg->dbs[i]);
    struct acreI_section *dbs; /* at its exact size; nothing points in yet */
    if (cfg->ndbs &&
        cfg->ndbs < talloc_get_size(cfg->dbs) / sizeof(*cfg->dbs) &&
        (dbs = talloc_realloc(cfg, cfg->dbs, struct acreI_section, cfg->ndbs)))
        cfg->dbs = dbs;
    collect_order(cfg);
    if (cfg->nnotes && cfg->nnotes < b->notes_cap &&
        (notes =
             talloc_realloc(cfg, cfg->notes, struct acreI_note, cfg->nnotes)))
        cfg->notes = notes;
    *out = cfg;
    return 0;
}

int
acreO_read_file(void *ctx, const char *path, char **text, size_t *len,
                acre_diag *diag)
{
    const char *why;
    FILE *f = acreE_fopen_regular(path, &why);
    struct stat st;

    if (!f || fstat(fileno(f), &st)) {
        int e = errno;
        if (f)
            fclose(f);
        if (!f && !why && e == ENOMEM) /* fdopen's buffer */
            return ACRE_ERR_NOMEM;
        return acreO_error(diag, ACRE_ERR_RULE_IO, path, NULL, 0,
                           "cannot read \"%s\": %s", path,
                           why ? why : strerror(e));
    }
    char *buf = talloc_array(ctx, char, (size_t)st.st_size + 1);
    size_t n = buf ? fread(buf, 1, (size_t)st.st_size, f) : 0;
    int bad = buf && ferror(f);
    fclose(f);
    if (!buf)
        return ACRE_ERR_NOMEM;
    if (bad)
        return acreO_error(diag, ACRE_ERR_RULE_IO, path, NULL, 0,
                           "cannot read \"%s\"", path);
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return 0;
}

/* ------------------------------------------------------------------------
 * Pass 1: lines, includes, schema
 */

/* slapd's config_check_vals: a directive taking one argument refuses a
 * second one ("extra cruft"), reported at the first word too many. */
static int
no_cruft(const char *file, const struct acreO_ptext *toks, unsigned n,
         const char *what, acre_diag *diag)
{
    if (n <= 2)
        return 0;
    return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, file, &toks[2], 0,
                       "<%s> extra cruft after <%s>", toks[0].s, what);
}

/* One directive kept for pass 2: where its logical line starts (pass 2
 * reads and tokenises it again, so that pass 1 keeps no tokens). */
struct directive {
    const char *file;
    const char *text;
    size_t len, off;
    unsigned line;
};

struct pass1 {
    struct acreO_build *b;
    acre_schema *schema;
    void *scratch;
    struct directive *v;
    unsigned n, cap;
    int depth;
    /* access directives per section, as pass 2 will see them: [0] the
     * frontend, [k] the k-th database */
    unsigned *naccess;
    unsigned nsect, sect;
    struct acreI_pos last_access; /* the directive before, if access */
};

/* The schema lines of one file waiting to be loaded. */
struct chunk {
    const char *name, *text;
    size_t len;
    unsigned *first, *last; /* physical line ranges kept */
    unsigned n, cap;
};

static int
is_schema_directive(const struct acreO_ptext *t)
{
    static const char *const names[] = {"attributetype",    "attributetypes",
                                        "objectclass",      "objectclasses",
                                        "objectidentifier", "ditcontentrule",
                                        "ldapsyntax",       "attributeoptions"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (acreO_cstr_is(t->s, names[i]))
            return 1;
    return 0;
}

static int
chunk_add(void *ctx, struct chunk *c, unsigned first, unsigned last)
{
    if (c->n == c->cap) {
        unsigned ncap = c->cap ? 2 * c->cap : 16;
        unsigned *f = talloc_realloc(ctx, c->first, unsigned, ncap);
        unsigned *l = f ? talloc_realloc(ctx, c->last, unsigned, ncap) : NULL;
        if (f)
            c->first = f;
        if (!l)
            return ACRE_ERR_NOMEM;
        c->last = l;
        c->cap = ncap;
    }
    c->first[c->n] = first;
    c->last[c->n++] = last;
    return 0;
}

/* The file's text with only the kept lines (others emptied). */
static char *
chunk_text(void *ctx, const struct chunk *c, size_t *len)
{
    char *out = talloc_array(ctx, char, c->len + 2);
    size_t o = 0, i = 0;
    unsigned line = 1, k = 0;

    if (!out)
        return NULL;
    while (i < c->len) {
        const char *nl = memchr(c->text + i, '\n', c->len - i);
        size_t end = nl ? (size_t)(nl - c->text) : c->len;
        while (k < c->n && c->last[k] < line)
            k++;
        if (k < c->n && c->first[k] <= line) {
            memcpy(out + o, c->text + i, end - i);
            o += end - i;
        }
        out[o++] = '\n';
        i = end + 1;
        line++;
    }
    out[o] = '\0';
    *len = o;
    return out;
}

static int
chunk_flush(struct pass1 *p, struct chunk *c, acre_diag *diag)
{
    size_t len;
    int rc = 0;

    if (c->n == 0)
        return 0;
    if (!p->schema) {
        rc = acreO_note_add(p->b, (struct acreI_pos){c->name, c->first[0], 1},
                            "schema definitions not loaded: no schema "
                            "given");
    } else {
        char *text = chunk_text(p->scratch, c, &len);
        rc = text ? acre_schema_load_buffer(p->schema, c->name, text, len, diag)
                  : ACRE_ERR_NOMEM;
        talloc_free(text);
    }
    c->n = 0;
    return rc;
}

static int
keep_directive(struct pass1 *p, const struct directive *d)
{
    if (p->n == p->cap) {
        unsigned ncap = p->cap ? p->cap * 2 : 64;
        struct directive *v =
            talloc_realloc(p->scratch, p->v, struct directive, ncap);
        if (!v)
            return ACRE_ERR_NOMEM;
        p->v = v;
        p->cap = ncap;
    }
    p->v[p->n++] = *d;
    return 0;
}

static int read_text(struct pass1 *p, const char *name, const char *text,
                     size_t len, acre_diag *diag);

/* Where an include names a file: as given, else next to the includer. */
static char *
include_path(void *ctx, const char *from, const char *name)
{
    struct stat st;

    if (name[0] == '/' || stat(name, &st) == 0)
        return talloc_strdup(ctx, name);
    const char *slash = from ? strrchr(from, '/') : NULL;
    if (!slash)
        return talloc_strdup(ctx, name);
    return talloc_asprintf(ctx, "%.*s/%s", (int)(slash - from), from, name);
}

static int
do_include(struct pass1 *p, const char *from, const struct acreO_ptext *toks,
           unsigned n, acre_diag *diag)
{
    struct stat st;
    char *text, *path;
    size_t len;

    if (n < 2)
        return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, from, &toks[0], 0,
                           "include: missing file name");
    if (n > 2)
        return no_cruft(from, toks, n, "file", diag);
    if (p->depth >= ACREO_MAX_INCLUDE)
        return acreO_error(diag, ACRE_ERR_RULE_LIMIT, from, &toks[1], 0,
                           "include nested too deeply");
    if (!(path = include_path(p->scratch, from, toks[1].s)))
        return ACRE_ERR_NOMEM;
    /* any include may hold rules, whatever its name: a missing one fails
     * as in slapd ("could not stat config file"), and so does anything
     * but a regular file, which is never opened for reading (a FIFO
     * would block) */
    if (stat(path, &st) != 0)
        return acreO_error(diag, ACRE_ERR_RULE_IO, from, &toks[1], 0,
                           "could not stat include file \"%s\": %s", path,
                           strerror(errno));
    if (!S_ISREG(st.st_mode))
        return acreO_error(diag, ACRE_ERR_RULE_IO, from, &toks[1], 0,
                           "include file \"%s\": regular file expected", path);
    if (!(path = (char *)acreO_file_name(path)))
        return ACRE_ERR_NOMEM;
    int rc = acreO_read_file(p->scratch, path, &text, &len, diag);
    if (rc == ACRE_ERR_RULE_IO && diag) { /* reported at the include */
        char msg[sizeof(diag->message)];
        memcpy(msg, diag->message, sizeof(msg));
        return acreO_error(diag, rc, from, &toks[1], 0, "%s", msg);
    }
    if (rc)
        return rc;
    p->depth++;
    rc = read_text(p, path, text, len, diag);
    p->depth--;
    return rc;
}

static const char *const raw_directives[] = {"attributetype", "objectclass",
                                             "ditcontentrule", "ldapsyntax"};

static int
is_raw(const struct acreO_ptext *t)
{
    for (size_t i = 0; i < 4; i++)
        if (acreO_cstr_is(t->s, raw_directives[i]))
            return 1;
    return 0;
}

/* Count an access directive in its section (a database directive opens
 * the next one, or goes back to the frontend), as pass 2 will place it. */
static int
count_access(struct pass1 *p, const struct acreO_ptext *toks, unsigned n)
{
    if (acreO_cstr_is(toks[0].s, "database")) {
        p->sect = n >= 2 && !strcasecmp(toks[1].s, "frontend") ? 0 : p->nsect;
        if (p->sect == p->nsect) {
            unsigned *v = p->naccess;
            if (p->nsect == talloc_get_size(v) / sizeof(*v) &&
                !(v = talloc_realloc(p->scratch, v, unsigned, 2 * p->nsect)))
                return ACRE_ERR_NOMEM;
            p->naccess = v;
            v[p->nsect++] = 0;
        }
    } else if (acreO_cstr_is(toks[0].s, "access")) {
        p->naccess[p->sect]++;
    }
    return 0;
}

/* A comment logical line ln of `file` that took in text of later
 * physical lines (other than comments): kept in the IR (struct
 * acreI_swallow) for acre_lint. */
static int
comment_swallows(struct pass1 *p, const char *file,
                 const struct acreO_ptext *ln)
{
    struct acreI_policy *cfg = p->b->cfg;
    size_t i = 0;

    while (i < ln->len) { /* to the first byte of text taken in */
        if (ln->line[i] == ln->line[0] || ln->s[i] == ' ' || ln->s[i] == '\t') {
            i++;
            continue;
        }
        if (ln->s[i] != '#') /* a line taken in that is a comment anyway */
            break;
        for (unsigned at = ln->line[i]; i < ln->len && ln->line[i] == at;)
            i++;
    }
    if (i == ln->len)
        return 0;
    struct acreI_swallow *v = talloc_realloc(
        cfg, cfg->swallowed, struct acreI_swallow, cfg->nswallowed + 1);
    if (!v)
        return ACRE_ERR_NOMEM;
    cfg->swallowed = v;
    v[cfg->nswallowed++] = (struct acreI_swallow){
        acreO_pos_of(file, ln, 0), acreO_pos_of(file, ln, i), p->last_access,
        ln->len - i >= 2 && !strncasecmp(ln->s + i, "by", 2) &&
            (ln->len - i == 2 || ln->s[i + 2] == ' ' || ln->s[i + 2] == '\t')};
    return 0;
}

/* One logical line of pass 1 (at d), tokens in lb. */
static int
pass1_line(struct pass1 *p, struct acreO_lexbuf *lb, const struct directive *d,
           struct chunk *c, const struct acreO_ptext *ln, acre_diag *diag)
{
    const char *name = d->file;
    struct acreO_ptext *toks;
    unsigned n;
    int open, rc;

    if (ln->len == 0)
        return 0;
    if (ln->s[0] == '#')
        return comment_swallows(p, name, ln);
    /* the directive and its first argument are all pass 1 looks at (a
     * third word only to refuse it after include) */
    rc = acreO_tokenize_conf(lb, ln, 3, &toks, &n, &open, name, diag);
    if (rc)
        return rc;
    if (n == 0)
        return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, name, ln, 0,
                           "bad config line");
    p->last_access = (struct acreI_pos){0};
    if (acreO_cstr_is(toks[0].s, "access"))
        p->last_access = acreO_pos_of(name, toks, 0);
    if (open && !is_raw(&toks[0]))
        return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, name, ln, ln->len,
                           "unterminated quoted string");
    if (is_schema_directive(&toks[0]))
        return chunk_add(p->scratch, c, ln->line[0], ln->line[ln->len - 1]);
    if (acreO_cstr_is(toks[0].s, "include")) {
        if ((rc = chunk_flush(p, c, diag)))
            return rc;
        return do_include(p, name, toks, n, diag);
    }
    if (acreO_cstr_is(toks[0].s, "moduleload") && n >= 2 &&
        acreO_is_memberof_module(toks[1].s) && p->schema &&
        ((rc = chunk_flush(p, c, diag)) ||
         (rc = acreO_memberof_schema(p->schema, name, diag))))
        return rc;
    if ((rc = count_access(p, toks, n)))
        return rc;
    return keep_directive(p, d);
}

/* pass1_line for a plain access line (acreO_read_plain) at line `line`:
 * no quote left open, not a schema directive, not an include. */
static int
pass1_access(struct pass1 *p, const struct directive *d, unsigned line)
{
    p->last_access = (struct acreI_pos){d->file, line, 1};
    p->naccess[p->sect]++; /* count_access */
    return keep_directive(p, d);
}

/* Where the next logical line of r starts. */
static struct directive
line_start(const struct acreO_reader *r)
{
    struct directive d = {r->name, r->p, r->len, r->off, r->lineno};

    if (r->have_look) {
        d.off = r->look_off;
        d.line = r->look_line;
    }
    return d;
}

static int
read_text(struct pass1 *p, const char *name, const char *text, size_t len,
          acre_diag *diag)
{
    struct acreO_reader r = {
        .name = name, .p = text, .len = len, .lineno = 1, .marks = p->b};
    struct chunk c = {.name = name, .text = text, .len = len};
    struct acreO_lexbuf lb;
    struct acreO_ptext ln;
    int rc = acreO_lone_cr(name, text, len, diag);

    if (rc)
        return rc;
    acreO_lexbuf_init(&lb, p->scratch);
    for (;;) {
        struct directive d = line_start(&r);
        unsigned at;
        int got = acreO_read_plain(&r, "access", &at, diag);
        if (got == 1) { /* most lines of a large policy */
            if ((rc = acreO_recover(p->b, pass1_access(p, &d, at), diag)))
                break;
            continue;
        }
        if (got == 0)
            got = acreO_read_line(&lb, &r, &ln, diag);
        rc = got == 1 ? acreO_recover(
                            p->b, pass1_line(p, &lb, &d, &c, &ln, diag), diag)
                      : got;
        if (got != 1 || rc)
            break;
    }
    acreO_lexbuf_free(&lb);
    if (!rc)
        rc = acreO_comment(p->b, &r.run, name, 0, NULL, 0);
    if (!rc)
        rc = chunk_flush(p, &c, diag);
    talloc_free(c.first);
    talloc_free(c.last);
    return rc;
}

/* ------------------------------------------------------------------------
 * Pass 2: directives
 */

/* A directive's tokens, read again in pass 2. */
struct dline {
    const char *file;
    struct acreO_ptext *toks;
    unsigned ntoks;
};

struct pass2 {
    struct acreO_build *b;
    struct acreI_section *db; /* current section; NULL: global */
    int in_frontend;          /* "database frontend" */
    int collect;              /* "overlay collect" is the current overlay */
};

static int
arg_count(const struct dline *d, unsigned need, acre_diag *diag)
{
    if (d->ntoks >= need)
        return 0;
    return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, d->file, &d->toks[0],
                       d->toks[0].len, "%s: missing argument", d->toks[0].s);
}

/* database TYPE: a section opens even when the line is refused, so that
 * a reader going on past the error (acreO_recover) puts what follows in
 * it. */
static int
directive_database(struct pass2 *p, const struct dline *d, acre_diag *diag)
{
    int rc = arg_count(d, 2, diag);
    const char *type = d->ntoks >= 2 ? d->toks[1].s : "";

    if (!rc)
        rc = no_cruft(d->file, d->toks, d->ntoks, "type", diag);
    p->collect = 0;
    if (!strcasecmp(type, "frontend")) {
        p->db = NULL;
        p->in_frontend = 1;
        return rc;
    }
    p->in_frontend = 0;
    p->db = acreO_db_new(p->b, type, acreO_pos_of(d->file, d->toks, 0),
                         (int)p->b->cfg->ndbs + 1);
    return p->db ? rc : ACRE_ERR_NOMEM;
}

/* suffix / rootdn: need a database section; one DN, the root DN when
 * none is given (slapd's ARG_DN). */
static int
directive_db_dn(struct pass2 *p, const struct dline *d, int suffix,
                acre_diag *diag)
{
    int rc =
        no_cruft(d->file, d->toks, d->ntoks, suffix ? "suffix" : "dn", diag);
    /* a missing DN is reported after the directive, as the empty one */
    const struct acreO_ptext *at = d->ntoks >= 2 ? &d->toks[1] : &d->toks[0];
    size_t off = d->ntoks >= 2 ? 0 : d->toks[0].len;
    const char *dn = d->ntoks >= 2 ? d->toks[1].s : "";
    size_t len = d->ntoks >= 2 ? d->toks[1].len : 0;

    if (rc)
        return rc;
    if (!p->db)
        return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, d->file, &d->toks[0], 0,
                           "%s only allowed within a database declaration",
                           d->toks[0].s);
    if (suffix)
        return acreO_db_add_suffix(p->b, p->db, dn, len, d->file, at, off,
                                   diag);
    return acreO_db_set_rootdn(p->b, p->db, dn, len, d->file, at, off, diag);
}

static int
directive_access(struct pass2 *p, const struct dline *d, acre_diag *diag)
{
    struct acreI_section *db = p->db ? p->db : &p->b->cfg->frontend;

    return acreO_db_add_rule(p->b, db, d->toks, d->ntoks, d->file, diag);
}

/* add_content_acl [on|off]: slapd's ARG_ON_OFF, alone meaning on; words
 * after the value are not checked (the directive has no maximum). */
static int
directive_add_content(struct pass2 *p, const struct dline *d, acre_diag *diag)
{
    struct acreI_section *db = p->db ? p->db : &p->b->cfg->frontend;
    const char *v = d->ntoks >= 2 ? d->toks[1].s : "on";

    if (!strcasecmp(v, "on") || !strcasecmp(v, "true") || !strcasecmp(v, "yes"))
        db->add_content_acl = 1;
    else if (!strcasecmp(v, "off") || !strcasecmp(v, "false") ||
             !strcasecmp(v, "no"))
        db->add_content_acl = 0;
    else
        return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, d->file, &d->toks[1], 0,
                           "<%s> invalid value", d->toks[0].s);
    return 0;
}

/* overlay: only collect is read (its collectinfo lines follow it). */
static int
directive_overlay(struct pass2 *p, const struct dline *d, acre_diag *diag)
{
    int rc = arg_count(d, 2, diag);

    if (!rc)
        rc = no_cruft(d->file, d->toks, d->ntoks, "overlay", diag);
    if (rc)
        return rc;
    p->collect = !strcasecmp(d->toks[1].s, "collect");
    if (p->collect)
        return 0;
    return acreO_note_add(p->b, acreO_pos_of(d->file, d->toks, 0),
                          "overlay \"%s\" ignored", d->toks[1].s);
}

static int
directive_collectinfo(struct pass2 *p, const struct dline *d, acre_diag *diag)
{
    if (!p->collect)
        return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, d->file, &d->toks[0], 0,
                           "collectinfo: no \"overlay collect\" before it "
                           "in this database");
    int db = p->db ? (int)(p->db - p->b->cfg->dbs) : -1;
    return acreO_collect_add(p->b, db, d->toks, d->ntoks, d->file, diag);
}

static int
pass2_directive(struct pass2 *p, const struct dline *d, acre_diag *diag)
{
    const char *k = d->toks[0].s;

    if (!strcasecmp(k, "overlay"))
        return directive_overlay(p, d, diag);
    if (!strcasecmp(k, "collectinfo"))
        return directive_collectinfo(p, d, diag);

    if (acreO_cstr_is(k, "access"))
        return directive_access(p, d, diag);
    if (!strcasecmp(k, "database"))
        return directive_database(p, d, diag);
    if (!strcasecmp(k, "suffix"))
        return directive_db_dn(p, d, 1, diag);
    if (!strcasecmp(k, "rootdn"))
        return directive_db_dn(p, d, 0, diag);
    if (!strcasecmp(k, "add_content_acl"))
        return directive_add_content(p, d, diag);
    if (!strcasecmp(k, "sizelimit") || !strcasecmp(k, "timelimit"))
        return acreO_limits_directive(p->db ? &p->db->limits
                                            : &p->b->cfg->frontend.limits,
                                      d->toks, d->ntoks, d->file, diag);
    if (!strcasecmp(k, "limits"))
        return acreO_limits_rule(p->b, p->db ? p->db : &p->b->cfg->frontend,
                                 d->toks, d->ntoks, d->file, diag);
    if (!strcasecmp(k, "index") && p->db && !p->in_frontend && p->db->type &&
        !strcasecmp(p->db->type, "mdb"))
        return acreO_index_directive(p->b, p->db, d->toks, d->ntoks, d->file,
                                     diag);
    if (!strcasecmp(k, "by")) /* slapd knows no such directive anywhere */
        return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, d->file, &d->toks[0], 0,
                           "unknown directive <by>: a blank line ends the "
                           "logical line, so this clause is not part of the "
                           "access directive before it");
    /* slapd refuses a word no configuration table of its holds (a perl
     * database takes any: back-perl hands its lines to Perl), and a
     * table's directive with too few or too many arguments */
    const struct acreO_directive *kd = acreO_directive_find(k);
    if (!kd && !(p->db && p->db->type && !strcasecmp(p->db->type, "perl")))
        return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, d->file, &d->toks[0], 0,
                           "unknown directive <%s> inside %s definition", k,
                           p->db && !p->in_frontend ? "backend database"
                                                    : "global database");
    if (kd && kd->min && d->ntoks < kd->min)
        return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, d->file, &d->toks[0],
                           d->toks[0].len, "<%s> missing <%s> argument", k,
                           kd->what);
    if (kd && kd->max && d->ntoks > kd->max)
        return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, d->file,
                           &d->toks[kd->max], 0, "<%s> extra cruft after <%s>",
                           k, kd->what);
    if (!strcasecmp(k, "subordinate") && p->db && !p->in_frontend) {
        /* slapd's glue (config_subordinate): acre_search, search.c */
        if (!p->db->nsuffix)
            return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, d->file, &d->toks[0],
                               0, "subordinate configuration needs a suffix");
        if (d->ntoks == 2 && strcasecmp(d->toks[1].s, "advertise") &&
            strcasecmp(d->toks[1].s, "TRUE"))
            return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, d->file, &d->toks[1],
                               0,
                               "subordinate must be \"TRUE\" or "
                               "\"advertise\"");
        p->db->subordinate = 1;
        return 0;
    }
    return acreO_note_add(p->b, acreO_pos_of(d->file, d->toks, 0),
                          "directive \"%s\" ignored", k);
}

/* Read directive d again (into lb) and act on it. */
static int
pass2_line(struct pass2 *p, struct acreO_lexbuf *lb, const struct directive *d,
           acre_diag *diag)
{
    struct acreO_reader r = {.name = d->file,
                             .p = d->text,
                             .len = d->len,
                             .off = d->off,
                             .lineno = d->line};
    struct acreO_ptext ln;
    struct dline dl = {d->file, NULL, 0};
    int open, rc;

    rc = acreO_read_line(lb, &r, &ln, diag);
    if (rc == 1)
        rc = acreO_tokenize_conf(lb, &ln, UINT_MAX, &dl.toks, &dl.ntoks, &open,
                                 d->file, diag);
    if (rc == 0 && dl.ntoks > 0)
        rc = pass2_directive(p, &dl, diag);
    return rc;
}

/* The DN texts of a directive ahead whose memo entries pass 2 fetches
 * early (AHEAD_DNS at most). */
#define AHEAD_DNS 4

struct ahead {
    uint64_t h[AHEAD_DNS];
    unsigned n;
};

/*
 * The memo hashes of the quoted values after a '=' on the first line of
 * access directive d ("dn.subtree=\"DN\"", "by dn.exact=\"DN\"",
 * "group=\"DN\"": the DN text is then the bytes between the quotes), for
 * the pass 2 loop to fetch their memo slots and records two and one
 * directives ahead (each a likely cache miss).  A hint only: a value that
 * is not a DN, or is read otherwise, just finds nothing.
 */
static void
ahead_of(const struct directive *d, struct ahead *a)
{
    const char *s = d->text + d->off, *end = d->text + d->len, *q;
    const char *nl = memchr(s, '\n', (size_t)(end - s));

    a->n = 0;
    if (nl)
        end = nl;
    if (end - s < 6 || strncasecmp(s, "access", 6) != 0)
        return;
    while (a->n < AHEAD_DNS && (q = memchr(s, '"', (size_t)(end - s))) &&
           q + 1 < end) {
        const char *e = memchr(q + 1, '"', (size_t)(end - q - 1));
        if (!e)
            return;
        if (q[-1] == '=' && !memchr(q + 1, '\\', (size_t)(e - q - 1)))
            a->h[a->n++] =
                acreO_memo_hash(ACREO_MEMO_DN, q + 1, (size_t)(e - q - 1));
        s = e + 1;
    }
}

static void
ahead_fetch(const struct acreO_build *b, const struct ahead *a, int stage)
{
    for (unsigned k = 0; k < a->n; k++)
        acreO_memo_prefetch(b, a->h[k], stage);
}

int
acreO_parse_conf(void *mem_ctx, acre_schema *schema, const char *path,
                 const char *text, size_t len, struct acreI_policy **out,
                 acre_diag *diag)
{
    return acreO_parse_conf_all(mem_ctx, schema, path, text, len, out, diag,
                                NULL);
}

int
acreO_parse_conf_all(void *mem_ctx, acre_schema *schema, const char *path,
                     const char *text, size_t len, struct acreI_policy **out,
                     acre_diag *diag, struct acreO_errors *errs)
{
    struct acreO_build b;
    struct pass1 p1 = {.b = &b, .schema = schema};
    int rc = acreO_build_start(mem_ctx, &b);
    char *buf;

    b.errs = errs;

    if (!rc && !(p1.scratch = talloc_new(b.ctx)))
        rc = ACRE_ERR_NOMEM;
    if (!rc && !(p1.naccess = talloc_zero(p1.scratch, unsigned)))
        rc = ACRE_ERR_NOMEM;
    p1.nsect = 1;
    const char *name = acreO_file_name(path);
    if (!rc && !text) {
        rc = acreO_read_file(p1.scratch, path, &buf, &len, diag);
        text = buf;
    }
    if (!rc)
        rc = read_text(&p1, name, text, len, diag);
    if (!rc) {
        struct pass2 p2 = {&b, NULL, 0, 0};
        struct acreO_lexbuf lb;
        acreO_lexbuf_init(&lb, p1.scratch);
        acreO_build_schema(&b, schema);
        b.front_hint = p1.naccess[0];
        b.db_hint = p1.naccess + 1;
        b.ndb_hint = p1.nsect - 1;
        struct ahead ahead[4] = {{{0}, 0}}; /* of directives i .. i + 2 */
        for (unsigned i = 0; i < 2 && i < p1.n; i++)
            ahead_of(&p1.v[i], &ahead[i]);
        for (unsigned i = 0; !rc && i < p1.n; i++) {
            if (i + 2 < p1.n) {
                ahead_of(&p1.v[i + 2], &ahead[(i + 2) % 4]);
                ahead_fetch(&b, &ahead[(i + 2) % 4], 0);
            }
            if (i + 1 < p1.n)
                ahead_fetch(&b, &ahead[(i + 1) % 4], 1);
            rc = acreO_recover(&b, pass2_line(&p2, &lb, &p1.v[i], diag), diag);
        }
        b.db_hint = NULL;
        b.ndb_hint = 0;
    }
    if (!rc)
        rc = acreO_check_glue(&b, diag);
    talloc_free(p1.scratch);
    return acreO_build_finish(&b, acreO_errors_end(&b, rc, diag), out);
}
