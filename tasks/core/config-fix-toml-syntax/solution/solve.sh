#!/bin/bash
set -euo pipefail
cd /app/config
sed -i \
  -e 's/^name = "billing-api$/name = "billing-api"/' \
  -e 's/^debug = False$/debug = false/' \
  -e 's/"https:\/\/shop.example.com" "https/"https:\/\/shop.example.com", "https/' \
  -e 's/^\[database$/[database]/' \
  service.toml
python3 -c 'import tomllib; print(tomllib.load(open("service.toml", "rb")))'
