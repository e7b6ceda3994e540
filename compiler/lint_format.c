/*
 * lint_format.c -- the findings of acre_lint as text: gcc-style lines, a
 * JSON array, or a SARIF 2.1.0 log.
 *
 *   text   FILE:LINE:COL: warning: MESSAGE [ID]
 *          FILE:LINE:COL: note: NOTE                 (a related place)
 *          FILE:LINE:COL: error: MESSAGE             (input that fails)
 *          unknown parts are left out; a source without a name is "-"
 *   json   [{"id", "severity", "file", "line", "column", "message",
 *            "related": {"file", "line", "column", "message"}}, ...]
 *          one object a line; file null when unknown
 *   sarif  {"version": "2.1.0", "runs": [{"tool": {"driver": {"name":
 *          "acre", "version", "rules": [every id]}}, "results": [...]}]}
 *          with a physical location (artifact URI, region) for each place
 *          known, the note as a related location.
 * Strings are written as valid UTF-8 JSON: a byte that is not part of a
 * valid UTF-8 sequence becomes U+FFFD.
 */
#include "lint.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>

struct out {
    char *s; /* talloc string, NULL once out of memory */
};

static void put(struct out *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
put(struct out *o, const char *fmt, ...)
{
    va_list ap;

    if (!o->s)
        return;
    va_start(ap, fmt);
    o->s = talloc_vasprintf_append_buffer(o->s, fmt, ap);
    va_end(ap);
}

/* The length of the valid UTF-8 sequence at s[0..n), 0 when invalid. */
static size_t
utf8_len(const unsigned char *s, size_t n)
{
    size_t k;
    uint32_t c;

    if (s[0] < 0x80)
        return 1;
    if (s[0] >= 0xc2 && s[0] <= 0xdf)
        k = 2, c = s[0] & 0x1f;
    else if (s[0] >= 0xe0 && s[0] <= 0xef)
        k = 3, c = s[0] & 0x0f;
    else if (s[0] >= 0xf0 && s[0] <= 0xf4)
        k = 4, c = s[0] & 0x07;
    else
        return 0;
    if (k > n)
        return 0;
    for (size_t i = 1; i < k; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        c = c << 6 | (s[i] & 0x3f);
    }
    if ((k == 3 && (c < 0x800 || (c >= 0xd800 && c <= 0xdfff))) ||
        (k == 4 && (c < 0x10000 || c > 0x10ffff)))
        return 0;
    return k;
}

static void
json_str(struct out *o, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s);

    put(o, "\"");
    for (size_t i = 0; i < n;) {
        size_t k = utf8_len(p + i, n - i);
        if (k == 0) {
            put(o, "\\ufffd");
            i++;
        } else if (k > 1) {
            put(o, "%.*s", (int)k, s + i);
            i += k;
        } else if (p[i] == '"' || p[i] == '\\') {
            put(o, "\\%c", p[i++]);
        } else if (p[i] < 0x20 || p[i] == 0x7f) {
            put(o, "\\u%04x", p[i++]);
        } else {
            put(o, "%c", p[i++]);
        }
    }
    put(o, "\"");
}

/* ------------------------------------------------------------------------
 * text
 */

static void
text_place(struct out *o, const char *file, unsigned line, unsigned col)
{
    put(o, "%s:", file ? file : "-");
    if (line)
        put(o, "%u:", line);
    if (line && col)
        put(o, "%u:", col);
    put(o, " ");
}

static void
text(struct out *o, const acre_lint_result *r)
{
    for (size_t i = 0; i < r->count; i++) {
        const acre_lint_finding *f = &r->findings[i];
        int err = f->severity == ACRE_LINT_ERROR;
        text_place(o, f->file, f->line, f->column);
        put(o, "%s: %s", err ? "error" : "warning", f->message);
        if (!err)
            put(o, " [%s]", f->id);
        put(o, "\n");
        if (f->note) {
            text_place(o, f->note_file, f->note_line, f->note_column);
            put(o, "note: %s\n", f->note);
        }
    }
}

/* ------------------------------------------------------------------------
 * json
 */

static void
json_place(struct out *o, const char *file, unsigned line, unsigned col)
{
    put(o, "\"file\":");
    if (file)
        json_str(o, file);
    else
        put(o, "null");
    put(o, ",\"line\":%u,\"column\":%u", line, col);
}

static void
json(struct out *o, const acre_lint_result *r)
{
    put(o, "[");
    for (size_t i = 0; i < r->count; i++) {
        const acre_lint_finding *f = &r->findings[i];
        put(o, "%s\n{\"id\":", i ? "," : "");
        json_str(o, f->id);
        put(o, ",\"severity\":\"%s\",",
            f->severity == ACRE_LINT_ERROR ? "error" : "warning");
        json_place(o, f->file, f->line, f->column);
        put(o, ",\"message\":");
        json_str(o, f->message);
        if (f->note) {
            put(o, ",\"related\":{");
            json_place(o, f->note_file, f->note_line, f->note_column);
            put(o, ",\"message\":");
            json_str(o, f->note);
            put(o, "}");
        }
        put(o, "}");
    }
    put(o, "%s]\n", r->count ? "\n" : "");
}

/* ------------------------------------------------------------------------
 * sarif
 */

/* A file name as a URI reference: unreserved bytes and '/' kept, the
 * others percent-encoded. */
static void
sarif_uri(struct out *o, const char *file)
{
    static const char keep[] = "-._~/";

    put(o, "\"");
    for (const unsigned char *p = (const unsigned char *)file; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
            (*p >= '0' && *p <= '9') || strchr(keep, *p))
            put(o, "%c", *p);
        else
            put(o, "%%%02X", *p);
    }
    put(o, "\"");
}

static void
sarif_physical(struct out *o, const char *file, unsigned line, unsigned col,
               const char *ind)
{
    put(o,
        "%s\"physicalLocation\": {\n%s  \"artifactLocation\": {\"uri\": ", ind,
        ind);
    sarif_uri(o, file);
    put(o, "}");
    if (line) {
        put(o, ",\n%s  \"region\": {\"startLine\": %u", ind, line);
        if (col)
            put(o, ", \"startColumn\": %u", col);
        put(o, "}");
    }
    put(o, "\n%s}", ind);
}

/* The index of id in the rules list: the checks, then the two errors. */
static int
rule_index(const char *id)
{
    size_t n;
    const acre_lint_check *c = acre_lint_checks(&n);

    for (size_t i = 0; i < n; i++)
        if (!strcmp(c[i].id, id))
            return (int)i;
    return strcmp(id, ACREW_ID_READ) ? (int)n : (int)n + 1;
}

static void
sarif_rules(struct out *o)
{
    size_t n;
    const acre_lint_check *c = acre_lint_checks(&n);

    put(o, "          \"rules\": [\n");
    for (size_t i = 0; i < n + 2; i++) {
        put(o, "            {\"id\": ");
        json_str(o, i < n ? c[i].id : i == n ? ACREW_ID_PARSE : ACREW_ID_READ);
        put(o, ", \"shortDescription\": {\"text\": ");
        json_str(o, i < n    ? c[i].summary
                    : i == n ? "the input does not compile"
                             : "the input cannot be read");
        put(o, "}}%s\n", i + 1 < n + 2 ? "," : "");
    }
    put(o, "          ]\n");
}

static void
sarif_result(struct out *o, const acre_lint_finding *f, int last)
{
    put(o, "        {\n          \"ruleId\": ");
    json_str(o, f->id);
    put(o, ",\n          \"ruleIndex\": %d,\n          \"level\": \"%s\",\n",
        rule_index(f->id),
        f->severity == ACRE_LINT_ERROR ? "error" : "warning");
    put(o, "          \"message\": {\"text\": ");
    json_str(o, f->message);
    put(o, "}");
    if (f->file) {
        put(o, ",\n          \"locations\": [{\n");
        sarif_physical(o, f->file, f->line, f->column, "            ");
        put(o, "\n          }]");
    }
    if (f->note && f->note_file) {
        put(o, ",\n          \"relatedLocations\": [{\n            \"id\": 0,"
               "\n            \"message\": {\"text\": ");
        json_str(o, f->note);
        put(o, "},\n");
        sarif_physical(o, f->note_file, f->note_line, f->note_column,
                       "            ");
        put(o, "\n          }]");
    }
    put(o, "\n        }%s\n", last ? "" : ",");
}

static void
sarif(struct out *o, const acre_lint_result *r)
{
    put(o, "{\n  \"$schema\": "
           "\"https://json.schemastore.org/sarif-2.1.0.json\",\n"
           "  \"version\": \"2.1.0\",\n  \"runs\": [\n    {\n"
           "      \"tool\": {\n        \"driver\": {\n"
           "          \"name\": \"acre\",\n"
           "          \"version\": \"" ACRE_VERSION_STRING "\",\n");
    sarif_rules(o);
    put(o, "        }\n      },\n      \"results\": [%s", r->count ? "\n" : "");
    for (size_t i = 0; i < r->count; i++)
        sarif_result(o, &r->findings[i], i + 1 == r->count);
    put(o, "%s]\n    }\n  ]\n}\n", r->count ? "      " : "");
}

/* acreW_format -- see lint.h. */
char *
acreW_format(const acre_lint_result *r, int format)
{
    struct out o = {talloc_strdup(NULL, "")};
    char *res = NULL;

    switch (format) {
    case ACRE_LINT_TEXT:
        text(&o, r);
        break;
    case ACRE_LINT_JSON:
        json(&o, r);
        break;
    case ACRE_LINT_SARIF:
        sarif(&o, r);
        break;
    default:
        talloc_free(o.s);
        return NULL;
    }
    if (o.s)
        res = strdup(o.s);
    talloc_free(o.s);
    return res;
}
