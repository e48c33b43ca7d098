#!/bin/bash
find /app/logs -type f -name '*.log' | wc -l > /app/log_count.txt
cat /app/log_count.txt
