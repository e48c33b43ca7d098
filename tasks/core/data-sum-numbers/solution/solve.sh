#!/bin/bash
awk '{ total += $1 } END { print total }' /app/numbers.txt > /app/sum.txt
cat /app/sum.txt
