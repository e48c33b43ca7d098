#!/bin/bash
wc -l < /app/poem.txt > /app/line_count.txt
cat /app/line_count.txt
