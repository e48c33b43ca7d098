#!/bin/bash
# Prints the weekly summary of the build server.
builds=(14 9 22 17 11 5 19)
failed=(1 0 3 2 0 0 1)
total=0
broken=0
busiest=0
for day in "${!builds[@]}"; do
    total=$((total + builds[day]))
    broken=$((broken + failed[day]))
    if [ "${builds[day]}" -gt "$busiest" ]; then
        busiest=${builds[day]}
    fi
done
echo "days: ${#builds[@]}"
echo "builds: $total"
echo "failed: $broken"
echo "passed: $((total - broken))"
echo "busiest_day: $busiest"
echo "average_per_day: $((total / ${#builds[@]}))"
