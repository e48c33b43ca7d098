#!/bin/bash
tail -n 1 /app/service.log > /app/last_entry.txt
cat /app/last_entry.txt
