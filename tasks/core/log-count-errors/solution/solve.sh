#!/bin/bash
awk '$3 == "ERROR"' /app/logs/app.log | wc -l > /app/error_count.txt
cat /app/error_count.txt
