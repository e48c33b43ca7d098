#!/bin/bash
# Prints the sum of its integer arguments.
total=0
for number in "$@"; do
    total=$((total + number))
done
echo "sum=$total"
