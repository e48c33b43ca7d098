#!/bin/bash
/app/report.sh > /app/report.txt
cat /app/report.txt
