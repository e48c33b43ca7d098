#!/bin/bash
awk '!seen[$0]++' /app/urls.txt > /app/unique.txt
