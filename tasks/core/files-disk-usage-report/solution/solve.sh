#!/bin/bash
cd /app/storage
for dir in */; do
    dir=${dir%/}
    total=$(find "$dir" -type f -printf '%s\n' | awk '{ sum += $1 } END { print sum + 0 }')
    printf '%s\t%s\n' "$total" "$dir"
done | sort -n -r | awk -F'\t' '{ print $2 " " $1 }' > /app/usage.txt
