#!/bin/bash
source "$(dirname "$0")/lib.sh"
banner "weekly report"
shout "all systems ${1:-nominal}"
