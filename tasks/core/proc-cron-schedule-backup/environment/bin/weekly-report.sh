#!/bin/bash
# Counts last week's backups.
ls /app/backups | wc -l > /app/weekly-report.txt
