#!/bin/bash
find /app/uploads -type f -empty > /app/empty_files.txt
cat /app/empty_files.txt
