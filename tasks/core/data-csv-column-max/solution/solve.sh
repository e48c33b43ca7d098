#!/bin/bash
tail -n +2 /app/sales.csv | cut -d, -f4 | sort -n | tail -n 1 > /app/max_amount.txt
cat /app/max_amount.txt
