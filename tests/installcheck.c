/*
 * installcheck.c -- a host program built against the installed library
 * through `pkg-config --cflags --libs acre`, in strict C99, to prove that
 * the header stands alone and the shared library links and runs.
 */
#include <acre.h>
#include <stdio.h>
#include <string.h>

int
main(void)
{
    acre_dn *dn = NULL;
    acre_diag diag;
    const char *s = "CN=Installed Check,DC=Example,DC=COM";
    int major = -1;

    if (strcmp(acre_version(&major, NULL, NULL), "acre " ACRE_VERSION_STRING) ||
        major != ACRE_VERSION_MAJOR) {
        fprintf(stderr, "installcheck: version mismatch\n");
        return 1;
    }
    if (acre_dn_parse(NULL, NULL, s, strlen(s), 0, &dn, &diag) != ACRE_OK) {
        fprintf(stderr, "installcheck: %s\n", diag.message);
        return 1;
    }
    if (strcmp(acre_dn_normalised(dn, NULL),
               "cn=installed check,dc=example,dc=com") != 0) {
        fprintf(stderr, "installcheck: bad normalised form\n");
        return 1;
    }
    acre_dn_free(dn);
    return 0;
}
