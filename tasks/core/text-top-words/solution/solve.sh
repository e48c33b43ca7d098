#!/bin/bash
tr 'A-Z' 'a-z' < /app/report.txt | grep -o '[a-z]\+' | sort | uniq -c | sort -k1,1nr -k2 | head -n 10 \
    | awk '{ print $2, $1 }' > /app/top_words.txt
