/*
 * openldap_util.c -- small pieces of the OpenLDAP front end shared by its
 * parsers and by evaluators of the tree: diagnostics with positions, the
 * list of errors a reader goes past (acre_lint),
 * notes, "# acre-lint:" comments kept for lint, $-substitution templates
 * (slapd's acl_string_expand), and the space folding slapd applies to regexes
 * meant for DNs.
 *
 * Invariant: acreI_expand reproduces slapd 2.5's acl_string_expand byte
 * for byte, quirks included (see its contract in openldap.h), because
 * the oracle and the compiler must expand patterns exactly as slapd.
 */
#include "openldap_int.h"
#include "schema.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <talloc.h>

/* ------------------------------------------------------------------------
 * File names: interned for the life of the process, so that positions in
 * a configuration and in a diagnostic stay valid whatever is freed.
 */

struct name_node {
    struct name_node *next;
    char name[];
};

static struct name_node *names;
static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;

const char *
acreO_file_name(const char *path)
{
    struct name_node *n;

    if (!path)
        return NULL;
    pthread_mutex_lock(&names_lock);
    for (n = names; n && strcmp(n->name, path) != 0; n = n->next)
        ;
    if (!n && (n = malloc(sizeof(*n) + strlen(path) + 1))) {
        strcpy(n->name, path);
        n->next = names;
        names = n;
    }
    pthread_mutex_unlock(&names_lock);
    return n ? n->name : NULL;
}

struct acreI_pos
acreO_pos_of(const char *file, const struct acreO_ptext *t, size_t at)
{
    struct acreI_pos p = {file, 0, 0};

    if (t && t->line) {
        p.line = t->line[at];
        p.column = t->col[at];
    }
    return p;
}

int
acreO_error(acre_diag *diag, int code, const char *file,
            const struct acreO_ptext *t, size_t at, const char *fmt, ...)
{
    va_list ap;

    if (!diag)
        return code;
    struct acreI_pos p = acreO_pos_of(file, t, at);
    diag->code = code;
    diag->file = file;
    diag->line = p.line;
    diag->column = p.column;
    diag->offset = at;
    va_start(ap, fmt);
    vsnprintf(diag->message, sizeof(diag->message), fmt, ap);
    va_end(ap);
    return code;
}

int
acreO_error_pos(acre_diag *diag, int code, struct acreI_pos pos,
                const char *fmt, ...)
{
    va_list ap;

    if (!diag)
        return code;
    diag->code = code;
    diag->file = pos.file;
    diag->line = pos.line;
    diag->column = pos.column;
    diag->offset = 0;
    va_start(ap, fmt);
    vsnprintf(diag->message, sizeof(diag->message), fmt, ap);
    va_end(ap);
    return code;
}

/* Keep a copy of d at the end of e's list. */
static int
errors_push(struct acreO_errors *e, const acre_diag *d)
{
    acre_diag *v = talloc_realloc(e->ctx, e->v, acre_diag, e->n + 1);

    if (!v)
        return ACRE_ERR_NOMEM;
    e->v = v;
    v[e->n++] = *d;
    return 0;
}

int
acreO_recover(struct acreO_build *b, int rc, const acre_diag *diag)
{
    struct acreO_errors *e = b->errs;

    if (rc != ACRE_ERR_RULE_SYNTAX || !e || !diag || e->n >= ACREO_MAX_ERRORS)
        return rc;
    return errors_push(e, diag);
}

int
acreO_errors_end(struct acreO_build *b, int rc, acre_diag *diag)
{
    struct acreO_errors *e = b->errs;

    if (!e || !diag || rc == ACRE_ERR_NOMEM)
        return rc;
    if (rc && errors_push(e, diag))
        return ACRE_ERR_NOMEM;
    if (e->n) {
        *diag = e->v[0];
        rc = e->v[0].code;
    }
    return rc;
}

int
acreO_note_add(struct acreO_build *b, struct acreI_pos pos, const char *fmt,
               ...)
{
    struct acreI_policy *cfg = b->cfg;
    va_list ap;

    if (cfg->nnotes == b->notes_cap) {
        unsigned ncap = b->notes_cap ? b->notes_cap * 2 : 16;
        struct acreI_note *v =
            talloc_realloc(cfg, cfg->notes, struct acreI_note, ncap);
        if (!v)
            return ACRE_ERR_NOMEM;
        cfg->notes = v;
        b->notes_cap = ncap;
    }
    va_start(ap, fmt);
    char *text = talloc_vasprintf(cfg, fmt, ap);
    va_end(ap);
    if (!text)
        return ACRE_ERR_NOMEM;
    cfg->notes[cfg->nnotes].pos = pos;
    cfg->notes[cfg->nnotes].text = text;
    cfg->nnotes++;
    return 0;
}

/* ------------------------------------------------------------------------
 * Comments kept for acre_lint
 */

/* Is s[0..n) (a comment after its '#') an "acre-lint:" one? */
static int
is_lint_comment(const char *s, size_t n)
{
    static const char key[] = "acre-lint:";
    size_t i = 0;

    while (i < n && (s[i] == ' ' || s[i] == '\t'))
        i++;
    return n - i >= sizeof(key) - 1 && !strncmp(s + i, key, sizeof(key) - 1);
}

int
acreO_comment(struct acreO_build *b, struct acreO_comment_run *run,
              const char *file, unsigned line, const char *s, size_t n)
{
    struct acreI_policy *cfg = b->cfg;

    if (!run->prev || line != run->prev + 1) { /* a run starts */
        for (unsigned k = run->first; run->prev && k < cfg->nlintmarks; k++)
            cfg->lintmarks[k].end = run->prev; /* the last one ended */
        run->first = cfg->nlintmarks;
    }
    run->prev = line;
    if (!line || !n || !is_lint_comment(s + 1, n - 1))
        return 0;
    size_t cap = talloc_array_length(cfg->lintmarks);
    if (cfg->nlintmarks == cap) {
        struct acreI_lintmark *v = talloc_realloc(
            cfg, cfg->lintmarks, struct acreI_lintmark, cap ? 2 * cap : 8);
        if (!v)
            return ACRE_ERR_NOMEM;
        cfg->lintmarks = v;
    }
    char *text = talloc_size(cfg, n);
    if (!text)
        return ACRE_ERR_NOMEM;
    memcpy(text, s + 1, n - 1);
    text[n - 1] = '\0';
    cfg->lintmarks[cfg->nlintmarks++] =
        (struct acreI_lintmark){file, text, n - 1, 0};
    return 0;
}

/* ------------------------------------------------------------------------
 * Templates
 */

int
acreO_template_init(void *ctx, const char *s, size_t n,
                    struct acreI_template *t)
{
    char *copy = talloc_strndup(ctx, s, n);

    if (!copy)
        return ACRE_ERR_NOMEM;
    t->tmpl = copy;
    t->len = strlen(copy); /* a NUL ends it, as in slapd's C strings */
    /* it expands when substituting without any submatch fails */
    char out[ACREI_EXPAND_MAX + 1];
    size_t olen;
    t->expands = acreI_expand(copy, t->len, NULL, NULL, 0, NULL, NULL, 0, out,
                              &olen) != 0;
    return 0;
}

char *
acreO_regex_normalise_dn(void *ctx, const char *s, size_t n)
{
    char *out = talloc_array(ctx, char, n + 1);
    size_t o = 0;

    if (!out)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\\' && i + 1 < n) {
            out[o++] = s[i++];
        }
        out[o++] = s[i];
        if (s[i] == ',' && i + 1 < n && s[i + 1] == ' ')
            while (i + 1 < n && s[i + 1] == ' ')
                i++;
    }
    out[o] = '\0';
    return out;
}

/* ------------------------------------------------------------------------
 * The memberof overlay's schema
 */

int
acreO_is_memberof_module(const char *arg)
{
    const char *base = strrchr(arg, '/');

    base = base ? base + 1 : arg;
    if (strncasecmp(base, "memberof", 8) != 0)
        return 0;
    return base[8] == '\0' || base[8] == '.' || base[8] == '-';
}

int
acreO_memberof_schema(acre_schema *schema, const char *file, acre_diag *diag)
{
    /* the OID, name, syntax, rule, usage and flag slapd 2.5's overlay
     * gives memberOf */
    static const char def[] =
        "attributetype ( 1.2.840.113556.1.2.102 NAME 'memberOf' "
        "SYNTAX '1.3.6.1.4.1.1466.115.121.1.12' "
        "EQUALITY distinguishedNameMatch USAGE dSAOperation "
        "NO-USER-MODIFICATION )\n";
    int rc = acreS_load_dupok(schema, "memberof overlay",
                              "1.2.840.113556.1.2.102", def, diag);

    if (rc && diag && !diag->file)
        diag->file = file;
    return rc;
}
