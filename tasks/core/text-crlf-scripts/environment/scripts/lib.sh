# Helpers sourced by the other scripts.
banner() {
    echo "== $1 =="
}

shout() {
    echo "$*" | tr '[:lower:]' '[:upper:]'
}
