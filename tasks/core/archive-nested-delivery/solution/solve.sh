#!/bin/bash
set -e
work=$(mktemp -d)
cd "$work"
unzip -q /app/delivery.bin
file payload/data.pkg
tar -xJf payload/data.pkg
cp "$(find . -type f -name manifest.txt)" /app/manifest.txt
