#!/bin/bash
cut -d' ' -f1 /app/access.log | sort -u | wc -l > /app/ip_count.txt
cat /app/ip_count.txt
