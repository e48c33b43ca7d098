#!/bin/bash
sed -i 's/^    for amount in amounts$/    for amount in amounts:/' /app/report.py
python3 /app/report.py
