#!/bin/bash
grep -v '^[[:space:]]*$' /app/names.txt | sort > /app/sorted_names.txt
cat /app/sorted_names.txt
