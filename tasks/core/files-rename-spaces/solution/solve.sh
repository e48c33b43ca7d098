#!/bin/bash
cd /app/inbox
for name in *' '*; do
    mv -- "$name" "${name// /_}"
done
