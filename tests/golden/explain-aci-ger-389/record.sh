#!/bin/bash
# record.sh -- re-record explain-aci-ger-389 from a real 389-DS, with the
# script of explain-aci-ger-389-writes (see there).
here=$(cd "$(dirname "$0")" && pwd -P)
exec "$here/../explain-aci-ger-389-writes/record.sh" "$here"
