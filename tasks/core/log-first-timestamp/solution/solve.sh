#!/bin/bash
grep -m 1 '\] ERROR ' /app/logs/server.log | cut -c 2-20 > /app/first_error.txt
cat /app/first_error.txt
