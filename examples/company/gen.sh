#!/bin/sh
# gen.sh -- writes company.ldif, the sample directory of "Example Corp".
#
# usage: sh gen.sh            rewrite company.ldif next to this script
#        sh gen.sh -          write the LDIF to standard output
#        sh gen.sh --check    exit 1 unless company.ldif is what gen.sh writes
#        sh gen.sh --slapd    write to standard output the LDIF without what
#                             OpenLDAP's slapd cannot load (see "Sites")
#
# Deterministic: the same script writes the same bytes with any POSIX awk
# (mawk, gawk, busybox).  Nothing depends on the locale, the date or awk's
# rand(): the pseudo-random choices come from a Park-Miller generator whose
# products stay below 2^47, so they are exact in awk's doubles.
#
# What it writes (2,549 entries):
#   dc=example,dc=com                 the organization Example Corp
#   ou=People                         ~2,500 inetOrgPerson entries in
#     ou=Executive, ou=Engineering    department OUs, some with team OUs
#       (ou=Platform, ...), ...       (ou=Platform,ou=Engineering,...)
#   ou=Groups                         groupOfNames: all-staff, one per
#                                     department, hr-admins, helpdesk,
#                                     sysadmins, managers, and it-staff
#                                     (a group of groups)
#   ou=System                         service accounts
#   cn=Site ...,ou=People             subentries (RFC 3672) with the
#                                     collective attributes of each site
#
# People are named cn=<given> <surname>; a few carry a generational suffix
# ("Robert Brown, Jr."), so their DN needs an escaped comma, and some names
# are accented (UTF-8).  Public data: cn, sn, givenName, uid, mail,
# telephoneNumber, mobile, title, roomNumber, employeeNumber,
# departmentNumber, manager.  Private data, which slapd.conf restricts:
# homePhone, homePostalAddress, employeeType (contract and pay grade) and
# userPassword (fixed {SSHA}-shaped strings, not hashes of anything).
#
# Sites: San Jose (headquarters: every department but those below), London
# (ou=EMEA,ou=Sales), Singapore (ou=APAC,ou=Sales); phone numbers follow.
# ou=People is the administrative point (administrativeRole) of one
# subentry per site, whose collective attributes (RFC 3671: c-l,
# c-telephoneNumber, c-postalAddress) every person in its reach shows.
# slapd 2.5 has neither administrativeRole nor collectiveAttributeSubentry
# and refuses both: --slapd leaves them out, for slapadd.
set -e

here=$(dirname "$0")
out=$here/company.ldif

prog=$(cat <<'EOF'
BEGIN {
    seed = 20240611
    base = "dc=example,dc=com"
    people = "ou=People," base
    groups = "ou=Groups," base
    npeople = 0

    # given names and surnames: "Display|ascii" where the two differ
    nf = split("James Mary John Patricia Robert Jennifer Michael Linda " \
        "William Elizabeth David Barbara Richard Susan Joseph Jessica " \
        "Thomas Sarah Charles Karen Christopher Nancy Daniel Lisa " \
        "Matthew Margaret Anthony Sandra Mark Ashley Paul Emily Steven " \
        "Donna Andrew Michelle Kenneth Carol Joshua Amanda Kevin Melissa " \
        "Brian Deborah Wei Priya Hiroshi Aisha Olga Mateo Ravi Fatima " \
        "Ana Omar José|Jose Zoë|Zoe Søren|Soren Chloé|Chloe " \
        "François|Francois Björn|Bjorn", first, " ")
    nl = split("Smith Johnson Williams Brown Jones Garcia Miller Davis " \
        "Rodriguez Martinez Hernandez Lopez Gonzalez Wilson Anderson " \
        "Thomas Taylor Moore Jackson Martin Lee Perez Thompson White " \
        "Harris Sanchez Clark Ramirez Lewis Robinson Walker Young Allen " \
        "King Wright Scott Torres Nguyen Hill Flores Chen Patel Kim " \
        "O'Brien Kowalski Dubois Yamamoto Müller|Muller Núñez|Nunez " \
        "Ødegaard|Odegaard", last, " ")
    for (i = 1; i <= nf; i++)
        split_name(first, i)
    for (i = 1; i <= nl; i++)
        split_name(last, i)
    nsuffix = split("Jr.|jr II|ii III|iii Sr.|sr", suffix, " ")

    streets = "Oak Street|Maple Avenue|Cedar Lane|Elm Street|Park Road|" \
        "Hill Street|Lake Drive|Church Road|Mill Lane|Station Road"
    nstreet = split(streets, street, "|")

    # Sites: name, phone prefix (digits follow), room prefix, address tail
    site_phone["SJ"] = "+1 408 555 "
    site_phone["LON"] = "+44 20 7946 "
    site_phone["SIN"] = "+65 6555 "
    site_town["SJ"] = "San Jose, CA 951"
    site_town["LON"] = "London N1 "
    site_town["SIN"] = "Singapore 0"

    header()

    # Organizational units, people, and who manages whom.  unit() adds one
    # department or team: its RDN value, parent path under ou=People (""
    # for a department), head title, member titles (|-separated), size
    # (head included), department number, site.
    ceo = unit("Executive", "", "Chief Executive Officer",
               "Chief Financial Officer|Chief Technology Officer|" \
               "Chief Operating Officer|Chief People Officer|" \
               "Executive Assistant", 6, "1000", "SJ", "")

    dept("Engineering", "VP Engineering", "2000", "SJ")
    team("Platform", "Engineering", "Platform Engineering Manager",
         "Software Engineer|Senior Software Engineer|Staff Engineer|" \
         "Site Reliability Engineer", 260, "2100", "SJ")
    team("Mobile", "Engineering", "Mobile Engineering Manager",
         "Software Engineer|Senior Software Engineer|iOS Engineer|" \
         "Android Engineer", 185, "2200", "SJ")
    team("Data", "Engineering", "Data Engineering Manager",
         "Data Engineer|Data Scientist|Senior Data Engineer|" \
         "Analytics Engineer", 180, "2300", "SJ")
    team("Security", "Engineering", "Security Engineering Manager",
         "Security Engineer|Senior Security Engineer|Security Analyst",
         90, "2400", "SJ")
    team("Quality", "Engineering", "QA Manager",
         "QA Engineer|Senior QA Engineer|Test Automation Engineer",
         165, "2500", "SJ")
    unit("Product", "", "VP Product", "Product Manager|" \
         "Senior Product Manager|Product Designer|UX Researcher", 135,
         "3000", "SJ", ceo)

    dept("Sales", "VP Sales", "4000", "SJ")
    team("EMEA", "Sales", "Sales Director EMEA", "Account Executive|" \
         "Account Manager|Sales Development Representative|" \
         "Solutions Engineer", 165, "4100", "LON")
    team("Americas", "Sales", "Sales Director Americas",
         "Account Executive|Account Manager|" \
         "Sales Development Representative|Solutions Engineer", 205,
         "4200", "SJ")
    team("APAC", "Sales", "Sales Director APAC", "Account Executive|" \
         "Account Manager|Sales Development Representative", 110,
         "4300", "SIN")

    dept("Support", "VP Customer Support", "5000", "SJ")
    team("Helpdesk", "Support", "Helpdesk Manager",
         "IT Support Specialist|Senior IT Support Specialist", 55,
         "5100", "SJ")
    team("Customer Care", "Support", "Customer Care Manager",
         "Support Engineer|Senior Support Engineer|Support Agent", 290,
         "5200", "SJ")

    unit("Marketing", "", "VP Marketing", "Marketing Manager|" \
         "Content Writer|Product Marketing Manager|Events Coordinator",
         200, "6000", "SJ", ceo)
    unit("Finance", "", "Finance Director", "Accountant|" \
         "Financial Analyst|Payroll Specialist|Controller", 150, "7000",
         "SJ", ceo)
    unit("HR", "", "HR Director", "HR Business Partner|Recruiter|" \
         "HR Generalist|Benefits Specialist", 75, "8000", "SJ", ceo)
    unit("Legal", "", "General Counsel", "Corporate Counsel|Paralegal|" \
         "Compliance Officer", 35, "8500", "SJ", ceo)

    dept("Operations", "VP Operations", "9000", "SJ")
    team("Facilities", "Operations", "Facilities Manager",
         "Facilities Coordinator|Office Manager|Receptionist", 70, "9100",
         "SJ")
    team("IT", "Operations", "IT Manager", "Systems Administrator|" \
         "Network Engineer|Senior Systems Administrator", 120, "9200",
         "SJ")

    groups_out()
    system_out()
    if (sites)
        sites_out()
}

function split_name(a, i,    p) {
    p = index(a[i], "|")
    if (p) {
        ascii[substr(a[i], 1, p - 1) "|"] = tolower(substr(a[i], p + 1))
        a[i] = substr(a[i], 1, p - 1)
    } else {
        ascii[a[i] "|"] = tolower(a[i])
    }
}

function rnd(n) {
    seed = (seed * 16807) % 2147483647
    return seed % n
}

function digits(n,    s) {
    s = ""
    while (n-- > 0)
        s = s rnd(10)
    return s
}

function header() {
    print "# company.ldif -- Example Corp, the sample directory of acre's"
    print "# examples/ (written by gen.sh: edit gen.sh, not this file)."
    print ""
    print "dn: " base
    print "objectClass: top"
    print "objectClass: dcObject"
    print "objectClass: organization"
    print "dc: example"
    print "o: Example Corp"
    print "description: Example Corp, makers of fine examples since 1998"
    print "telephoneNumber: +1 408 555 0100"
    print "postalAddress: Example Corp$1 Example Way$San Jose, CA 95110"
    print ""
    ou_out("People", base, "Everyone who works at Example Corp")
    ou_out("Groups", base, "Groups of people, for mail and access")
    ou_out("System", base, "Service accounts of applications")
}

function ou_out(name, parent, desc) {
    print "dn: ou=" name "," parent
    print "objectClass: top"
    print "objectClass: organizationalUnit"
    print "ou: " name
    if (desc != "")
        print "description: " desc
    if (sites && name == "People" && parent == base)
        print "administrativeRole: collectiveAttributeSpecificArea"
    print ""
}

# A department with teams: its OU and its head, who reports to the CEO.
function dept(name, title, num, site) {
    ou_out(name, people, "The " name " department")
    dhead[name] = person(name, num, title, site, ceo)
    add_member(name, dhead[name])
    managers = managers "\n" dhead[name]
}

# A team of department d, led by someone reporting to the department head.
function team(name, d, lead, titles, size, num, site) {
    unit(name, d, lead, titles, size, num, site, dhead[d])
}

# One OU of people: ou=name under ou=People (d "") or under ou=d,ou=People;
# a head reporting to boss, then size - 1 people reporting to the head,
# each with one of titles (|-separated; in order for the Executive).
# Returns the head's DN.
function unit(name, d, head, titles, size, num, site, boss,    path,
              ntitle, title, h, i, t, dn) {
    path = d == "" ? name : name ",ou=" d
    if (d == "")
        ou_out(name, people, "The " name " department")
    else
        ou_out(name, "ou=" d "," people, "The " name " team of " d)
    ntitle = split(titles, title, "|")
    h = person(path, num, head, site, boss)
    add_member(d == "" ? name : d, h)
    managers = managers "\n" h
    for (i = 1; i < size; i++) {
        t = name == "Executive" ? title[i] : title[1 + rnd(ntitle)]
        dn = person(path, num, t, site, h)
        add_member(d == "" ? name : d, dn)
        if (name == "Helpdesk")
            helpdesk = helpdesk "\n" dn
        if (name == "IT" && i <= 12)
            sysadmins = sysadmins "\n" dn
        if (name == "HR" && i <= 4)
            hradmins = hradmins "\n" dn
    }
    if (name == "HR")
        hradmins = h hradmins
    return h
}

function add_member(d, dn) {
    dmembers[d] = dmembers[d] == "" ? dn : dmembers[d] "\n" dn
    if (!(d in dorder))
        dorder[d] = ++ndept
    dname[dorder[d]] = d
}

# One person in ou=<path>,ou=People; returns the DN.  The k-th person
# (k from 0) gets the name pair (k * 1237 + 11) mod 3000, a bijection on
# the 60 x 50 pairs, so no two people share a name.
function person(path, num, title, site, boss,    p, g, s, suf, cn, rdn,
                dn, uid, n, mail, emp) {
    p = (npeople * 1237 + 11) % (nf * nl)
    g = first[1 + p % nf]
    s = last[1 + int(p / nf)]
    suf = npeople % 397 == 200 ? suffix[1 + rnd(nsuffix)] : ""
    cn = g " " s
    rdn = cn
    if (suf != "") {
        split(suf, sp, "|")
        cn = cn ", " sp[1]
        rdn = rdn "\\, " sp[1]
    }
    uid = substr(ascii[g "|"], 1, 1) ascii[s "|"]
    gsub(/'/, "", uid)
    if (suf != "")
        uid = uid sp[2]
    n = ++uidseen[uid]
    if (n > 1)
        uid = uid n
    mail = ascii[g "|"] "." ascii[s "|"] (suf != "" ? "." sp[2] : "")
    gsub(/'/, "", mail)
    dn = "cn=" rdn ",ou=" path "," people
    npeople++
    emp = 10000 + npeople

    print "dn: " dn
    print "objectClass: top"
    print "objectClass: person"
    print "objectClass: organizationalPerson"
    print "objectClass: inetOrgPerson"
    print "cn: " cn
    if (suf != "")
        print "cn: " g " " s
    print "sn: " s
    print "givenName: " g
    print "uid: " uid
    print "mail: " mail "@example.com"
    print "telephoneNumber: " site_phone[site] digits(4)
    if (rnd(3) == 0)
        print "mobile: " site_phone[site] digits(4)
    print "title: " title
    print "roomNumber: " site "-" (1 + rnd(3)) "-" (101 + rnd(40))
    print "employeeNumber: " emp
    if (num != "")
        print "departmentNumber: " num
    if (boss != "")
        print "manager: " boss
    print "employeeType: " emptype(title)
    print "homePhone: " site_phone[site] digits(4)
    print "homePostalAddress: " (1 + rnd(480)) " " street[1 + rnd(nstreet)] \
        "$" site_town[site] digits(site == "LON" ? 3 : 2)
    print "userPassword: " ssha()
    print ""
    return dn
}

# Contract and pay grade; heads of units are all permanent.
function emptype(title,    r) {
    r = title ~ /Chief|VP|Director|Manager|Counsel/ ? 20 : rnd(20)
    if (r == 0)
        return "Intern"
    if (r < 3)
        return "Contractor"
    return "Permanent, pay grade " substr("ABCDE", 1 + rnd(5), 1) \
        (1 + rnd(6))
}

# A {SSHA}-shaped value: 32 base64 characters (20 bytes of SHA-1 and a
# 4-byte salt).  Not the hash of any password.
function ssha(    s, i, b64) {
    b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    s = "{SSHA}"
    for (i = 0; i < 32; i++)
        s = s substr(b64, 1 + rnd(64), 1)
    return s
}

function group_out(cn, desc, members,    m, n, i) {
    print "dn: cn=" cn "," groups
    print "objectClass: top"
    print "objectClass: groupOfNames"
    print "cn: " cn
    print "description: " desc
    n = split(members, m, "\n")
    for (i = 1; i <= n; i++)
        if (m[i] != "")
            print "member: " m[i]
    print ""
}

function groups_out(    i, all, d) {
    for (i = 1; i <= ndept; i++)
        all = all "\n" dmembers[dname[i]]
    group_out("all-staff", "Everyone at Example Corp", all)
    for (i = 1; i <= ndept; i++) {
        d = dname[i]
        group_out(tolower(d), "Everyone in " d, dmembers[d])
    }
    group_out("hr-admins", "May read and change people's HR data",
              hradmins)
    group_out("helpdesk", "May reset passwords", helpdesk)
    group_out("sysadmins", "Run the servers", sysadmins)
    group_out("managers", "Heads of departments and teams",
              managers)
    group_out("it-staff", "A group of groups: helpdesk and sysadmins",
              "cn=helpdesk," groups "\ncn=sysadmins," groups)
}

# Sites (RFC 3671 collective attributes): ou=People is an administrative
# point; one subentry below it per site gives every person in its reach
# the site's locality, switchboard number and postal address.
function site(cn, spec, town, phone, addr) {
    print "dn: cn=" cn "," people
    print "objectClass: top"
    print "objectClass: subentry"
    print "objectClass: collectiveAttributeSubentry"
    print "cn: " cn
    print "subtreeSpecification: " spec
    print "c-l: " town
    print "c-telephoneNumber: " phone
    print "c-postalAddress: " addr
    print ""
}

function sites_out() {
    site("Site San Jose", "{ specificExclusions " \
         "{ chopBefore:\"ou=EMEA,ou=Sales\", " \
         "chopBefore:\"ou=APAC,ou=Sales\" }, " \
         "specificationFilter item:person }",
         "San Jose", "+1 408 555 0100",
         "Example Corp$1 Example Way$San Jose, CA 95110")
    site("Site London", "{ base \"ou=EMEA,ou=Sales\", " \
         "specificationFilter item:person }", "London", "+44 20 7946 0000",
         "Example Corp UK$10 Example Street$London EC1A 1BB")
    site("Site Singapore", "{ base \"ou=APAC,ou=Sales\", " \
         "specificationFilter item:person }", "Singapore", "+65 6555 0000",
         "Example Corp Asia$1 Example Quay$Singapore 049315")
}

function service(cn, desc) {
    print "dn: cn=" cn ",ou=System," base
    print "objectClass: top"
    print "objectClass: applicationProcess"
    print "objectClass: simpleSecurityObject"
    print "cn: " cn
    print "description: " desc
    print "userPassword: " ssha()
    print ""
}

function system_out() {
    service("replicator", "Consumer of the replication of dc=example,dc=com")
    service("mail-gateway", "Looks up mail addresses for the mail relay")
    service("backup", "Nightly export of the directory")
    service("hr-sync", "Feeds people changes from the HR system")
}
EOF
)

# generate [0]: the LDIF (0: without the administrative point and sites).
generate() {
    LC_ALL=C awk -v sites="${1:-1}" "$prog" </dev/null
}

case ${1-} in
-) generate ;;
--slapd) generate 0 ;;
--check)
    generate | cmp -s - "$out" || {
        echo "gen.sh: $out is not what gen.sh writes" >&2
        exit 1
    }
    ;;
"")
    generate >"$out.tmp"
    mv "$out.tmp" "$out"
    ;;
*)
    echo "usage: sh gen.sh [- | --check | --slapd]" >&2
    exit 2
    ;;
esac
