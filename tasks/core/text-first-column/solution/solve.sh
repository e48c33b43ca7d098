#!/bin/bash
cut -d' ' -f1 /app/people.txt > /app/names.txt
cat /app/names.txt
