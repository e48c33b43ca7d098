#!/bin/bash
sed -i 's/(ordered\[middle\] + ordered\[middle + 1\]) \/ 2/(ordered[middle - 1] + ordered[middle]) \/ 2/' /app/stats.py
