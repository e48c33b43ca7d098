#!/bin/bash
find /app/data -type f -printf '%s\t%p\n' | sort -n | tail -n 1 | cut -f 2 > /app/answer.txt
