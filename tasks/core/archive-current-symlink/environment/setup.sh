#!/bin/bash
# Builds /app/releases with two releases of a small app, v1 and v2.
set -euo pipefail
for version in v1 v2; do
    mkdir -p /app/releases/$version
    printf '%s\n' "$version" > /app/releases/$version/VERSION
    printf 'print("inventory service %s")\n' "$version" > /app/releases/$version/app.py
done
printf 'port = 8080\nworkers = 2\n' > /app/releases/v1/config.ini
printf 'port = 8080\nworkers = 4\n' > /app/releases/v2/config.ini
